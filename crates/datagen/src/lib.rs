//! Deterministic row generation for oltpgen's workloads, and the writers that encode rows.
//!
//! Every value comes from [`Rng`], a generator seeded from `(seed, table, key)`, so any part of a
//! database can be generated on any thread in any order and still be byte-identical. Generation never
//! reads the clock: the load's timestamp is passed in.
//!
//! - [`schema`] holds tables as data and [`schema::Dataset`], the shape every workload's initial
//!   database takes, so that one loader and one CSV writer serve them all.
//! - [`tpcc::rows::TpccData`] and [`ds2::rows::Ds2Data`] generate the initial TPC-C database in independent chunks;
//!   [`csv_files::write_csv_files`] writes it as one CSV file per table.
//! - [`encode`] holds the formats rows are written in ([`encode::PgBinaryCopy`], [`encode::Csv`]).
//! - [`tpcc::input`], [`tpcc::mix`] and [`ds2::input`] draw the runs' transactions and their inputs.
//! - [`defined`] is a workload given as a value (read from a file at run time): its tables, data and mix.
//! - [`pgbench`] is pgbench's script language: expressions, distributions, scripts and their steps.
//!
//! ```
//! use oltpgen_datagen::Rng;
//! let mut a = Rng::derive(1, &[3, 4]);
//! let mut b = Rng::derive(1, &[3, 4]);
//! assert_eq!(a.uniform(1, 100), b.uniform(1, 100));
//! ```
#![deny(missing_docs)]

pub mod csv_files;
pub mod defined;
pub mod ds2;
pub mod encode;
pub mod pgbench;
mod rng;
pub mod schema;
#[cfg(test)]
mod testing;
mod text;
pub mod tpcc;

pub use rng::Rng;
