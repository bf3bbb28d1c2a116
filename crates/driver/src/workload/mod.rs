//! The workload plug-in: what oltpgen asks of a workload, in one family of three, so that the machinery
//! written once (loading, restoring, the checks before a run, the users, the collector, the study, the
//! commands, the reports) serves TPC-C, DS2, `io` and a workload defined at run time alike:
//!
//! - [`Profile`] — who it is, as a value: its name, its transaction types as the run counts them, and
//!   what its results say about it (their [`Descriptor`](oltpgen_report::model::descriptor::Descriptor)).
//! - [`Stored`] — a workload whose data lives in a database: its tables, its load record, its load,
//!   checks and restore, how a run finds and refuses it, its acknowledged orders ([`AckLookup`]).
//! - [`Driven`](crate::run::Driven) — a workload as one run drives it: its users, their next
//!   transaction, a session per connection and one transaction run on it. Its types are the
//!   workload's own, so a built-in workload's hot path is statically dispatched (its session an enum
//!   over the engines).
//!
//! A workload's own code lives in its folders (`datagen/<w>`, `driver/<w>`, `{pg,mssql,mysql}/<w>`);
//! [`registry`] lists the built-in ones.

mod profile;
pub mod registry;
mod stored;

pub use profile::{Kinds, Profile};
pub use stored::{AckLookup, Stored};
