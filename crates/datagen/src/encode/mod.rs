//! Row encoders: the formats generated rows are written in.
//!
//! Generators call a [`RowEncoder`] once per field, in column order, so a row is never materialised:
//! values go straight from the random stream into the output buffer. One implementation per file:
//! [`PgBinaryCopy`] (PostgreSQL's binary `COPY`) and [`Csv`] (for `COPY ... (FORMAT csv)` and other
//! engines' bulk loaders).

mod csv;
mod pg_binary;

pub use csv::Csv;
pub(crate) use csv::civil_from_days;
pub use pg_binary::PgBinaryCopy;

/// A sink for rows, written one field at a time in the table's column order.
///
/// Typed calls (rather than pre-formatted text) let each format pick its own representation: binary
/// COPY sends numerics in base 10000 and timestamps as integers, CSV prints them.
pub trait RowEncoder {
    /// Starts a row of `columns` fields.
    fn begin_row(&mut self, columns: u16);
    /// A 32-bit integer.
    fn int4(&mut self, v: i32);
    /// A 16-bit integer (a `smallint` column). Text formats write it as they write any integer, so by
    /// default it is [`int4`](Self::int4)'s; binary formats, whose fields carry their width, override it.
    fn int2(&mut self, v: i16) {
        self.int4(i32::from(v));
    }
    /// An exact decimal: the value is `unscaled / 10^scale` (300000.00 is `(30000000, 2)`); `scale` is the
    /// column's declared scale.
    fn numeric(&mut self, unscaled: i64, scale: u8);
    /// Text (ASCII or UTF-8 bytes).
    fn text(&mut self, v: &[u8]);
    /// A timestamp without time zone, as microseconds since 1970-01-01 00:00:00 UTC.
    fn timestamp_us(&mut self, unix_us: i64);
    /// A calendar date, as days since 1970-01-01.
    fn date(&mut self, unix_days: i32);
    /// A 64-bit integer (a `bigint` column); by default its decimal digits as text, as text formats
    /// write it.
    fn int8(&mut self, v: i64) {
        let mut digits = Vec::with_capacity(20);
        if v < 0 {
            digits.push(b'-');
        }
        push_u64(&mut digits, v.unsigned_abs());
        self.text(&digits);
    }
    /// A double-precision float; by default its shortest exact decimal as text.
    fn float8(&mut self, v: f64) {
        self.text(v.to_string().as_bytes());
    }
    /// A boolean; by default 1 or 0, as text formats (and MySQL's `BOOLEAN`) take it.
    fn bool(&mut self, v: bool) {
        self.int4(i32::from(v));
    }
    /// SQL NULL.
    fn null(&mut self);
    /// Ends the current row.
    fn end_row(&mut self);
}

/// Appends the decimal digits of `v` (no sign) to `out`, without going through `fmt`.
pub(crate) fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}
