//! pgbench's scripts on the target's engine: the sessions a script run's users drive. The scripts are
//! pgbench's, so PostgreSQL's (`oltpgen_pg::script`); another engine is refused in one line before
//! the run starts.

use crate::{Error, Target};
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::target::Engine;

/// A SQL command's result as a script keeps it: columns' names, rows of text.
pub type Rows = (Vec<String>, Vec<Vec<Option<String>>>);

/// A connection with the scripts' SQL commands prepared.
pub enum ScriptSession {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::script::Session),
}

impl ScriptSession {
    /// Runs statement `index` with `params`; its rows as text when `keep`.
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn run(
        &self,
        index: usize,
        params: &[Option<String>],
        keep: bool,
    ) -> Result<Option<Rows>, TxnError> {
        match self {
            #[cfg(feature = "postgres")]
            ScriptSession::Postgres(s) => s.run(index, params, keep).await,
        }
    }

    /// Ends the transaction a failed script left open.
    pub async fn rollback(&self) {
        match self {
            #[cfg(feature = "postgres")]
            ScriptSession::Postgres(s) => s.rollback().await,
        }
    }
}

/// Opens one script run's sessions on one target.
pub enum ScriptConnector {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::script::Connector),
}

impl ScriptConnector {
    /// The connector of a run on `target` whose scripts' SQL commands are `statements` (`names[i]`
    /// names statement `i` in a refusal), after checking that each prepares there.
    ///
    /// # Errors
    /// [`Error::Usage`] for an engine other than PostgreSQL, or a statement the server refuses.
    pub async fn ready(target: &Target, statements: Vec<String>, names: &[String]) -> Result<Self, Error> {
        match target.engine() {
            #[cfg(feature = "postgres")]
            Engine::Postgres => {
                let connector = oltpgen_pg::script::Connector::new(target.clone(), statements);
                connector.ready(names).await?;
                Ok(ScriptConnector::Postgres(connector))
            }
            #[allow(unreachable_patterns)]
            other => Err(Error::usage(format!(
                "{target}: pgbench's scripts run on PostgreSQL only, not on {}: give a postgres:// URL",
                other.name()
            ))),
        }
    }

    /// Opens one session.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    pub async fn open(&self) -> Result<ScriptSession, TxnError> {
        match self {
            #[cfg(feature = "postgres")]
            ScriptConnector::Postgres(c) => Ok(ScriptSession::Postgres(c.open().await?)),
        }
    }
}
