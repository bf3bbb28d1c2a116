//! pgbench's random distributions, hashes and `permute`.
//!
//! The distributions draw from oltpgen's [`Rng`] (the same distributions as pgbench, not the same
//! draws); the hashes and `permute` are pgbench's exact functions (`permute` seeds PostgreSQL's own
//! generator, `pg_prng`'s xoroshiro128**, from its seed), so they give pgbench's values.

use crate::Rng;

use super::value::{EvalError, fail};

/// `random(lb, ub)`: uniform in `[lb, ub]`.
pub fn uniform(rng: &mut Rng, lb: i64, ub: i64) -> Result<i64, EvalError> {
    let span = range(lb, ub)?;
    Ok(lb.wrapping_add(rng.below(span) as i64))
}

/// The number of values of `[lb, ub]`, refused as pgbench refuses it (empty, or too large).
fn range(lb: i64, ub: i64) -> Result<u64, EvalError> {
    if ub < lb {
        return fail("empty range given to random");
    }
    match ub.checked_sub(lb).and_then(|d| d.checked_add(1)) {
        Some(n) => Ok(n as u64),
        None => fail("random range is too large"),
    }
}

/// `random_exponential(lb, ub, parameter)`: pgbench's truncated exponential (`getExponentialRand`).
pub fn exponential(rng: &mut Rng, lb: i64, ub: i64, parameter: f64) -> Result<i64, EvalError> {
    let n = range(lb, ub)?;
    if parameter <= 0.0 {
        return fail("exponential parameter must be greater than zero");
    }
    let cut = (-parameter).exp();
    let uniform = 1.0 - rng.unit_f64(); // (0, 1]
    let rand = -(cut + (1.0 - cut) * uniform).ln() / parameter; // [0, 1)
    Ok(lb + (n as f64 * rand) as i64)
}

/// `random_gaussian(lb, ub, parameter)`: pgbench's truncated normal (`getGaussianRand`, Box-Muller
/// with draws outside `[-parameter, parameter)` rejected).
pub fn gaussian(rng: &mut Rng, lb: i64, ub: i64, parameter: f64) -> Result<i64, EvalError> {
    let n = range(lb, ub)?;
    if parameter < 2.0 {
        return fail(format!("gaussian parameter must be at least 2.0 (not {parameter})"));
    }
    let stdev = loop {
        let rand1 = 1.0 - rng.unit_f64();
        let rand2 = rng.unit_f64();
        let stdev = (-2.0 * rand1.ln()).sqrt() * (2.0 * std::f64::consts::PI * rand2).sin();
        if stdev >= -parameter && stdev < parameter {
            break stdev;
        }
    };
    let rand = (stdev + parameter) / (parameter * 2.0);
    Ok(lb + (n as f64 * rand) as i64)
}

/// `random_zipfian(lb, ub, s)`: pgbench's (`computeIterativeZipfian`, Devroye's rejection method for a
/// Zipf law of parameter `s`, which pgbench 15 takes in `[1.001, 1000]`).
pub fn zipfian(rng: &mut Rng, lb: i64, ub: i64, s: f64) -> Result<i64, EvalError> {
    let n = range(lb, ub)?;
    if !(1.001..=1000.0).contains(&s) {
        return fail(format!("zipfian parameter must be in range [1.001, 1000] (not {s})"));
    }
    if n <= 1 {
        return Ok(lb);
    }
    let b = 2f64.powf(s - 1.0);
    let x = loop {
        let u = rng.unit_f64();
        let v = rng.unit_f64();
        let x = u.powf(-1.0 / (s - 1.0)).floor();
        let t = (1.0 + 1.0 / x).powf(s - 1.0);
        if v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n as f64 {
            break x;
        }
    };
    Ok(lb - 1 + x as i64)
}

const FNV_PRIME: u64 = 0x0100_0000_01b3;
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// `hash_fnv1a(v, seed)`: pgbench's FNV-1a of the value's eight bytes.
pub fn fnv1a(val: i64, seed: i64) -> i64 {
    let mut result = FNV_OFFSET_BASIS ^ seed as u64;
    let mut v = val;
    for _ in 0..8 {
        let octet = (v & 0xff) as u64;
        v >>= 8;
        result ^= octet;
        result = result.wrapping_mul(FNV_PRIME);
    }
    result as i64
}

const MM2_MUL: u64 = 0xc6a4_a793_5bd1_e995;
const MM2_MUL_TIMES_8: u64 = 0x3525_3c9a_de8f_4ca8;
const MM2_ROT: u32 = 47;

/// `hash_murmur2(v, seed)` (and `hash`): pgbench's 64-bit MurmurHash2 of one value.
pub fn murmur2(val: i64, seed: i64) -> i64 {
    let mut result = seed as u64 ^ MM2_MUL_TIMES_8;
    let mut k = val as u64;
    k = k.wrapping_mul(MM2_MUL);
    k ^= k >> MM2_ROT;
    k = k.wrapping_mul(MM2_MUL);
    result ^= k;
    result = result.wrapping_mul(MM2_MUL);
    result ^= result >> MM2_ROT;
    result = result.wrapping_mul(MM2_MUL);
    result ^= result >> MM2_ROT;
    result as i64
}

/// PostgreSQL's `pg_prng` (xoroshiro128** seeded through SplitMix64), which `permute` must use to
/// give pgbench's permutation for a seed.
struct PgPrng {
    s0: u64,
    s1: u64,
}

impl PgPrng {
    fn new(mut seed: u64) -> PgPrng {
        let mut next = || {
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut v = seed;
            v = (v ^ (v >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            v = (v ^ (v >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            v ^ (v >> 31)
        };
        let (s0, s1) = (next(), next());
        if s0 == 0 && s1 == 0 {
            PgPrng { s0: 0x5851_f42d_4c95_7f2d, s1: 0x1405_7b7e_f767_814f }
        } else {
            PgPrng { s0, s1 }
        }
    }

    fn next(&mut self) -> u64 {
        let s0 = self.s0;
        let sx = self.s1 ^ s0;
        let val = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        self.s0 = s0.rotate_left(24) ^ sx ^ (sx << 16);
        self.s1 = sx.rotate_left(37);
        val
    }

    /// `pg_prng_uint64_range(0, max)`: bitmask rejection.
    fn upto(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let shift = max.leading_zeros();
        loop {
            let v = self.next() >> shift;
            if v <= max {
                return v;
            }
        }
    }
}

/// `permute(i, size, seed)`: pgbench's pseudorandom permutation of `[0, size)`, the same values.
pub fn permute(val: i64, size: i64, seed: i64) -> Result<i64, EvalError> {
    if size <= 0 {
        return fail("permute size parameter must be greater than zero");
    }
    if size < 2 {
        return Ok(0);
    }
    let mut st = PgPrng::new(seed as u64);
    let size = size as u64;
    let mut v = (val as u64) % size;
    let masklen = 63 - size.leading_zeros();
    let mask = (1u64 << masklen) - 1;
    let rotate = |x: u64| ((x << 1) & mask) | (x >> (masklen - 1));
    for _ in 0..6 {
        let m = (st.next() & mask) | 1;
        let r = st.next() & mask;
        if v <= mask {
            v = (v.wrapping_mul(m) ^ r) & mask;
            v = rotate(v);
        }
        let m = (st.next() & mask) | 1;
        let r = st.next() & mask;
        let mut t = size - 1 - v;
        if t <= mask {
            t = (t.wrapping_mul(m) ^ r) & mask;
            t = rotate(t);
            v = size - 1 - t;
        }
        let r = st.upto(size - 1);
        v = (v + r) % size;
    }
    Ok(v as i64)
}
