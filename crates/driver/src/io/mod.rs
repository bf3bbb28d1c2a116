//! `oltpgen io`: the storage model of a database, as Iometer's study measured it. A file made for the
//! purpose ([`file`](mod@file)) is driven with an access specification in Iometer's words ([`spec`]:
//! transfer size, read share, random share) by workers with outstanding I/Os, each I/O a "transaction"
//! of the run machinery ([`workload`]), issued through io_uring ([`uring`]) or positional reads and
//! writes, so steps, `--outstanding` sweeps, latency caps, `--runs`, counters and results are the
//! database workloads' own, and `report show|html|compare|merge` read them as they read those (the
//! workload named `io`).

pub mod file;
pub mod spec;
pub mod uring;
pub mod workload;
