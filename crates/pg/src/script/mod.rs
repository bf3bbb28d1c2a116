//! pgbench's scripts on PostgreSQL: a session that prepares a script's SQL commands once (pgbench's
//! `-M prepared`) and runs them one at a time as the interpreter asks
//! ([`oltpgen_datagen::pgbench::Vars::step`]).
//!
//! Parameters are sent as text, as pgbench sends them, so the server reads each as the type it inferred
//! when the statement was prepared (`aid = $1` an `int4` for an `int4` column). Results a script keeps
//! (`\gset`, `\aset`) are read back as text; those it does not keep are not decoded at all.

mod text;

use futures_util::{TryStreamExt, pin_mut};
use tokio_postgres::{Client, Statement};

use self::text::{Raw, TextParam};
use super::error::txn_error;
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::{Error, Target};

/// A SQL command's result as a script keeps it: the columns' names and each row's values as text
/// (`None` for NULL).
pub type Rows = (Vec<String>, Vec<Vec<Option<String>>>);

/// Opens a run's sessions on one target, each with the scripts' SQL commands prepared.
#[derive(Clone, Debug)]
pub struct Connector {
    target: Target,
    statements: Vec<String>,
}

impl Connector {
    /// The connector of a run on `target` whose scripts' SQL commands are `statements` (with `$n`
    /// parameters), which [`Session::run`] names by index.
    pub fn new(target: Target, statements: Vec<String>) -> Self {
        Connector { target, statements }
    }

    /// Whether every statement prepares on the target, said before a run starts; `names[i]` names
    /// statement `i` in the refusal (the script's file and line).
    ///
    /// # Errors
    /// [`Error`] naming the target, the statement and the server's complaint.
    pub async fn ready(&self, names: &[String]) -> Result<(), Error> {
        let client = super::connect(&self.target).await?;
        for (sql, name) in self.statements.iter().zip(names) {
            client.prepare(sql).await.map_err(|e| super::failed(name, &self.target, &e))?;
        }
        Ok(())
    }

    /// Connects to the target and prepares every statement (pipelined: one round trip).
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when a statement does not
    /// prepare.
    pub async fn open(&self) -> Result<Session, TxnError> {
        let client = super::connect(&self.target).await.map_err(|_| TxnError::LOST)?;
        let prepared =
            futures_util::future::join_all(self.statements.iter().map(|sql| client.prepare(sql))).await;
        let statements = prepared.into_iter().collect::<Result<_, _>>().map_err(|e| txn_error(&e))?;
        Ok(Session { client, statements })
    }
}

/// A connection with a script's statements prepared.
pub struct Session {
    client: Client,
    statements: Vec<Statement>,
}

impl Session {
    /// Runs statement `index` with `params` (text, `None` for NULL); returns its rows as text when
    /// `keep` (the script stores them), else nothing (its rows are not decoded).
    ///
    /// # Errors
    /// The server's error, sorted ([`txn_error`]); a fatal one when a kept column's type has no text
    /// form here (the script should cast it to text).
    pub async fn run(
        &self,
        index: usize,
        params: &[Option<String>],
        keep: bool,
    ) -> Result<Option<Rows>, TxnError> {
        let statement = &self.statements[index];
        let params = params.iter().map(|p| TextParam(p.as_deref()));
        if !keep {
            self.client.execute_raw(statement, params).await.map_err(|e| txn_error(&e))?;
            return Ok(None);
        }
        let columns: Vec<String> = statement.columns().iter().map(|c| c.name().to_string()).collect();
        let stream = self.client.query_raw(statement, params).await.map_err(|e| txn_error(&e))?;
        pin_mut!(stream);
        let mut rows = Vec::new();
        while let Some(row) = stream.try_next().await.map_err(|e| txn_error(&e))? {
            let mut values = Vec::with_capacity(columns.len());
            for (i, column) in statement.columns().iter().enumerate() {
                let raw: Option<Raw<'_>> = row.try_get(i).map_err(|_| TxnError { fault: Fault::Fatal })?;
                values.push(match raw {
                    None => None,
                    Some(r) => {
                        Some(text::to_text(column.type_(), r.0).ok_or(TxnError { fault: Fault::Fatal })?)
                    }
                });
            }
            rows.push(values);
        }
        Ok(Some((columns, rows)))
    }

    /// Ends whatever transaction a failed script left open, so the connection is ready for the next.
    pub async fn rollback(&self) {
        let _ = self.client.batch_execute("ROLLBACK").await;
    }

    /// Whether the connection is gone.
    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }
}
