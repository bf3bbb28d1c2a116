//! pgbench's script files: SQL commands (ended by `;`, their `:var` made parameters `$n`) and the
//! meta-commands oltpgen runs (`\set`, `\sleep`, `\gset`, `\aset`, `\if`, `\elif`, `\else`, `\endif`).
//! Everything else (`\shell`, `\setshell`, pipelines, `\;` compounds, unknown commands) is refused
//! naming the file and the line.

use std::fmt;

use super::expr::{Expr, is_name_char};

/// Where a SQL command's result rows go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Store {
    /// `\gset [prefix]`: exactly one row, each column into `prefix` + its name.
    Gset(String),
    /// `\aset [prefix]`: every row's columns, the last row winning; none is no change.
    Aset(String),
}

/// One SQL command of a script, ready to be prepared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sql {
    /// The text with each `:var` replaced by `$1`, `$2`, ... in order.
    pub text: String,
    /// The variable bound to each parameter (`$1` is `params[0]`).
    pub params: Vec<String>,
    /// Where the result goes (`\gset`, `\aset`), if anywhere.
    pub store: Option<Store>,
    /// The line the command starts on (1-based).
    pub line: usize,
}

/// How long `\sleep` waits: a number or a variable, in microseconds per unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Duration {
    /// A literal count.
    Count(i64),
    /// A variable read when the sleep runs.
    Var(String),
}

/// One step of a compiled script (`\if` chains are compiled to jumps).
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `\set name expression`.
    Set {
        /// The variable set.
        var: String,
        /// Its new value.
        expr: Expr,
    },
    /// `\sleep n [us|ms|s]`.
    Sleep {
        /// How many units.
        count: Duration,
        /// Microseconds per unit (1, 1,000 or 1,000,000).
        unit_us: u64,
    },
    /// A SQL command (an index into [`Script::sql`]).
    Sql(usize),
    /// Continue at command `to` unless `cond` is true (`\if`, `\elif`).
    JumpUnless {
        /// The branch's condition.
        cond: Expr,
        /// Where the next branch (or the end) starts.
        to: usize,
    },
    /// Continue at command `to` (the end of a branch taken).
    Jump {
        /// Where the `\endif` is.
        to: usize,
    },
}

/// Where a script's acknowledgement's key comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckFrom {
    /// The first row the statement returns (`-- oltpgen: ack` before a query).
    Row,
    /// The parameters the statement is sent (a built-in's history insert, named by oltpgen's wrapper,
    /// pgbench's text left verbatim).
    Params,
}

/// The statement whose result is a script's acknowledgement for lost commits, and the query that
/// reads the acknowledged keys back after a failover: a comment directive pgbench ignores,
/// `-- oltpgen: ack` on a line before the statement and `-- oltpgen: ack-check SELECT …` (the same
/// columns, in the same order, of every row the database holds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptAck {
    /// The statement (an index into [`Script::sql`]).
    pub sql: usize,
    /// Its row or its parameters.
    pub from: AckFrom,
    /// The lookup, run once after a failover (no `:variables`).
    pub check: String,
}

/// The directives' word in a comment: `-- oltpgen: …`.
const DIRECTIVE: &str = "oltpgen:";

/// A script read and compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// The name reports use (the file's name, or the built-in's).
    pub name: String,
    /// The steps, in order.
    pub commands: Vec<Command>,
    /// The SQL commands, in order of appearance.
    pub sql: Vec<Sql>,
    /// Its acknowledgement for lost commits, when it names one.
    pub ack: Option<ScriptAck>,
}

/// Why a script could not be read: the file, the line and pgbench's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// The script's name (its file).
    pub file: String,
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// Meta-commands pgbench has and oltpgen refuses, with why.
const REFUSED: [(&str, &str); 5] = [
    ("shell", "runs a shell command, which oltpgen does not run on its clients"),
    ("setshell", "runs a shell command, which oltpgen does not run on its clients"),
    ("startpipeline", "pipelines are not supported"),
    ("endpipeline", "pipelines are not supported"),
    ("syncpipeline", "pipelines are not supported"),
];

struct Reader<'a> {
    name: &'a str,
    script: Script,
    /// Open `\if` blocks: the pending false-jump to patch, the jumps to the end to patch, an `\else` seen,
    /// and the line of the `\if`.
    open: Vec<(Option<usize>, Vec<usize>, bool, usize)>,
    /// The line of an `-- oltpgen: ack` whose statement is still to come, and of one already placed.
    ack: (Option<usize>, Option<usize>),
    /// The lookup `-- oltpgen: ack-check` gave, with its line.
    check: Option<(String, usize)>,
}

impl Reader<'_> {
    fn err<T>(&self, line: usize, message: impl Into<String>) -> Result<T, ScriptError> {
        Err(ScriptError { file: self.name.to_string(), line, message: message.into() })
    }

    fn here(&self) -> usize {
        self.script.commands.len()
    }

    fn patch(&mut self, at: usize, to: usize) {
        match &mut self.script.commands[at] {
            Command::JumpUnless { to: t, .. } | Command::Jump { to: t } => *t = to,
            _ => unreachable!("only jumps are patched"),
        }
    }

    fn meta(&mut self, line: usize, text: &str) -> Result<(), ScriptError> {
        let text = text.trim();
        let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let rest = rest.trim();
        let expr = |r: &Self, what: &str| {
            Expr::parse(rest).or_else(|e| r.err(line, format!("\\{what}: expression error: {e}")))
        };
        match word.to_ascii_lowercase().as_str() {
            "set" => {
                let (var, e) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                if var.is_empty() || !var.chars().all(is_name_char) {
                    return self.err(line, format!("\\set: invalid variable name \"{var}\""));
                }
                let expr =
                    Expr::parse(e).or_else(|e| self.err(line, format!("\\set: expression error: {e}")))?;
                self.script.commands.push(Command::Set { var: var.to_string(), expr });
            }
            "sleep" => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let count = match words.first() {
                    Some(v) if v.starts_with(':') => Duration::Var(v[1..].to_string()),
                    Some(v) => Duration::Count(
                        v.parse()
                            .or_else(|_| self.err(line, format!("\\sleep: invalid sleep time \"{v}\"")))?,
                    ),
                    None => return self.err(line, "\\sleep: missing argument"),
                };
                let unit_us = match words.get(1).map(|u| u.to_ascii_lowercase()) {
                    None => 1_000_000,
                    Some(u) if u == "s" => 1_000_000,
                    Some(u) if u == "ms" => 1_000,
                    Some(u) if u == "us" => 1,
                    Some(u) => {
                        return self
                            .err(line, format!("\\sleep: unrecognized time unit \"{u}\" (us, ms or s)"));
                    }
                };
                if words.len() > 2 {
                    return self.err(line, "\\sleep: too many arguments");
                }
                self.script.commands.push(Command::Sleep { count, unit_us });
            }
            w @ ("gset" | "aset") => {
                let prefix = rest.to_string();
                let store = if w == "gset" { Store::Gset(prefix) } else { Store::Aset(prefix) };
                match self.script.commands.last() {
                    Some(Command::Sql(i)) if self.script.sql[*i].store.is_none() => {
                        let i = *i;
                        self.script.sql[i].store = Some(store);
                    }
                    _ => return self.err(line, format!("\\{w} must follow an SQL command")),
                }
            }
            "if" => {
                let cond = expr(self, "if")?;
                let at = self.here();
                self.script.commands.push(Command::JumpUnless { cond, to: 0 });
                self.open.push((Some(at), Vec::new(), false, line));
            }
            "elif" => {
                let cond = expr(self, "elif")?;
                let jump = self.here();
                let Some((pending, ends, seen_else, _)) = self.open.pop() else {
                    return self.err(line, "\\elif without matching \\if");
                };
                if seen_else {
                    return self.err(line, "\\elif after \\else");
                }
                self.script.commands.push(Command::Jump { to: 0 });
                let at = self.here();
                if let Some(p) = pending {
                    self.patch(p, at);
                }
                self.script.commands.push(Command::JumpUnless { cond, to: 0 });
                let mut ends = ends;
                ends.push(jump);
                self.open.push((Some(at), ends, false, line));
            }
            "else" => {
                let Some((pending, mut ends, seen_else, if_line)) = self.open.pop() else {
                    return self.err(line, "\\else without matching \\if");
                };
                if seen_else {
                    return self.err(line, "\\else after \\else");
                }
                ends.push(self.here());
                self.script.commands.push(Command::Jump { to: 0 });
                let at = self.here();
                if let Some(p) = pending {
                    self.patch(p, at);
                }
                self.open.push((None, ends, true, if_line));
            }
            "endif" => {
                let Some((pending, ends, _, _)) = self.open.pop() else {
                    return self.err(line, "\\endif without matching \\if");
                };
                let at = self.here();
                for j in pending.into_iter().chain(ends) {
                    self.patch(j, at);
                }
            }
            other => {
                if let Some((_, why)) = REFUSED.iter().find(|(w, _)| *w == other) {
                    return self.err(line, format!("\\{other} is not supported by oltpgen: {why}"));
                }
                return self.err(line, format!("invalid command \\{other}"));
            }
        }
        Ok(())
    }

    fn sql(&mut self, line: usize, text: &str) {
        let (text, params) = parameters(text.trim());
        self.script.sql.push(Sql { text, params, store: None, line });
        self.script.commands.push(Command::Sql(self.script.sql.len() - 1));
        if let Some(at) = self.ack.0.take() {
            self.ack.1 = Some(at);
            let check = String::new();
            self.script.ack = Some(ScriptAck { sql: self.script.sql.len() - 1, from: AckFrom::Row, check });
        }
    }

    /// An `-- oltpgen: …` comment on `line` (`text` after the word).
    fn directive(&mut self, line: usize, text: &str) -> Result<(), ScriptError> {
        let text = text.trim();
        let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        match (word, rest.trim()) {
            ("ack", "") => {
                if let Some(first) = self.ack.0.or(self.ack.1) {
                    return self.err(line, format!("a second `-- oltpgen: ack` (the first on line {first}): a script has one acknowledgement"));
                }
                self.ack.0 = Some(line);
            }
            ("ack", _) => return self.err(line, "`-- oltpgen: ack` takes nothing after it: put the lookup in `-- oltpgen: ack-check SELECT …`"),
            ("ack-check", "") => return self.err(line, "`-- oltpgen: ack-check` needs its query: `-- oltpgen: ack-check SELECT <the acknowledged row's columns> FROM …`"),
            ("ack-check", sql) => {
                if let Some((_, first)) = &self.check {
                    return self.err(line, format!("a second `-- oltpgen: ack-check` (the first on line {first}): a script has one lookup"));
                }
                if !parameters(sql).1.is_empty() {
                    return self.err(line, "`-- oltpgen: ack-check` takes no :variables: it reads back every acknowledged row at once, after the run");
                }
                self.check = Some((sql.trim_end_matches(';').trim().to_string(), line));
            }
            (other, _) => {
                return self.err(line, format!("unknown directive `-- oltpgen: {other}`: give `-- oltpgen: ack` (before the statement whose row acknowledges the commit) or `-- oltpgen: ack-check SELECT …`"));
            }
        }
        Ok(())
    }

    /// The acknowledgement and its lookup, checked whole at the script's end.
    fn finish_ack(&mut self) -> Result<(), ScriptError> {
        if let Some(line) = self.ack.0 {
            return self.err(line, "`-- oltpgen: ack` names no statement: put it on a line before the statement whose row acknowledges the commit");
        }
        match (self.ack.1, self.check.take()) {
            (Some(_), Some((sql, _))) => {
                if let Some(ack) = &mut self.script.ack {
                    ack.check = sql;
                }
                Ok(())
            }
            (Some(line), None) => self.err(line, "`-- oltpgen: ack` needs its lookup: add `-- oltpgen: ack-check SELECT <the acknowledged row's columns> FROM …`"),
            (None, Some((_, line))) => self.err(line, "`-- oltpgen: ack-check` without `-- oltpgen: ack`: put `-- oltpgen: ack` on a line before the statement whose row acknowledges the commit"),
            (None, None) => Ok(()),
        }
    }
}

/// Replaces each `:name` of a SQL command by `$1`, `$2`, ... (`::` casts left alone), as pgbench's
/// `-M prepared` does: every occurrence is a parameter of its own.
pub fn parameters(sql: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(sql.len());
    let mut params = Vec::new();
    let mut rest = sql;
    while let Some(i) = rest.find(':') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(stripped) = after.strip_prefix(':') {
            out.push_str("::");
            rest = stripped;
            continue;
        }
        let name: String = after.chars().take_while(|&c| is_name_char(c)).collect();
        if name.is_empty() {
            out.push(':');
            rest = after;
            continue;
        }
        params.push(name.clone());
        out.push_str(&format!("${}", params.len()));
        rest = &after[name.len()..];
    }
    out.push_str(rest);
    (out, params)
}

impl Script {
    /// Reads a script's text; `name` is what its errors and reports call it (the file).
    pub fn parse(name: &str, text: &str) -> Result<Script, ScriptError> {
        let mut r = Reader {
            name,
            script: Script { name: name.to_string(), commands: Vec::new(), sql: Vec::new(), ack: None },
            open: Vec::new(),
            ack: (None, None),
            check: None,
        };
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        let mut line = 1;
        let mut sql = String::new();
        let mut sql_line = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            if c == '\\' {
                if next == Some(';') {
                    return r.err(
                        line,
                        "compound commands (\\;) are not supported by oltpgen (queries run prepared)",
                    );
                }
                if !sql.trim().is_empty() {
                    r.sql(sql_line, &sql);
                }
                sql.clear();
                // A meta-command runs to the end of its line; a backslash at a line's end continues it.
                let start_line = line;
                let mut meta = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '\n' {
                    if chars[i] == '\\' && chars.get(i + 1) == Some(&'\n') {
                        meta.push(' ');
                        i += 2;
                        line += 1;
                        continue;
                    }
                    meta.push(chars[i]);
                    i += 1;
                }
                r.meta(start_line, &meta)?;
                continue;
            }
            if c == '-' && next == Some('-') {
                let from = i + 2;
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                // pgbench ignores a comment; oltpgen reads its own directives in one.
                let comment: String = chars[from..i].iter().collect();
                if let Some(directive) = comment.trim_start().strip_prefix(DIRECTIVE) {
                    r.directive(line, directive)?;
                }
                continue;
            }
            if c == '\n' {
                line += 1;
            }
            if sql.trim().is_empty() && !c.is_whitespace() {
                sql_line = line;
            }
            if c == ';' {
                if !sql.trim().is_empty() {
                    r.sql(sql_line, &sql);
                }
                sql.clear();
                i += 1;
                continue;
            }
            if c == '\'' || c == '"' {
                // A quoted literal or name, copied whole (its doubled quotes included).
                sql.push(c);
                i += 1;
                while i < chars.len() {
                    sql.push(chars[i]);
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    if chars[i] == c {
                        if chars.get(i + 1) == Some(&c) {
                            sql.push(c);
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
                continue;
            }
            if c == '/' && next == Some('*') {
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 2;
                sql.push(' ');
                continue;
            }
            sql.push(c);
            i += 1;
        }
        if !sql.trim().is_empty() {
            r.sql(sql_line, &sql);
        }
        if let Some((.., if_line)) = r.open.last() {
            return r.err(*if_line, "\\if without matching \\endif");
        }
        r.finish_ack()?;
        if r.script.commands.is_empty() {
            return r.err(1, "empty script");
        }
        Ok(r.script)
    }
}
