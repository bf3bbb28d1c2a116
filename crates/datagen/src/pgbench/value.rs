//! pgbench's values: NULL, boolean, 64-bit integer and double, with its coercions.

use std::fmt;

/// One value of pgbench's expressions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// `null` (what most functions return when an argument is NULL).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A bigint; arithmetic on two of them stays integer and fails on overflow.
    Int(i64),
    /// A double precision number; arithmetic with one of them is done in doubles.
    Double(f64),
}

/// Why an expression could not be evaluated (pgbench aborts the client with the same message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

pub(crate) fn fail<T>(message: impl Into<String>) -> Result<T, EvalError> {
    Err(EvalError(message.into()))
}

impl Value {
    /// The value of a variable given as text (by `-D`, `\gset` or `\aset`), read as pgbench reads it:
    /// `null`, a boolean word (`true`, `yes`, `on`, their prefixes, and the negatives), an integer, a
    /// double; anything else is malformed (`None`).
    pub fn from_text(text: &str) -> Option<Value> {
        let t = text.trim().to_ascii_lowercase();
        if t == "null" {
            return Some(Value::Null);
        }
        let prefix_of = |word: &str, min: usize| t.len() >= min && word.starts_with(t.as_str());
        if prefix_of("true", 1) || prefix_of("yes", 1) || t == "on" {
            return Some(Value::Bool(true));
        }
        if prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) {
            return Some(Value::Bool(false));
        }
        if let Ok(i) = t.parse::<i64>() {
            return Some(Value::Int(i));
        }
        t.parse::<f64>().ok().filter(|_| !t.is_empty()).map(Value::Double)
    }

    /// The value as text for a query's parameter (`None` for NULL, bound as SQL NULL).
    pub fn to_text(self) -> Option<String> {
        match self {
            Value::Null => None,
            Value::Bool(b) => Some(b.to_string()),
            Value::Int(i) => Some(i.to_string()),
            Value::Double(d) => Some(format_double(d)),
        }
    }

    /// The value as an integer (`int()`, bit operators, `random()`'s bounds): a double is rounded to
    /// the nearest (ties to even, C's `rint`), a boolean or NULL is an error.
    pub fn to_int(self) -> Result<i64, EvalError> {
        match self {
            Value::Int(i) => Ok(i),
            Value::Double(d) => {
                let r = d.round_ties_even();
                if r.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
                    return fail(format!("double to int overflow for {d}"));
                }
                Ok(r as i64)
            }
            Value::Bool(_) => fail("cannot coerce boolean to int"),
            Value::Null => fail("cannot coerce NULL to int"),
        }
    }

    /// The value as a double; a boolean or NULL is an error.
    pub fn to_double(self) -> Result<f64, EvalError> {
        match self {
            Value::Int(i) => Ok(i as f64),
            Value::Double(d) => Ok(d),
            Value::Bool(_) => fail("cannot coerce boolean to double"),
            Value::Null => fail("cannot coerce NULL to double"),
        }
    }

    /// The value as a boolean (`\if`, `AND`, `NOT`): a number is true when not zero; NULL is an error.
    pub fn to_bool(self) -> Result<bool, EvalError> {
        match self {
            Value::Bool(b) => Ok(b),
            Value::Int(i) => Ok(i != 0),
            Value::Double(d) => Ok(d != 0.0),
            Value::Null => fail("cannot coerce NULL to boolean"),
        }
    }

    /// Whether the value counts as true where pgbench tests a condition without failing on NULL
    /// (`CASE WHEN`): NULL is false.
    pub fn truth(self) -> bool {
        self.to_bool().unwrap_or(false)
    }
}

/// A double as pgbench prints it (`%.15g`): 15 significant digits, the shortest that round-trips
/// beyond them dropped.
fn format_double(d: f64) -> String {
    if !d.is_finite() {
        return if d.is_nan() {
            "NaN".into()
        } else if d > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let rounded: f64 = format!("{d:.14e}").parse().unwrap_or(d);
    format!("{rounded}")
}

impl fmt::Display for Value {
    /// As pgbench's `debug()` shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "boolean {b}"),
            Value::Int(i) => write!(f, "int {i}"),
            Value::Double(d) => write!(f, "double {}", format_double(*d)),
        }
    }
}
