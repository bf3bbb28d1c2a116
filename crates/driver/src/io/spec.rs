//! Iometer's access specification in its own words, checked: the transfer size (`--block`), the share
//! of reads (`--read`) and of random I/Os (`--random`) over a file region (`--size`), and each I/O
//! worker's pick of its next transfer ([`Picker`]): read or write, where, from the worker's own random
//! stream, so a run is reproducible from its seed.

use oltpgen_datagen::Rng;

pub use oltpgen_report::stats::io_model::SECTOR_BYTES;

/// The most I/Os in flight a run keeps (workers × outstanding): with psync each has a client thread
/// of its own, and a ring's queues are sized for them all.
pub const MAX_IN_FLIGHT: u64 = 1024;

/// What every I/O of a run looks like (Iometer's access specification).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessSpec {
    /// The file region the I/Os fall in, bytes (a whole number of blocks).
    pub size_bytes: u64,
    /// Bytes per transfer; offsets are aligned to it, as Iometer aligns I/Os on their size.
    pub block_bytes: u64,
    /// Percent of transfers that read (the rest write).
    pub read_pct: u32,
    /// Percent of transfers at a random block (the rest follow the worker's last one).
    pub random_pct: u32,
}

impl AccessSpec {
    /// The spec, checked: a block of whole sectors, a region of at least one block (rounded down to
    /// whole blocks), percentages up to 100.
    ///
    /// # Errors
    /// One line naming the flag at fault.
    pub fn new(size_bytes: u64, block_bytes: u64, read_pct: u32, random_pct: u32) -> Result<Self, String> {
        if block_bytes == 0 || !block_bytes.is_multiple_of(SECTOR_BYTES) {
            return Err(format!(
                "--block {block_bytes} bytes: give a multiple of {SECTOR_BYTES} bytes (direct I/O moves whole \
                 sectors), e.g. 4k, 8k or 16k"
            ));
        }
        if size_bytes < block_bytes {
            return Err(format!("--size {size_bytes} bytes is less than one --block of {block_bytes}"));
        }
        for (flag, pct) in [("--read", read_pct), ("--random", random_pct)] {
            if pct > 100 {
                return Err(format!("{flag} {pct}%: give a percentage from 0% to 100%"));
            }
        }
        let size_bytes = size_bytes / block_bytes * block_bytes;
        Ok(AccessSpec { size_bytes, block_bytes, read_pct, random_pct })
    }

    /// Blocks in the region.
    pub fn blocks(&self) -> u64 {
        self.size_bytes / self.block_bytes
    }

    /// The spec in one phrase, as results and reports name it: `16 KiB, 30% read, 100% random`.
    pub fn describe(&self) -> String {
        format!("{}, {}% read, {}% random", bytes_phrase(self.block_bytes), self.read_pct, self.random_pct)
    }
}

/// `bytes` in the largest binary unit that divides it (`16 KiB`, `320 GiB`, `1536 B`).
pub fn bytes_phrase(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let (mut value, mut unit) = (bytes, 0);
    while unit + 1 < UNITS.len() && value >= 1024 && value.is_multiple_of(1024) {
        value /= 1024;
        unit += 1;
    }
    format!("{value} {}", UNITS[unit])
}

/// A size as the flags give it: a number of bytes with an optional binary unit, as Iometer and fio
/// read them (`16k`, `16K`, `16KB` and `16KiB` are all 16,384 bytes; `320G`, `1T`).
///
/// # Errors
/// One line saying what a size looks like.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("{s:?} is not a size: give bytes with a unit, e.g. 16k, 512m, 320G")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("{s:?} is not a size: give e.g. 16k, 512m, 320G"))?;
    n.checked_mul(1 << shift).filter(|&b| b > 0).ok_or_else(|| format!("{s:?}: give a size above 0"))
}

/// A drive's rated endurance as data sheets give it, in decimal units: `1PB`, `600TB`, `1.2PB` (bytes).
///
/// # Errors
/// One line saying what a rating looks like.
pub fn parse_rating(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim().to_ascii_uppercase().as_str() {
        "TB" | "TBW" => 1e12,
        "PB" | "PBW" => 1e15,
        _ => {
            return Err(format!(
                "{s:?} is not a rated endurance: give it as the data sheet does, e.g. 600TB or 1PB"
            ));
        }
    };
    number
        .parse::<f64>()
        .ok()
        .filter(|n| *n > 0.0 && n.is_finite())
        .map(|n| n * scale)
        .ok_or_else(|| format!("{s:?} is not a rated endurance: give e.g. 600TB or 1PB"))
}

/// A percentage as the flags give it: `30%` or `30`.
///
/// # Errors
/// One line saying what a percentage looks like.
pub fn parse_pct(s: &str) -> Result<u32, String> {
    s.trim()
        .trim_end_matches('%')
        .parse::<u32>()
        .ok()
        .filter(|&p| p <= 100)
        .ok_or_else(|| format!("{s:?} is not a percentage: give 0% to 100%, e.g. 30%"))
}

/// One transfer: a read or a write of a block at an offset in the region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// A write (else a read).
    pub write: bool,
    /// Offset into the region, bytes (aligned to the block).
    pub offset: u64,
}

/// One worker's stream of transfers: its own random stream, and where its sequential run stands.
#[derive(Clone, Debug)]
pub struct Picker {
    rng: Rng,
    /// The block its last transfer was at.
    last: u64,
}

impl Picker {
    /// The stream of I/O worker `index` of a run seeded `seed`, its sequential run starting at a random block.
    pub fn new(spec: &AccessSpec, seed: u64, index: u32) -> Self {
        let mut rng = Rng::derive(seed, &[u64::from(index)]);
        let last = rng.below(spec.blocks());
        Picker { rng, last }
    }

    /// The next transfer: a read `read_pct` percent of the time; at a random block `random_pct` percent
    /// of the time, else at the block after the last (wrapping at the region's end).
    pub fn next(&mut self, spec: &AccessSpec) -> Transfer {
        let write = !self.rng.percent(spec.read_pct);
        let blocks = spec.blocks();
        self.last =
            if self.rng.percent(spec.random_pct) { self.rng.below(blocks) } else { (self.last + 1) % blocks };
        Transfer { write, offset: self.last * spec.block_bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units_as_iometer_and_fio_read_them() {
        assert_eq!(parse_bytes("16k"), Ok(16_384));
        assert_eq!(parse_bytes("16KiB"), Ok(16_384));
        assert_eq!(parse_bytes("16KB"), Ok(16_384));
        assert_eq!(parse_bytes("320G"), Ok(320 << 30));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        for bad in ["", "k", "16q", "0", "-1k", "99999999999T"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_rating("1PB"), Ok(1e15));
        assert_eq!(parse_rating("600 TBW"), Ok(6e14));
        assert_eq!(parse_rating("1.2pb"), Ok(1.2e15));
        assert!(parse_rating("1P").unwrap_err().contains("e.g. 600TB or 1PB"));
        assert_eq!(parse_pct("30%"), Ok(30));
        assert_eq!(parse_pct("100"), Ok(100));
        assert!(parse_pct("101%").unwrap_err().contains("0% to 100%"));
        assert_eq!(bytes_phrase(16_384), "16 KiB");
        assert_eq!(bytes_phrase(320 << 30), "320 GiB");
        assert_eq!(bytes_phrase(1536), "1536 B");
    }

    #[test]
    fn a_spec_moves_whole_sectors_within_its_region() {
        let e = AccessSpec::new(1 << 20, 1000, 30, 100).unwrap_err();
        assert!(e.contains("--block 1000 bytes: give a multiple of 512"), "{e}");
        assert!(AccessSpec::new(4096, 8192, 30, 100).unwrap_err().contains("less than one --block"));
        let s = AccessSpec::new(100_000, 16_384, 30, 100).unwrap();
        assert_eq!((s.size_bytes, s.blocks()), (98_304, 6), "rounded down to whole blocks");
        assert_eq!(s.describe(), "16 KiB, 30% read, 100% random");
    }

    #[test]
    fn transfers_keep_the_read_share_and_stay_aligned_in_the_region() {
        let spec = AccessSpec::new(64 << 20, 16_384, 30, 100).unwrap();
        let mut p = Picker::new(&spec, 7, 0);
        let picks: Vec<Transfer> = (0..100_000).map(|_| p.next(&spec)).collect();
        let reads = picks.iter().filter(|t| !t.write).count() as f64 / picks.len() as f64;
        assert!((reads - 0.30).abs() < 0.01, "{reads}");
        assert!(picks.iter().all(|t| t.offset % 16_384 == 0 && t.offset < spec.size_bytes));
        let distinct: std::collections::BTreeSet<u64> = picks.iter().map(|t| t.offset).collect();
        assert_eq!(distinct.len() as u64, spec.blocks(), "random I/O reaches every block of the region");

        let seq = AccessSpec { random_pct: 0, ..spec };
        let mut p = Picker::new(&seq, 7, 1);
        let offsets: Vec<u64> = (0..5000).map(|_| p.next(&seq).offset).collect();
        assert!(offsets.windows(2).all(|w| w[1] == (w[0] + 16_384) % seq.size_bytes), "sequential wraps");
        let mut again = Picker::new(&seq, 7, 1);
        assert_eq!(again.next(&seq).offset, offsets[0], "the same seed and worker give the same stream");
    }
}
