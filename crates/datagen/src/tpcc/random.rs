//! The spec's random functions (2.1.5, 2.1.6, 4.3.2): NURand and its C constants, last names.
//!
//! These are shared by the loader (which uses the load-time C constants) and the run (which uses
//! run-time constants that differ from the load's by the delta rule of 2.1.6.1).

use super::consts::{A_C_ID, A_C_LAST, A_OL_I_ID, LAST_NAME_SYLLABLES};
use crate::Rng;

/// The three C constants of NURand, one per field that uses it (2.1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CConstants {
    /// C for C_LAST, in [0, 255].
    pub c_last: i64,
    /// C for C_ID, in [0, 1023].
    pub c_id: i64,
    /// C for OL_I_ID, in [0, 8191].
    pub ol_i_id: i64,
}

/// 2.1.6.1: the run's C_LAST must differ from the load's by a delta in [65, 119], not 96 nor 112.
pub fn c_last_delta_ok(load: i64, run: i64) -> bool {
    let delta = (load - run).abs();
    (65..=119).contains(&delta) && delta != 96 && delta != 112
}

impl CConstants {
    /// Constants for a load, drawn once and stored in the database so that the run can honour 2.1.6.1.
    pub fn for_load(rng: &mut Rng) -> Self {
        CConstants {
            c_last: rng.uniform(0, A_C_LAST),
            c_id: rng.uniform(0, A_C_ID),
            ol_i_id: rng.uniform(0, A_OL_I_ID),
        }
    }

    /// Constants for a run against a database loaded with `load`: C_LAST obeys the delta rule; C_ID and
    /// OL_I_ID may equal the load's (2.1.6.1), and are drawn afresh.
    pub fn for_run(load: &CConstants, rng: &mut Rng) -> Self {
        let c_last = loop {
            let candidate = rng.uniform(0, A_C_LAST);
            if c_last_delta_ok(load.c_last, candidate) {
                break candidate;
            }
        };
        CConstants { c_last, c_id: rng.uniform(0, A_C_ID), ol_i_id: rng.uniform(0, A_OL_I_ID) }
    }

    /// NURand(255, 0, 999) for a last-name number.
    #[inline]
    pub fn last_name_number(&self, rng: &mut Rng) -> i64 {
        nurand(rng, A_C_LAST, 0, 999, self.c_last)
    }

    /// NURand(1023, 1, 3000) for a customer id.
    #[inline]
    pub fn customer_id(&self, rng: &mut Rng) -> i64 {
        nurand(rng, A_C_ID, 1, 3_000, self.c_id)
    }

    /// NURand(8191, 1, 100000) for an item id.
    #[inline]
    pub fn item_id(&self, rng: &mut Rng) -> i64 {
        nurand(rng, A_OL_I_ID, 1, 100_000, self.ol_i_id)
    }
}

/// 2.1.6: `NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x`.
#[inline]
pub fn nurand(rng: &mut Rng, a: i64, x: i64, y: i64, c: i64) -> i64 {
    (((rng.uniform(0, a) | rng.uniform(x, y)) + c) % (y - x + 1)) + x
}

/// 4.3.2.3: the last name for a number in 0..=999, appended to `out` (at most 15 bytes).
#[inline]
pub fn last_name(number: i64, out: &mut Vec<u8>) {
    debug_assert!((0..=999).contains(&number), "last-name number {number}");
    let n = number as usize;
    for digit in [n / 100, (n / 10) % 10, n % 10] {
        out.extend_from_slice(LAST_NAME_SYLLABLES[digit].as_bytes());
    }
}

/// [`last_name`] as a new `String`, for the run's parameters.
pub fn last_name_string(number: i64) -> String {
    let mut out = Vec::with_capacity(16);
    last_name(number, &mut out);
    String::from_utf8(out).expect("syllables are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_name_examples() {
        assert_eq!(last_name_string(371), "PRICALLYOUGHT");
        assert_eq!(last_name_string(0), "BARBARBAR");
        assert_eq!(last_name_string(999), "EINGEINGEING");
    }

    #[test]
    fn nurand_stays_in_bounds_and_is_skewed() {
        let mut rng = Rng::new(5);
        let c = CConstants::for_load(&mut rng);
        let mut counts = vec![0u32; 3_001];
        for _ in 0..300_000 {
            let id = c.customer_id(&mut rng);
            assert!((1..=3_000).contains(&id));
            counts[id as usize] += 1;
        }
        for _ in 0..100_000 {
            assert!((1..=100_000).contains(&c.item_id(&mut rng)));
            assert!((0..=999).contains(&c.last_name_number(&mut rng)));
        }
        // Non-uniform: the most popular id is drawn far more often than the uniform 100 times.
        assert!(*counts.iter().max().unwrap() > 300);
    }

    #[test]
    fn run_constants_obey_the_delta_rule() {
        for seed in 0..200 {
            let mut rng = Rng::new(seed);
            let load = CConstants::for_load(&mut rng);
            let run = CConstants::for_run(&load, &mut rng);
            assert!(c_last_delta_ok(load.c_last, run.c_last), "{load:?} {run:?}");
            assert!((0..=255).contains(&run.c_last));
        }
        assert!(!c_last_delta_ok(0, 96) && !c_last_delta_ok(200, 88) && c_last_delta_ok(0, 65));
        assert!(!c_last_delta_ok(0, 64) && !c_last_delta_ok(0, 120) && c_last_delta_ok(119, 0));
    }
}
