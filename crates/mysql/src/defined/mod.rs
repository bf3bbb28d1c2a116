//! A workload defined at run time ([`oltpgen_datagen::defined`]) on MySQL and MariaDB: a session that
//! prepares the workload's statements once (server-side prepared statements) and runs a drawn
//! transaction's statements in one transaction at READ COMMITTED.
//!
//! The statements are the definition's `sql_mysql` where it gives one, else its `sql`
//! ([`DIALECT`]), their placeholders `$n` rewritten into MySQL's `?`, whose values go in the order the
//! placeholders stand (`$2 … $1` binds the second value first). Values are bound as 64-bit integers or
//! as texts (a timestamp parameter's too, `YYYY-MM-DD HH:MM:SS`); the server converts them to the
//! column's type as it does a literal.
//!
//! The tables' DDL and the load are the generic ones ([`schema`](super::schema), [`bulk`](super::bulk)).

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Statement, Value};
use tokio::sync::Mutex;

use super::error::txn_error;
use super::{TXN_TIMEOUT, settle, timed};
use oltpgen_datagen::defined::{Dialect, Value as Drawn, abbreviated, ack_width, rewrite_placeholders};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{ACK_VALUES, Ack, Done, TxnError};
use oltpgen_vocab::{Error, Target};

/// The dialect of a definition's SQL MySQL and MariaDB run: `sql_mysql`, else `sql`.
pub const DIALECT: Dialect = Dialect::Mysql;

/// Opens a run's sessions on one target, each with the workload's statements prepared.
#[derive(Clone, Debug)]
pub struct Connector {
    target: Target,
    /// Each statement with `?` placeholders, and the parameter (from 0) each `?` takes, in order.
    statements: Vec<(String, Vec<usize>)>,
    /// Each statement's expected row count, when it has one.
    expected: Vec<Option<u64>>,
    /// Each statement: whether its first returned row is its transaction's acknowledgement.
    returning: Vec<bool>,
}

impl Connector {
    /// The connector of a run on `target` whose transactions are made of `statements` (with `$n`
    /// placeholders, flattened as
    /// [`Workload::statements_in`](oltpgen_datagen::defined::Workload::statements_in) gives them), which
    /// [`Session::run_as`] names by index.
    pub fn new(target: Target, statements: &[String]) -> Self {
        let statements = statements
            .iter()
            .map(|sql| {
                let (sql, order) = rewrite_placeholders(sql, |_| "?".into());
                (sql, order.into_iter().map(|n| n - 1).collect())
            })
            .collect();
        Connector { target, statements, expected: Vec::new(), returning: Vec::new() }
    }

    /// The same, each statement's rows (touched or returned) checked against `expected` (by index).
    pub fn expecting(self, expected: Vec<Option<u64>>) -> Self {
        Connector { expected, ..self }
    }

    /// The same, the statements `returning` says (by index) handing back their first row as the
    /// transaction's acknowledgement (MariaDB's `INSERT … RETURNING`, 10.5+); the others' rows are
    /// only counted.
    pub fn returning(self, returning: Vec<bool>) -> Self {
        Connector { returning, ..self }
    }

    /// Whether every statement prepares on the target, said before a run starts so that a mistake in
    /// the definition is one line, not a run of failed transactions.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the target, the statement (its number, from 1, and its start) and the
    /// server's complaint.
    pub async fn ready(&self) -> Result<(), Error> {
        let mut conn = super::connect(&self.target).await?;
        for (i, (sql, _)) in self.statements.iter().enumerate() {
            let what = format!("statement {} ({})", i + 1, abbreviated(sql));
            let prepared = match timed(TXN_TIMEOUT, conn.prep(sql.as_str())).await {
                Ok(prepared) => prepared,
                Err(e) => {
                    let msg = match e {
                        mysql_async::Error::Server(e) => e.message,
                        other => other.to_string(),
                    };
                    return Err(Error::usage(format!(
                        "{}: {what} does not prepare: {msg}: correct it, or give MySQL's own as sql_mysql",
                        self.target.label(),
                    )));
                }
            };
            // MariaDB tells no columns of an INSERT … RETURNING at prepare: a statement that returns
            // none is found when it runs (an error of its transaction); too many, when it tells.
            if self.returning.get(i).copied().unwrap_or(false)
                && let Err(refused) = ack_width(prepared.columns().len())
            {
                return Err(Error::usage(format!("{}: {what}: {refused}", self.target.label())));
            }
        }
        let _ = conn.disconnect().await;
        Ok(())
    }

    /// Connects to the target at READ COMMITTED and prepares every statement.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when a statement does not
    /// prepare.
    pub async fn open(&self) -> Result<Session, TxnError> {
        let mut conn = super::open_session(&self.target).await?;
        let mut statements = Vec::with_capacity(self.statements.len());
        for (sql, order) in &self.statements {
            let prepared = timed(TXN_TIMEOUT, conn.prep(sql.as_str())).await.map_err(|e| txn_error(&e))?;
            statements.push((prepared, order.clone()));
        }
        Ok(Session {
            conn: Mutex::new(conn),
            statements,
            expected: self.expected.clone(),
            returning: self.returning.clone(),
        })
    }
}

/// A connection with a defined workload's statements prepared.
pub struct Session {
    conn: Mutex<Conn>,
    /// Each statement, with the parameter each of its `?` takes.
    statements: Vec<(Statement, Vec<usize>)>,
    /// Each statement's expected row count, when it has one.
    expected: Vec<Option<u64>>,
    /// Each statement: whether its first returned row is the acknowledgement.
    returning: Vec<bool>,
}

impl Session {
    /// Runs `calls` — each a statement's index among the connector's statements and its parameters'
    /// values (a [`Draw::calls`](oltpgen_datagen::defined::Draw::calls)) — in one transaction: START
    /// TRANSACTION, the statements in order (every result received), COMMIT. On an error what is left of
    /// the transaction is rolled back ([`settle`]).
    ///
    /// It ends in ROLLBACK when `rollback` (a rollback on purpose, counted as
    /// such); a statement whose rows (touched, or returned) are not its expected count fails the
    /// transaction, fatal, and rolls it back.
    ///
    /// # Errors
    /// The server's error, sorted; a fatal one, with nothing sent, when a call names no statement or
    /// gives fewer values than its placeholders take; a fatal one when a statement's rows are not its
    /// expected count, or when the statement that returns the acknowledgement (see
    /// [`Connector::returning`]) returned no row. Beside it, that acknowledgement's key.
    pub async fn run_as(
        &self,
        calls: &[(usize, &[Drawn])],
        rollback: bool,
    ) -> Result<(Done, Option<Vec<i64>>), TxnError> {
        let fatal = TxnError { fault: Fault::Fatal };
        let bound = calls
            .iter()
            .map(|&(i, values)| {
                let (statement, order) = self.statements.get(i).ok_or(fatal)?;
                let params = order.iter().map(|&p| values.get(p).map(bound).ok_or(fatal));
                let expected = self.expected.get(i).copied().flatten();
                let acked = self.returning.get(i).copied().unwrap_or(false);
                Ok((statement, params.collect::<Result<Vec<_>, _>>()?, expected, acked))
            })
            .collect::<Result<Vec<_>, TxnError>>()?;
        let mut conn = self.conn.lock().await;
        let ran = timed(TXN_TIMEOUT, transaction(&mut conn, bound, rollback)).await;
        match settle(&mut conn, ran).await? {
            Ok(done) => Ok(done),
            Err(Unexpected) => {
                let _ = timed(TXN_TIMEOUT, conn.query_drop("ROLLBACK")).await;
                Err(fatal)
            }
        }
    }
}

/// A drawn value as MySQL's protocol sends it.
fn bound(v: &Drawn) -> Value {
    match v {
        Drawn::Int(v) => Value::Int(*v),
        Drawn::Text(t) => Value::Bytes(t.as_bytes().to_vec()),
    }
}

/// A statement touched or returned other than its expected rows, or returned no acknowledgement.
struct Unexpected;

/// The acknowledgement's key in `row`: integers as integers, anything else as the text
/// [`Ack::value_of_text`] reads.
fn ack_of(row: mysql_async::Row) -> Vec<i64> {
    row.unwrap()
        .into_iter()
        .take(ACK_VALUES)
        .map(|v| match v {
            Value::Int(v) => v,
            Value::UInt(v) => v as i64,
            Value::NULL => 0,
            Value::Bytes(b) => Ack::value_of_text(Some(&String::from_utf8_lossy(&b))),
            other => Ack::value_of_text(Some(&other.as_sql(true))),
        })
        .collect()
}

/// The statements in one transaction, committed (rolled back when `rollback`); `Err(Unexpected)`, the
/// transaction left open, when a statement's rows are not its expected count.
async fn transaction(
    conn: &mut Conn,
    bound: Vec<(&Statement, Vec<Value>, Option<u64>, bool)>,
    rollback: bool,
) -> Result<Result<(Done, Option<Vec<i64>>), Unexpected>, mysql_async::Error> {
    conn.query_drop("START TRANSACTION").await?;
    let mut ack = None;
    for (statement, params, expected, acked) in bound {
        let rows: Vec<mysql_async::Row> = conn.exec(statement, params).await?;
        // A SELECT's rows, else the rows an UPDATE, DELETE or INSERT touched.
        let count = if rows.is_empty() { conn.affected_rows() } else { rows.len() as u64 };
        if expected.is_some_and(|e| e != count) {
            return Ok(Err(Unexpected));
        }
        if acked {
            let Some(row) = rows.into_iter().next() else { return Ok(Err(Unexpected)) };
            ack = Some(ack_of(row));
        }
    }
    conn.query_drop(if rollback { "ROLLBACK" } else { "COMMIT" }).await?;
    Ok(Ok((Done { rolled_back: rollback }, ack)))
}
