//! Deterministic row generation for oltpgen's workloads, and the writers that encode rows.
//!
//! Every value comes from [`Rng`], a generator seeded from `(seed, table, key)`, so any part of a
//! database can be generated on any thread in any order and still be byte-identical. Generation never
//! reads the clock: the load's timestamp is passed in.
//!
//! - [`tpcc::rows::TpccData`] generates the initial TPC-C database in independent chunks;
//!   [`csv_files::write_csv_files`] writes it as one CSV file per table.
//! - [`encode`] holds the formats rows are written in ([`encode::PgBinaryCopy`], [`encode::Csv`]).
//! - [`tpcc::input`] and [`tpcc::mix`] draw the run's transactions and their inputs.
//!
//! ```
//! use oltpgen_datagen::Rng;
//! let mut a = Rng::derive(1, &[3, 4]);
//! let mut b = Rng::derive(1, &[3, 4]);
//! assert_eq!(a.uniform(1, 100), b.uniform(1, 100));
//! ```
#![deny(missing_docs)]

pub mod csv_files;
pub mod encode;
mod rng;
pub mod tpcc;

pub use rng::Rng;
