//! Test support shared by the workloads' generator tests: an encoder that checks every value against
//! its column, and one that captures rows to read them back by column name.

use crate::encode::RowEncoder;
use crate::schema::{Column, ColumnType, TableDef};

/// Checks every value against its column as it is written: type, nullability, text length, numeric
/// scale and precision. Counts rows.
pub struct Checker {
    table: &'static TableDef,
    at: usize,
    /// Rows written.
    pub rows: u64,
}

impl Checker {
    /// A checker for rows of `table`.
    pub fn new(table: &'static TableDef) -> Self {
        Checker { table, at: 0, rows: 0 }
    }

    fn next(&mut self) -> Column {
        let column = *self
            .table
            .columns
            .get(self.at)
            .unwrap_or_else(|| panic!("{}: more fields than columns", self.table.name));
        self.at += 1;
        column
    }
}

impl RowEncoder for Checker {
    fn begin_row(&mut self, columns: u16) {
        assert_eq!(usize::from(columns), self.table.columns.len(), "{}", self.table.name);
        self.at = 0;
    }
    fn int4(&mut self, _: i32) {
        let c = self.next();
        assert_eq!(c.ty, ColumnType::Int4, "{}", c.name);
    }
    fn int8(&mut self, _: i64) {
        let c = self.next();
        assert_eq!(c.ty, ColumnType::Int8, "{}", c.name);
    }
    fn int2(&mut self, _: i16) {
        let c = self.next();
        assert_eq!(c.ty, ColumnType::Int2, "{}", c.name);
    }
    fn numeric(&mut self, unscaled: i64, scale: u8) {
        let c = self.next();
        let ColumnType::Numeric { precision, scale: s } = c.ty else { panic!("{} is not numeric", c.name) };
        assert_eq!(scale, s, "{}", c.name);
        assert!(unscaled.unsigned_abs() < 10u64.pow(u32::from(precision)), "{}", c.name);
    }
    fn text(&mut self, v: &[u8]) {
        let c = self.next();
        match c.ty {
            ColumnType::Char(n) => assert_eq!(v.len(), usize::from(n), "{}", c.name),
            ColumnType::Varchar(n) => assert!(v.len() <= usize::from(n), "{}", c.name),
            ColumnType::Text => {}
            other => panic!("{} is {other:?}, not text", c.name),
        }
        assert!(!v.is_empty() && v.is_ascii(), "{}", c.name);
    }
    fn float8(&mut self, _: f64) {
        let c = self.next();
        assert_eq!(c.ty, ColumnType::Float8, "{}", c.name);
    }
    fn bool(&mut self, _: bool) {
        let c = self.next();
        assert_eq!(c.ty, ColumnType::Bool, "{}", c.name);
    }
    fn timestamp_us(&mut self, _: i64) {
        let c = self.next();
        assert_eq!(c.ty, ColumnType::Timestamp, "{}", c.name);
    }
    fn date(&mut self, _: i32) {
        let c = self.next();
        assert_eq!(c.ty, ColumnType::Date, "{}", c.name);
    }
    fn null(&mut self) {
        let c = self.next();
        assert!(c.nullable, "{} is not nullable", c.name);
    }
    fn end_row(&mut self) {
        assert_eq!(self.at, self.table.columns.len(), "{}: too few fields", self.table.name);
        self.rows += 1;
    }
}

/// A written value, for tests that read rows back.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    /// An int4.
    Int(i32),
    /// An int8.
    Big(i64),
    /// A numeric, unscaled.
    Num(i64),
    /// Text.
    Text(Vec<u8>),
    /// A timestamp, µs since 1970.
    Ts(i64),
    /// A date, days since 1970.
    Date(i32),
    /// NULL.
    Null,
}

impl V {
    /// The int4, or a panic.
    pub fn int(&self) -> i32 {
        match self {
            V::Int(v) => *v,
            other => panic!("{other:?} is not an int"),
        }
    }
    /// The unscaled numeric, or a panic.
    pub fn num(&self) -> i64 {
        match self {
            V::Num(v) => *v,
            other => panic!("{other:?} is not a numeric"),
        }
    }
    /// The text, or a panic.
    pub fn text(&self) -> &[u8] {
        match self {
            V::Text(v) => v,
            other => panic!("{other:?} is not text"),
        }
    }
}

/// Rows read back, as named columns.
pub struct Rows {
    /// Their table.
    pub table: &'static TableDef,
    /// The values, row by row.
    pub rows: Vec<Vec<V>>,
}

impl Rows {
    /// The position of column `name`.
    pub fn col(&self, name: &str) -> usize {
        self.table
            .columns
            .iter()
            .position(|c| c.name == name)
            .unwrap_or_else(|| panic!("{} has no {name}", self.table.name))
    }
    /// The values of column `name`, one per row.
    pub fn get<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a V> + 'a {
        let i = self.col(name);
        self.rows.iter().map(move |r| &r[i])
    }
    /// The int4 values of column `name`.
    pub fn ints(&self, name: &str) -> Vec<i32> {
        self.get(name).map(V::int).collect()
    }
}

/// An encoder that keeps every row.
#[derive(Default)]
pub struct Capture {
    /// The rows written.
    pub rows: Vec<Vec<V>>,
    row: Vec<V>,
}

impl RowEncoder for Capture {
    fn begin_row(&mut self, columns: u16) {
        self.row = Vec::with_capacity(usize::from(columns));
    }
    fn int4(&mut self, v: i32) {
        self.row.push(V::Int(v));
    }
    fn int8(&mut self, v: i64) {
        self.row.push(V::Big(v));
    }
    fn numeric(&mut self, unscaled: i64, _: u8) {
        self.row.push(V::Num(unscaled));
    }
    fn text(&mut self, v: &[u8]) {
        self.row.push(V::Text(v.to_vec()));
    }
    fn timestamp_us(&mut self, v: i64) {
        self.row.push(V::Ts(v));
    }
    fn date(&mut self, v: i32) {
        self.row.push(V::Date(v));
    }
    fn null(&mut self) {
        self.row.push(V::Null);
    }
    fn end_row(&mut self) {
        self.rows.push(std::mem::take(&mut self.row));
    }
}
