//! CSV as PostgreSQL's `COPY t FROM 'file' (FORMAT csv)` reads it (and most engines' bulk loaders).
//!
//! NULL is an empty unquoted field, so an empty string is written quoted (`""`). Fields holding a
//! separator, a quote, a line break or a backslash are quoted, with quotes doubled. Timestamps are
//! `YYYY-MM-DD HH:MM:SS.ffffff` (no zone), dates `YYYY-MM-DD`; numerics are plain decimals with exactly the column's scale.

use super::{RowEncoder, push_u64};

/// A growing buffer of CSV rows, one line per row, no header line.
#[derive(Debug)]
pub struct Csv {
    buf: Vec<u8>,
    rows: u64,
    /// True before the first field of a row, when no separator is due.
    row_start: bool,
}

impl Csv {
    /// Appends rows to `buf` (pass a reused buffer to avoid reallocating).
    pub fn new(buf: Vec<u8>) -> Self {
        Csv { buf, rows: 0, row_start: true }
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The buffer, with every row written so far.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    #[inline]
    fn separator(&mut self) {
        if !self.row_start {
            self.buf.push(b',');
        }
        self.row_start = false;
    }

    /// Appends the day `unix_days` after 1970-01-01 as `YYYY-MM-DD`.
    #[inline]
    fn push_date(&mut self, unix_days: i64) {
        let (year, month, day) = civil_from_days(unix_days);
        let b = &mut self.buf;
        push_padded(b, year as u64, 4);
        b.push(b'-');
        push_padded(b, u64::from(month), 2);
        b.push(b'-');
        push_padded(b, u64::from(day), 2);
    }
}

/// Whether a text field must be quoted. Written as a fold, not `any`, so that it vectorises.
#[inline]
fn needs_quotes(v: &[u8]) -> bool {
    v.is_empty() || v.iter().fold(false, |acc, &b| acc | matches!(b, b',' | b'"' | b'\n' | b'\r' | b'\\'))
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day) (H. Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Appends `v` as exactly `width` digits, zero-padded (`v` must fit).
#[inline]
fn push_padded(out: &mut Vec<u8>, mut v: u64, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    for slot in out[start..].iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

impl RowEncoder for Csv {
    #[inline]
    fn begin_row(&mut self, _columns: u16) {
        self.row_start = true;
    }

    #[inline]
    fn int4(&mut self, v: i32) {
        self.separator();
        if v < 0 {
            self.buf.push(b'-');
        }
        push_u64(&mut self.buf, u64::from(v.unsigned_abs()));
    }

    fn int8(&mut self, v: i64) {
        self.separator();
        if v < 0 {
            self.buf.push(b'-');
        }
        push_u64(&mut self.buf, v.unsigned_abs());
    }

    fn numeric(&mut self, unscaled: i64, scale: u8) {
        self.separator();
        if unscaled < 0 {
            self.buf.push(b'-');
        }
        let abs = unscaled.unsigned_abs();
        match 10u64.checked_pow(u32::from(scale)) {
            Some(unit) => {
                push_u64(&mut self.buf, abs / unit);
                if scale > 0 {
                    self.buf.push(b'.');
                    push_padded(&mut self.buf, abs % unit, usize::from(scale));
                }
            }
            None => {
                // More fraction digits than an i64 holds: the integer part is 0.
                self.buf.extend_from_slice(b"0.");
                push_padded(&mut self.buf, abs, usize::from(scale));
            }
        }
    }

    #[inline]
    fn text(&mut self, v: &[u8]) {
        self.separator();
        if !needs_quotes(v) {
            self.buf.extend_from_slice(v);
            return;
        }
        self.buf.push(b'"');
        for part in v.split_inclusive(|&b| b == b'"') {
            self.buf.extend_from_slice(part);
            if part.last() == Some(&b'"') {
                self.buf.push(b'"');
            }
        }
        self.buf.push(b'"');
    }

    fn timestamp_us(&mut self, unix_us: i64) {
        self.separator();
        const DAY_US: i64 = 86_400_000_000;
        self.push_date(unix_us.div_euclid(DAY_US));
        let in_day = unix_us.rem_euclid(DAY_US) as u64;
        let secs = in_day / 1_000_000;
        let b = &mut self.buf;
        b.push(b' ');
        push_padded(b, secs / 3_600, 2);
        b.push(b':');
        push_padded(b, secs / 60 % 60, 2);
        b.push(b':');
        push_padded(b, secs % 60, 2);
        b.push(b'.');
        push_padded(b, in_day % 1_000_000, 6);
    }

    #[inline]
    fn date(&mut self, unix_days: i32) {
        self.separator();
        self.push_date(i64::from(unix_days));
    }

    #[inline]
    fn null(&mut self) {
        self.separator();
    }

    #[inline]
    fn end_row(&mut self) {
        self.buf.push(b'\n');
        self.rows += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(fields: impl FnOnce(&mut Csv)) -> String {
        let mut c = Csv::new(Vec::new());
        c.begin_row(0);
        fields(&mut c);
        c.end_row();
        assert_eq!(c.rows(), 1);
        String::from_utf8(c.into_inner()).unwrap()
    }

    #[test]
    fn quoting_and_nulls() {
        let s = line(|c| {
            c.text(b"plain");
            c.text(b"a,b");
            c.text(b"say \"hi\"");
            c.text(b"two\nlines");
            c.text(b"");
            c.null();
            c.text(b"\\.");
            c.int4(-42);
            c.null();
        });
        assert_eq!(s, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"\",,\"\\.\",-42,\n");
    }

    #[test]
    fn numerics_have_exactly_the_scale() {
        let s = line(|c| {
            c.numeric(-1000, 2);
            c.numeric(0, 2);
            c.numeric(1, 2);
            c.numeric(5000, 4);
            c.numeric(30_000_000, 2);
            c.numeric(-5, 2);
            c.numeric(12, 0);
            c.numeric(i64::MIN, 0);
            c.numeric(7, 21);
        });
        assert_eq!(
            s,
            "-10.00,0.00,0.01,0.5000,300000.00,-0.05,12,-9223372036854775808,0.000000000000000000007\n"
        );
    }

    #[test]
    fn timestamps() {
        let us = |days: i64, secs: i64, micros: i64| (days * 86_400 + secs) * 1_000_000 + micros;
        let s = line(|c| {
            c.timestamp_us(0);
            c.timestamp_us(us(11_016, 0, 0)); // 2000-02-29
            c.timestamp_us(us(20_779, 12 * 3_600 + 34 * 60 + 56, 789_012)); // 2026-11-22
            c.timestamp_us(-1); // the last microsecond of 1969
            c.timestamp_us(us(10_957, 86_399, 999_999)); // 2000-01-01 23:59:59.999999
        });
        assert_eq!(
            s,
            "1970-01-01 00:00:00.000000,2000-02-29 00:00:00.000000,2026-11-22 12:34:56.789012,\
             1969-12-31 23:59:59.999999,2000-01-01 23:59:59.999999\n"
        );
    }

    #[test]
    fn dates() {
        let s = line(|c| {
            c.date(0);
            c.date(11_016); // 2000-02-29
            c.date(-1);
        });
        assert_eq!(s, "1970-01-01,2000-02-29,1969-12-31\n");
    }
}
