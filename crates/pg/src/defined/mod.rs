//! A workload defined at run time ([`oltpgen_datagen::defined`]) on PostgreSQL: a session that prepares
//! the workload's statements once and runs a drawn transaction's statements in one transaction.
//!
//! The tables' DDL is the generic one ([`schema::create_table`](super::schema::create_table),
//! [`schema::primary_key`](super::schema::primary_key)) and the load the generic
//! [`bulk::load_marked`](super::bulk::load_marked): nothing here is specific to a definition.
//!
//! Parameters are drawn as 64-bit integers or texts and bound as each prepared statement's parameter
//! type asks (`bind`): PostgreSQL infers `$1` compared with an `int4` column as `int4`, `balance + $2`
//! with a numeric `balance` as `numeric`, and `$3` inserted into a `varchar` column as `varchar`. A
//! parameter whose type takes no value of its kind (text for an `int4`) is refused when the statement is
//! prepared; a value its type cannot hold fails the transaction before anything is sent, so that a
//! transaction never commits only some of its statements.

mod bind;

use futures_util::future::join_all;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Row, Statement};

use self::bind::{Bind, Param};
use super::error::txn_error;
use oltpgen_datagen::defined::{Dialect, ParamKind, Value, abbreviated, ack_columns};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{ACK_VALUES, Ack, Done, TxnError};
use oltpgen_vocab::{Error, Target};

/// The dialect of a definition's SQL PostgreSQL runs: every statement's `sql`, whose `$1` placeholders
/// are its own.
pub const DIALECT: Dialect = Dialect::Postgres;

/// The isolation level every transaction of a defined workload runs at, as results record it: pinned,
/// whatever the server's default, so that results on two servers compare.
pub const ISOLATION: &str = "read committed";
const BEGIN: &str = "BEGIN ISOLATION LEVEL READ COMMITTED";

/// Opens a run's sessions on one target, each with the workload's statements prepared.
#[derive(Clone, Debug)]
pub struct Connector {
    target: Target,
    statements: Vec<String>,
    /// Each statement's expected row count, when it has one.
    expected: Vec<Option<u64>>,
    /// Each statement's parameters' kinds (`$1` first); none said: integers.
    kinds: Vec<Vec<ParamKind>>,
    /// Each statement: whether its first returned row is its transaction's acknowledgement.
    returning: Vec<bool>,
}

impl Connector {
    /// The connector of a run on `target` whose transactions are made of `statements` (every
    /// transaction's, flattened: [`Workload::statements`](oltpgen_datagen::defined::Workload::statements)),
    /// which [`Session::run`] names by index.
    pub fn new(target: Target, statements: Vec<String>) -> Self {
        Connector { target, statements, expected: Vec::new(), kinds: Vec::new(), returning: Vec::new() }
    }

    /// The same, each statement's parameters drawing as `kinds` says (by index; `$1` first), which the
    /// types the server infers must take.
    pub fn binding(self, kinds: Vec<Vec<ParamKind>>) -> Self {
        Connector { kinds, ..self }
    }

    /// The same, the statements `returning` says (by index) handing back their first row as the
    /// transaction's acknowledgement ([`Session::run_as`]); the others' rows are not read.
    pub fn returning(self, returning: Vec<bool>) -> Self {
        Connector { returning, ..self }
    }

    /// Statement `i`'s parameters' kinds.
    fn kinds_of(&self, i: usize) -> &[ParamKind] {
        self.kinds.get(i).map_or(&[], Vec::as_slice)
    }

    /// The same, each statement's rows (touched or returned) checked against `expected` (by index).
    pub fn expecting(self, expected: Vec<Option<u64>>) -> Self {
        Connector { expected, ..self }
    }

    /// Whether every statement prepares on the target and binds its parameters' kinds, said before a run starts so that
    /// a mistake in the definition is one line, not a run of failed transactions.
    ///
    /// # Errors
    /// [`Error`] naming the target, the statement (its number, from 1, and its start) and the server's
    /// complaint or the parameter whose type takes no value of its kind.
    pub async fn ready(&self) -> Result<(), Error> {
        let client = super::connect(&self.target).await?;
        for (i, sql) in self.statements.iter().enumerate() {
            let what = format!("statement {} ({})", i + 1, abbreviated(sql));
            let prepared = client.prepare(sql).await.map_err(|e| {
                let msg = e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string());
                Error::usage(format!("{}: {what} does not prepare: {msg}: correct it", self.target.label()))
            })?;
            if let Err(refused) = Bind::of(&prepared, self.kinds_of(i)) {
                return Err(Error::usage(format!("{}: {what}: {refused}", self.target.label())));
            }
            if self.returning.get(i).copied().unwrap_or(false) {
                let columns: Vec<(String, bool)> = prepared
                    .columns()
                    .iter()
                    .map(|c| (c.type_().to_string(), KEYED.contains(c.type_())))
                    .collect();
                if let Err(refused) = ack_columns(&columns, "RETURNING") {
                    return Err(Error::usage(format!("{}: {what}: {refused}", self.target.label())));
                }
            }
        }
        Ok(())
    }

    /// Connects to the target and prepares every statement (pipelined: one round trip).
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when a statement does not
    /// prepare; a fatal one when a parameter's type takes no value of its kind ([`ready`](Self::ready)
    /// says which).
    pub async fn open(&self) -> Result<Session, TxnError> {
        let client = super::connect(&self.target).await.map_err(|_| TxnError::LOST)?;
        let fixed = [BEGIN, "COMMIT"].map(|sql| client.prepare(sql));
        let (fixed, prepared) =
            tokio::join!(join_all(fixed), join_all(self.statements.iter().map(|sql| client.prepare(sql))));
        let [begin, commit]: [Statement; 2] = fixed
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| txn_error(&e))?
            .try_into()
            .expect("two statements");
        let statements = prepared
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let p = p.map_err(|e| txn_error(&e))?;
                let binds = Bind::of(&p, self.kinds_of(i)).map_err(|_| TxnError { fault: Fault::Fatal })?;
                Ok((p, binds))
            })
            .collect::<Result<_, TxnError>>()?;
        Ok(Session {
            client,
            begin,
            commit,
            statements,
            expected: self.expected.clone(),
            returning: self.returning.clone(),
        })
    }
}

/// A connection with a defined workload's statements prepared.
pub struct Session {
    client: Client,
    begin: Statement,
    commit: Statement,
    /// Each statement, with how each of its parameters is bound.
    statements: Vec<(Statement, Vec<Bind>)>,
    /// Each statement's expected row count, when it has one.
    expected: Vec<Option<u64>>,
    /// Each statement: whether its first returned row is the acknowledgement.
    returning: Vec<bool>,
}

/// The types a returned column may have to key an acknowledgement: integers and texts.
const KEYED: [Type; 6] = [Type::INT2, Type::INT4, Type::INT8, Type::TEXT, Type::VARCHAR, Type::BPCHAR];

/// The acknowledgement's key in `row`: its integer columns as integers, its texts as
/// [`Ack::value_of_text`] reads them ([`ack_columns`] admitted no other type).
fn ack_of(row: &Row) -> Vec<i64> {
    (0..row.len().min(ACK_VALUES))
        .map(|i| match *row.columns()[i].type_() {
            Type::INT2 => row.get::<_, Option<i16>>(i).map_or(0, i64::from),
            Type::INT4 => row.get::<_, Option<i32>>(i).map_or(0, i64::from),
            Type::INT8 => row.get::<_, Option<i64>>(i).unwrap_or(0),
            _ => Ack::value_of_text(row.get::<_, Option<&str>>(i)),
        })
        .collect()
}

impl Session {
    /// Runs `calls` — each a statement's index among the connector's statements and its parameters'
    /// values (a [`Draw::calls`](oltpgen_datagen::defined::Draw::calls)) — in one transaction, pipelined
    /// in one round trip: BEGIN, the statements in order, COMMIT. The first error wins: a statement's (the
    /// COMMIT then ends the aborted transaction, rolling it back), else the COMMIT's own. Either way no
    /// transaction is left open: the connection is ready for the next one, or gone.
    ///
    /// # Errors
    /// The server's error, sorted ([`txn_error`]); a fatal one, with nothing sent, when a call names no
    /// statement, gives the wrong number of values, or a value its parameter's type cannot hold (or of
    /// another kind).
    pub async fn run(&self, calls: &[(usize, &[Value])]) -> Result<Done, TxnError> {
        self.run_as(calls, false).await.map(|(done, _)| done)
    }

    /// As [`run`](Self::run), ending in ROLLBACK when `rollback` (a rollback on purpose, counted as
    /// such). When the transaction rolls back or a statement has an expected row count, the end waits
    /// for the statements' counts (one more round trip): a count other than the expected one is a
    /// fatal error, and the transaction rolls back.
    ///
    /// Beside it, the acknowledgement's key when a call's statement returns it (see
    /// [`Connector::returning`]): its first row's values; only that statement's rows are read.
    ///
    /// # Errors
    /// As [`run`](Self::run), and a fatal one for a count other than expected, or for a statement that
    /// returns the acknowledgement and returned no row.
    pub async fn run_as(
        &self,
        calls: &[(usize, &[Value])],
        rollback: bool,
    ) -> Result<(Done, Option<Vec<i64>>), TxnError> {
        let fatal = TxnError { fault: Fault::Fatal };
        let bound = calls
            .iter()
            .map(|&(i, values)| {
                let (statement, binds) = self.statements.get(i).ok_or(fatal)?;
                if binds.len() != values.len() {
                    return Err(fatal);
                }
                let params = binds.iter().zip(values).map(|(b, v)| b.bind(v).ok_or(fatal));
                Ok((statement, params.collect::<Result<Vec<Param>, _>>()?))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<Vec<&(dyn ToSql + Sync)>> = bound
            .iter()
            .map(|(_, params)| params.iter().map(|p| p as &(dyn ToSql + Sync)).collect())
            .collect();
        let checked = calls.iter().any(|&(i, _)| self.expected.get(i).copied().flatten().is_some());
        // The call whose first row is the acknowledgement, if any: the only one whose rows are read.
        let acked = calls.iter().position(|&(i, _)| self.returning.get(i).copied().unwrap_or(false));
        if rollback || checked {
            let begin = self.client.query(&self.begin, &[]);
            let body = bound.iter().zip(&refs).enumerate().map(|(k, ((statement, _), params))| async move {
                if Some(k) == acked {
                    let rows = self.client.query(*statement, params).await?;
                    Ok((rows.len() as u64, rows.first().map(ack_of)))
                } else {
                    self.client.execute(*statement, params).await.map(|n| (n, None))
                }
            });
            let (begin, counts) = tokio::join!(biased; begin, join_all(body));
            let mut outcome = begin.map(drop).map_err(|e| txn_error(&e));
            let mut ack = None;
            for (&(i, _), count) in calls.iter().zip(counts) {
                let count = count.map_err(|e: tokio_postgres::Error| txn_error(&e));
                let expected = self.expected.get(i).copied().flatten();
                let n = match count {
                    Ok((n, row)) => {
                        ack = ack.or(row);
                        Ok(n)
                    }
                    Err(e) => Err(e),
                };
                outcome = outcome
                    .and(n.and_then(|n| if expected.is_none_or(|e| e == n) { Ok(()) } else { Err(fatal) }));
            }
            if acked.is_some() && ack.is_none() {
                outcome = outcome.and(Err(fatal));
            }
            let end = if rollback || outcome.is_err() { "ROLLBACK" } else { "COMMIT" };
            let ended = self.client.batch_execute(end).await.map_err(|e| txn_error(&e));
            outcome.and(ended)?;
            return Ok((Done { rolled_back: rollback }, ack));
        }
        let begin = self.client.query(&self.begin, &[]);
        let body =
            bound.iter().zip(&refs).map(|((statement, _), params)| self.client.query(*statement, params));
        let commit = self.client.query(&self.commit, &[]);
        let (begin, body, commit) = tokio::join!(biased; begin, join_all(body), commit);
        let ack = acked.and_then(|k| body.get(k)?.as_ref().ok()?.first().map(ack_of));
        let first_error = begin.err().or_else(|| body.into_iter().find_map(Result::err)).or(commit.err());
        match first_error {
            Some(e) => Err(txn_error(&e)),
            // The COMMIT went with the statements (one round trip): a statement that returned no row
            // wrote nothing to acknowledge, and the transaction is counted as an error.
            None if acked.is_some() && ack.is_none() => Err(fatal),
            None => Ok((Done::default(), ack)),
        }
    }
}
