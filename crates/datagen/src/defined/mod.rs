//! A workload as a value: its name, tables and transactions come from a [`WorkloadDef`] (deserialized
//! from a file at run time, or built in code), so that a workload read at run time is loaded and run
//! like TPC-C.
//!
//! - [`WorkloadDef`] is the definition as written: tables whose columns each have a generator ([`Gen`]),
//!   and weighted transactions of parameterised SQL statements ([`ParamSpec`]). [`WorkloadDef::check`]
//!   refuses a bad one with one line naming the part at fault.
//! - [`WorkloadDef::intern`] checks it and turns it into a [`Workload`]: the static table shapes the
//!   loader and the DDL take ([`TableDef`](crate::schema::TableDef), `&'static` like TPC-C's), and the
//!   statements flattened for a session.
//! - [`DefinedData`] generates its initial database ([`Dataset`](crate::schema::Dataset)), in chunks that
//!   any thread generates in any order with byte-identical results.
//! - [`Mix`] draws the run's transactions by weight, and their parameters.
//!
//! **Interning leaks the definition.** The loader's table shapes are `&'static` (they are constants for
//! the built-in workloads), so a definition read at run time is leaked once, with everything derived
//! from it, and lives as long as the process. A command interns the one workload it runs, a few
//! kilobytes; nothing is ever freed or interned per transaction.
//!
//! In a file (TOML, say), a two-table workload reads:
//!
//! ```toml
//! name = "bank"
//!
//! [[tables]]
//! name = "accounts"
//! rows = 1000                      # at scale 1; a load at scale s writes 1000 × s
//! primary_key = ["id"]
//! columns = [
//!   { name = "id", ty = "int", gen = "sequence" },
//!   { name = "balance", ty = "numeric(12,2)", gen = { uniform = { min = 0, max = 1000 } } },
//!   { name = "owner", ty = "char(8)", gen = { text = { len = 8 } } },
//! ]
//!
//! [[transactions]]
//! name = "deposit"
//! weight = 9
//! statements = [
//!   { sql = "UPDATE accounts SET balance = balance + $2 WHERE id = $1",
//!     params = [{ uniform = { min = 1, rows_of = "accounts" } }, { uniform = { min = 1, max = 100 } }] },
//! ]
//! ```
//!
//! ```
//! use oltpgen_datagen::defined::{ColumnSpec, Gen, ParamSpec, StatementSpec, TableSpec, TxnSpec, WorkloadDef};
//! use oltpgen_datagen::schema::Dataset;
//! let def = WorkloadDef {
//!     name: "tiny".into(),
//!     tables: vec![TableSpec::new("t", 10, &["id"], vec![ColumnSpec::new("id", "int", Gen::Sequence)])],
//!     transactions: vec![TxnSpec::new(
//!         "read",
//!         1,
//!         vec![StatementSpec::new("SELECT id FROM t WHERE id = $1", vec![ParamSpec::rows_of(1, "t")])],
//!     )],
//!     checks: Vec::new(),
//!     headline: None,
//! };
//! let workload = def.intern().unwrap();
//! let data = oltpgen_datagen::defined::DefinedData::new(workload, 3, 1).unwrap();
//! assert_eq!(data.rows_of("t"), 30);
//! ```

mod check;
mod dist;
mod marks;
mod mix;
mod named;
mod rows;
mod workload;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::schema::ColumnType;

pub use check::rewrite_placeholders;
pub use dist::format_timestamp;
pub use mix::{Draw, INSERT_RANGE, Mix};
pub use rows::{CHUNK_ROWS, Chunk, DefinedData};
pub use workload::{Slot, Workload};

/// A workload as written: its name, its tables with how their rows are generated, and its weighted
/// transactions. Check it with [`check`](Self::check); use it through [`intern`](Self::intern).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadDef {
    /// The workload's name, as results and reports show it (an SQL identifier).
    pub name: String,
    /// Its tables, in the order they are created (at least one).
    pub tables: Vec<TableSpec>,
    /// Its transactions, in the order results list them (at least one).
    pub transactions: Vec<TxnSpec>,
    /// Its own consistency checks, which `check` runs after a load or a run (none by default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckSpec>,
    /// What its results headline: TPS when none is given, else one transaction per minute (`headline
    /// = { per_minute = "new_order" }`), as TPC-C headlines New-Orders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<Headline>,
}

/// A defined workload's headline figure, beside TPS.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Headline {
    /// The named transaction's completions per minute, rolled back or not, headlined under its own
    /// name (`new_order per minute`): a standard's name (NOPM) means the standard's figure only.
    PerMinute(String),
}

/// One consistency check of a defined workload: a query whose rows are what breaks it, one text column
/// naming each (no rows: it holds), as TPC-C's consistency conditions are written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// What it asserts, in one line (`every account balance is at least 0`).
    pub name: String,
    /// The query: one text column, a row per offending key.
    pub sql: String,
    /// The query in MySQL's and MariaDB's SQL, where it differs from `sql` (which they run otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql_mysql: Option<String>,
    /// The query in SQL Server's T-SQL, where it differs from `sql` (which it runs otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql_mssql: Option<String>,
}

/// A table: its name, how many rows it has at scale 1, its columns and its primary key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// The table's SQL name (lower case, as the DDL writes it unquoted).
    pub name: String,
    /// Its rows: a number, which a load at scale `s` writes `s` times over (0 for a table the
    /// transactions fill), or an expression of `:scale` in pgbench's language (`"1000 * :scale"`,
    /// `"100000 + :scale"`).
    pub rows: Rows,
    /// Its columns, in the order the DDL and the generator write them.
    pub columns: Vec<ColumnSpec>,
    /// The primary key's columns; empty for none. One of them must be generated as
    /// [`Gen::Sequence`], so that the generated keys never repeat.
    #[serde(default)]
    pub primary_key: Vec<String>,
    /// Its secondary indexes, each a list of columns (`indexes = [["owner"], ["branch", "balance"]]`),
    /// built after the data as the keys are, and named `<table>_i1`, `<table>_i2`, … (none by default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<Vec<String>>,
}

/// How many rows a table holds at a scale: a count per unit of scale, or pgbench's expression of
/// `:scale`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rows {
    /// Rows per unit of scale (`rows = 1000`).
    PerScale(u64),
    /// An expression of `:scale` (`rows = "1000 * :scale"`).
    Expr(String),
}

impl From<u64> for Rows {
    fn from(n: u64) -> Self {
        Rows::PerScale(n)
    }
}

impl Rows {
    /// The rows at `scale`.
    ///
    /// # Errors
    /// An expression that does not parse or evaluate to an integer from 0 to 2^63 - 1, or a count
    /// that overflows; said as what to write instead.
    pub fn at(&self, scale: u64) -> Result<u64, String> {
        let expr = match self {
            Rows::PerScale(n) => {
                return n.checked_mul(scale).filter(|&r| r <= i64::MAX as u64).ok_or_else(|| {
                    format!(
                        "{n} rows per unit of scale at scale {scale} are too many rows: use a smaller scale"
                    )
                });
            }
            Rows::Expr(text) => text,
        };
        let parsed = crate::pgbench::Expr::parse(expr).map_err(|e| {
            format!("rows {expr:?}: {e}: write an expression of :scale in pgbench's language, as \"1000 * :scale\"")
        })?;
        let vars = |name: &str| (name == "scale").then_some(crate::pgbench::Value::Int(scale as i64));
        let value = parsed
            .eval(&vars, &mut crate::Rng::new(0))
            .map_err(|e| format!("rows {expr:?} at scale {scale}: {e}"))?;
        match value {
            crate::pgbench::Value::Int(n) if n >= 0 => Ok(n as u64),
            other => Err(format!(
                "rows {expr:?} at scale {scale} is {other}, not a count: make it an integer of 0 or more"
            )),
        }
    }

    /// The rows at scale 1, or 0 when they cannot be counted ([`WorkloadDef::check`] refuses that).
    pub(crate) fn at_1(&self) -> u64 {
        self.at(1).unwrap_or(0)
    }
}

/// A column: its name, its type and the generator of its values. Every column is NOT NULL.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    /// The column's SQL name.
    pub name: String,
    /// Its type, written as in SQL (`"int"`, `"numeric(12,2)"`, `"varchar(20)"`, …).
    pub ty: SqlType,
    /// How its values are generated (`gen` in a file: `gen` is a reserved word in Rust 2024).
    #[serde(rename = "gen")]
    pub generator: Gen,
}

/// How a column's values are generated, row by row, from the seed (so a load is reproducible).
///
/// Integer generators fill the integer, numeric, date and timestamp columns: a numeric gets the whole
/// number, a date the day that many days after 1970-01-01, a timestamp the second that many seconds
/// after 1970-01-01 00:00:00. Text generators fill `char` and `varchar` columns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Gen {
    /// The row's number, 1 to the table's rows at the load's scale: a key (`gen = "sequence"`).
    Sequence,
    /// A uniform integer in `[min, max]` (`gen = { uniform = { min = 1, max = 100 } }`).
    Uniform {
        /// The smallest value.
        min: i64,
        /// The largest value (included).
        max: i64,
    },
    /// TPC-C's NURand(A, x, y) (`gen = { nurand = { a = 255, min = 0, max = 999 } }`), its constant C
    /// drawn from the load's seed in `[0, A]`.
    Nurand {
        /// A: 255, 1023 or 8191 in TPC-C.
        a: i64,
        /// x.
        min: i64,
        /// y.
        max: i64,
    },
    /// YCSB's zipfian (Gray et al.) over `[min, max]`, `min` the most popular, `P ∝ 1/rank^θ`.
    Zipfian {
        /// The smallest, most popular value.
        min: i64,
        /// The largest value.
        max: i64,
        /// θ, above 0 and below 1 (YCSB's 0.99).
        theta: f64,
    },
    /// pgbench's `random_exponential(min, max, parameter)`.
    Exponential {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
        /// Above 0: the larger, the more the draws crowd at `min`.
        parameter: f64,
    },
    /// pgbench's `random_gaussian(min, max, parameter)`.
    Gaussian {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
        /// At least 2: the standard deviations either side of the range's middle.
        parameter: f64,
    },
    /// A uniform key of another table: 1 to its rows at the load's scale (`gen = { key_of = "items" }`).
    KeyOf(String),
    /// One of the listed values, uniformly (`gen = { choice = ["new", "paid", "sent"] }`).
    Choice(Vec<Value>),
    /// Random letters and digits (TPC-C's a-string; `gen = { text = { len = 20 } }`, or `min_len = 8`
    /// for a length drawn in `[min_len, len]`): a `char(n)` column takes exactly `n`, a `varchar(n)` at
    /// most `n`.
    Text(Chars),
    /// Random digits (TPC-C's n-string; `gen = { digits = { len = 16 } }`, `min_len` as for text).
    Digits(Chars),
    /// The same value in every row (`gen = { constant = 0 }`, `gen = { constant = "new" }`).
    Constant(Value),
    /// A uniform instant in `[from, to]`, to the second, each written `YYYY-MM-DD` or `YYYY-MM-DD
    /// HH:MM:SS` (`gen = { timestamp = { from = "2020-01-01", to = "2024-12-31 23:59:59" } }`), for a
    /// timestamp column.
    Timestamp {
        /// The earliest instant.
        from: String,
        /// The latest instant (included).
        to: String,
    },
    /// YCSB's key of the row: `user` followed by YCSB's FNV hash of its record number (the row's number
    /// less 1), as YCSB's `CoreWorkload` builds keys (`gen = "ycsb_key"`; a `varchar(n)` of n ≥ 24).
    YcsbKey,
}

/// The length of a text generator's values (a column's or a parameter's): `len`, or from `min_len` to
/// `len`, drawn uniformly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chars {
    /// The most characters per value.
    pub len: u16,
    /// The fewest (default: `len`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_len: Option<u16>,
}

/// A constant column value, or a transaction parameter's drawn value: an integer or a text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// For integer, numeric, date and timestamp columns (see [`Gen`]).
    Int(i64),
    /// For `char` and `varchar` columns.
    Text(String),
}

impl Value {
    /// The integer, when it is one.
    pub fn int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Text(_) => None,
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.to_string())
    }
}

/// What a parameter's draws are, so that each engine binds them as what the server expects and says so
/// when the statement's parameter is of another type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// 64-bit integers ([`Value::Int`]).
    Int,
    /// Texts ([`Value::Text`]): an a-string, an n-string, a choice of texts.
    Text,
    /// Instants, as texts written `YYYY-MM-DD HH:MM:SS` (a `timestamp` parameter): bound as a timestamp
    /// or date where the server takes one, as text elsewhere.
    Timestamp,
}

/// A transaction: its name, its share of the mix and its statements, run in order in one transaction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TxnSpec {
    /// The name results and reports give its figures (an SQL identifier).
    pub name: String,
    /// Its weight in the mix: it is drawn `weight / Σ weights` of the time (more than 0).
    pub weight: u32,
    /// Its statements, run in order in one transaction (at least one).
    pub statements: Vec<StatementSpec>,
    /// Its named parameters, drawn once per transaction and written `:name` in any of its statements
    /// (the same value in each): `params = { customer = { uniform = { min = 1, rows_of = "customers" } } }`.
    /// A statement uses either names or `$n` with its own `params` list, not both.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, ParamSpec>,
    /// Its keying time in seconds, waited before it runs (TPC-C's 5.2.5.2; none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keying_s: Option<f64>,
    /// The mean of its think time in seconds, negative exponential as TPC-C's, after it runs (default:
    /// the run's `--think-time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_s: Option<f64>,
    /// The share of its runs, in percent, that roll back rather than commit, on purpose (TPC-C's
    /// New-Order rolls back 1%); counted as rolled back, not as errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_pct: Option<f64>,
    /// Its acknowledgement for lost commits, if it names one: which statement's parameters are the
    /// committed key, and the query that reads those keys back after a failover (none: its commits
    /// are not counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack: Option<AckSpec>,
}

/// How many values an acknowledgement's key keeps at most (TPC-C's order: warehouse, district, id,
/// customer and line count), which a transaction's acknowledging statement's parameters must fit.
pub const ACK_VALUES: usize = 5;

/// Whether a statement returning `columns` columns can key an acknowledgement by their number: at
/// most [`ACK_VALUES`] (what a server tells where it tells no types; [`ack_columns`] where it does).
///
/// # Errors
/// What to write instead, for too many.
pub fn ack_width(columns: usize) -> Result<(), String> {
    match columns > ACK_VALUES {
        true => Err(format!(
            "ack row = true, but it returns {columns} columns; a key keeps at most {ACK_VALUES}: return fewer"
        )),
        false => Ok(()),
    }
}

/// Whether a statement whose returned columns are `columns` (each its type's name, and whether that
/// type is an integer or a text) can key an acknowledgement (`ack = { row = true }`): one to
/// [`ACK_VALUES`] of them, each an integer or a text. `returning` names the clause that returns them in
/// the engine's SQL. Each engine asks it where its server tells the columns before a run.
///
/// # Errors
/// What to write instead, for a statement of no columns, too many, or one of another type.
pub fn ack_columns(columns: &[(String, bool)], returning: &str) -> Result<(), String> {
    if columns.is_empty() {
        return Err(format!(
            "ack row = true, but it returns no columns: add {returning} with the key's columns"
        ));
    }
    ack_width(columns.len())?;
    match columns.iter().find(|(_, keyed)| !keyed) {
        Some((name, _)) => Err(format!(
            "ack row = true, but it returns a {name} column: return integer or text columns (cast it)"
        )),
        None => Ok(()),
    }
}

/// A transaction's acknowledgement: its statement `statement` (from 1), whose parameters as drawn
/// (`$1` first, at most five) are the key of what it committed, or with `row = true` the first row it
/// returns (a key the server makes: `INSERT … RETURNING id`, T-SQL's `OUTPUT INSERTED.id`), and `check`, a query of one text
/// column yielding each key the database holds, its values joined by commas in the same order
/// (`SELECT CONCAT_WS(',', customer, item, qty) AS k FROM orders`). Alike keys are counted, so a
/// table without a key of its own will do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckSpec {
    /// The statement, counting the transaction's from 1.
    pub statement: usize,
    /// Whether the key is the first row the statement returns (integer columns as integers, texts as
    /// the acknowledgement's `Ack::value_of_text` reads them; at most five) rather than its parameters as
    /// drawn: a key only the server knows, such as an identity. A run of it that returns no row is
    /// an error of the transaction, not a commit left unacknowledged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub row: bool,
    /// The lookup: every key the database holds, one text column.
    pub check: String,
    /// The lookup in MySQL's and MariaDB's SQL, where it differs from `check`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_mysql: Option<String>,
    /// The lookup in SQL Server's T-SQL, where it differs from `check`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_mssql: Option<String>,
}

impl AckSpec {
    /// The lookup in `dialect`.
    pub fn check_in(&self, dialect: Dialect) -> &str {
        dialect.pick(&self.check, &self.check_mysql, &self.check_mssql)
    }
}

/// One statement of a transaction: SQL with placeholders `$1` to `$n` and the `n` parameters' draws.
///
/// The placeholders are oltpgen's, whatever the engine: each engine's session rewrites them into its
/// own (`?` on MySQL, `@P1` on SQL Server). Where the dialects differ, `sql_mysql` and `sql_mssql` give
/// the statement in MySQL's or T-SQL's words, with the same placeholders.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatementSpec {
    /// The SQL, one statement, with `$1` … `$n` for the parameters (each used at least once): what
    /// PostgreSQL runs, and the other engines where they have no SQL of their own.
    pub sql: String,
    /// The statement in MySQL's and MariaDB's SQL, where it differs from `sql`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql_mysql: Option<String>,
    /// The statement in SQL Server's T-SQL, where it differs from `sql`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql_mssql: Option<String>,
    /// How each parameter is drawn, `$1` first.
    #[serde(default)]
    pub params: Vec<ParamSpec>,
    /// The rows it must touch (an UPDATE's or DELETE's) or return (a SELECT's): any other count is an
    /// error, and the transaction rolls back (none: any count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// A part of the SQL no parameter can be (a column's name), chosen per run of the transaction:
    /// `pick = { field = ["field0", "field1"] }` runs the statement with `{field}` written as one of the
    /// texts, uniformly. Each text makes a statement of its own, which sessions prepare beside the
    /// others (none by default: the SQL as written).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pick: BTreeMap<String, Vec<String>>,
}

/// How a statement's parameter is drawn for each transaction: an integer, or a text (`text`, `digits`,
/// a `choice` of texts, a `timestamp`), bound as each engine's text (see [`ParamKind`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ParamSpec {
    /// A uniform integer in `[min, max]`, where the top is either `max` or, with `rows_of`, the rows that
    /// table holds at the run's scale, so that keys stay inside the loaded rows at any scale (exactly
    /// one of the two is given).
    Uniform {
        /// The smallest value.
        min: i64,
        /// The largest value (included).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
        /// The table whose row count at the run's scale is the largest value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rows_of: Option<String>,
    },
    /// TPC-C's NURand(A, min, max), its constant C fixed for the run from A; the top as for `uniform`.
    Nurand {
        /// A.
        a: i64,
        /// The smallest value.
        min: i64,
        /// The largest value (or `rows_of`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
        /// The table whose rows are the largest value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rows_of: Option<String>,
    },
    /// YCSB's zipfian (Gray et al.), `min` the most popular; the top as for `uniform`.
    Zipfian {
        /// The smallest, most popular value.
        min: i64,
        /// The largest value (or `rows_of`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
        /// The table whose rows are the largest value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rows_of: Option<String>,
        /// θ, above 0 and below 1.
        theta: f64,
    },
    /// pgbench's `random_exponential`; the top as for `uniform`.
    Exponential {
        /// The smallest value.
        min: i64,
        /// The largest value (or `rows_of`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
        /// The table whose rows are the largest value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rows_of: Option<String>,
        /// Above 0.
        parameter: f64,
    },
    /// pgbench's `random_gaussian`; the top as for `uniform`.
    Gaussian {
        /// The smallest value.
        min: i64,
        /// The largest value (or `rows_of`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
        /// The table whose rows are the largest value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rows_of: Option<String>,
        /// At least 2.
        parameter: f64,
    },
    /// One of the listed values, uniformly: integers, or texts (`choice = ["new", "paid"]`).
    Choice(Vec<Value>),
    /// The same value every time: an integer or a text.
    Constant(Value),
    /// Random letters and digits, TPC-C's a-string (`text = { len = 100 }`, or `min_len = 8` for a
    /// length drawn in `[min_len, len]`), bound as text.
    Text(Chars),
    /// Random digits, TPC-C's n-string (`digits = { len = 16 }`, `min_len` as for text), bound as text.
    Digits(Chars),
    /// A uniform instant in `[from, to]`, to the second, each written `YYYY-MM-DD` or `YYYY-MM-DD
    /// HH:MM:SS`, drawn as the text `YYYY-MM-DD HH:MM:SS` (`timestamp = { from = "2024-01-01", to =
    /// "2024-12-31" }`): bound as a timestamp or a date where the server takes one.
    Timestamp {
        /// The earliest instant.
        from: String,
        /// The latest instant (included).
        to: String,
    },
    /// A YCSB record of table `rows_of` drawn as `request` says, bound as YCSB's FNV hash of its record
    /// number: the SQL makes the key, `'user' || CAST($1 AS bigint)` (`ycsb = { request = "zipfian",
    /// rows_of = "usertable" }`).
    Ycsb {
        /// Which record: YCSB's request distribution, or a new record to insert.
        request: YcsbRequest,
        /// The table of YCSB keys (its rows are the loaded records).
        rows_of: String,
    },
}

/// Which YCSB record a [`ParamSpec::Ycsb`] draws, as YCSB's `requestdistribution` names them, or the
/// record an insert makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum YcsbRequest {
    /// Every record alike (`uniform`).
    Uniform,
    /// YCSB's scrambled zipfian, θ = 0.99 (`zipfian`, workloads A, B, C, E and F).
    Zipfian,
    /// The latest inserted the most popular (`latest`, workload D): the loaded records and the ones
    /// this process inserted.
    Latest,
    /// The next new record: past the loaded ones, in a range of this run's and this agent's own, so
    /// that agents and later runs never insert the same key.
    Insert,
}

impl ParamSpec {
    /// The range of a drawn parameter: its `min`, `max` and `rows_of`; `None` for a choice or a constant.
    pub(crate) fn range(&self) -> Option<(i64, Option<i64>, Option<&str>)> {
        match self {
            ParamSpec::Uniform { min, max, rows_of }
            | ParamSpec::Nurand { min, max, rows_of, .. }
            | ParamSpec::Zipfian { min, max, rows_of, .. }
            | ParamSpec::Exponential { min, max, rows_of, .. }
            | ParamSpec::Gaussian { min, max, rows_of, .. } => Some((*min, *max, rows_of.as_deref())),
            ParamSpec::Choice(_)
            | ParamSpec::Constant(_)
            | ParamSpec::Ycsb { .. }
            | ParamSpec::Text(_)
            | ParamSpec::Digits(_)
            | ParamSpec::Timestamp { .. } => None,
        }
    }

    /// What its draws are: integers, texts or instants.
    pub fn kind(&self) -> ParamKind {
        let text = |v: &Value| matches!(v, Value::Text(_));
        match self {
            ParamSpec::Text(_) | ParamSpec::Digits(_) => ParamKind::Text,
            ParamSpec::Constant(v) if text(v) => ParamKind::Text,
            ParamSpec::Choice(values) if values.iter().any(text) => ParamKind::Text,
            ParamSpec::Timestamp { .. } => ParamKind::Timestamp,
            _ => ParamKind::Int,
        }
    }
}

impl TableSpec {
    /// A table of `rows` rows at scale 1 keyed by `primary_key`, for a definition built in code.
    pub fn new(name: &str, rows: u64, primary_key: &[&str], columns: Vec<ColumnSpec>) -> Self {
        let primary_key = primary_key.iter().map(|k| k.to_string()).collect();
        TableSpec { name: name.into(), rows: Rows::PerScale(rows), columns, primary_key, indexes: Vec::new() }
    }
}

impl ColumnSpec {
    /// A column whose type is written as in SQL (`"int"`, `"varchar(20)"`), for a definition built in code.
    ///
    /// # Panics
    /// When `ty` is not a type [`SqlType`] reads: a mistake in the code, not in input.
    pub fn new(name: &str, ty: &str, generator: Gen) -> Self {
        ColumnSpec { name: name.into(), ty: ty.parse().unwrap_or_else(|e| panic!("{e}")), generator }
    }
}

impl TxnSpec {
    /// A transaction of `statements` drawn `weight` times in `Σ weights`, for a definition built in code.
    pub fn new(name: &str, weight: u32, statements: Vec<StatementSpec>) -> Self {
        TxnSpec {
            name: name.into(),
            weight,
            statements,
            params: BTreeMap::new(),
            keying_s: None,
            think_s: None,
            rollback_pct: None,
            ack: None,
        }
    }
}

impl StatementSpec {
    /// A statement and its parameters' draws, `$1` first, for a definition built in code.
    pub fn new(sql: &str, params: Vec<ParamSpec>) -> Self {
        StatementSpec {
            sql: sql.into(),
            sql_mysql: None,
            sql_mssql: None,
            params,
            rows: None,
            pick: BTreeMap::new(),
        }
    }

    /// The statement's SQL in `dialect`: its own there, else `sql`.
    pub fn sql_in(&self, dialect: Dialect) -> &str {
        dialect.pick(&self.sql, &self.sql_mysql, &self.sql_mssql)
    }

    /// The statement's SQL texts in `dialect`, one per text of its `pick` (its `{name}` written as it), in
    /// the pick's order; the one SQL when it picks nothing.
    pub fn picked_in(&self, dialect: Dialect) -> Vec<String> {
        let sql = self.sql_in(dialect);
        match self.pick.iter().next() {
            Some((name, texts)) => texts.iter().map(|t| sql.replace(&format!("{{{name}}}"), t)).collect(),
            None => vec![sql.to_string()],
        }
    }

    /// Each dialect's SQL the statement gives, named as a file names it (`sql`, `sql_mysql`, `sql_mssql`).
    pub(crate) fn variants(&self) -> impl Iterator<Item = (&'static str, &str)> {
        dialect_variants(&self.sql, &self.sql_mysql, &self.sql_mssql)
    }
}

impl CheckSpec {
    /// A check named `name` whose offending rows `sql` returns, on every engine alike.
    pub fn new(name: &str, sql: &str) -> Self {
        CheckSpec { name: name.into(), sql: sql.into(), sql_mysql: None, sql_mssql: None }
    }

    /// The check's query in `dialect`: its own there, else `sql`.
    pub fn sql_in(&self, dialect: Dialect) -> &str {
        dialect.pick(&self.sql, &self.sql_mysql, &self.sql_mssql)
    }
}

/// The SQL dialect an engine speaks, so that a definition gives a statement or check in each engine's
/// words where they differ (`sql` is PostgreSQL's, and everyone's where no other is given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// PostgreSQL's SQL: `sql`.
    Postgres,
    /// MySQL's and MariaDB's: `sql_mysql`, else `sql`.
    Mysql,
    /// SQL Server's T-SQL (Babelfish's too): `sql_mssql`, else `sql`.
    Mssql,
}

impl Dialect {
    /// Of `sql`, `mysql` and `mssql`, the one this dialect runs.
    fn pick<'a>(self, sql: &'a str, mysql: &'a Option<String>, mssql: &'a Option<String>) -> &'a str {
        let own = match self {
            Dialect::Postgres => None,
            Dialect::Mysql => mysql.as_deref(),
            Dialect::Mssql => mssql.as_deref(),
        };
        own.unwrap_or(sql)
    }
}

/// The seconds from 1970-01-01 00:00:00 to `text`, written `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`
/// (years 1 to 9999); `None` for anything else.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let (date, time) = text.trim().split_once(' ').unwrap_or((text.trim(), "00:00:00"));
    let num = |s: &str, lo: i64, hi: i64| {
        let v: i64 = s.parse().ok().filter(|_| s.bytes().all(|b| b.is_ascii_digit()))?;
        (lo..=hi).contains(&v).then_some(v)
    };
    let d: Vec<&str> = date.split('-').collect();
    let t: Vec<&str> = time.trim().split(':').collect();
    let ([y, m, day], [h, min, sec]) = (d.as_slice(), t.as_slice()) else { return None };
    let (y, m, day) = (num(y, 1, 9999)?, num(m, 1, 12)?, num(day, 1, 31)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if day > month_days[m as usize - 1] {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm), 1970-01-01 day 0.
    let yy = if m <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + num(h, 0, 23)? * 3600 + num(min, 0, 59)? * 60 + num(sec, 0, 59)?)
}

/// The first 60 characters of `sql`, on one line: how an engine names a statement in an error.
pub fn abbreviated(sql: &str) -> String {
    let line: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// The SQL texts given, with the key a file writes each under.
fn dialect_variants<'a>(
    sql: &'a str,
    mysql: &'a Option<String>,
    mssql: &'a Option<String>,
) -> impl Iterator<Item = (&'static str, &'a str)> {
    [("sql", Some(sql)), ("sql_mysql", mysql.as_deref()), ("sql_mssql", mssql.as_deref())]
        .into_iter()
        .filter_map(|(key, sql)| Some((key, sql?)))
}

impl ParamSpec {
    /// A uniform draw in `[min, max]`.
    pub fn uniform(min: i64, max: i64) -> Self {
        ParamSpec::Uniform { min, max: Some(max), rows_of: None }
    }

    /// A uniform draw from `min` to the rows of `table` at the run's scale: a key of a loaded row.
    pub fn rows_of(min: i64, table: &str) -> Self {
        ParamSpec::Uniform { min, max: None, rows_of: Some(table.to_string()) }
    }
}

/// A column's type as a definition writes it: a [`ColumnType`] read from and written as its SQL
/// spelling (`int`, `smallint`, `numeric(p,s)`, `char(n)`, `varchar(n)`, `timestamp`, `date`), so a file
/// reads like DDL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SqlType(pub ColumnType);

impl FromStr for SqlType {
    type Err = String;

    /// Case and spaces do not matter; `integer`/`int4`, `int2` and `decimal` are accepted as their synonyms.
    fn from_str(s: &str) -> Result<Self, String> {
        let spelled: String =
            s.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        let (word, args) = match spelled.split_once('(') {
            Some((word, rest)) => {
                let inner = rest.strip_suffix(')').ok_or_else(|| unknown_type(s))?;
                let args: Result<Vec<u16>, _> = inner.split(',').map(str::parse).collect();
                (word, args.map_err(|_| unknown_type(s))?)
            }
            None => (spelled.as_str(), Vec::new()),
        };
        let ty = match (word, args.as_slice()) {
            ("int" | "integer" | "int4", []) => ColumnType::Int4,
            ("smallint" | "int2", []) => ColumnType::Int2,
            ("numeric" | "decimal", [p]) => ColumnType::Numeric { precision: precision(*p, s)?, scale: 0 },
            ("numeric" | "decimal", [p, sc]) if sc <= p => {
                ColumnType::Numeric { precision: precision(*p, s)?, scale: *sc as u8 }
            }
            ("char" | "character", [n]) if *n > 0 => ColumnType::Char(*n),
            ("varchar", [n]) if *n > 0 => ColumnType::Varchar(*n),
            ("timestamp", []) => ColumnType::Timestamp,
            ("date", []) => ColumnType::Date,
            ("bigint" | "int8", []) => ColumnType::Int8,
            ("float" | "float8" | "doubleprecision" | "double", []) => ColumnType::Float8,
            ("bool" | "boolean", []) => ColumnType::Bool,
            ("text", []) => ColumnType::Text,
            _ => return Err(unknown_type(s)),
        };
        Ok(SqlType(ty))
    }
}

/// The largest numeric precision a definition may declare: every generated value must fit an `i64`
/// once scaled, and most engines stop at 38 digits.
const MAX_PRECISION: u16 = 38;

fn precision(p: u16, spelled: &str) -> Result<u8, String> {
    if (1..=MAX_PRECISION).contains(&p) { Ok(p as u8) } else { Err(unknown_type(spelled)) }
}

fn unknown_type(s: &str) -> String {
    format!(
        "type {s:?} is not one oltpgen generates: use int, smallint, bigint, numeric(p,s) (p from 1 to \
         {MAX_PRECISION}), float, bool, char(n), varchar(n), text, timestamp or date"
    )
}

impl TryFrom<String> for SqlType {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<SqlType> for String {
    fn from(t: SqlType) -> String {
        t.to_string()
    }
}

impl fmt::Display for SqlType {
    /// The canonical spelling, which [`FromStr`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ColumnType::Int4 => f.write_str("int"),
            ColumnType::Int2 => f.write_str("smallint"),
            ColumnType::Numeric { precision, scale } => write!(f, "numeric({precision},{scale})"),
            ColumnType::Char(n) => write!(f, "char({n})"),
            ColumnType::Varchar(n) => write!(f, "varchar({n})"),
            ColumnType::Timestamp => f.write_str("timestamp"),
            ColumnType::Date => f.write_str("date"),
            ColumnType::Int8 => f.write_str("bigint"),
            ColumnType::Float8 => f.write_str("float"),
            ColumnType::Bool => f.write_str("bool"),
            ColumnType::Text => f.write_str("text"),
        }
    }
}

#[cfg(test)]
mod tests;
