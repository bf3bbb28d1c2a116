//! [`WorkloadDef::check`]: a definition refused before anything is created, with one line naming the
//! table, column, transaction or statement at fault and what to write instead.

use std::collections::BTreeSet;

use super::marks::marks;
use super::{
    ACK_VALUES, AckSpec, Chars, ColumnSpec, Gen, Headline, ParamSpec, StatementSpec, TableSpec, TxnSpec,
    Value, WorkloadDef, parse_timestamp,
};
use crate::schema::ColumnType;

/// The longest identifier PostgreSQL keeps (`NAMEDATALEN` - 1 bytes); it cuts a longer one short.
const MAX_IDENTIFIER: usize = 63;

/// PostgreSQL's reserved key words (its documentation's appendix C, "reserved" and "reserved (can be
/// function or type)"): the DDL writes names unquoted, so a table called `order` would not parse.
const RESERVED: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "binary",
    "both",
    "case",
    "cast",
    "check",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "false",
    "fetch",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "group",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "intersect",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "natural",
    "not",
    "notnull",
    "null",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "overlaps",
    "placing",
    "primary",
    "references",
    "returning",
    "right",
    "select",
    "session_user",
    "similar",
    "some",
    "symmetric",
    "system_user",
    "table",
    "tablesample",
    "then",
    "to",
    "trailing",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
];

/// The longest YCSB key: `user` and the 20 digits of a 64-bit hash.
const YCSB_KEY_LEN: u16 = 24;

/// The first day and second a date or timestamp column may hold, counted from 1970-01-01 (0001-01-01),
/// and the last (9999-12-31, 23:59:59): every engine takes these years.
const DATE_DAYS: (i64, i64) = (-719_162, 2_932_896);
/// See [`DATE_DAYS`].
const TIMESTAMP_SECONDS: (i64, i64) = (DATE_DAYS.0 * 86_400, DATE_DAYS.1 * 86_400 + 86_399);

impl WorkloadDef {
    /// Whether the definition can be loaded and run: names are lower-case SQL identifiers, not reserved
    /// words, and unique; there is at least one table and one transaction; weights are above 0; every
    /// generator fits its column; primary-key columns exist and one of them is a sequence; every
    /// statement uses exactly `$1` to `$n` for its `n` parameters; every `rows_of` names a table.
    ///
    /// # Errors
    /// One line naming the part at fault and what to write instead.
    pub fn check(&self) -> Result<(), String> {
        identifier("workload name", &self.name)?;
        if self.tables.is_empty() {
            return Err(format!("workload {}: no tables: define at least one", self.name));
        }
        if self.transactions.is_empty() {
            return Err(format!("workload {}: no transactions: define at least one", self.name));
        }
        unique("table", self.tables.iter().map(|t| t.name.as_str()))?;
        unique("transaction", self.transactions.iter().map(|t| t.name.as_str()))?;
        for table in &self.tables {
            check_table(table)?;
            for c in &table.columns {
                if let Gen::KeyOf(other) = &c.generator
                    && self.table(other).is_none_or(|t| t.rows.at_1() == 0)
                {
                    return Err(format!(
                        "table {}, column {}: key_of names {other:?}, which is not a loaded table: name one with rows",
                        table.name, c.name
                    ));
                }
            }
        }
        for txn in &self.transactions {
            self.check_txn(txn)?;
        }
        for (i, check) in self.checks.iter().enumerate() {
            if check.name.trim().is_empty() || check.sql.trim().is_empty() {
                return Err(format!("check {}: give it a name and the SQL of its offending rows", i + 1));
            }
        }
        if let Some(Headline::PerMinute(name)) = &self.headline
            && !self.transactions.iter().any(|t| &t.name == name)
        {
            let names: Vec<&str> = self.transactions.iter().map(|t| t.name.as_str()).collect();
            return Err(format!(
                "headline: per_minute names {name:?}, which is not one of the transactions: name one of {}",
                names.join(", ")
            ));
        }
        Ok(())
    }

    /// The table named `name`.
    pub(super) fn table(&self, name: &str) -> Option<&TableSpec> {
        self.tables.iter().find(|t| t.name == name)
    }

    fn check_txn(&self, txn: &TxnSpec) -> Result<(), String> {
        let at = format!("transaction {}", txn.name);
        identifier("transaction name", &txn.name)?;
        if txn.name == "rt_tot" {
            // Results keep the name for DS2's sum of an order's operations, left out of overall figures.
            return Err(format!("{at}: rt_tot names DS2's composite entry in results: choose another name"));
        }
        if txn.weight == 0 {
            return Err(format!("{at}: weight 0: give it a weight above 0, or leave it out"));
        }
        if txn.statements.is_empty() {
            return Err(format!("{at}: no statements: give it at least one"));
        }
        if let Some(pct) = txn.rollback_pct.filter(|p| !(0.0..=100.0).contains(p)) {
            return Err(format!("{at}: rollback_pct = {pct}: give a percentage from 0 to 100"));
        }
        for (key, v) in [("keying_s", txn.keying_s), ("think_s", txn.think_s)] {
            if let Some(v) = v.filter(|v| !(0.0..=3600.0).contains(v)) {
                return Err(format!("{at}: {key} = {v}: give seconds from 0 to 3600"));
            }
        }
        for (i, statement) in txn.statements.iter().enumerate() {
            self.check_statement(&format!("{at}, statement {}", i + 1), statement)?;
        }
        if let Some(ack) = &txn.ack {
            check_ack(&at, txn, ack)?;
        }
        Ok(())
    }

    fn check_statement(&self, at: &str, statement: &StatementSpec) -> Result<(), String> {
        let n = statement.params.len();
        for (key, sql) in statement.variants() {
            let at = if key == "sql" { at.to_string() } else { format!("{at}, {key}") };
            if sql.trim().is_empty() {
                return Err(format!("{at}: the SQL is empty"));
            }
            let used = placeholders(sql);
            if let Some(&past) = used.iter().find(|&&p| p == 0 || p > n) {
                return Err(format!(
                    "{at}: uses ${past} but gives {n} params: give one param per placeholder, $1 first"
                ));
            }
            if let Some(missing) = (1..=n).find(|p| !used.contains(p)) {
                return Err(format!(
                    "{at}: gives {n} params but never uses ${missing}: use each of $1 to ${n}"
                ));
            }
        }
        for (i, param) in statement.params.iter().enumerate() {
            self.check_param(&format!("{at}, ${}", i + 1), param)?;
        }
        check_pick(at, statement)
    }

    fn check_param(&self, at: &str, param: &ParamSpec) -> Result<(), String> {
        match param {
            ParamSpec::Choice(values) if values.is_empty() => {
                return Err(format!("{at}: an empty choice: list at least one value"));
            }
            ParamSpec::Choice(values)
                if values.iter().any(|v| matches!(v, Value::Int(_)))
                    && values.iter().any(|v| matches!(v, Value::Text(_))) =>
            {
                return Err(format!(
                    "{at}: a choice of integers and texts: list integers only or texts only (\"7\" for a text)"
                ));
            }
            ParamSpec::Text(Chars { len, min_len }) | ParamSpec::Digits(Chars { len, min_len })
                if *len == 0 || min_len.is_some_and(|m| m > *len) =>
            {
                return Err(format!(
                    "{at}: a text of length {}..{len}: give len of 1 or more and min_len no more than len",
                    min_len.unwrap_or(*len)
                ));
            }
            ParamSpec::Timestamp { from, to } => {
                let at_of = |t: &str| {
                    parse_timestamp(t).ok_or_else(|| {
                        format!(
                            "{at}: timestamp {t:?} does not parse: write YYYY-MM-DD or YYYY-MM-DD HH:MM:SS"
                        )
                    })
                };
                if at_of(from)? > at_of(to)? {
                    return Err(format!("{at}: timestamp from {from:?} is after to {to:?}: swap them"));
                }
            }
            ParamSpec::Nurand { a, .. } if *a < 1 => {
                return Err(format!("{at}: nurand's a is {a}: give A above 0 (255, 1023, 8191)"));
            }
            ParamSpec::Zipfian { theta, .. } => theta_ok(at, *theta)?,
            ParamSpec::Exponential { parameter, .. } => exponential_ok(at, *parameter)?,
            ParamSpec::Gaussian { parameter, .. } => gaussian_ok(at, *parameter)?,
            ParamSpec::Ycsb { rows_of, .. } if self.table(rows_of).is_none_or(|t| t.rows.at_1() == 0) => {
                return Err(format!(
                    "{at}: rows_of names {rows_of:?}, which is not a loaded table: name one with rows"
                ));
            }
            _ => {}
        }
        let Some((min, max, rows_of)) = param.range() else { return Ok(()) };
        match (max, rows_of) {
            (Some(max), None) if min <= max => Ok(()),
            (Some(max), None) => Err(format!("{at}: min {min} is above max {max}")),
            (None, Some(table)) => match self.table(table) {
                None => Err(format!("{at}: rows_of names {table:?}, which is not one of the tables")),
                // Scale 1 has the fewest rows: a range not empty there is not empty at any scale.
                Some(t) if (t.rows.at_1() as i128) < i128::from(min) => {
                    Err(format!("{at}: min {min} is above the {} rows of {table} at scale 1", t.rows.at_1()))
                }
                Some(_) => Ok(()),
            },
            _ => Err(format!("{at}: give either max or rows_of, not both nor neither")),
        }
    }
}

fn check_table(table: &TableSpec) -> Result<(), String> {
    let at = format!("table {}", table.name);
    identifier("table name", &table.name)?;
    let rows = table.rows.at(1).map_err(|e| format!("{at}: {e}"))?;
    if table.columns.is_empty() {
        return Err(format!("{at}: no columns: define at least one"));
    }
    unique(&format!("{at}: column"), table.columns.iter().map(|c| c.name.as_str()))?;
    for column in &table.columns {
        identifier("column name", &column.name)?;
        check_column(&format!("{at}, column {}", column.name), column, rows)?;
    }
    unique(&format!("{at}: primary-key column"), table.primary_key.iter().map(String::as_str))?;
    for (i, index) in table.indexes.iter().enumerate() {
        let at = format!("{at}, index {}", i + 1);
        if index.is_empty() {
            return Err(format!("{at}: no columns: list the columns it indexes"));
        }
        if let Some(c) = index.iter().find(|c| !table.columns.iter().any(|col| &&col.name == c)) {
            return Err(format!("{at}: names {c:?}, which is not one of the table's columns"));
        }
        unique(&format!("{at}: column"), index.iter().map(String::as_str))?;
        identifier("index name", &index_name(&table.name, i))?;
    }
    let mut sequence = false;
    for key in &table.primary_key {
        let column = table.columns.iter().find(|c| &c.name == key);
        let Some(column) = column else {
            return Err(format!("{at}: primary key names {key:?}, which is not one of its columns"));
        };
        sequence |= matches!(column.generator, Gen::Sequence | Gen::YcsbKey);
    }
    if !table.primary_key.is_empty() && !sequence && rows > 0 {
        return Err(format!(
            "{at}: no primary-key column is generated as a sequence, so generated keys would repeat: make \
             one `gen = \"sequence\"`"
        ));
    }
    Ok(())
}

/// The name of index `i` (from 0) of `table`.
pub(super) fn index_name(table: &str, i: usize) -> String {
    format!("{table}_i{}", i + 1)
}

/// The smallest and largest integer a column of type `ty` takes from an integer generator; `None` for
/// a text column.
pub(super) fn int_range(ty: ColumnType) -> Option<(i64, i64)> {
    match ty {
        ColumnType::Int4 => Some((i32::MIN.into(), i32::MAX.into())),
        ColumnType::Int2 => Some((i16::MIN.into(), i16::MAX.into())),
        ColumnType::Numeric { precision, scale } => {
            // Whole numbers of at most precision - scale digits, whose scaled value fits an i64.
            let digits = u32::from(precision - scale);
            let whole = 10i64.checked_pow(digits).map_or(i64::MAX, |p| p - 1);
            let top = whole.min(i64::MAX / 10i64.pow(u32::from(scale)));
            Some((-top, top))
        }
        ColumnType::Date => Some(DATE_DAYS),
        ColumnType::Timestamp => Some(TIMESTAMP_SECONDS),
        ColumnType::Int8 => Some((i64::MIN, i64::MAX)),
        // Whole numbers a double holds exactly.
        ColumnType::Float8 => Some((-(1 << 53), 1 << 53)),
        ColumnType::Bool => Some((0, 1)),
        ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text => None,
    }
}

fn check_column(at: &str, column: &ColumnSpec, rows: u64) -> Result<(), String> {
    let ty = column.ty;
    let range = int_range(ty.0);
    let fits = |v: i64| range.is_some_and(|(lo, hi)| (lo..=hi).contains(&v));
    let text_len = match ty.0 {
        ColumnType::Char(n) | ColumnType::Varchar(n) => Some(n),
        ColumnType::Text => Some(u16::MAX),
        _ => None,
    };
    let integer = |g: &Gen| {
        matches!(
            g,
            Gen::Sequence
                | Gen::Uniform { .. }
                | Gen::Nurand { .. }
                | Gen::Zipfian { .. }
                | Gen::Exponential { .. }
                | Gen::Gaussian { .. }
                | Gen::KeyOf(_)
                | Gen::Constant(Value::Int(_))
        )
    };
    let text = |g: &Gen| matches!(g, Gen::Text(_) | Gen::Digits(_) | Gen::Constant(Value::Text(_)));
    let fits_text = |v: &str| v.len() <= usize::from(text_len.unwrap_or(0)) && !v.contains('\0');
    match &column.generator {
        g if integer(g) && range.is_none() => {
            Err(format!("{at}: an integer generator cannot fill {ty}: use text, digits or a text constant"))
        }
        g if text(g) && text_len.is_none() => {
            Err(format!("{at}: a text generator cannot fill {ty}: use char(n) or varchar(n)"))
        }
        Gen::Sequence if !fits(rows.try_into().unwrap_or(i64::MAX)) => {
            Err(format!("{at}: {rows} rows overflow {ty}: use a wider type"))
        }
        Gen::Uniform { min, max }
        | Gen::Nurand { min, max, .. }
        | Gen::Zipfian { min, max, .. }
        | Gen::Exponential { min, max, .. }
        | Gen::Gaussian { min, max, .. }
            if min > max =>
        {
            Err(format!("{at}: min {min} is above max {max}"))
        }
        Gen::Uniform { min, max }
        | Gen::Nurand { min, max, .. }
        | Gen::Zipfian { min, max, .. }
        | Gen::Exponential { min, max, .. }
        | Gen::Gaussian { min, max, .. }
            if !fits(*min) || !fits(*max) =>
        {
            Err(format!("{at}: [{min}, {max}] does not fit {ty}: use a wider type or a narrower range"))
        }
        Gen::Nurand { a, .. } if *a < 1 => {
            Err(format!("{at}: nurand's a is {a}: give A above 0 (255, 1023, 8191)"))
        }
        Gen::Zipfian { theta, .. } => theta_ok(at, *theta),
        Gen::Exponential { parameter, .. } => exponential_ok(at, *parameter),
        Gen::Gaussian { parameter, .. } => gaussian_ok(at, *parameter),
        Gen::Constant(Value::Int(v)) if !fits(*v) => Err(format!("{at}: {v} does not fit {ty}")),
        Gen::Choice(values) if values.is_empty() => {
            Err(format!("{at}: an empty choice: list at least one value"))
        }
        Gen::Choice(values) => {
            for v in values {
                match v {
                    Value::Int(i) if !fits(*i) => {
                        return Err(format!(
                            "{at}: the choice {i} does not fit {ty}: list values of its type"
                        ));
                    }
                    Value::Text(t) if !fits_text(t) => {
                        return Err(format!(
                            "{at}: the choice {t:?} does not fit {ty}: list values of its type"
                        ));
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        Gen::Text(Chars { len, min_len }) | Gen::Digits(Chars { len, min_len }) => match ty.0 {
            ColumnType::Char(n) if *len != n || min_len.is_some_and(|m| m != n) => {
                Err(format!("{at}: text of {len} characters for {ty}: make it {n}, min_len too"))
            }
            _ if *len == 0 || text_len.is_some_and(|n| *len > n) => {
                Err(format!("{at}: text of {len} characters for {ty}: give 1 to {}", text_len.unwrap_or(0)))
            }
            _ if min_len.is_some_and(|m| m == 0 || m > *len) => Err(format!(
                "{at}: min_len {} is not in 1 to len {len}: give one in it",
                min_len.unwrap_or(0)
            )),
            _ => Ok(()),
        },
        Gen::Timestamp { .. } if ty.0 != ColumnType::Timestamp => {
            Err(format!("{at}: a timestamp generator fills a timestamp column, not {ty}: make it timestamp"))
        }
        Gen::Timestamp { from, to } => match (parse_timestamp(from), parse_timestamp(to)) {
            (Some(a), Some(b)) if a <= b => Ok(()),
            (Some(_), Some(_)) => Err(format!("{at}: timestamp from {from:?} is after to {to:?}")),
            _ => Err(format!(
                "{at}: timestamp from {from:?} to {to:?}: write each as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS"
            )),
        },
        Gen::YcsbKey if !matches!(ty.0, ColumnType::Varchar(n) if n >= YCSB_KEY_LEN) => Err(format!(
            "{at}: ycsb_key makes keys of up to {YCSB_KEY_LEN} characters: use varchar({YCSB_KEY_LEN}) or wider"
        )),
        Gen::Constant(Value::Text(v)) if !fits_text(v) => {
            Err(format!("{at}: the constant {v:?} does not fit {ty} (too long, or it holds a NUL)"))
        }
        _ => Ok(()),
    }
}

/// A zipfian's θ: YCSB's generator takes 0 < θ < 1.
pub(super) fn theta_ok(at: &str, theta: f64) -> Result<(), String> {
    if theta > 0.0 && theta < 1.0 {
        Ok(())
    } else {
        Err(format!("{at}: zipfian theta {theta}: give one above 0 and below 1 (YCSB's is 0.99)"))
    }
}

/// An exponential's parameter, as pgbench takes it.
pub(super) fn exponential_ok(at: &str, parameter: f64) -> Result<(), String> {
    if parameter > 0.0 {
        Ok(())
    } else {
        Err(format!("{at}: exponential parameter {parameter}: give one above 0"))
    }
}

/// A Gaussian's parameter, as pgbench takes it.
pub(super) fn gaussian_ok(at: &str, parameter: f64) -> Result<(), String> {
    if parameter >= 2.0 {
        Ok(())
    } else {
        Err(format!("{at}: gaussian parameter {parameter}: give one of at least 2"))
    }
}

/// Refuses a name that the DDL, written unquoted, would not keep as written.
fn identifier(what: &str, name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !well_formed || name.len() > MAX_IDENTIFIER {
        return Err(format!(
            "{what} {name:?} is not an SQL identifier: use lower-case letters, digits and _, a letter or _ \
             first, at most {MAX_IDENTIFIER} of them"
        ));
    }
    if RESERVED.contains(&name) {
        return Err(format!("{what} {name:?} is a reserved SQL word: choose another name"));
    }
    Ok(())
}

/// Refuses the second of two equal names.
fn unique<'a>(what: &str, names: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(format!("{what} {name:?} is defined twice: give each its own name"));
        }
    }
    Ok(())
}

/// The placeholder numbers `sql` uses (`$1` is 1), outside string literals, quoted identifiers,
/// dollar-quoted strings and comments, as PostgreSQL's lexer reads them.
pub(super) fn placeholders(sql: &str) -> BTreeSet<usize> {
    marks(sql).into_iter().filter_map(|(_, m)| m.number()).collect()
}

/// `sql` with each placeholder `$n` replaced by `to(n)`, and the placeholders' numbers in the order
/// they stand: how an engine's session turns oltpgen's placeholders into its own (`?` on MySQL, whose
/// values then go in that order; `@Pn` on SQL Server).
///
/// ```
/// use oltpgen_datagen::defined::rewrite_placeholders;
/// let (sql, order) = rewrite_placeholders("UPDATE t SET v = $2 WHERE id = $1 AND s <> '$3'", |_| "?".into());
/// assert_eq!(sql, "UPDATE t SET v = ? WHERE id = ? AND s <> '$3'");
/// assert_eq!(order, [2, 1]);
/// ```
pub fn rewrite_placeholders(sql: &str, to: impl Fn(usize) -> String) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(sql.len());
    let mut order = Vec::new();
    let mut from = 0;
    for (span, n) in marks(sql).into_iter().filter_map(|(span, m)| Some((span, m.number()?))) {
        out.push_str(&sql[from..span.start]);
        out.push_str(&to(n));
        order.push(n);
        from = span.end;
    }
    out.push_str(&sql[from..]);
    (out, order)
}

/// The most texts a statement's `pick` chooses from: each is a statement every session prepares.
const MAX_PICKS: usize = 64;

/// A statement's `pick`: one name, of 1 to [`MAX_PICKS`] texts of letters, digits and `_`, written
/// `{name}` in each of its SQL texts.
fn check_pick(at: &str, statement: &StatementSpec) -> Result<(), String> {
    let mut picks = statement.pick.iter();
    let Some((name, texts)) = picks.next() else { return Ok(()) };
    if picks.next().is_some() {
        return Err(format!("{at}: pick names {} parts: pick one", statement.pick.len()));
    }
    let word = |t: &String| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if texts.is_empty() || texts.len() > MAX_PICKS || !texts.iter().all(word) {
        return Err(format!(
            "{at}: pick {name}: list 1 to {MAX_PICKS} texts of letters, digits and _ (names, as [\"field0\", \"field1\"])"
        ));
    }
    let mark = format!("{{{name}}}");
    for (key, sql) in statement.variants() {
        if !sql.contains(&mark) {
            return Err(format!("{at}: {key} does not write {mark}: write it where the picked text goes"));
        }
    }
    Ok(())
}

/// A transaction's `ack`: a statement it has, of parameters that fit an acknowledgement's key, and a
/// lookup in every dialect it gives.
fn check_ack(at: &str, txn: &TxnSpec, ack: &AckSpec) -> Result<(), String> {
    let n = txn.statements.len();
    let Some(statement) = ack.statement.checked_sub(1).and_then(|i| txn.statements.get(i)) else {
        return Err(format!(
            "{at}, ack: statement = {}: the transaction has statements 1 to {n}: name the one whose parameters are the committed key",
            ack.statement
        ));
    };
    if ack.row {
        // The key is the row it returns: how many columns only the server can tell (at prepare).
        return check_ack_lookups(at, ack);
    }
    // Named parameters count once each, in the order the statement writes them.
    let params = if statement.params.is_empty() {
        super::named::names_of(&statement.sql).len()
    } else {
        statement.params.len()
    };
    if params == 0 {
        return Err(format!(
            "{at}, ack: statement {} has no parameters to key what it committed: name a statement that writes its values from parameters",
            ack.statement
        ));
    }
    if params > ACK_VALUES {
        return Err(format!(
            "{at}, ack: statement {} has {params} parameters; a key keeps at most {ACK_VALUES}: name a statement of fewer",
            ack.statement
        ));
    }
    check_ack_lookups(at, ack)
}

/// An `ack`'s lookups: none of those it gives empty.
fn check_ack_lookups(at: &str, ack: &AckSpec) -> Result<(), String> {
    let given = [
        ("check", Some(&ack.check)),
        ("check_mysql", ack.check_mysql.as_ref()),
        ("check_mssql", ack.check_mssql.as_ref()),
    ];
    for (key, sql) in given.into_iter().filter_map(|(k, s)| Some((k, s?))) {
        if sql.trim().is_empty() {
            return Err(format!(
                "{at}, ack: {key} is empty: give the query of every key the database holds, one text column"
            ));
        }
    }
    Ok(())
}
