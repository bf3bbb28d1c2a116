//! Fast random text: characters of an alphabet, eight from every 64 random bits.
//!
//! Shared by the workloads' generators (TPC-C's a-strings and zip codes, DS2's upper-case names), whose
//! hot loops fill stack buffers with it. Like [`Rng`], the expansion is part of every generated database:
//! changing it changes the data.

use crate::Rng;

/// Upper-case letters: TPC-C's states (4.3.3.1) and DS2's names and cities (`ds2_create_cust.c`).
pub(crate) const UPPERCASE: Alphabet = Alphabet::new(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ");

/// TPC-C's a-strings (4.3.2.2), alphanumeric: only letters and digits, so CSV never needs quoting. Also
/// the text of a workload defined at run time (`defined`).
pub(crate) const ALNUM: Alphabet =
    Alphabet::new(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");

/// Digits: TPC-C's n-strings (4.3.2.2), for a defined workload's `digits` generator.
pub(crate) const DIGITS: Alphabet = Alphabet::new(b"0123456789");

/// An alphabet padded to 64 entries, so that picking a character needs no bounds check.
pub(crate) struct Alphabet {
    len: u128,
    table: [u8; 64],
}

impl Alphabet {
    /// The alphabet of `chars` (1 to 64 of them), each equally likely.
    pub(crate) const fn new(chars: &[u8]) -> Alphabet {
        assert!(!chars.is_empty() && chars.len() <= 64);
        let mut table = [0u8; 64];
        let mut i = 0;
        while i < chars.len() {
            table[i] = chars[i];
            i += 1;
        }
        Alphabet { len: chars.len() as u128, table }
    }

    /// The next character of `bits`' mixed-radix expansion; `bits` keeps the rest.
    #[inline(always)]
    fn take(&self, bits: &mut u64) -> u8 {
        let m = u128::from(*bits) * self.len;
        *bits = m as u64;
        // (m >> 64) < len <= 64: the mask only tells the compiler so.
        self.table[(m >> 64) as usize & 63]
    }
}

/// Characters taken from each 64 random bits. Each is the next digit of the bits' expansion in base
/// `len` (Lemire's multiply-shift, reusing the low half): with `len ^ 8 < 2^48` no combination of 8
/// characters is more than 2^-16 (relatively) more likely than another.
const CHARS_PER_WORD: usize = 8;
/// Words expanded side by side, so that their multiply chains overlap.
const LANES: usize = 3;

/// Characters filled at once: one word per lane.
const GROUP: usize = CHARS_PER_WORD * LANES;

/// Fills `out` with random characters of `alphabet`: whole groups of [`GROUP`] characters, then one word
/// per [`CHARS_PER_WORD`] characters left (measured faster than a last, partly used group).
#[inline]
pub(crate) fn fill(rng: &mut Rng, alphabet: &Alphabet, out: &mut [u8]) {
    let mut groups = out.chunks_exact_mut(GROUP);
    for group in &mut groups {
        fill_group(rng, alphabet, group.try_into().expect("chunks of GROUP bytes"));
    }
    for short in groups.into_remainder().chunks_mut(CHARS_PER_WORD) {
        let mut word = rng.next_u64();
        for byte in short {
            *byte = alphabet.take(&mut word);
        }
    }
}

/// [`GROUP`] characters from [`LANES`] words, expanded side by side so their multiply chains overlap.
#[inline(always)]
fn fill_group(rng: &mut Rng, alphabet: &Alphabet, group: &mut [u8; GROUP]) {
    let mut bits = [0u64; LANES];
    for word in &mut bits {
        *word = rng.next_u64();
    }
    for k in 0..CHARS_PER_WORD {
        for (lane, word) in bits.iter_mut().enumerate() {
            group[k * LANES + lane] = alphabet.take(word);
        }
    }
}

/// `N` random upper-case letters, as DS2's names and cities are made.
#[inline]
pub(crate) fn uppercase<const N: usize>(rng: &mut Rng) -> [u8; N] {
    let mut text = [0u8; N];
    fill(rng, &UPPERCASE, &mut text);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_are_uniform_at_every_position() {
        // Every length exercises both the grouped and the short path of `fill`.
        let alnum = Alphabet::new(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
        let mut rng = Rng::new(12);
        let mut counts = [[0u32; 62]; 50];
        let mut buf = [0u8; 50];
        let index = |b: u8| alnum.table.iter().position(|&c| c == b).unwrap();
        for round in 0..31_000 {
            let len = 1 + round % 50;
            fill(&mut rng, &alnum, &mut buf[..len]);
            for (at, &b) in buf[..len].iter().enumerate() {
                counts[at][index(b)] += 1;
            }
        }
        // Position 0 saw 31,000 characters: 500 of each expected, standard deviation 22.
        for c in counts[0] {
            assert!((400..=600).contains(&c), "{:?}", counts[0]);
        }
        let total: Vec<u32> = (0..62).map(|i| counts.iter().map(|p| p[i]).sum()).collect();
        let expected = total.iter().sum::<u32>() / 62;
        for c in &total {
            assert!(c.abs_diff(expected) < expected / 25, "{total:?}");
        }
    }

    #[test]
    fn uppercase_is_letters_only() {
        let mut rng = Rng::new(3);
        let mut seen = [false; 26];
        for _ in 0..200 {
            for b in uppercase::<10>(&mut rng) {
                seen[usize::from(b - b'A')] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
