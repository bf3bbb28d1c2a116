//! Deterministic row generation for oltpgen's workloads, and the writers that encode rows.
//!
//! Every value comes from [`Rng`], a generator seeded from `(seed, table, key)`, so any part of a
//! database can be generated on any thread in any order and still be byte-identical. Generation never
//! reads the clock: the load's timestamp is passed in.
//!
//! ```
//! use oltpgen_datagen::Rng;
//! let mut a = Rng::derive(1, &[3, 4]);
//! let mut b = Rng::derive(1, &[3, 4]);
//! assert_eq!(a.uniform(1, 100), b.uniform(1, 100));
//! ```
#![deny(missing_docs)]

mod rng;
pub mod encode;
pub mod tpcc;

pub use rng::Rng;
