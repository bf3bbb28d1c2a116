//! The driver's vocabulary: the words the engines and the workloads share, at the bottom of the crate.
//! A workload names what it wants in these types, the seam ([`crate::engine`]) hands them to the
//! engine the target runs, and the engine answers in them; so every import points down (workloads →
//! seam → engines → vocabulary), and no engine needs anything of the workloads, the seam or the other
//! engine.
//!
//! Nothing here imports the driver above it: only [`crate::error`] (the errors and the kinds of fault,
//! which sit beside it at the bottom), the standard library, external crates and the `datagen` and
//! `report` crates.
//!
//! | module | the words |
//! |---|---|
//! | [`target`] | the engines ([`Engine`](target::Engine)), the database a command drives ([`Target`](target::Target)), and the names `load --create-database` creates |
//! | [`url`] | the one reader of URLs and ADO.NET strings (SQL Server's and MySQL's settings, `--target`'s edits), secret-safe in `Debug` |
//! | [`create`] | `load --create-database`'s one shape, each engine giving its steps |
//! | [`server`] | the server's identity and settings, and its room for connections |
//! | [`schema`] | the objects a load creates beside its tables, the dependents refusal, `CREATE TABLE` in an engine's words |
//! | [`meta`] | the load record (`oltpgen_meta`) |
//! | [`counters`] | a server's own counters at one reading, and what its engine remembers between readings |
//! | [`outcome`] | how a transaction ended or failed |
//! | [`tpcc`] | TPC-C's outcome and where its transactions run |
//! | [`tpcc_checks`] | TPC-C's consistency conditions in the SQL SQL Server and MySQL share |
//! | [`ds2`] | DS2's purchase, whose functions serve a database, and databases DS2's installer built |
//! | [`ds2_checks`] | DS2's integrity checks in the SQL SQL Server and MySQL share |

pub mod counters;
pub mod create;
pub mod ds2;
pub mod ds2_checks;
pub mod meta;
pub mod outcome;
pub mod schema;
pub mod server;
pub mod target;
pub mod tpcc;
pub mod tpcc_checks;
pub mod url;
