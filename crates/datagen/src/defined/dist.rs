//! [`Sampler`]: an integer generator of a column or parameter resolved once (its range's top known, a
//! zipfian's ζ summed), so that a draw is a few random numbers.

use super::{Gen, ParamSpec};
use crate::Rng;
use crate::pgbench::random::{exponential, gaussian};
use crate::tpcc::random::nurand;
use crate::ycsb::Zipfian;

/// A resolved integer generator.
#[derive(Clone, Debug)]
pub(super) enum Sampler {
    Fixed(i64),
    Uniform(i64, i64),
    Nurand { a: i64, lo: i64, hi: i64, c: i64 },
    Zipfian(Zipfian),
    Exponential(i64, i64, f64),
    Gaussian(i64, i64, f64),
    Choice(Vec<i64>),
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
    pub(super) fn of_param(spec: &ParamSpec, top: i64, seed: u64) -> Result<Self, String> {
        Ok(match spec {
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
        }
    }
}
