//! A workload defined at run time on the target's engine: the sessions a run's users drive
//! ([`DefinedSession`], opened by a run's [`DefinedConnector`]). Each engine runs the statements in its
//! own dialect ([`dialect`]: a statement's `sql_mysql` or `sql_mssql` where the definition gives one),
//! its placeholders rewritten from oltpgen's `$1` into its own by its module (`oltpgen_pg::defined`,
//! `oltpgen_mysql::defined`, `oltpgen_mssql::defined`).

use super::Conn;
use crate::{Error, Target};
use oltpgen_datagen::defined::{Dialect, ParamKind, Value};
use oltpgen_vocab::outcome::{Done, TxnError};
use oltpgen_vocab::target::Engine;

/// The dialect `engine` speaks: which of a definition's SQL texts it runs.
pub fn dialect(engine: Engine) -> Dialect {
    each_engine!(engine, m => m::defined::DIALECT)
}

/// A connection with the workload's statements prepared, in its engine's terms.
pub enum DefinedSession {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::defined::Session),
    /// On SQL Server.
    #[cfg(feature = "mssql")]
    SqlServer(oltpgen_mssql::defined::Session),
    /// On MySQL or MariaDB.
    #[cfg(feature = "mysql")]
    MySql(oltpgen_mysql::defined::Session),
}

impl DefinedSession {
    /// Runs one transaction: each call a statement's index and its parameters' values; rolled back on
    /// purpose when `rollback`. Beside it, the acknowledgement's key a statement returned, when one of
    /// the calls returns it ([`DefinedConnector::ready`]'s `returning`).
    ///
    /// # Errors
    /// The server's error, sorted; a fatal one when the statement that returns the acknowledgement
    /// returned no row.
    pub async fn run(
        &self,
        calls: &[(usize, &[Value])],
        rollback: bool,
    ) -> Result<(Done, Option<Vec<i64>>), TxnError> {
        each_engine!(self, DefinedSession(s) => s.run_as(calls, rollback).await)
    }
}

/// Opens one run's sessions on one target.
pub enum DefinedConnector {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::defined::Connector),
    /// On SQL Server.
    #[cfg(feature = "mssql")]
    SqlServer(oltpgen_mssql::defined::Connector),
    /// On MySQL or MariaDB.
    #[cfg(feature = "mysql")]
    MySql(oltpgen_mysql::defined::Connector),
}

impl DefinedConnector {
    /// The connector of a run on `target` whose transactions are made of `statements` (in the target's
    /// dialect: [`dialect`]), each checked against its `expected` rows and binding its parameters as
    /// `kinds` says, the statements `returning` says (by index) handing back their first row as the
    /// acknowledgement, after checking that each prepares there.
    ///
    /// # Errors
    /// [`Error::Usage`] for a statement the server refuses, or a parameter whose type takes no value
    /// of its kind (naming it).
    pub async fn ready(
        target: &Target,
        statements: Vec<String>,
        expected: Vec<Option<u64>>,
        kinds: Vec<Vec<ParamKind>>,
        returning: Vec<bool>,
    ) -> Result<Self, Error> {
        Ok(match target.engine() {
            #[cfg(feature = "postgres")]
            Engine::Postgres => {
                let connector = oltpgen_pg::defined::Connector::new(target.clone(), statements)
                    .expecting(expected)
                    .binding(kinds)
                    .returning(returning);
                connector.ready().await?;
                DefinedConnector::Postgres(connector)
            }
            #[cfg(feature = "mssql")]
            Engine::SqlServer => {
                let connector = oltpgen_mssql::defined::Connector::new(target.clone(), &statements)
                    .expecting(expected)
                    .binding(kinds)
                    .returning(returning);
                connector.ready().await?;
                DefinedConnector::SqlServer(connector)
            }
            #[cfg(feature = "mysql")]
            Engine::MySql => {
                // MySQL infers no parameter types: it converts what it is sent.
                let _ = kinds;
                let connector = oltpgen_mysql::defined::Connector::new(target.clone(), &statements)
                    .expecting(expected)
                    .returning(returning);
                connector.ready().await?;
                DefinedConnector::MySql(connector)
            }
        })
    }

    /// Opens one session.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    pub async fn open(&self) -> Result<DefinedSession, TxnError> {
        Ok(match self {
            #[cfg(feature = "postgres")]
            DefinedConnector::Postgres(c) => DefinedSession::Postgres(c.open().await?),
            #[cfg(feature = "mssql")]
            DefinedConnector::SqlServer(c) => DefinedSession::SqlServer(c.open().await?),
            #[cfg(feature = "mysql")]
            DefinedConnector::MySql(c) => DefinedSession::MySql(c.open().await?),
        })
    }
}

/// The most load records [`loaded_workloads`] reads: far more workloads than one database holds.
const MOST_RECORDS: i64 = 1000;

/// The name of every workload `target`'s load record (`oltpgen_meta`) holds, built-in or defined, in
/// the order the server returns them; none when there is no record.
///
/// # Errors
/// [`Error::Failed`] when the record cannot be read.
pub async fn loaded_workloads(conn: &Conn, target: &Target) -> Result<Vec<String>, Error> {
    let table = each_engine!(target.engine(), m => m::meta::TABLE);
    if conn.existing_tables(target, &[table]).await?.is_empty() {
        return Ok(Vec::new());
    }
    let query = format!("SELECT workload AS k FROM {table}");
    Ok(conn.offending(target, "reading the load record", &query, MOST_RECORDS).await?.1)
}
