//! oltpgen's engine: the databases it talks to, the built-in PostgreSQL, and the workloads' load, check
//! and run logic. The `oltpgen` binary is a thin command line over this crate, and the integration tests
//! drive the same functions.
#![deny(missing_docs)]

pub mod chunks;
pub mod consistency;
pub mod counters;
pub mod database;
pub mod ds2;
pub mod engine;
pub mod error;
pub mod inventory;
pub mod load;
pub mod local;
pub mod metrics;
pub mod mssql;
pub mod pg;
pub mod prepare;
pub mod progress;
pub mod run;
pub mod stop;
pub mod tpcc;
pub mod vocab;

pub use error::Error;
pub use vocab::target::Target;
