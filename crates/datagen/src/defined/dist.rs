//! [`Sampler`]: an integer generator of a column or parameter resolved once (its range's top known, a
//! zipfian's ζ summed), so that a draw is a few random numbers; [`ParamSampler`]: a parameter's, an
//! integer's or a text's.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Chars, Gen, ParamSpec, Value, YcsbRequest, parse_timestamp};
use crate::Rng;
use crate::encode::civil_from_days;
use crate::pgbench::random::{exponential, gaussian};
use crate::text::{ALNUM, DIGITS, fill};
use crate::tpcc::random::nurand;
use crate::ycsb::{Latest, ScrambledZipfian, Zipfian, fnv_hash64};

/// A resolved integer generator.
#[derive(Clone, Debug)]
pub(super) enum Sampler {
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
    /// A YCSB record, bound as its FNV hash.
    Ycsb(Record),
}

/// A resolved parameter generator: an integer one, or one of a text.
#[derive(Clone, Debug)]
pub(super) enum ParamSampler {
    Int(Sampler),
    /// The same value every time: no draw.
    Fixed(Value),
    Choice(Vec<Value>),
    /// Letters and digits (digits only when `digits`), `min_len` to `len` of them.
    Text {
        digits: bool,
        chars: Chars,
    },
    /// Seconds from 1970 in `[from, to]`, drawn as the text `YYYY-MM-DD HH:MM:SS`.
    Timestamp(i64, i64),
}

impl ParamSampler {
    /// The sampler of parameter `spec`, an integer one's top `top` (its `max`, or its `rows_of`'s rows at
    /// the run's scale); NURand's C from `seed`.
    ///
    /// # Errors
    /// A zipfian's θ out of range or a timestamp that does not parse (checked before, so a mistake in
    /// the code).
    pub(super) fn of(
        spec: &ParamSpec,
        top: i64,
        seed: u64,
        inserts: impl FnOnce(&str) -> Inserts,
    ) -> Result<Self, String> {
        Ok(match spec {
            ParamSpec::Constant(v) => ParamSampler::Fixed(v.clone()),
            ParamSpec::Choice(values) => ParamSampler::Choice(values.clone()),
            ParamSpec::Text(chars) => ParamSampler::Text { digits: false, chars: *chars },
            ParamSpec::Digits(chars) => ParamSampler::Text { digits: true, chars: *chars },
            ParamSpec::Timestamp { from, to } => {
                let at =
                    |t: &str| parse_timestamp(t).ok_or_else(|| format!("timestamp {t:?} does not parse"));
                ParamSampler::Timestamp(at(from)?, at(to)?)
            }
            ParamSpec::Ycsb { request, rows_of } => {
                ParamSampler::Int(Sampler::Ycsb(Record::new(*request, inserts(rows_of))?))
            }
            ParamSpec::Uniform { min, .. } => ParamSampler::Int(Sampler::Uniform(*min, top)),
            ParamSpec::Nurand { a, min, .. } => {
                ParamSampler::Int(Sampler::Nurand { a: *a, lo: *min, hi: top, c: nurand_c(*a, seed) })
            }
            ParamSpec::Zipfian { min, theta, .. } => {
                ParamSampler::Int(Sampler::Zipfian(Zipfian::new(*min, top, *theta)?))
            }
            ParamSpec::Exponential { min, parameter, .. } => {
                ParamSampler::Int(Sampler::Exponential(*min, top, *parameter))
            }
            ParamSpec::Gaussian { min, parameter, .. } => {
                ParamSampler::Int(Sampler::Gaussian(*min, top, *parameter))
            }
        })
    }

    /// The next value.
    pub(super) fn draw(&self, rng: &mut Rng) -> Value {
        match self {
            ParamSampler::Int(sampler) => Value::Int(sampler.draw(rng)),
            ParamSampler::Fixed(v) => v.clone(),
            ParamSampler::Choice(values) => values[rng.below(values.len() as u64) as usize].clone(),
            ParamSampler::Text { digits, chars } => {
                let mut text = vec![0; text_len(rng, *chars)];
                fill(rng, if *digits { &DIGITS } else { &ALNUM }, &mut text);
                Value::Text(String::from_utf8(text).expect("letters and digits are ASCII"))
            }
            ParamSampler::Timestamp(from, to) => Value::Text(format_timestamp(rng.uniform(*from, *to))),
        }
    }
}

/// The length of a text generator's next value, `min_len` to `len`: a fixed length draws nothing (so
/// that the data of definitions written before `min_len` stays as it was).
pub(super) fn text_len(rng: &mut Rng, Chars { len, min_len }: Chars) -> usize {
    match min_len {
        Some(min) if min < len => rng.uniform(i64::from(min), i64::from(len)) as usize,
        _ => usize::from(len),
    }
}

/// The instant `secs` seconds after 1970-01-01 00:00:00, written `YYYY-MM-DD HH:MM:SS` as
/// [`parse_timestamp`] reads it back (and as every engine takes a timestamp's text).
pub fn format_timestamp(secs: i64) -> String {
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
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
            Sampler::Uniform(lo, hi) => rng.uniform(*lo, *hi),
            Sampler::Nurand { a, lo, hi, c } => nurand(rng, *a, *lo, *hi, *c),
            Sampler::Zipfian(z) => z.next(rng),
            // Their parameters are checked with the definition: the draws cannot fail.
            Sampler::Exponential(lo, hi, p) => exponential(rng, *lo, *hi, *p).unwrap_or(*lo),
            Sampler::Gaussian(lo, hi, p) => gaussian(rng, *lo, *hi, *p).unwrap_or(*lo),
            // The hash is below 2^63 (YCSB's is made non-negative) but for one: it wraps as YCSB's does.
            Sampler::Ycsb(record) => fnv_hash64(record.next(rng)) as i64,
        }
    }
}
