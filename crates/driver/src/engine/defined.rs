//! A workload defined at run time on the target's engine: the sessions a run's users drive
//! ([`DefinedSession`], opened by a run's [`DefinedConnector`]). Its statements are the user's SQL with
//! PostgreSQL's placeholders, so only PostgreSQL runs them (`oltpgen_pg::defined`); another engine is
//! refused in one line before the run starts.

use crate::{Error, Target};
use oltpgen_vocab::outcome::{Done, TxnError};
use oltpgen_vocab::target::Engine;

/// A connection with the workload's statements prepared, in its engine's terms.
pub enum DefinedSession {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::defined::Session),
}

impl DefinedSession {
    /// Runs one transaction: each call a statement's index and its parameters' values.
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn run(&self, calls: &[(usize, &[i64])]) -> Result<Done, TxnError> {
        match self {
            #[cfg(feature = "postgres")]
            DefinedSession::Postgres(s) => s.run(calls).await,
        }
    }
}

/// Opens one run's sessions on one target.
pub enum DefinedConnector {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::defined::Connector),
}

impl DefinedConnector {
    /// The connector of a run on `target` whose transactions are made of `statements`, after checking
    /// that each prepares there.
    ///
    /// # Errors
    /// [`Error::Usage`] for an engine that does not run defined workloads, or a statement the server
    /// refuses (naming it).
    pub async fn ready(target: &Target, statements: Vec<String>) -> Result<Self, Error> {
        match target.engine() {
            #[cfg(feature = "postgres")]
            Engine::Postgres => {
                let connector = oltpgen_pg::defined::Connector::new(target.clone(), statements);
                connector.ready().await?;
                Ok(DefinedConnector::Postgres(connector))
            }
            #[allow(unreachable_patterns)]
            other => Err(Error::usage(format!(
                "{target}: a workload defined in a file runs its SQL on PostgreSQL only (its statements use \
                 $1 placeholders), not on {}: give a postgres:// URL",
                other.name()
            ))),
        }
    }

    /// Opens one session.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    pub async fn open(&self) -> Result<DefinedSession, TxnError> {
        match self {
            #[cfg(feature = "postgres")]
            DefinedConnector::Postgres(c) => Ok(DefinedSession::Postgres(c.open().await?)),
        }
    }
}
