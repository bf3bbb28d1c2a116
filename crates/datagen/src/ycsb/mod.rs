//! YCSB's request distributions, as its core generators define them (`site.ycsb.generator`), drawing
//! from oltpgen's [`Rng`] (the same distributions as YCSB, not the same draws):
//!
//! - [`Zipfian`]: `ZipfianGenerator`, Gray et al.'s "Quickly generating billion-record synthetic
//!   databases" (SIGMOD 1994) for θ < 1: item 0 the most popular, `P(i) ∝ 1 / (i + 1)^θ`.
//! - [`ScrambledZipfian`]: `ScrambledZipfianGenerator`, a zipfian over YCSB's 10 billion items with
//!   θ = 0.99 whose rank is hashed ([`fnv_hash64`]) onto the key range, so the popular items are
//!   spread over it rather than clustered at its start.
//! - [`Latest`]: `SkewedLatestGenerator`, the most recently inserted item the most popular.
//! - [`fnv_hash64`]: YCSB's `Utils.fnvhash64`, also what makes a record's key (`"user" + hash`).
//!
//! Each is pure: the state is set up once, every draw takes the caller's [`Rng`].

use crate::Rng;

/// YCSB's default zipfian constant, θ = 0.99.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// The item count YCSB's scrambled zipfian draws its ranks from (`ITEM_COUNT`, 10 billion), its
/// ζ(n, 0.99) precomputed as YCSB does (`ZETAN`), since summing 10 billion terms is out of the question.
const SCRAMBLED_ITEMS: u64 = 10_000_000_000;
/// ζ(10^10, 0.99), YCSB's `ScrambledZipfianGenerator.ZETAN`.
const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// YCSB's `Utils.fnvhash64`: FNV-1a, 64 bits, over the value's eight bytes least significant first,
/// made non-negative.
pub fn fnv_hash64(val: u64) -> u64 {
    const OFFSET_BASIS: u64 = 0xCBF2_9CE4_8422_2325;
    const PRIME: u64 = 1_099_511_628_211;
    let mut hash = OFFSET_BASIS;
    let mut v = val;
    for _ in 0..8 {
        hash ^= v & 0xff;
        hash = hash.wrapping_mul(PRIME);
        v >>= 8;
    }
    (hash as i64).unsigned_abs()
}

/// ζ(n, θ) = Σ_{i=1..n} 1 / i^θ.
pub fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum()
}

/// YCSB's `ZipfianGenerator`: items `min..=max`, `min` the most popular.
#[derive(Clone, Debug)]
pub struct Zipfian {
    base: i64,
    items: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    /// Items `min..=max` with constant `theta` (0 < θ < 1), ζ summed over them once (O(items)).
    ///
    /// # Errors
    /// An empty range, or θ outside (0, 1).
    pub fn new(min: i64, max: i64, theta: f64) -> Result<Self, String> {
        let items = items(min, max)?;
        Self::with_zeta(min, items, theta, zeta(items, theta))
    }

    /// As [`new`](Self::new) with ζ(items, θ) given (YCSB's precomputed constants).
    fn with_zeta(base: i64, items: u64, theta: f64, zetan: f64) -> Result<Self, String> {
        if !(theta > 0.0 && theta < 1.0) {
            return Err(format!("zipfian theta {theta}: give a theta above 0 and below 1"));
        }
        let zeta2 = zeta(2, theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Ok(Zipfian { base, items, theta, alpha, zetan, eta })
    }

    /// The next item.
    pub fn next(&self, rng: &mut Rng) -> i64 {
        let u = rng.unit_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        let rank = (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        self.base + rank.min(self.items - 1) as i64
    }
}

/// The number of items in `min..=max`.
fn items(min: i64, max: i64) -> Result<u64, String> {
    if max < min {
        return Err(format!("min {min} is above max {max}"));
    }
    Ok((max as i128 - min as i128 + 1).min(u64::MAX as i128) as u64)
}

/// YCSB's `ScrambledZipfianGenerator`: a zipfian rank over 10 billion items (θ = 0.99), hashed onto
/// `min..=max`.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    base: i64,
    items: u64,
    ranks: Zipfian,
}

impl ScrambledZipfian {
    /// Items `min..=max`.
    ///
    /// # Errors
    /// An empty range.
    pub fn new(min: i64, max: i64) -> Result<Self, String> {
        let items = items(min, max)?;
        let ranks = Zipfian::with_zeta(0, SCRAMBLED_ITEMS, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN)?;
        Ok(ScrambledZipfian { base: min, items, ranks })
    }

    /// The next item.
    pub fn next(&self, rng: &mut Rng) -> i64 {
        let rank = self.ranks.next(rng) as u64;
        self.base + (fnv_hash64(rank) % self.items) as i64
    }
}

/// YCSB's `SkewedLatestGenerator`: of the items inserted so far (`0..count`), the latest the most
/// popular: `count - 1 - zipfian rank`.
#[derive(Clone, Debug)]
pub struct Latest {
    ranks: Zipfian,
}

impl Latest {
    /// Over at most `items` items (the ranks' zipfian, θ = 0.99, summed once over them).
    ///
    /// # Errors
    /// No items.
    pub fn new(items: u64) -> Result<Self, String> {
        Ok(Latest { ranks: Zipfian::new(0, items.max(1) as i64 - 1, ZIPFIAN_CONSTANT)? })
    }

    /// The next item among the `count` inserted so far (`0..count`).
    pub fn next(&self, rng: &mut Rng, count: u64) -> i64 {
        let rank = self.ranks.next(rng).max(0) as u64 % count.max(1);
        (count.max(1) - 1 - rank) as i64
    }
}

#[cfg(test)]
mod tests;
