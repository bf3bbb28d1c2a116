//! How a drawn integer is bound to a prepared statement's parameter: as the type PostgreSQL inferred for
//! it (`int2`, `int4`, `int8` or `numeric`), checked to fit before anything is sent.

use std::error::Error as StdError;

use bytes::{BufMut, BytesMut};
use tokio_postgres::Statement;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

/// A parameter's type, as the server inferred it when the statement was prepared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bind {
    Int2,
    Int4,
    Int8,
    Numeric,
}

impl Bind {
    /// How each of `statement`'s parameters is bound.
    ///
    /// # Errors
    /// The parameter whose type takes no integer, and the cast that makes it take one.
    pub(super) fn of(statement: &Statement) -> Result<Vec<Bind>, String> {
        let bind = |(i, ty): (usize, &Type)| match *ty {
            Type::INT2 => Ok(Bind::Int2),
            Type::INT4 => Ok(Bind::Int4),
            Type::INT8 => Ok(Bind::Int8),
            Type::NUMERIC => Ok(Bind::Numeric),
            ref other => Err(format!(
                "${n} is {other}, and parameters are integers: cast it in the SQL, as ${n}::int8",
                n = i + 1
            )),
        };
        statement.params().iter().enumerate().map(bind).collect()
    }

    /// `v` as this type, or `None` when it does not fit.
    pub(super) fn bind(self, v: i64) -> Option<Param> {
        Some(match self {
            Bind::Int2 => Param::Int2(v.try_into().ok()?),
            Bind::Int4 => Param::Int4(v.try_into().ok()?),
            Bind::Int8 => Param::Int8(v),
            Bind::Numeric => Param::Numeric(v),
        })
    }
}

/// A bound value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Param {
    Int2(i16),
    Int4(i32),
    Int8(i64),
    /// A whole number, sent in `numeric`'s binary form.
    Numeric(i64),
}

impl ToSql for Param {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match *self {
            Param::Int2(v) => v.to_sql(ty, out),
            Param::Int4(v) => v.to_sql(ty, out),
            Param::Int8(v) => v.to_sql(ty, out),
            Param::Numeric(v) => {
                numeric(v, out);
                Ok(IsNull::No)
            }
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(*ty, Type::INT2 | Type::INT4 | Type::INT8 | Type::NUMERIC)
    }

    to_sql_checked!();
}

/// `numeric`'s binary form of the whole number `v`: digit count, weight (the first digit's power of
/// 10,000), sign, display scale, then base-10,000 digits, most significant first, trailing zero digits
/// left out (the weight keeps their place).
fn numeric(v: i64, out: &mut BytesMut) {
    const NEGATIVE: u16 = 0x4000;
    let mut rest = v.unsigned_abs();
    // Least significant first; an i64 has at most five base-10,000 digits.
    let mut digits = Vec::with_capacity(5);
    while rest > 0 {
        digits.push((rest % 10_000) as i16);
        rest /= 10_000;
    }
    let weight = digits.len() as i16 - 1;
    let zeros = digits.iter().take_while(|&&d| d == 0).count();
    let digits = &digits[zeros..];
    out.put_i16(digits.len() as i16);
    out.put_i16(if digits.is_empty() { 0 } else { weight });
    out.put_u16(if v < 0 { NEGATIVE } else { 0 });
    out.put_i16(0);
    for &d in digits.iter().rev() {
        out.put_i16(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_bind_only_where_they_fit() {
        assert_eq!(Bind::Int2.bind(-32_768), Some(Param::Int2(-32_768)));
        assert_eq!(Bind::Int2.bind(40_000), None);
        assert_eq!(Bind::Int4.bind(i64::from(i32::MAX) + 1), None);
        assert_eq!(Bind::Int8.bind(i64::MIN), Some(Param::Int8(i64::MIN)));
    }

    #[test]
    fn numerics_are_sent_in_base_ten_thousand() {
        let bytes = |v| {
            let mut out = BytesMut::new();
            numeric(v, &mut out);
            out.chunks(2).map(|w| i16::from_be_bytes([w[0], w[1]])).collect::<Vec<_>>()
        };
        // ndigits, weight, sign, dscale, digits.
        assert_eq!(bytes(0), [0, 0, 0, 0]);
        assert_eq!(bytes(12_345), [2, 1, 0, 0, 1, 2345]);
        assert_eq!(bytes(-7), [1, 0, 0x4000, 0, 7]);
        assert_eq!(bytes(1_0000_0000), [1, 2, 0, 0, 1]);
        assert_eq!(bytes(i64::MIN), [5, 4, 0x4000, 0, 922, 3372, 368, 5477, 5808]);
    }
}
