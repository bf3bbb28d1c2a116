//! Everything a person or a script reads, rendered from a [`RunResult`](crate::model::RunResult) or
//! from the plain figures a run hands over as it goes; nothing here computes a figure:
//! - [`text`]: `report show`, summary.txt, the live lines, DS2's lines and final report, `report
//!   compare`'s table;
//! - [`html`]: report.html and the comparison page, with their SVG plotting kit;
//! - [`csv`]: timeseries.csv, counters.csv and DS2's `--csv-output`;
//! - and what the text and the HTML share: what ran in words ([`describe`]), a step table's cells
//!   ([`steps`]), the study's runs, power and cost lines ([`study`]) and the counters' labels and charts
//!   ([`counters`]).

pub mod counters;
pub mod csv;
pub mod describe;
pub mod html;
pub mod prometheus;
pub mod steps;
pub mod study;
pub mod text;
