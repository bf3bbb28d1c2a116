//! Tables as data, shared by every workload: columns in generation order, primary keys, secondary
//! indexes, and [`Dataset`], the shape of a database that generates itself in independent chunks.
//!
//! Each database backend renders its own DDL from these values, so the generators and every backend
//! agree on one column list, and one loader serves every workload.

use std::collections::BTreeMap;
use std::fmt;

use crate::encode::RowEncoder;

/// A column's SQL type, in the specs' terms; backends map each to their nearest type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// A 32-bit signed integer (identifiers and small counts).
    Int4,
    /// A 16-bit signed integer: where a reference schema declares `smallint` and clients read it as
    /// such (DS2's category, special, region, age, line numbers and quantities).
    Int2,
    /// An exact decimal with `precision` digits of which `scale` follow the point (money, rates).
    Numeric {
        /// Total significant digits.
        precision: u8,
        /// Digits after the decimal point.
        scale: u8,
    },
    /// Fixed-length text (TPC-C's "fixed text, size N"); generated values are exactly N bytes.
    Char(u16),
    /// Variable-length text of at most N bytes.
    Varchar(u16),
    /// A date and time without time zone, to the microsecond.
    Timestamp,
    /// A calendar date (DS2's order dates).
    Date,
    /// A 64-bit signed integer (a defined workload's `bigint`; pgbench's account ids from scale
    /// 20,000).
    Int8,
    /// A double-precision float (a defined workload's `float`).
    Float8,
    /// A boolean (a defined workload's `bool`).
    Bool,
    /// Text of any length (a defined workload's `text`; SQL Server's `varchar(max)`).
    Text,
}

/// One column of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The spec's column name, lower case (`w_id`).
    pub name: &'static str,
    /// Its type.
    pub ty: ColumnType,
    /// Whether the loader may write NULL.
    pub nullable: bool,
}

/// A table: its name, its columns in the order the generators write them, and its primary key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableDef {
    /// The table's SQL name.
    pub name: &'static str,
    /// The columns, in generation order.
    pub columns: &'static [Column],
    /// The primary key's columns; empty for a table without one (TPC-C's history).
    pub primary_key: &'static [&'static str],
}

impl TableDef {
    /// The column count, as [`RowEncoder::begin_row`] takes it.
    pub fn width(&self) -> u16 {
        self.columns.len() as u16
    }

    /// The column names, in generation order (the column list of a `COPY`).
    pub fn column_names(&self) -> Vec<&'static str> {
        self.columns.iter().map(|c| c.name).collect()
    }

    /// A rough width of a row on the wire, to weigh tables against each other when scheduling a load.
    pub fn row_bytes(&self) -> u64 {
        self.columns
            .iter()
            .map(|c| match c.ty {
                ColumnType::Int2 => 6,
                ColumnType::Int4 | ColumnType::Date => 8,
                ColumnType::Numeric { .. } | ColumnType::Timestamp => 12,
                ColumnType::Char(n) | ColumnType::Varchar(n) => 4 + u64::from(n),
                ColumnType::Int8 | ColumnType::Float8 => 12,
                ColumnType::Bool => 5,
                ColumnType::Text => 104,
            })
            .sum()
    }
}

/// A secondary index that the transactions need to avoid full scans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Index {
    /// The index's name, unique in the database.
    pub name: &'static str,
    /// The indexed table's name.
    pub table: &'static str,
    /// Indexed columns, in order.
    pub columns: &'static [&'static str],
    /// Whether the index may be declared unique.
    pub unique: bool,
}

/// A workload's initial database, as independent chunks that any thread can generate in any order
/// with byte-identical results. The loader (and the CSV writer) are written once against this.
pub trait Dataset: Send + Sync + 'static {
    /// One unit of generation work: a table and which of its rows.
    type Chunk: Copy + Send + Sync + fmt::Debug + 'static;

    /// Every table, in the spec's order.
    fn tables(&self) -> &'static [TableDef];

    /// The secondary indexes, built after the data (engine-specific ones, such as full-text indexes,
    /// are the backend's).
    fn indexes(&self) -> &'static [Index];

    /// Every chunk of the database, each once, biggest tables first.
    fn chunks(&self) -> Vec<Self::Chunk>;

    /// The table `chunk`'s rows belong to.
    fn table_of(&self, chunk: Self::Chunk) -> &'static TableDef;

    /// The exact number of rows [`write`](Self::write) writes for `chunk`, without generating them.
    fn rows_in(&self, chunk: Self::Chunk) -> u64;

    /// Writes the rows of `chunk` to `out`, in key order and in the column order of its table.
    fn write<E: RowEncoder>(&self, chunk: Self::Chunk, out: &mut E);

    /// The rows of every table, counted in one pass over the chunks (a table without chunks has 0).
    fn rows_by_table(&self) -> BTreeMap<&'static str, u64> {
        let mut rows: BTreeMap<_, _> = self.tables().iter().map(|t| (t.name, 0)).collect();
        for c in self.chunks() {
            *rows.entry(self.table_of(c).name).or_default() += self.rows_in(c);
        }
        rows
    }

    /// The rows of the whole database.
    fn total_rows(&self) -> u64 {
        self.rows_by_table().values().sum()
    }

    /// The rows of one table.
    fn rows_of(&self, table: &str) -> u64 {
        self.rows_by_table().get(table).copied().unwrap_or(0)
    }

    /// Where `chunk` lies when a load is spread over parts (`load --agent I/N`): `Some((u, n))` for
    /// unit `u` of `n` (part `u * N / n` loads it: TPC-C's warehouse, so parts take contiguous
    /// warehouse ranges), `Some((0, 1))` for rows part 0 loads whole; `None` (the default) spreads a
    /// table's chunks over the parts in the order [`chunks`](Self::chunks) gives them.
    fn share(&self, chunk: Self::Chunk) -> Option<(u32, u32)> {
        let _ = chunk;
        None
    }
}

/// An `int4` column.
pub const fn int(name: &'static str) -> Column {
    col(name, ColumnType::Int4)
}
/// A `bigint` column.
pub const fn big(name: &'static str) -> Column {
    col(name, ColumnType::Int8)
}
/// A `smallint` column.
pub const fn small(name: &'static str) -> Column {
    col(name, ColumnType::Int2)
}
/// A `numeric(precision, scale)` column.
pub const fn num(name: &'static str, precision: u8, scale: u8) -> Column {
    col(name, ColumnType::Numeric { precision, scale })
}
/// A `char(len)` column.
pub const fn chr(name: &'static str, len: u16) -> Column {
    col(name, ColumnType::Char(len))
}
/// A `varchar(len)` column.
pub const fn var(name: &'static str, len: u16) -> Column {
    col(name, ColumnType::Varchar(len))
}
/// A `timestamp` column.
pub const fn ts(name: &'static str) -> Column {
    col(name, ColumnType::Timestamp)
}
/// A `date` column.
pub const fn date(name: &'static str) -> Column {
    col(name, ColumnType::Date)
}
/// A NOT NULL column of type `ty`.
pub const fn col(name: &'static str, ty: ColumnType) -> Column {
    Column { name, ty, nullable: false }
}
/// `c`, allowed to be NULL.
pub const fn nullable(c: Column) -> Column {
    Column { nullable: true, ..c }
}
