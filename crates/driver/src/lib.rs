//! oltpgen's engine: the databases it talks to, the built-in PostgreSQL, and the workloads' load, check
//! and run logic. The `oltpgen` binary is a thin command line over this crate, and the integration tests
//! drive the same functions.
//!
//! # Floors
//!
//! Every import points down. On top, [`command`]: each command of the binary as a request, checked into
//! a plan (every flag and path rule, the databases opened, loaded when empty, users sized) and run into
//! the result and the exit verdict; it writes and reads the result files through [`files`]. Below it,
//! four floors:
//!
//! 1. **Workloads** — each workload ([`tpcc`], [`ds2`], and [`io`], which drives a file, no database) and the machinery written once for all of them:
//!    loading ([`load`]) and restoring ([`restore`]), what a database holds ([`inventory`]), checks ([`consistency`]), the checks
//!    before a run ([`prepare`]), the users, collector and study ([`run`], with its live endpoint
//!    [`run::metrics`]), the sampler ([`counters`]), and the database a command drives ([`database`], with the built-in PostgreSQL,
//!    [`local`], which is PostgreSQL's own server and so talks to [`pg`] itself). None of them names an
//!    engine's code: they ask the seam.
//! 2. **The seam** — [`engine`]: the only place that `match`es on the engine (or on an enum over the
//!    engines) to call an engine's code: the connection outside the run, DDL, bulk load, URL parsing,
//!    and each workload's sessions, finishing DDL and check queries. Its sessions are enums, so the
//!    per-transaction path is a `match` with no boxing or dynamic dispatch.
//! 3. **The engines** — [`pg`] (PostgreSQL), [`mssql`] (SQL Server) and [`mysql`] (MySQL and
//!    MariaDB), laid out alike; each imports
//!    only the floor below, never the seam, a workload or the other engine.
//! 4. **The vocabulary** — [`vocab`]: the words the floors above share (targets and engines, server
//!    info, schema objects, the load record, counter readings, transaction outcomes, TPC-C's and DS2's
//!    own), beside the errors ([`error`]), the signals ([`stop`]), the bulk load's engine-neutral half
//!    ([`chunks`]) and progress bars ([`progress`]); none of them imports anything above.
//!
//! # Adding an engine
//!
//! A new engine (say `mysql`) touches exactly:
//! - a new folder `mysql/`, mirroring `pg/` (`mod.rs`, `error.rs`, `target.rs`, `meta.rs`,
//!   `schema.rs`, `bulk.rs`, `counters.rs`, `tpcc/`, `ds2/`), and its `pub mod` line here;
//! - its variant of [`Engine`](vocab::target::Engine) in `vocab/target.rs` (in `ALL`, with its
//!   scheme, URL form and name);
//! - one arm in every `match` of the seam: `engine/conn.rs`, `engine/target.rs`, `engine/schema.rs`,
//!   `engine/bulk.rs`, `engine/tpcc.rs`, `engine/ds2.rs` (a variant in each enum over the engines there).
//!
//! The compiler names every arm it is missing; nothing above the seam changes.
#![deny(missing_docs)]

#[cfg(test)]
mod any_input;
pub mod chunks;
pub mod command;
pub mod consistency;
pub mod counters;
pub mod database;
pub mod ds2;
pub mod engine;
pub mod error;
pub mod files;
pub mod inventory;
pub mod io;
pub mod load;
pub mod local;
pub mod lost_commits;
pub mod mssql;
pub mod mysql;
pub mod pg;
pub mod prepare;
pub mod progress;
pub mod restore;
pub mod run;
pub mod stop;
pub mod tpcc;
pub mod vocab;

pub use error::Error;
pub use vocab::target::Target;
