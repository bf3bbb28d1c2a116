//! Named parameters: a transaction's `params` table, written `:name` in its statements, turned into
//! the positional form every engine's session takes (`$1` … `$n` and each statement's own `params`),
//! with which of a transaction's drawn values repeat another (one name used twice draws once).

use super::marks::{Mark, marks};
use super::{StatementSpec, TxnSpec, WorkloadDef};

/// Per transaction, per parameter of its statements flattened in order (as a
/// [`Draw`](super::Draw)'s values are laid out): the earlier parameter whose value it repeats, or
/// `None` for a value drawn of its own.
pub(super) type Links = Vec<Vec<Option<usize>>>;

impl WorkloadDef {
    /// The definition with every named parameter made positional, and the links between repeated names.
    ///
    /// # Errors
    /// One line naming the transaction and statement: a name used but not defined (and what to write),
    /// a statement mixing `:name` with its own `params`, a dialect's SQL using other names than `sql`,
    /// a name defined and never used.
    pub(super) fn positional(mut self) -> Result<(WorkloadDef, Links), String> {
        let mut links = Vec::with_capacity(self.transactions.len());
        for txn in &mut self.transactions {
            links.push(positional_txn(txn)?);
        }
        Ok((self, links))
    }
}

fn positional_txn(txn: &mut TxnSpec) -> Result<Vec<Option<usize>>, String> {
    let mut links = Vec::new();
    // Where each name was first drawn, among the flattened parameters.
    let mut first: Vec<(String, usize)> = Vec::new();
    for (i, statement) in txn.statements.iter_mut().enumerate() {
        let at = format!("transaction {}, statement {}", txn.name, i + 1);
        let names = names_of(&statement.sql);
        if names.is_empty() {
            links.extend(std::iter::repeat_n(None, statement.params.len()));
            continue;
        }
        if !statement.params.is_empty() {
            return Err(format!(
                "{at}: uses :{} and gives params of its own: name every parameter (under the transaction's \
                 params) or number them all ($1 …)",
                names[0]
            ));
        }
        for name in &names {
            let Some(param) = txn.params.get(*name) else {
                return Err(format!(
                    "{at}: parameter :{name} is used but not defined: define it in the transaction, as \
                     params = {{ {name} = {{ uniform = {{ min = 1, max = 100 }} }} }}"
                ));
            };
            let at_index = links.len();
            links.push(first.iter().find(|(n, _)| n == name).map(|&(_, j)| j));
            if links[at_index].is_none() {
                first.push((name.to_string(), at_index));
            }
            statement.params.push(param.clone());
        }
        let names: Vec<String> = names.into_iter().map(str::to_string).collect();
        rewrite(statement, &names, &at)?;
    }
    if let Some(unused) = txn.params.keys().find(|k| !first.iter().any(|(n, _)| n == *k)) {
        return Err(format!(
            "transaction {}: parameter {unused} is defined but no statement uses :{unused}: use it or leave it out",
            txn.name
        ));
    }
    txn.params.clear();
    Ok(links)
}

/// The names `sql` uses, each once, in the order they first stand.
pub(super) fn names_of(sql: &str) -> Vec<&str> {
    let mut names = Vec::new();
    for (_, mark) in marks(sql) {
        if let Mark::Name(name) = mark
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// Each of the statement's SQL texts with `:name` as `$k`, `k` the name's place in `names`.
fn rewrite(statement: &mut StatementSpec, names: &[String], at: &str) -> Result<(), String> {
    let one = |sql: &str, key: &str| -> Result<String, String> {
        let mut out = String::with_capacity(sql.len());
        let mut from = 0;
        for (span, mark) in marks(sql) {
            let Mark::Name(name) = mark else {
                return Err(format!("{at}: {key} mixes $n with :name: name every parameter"));
            };
            let Some(k) = names.iter().position(|n| n == name) else {
                return Err(format!(
                    "{at}: {key} uses :{name}, which sql does not: use the same names in each"
                ));
            };
            out.push_str(&sql[from..span.start]);
            out.push_str(&format!("${}", k + 1));
            from = span.end;
        }
        out.push_str(&sql[from..]);
        Ok(out)
    };
    statement.sql = one(&statement.sql, "sql")?;
    if let Some(sql) = &statement.sql_mysql {
        statement.sql_mysql = Some(one(sql, "sql_mysql")?);
    }
    if let Some(sql) = &statement.sql_mssql {
        statement.sql_mssql = Some(one(sql, "sql_mssql")?);
    }
    Ok(())
}
