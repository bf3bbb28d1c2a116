//! pgbench's script language (PostgreSQL 15): expressions, scripts and the interpreter's steps, pure
//! (no database): the driver runs the SQL a step names and gives back its rows.
//!
//! - [`Expr::parse`] reads an expression (`\set`'s and `\if`'s) and [`Expr::eval`] evaluates it with
//!   a variable lookup and a [`Rng`]; every operator and function of pgbench 15's documentation is there,
//!   with its NULL, integer (overflow is an error) and double semantics. The random functions draw the
//!   same distributions as pgbench, not the same values; `hash*` and `permute` give pgbench's values.
//! - [`Script::parse`] reads a script file; [`builtin`] gives pgbench 15's built-in scripts.
//! - [`Vars`] holds a client's variables and [`Vars::step`] runs a script up to its next SQL command
//!   or sleep.
//!
//! ```
//! use oltpgen_datagen::Rng;
//! use oltpgen_datagen::pgbench::{Expr, Value};
//! let e = Expr::parse("random(1, 100000 * :scale)").unwrap();
//! let scale = |name: &str| (name == "scale").then_some(Value::Int(10));
//! let Value::Int(aid) = e.eval(&scale, &mut Rng::new(1)).unwrap() else { unreachable!() };
//! assert!((1..=1_000_000).contains(&aid));
//! ```

mod eval;
mod expr;
pub mod random;
mod script;
#[cfg(test)]
mod tests;
pub mod tpcb;
mod value;

use std::collections::HashMap;

pub use eval::Lookup;
pub use expr::{Expr, Func, ParseError};
pub use script::{AckFrom, Command, Duration, Script, ScriptAck, ScriptError, Sql, Store, parameters};
pub use value::{EvalError, Value};

use crate::Rng;

/// The first lines `tpcb-like` and `simple-update` share: their variables, BEGIN, the account's update
/// and read.
macro_rules! account_update {
    () => {
        "\\set aid random(1, 100000 * :scale)
\\set bid random(1, 1 * :scale)
\\set tid random(1, 10 * :scale)
\\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
"
    };
}

/// The last lines `tpcb-like` and `simple-update` share: the history row, END.
macro_rules! history_insert {
    () => {
        "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
"
    };
}

/// pgbench 15's built-in scripts by name, their text as `pgbench --show-script` prints it.
pub const BUILTINS: [(&str, &str); 3] = [
    (
        "tpcb-like",
        concat!(
            account_update!(),
            "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
",
            history_insert!()
        ),
    ),
    ("simple-update", concat!(account_update!(), history_insert!())),
    (
        "select-only",
        "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
    ),
];

/// A built-in script by its name or a prefix of one name (as `pgbench -b` takes it): its full name and
/// text; `None` when no name or several match.
pub fn builtin(name: &str) -> Option<(&'static str, &'static str)> {
    if let Some(exact) = BUILTINS.iter().find(|(n, _)| *n == name) {
        return Some(*exact);
    }
    let mut matching = BUILTINS.iter().filter(|(n, _)| !name.is_empty() && n.starts_with(name));
    match (matching.next(), matching.next()) {
        (Some(one), None) => Some(*one),
        _ => None,
    }
}

/// Splits `NAME@WEIGHT` (pgbench's `-f`/`-b` syntax) into the name and the weight (1 when absent);
/// `None` when the weight is not a whole number.
pub fn split_weight(spec: &str) -> Option<(&str, u32)> {
    match spec.rsplit_once('@') {
        Some((name, w)) => w.parse().ok().map(|w| (name, w)),
        None => Some((spec, 1)),
    }
}

/// A variable: a value (`\set`, automatic) or the text a query returned (`\gset`, `-D`), read as a
/// value only when an expression uses it (as pgbench does).
#[derive(Clone, Debug, PartialEq)]
enum Var {
    Value(Value),
    Text(String),
}

/// One client's variables, kept from one execution of its scripts to the next.
#[derive(Clone, Debug, Default)]
pub struct Vars {
    map: HashMap<String, Var>,
}

/// What a script asks for next.
#[derive(Debug)]
pub enum Step<'s> {
    /// Run this SQL command (its index in [`Script::sql`]) with these parameters (`None` is SQL NULL),
    /// then store its rows with [`Vars::store`].
    Sql(usize, &'s Sql, Vec<Option<String>>),
    /// Sleep this many microseconds.
    Sleep(u64),
    /// The script has ended.
    End,
}

impl Vars {
    /// Sets a variable to a value.
    pub fn set(&mut self, name: &str, value: Value) {
        // A script sets the same variables every turn: no new key (no allocation) once one exists.
        match self.map.get_mut(name) {
            Some(v) => *v = Var::Value(value),
            None => {
                self.map.insert(name.to_string(), Var::Value(value));
            }
        }
    }

    /// Sets a variable to text (read as a value when an expression uses it).
    pub fn set_text(&mut self, name: &str, text: String) {
        self.map.insert(name.to_string(), Var::Text(text));
    }

    /// A variable's value (`None` when it is not set or its text is no value).
    pub fn value(&self, name: &str) -> Option<Value> {
        match self.map.get(name)? {
            Var::Value(v) => Some(*v),
            Var::Text(t) => Value::from_text(t),
        }
    }

    /// A variable as a query's parameter: `Err` when it is not set, `Ok(None)` for NULL.
    fn param(&self, name: &str) -> Result<Option<String>, EvalError> {
        match self.map.get(name) {
            Some(Var::Value(v)) => Ok(v.to_text()),
            Some(Var::Text(t)) => Ok(Some(t.clone())),
            None => Err(EvalError(format!("undefined variable \"{name}\""))),
        }
    }

    /// Stores a SQL command's result as its `\gset`/`\aset` asks: `columns` are the result's names,
    /// `rows` its values as text (`None` for NULL, stored as NULL).
    pub fn store(
        &mut self,
        store: &Store,
        columns: &[String],
        rows: &[Vec<Option<String>>],
    ) -> Result<(), EvalError> {
        let prefix = match store {
            Store::Gset(p) => {
                if rows.len() != 1 {
                    return Err(EvalError(format!("expected one row, got {}", rows.len())));
                }
                p
            }
            Store::Aset(p) => p,
        };
        for row in rows {
            for (col, v) in columns.iter().zip(row) {
                let name = format!("{prefix}{col}");
                match v {
                    Some(t) => self.set_text(&name, t.clone()),
                    None => self.set(&name, Value::Null),
                }
            }
        }
        Ok(())
    }

    /// Runs `script` from command `*pc` up to its next SQL command or sleep (`\set`s and branches run
    /// here), leaving `*pc` after it.
    pub fn step<'s>(
        &mut self,
        script: &'s Script,
        pc: &mut usize,
        rng: &mut Rng,
    ) -> Result<Step<'s>, EvalError> {
        while let Some(cmd) = script.commands.get(*pc) {
            *pc += 1;
            match cmd {
                Command::Set { var, expr } => {
                    let v = expr.eval(&|n| self.value(n), rng)?;
                    self.set(var, v);
                }
                Command::Sleep { count, unit_us } => {
                    let n = match count {
                        Duration::Count(n) => *n,
                        Duration::Var(v) => self
                            .value(v)
                            .ok_or_else(|| EvalError(format!("\\sleep: undefined variable \"{v}\"")))?
                            .to_int()?,
                    };
                    return Ok(Step::Sleep(n.max(0) as u64 * unit_us));
                }
                Command::Sql(i) => {
                    let sql = &script.sql[*i];
                    let params = sql.params.iter().map(|p| self.param(p)).collect::<Result<_, _>>()?;
                    return Ok(Step::Sql(*i, sql, params));
                }
                Command::JumpUnless { cond, to } => {
                    if !cond.eval(&|n| self.value(n), rng)?.truth() {
                        *pc = *to;
                    }
                }
                Command::Jump { to } => *pc = *to,
            }
        }
        Ok(Step::End)
    }
}
