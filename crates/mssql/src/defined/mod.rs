//! A workload defined at run time ([`oltpgen_datagen::defined`]) on SQL Server (and Babelfish): a
//! session that sends a drawn transaction as one batch, one round trip:
//! `SET XACT_ABORT ON; BEGIN TRANSACTION; <statements>; COMMIT TRANSACTION`, so that any error rolls
//! the whole transaction back (as TPC-C's bodies do, [`tpcc::procs`](super::tpcc::procs)).
//!
//! The statements are the definition's `sql_mssql` where it gives one, else its `sql` ([`DIALECT`]);
//! each statement's placeholders `$n` become tiberius' `@P…`, numbered on through the batch (the
//! second statement's `$1` is `@P3` after a first of two parameters). Values are bound as `bigint` or
//! `nvarchar` (a text, and a timestamp parameter's `YYYY-MM-DD HH:MM:SS`); the server converts them to
//! the column's type.
//!
//! T-SQL has no prepare without running: [`Connector::ready`] runs each statement once in a transaction
//! it rolls back, every parameter 1 (an integer's 1, a text's `'1'`, a timestamp's
//! `'2000-01-01 00:00:00'`), and refuses the statement when the server does not compile it (a
//! constraint the values break is no fault of the SQL's).
//!
//! The tables' DDL and the load are the generic ones ([`schema`](super::schema), [`bulk`](super::bulk)).

use std::time::Duration;

use tiberius::{Column, ColumnData, ColumnType, Query, Row};
use tokio::sync::Mutex;

use super::error::txn_error;
use super::{Client, timed};
use oltpgen_datagen::defined::{Dialect, ParamKind, Value, abbreviated, ack_columns, rewrite_placeholders};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{ACK_VALUES, Ack, Done, TxnError};
use oltpgen_vocab::{Error, Target};

/// The dialect of a definition's SQL SQL Server runs: `sql_mssql`, else `sql`.
pub const DIALECT: Dialect = Dialect::Mssql;

/// How long one transaction may take before its connection is given up as lost.
const TXN_TIMEOUT: Duration = Duration::from_secs(60);

/// What starts every transaction's batch: any error rolls it all back, at READ COMMITTED as on the
/// other engines.
const BEGIN: &str = "SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN TRANSACTION;\n";

/// Errors of a statement's values, not of its SQL: what [`Connector::ready`]'s trial run may meet
/// with every parameter 1 (2627/2601 duplicate key, 547 constraint, 515 NULL, 8152/2628 truncation,
/// 220/8115 overflow, 245 conversion); Babelfish reports some in PostgreSQL's words.
const VALUE_ERRORS: [u32; 9] = [2627, 2601, 547, 515, 8152, 2628, 220, 8115, 245];

/// The columns of the one-row result sets a batch brackets the acknowledging statement's rows
/// (`OUTPUT INSERTED.…`) with, so that they are found among the other statements' result sets.
const ACK_MARKS: [&str; 2] = ["oltpgen_ack", "oltpgen_ack_end"];

/// One statement cut at its placeholders: the text before each, and the parameter (from 0) it takes.
#[derive(Clone, Debug)]
struct Pieces {
    parts: Vec<(String, usize)>,
    tail: String,
}

impl Pieces {
    fn of(sql: &str) -> Pieces {
        // Cut at a marker no SQL holds, then split the rewritten text.
        const MARK: char = '\u{1}';
        let (marked, order) = rewrite_placeholders(sql, |_| MARK.to_string());
        let mut texts: Vec<String> = marked.split(MARK).map(str::to_string).collect();
        let tail = texts.pop().unwrap_or_default();
        Pieces { parts: texts.into_iter().zip(order.into_iter().map(|n| n - 1)).collect(), tail }
    }

    /// The number of values the statement takes: its highest placeholder.
    fn arity(&self) -> usize {
        self.parts.iter().map(|(_, p)| p + 1).max().unwrap_or(0)
    }

    /// Appends the statement to `batch`, its parameter `p` as `@P{first + p + 1}`.
    fn write(&self, batch: &mut String, first: usize) {
        for (text, p) in &self.parts {
            batch.push_str(text);
            batch.push_str(&format!("@P{}", first + p + 1));
        }
        batch.push_str(&self.tail);
        batch.push_str(";\n");
    }
}

/// Opens a run's sessions on one target.
#[derive(Clone, Debug)]
pub struct Connector {
    target: Target,
    statements: Vec<Pieces>,
    /// The statements as given, to name one in an error.
    texts: Vec<String>,
    /// Each statement's expected row count, when it has one.
    expected: Vec<Option<u64>>,
    /// Each statement's parameters' kinds (`$1` first), for its trial run; none said: integers.
    kinds: Vec<Vec<ParamKind>>,
    /// Each statement: whether its first returned row is its transaction's acknowledgement.
    returning: Vec<bool>,
}

impl Connector {
    /// The connector of a run on `target` whose transactions are made of `statements` (with `$n`
    /// placeholders, flattened as
    /// [`Workload::statements_in`](oltpgen_datagen::defined::Workload::statements_in) gives them), which
    /// [`Session::run_as`] names by index.
    pub fn new(target: Target, statements: &[String]) -> Self {
        Connector {
            target,
            statements: statements.iter().map(|s| Pieces::of(s)).collect(),
            texts: statements.to_vec(),
            expected: Vec::new(),
            kinds: Vec::new(),
            returning: Vec::new(),
        }
    }

    /// The same, each statement's parameters drawing as `kinds` says (by index; `$1` first): what the
    /// trial run of [`ready`](Self::ready) binds.
    pub fn binding(self, kinds: Vec<Vec<ParamKind>>) -> Self {
        Connector { kinds, ..self }
    }

    /// The same, the statements `returning` says (by index) handing back their first row as the
    /// transaction's acknowledgement (`OUTPUT INSERTED.…`); the others' rows are not read.
    pub fn returning(self, returning: Vec<bool>) -> Self {
        Connector { returning, ..self }
    }

    /// The same, each statement's rows (touched or returned, `@@ROWCOUNT`) checked against `expected`
    /// (by index) in the batch itself: another count throws, rolling the transaction back.
    pub fn expecting(self, expected: Vec<Option<u64>>) -> Self {
        Connector { expected, ..self }
    }

    /// Whether every statement compiles on the target: each run once, every parameter 1, in a
    /// transaction rolled back; said before a run starts so that a mistake in the definition is one
    /// line, not a run of failed transactions.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the target, the statement (its number, from 1, and its start) and the
    /// server's complaint.
    pub async fn ready(&self) -> Result<(), Error> {
        let mut client = super::connect(&self.target).await?;
        for i in 0..self.statements.len() {
            let what =
                || format!("{}: statement {} ({})", self.target.label(), i + 1, abbreviated(&self.texts[i]));
            let (columns, ran) = self.trial(&mut client, i).await;
            if let Err(e) = &ran {
                let _ = end_open(&mut client).await;
                if let Some(msg) = not_compiled(e) {
                    return Err(Error::usage(format!(
                        "{} does not compile: {msg}: correct it, or give T-SQL's own as sql_mssql",
                        what()
                    )));
                }
            }
            // One that ran told its columns (none: it returns none); one its values stopped may not have.
            let told = columns.filter(|c| ran.is_ok() || !c.is_empty());
            if let Some(Err(refused)) = told.map(|c| ack_columns(&c, "OUTPUT INSERTED.…")) {
                return Err(Error::usage(format!("{}: {refused}", what())));
            }
        }
        Ok(())
    }

    /// Runs statement `i` once on `client`, every parameter 1, in a transaction rolled back: how it
    /// went, and, when its first row is the acknowledgement, the columns it returned as
    /// [`ack_column`] names them (when the server told them).
    async fn trial(
        &self,
        client: &mut Client,
        i: usize,
    ) -> (Option<Vec<(String, bool)>>, Result<(), tiberius::error::Error>) {
        let pieces = &self.statements[i];
        let mut batch = BEGIN.to_string();
        pieces.write(&mut batch, 0);
        batch.push_str("ROLLBACK TRANSACTION;");
        let mut query = Query::new(batch);
        let kinds = self.kinds.get(i).map_or(&[][..], Vec::as_slice);
        for p in 0..pieces.arity() {
            match kinds.get(p).copied().unwrap_or(ParamKind::Int) {
                ParamKind::Int => query.bind(1i64),
                ParamKind::Text => query.bind("1"),
                ParamKind::Timestamp => query.bind("2000-01-01 00:00:00"),
            }
        }
        let returning = self.returning.get(i).copied().unwrap_or(false);
        let mut columns = None;
        let ran = timed(TXN_TIMEOUT, async {
            let mut stream = query.query(client).await?;
            if returning {
                // Its first result set's, told before its rows.
                let told =
                    stream.columns().await?.map_or_else(Vec::new, |c| c.iter().map(ack_column).collect());
                columns = Some(told);
            }
            stream.into_results().await.map(drop)
        })
        .await;
        (columns, ran)
    }

    /// Connects to the target.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached.
    pub async fn open(&self) -> Result<Session, TxnError> {
        let client = super::connect(&self.target).await.map_err(|_| TxnError::LOST)?;
        Ok(Session {
            client: Mutex::new(Box::new(client)),
            statements: self.statements.clone(),
            expected: self.expected.clone(),
            returning: self.returning.clone(),
        })
    }
}

/// The server's complaint when `e` says a statement does not compile; `None` when it is its trial
/// values' fault (a constraint they break).
fn not_compiled(e: &tiberius::error::Error) -> Option<String> {
    match e {
        tiberius::error::Error::Server(s) => {
            let words = s.message();
            let of_values = VALUE_ERRORS.contains(&s.code())
                || words.contains("duplicate key")
                || words.contains("violates");
            (!of_values).then(|| words.to_string())
        }
        other => Some(other.to_string()),
    }
}

/// A returned column's type's name, and whether it may key an acknowledgement (an integer or a text,
/// as [`ack_of`] reads them).
fn ack_column(column: &Column) -> (String, bool) {
    use ColumnType as T;
    let keyed = matches!(
        column.column_type(),
        T::Int1
            | T::Int2
            | T::Int4
            | T::Int8
            | T::Intn
            | T::BigVarChar
            | T::BigChar
            | T::NVarchar
            | T::NChar
            | T::Text
            | T::NText
    );
    let name = match column.column_type() {
        T::Decimaln | T::Numericn => "decimal".to_string(),
        T::Float4 | T::Float8 | T::Floatn => "float".to_string(),
        T::Guid => "uniqueidentifier".to_string(),
        T::Bit | T::Bitn => "bit".to_string(),
        T::Money | T::Money4 => "money".to_string(),
        T::Datetime | T::Datetime4 | T::Datetimen | T::Datetime2 => "datetime".to_string(),
        other => format!("{other:?}").to_lowercase(),
    };
    (name, keyed)
}

/// Ends a transaction an error left open (Babelfish does not always end it under `XACT_ABORT`).
async fn end_open(client: &mut Client) -> Result<(), tiberius::error::Error> {
    client.simple_query("IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION").await?.into_results().await.map(drop)
}

/// A connection that runs a defined workload's transactions.
pub struct Session {
    client: Mutex<Box<Client>>,
    statements: Vec<Pieces>,
    expected: Vec<Option<u64>>,
    returning: Vec<bool>,
}

/// The acknowledgement among a batch's `results`: the first row of the result set between the
/// [`ACK_MARKS`], its integers as integers and anything else as the text [`Ack::value_of_text`]
/// reads; `None` when the statement returned no row.
fn ack_of(results: &[Vec<Row>]) -> Option<Vec<i64>> {
    let marked = |set: &Vec<Row>, mark: &str| {
        set.first().is_some_and(|r| r.columns().first().is_some_and(|c| c.name() == mark))
    };
    let at = results.iter().position(|set| marked(set, ACK_MARKS[0]))?;
    let set = results.get(at + 1).filter(|set| !marked(set, ACK_MARKS[1]))?;
    let row = set.first()?;
    let values = row.cells().take(ACK_VALUES).map(|(_, cell)| match cell {
        ColumnData::U8(v) => v.map_or(0, i64::from),
        ColumnData::I16(v) => v.map_or(0, i64::from),
        ColumnData::I32(v) => v.map_or(0, i64::from),
        ColumnData::I64(v) => v.unwrap_or(0),
        ColumnData::String(t) => Ack::value_of_text(t.as_deref()),
        _ => 0,
    });
    Some(values.collect())
}

impl Session {
    /// Runs `calls` — each a statement's index among the connector's statements and its parameters'
    /// values (a [`Draw::calls`](oltpgen_datagen::defined::Draw::calls)) — as one batch in one
    /// transaction (every result received); on an error the transaction is rolled back.
    ///
    /// It ends in ROLLBACK when `rollback` (a rollback on purpose, counted as
    /// such); a statement whose `@@ROWCOUNT` is not its expected count throws, rolling back.
    ///
    /// # Errors
    /// The server's error, sorted; a fatal one, with nothing sent, when a call names no statement or
    /// gives fewer values than its placeholders take; a fatal one when a statement's rows are not its
    /// expected count, or when the statement that returns the acknowledgement (see
    /// [`Connector::returning`]) returned no row. Beside it, that acknowledgement's key.
    pub async fn run_as(
        &self,
        calls: &[(usize, &[Value])],
        rollback: bool,
    ) -> Result<(Done, Option<Vec<i64>>), TxnError> {
        let fatal = TxnError { fault: Fault::Fatal };
        let mut batch = BEGIN.to_string();
        let mut values = Vec::new();
        let mut acked = false;
        for &(i, given) in calls {
            let pieces = self.statements.get(i).ok_or(fatal)?;
            if given.len() < pieces.arity() {
                return Err(fatal);
            }
            let returns = self.returning.get(i).copied().unwrap_or(false);
            if returns {
                batch.push_str(&format!("SELECT 1 AS {};\n", ACK_MARKS[0]));
            }
            pieces.write(&mut batch, values.len());
            values.extend(&given[..pieces.arity()]);
            if let Some(rows) = self.expected.get(i).copied().flatten() {
                batch.push_str(&format!(
                    "IF @@ROWCOUNT <> {rows} THROW 50041, 'oltpgen: a statement touched other than its {rows} rows', 1;\n"
                ));
            }
            if returns {
                // After the row count's check, which reads the statement's own.
                batch.push_str(&format!("SELECT 1 AS {};\n", ACK_MARKS[1]));
                acked = true;
            }
        }
        batch.push_str(if rollback { "ROLLBACK TRANSACTION;" } else { "COMMIT TRANSACTION;" });
        let mut query = Query::new(batch);
        for v in values {
            match v {
                Value::Int(v) => query.bind(*v),
                Value::Text(t) => query.bind(t.as_str()),
            }
        }
        let mut client = self.client.lock().await;
        let ran = timed(TXN_TIMEOUT, async { query.query(&mut client).await?.into_results().await }).await;
        match ran {
            Ok(results) => {
                let ack = acked.then(|| ack_of(&results));
                match ack {
                    // Nothing it wrote is known: counted as an error of the transaction.
                    Some(None) => Err(fatal),
                    ack => Ok((Done { rolled_back: rollback }, ack.flatten())),
                }
            }
            Err(e) => {
                if matches!(e, tiberius::error::Error::Server(_)) {
                    let _ = timed(TXN_TIMEOUT, end_open(&mut client)).await;
                }
                Err(txn_error(&e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_on_through_the_batch() {
        let first = Pieces::of("UPDATE t SET v = v + $2 WHERE id = $1");
        let second = Pieces::of("INSERT INTO h VALUES ($1, '$1')");
        let mut batch = String::new();
        first.write(&mut batch, 0);
        second.write(&mut batch, 2);
        assert_eq!(batch, "UPDATE t SET v = v + @P2 WHERE id = @P1;\nINSERT INTO h VALUES (@P3, '$1');\n");
        assert_eq!((first.arity(), second.arity()), (2, 1));
    }
}
