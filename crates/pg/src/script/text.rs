//! Values between a script's text and PostgreSQL's wire: parameters sent as text (the server parses
//! them as the types it inferred), results read back as text from their binary form.

use std::error::Error as StdError;

use bytes::{BufMut, BytesMut};
use tokio_postgres::types::{Format, FromSql, IsNull, ToSql, Type, to_sql_checked};

/// A parameter sent in text format (`None`: NULL).
#[derive(Debug)]
pub(super) struct TextParam<'a>(pub Option<&'a str>);

impl ToSql for TextParam<'_> {
    fn to_sql(&self, _ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match self.0 {
            None => Ok(IsNull::Yes),
            Some(s) => {
                out.put_slice(s.as_bytes());
                Ok(IsNull::No)
            }
        }
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    fn encode_format(&self, _ty: &Type) -> Format {
        Format::Text
    }

    to_sql_checked!();
}

/// A value's bytes as the server sent them (binary format).
pub(super) struct Raw<'a>(pub &'a [u8]);

impl<'a> FromSql<'a> for Raw<'a> {
    fn from_sql(_ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn StdError + Sync + Send>> {
        Ok(Raw(raw))
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }
}

/// A binary value of type `ty` as PostgreSQL prints it; `None` for a type read here as no text.
pub(super) fn to_text(ty: &Type, raw: &[u8]) -> Option<String> {
    let int = |n: usize| -> Option<i64> {
        let b = raw.get(..n)?;
        Some(match n {
            2 => i64::from(i16::from_be_bytes(b.try_into().ok()?)),
            4 => i64::from(i32::from_be_bytes(b.try_into().ok()?)),
            _ => i64::from_be_bytes(b.try_into().ok()?),
        })
    };
    Some(match *ty {
        Type::INT2 => int(2)?.to_string(),
        Type::INT4 => int(4)?.to_string(),
        Type::INT8 => int(8)?.to_string(),
        Type::OID => u32::from_be_bytes(raw.get(..4)?.try_into().ok()?).to_string(),
        Type::FLOAT4 => f32::from_be_bytes(raw.get(..4)?.try_into().ok()?).to_string(),
        Type::FLOAT8 => f64::from_be_bytes(raw.get(..8)?.try_into().ok()?).to_string(),
        Type::BOOL => if *raw.first()? != 0 { "t" } else { "f" }.to_string(),
        Type::NUMERIC => numeric(raw)?,
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
            String::from_utf8(raw.to_vec()).ok()?
        }
        _ => return None,
    })
}

/// `numeric`'s binary form (digit count, weight, sign, display scale, base-10,000 digits) as text.
fn numeric(raw: &[u8]) -> Option<String> {
    let word = |i: usize| raw.get(2 * i..2 * i + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let (ndigits, weight, sign, dscale) = (word(0)? as usize, word(1)? as i16, word(2)?, word(3)? as usize);
    match sign {
        0xC000 => return Some("NaN".into()),
        0xD000 => return Some("Infinity".into()),
        0xF000 => return Some("-Infinity".into()),
        _ => {}
    }
    let digit = |k: i32| -> u16 {
        if k >= 0 && (k as usize) < ndigits { word(4 + k as usize).unwrap_or(0) } else { 0 }
    };
    let mut out = String::new();
    if sign == 0x4000 {
        out.push('-');
    }
    if weight < 0 {
        out.push('0');
    } else {
        for k in 0..=i32::from(weight) {
            let d = digit(k);
            if k == 0 { out.push_str(&d.to_string()) } else { out.push_str(&format!("{d:04}")) }
        }
    }
    if dscale > 0 {
        out.push('.');
        let mut frac = String::new();
        let mut k = i32::from(weight) + 1;
        while frac.len() < dscale {
            frac.push_str(&format!("{:04}", digit(k)));
            k += 1;
        }
        out.push_str(&frac[..dscale]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerics_read_as_postgresql_prints_them() {
        let bin = |words: &[u16]| words.iter().flat_map(|w| w.to_be_bytes()).collect::<Vec<u8>>();
        assert_eq!(numeric(&bin(&[2, 1, 0, 0, 1, 2345])).unwrap(), "12345");
        assert_eq!(numeric(&bin(&[1, 0, 0x4000, 0, 7])).unwrap(), "-7");
        assert_eq!(numeric(&bin(&[2, 0, 0, 2, 3, 1400])).unwrap(), "3.14");
        assert_eq!(numeric(&bin(&[1, 0xffff, 0, 3, 50])).unwrap(), "0.005");
        assert_eq!(numeric(&bin(&[0, 0, 0, 0])).unwrap(), "0");
    }
}
