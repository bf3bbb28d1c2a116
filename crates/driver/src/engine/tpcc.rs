//! TPC-C on the target's engine: the sessions a run's users drive ([`TpccSession`], opened by a run's
//! [`TpccConnector`]), what a load creates beside the tables, the checks' queries, and the engine's
//! facts a run records. One arm per engine; the SQL is the engine's (`oltpgen_pg::tpcc`, `oltpgen_mssql::tpcc`,
//! `oltpgen_mysql::tpcc`).

use oltpgen_datagen::tpcc::input::TxnInput;

use crate::{Error, Target};
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::target::Engine;
use oltpgen_vocab::tpcc::{Outcome, Transactions};

/// A connection with the five transactions prepared, in its engine's terms: an enum, so that running a
/// transaction is a `match` the compiler sees through, with no boxing or dynamic dispatch.
// One per connection, never moved on the hot path: boxing the larger variant would only add a pointer
// chase to every transaction.
#[allow(clippy::large_enum_variant)]
pub enum TpccSession {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::tpcc::Session),
    /// On SQL Server.
    #[cfg(feature = "mssql")]
    SqlServer(oltpgen_mssql::tpcc::Session),
    /// On MySQL or MariaDB.
    #[cfg(feature = "mysql")]
    MySql(oltpgen_mysql::tpcc::Session),
}

impl TpccSession {
    /// Runs one transaction to its end.
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn execute(&self, input: &TxnInput) -> Result<Outcome, TxnError> {
        each_engine!(self, TpccSession(s) => s.execute(input).await)
    }
}

/// Opens one run's sessions on one target, the transactions run as that run says; what the engine
/// learns once for the run's sessions (SQL Server: that the procedures are in place) stays in this
/// value, so it lasts as long as the run and no longer.
pub enum TpccConnector {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::tpcc::Connector),
    /// On SQL Server.
    #[cfg(feature = "mssql")]
    SqlServer(oltpgen_mssql::tpcc::Connector),
    /// On MySQL or MariaDB.
    #[cfg(feature = "mysql")]
    MySql(oltpgen_mysql::tpcc::Connector),
}

impl TpccConnector {
    /// The connector of a run on `target` whose transactions run as `transactions` says.
    pub fn new(target: Target, transactions: Transactions) -> Self {
        match target.engine() {
            #[cfg(feature = "postgres")]
            Engine::Postgres => {
                TpccConnector::Postgres(oltpgen_pg::tpcc::Connector::new(target, transactions))
            }
            #[cfg(feature = "mssql")]
            Engine::SqlServer => {
                TpccConnector::SqlServer(oltpgen_mssql::tpcc::Connector::new(target, transactions))
            }
            #[cfg(feature = "mysql")]
            Engine::MySql => TpccConnector::MySql(oltpgen_mysql::tpcc::Connector::new(target, transactions)),
        }
    }

    /// Opens one session.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    pub async fn open(&self) -> Result<TpccSession, TxnError> {
        match self {
            #[cfg(feature = "postgres")]
            TpccConnector::Postgres(c) => Ok(TpccSession::Postgres(c.open().await?)),
            #[cfg(feature = "mssql")]
            TpccConnector::SqlServer(c) => Ok(TpccSession::SqlServer(c.open().await?)),
            #[cfg(feature = "mysql")]
            TpccConnector::MySql(c) => Ok(TpccSession::MySql(c.open().await?)),
        }
    }
}

/// Makes `target` ready to run the transactions as `transactions` says, before the run's first
/// session opens (PostgreSQL, server-side: creates the functions a database lacks or holds in an older
/// version, so a database loaded before they existed needs no reload).
///
/// # Errors
/// [`Error`] when the server refuses to create them.
pub async fn ready(target: &Target, transactions: Transactions) -> Result<(), Error> {
    match target.engine() {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::tpcc::ready(target, transactions).await,
        // The run's first server-side session creates the procedures a database lacks.
        #[cfg(feature = "mssql")]
        Engine::SqlServer => Ok(()),
        #[cfg(feature = "mysql")]
        Engine::MySql => oltpgen_mysql::tpcc::ready(target, transactions).await,
    }
}

/// The faster of the two ways to run the transactions on `engine`, as measured (BENCHMARKS.md).
pub fn default_transactions(engine: Engine) -> Transactions {
    each_engine!(engine, m => m::tpcc::DEFAULT_TRANSACTIONS)
}

/// The statements a TPC-C load runs on `engine` once its tables' keys and indexes exist: the
/// server-side transactions, created with the schema so that a run in either mode finds them.
pub fn finish(engine: Engine) -> Vec<String> {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::tpcc::procs::install_statements(),
        #[cfg(feature = "mssql")]
        Engine::SqlServer => oltpgen_mssql::tpcc::procs::statements(),
        #[cfg(feature = "mysql")]
        Engine::MySql => oltpgen_mysql::tpcc::procs::statements(),
    }
}

/// The queries of clause 3.3.2's conditions on `engine`, in clause order: each yields one text column
/// of the keys of the rows that break its condition.
pub fn check_queries(engine: Engine) -> &'static [&'static str] {
    each_engine!(engine, m => &m::tpcc::check::QUERIES)
}

/// Check `i`'s query on `engine` restricted to the rows of `warehouses` (`tpcc check --sample`):
/// PostgreSQL's shadows each table by a CTE of its sampled rows; SQL Server's and MySQL's shared queries
/// read derived tables of them ([`oltpgen_vocab::tpcc_checks::sampled`]). Every engine has one.
pub fn sampled_check_query(engine: Engine, i: usize, warehouses: &[u32]) -> String {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::tpcc::check::sampled(oltpgen_pg::tpcc::check::QUERIES[i], warehouses),
        #[allow(unreachable_patterns)]
        _ => oltpgen_vocab::tpcc_checks::sampled(check_queries(engine)[i], warehouses),
    }
}

/// The isolation level the transactions run at on `engine`, for the result.
pub fn isolation(engine: Engine) -> &'static str {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::tpcc::txn::ISOLATION,
        #[cfg(feature = "mssql")]
        Engine::SqlServer => oltpgen_mssql::tpcc::txn::ISOLATION,
        #[cfg(feature = "mysql")]
        Engine::MySql => oltpgen_mysql::tpcc::ISOLATION,
    }
}
