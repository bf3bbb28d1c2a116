//! oltpgen's vocabulary: the words the engines and the workloads share, at the bottom of the driver's
//! floors. A workload names what it wants in these types, the seam (`oltpgen_driver::engine`) hands them
//! to the engine the target runs, and the engine answers in them; so every import points down
//! (workloads → seam → engines → vocabulary), and no engine needs anything of the workloads, the seam or
//! the other engines. The crates are the floors: this crate depends on none of them (only on the
//! `datagen` and `report` crates, the standard library and external crates), so an arrow back up is a
//! build error.
//!
//! Which engines a build speaks is this crate's features (`postgres`, `mssql`, `mysql`), turned on by
//! each engine's crate: an engine not built is no variant of [`Engine`](target::Engine), so every `match`
//! over the engines has the arms of the engines built and no others.
//!
//! | module | the words |
//! |---|---|
//! | [`target`] | the engines ([`Engine`](target::Engine)), the database a command drives ([`Target`]), and the names `load --create-database` creates |
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
//!
//! Beside the words, what every floor above uses alike:
//!
//! | module | what |
//! |---|---|
//! | [`console`] | where a command's words go, and the handle on its standard error that tasks and threads keep |
//! | [`error`] | the errors, sorted by what the user does about them, and the kinds of database fault |
//! | [`stop`] | the signals that stop a command, and the exit code they leave |
//! | [`chunks`] | the engine-neutral half of a bulk load |
//! | [`progress`] | progress bars and lines |
//! | [`claim`] | whether an output path may be written, and the claim a command holds on it |
//! | [`space`] | the free space a big file needs |
#![deny(missing_docs)]

pub mod chunks;
pub mod claim;
pub mod console;
pub mod counters;
pub mod create;
pub mod ds2;
pub mod ds2_checks;
pub mod error;
pub mod meta;
pub mod outcome;
pub mod progress;
pub mod schema;
pub mod server;
pub mod space;
pub mod stop;
pub mod target;
pub mod tpcc;
pub mod tpcc_checks;
pub mod url;

pub use error::Error;
pub use target::Target;
