//! oltpgen's driver: the commands, the run machinery, the counters and the workloads' load, check and
//! run logic, over the engines it was built with. The `oltpgen` binary is a thin command line over this crate, and the integration tests
//! drive the same functions.
//!
//! # Floors
//!
//! Every import points down, and the floors are crates, so an arrow back up is a build error. On top,
//! this crate's [`command`]: each command of the binary as a request, checked into a plan (every flag
//! and path rule, the databases opened, loaded when empty, users sized) and run into the result and the
//! exit verdict; it writes and reads the result files through [`files`]. Below it, in this crate:
//!
//! 1. **Workloads** — each workload ([`tpcc`], [`ds2`], [`defined`]: one defined at run time, and `io`,
//!    which drives a file, no database), what the machinery asks of them ([`workload`]: a [`Profile`]
//!    value, [`Stored`], [`Driven`]) and the machinery written once for all of them: loading ([`load`]) and restoring ([`restore`]), what a
//!    database holds ([`inventory`]), checks ([`consistency`]), the checks before a run ([`prepare`]),
//!    the users, collector and study ([`run`], with its live endpoint [`run::metrics`]), the sampler
//!    ([`counters`]), and the database a command drives ([`database`], with the built-in PostgreSQL).
//!    None of them names an engine's code: they ask the seam.
//! 2. **The seam** — [`engine`]: the only place that `match`es on the engine (or on an enum over the
//!    engines) to call an engine's code: the connection outside the run, DDL, bulk load, URL parsing,
//!    and each workload's sessions, finishing DDL and check queries. Its sessions are enums, so the
//!    per-transaction path is a `match` with no boxing or dynamic dispatch.
//!
//! And below this crate, each a crate of its own:
//!
//! 3. **The built-in server** — `oltpgen-local` (feature `local`): PostgreSQL's own server, found or
//!    downloaded, started and stopped; it talks to the PostgreSQL engine itself.
//! 4. **The engines** — `oltpgen-pg` (PostgreSQL, feature `postgres`), `oltpgen-mssql` (SQL Server,
//!    `mssql`) and `oltpgen-mysql` (MySQL and MariaDB, `mysql`), laid out alike; each depends only on the
//!    vocabulary, never on the seam, a workload or another engine. This crate re-exports those it was
//!    built with as [`pg`], [`mssql`], [`mysql`] and [`local`], the one door the binary and the tests
//!    reach them through.
//! 5. **The vocabulary** — `oltpgen-vocab`: the words the floors above share (targets and engines,
//!    server info, schema objects, the load record, counter readings, transaction outcomes, TPC-C's and
//!    DS2's own), beside the errors, the signals, the bulk load's engine-neutral half, progress bars and
//!    file claims.
//!
//! # Features
//!
//! All on by default. `cargo build --no-default-features --features postgres` builds an oltpgen that
//! compiles one database client and neither the downloader nor io_uring; given a URL of an engine it
//! was built without, or `io`, or no `--url`, it says in one line which feature it lacks (exit 2).
//!
//! # Adding a workload
//!
//! A workload defined by a value needs no code: `oltpgen custom --workload FILE` ([`defined`]). One with
//! code of its own (say `ycsb`) touches:
//! - its folders: `crates/datagen/src/ycsb/` (its [`Dataset`](oltpgen_datagen::schema::Dataset) and
//!   inputs), `crates/driver/src/ycsb/` (its [`Stored`] and [`Driven`], its [`Profile`]), and
//!   `{pg,mssql,mysql}/src/ycsb/` (its SQL), with its session enum in `engine/ycsb.rs`;
//! - one line in [`workload::registry`];
//! - its command: `command/ycsb.rs` (its run's own flags; load, check and drop are
//!   [`command::workload`]'s) and its flags in the binary's `src/cli.rs` and `src/commands.rs`.
//!
//! Results, reports, restores, the checks before a run, lost commits and the study need nothing: they
//! read the [`Profile`] and ask [`Stored`].
//!
//! [`Profile`]: workload::Profile
//! [`Stored`]: workload::Stored
//! [`Driven`]: run::Driven
//!
//! # Adding an engine
//!
//! A new engine (say `oracle`) touches exactly:
//! - a new crate `crates/oracle/`, mirroring `crates/pg/` (`lib.rs`, `error.rs`, `target.rs`,
//!   `meta.rs`, `schema.rs`, `bulk.rs`, `counters.rs`, `tpcc/`, `ds2/`), and a feature of this crate
//!   that depends on it;
//! - its variant of `Engine` in the vocabulary's `target.rs` (behind the vocabulary's feature of its
//!   name, with its scheme, URL form and name);
//! - one arm in every `match` of the seam: `engine/conn.rs`, `engine/target.rs`, `engine/schema.rs`,
//!   `engine/bulk.rs`, `engine/tpcc.rs`, `engine/ds2.rs` (a variant in each enum over the engines there).
//!
//! The compiler names every arm it is missing; nothing above the seam changes.
#![deny(missing_docs)]

#[cfg(test)]
mod any_input;
pub mod command;
pub mod consistency;
pub mod counters;
pub mod database;
pub mod defined;
pub mod ds2;
pub mod engine;
pub mod files;
pub mod inventory;
#[cfg(feature = "io")]
pub mod io;
pub mod load;
pub mod lost_commits;
pub mod prepare;
pub mod restore;
pub mod run;
pub mod script;
pub mod tpcb;
pub mod tpcc;
pub mod workload;

#[cfg(feature = "local")]
pub use oltpgen_local as local;
#[cfg(feature = "mssql")]
pub use oltpgen_mssql as mssql;
#[cfg(feature = "mysql")]
pub use oltpgen_mysql as mysql;
#[cfg(feature = "postgres")]
pub use oltpgen_pg as pg;
pub use oltpgen_vocab::{Error, Target};

#[cfg(not(any(feature = "postgres", feature = "mssql", feature = "mysql")))]
compile_error!("oltpgen needs at least one engine: build with --features postgres, mssql or mysql");
