//! [`Sampler`]: an integer generator of a column or parameter resolved once (its range's top known, a
//! zipfian's ζ summed), so that a draw is a few random numbers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Gen, ParamSpec, YcsbRequest, parse_timestamp};
use crate::Rng;
use crate::pgbench::random::{exponential, gaussian};
use crate::tpcc::random::nurand;
use crate::ycsb::{Latest, ScrambledZipfian, Zipfian, fnv_hash64};

/// A resolved integer generator.
#[derive(Clone, Debug)]
pub(super) enum Sampler {
    Fixed(i64),
    Uniform(i64, i64),
    Nurand {
        a: i64,
        lo: i64,
        hi: i64,
        c: i64,
    },
    Zipfian(Zipfian),
    Exponential(i64, i64, f64),
    Gaussian(i64, i64, f64),
    Choice(Vec<i64>),
    /// A YCSB record, bound as its FNV hash.
    Ycsb(Record),
}

/// How a [`ParamSpec::Ycsb`] picks its record (a record number from 0).
#[derive(Clone, Debug)]
pub(super) enum Record {
    Uniform(u64),
    Zipfian(ScrambledZipfian),
    Latest(Latest, Inserts),
    Insert(Inserts),
}

/// The records a table holds and the ones this process inserts into it: the loaded `0..loaded`, then
/// `first..` as many as `count` says (shared by every user and run of the process).
#[derive(Clone, Debug)]
pub(super) struct Inserts {
    pub(super) loaded: u64,
    pub(super) first: u64,
    pub(super) count: Arc<AtomicU64>,
}

impl Record {
    /// The sampler of a `request` over `inserts`' table.
    pub(super) fn new(request: YcsbRequest, inserts: Inserts) -> Result<Self, String> {
        let loaded = inserts.loaded.max(1);
        Ok(match request {
            YcsbRequest::Uniform => Record::Uniform(loaded),
            YcsbRequest::Zipfian => Record::Zipfian(ScrambledZipfian::new(0, loaded as i64 - 1)?),
            // Ranks summed over twice the loaded records: a run inserts a small share of them (5% of
            // workload D's transactions), and a rank past the count wraps (Latest::next).
            YcsbRequest::Latest => Record::Latest(Latest::new(loaded.saturating_mul(2))?, inserts),
            YcsbRequest::Insert => Record::Insert(inserts),
        })
    }

    /// The next record's number.
    fn next(&self, rng: &mut Rng) -> u64 {
        match self {
            Record::Uniform(n) => rng.below(*n),
            Record::Zipfian(z) => z.next(rng) as u64,
            Record::Latest(latest, inserts) => {
                let count = inserts.loaded + inserts.count.load(Ordering::Relaxed);
                let item = latest.next(rng, count) as u64;
                if item < inserts.loaded { item } else { inserts.first + (item - inserts.loaded) }
            }
            Record::Insert(inserts) => inserts.first + inserts.count.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// NURand's constant C for `a`: in `[0, a]`, fixed by `a` and `seed` (TPC-C picks it at random once).
fn nurand_c(a: i64, seed: u64) -> i64 {
    Rng::derive(seed, &[0x4e55_5241_4e44, a as u64]).uniform(0, a)
}

impl Sampler {
    /// The sampler of parameter `spec`, its top `top` (its `max`, or its `rows_of`'s rows at the run's
    /// scale); NURand's C from `seed`.
    ///
    /// # Errors
    /// A zipfian's θ out of range (checked before, so a mistake in the code).
    pub(super) fn of_param(
        spec: &ParamSpec,
        top: i64,
        seed: u64,
        inserts: impl FnOnce(&str) -> Inserts,
    ) -> Result<Self, String> {
        Ok(match spec {
            ParamSpec::Ycsb { request, rows_of } => Sampler::Ycsb(Record::new(*request, inserts(rows_of))?),
            ParamSpec::Constant(v) => Sampler::Fixed(*v),
            ParamSpec::Choice(values) => Sampler::Choice(values.clone()),
            ParamSpec::Uniform { min, .. } => Sampler::Uniform(*min, top),
            ParamSpec::Nurand { a, min, .. } => {
                Sampler::Nurand { a: *a, lo: *min, hi: top, c: nurand_c(*a, seed) }
            }
            ParamSpec::Zipfian { min, theta, .. } => Sampler::Zipfian(Zipfian::new(*min, top, *theta)?),
            ParamSpec::Exponential { min, parameter, .. } => Sampler::Exponential(*min, top, *parameter),
            ParamSpec::Gaussian { min, parameter, .. } => Sampler::Gaussian(*min, top, *parameter),
        })
    }

    /// The sampler of an integer column generator (`None` for a sequence or a text generator); a
    /// `key_of`'s top is `rows_of(table)`.
    pub(super) fn of_column(generator: &Gen, seed: u64, rows_of: impl Fn(&str) -> i64) -> Option<Self> {
        Some(match generator {
            Gen::Uniform { min, max } => Sampler::Uniform(*min, *max),
            Gen::Nurand { a, min, max } => {
                Sampler::Nurand { a: *a, lo: *min, hi: *max, c: nurand_c(*a, seed) }
            }
            Gen::Zipfian { min, max, theta } => Sampler::Zipfian(Zipfian::new(*min, *max, *theta).ok()?),
            Gen::Exponential { min, max, parameter } => Sampler::Exponential(*min, *max, *parameter),
            Gen::Gaussian { min, max, parameter } => Sampler::Gaussian(*min, *max, *parameter),
            Gen::KeyOf(table) => Sampler::Uniform(1, rows_of(table)),
            Gen::Timestamp { from, to } => Sampler::Uniform(parse_timestamp(from)?, parse_timestamp(to)?),
            _ => return None,
        })
    }

    /// The next value.
    pub(super) fn draw(&self, rng: &mut Rng) -> i64 {
        match self {
            Sampler::Fixed(v) => *v,
            Sampler::Uniform(lo, hi) => rng.uniform(*lo, *hi),
            Sampler::Nurand { a, lo, hi, c } => nurand(rng, *a, *lo, *hi, *c),
            Sampler::Zipfian(z) => z.next(rng),
            // Their parameters are checked with the definition: the draws cannot fail.
            Sampler::Exponential(lo, hi, p) => exponential(rng, *lo, *hi, *p).unwrap_or(*lo),
            Sampler::Gaussian(lo, hi, p) => gaussian(rng, *lo, *hi, *p).unwrap_or(*lo),
            Sampler::Choice(values) => values[rng.below(values.len() as u64) as usize],
            // The hash is below 2^63 (YCSB's is made non-negative) but for one: it wraps as YCSB's does.
            Sampler::Ycsb(record) => fnv_hash64(record.next(rng)) as i64,
        }
    }
}
