//! oltpgen's results, without any database, in three rooms that import downwards only:
//! - [`model`]: the result document ([`model::RunResult`], serialized as `result.json`, its steps
//!   [`model::Step`] and their [`model::Figures`]), the exact-merge latency histograms
//!   ([`model::histogram::LatencyHistogram`]) every figure is derived from ([`model::step`]), a step's
//!   audit and counters, and the user counts of a schedule ([`model::users::UserLoad`]);
//! - [`stats`]: what is judged or computed from results: the response-time cap and the headline
//!   ([`stats::cap::Cap`], [`stats::cap::max_within_cap`]), TPC-C's audit, Welch's t-test,
//!   comparisons ([`stats::compare::Comparison`]), merging ([`stats::merge::merge`]), power;
//! - [`render`]: the text, HTML and CSV renderings (`report show`, summary.txt, the live lines,
//!   report.html with its SVG charts, timeseries.csv, DS2's lines and `--csv-output`, a check's lines).
//!
//! Beside them, [`numfmt`] formats numbers alike for every renderer and the driver. The crate writes
//! no file: the driver writes what it renders (its `files` module).
//!
//! ```
//! use oltpgen_report::model::histogram::LatencyHistogram;
//! let mut h = LatencyHistogram::new();
//! h.record_us(1_500);
//! assert_eq!(h.count(), 1);
//! ```
#![deny(missing_docs)]

#[cfg(test)]
mod any_input;
#[cfg(test)]
mod any_workload;
#[cfg(test)]
mod fixtures;
pub mod model;
pub mod numfmt;
pub mod render;
pub mod stats;
