//! [`Workload`]: a checked definition interned for the process's life, holding the static table shapes
//! the loader and the DDL take and the statements flattened as a session prepares them.

use std::ops::Range;

use super::check::{index_name, int_range};
use super::named::Links;
use super::{Dialect, Gen, ParamKind, WorkloadDef};
use crate::schema::{Column, Index, TableDef, col};

/// A checked [`WorkloadDef`], leaked once for the process's life (see the [module](super) doc): the
/// table shapes are `&'static` as the loader wants them, and every name borrowed from the definition.
#[derive(Debug)]
pub struct Workload {
    def: &'static WorkloadDef,
    /// The definition as written (its named parameters not yet made positional).
    source: WorkloadDef,
    tables: &'static [TableDef],
    /// The tables' secondary indexes, built after the data.
    indexes: &'static [Index],
    /// The tables loaded empty.
    filled: &'static [&'static str],
    /// The transactions' names, in the definition's order.
    txn_names: &'static [&'static str],
    /// Every transaction's statements, the first transaction's first (a statement that picks, once per
    /// text it picks from), in each dialect: PostgreSQL's, MySQL's, SQL Server's.
    statements: [Vec<&'static str>; 3],
    /// Each of [`Self::statements`]' expected rows.
    expected: Vec<Option<u64>>,
    /// Each of [`Self::statements`]' parameters' kinds.
    kinds: Vec<Vec<ParamKind>>,
    /// Per transaction, where each of its statements is among [`Self::statements`] and in a draw's params.
    slots: Vec<Vec<Slot>>,
    /// Per transaction, which of a draw's values repeat an earlier one (a named parameter used again).
    links: Links,
    /// Each of [`Self::statements`]: whether its first returned row is its transaction's
    /// acknowledgement (an `ack` with `row = true`).
    returning: Vec<bool>,
}

/// Where one statement of a transaction stands: its index among [`Workload::statements`] (what a
/// session prepared), and its parameters' positions among the transaction's drawn values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The statement's index among [`Workload::statements`]: the first of its `choices`.
    pub statement: usize,
    /// Its parameters among a [`Draw`](super::Draw)'s values, `$1` first.
    pub params: Range<usize>,
    /// How many statements it is one of, from `statement` on (its `pick`'s texts; 1 when it picks
    /// nothing): a draw runs one of them.
    pub choices: usize,
}

/// A leaked copy of `text`, for the process's life (see the [module](super) doc).
fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

impl WorkloadDef {
    /// Checks the definition ([`check`](Self::check)) and interns it: leaked, with the table shapes built
    /// from it, for the rest of the process. Call it once per workload a command runs.
    ///
    /// # Errors
    /// [`check`](Self::check)'s line.
    pub fn intern(self) -> Result<&'static Workload, String> {
        self.check()?;
        let source = self.clone();
        let (def, links) = self.positional()?;
        def.check()?;
        let def: &'static WorkloadDef = Box::leak(Box::new(def));
        let tables = def
            .tables
            .iter()
            .map(|t| {
                let columns: Vec<Column> = t.columns.iter().map(|c| col(c.name.as_str(), c.ty.0)).collect();
                let key: Vec<&'static str> = t.primary_key.iter().map(String::as_str).collect();
                TableDef {
                    name: t.name.as_str(),
                    columns: Box::leak(columns.into_boxed_slice()),
                    primary_key: Box::leak(key.into_boxed_slice()),
                }
            })
            .collect::<Vec<_>>();
        let indexes: Vec<Index> = def
            .tables
            .iter()
            .flat_map(|t| {
                t.indexes.iter().enumerate().map(|(i, columns)| {
                    let columns: Vec<&'static str> = columns.iter().map(String::as_str).collect();
                    Index {
                        name: Box::leak(index_name(&t.name, i).into_boxed_str()),
                        table: t.name.as_str(),
                        columns: Box::leak(columns.into_boxed_slice()),
                        unique: false,
                    }
                })
            })
            .collect();
        let mut statements: [Vec<&'static str>; 3] = Default::default();
        let (mut expected, mut kinds) = (Vec::new(), Vec::new());
        let slots: Vec<Vec<Slot>> = def
            .transactions
            .iter()
            .map(|txn| {
                let mut at = 0;
                txn.statements
                    .iter()
                    .map(|s| {
                        let first = statements[0].len();
                        for (i, dialect) in
                            [Dialect::Postgres, Dialect::Mysql, Dialect::Mssql].into_iter().enumerate()
                        {
                            statements[i].extend(s.picked_in(dialect).into_iter().map(leak));
                        }
                        let choices = statements[0].len() - first;
                        expected.extend(std::iter::repeat_n(s.rows, choices));
                        let of_params: Vec<ParamKind> = s.params.iter().map(super::ParamSpec::kind).collect();
                        kinds.extend(std::iter::repeat_n(of_params, choices));
                        at += s.params.len();
                        Slot { statement: first, params: at - s.params.len()..at, choices }
                    })
                    .collect()
            })
            .collect();
        let mut returning = vec![false; statements[0].len()];
        for (txn, slots) in def.transactions.iter().zip(&slots) {
            let Some(ack) = txn.ack.as_ref().filter(|a| a.row) else { continue };
            let slot: &Slot = &slots[ack.statement - 1];
            returning[slot.statement..slot.statement + slot.choices].fill(true);
        }
        let filled: Vec<&'static str> =
            def.tables.iter().filter(|t| t.rows.at_1() == 0).map(|t| t.name.as_str()).collect();
        let txn_names: Vec<&'static str> = def.transactions.iter().map(|t| t.name.as_str()).collect();
        Ok(Box::leak(Box::new(Workload {
            def,
            source,
            filled: Box::leak(filled.into_boxed_slice()),
            txn_names: Box::leak(txn_names.into_boxed_slice()),
            tables: Box::leak(tables.into_boxed_slice()),
            indexes: Box::leak(indexes.into_boxed_slice()),
            statements,
            expected,
            kinds,
            slots,
            links,
            returning,
        })))
    }
}

impl Workload {
    /// The tables' secondary indexes (a definition's `indexes`), built after the data.
    pub fn indexes(&self) -> &'static [Index] {
        self.indexes
    }

    /// Per parameter of transaction `txn`'s statements, flattened: the earlier one whose value it
    /// repeats (a named parameter used again), or `None`.
    pub(super) fn links(&self, txn: usize) -> &[Option<usize>] {
        &self.links[txn]
    }

    /// The definition as written, which a load records and a later run compares with its own.
    pub fn source_def(&self) -> &WorkloadDef {
        &self.source
    }

    /// The definition it was made from, its named parameters made positional.
    pub fn def(&self) -> &'static WorkloadDef {
        self.def
    }

    /// The workload's name, for results and reports.
    pub fn name(&self) -> &'static str {
        &self.def.name
    }

    /// The tables it loads empty (no rows at any scale): those its transactions fill.
    pub fn filled(&self) -> &'static [&'static str] {
        self.filled
    }

    /// Every table's shape, in the definition's order: what the DDL and the loader take.
    pub fn tables(&self) -> &'static [TableDef] {
        self.tables
    }

    /// The transaction its results headline per minute (its index among [`txn_names`](Self::txn_names)),
    /// when the definition names one; TPS is headlined otherwise.
    pub fn per_minute(&self) -> Option<usize> {
        let Some(super::Headline::PerMinute(name)) = &self.def.headline else { return None };
        self.txn_names.iter().position(|t| t == name)
    }

    /// The transactions' names, in the definition's order (a [`Draw`](super::Draw)'s `txn` indexes them).
    pub fn txn_names(&self) -> &'static [&'static str] {
        self.txn_names
    }

    /// Every statement's SQL, the first transaction's first (a statement that picks, once per text):
    /// what a session prepares, in the order [`Slot::statement`] numbers them.
    pub fn statements(&self) -> &[&'static str] {
        &self.statements[0]
    }

    /// Every statement's SQL in `dialect` (each its own there, else its `sql`), in the order of
    /// [`statements`](Self::statements): what a session of that dialect's engine prepares.
    pub fn statements_in(&self, dialect: Dialect) -> Vec<&'static str> {
        let i = match dialect {
            Dialect::Postgres => 0,
            Dialect::Mysql => 1,
            Dialect::Mssql => 2,
        };
        self.statements[i].clone()
    }

    /// Every statement's parameters' kinds, `$1` first, in the order of
    /// [`statements`](Self::statements): what a session binds each as, and checks the server's types
    /// against.
    pub fn param_kinds(&self) -> Vec<Vec<ParamKind>> {
        self.kinds.clone()
    }

    /// Every statement's expected row count (its `rows`), in the order of
    /// [`statements`](Self::statements): what a session checks each against.
    pub fn expected_rows(&self) -> Vec<Option<u64>> {
        self.expected.clone()
    }

    /// Whether each of [`statements`](Self::statements) returns its transaction's acknowledgement as
    /// its first row (the one statement of a transaction a session reads a row of), in their order.
    pub fn returning(&self) -> Vec<bool> {
        self.returning.clone()
    }

    /// How a definition names statement `index` of [`statements`](Self::statements) (from 0):
    /// `transaction deposit, statement 2`, as its checks' errors do.
    pub fn statement_label(&self, index: usize) -> Option<String> {
        self.slots.iter().enumerate().find_map(|(txn, slots)| {
            let at = slots.iter().position(|s| (s.statement..s.statement + s.choices).contains(&index))?;
            Some(format!("transaction {}, statement {}", self.txn_names[txn], at + 1))
        })
    }

    /// Where transaction `txn`'s statements stand (see [`Slot`]).
    ///
    /// # Panics
    /// When `txn` is not a transaction's index.
    pub fn slots(&self, txn: usize) -> &[Slot] {
        &self.slots[txn]
    }

    /// The rows of table `table` (its index) at `scale`, when they can be counted.
    pub fn rows_at(&self, table: usize, scale: u64) -> Option<u64> {
        self.def.tables[table].rows.at(scale).ok()
    }

    /// Whether the workload can be loaded and run at `scale`: at least 1, and every table's rows still
    /// numbered by its sequence columns' types (and by a parameter's 64-bit integer).
    ///
    /// # Errors
    /// One line naming the table and column at fault, and that a smaller scale is the remedy.
    pub fn check_scale(&self, scale: u64) -> Result<(), String> {
        if scale == 0 {
            return Err("scale 0 holds no rows: use a scale of 1 or more".into());
        }
        for table in &self.def.tables {
            let rows =
                table.rows.at(scale).map_err(|e| format!("scale {scale}: table {}: {e}", table.name))?;
            for c in table.columns.iter().filter(|c| c.generator == Gen::Sequence) {
                let top = int_range(c.ty.0).map_or(0, |(_, hi)| hi);
                if rows as i64 > top {
                    return Err(format!(
                        "scale {scale}: table {} would hold {rows} rows, more than column {} ({}) numbers: use \
                         a smaller scale or a wider type",
                        table.name, c.name, c.ty
                    ));
                }
            }
        }
        Ok(())
    }
}
