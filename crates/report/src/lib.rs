//! oltpgen's results, without any database: the result model ([`model::RunResult`], serialized as
//! `result.json`), exact-merge latency histograms ([`histogram::LatencyHistogram`]), the figures derived
//! from them ([`step`]), and the renderings (`summary.txt`, `timeseries.csv`).
//!
//! ```
//! use oltpgen_report::histogram::LatencyHistogram;
//! let mut h = LatencyHistogram::new();
//! h.record_us(1_500);
//! assert_eq!(h.count(), 1);
//! ```
#![deny(missing_docs)]

pub mod audit;
pub mod cap;
pub mod checks;
pub mod compare;
pub mod counter_view;
pub mod csv;
pub mod describe;
pub mod ds2;
#[cfg(test)]
mod fixtures;
pub mod histogram;
pub mod html;
pub mod html_compare;
pub mod live;
pub mod merge;
pub mod model;
pub mod numfmt;
pub mod power;
pub mod show;
pub mod significance;
pub mod stats;
pub mod step;
pub mod summary;
pub mod users;
