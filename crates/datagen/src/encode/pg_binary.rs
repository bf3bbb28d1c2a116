//! PostgreSQL's binary `COPY` format (the "Binary Format" section of the `COPY` reference page).
//!
//! Binary COPY is the fastest way into PostgreSQL: the server parses no text. Every field must be what
//! the column type's `*_recv` function accepts; numerics in particular go in PostgreSQL's own base-10000
//! representation, which `numeric_recv` checks against the column's declared scale.

use super::RowEncoder;

/// The 11-byte signature, then the flags field (no OIDs) and an empty header extension.
const HEADER: &[u8; 19] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";
/// Microseconds from the Unix epoch to PostgreSQL's epoch, 2000-01-01 00:00:00.
const PG_EPOCH_UNIX_US: i64 = 946_684_800_000_000;
/// The same epoch in days: binary dates are days since 2000-01-01.
const PG_EPOCH_UNIX_DAYS: i32 = 10_957;
/// `NUMERIC_NEG` in PostgreSQL's numeric header.
const NUMERIC_NEG: u16 = 0x4000;

/// A buffer of rows in PostgreSQL's binary `COPY` format, ready to send as `COPY t FROM STDIN (FORMAT binary)`.
///
/// Each buffer is a complete COPY stream (header to trailer), so chunks can be loaded independently and
/// in parallel.
#[derive(Debug)]
pub struct PgBinaryCopy {
    buf: Vec<u8>,
    rows: u64,
}

impl PgBinaryCopy {
    /// An empty stream with room for about `bytes` bytes; the header is written at once.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut buf = Vec::with_capacity(bytes.max(HEADER.len() + 2));
        buf.extend_from_slice(HEADER);
        PgBinaryCopy { buf, rows: 0 }
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The complete stream, with its trailer.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.extend_from_slice(&(-1i16).to_be_bytes());
        self.buf
    }

    #[inline]
    fn field_len(&mut self, len: i32) {
        self.buf.extend_from_slice(&len.to_be_bytes());
    }
}

impl RowEncoder for PgBinaryCopy {
    #[inline]
    fn begin_row(&mut self, columns: u16) {
        self.buf.extend_from_slice(&columns.to_be_bytes());
    }

    #[inline]
    fn int4(&mut self, v: i32) {
        let mut field = [0u8; 8];
        field[..4].copy_from_slice(&4i32.to_be_bytes());
        field[4..].copy_from_slice(&v.to_be_bytes());
        self.buf.extend_from_slice(&field);
    }

    fn int8(&mut self, v: i64) {
        self.buf.extend_from_slice(&8i32.to_be_bytes());
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    fn float8(&mut self, v: f64) {
        self.buf.extend_from_slice(&8i32.to_be_bytes());
        self.buf.extend_from_slice(&v.to_bits().to_be_bytes());
    }

    fn bool(&mut self, v: bool) {
        self.buf.extend_from_slice(&1i32.to_be_bytes());
        self.buf.push(u8::from(v));
    }

    #[inline]
    fn int2(&mut self, v: i16) {
        // The field's length, then its two bytes.
        self.buf.extend_from_slice(&[0, 0, 0, 2]);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// PostgreSQL's wire numeric, as `numeric_send` produces it: `ndigits`, `weight`, `sign`, `dscale`
    /// (all 16-bit), then `ndigits` base-10000 digits, most significant first, with leading and trailing
    /// zero digits stripped (zero has no digits and weight 0). The first digit is worth `10000^weight`.
    fn numeric(&mut self, unscaled: i64, scale: u8) {
        // Align the fraction to whole base-10000 digits: scale 2 becomes 4 by multiplying by 100.
        let frac_digits = u32::from(scale).div_ceil(4);
        let mut v = u128::from(unscaled.unsigned_abs()) * 10u128.pow(frac_digits * 4 - u32::from(scale));
        // Base-10000 digits, least significant first; at least the fraction's digits. An i64 needs at most
        // 6 digits and a scale of 255 at most 64 fraction digits.
        let mut digits = [0u16; 70];
        let mut n = 0usize;
        while v != 0 || n < frac_digits as usize {
            digits[n] = (v % 10_000) as u16;
            v /= 10_000;
            n += 1;
        }
        let mut weight = n as i32 - frac_digits as i32 - 1;
        let mut hi = n; // one past the most significant digit kept
        while hi > 0 && digits[hi - 1] == 0 {
            hi -= 1;
            weight -= 1;
        }
        let mut lo = 0; // the least significant digit kept
        while lo < hi && digits[lo] == 0 {
            lo += 1;
        }
        let ndigits = hi - lo;
        let (weight, sign) = if ndigits == 0 {
            (0, 0)
        } else if unscaled < 0 {
            (weight, NUMERIC_NEG)
        } else {
            (weight, 0)
        };
        self.field_len(8 + 2 * ndigits as i32);
        self.buf.extend_from_slice(&(ndigits as u16).to_be_bytes());
        self.buf.extend_from_slice(&(weight as i16).to_be_bytes());
        self.buf.extend_from_slice(&sign.to_be_bytes());
        self.buf.extend_from_slice(&u16::from(scale).to_be_bytes());
        for &d in digits[lo..hi].iter().rev() {
            self.buf.extend_from_slice(&d.to_be_bytes());
        }
    }

    #[inline]
    fn text(&mut self, v: &[u8]) {
        let len = i32::try_from(v.len()).expect("a COPY field is under 2 GiB");
        self.field_len(len);
        self.buf.extend_from_slice(v);
    }

    #[inline]
    fn timestamp_us(&mut self, unix_us: i64) {
        let mut field = [0u8; 12];
        field[..4].copy_from_slice(&8i32.to_be_bytes());
        field[4..].copy_from_slice(&(unix_us - PG_EPOCH_UNIX_US).to_be_bytes());
        self.buf.extend_from_slice(&field);
    }

    #[inline]
    fn date(&mut self, unix_days: i32) {
        let mut field = [0u8; 8];
        field[..4].copy_from_slice(&4i32.to_be_bytes());
        field[4..].copy_from_slice(&(unix_days - PG_EPOCH_UNIX_DAYS).to_be_bytes());
        self.buf.extend_from_slice(&field);
    }

    #[inline]
    fn null(&mut self) {
        self.field_len(-1);
    }

    #[inline]
    fn end_row(&mut self) {
        self.rows += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The field bytes (after the length) of one numeric.
    fn numeric_field(unscaled: i64, scale: u8) -> Vec<u16> {
        let mut e = PgBinaryCopy::with_capacity(64);
        e.numeric(unscaled, scale);
        let bytes = &e.buf[HEADER.len()..];
        let len = i32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
        assert_eq!(len, bytes.len() - 4);
        bytes[4..].chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect()
    }

    #[test]
    fn numerics_match_numeric_send() {
        // [ndigits, weight, sign, dscale, digits...] as PostgreSQL 15's numeric_send writes them
        // (checked with `SELECT numeric_send(x::numeric(p, s))`).
        const NEG: u16 = 0x4000;
        let w = |x: i16| x as u16;
        assert_eq!(numeric_field(0, 2), [0, 0, 0, 2]);
        assert_eq!(numeric_field(0, 4), [0, 0, 0, 4]);
        assert_eq!(numeric_field(1, 2), [1, w(-1), 0, 2, 100]); // 0.01
        assert_eq!(numeric_field(-1000, 2), [1, 0, NEG, 2, 10]); // -10.00
        assert_eq!(numeric_field(30_000_000, 2), [1, 1, 0, 2, 30]); // 300000.00
        assert_eq!(numeric_field(5000, 4), [1, w(-1), 0, 4, 5000]); // 0.5000
        assert_eq!(numeric_field(999_999, 2), [2, 0, 0, 2, 9999, 9900]); // 9999.99
        assert_eq!(numeric_field(1, 4), [1, w(-1), 0, 4, 1]); // 0.0001
        assert_eq!(numeric_field(-5, 6), [1, w(-2), NEG, 6, 500]); // -0.000005
        assert_eq!(numeric_field(100_000_001, 8), [3, 0, 0, 8, 1, 0, 1]); // 1.00000001
        assert_eq!(numeric_field(12_345, 0), [2, 1, 0, 0, 1, 2345]); // 12345
        // -92233720368547758.08 = -(9 2233 7203 6854 7758 . 0800)
        assert_eq!(numeric_field(i64::MIN, 2), [6, 4, NEG, 2, 9, 2233, 7203, 6854, 7758, 800]);
        assert_eq!(numeric_field(7, 255)[..4], [1, w(-64), 0, 255]);
    }

    #[test]
    fn stream_layout() {
        let mut e = PgBinaryCopy::with_capacity(0);
        e.begin_row(4);
        e.int4(-2);
        e.null();
        e.timestamp_us(PG_EPOCH_UNIX_US + 1);
        e.date(PG_EPOCH_UNIX_DAYS + 2);
        e.end_row();
        e.begin_row(2);
        e.text(b"ab");
        e.int2(-3);
        e.end_row();
        assert_eq!(e.rows(), 2);
        let mut want = HEADER.to_vec();
        want.extend_from_slice(&[0, 4, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff]);
        want.extend_from_slice(&[0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1]);
        want.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 2]);
        want.extend_from_slice(&[0, 2, 0, 0, 0, 2, b'a', b'b', 0, 0, 0, 2, 0xff, 0xfd, 0xff, 0xff]);
        assert_eq!(e.finish(), want);
    }

    #[test]
    fn a_bigint_is_its_eight_bytes_big_endian() {
        let mut e = PgBinaryCopy::with_capacity(0);
        e.begin_row(1);
        e.int8(3_000_000_000);
        e.end_row();
        let mut want = HEADER.to_vec();
        want.extend_from_slice(&[0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0xb2, 0xd0, 0x5e, 0x00, 0xff, 0xff]);
        assert_eq!(e.finish(), want);
    }
}
