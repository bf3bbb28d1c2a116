//! The schema words every engine and workload shares: the objects a load creates beside its tables
//! ([`Object`], read from the very statements the load runs by [`created_objects`], so that `drop`
//! removes what a load made), the one refusal to drop tables others depend on
//! ([`dependents_refusal`]), and `CREATE TABLE` from datagen's table definitions in an engine's own
//! words ([`create_table_as`]).

use oltpgen_datagen::schema::{ColumnType, Index, TableDef};

use super::target::Target;
use crate::error::Error;

/// What kind of object a workload creates beside its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// A function (PostgreSQL's PL/pgSQL and SQL functions, a trigger's function).
    Function,
    /// A stored procedure.
    Procedure,
    /// A sequence.
    Sequence,
    /// A full-text catalog (SQL Server's, which outlives the full-text index it holds).
    FullTextCatalog,
}

/// An object a workload creates beside its tables, which `drop` removes with them. Triggers, indexes
/// and sequences owned by a column go with their table and are not listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    /// Its kind.
    pub kind: ObjectKind,
    /// Its name, unqualified (the connection's schema).
    pub name: String,
    /// A function's or procedure's argument list as created (`(a int4, b text)`), so that an engine
    /// with overloads (PostgreSQL) drops that one and not a user's own function of the same name.
    pub args: Option<String>,
}

/// The refusal to drop a workload's tables while other objects depend on them (a user's view over
/// one, a user table's foreign key to one): one line and one exit code for every engine, naming the
/// dependents as the server gave them and what to do, with nothing dropped ("delete only what oltpgen
/// created": a `CASCADE` would take the user's objects along).
pub fn dependents_refusal(target: &Target, dependents: &[&str]) -> Error {
    refusal(target, "dropping tables", dependents, "dropped")
}

/// The refusal to restore a workload's tables while other objects depend on them (a foreign key to one
/// of them, or from one to a table of the user's): said as [`dependents_refusal`] says a drop's, before
/// anything changed.
pub fn restore_refusal(target: &Target, dependents: &[&str]) -> Error {
    refusal(target, "restoring tables", dependents, "changed")
}

fn refusal(target: &Target, doing: &str, dependents: &[&str], undone: &str) -> Error {
    Error::failed(format!(
        "{}: {doing}: other objects depend on oltpgen's tables ({}): drop them first; nothing was {undone}",
        target.label(),
        dependents.join("; ")
    ))
}

/// The objects `statements` create (`CREATE [OR REPLACE] FUNCTION|PROCEDURE|SEQUENCE [IF NOT EXISTS]
/// name`, `CREATE FULLTEXT CATALOG name`, also inside dynamic SQL), each once, in order, and the
/// signatures of an earlier oltpgen they drop (`DROP FUNCTION IF EXISTS name(args)`), which `drop`
/// removes too: read from the very statements a load runs, so that what `drop` removes cannot drift from
/// what a load creates.
pub fn created_objects(statements: &[String]) -> Vec<Object> {
    const KINDS: [(&str, ObjectKind); 4] = [
        ("FUNCTION ", ObjectKind::Function),
        ("PROCEDURE ", ObjectKind::Procedure),
        ("SEQUENCE ", ObjectKind::Sequence),
        ("FULLTEXT CATALOG ", ObjectKind::FullTextCatalog),
    ];
    // (verb, the words that may follow it, whether only a signature with its arguments counts)
    const VERBS: [(&str, &str, &str, bool); 2] =
        [("CREATE ", "OR REPLACE ", "IF NOT EXISTS ", false), ("DROP ", "", "IF EXISTS ", true)];
    let mut found: Vec<Object> = Vec::new();
    for sql in statements {
        for (verb, before_kind, after_kind, signature_only) in VERBS {
            let mut rest = sql.as_str();
            while let Some(at) = rest.find(verb) {
                rest = &rest[at + verb.len()..];
                let after = rest.strip_prefix(before_kind).unwrap_or(rest);
                for (word, kind) in KINDS {
                    let Some(tail) = after.strip_prefix(word) else { continue };
                    let tail = tail.strip_prefix(after_kind).unwrap_or(tail);
                    let name: String =
                        tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    let args = matches!(kind, ObjectKind::Function | ObjectKind::Procedure)
                        .then(|| argument_list(tail[name.len()..].trim_start()))
                        .flatten();
                    let object = Object { kind, name, args };
                    let counts = !object.name.is_empty() && (object.args.is_some() || !signature_only);
                    if counts && !found.contains(&object) {
                        found.push(object);
                    }
                }
            }
        }
    }
    found
}

/// The statements that (re)create `procedures` (name, `CREATE PROCEDURE` statement): each dropped where
/// it exists, then created, each its own statement, so that a repeated load needs no clean-up first
/// (SQL Server and MySQL write it alike).
pub fn replace_procedures<'a>(procedures: impl IntoIterator<Item = (&'a str, String)>) -> Vec<String> {
    procedures
        .into_iter()
        .flat_map(|(name, body)| [format!("DROP PROCEDURE IF EXISTS {name}"), body])
        .collect()
}

/// The procedures of `names` that are not created (`CREATE PROCEDURE name (`) in the statement right
/// after their `DROP PROCEDURE IF EXISTS name`: what every engine's procedures keep to, so that a
/// repeated load replaces them. Empty when all keep to it; each engine's tests ask it of its statements.
pub fn procedures_not_replaced<'a>(
    statements: &[String],
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    names
        .into_iter()
        .filter(|name| {
            let drop = statements.iter().position(|s| *s == format!("DROP PROCEDURE IF EXISTS {name}"));
            let create = statements.iter().position(|s| s.contains(&format!("CREATE PROCEDURE {name} (")));
            !matches!((drop, create), (Some(d), Some(c)) if d + 1 == c)
        })
        .collect()
}

/// The parenthesized text `text` starts with (nested parentheses included, as in `numeric(12,2)`), or
/// `None` when it starts otherwise (T-SQL procedures may list parameters without them).
fn argument_list(text: &str) -> Option<String> {
    if !text.starts_with('(') {
        return None;
    }
    let mut depth = 0;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => return Some(text[..=at].to_string()),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `CREATE [UNIQUE] INDEX` for `index`: every engine oltpgen drives writes it alike.
pub fn create_index(index: &Index) -> String {
    let unique = if index.unique { "UNIQUE " } else { "" };
    format!("CREATE {unique}INDEX {} ON {} ({})", index.name, index.table, index.columns.join(", "))
}

/// The statement dropping `table`'s primary key (`<table>_pkey`, as PostgreSQL and SQL Server name the
/// key a load adds) where it exists, both engines writing it alike; without `CASCADE`, so that a user's
/// foreign key to it makes it fail.
pub fn drop_primary_key(table: &TableDef) -> Option<String> {
    (!table.primary_key.is_empty())
        .then(|| format!("ALTER TABLE {t} DROP CONSTRAINT IF EXISTS {t}_pkey", t = table.name))
}

/// The statements that empty `tables` before a restore, one `TRUNCATE TABLE` each (SQL Server and
/// MySQL write it alike). The workloads' tables have no foreign keys among them, and none is added: a
/// user's table referring to one makes its `TRUNCATE` fail rather than empty the user's table too.
pub fn truncate_each(tables: &[&str]) -> Vec<String> {
    tables.iter().map(|t| format!("TRUNCATE TABLE {t}")).collect()
}

/// `names` as a list of SQL string literals, for a catalog query's `IN (…)` (the names are the
/// workloads' own identifiers).
pub fn string_literals(names: &[&str]) -> String {
    names.iter().map(|n| format!("'{}'", n.replace('\'', "''"))).collect::<Vec<_>>().join(", ")
}

/// `CREATE TABLE` for `table`, columns in generation order and no keys, in an engine's words: `type_name`
/// names each column type, `not_null` and `null` follow a column that may not or may be NULL.
pub fn create_table_as(
    table: &TableDef,
    type_name: impl Fn(ColumnType) -> String,
    not_null: &str,
    null: &str,
) -> String {
    let cols: Vec<String> = table
        .columns
        .iter()
        .map(|c| format!("{} {}{}", c.name, type_name(c.ty), if c.nullable { null } else { not_null }))
        .collect();
    format!("CREATE TABLE {} ({})", table.name, cols.join(", "))
}
