//! The seam between the workloads and the database engines: the one place that chooses an engine's code
//! by a `match` on the engine ([`Engine`](oltpgen_vocab::target::Engine), chosen once from the URL's
//! scheme) or on an enum over the engines. Every engine supplies, in its own module (`pg/` for
//! PostgreSQL, `mssql/` for SQL Server, `mysql/` for MySQL and MariaDB, laid out alike): connecting and sorting its errors
//! ([`Fault`](oltpgen_vocab::error::Fault)), the catalog (which tables exist, drop), the load record
//! (`oltpgen_meta`), DDL from datagen's table definitions, bulk load and statistics after it, server
//! info and settings for the result, room for connections, the server's counters, and each workload's
//! transactions and check queries. It speaks to the seam in the vocabulary ([`oltpgen_vocab`]) only, and
//! never to the workloads or to the other engine.
//!
//! | file | what the workloads reach through it |
//! |---|---|
//! | `conn.rs` | [`Conn`]: one connection outside the measured run (catalog, load record, server info, counters, checks); [`create_database`] |
//! | `target.rs` | a URL parsed into a [`Target`](crate::Target) by its engine, and another database on the same server |
//! | `schema.rs` | DDL in the engine's words ([`create_table`], [`primary_key`], [`statistics`]; `CREATE INDEX`, alike on every engine, is [`oltpgen_vocab::schema::create_index`]) |
//! | `bulk.rs` | a load's rows over many connections ([`bulk_load`]) and its statements side by side ([`run_statements`]) |
//! | [`pristine`] | the faster `--restore` where the engine offers it (PostgreSQL's template clone) |
//! | [`tpcc`] | TPC-C's sessions, finishing DDL, check queries and the engine's facts a run records |
//! | [`ds2`] | DS2's sessions, finishing DDL and indexes, check queries, databases DS2's installer built |
//!
//! Enums rather than trait objects: the hot path (a workload's session running a transaction) is a
//! `match` the compiler sees through, with no boxing or dynamic dispatch per call, and adding an engine
//! is a compile error at every `match` here that must learn about it, and nowhere else. The user loop,
//! pool, collector and results never see an engine at all: they drive a
//! [`Driven`](crate::run::Driven), whose session type is one of the session enums here.

/// One arm per engine this build speaks, the engine's crate in scope as `$m` in each: the `match` of
/// every call the seam passes on alike to whichever engine (the same function of each engine's crate).
/// `each_engine!(engine, m => m::schema::statistics(table))` matches on an [`Engine`]; `each_engine!(conn,
/// Conn(c), m => m::meta::read(c, target, workload).await)` on an enum over the engines whose variants
/// are named as `Engine`'s, binding each variant's value as `c` (`each_engine!(self, TpccSession(s) =>
/// s.execute(input).await)` where the body needs no crate). An engine not built has no arm, as it
/// has no variant; a call that differs between engines is a `match` of its own.
///
/// [`Engine`]: oltpgen_vocab::target::Engine
macro_rules! each_engine {
    ($engine:expr, $m:ident => $body:expr) => {
        match $engine {
            #[cfg(feature = "postgres")]
            oltpgen_vocab::target::Engine::Postgres => {
                use oltpgen_pg as $m;
                $body
            }
            #[cfg(feature = "mssql")]
            oltpgen_vocab::target::Engine::SqlServer => {
                use oltpgen_mssql as $m;
                $body
            }
            #[cfg(feature = "mysql")]
            oltpgen_vocab::target::Engine::MySql => {
                use oltpgen_mysql as $m;
                $body
            }
        }
    };
    ($value:expr, $enum:ident($v:ident) => $body:expr) => {
        match $value {
            #[cfg(feature = "postgres")]
            $enum::Postgres($v) => $body,
            #[cfg(feature = "mssql")]
            $enum::SqlServer($v) => $body,
            #[cfg(feature = "mysql")]
            $enum::MySql($v) => $body,
        }
    };
    ($value:expr, $enum:ident($v:ident), $m:ident => $body:expr) => {
        match $value {
            #[cfg(feature = "postgres")]
            $enum::Postgres($v) => {
                use oltpgen_pg as $m;
                $body
            }
            #[cfg(feature = "mssql")]
            $enum::SqlServer($v) => {
                use oltpgen_mssql as $m;
                $body
            }
            #[cfg(feature = "mysql")]
            $enum::MySql($v) => {
                use oltpgen_mysql as $m;
                $body
            }
        }
    };
}

mod bulk;
mod conn;
pub mod defined;
pub mod ds2;
pub mod pristine;
mod schema;
pub mod script;
mod target;
pub mod tpcc;

pub use bulk::{bulk_load, run_statements};
pub use conn::{Conn, create_database};
pub use schema::{create_table, drop_index, drop_primary_key, primary_key, statistics, truncate};
pub use target::{parse_url, with_dbname};
