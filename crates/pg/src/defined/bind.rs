//! How a drawn value is bound to a prepared statement's parameter: as the type PostgreSQL inferred for
//! it, checked against what the parameter draws when the statement is prepared. An integer binds as
//! `int2`, `int4`, `int8` or `numeric` (checked to fit before anything is sent), a text as `text`,
//! `varchar` or `char`, an instant (a `timestamp` parameter) as `timestamp` or `date`, or as text.

use std::error::Error as StdError;

use bytes::{BufMut, BytesMut};
use oltpgen_datagen::defined::{ParamKind, Value, parse_timestamp};
use tokio_postgres::Statement;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

/// A parameter's type, as the server inferred it when the statement was prepared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bind {
    Int2,
    Int4,
    Int8,
    Numeric,
    /// `text`, `varchar` or `char`.
    Text,
    Timestamp,
    Date,
}

/// Seconds from 1970-01-01 to 2000-01-01, where PostgreSQL's timestamps and dates count from.
const PG_EPOCH_S: i64 = 946_684_800;

impl Bind {
    /// How each of `statement`'s parameters is bound, each drawing as `kinds` says (`$1` first).
    ///
    /// # Errors
    /// The first parameter whose type takes no value of its kind, and the cast that makes it take one.
    pub(super) fn of(statement: &Statement, kinds: &[ParamKind]) -> Result<Vec<Bind>, String> {
        let bind = |(i, ty): (usize, &Type)| {
            let kind = kinds.get(i).copied().unwrap_or(ParamKind::Int);
            let n = i + 1;
            match (kind, ty) {
                (ParamKind::Int, &Type::INT2) => Ok(Bind::Int2),
                (ParamKind::Int, &Type::INT4) => Ok(Bind::Int4),
                (ParamKind::Int, &Type::INT8) => Ok(Bind::Int8),
                (ParamKind::Int, &Type::NUMERIC) => Ok(Bind::Numeric),
                (ParamKind::Text | ParamKind::Timestamp, &Type::TEXT | &Type::VARCHAR | &Type::BPCHAR) => {
                    Ok(Bind::Text)
                }
                (ParamKind::Timestamp, &Type::TIMESTAMP) => Ok(Bind::Timestamp),
                (ParamKind::Timestamp, &Type::DATE) => Ok(Bind::Date),
                (kind, other) => {
                    let (draws, cast) = match kind {
                        ParamKind::Int => ("integers", "int8"),
                        ParamKind::Text => ("text", "text"),
                        ParamKind::Timestamp => ("timestamps", "timestamp"),
                    };
                    Err(format!(
                        "${n} is {other}, and its parameter draws {draws}: cast it in the SQL, as ${n}::{cast}, \
                         or draw values of its type"
                    ))
                }
            }
        };
        statement.params().iter().enumerate().map(bind).collect()
    }

    /// `v` as this type, or `None` when it is not of its kind or does not fit.
    pub(super) fn bind(self, v: &Value) -> Option<Param<'_>> {
        Some(match (self, v) {
            (Bind::Int2, Value::Int(v)) => Param::Int2((*v).try_into().ok()?),
            (Bind::Int4, Value::Int(v)) => Param::Int4((*v).try_into().ok()?),
            (Bind::Int8, Value::Int(v)) => Param::Int8(*v),
            (Bind::Numeric, Value::Int(v)) => Param::Numeric(*v),
            (Bind::Text, Value::Text(t)) => Param::Text(t),
            (Bind::Timestamp, Value::Text(t)) => {
                Param::Timestamp(parse_timestamp(t)?.checked_sub(PG_EPOCH_S)?.checked_mul(1_000_000)?)
            }
            (Bind::Date, Value::Text(t)) => {
                Param::Date((parse_timestamp(t)?.div_euclid(86_400) - PG_EPOCH_S / 86_400).try_into().ok()?)
            }
            _ => return None,
        })
    }
}

/// A bound value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Param<'a> {
    Int2(i16),
    Int4(i32),
    Int8(i64),
    /// A whole number, sent in `numeric`'s binary form.
    Numeric(i64),
    Text(&'a str),
    /// Microseconds from 2000-01-01 00:00:00, `timestamp`'s binary form.
    Timestamp(i64),
    /// Days from 2000-01-01, `date`'s binary form.
    Date(i32),
}

impl ToSql for Param<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match *self {
            Param::Int2(v) => v.to_sql(ty, out),
            Param::Int4(v) => v.to_sql(ty, out),
            Param::Int8(v) => v.to_sql(ty, out),
            Param::Numeric(v) => {
                numeric(v, out);
                Ok(IsNull::No)
            }
            Param::Text(v) => v.to_sql(ty, out),
            Param::Timestamp(v) => {
                out.put_i64(v);
                Ok(IsNull::No)
            }
            Param::Date(v) => {
                out.put_i32(v);
                Ok(IsNull::No)
            }
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT2
                | Type::INT4
                | Type::INT8
                | Type::NUMERIC
                | Type::TEXT
                | Type::VARCHAR
                | Type::BPCHAR
                | Type::TIMESTAMP
                | Type::DATE
        )
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
        assert_eq!(Bind::Int2.bind(&Value::Int(-32_768)), Some(Param::Int2(-32_768)));
        assert_eq!(Bind::Int2.bind(&Value::Int(40_000)), None);
        assert_eq!(Bind::Int4.bind(&Value::Int(i64::from(i32::MAX) + 1)), None);
        assert_eq!(Bind::Int8.bind(&Value::Int(i64::MIN)), Some(Param::Int8(i64::MIN)));
        assert_eq!(Bind::Int8.bind(&"7".into()), None, "a text is not an integer");
    }

    #[test]
    fn texts_and_instants_bind_as_text_timestamp_or_date() {
        let text = Value::from("2000-01-02 00:00:01");
        assert_eq!(Bind::Text.bind(&text), Some(Param::Text("2000-01-02 00:00:01")));
        assert_eq!(Bind::Timestamp.bind(&text), Some(Param::Timestamp(86_401_000_000)));
        assert_eq!(Bind::Date.bind(&text), Some(Param::Date(1)));
        assert_eq!(Bind::Date.bind(&"1999-12-31".into()), Some(Param::Date(-1)));
        assert_eq!(Bind::Text.bind(&Value::Int(1)), None);
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
