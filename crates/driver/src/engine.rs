//! The seam between the workloads and the database engines: a closed set of engines, chosen once from
//! the URL's scheme, and one connection type that is an enum over them. Every engine supplies, in its
//! own module (`pg/` for PostgreSQL; a second engine mirrors its layout): connecting and sorting its
//! errors ([`Fault`](crate::error::Fault)), the catalog (which tables exist, drop), the load record
//! (`oltpgen_meta`), DDL from datagen's table definitions, bulk load and statistics after it, server
//! info and settings for the result, room for connections, and each workload's transactions and
//! check queries.
//!
//! An enum rather than trait objects: the hot path (a workload's session running a transaction) is a
//! `match` the compiler sees through, with no boxing or dynamic dispatch per call, and adding an engine
//! is a compile error at every place that must learn about it. The user loop, pool, collector and
//! results never see an engine at all: they drive a [`Workload`](crate::run::Workload), whose session
//! type is itself an enum over engines.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use oltpgen_datagen::schema::{ColumnType, Dataset, Index, TableDef};

use crate::counters::{DbState, DbTotals};
use crate::inventory::MetaRow;
use crate::{Error, Target, mssql, pg};

/// The database engines oltpgen speaks; each has its own module (`pg` for PostgreSQL, `mssql` for SQL
/// Server).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// PostgreSQL, through tokio-postgres.
    Postgres,
    /// Microsoft SQL Server (and servers speaking its TDS and T-SQL, such as Babelfish), through tiberius.
    SqlServer,
}

impl Engine {
    /// The engine a URL's scheme names.
    ///
    /// # Errors
    /// [`Error::Usage`] for a scheme oltpgen does not speak (yet).
    pub fn of_scheme(scheme: &str) -> Result<Engine, Error> {
        match scheme.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => Ok(Engine::Postgres),
            "sqlserver" | "mssql" => Ok(Engine::SqlServer),
            other => Err(Error::usage(format!(
                "--url has an unknown scheme '{other}://': use {} or {}",
                Engine::Postgres.url_form(),
                Engine::SqlServer.url_form()
            ))),
        }
    }

    /// How a URL for this engine is written, for messages about a URL written wrong.
    pub fn url_form(self) -> &'static str {
        match self {
            Engine::Postgres => "postgres://user:password@host:port/dbname",
            Engine::SqlServer => "sqlserver://user:password@host:port/database",
        }
    }

    /// The engine's name as results record it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Postgres => "postgres",
            Engine::SqlServer => "sqlserver",
        }
    }
}

/// The server's identity and the settings a reader of a result needs to judge it.
#[derive(Clone, Debug)]
pub struct ServerInfo {
    /// Which engine.
    pub engine: Engine,
    /// The server's version, e.g. PostgreSQL's "15.18 (Debian 15.18-0+deb12u1)".
    pub version: String,
    /// Key settings by name (shared_buffers, max_connections, wal_level, synchronous_commit, …).
    pub settings: BTreeMap<String, String>,
}

impl ServerInfo {
    /// The server as a result records it.
    pub fn into_result(self) -> oltpgen_report::model::Server {
        oltpgen_report::model::Server {
            engine: self.engine.name().into(),
            version: self.version,
            settings: self.settings,
        }
    }
}

/// How many more client connections the server accepts, and why.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionRoom {
    /// The server's connection limit (PostgreSQL's max_connections, SQL Server's @@MAX_CONNECTIONS).
    pub max: u32,
    /// Connections kept for administrators (not ours to take).
    pub reserved: u32,
    /// Client connections open now (this one included).
    pub in_use: u32,
    /// What is left for a run.
    pub available: u32,
}

impl ConnectionRoom {
    /// Refuses a run that needs `needed` connections when fewer are left; `fix` says which flag helps.
    ///
    /// # Errors
    /// [`Error::Usage`] with the numbers, the fix and the server-side way out.
    pub fn require(&self, target: &Target, needed: u32, fix: &str) -> Result<(), Error> {
        if needed <= self.available {
            return Ok(());
        }
        Err(Error::usage(format!(
            "{target} can take {} more connections (max_connections {}, {} reserved, {} in use) and this run \
             needs {needed}: {fix}, or raise max_connections",
            self.available, self.max, self.reserved, self.in_use
        )))
    }
}

/// One connection to a target, outside the measured run (loads, checks, inventory, preparing a run).
pub enum Conn {
    /// A PostgreSQL connection.
    Postgres(pg::Client),
    /// A SQL Server connection.
    SqlServer(mssql::Conn),
}

impl Conn {
    /// Opens one connection to `target`.
    ///
    /// # Errors
    /// One line that says what went wrong and what to do about it (wrong password, no such database,
    /// unreachable host), without the password.
    pub async fn open(target: &Target) -> Result<Conn, Error> {
        match target.engine() {
            Engine::Postgres => Ok(Conn::Postgres(pg::connect(target).await?)),
            Engine::SqlServer => Ok(Conn::SqlServer(mssql::open(target).await?)),
        }
    }

    /// Which of `names` exist as tables in the connection's current schema.
    ///
    /// # Errors
    /// [`Error::Failed`] when the catalog cannot be read.
    pub async fn existing_tables(&self, target: &Target, names: &[&str]) -> Result<Vec<String>, Error> {
        match self {
            Conn::Postgres(c) => pg::schema::existing_tables(c, target, names).await,
            Conn::SqlServer(c) => mssql::schema::existing_tables(c, target, names).await,
        }
    }

    /// Drops a workload's `tables` and the `objects` its load created beside them (a function or
    /// procedure with the arguments the load gave it where the engine has overloads); what is not there
    /// is no error. Without `CASCADE`: when anything else depends on them, nothing is dropped.
    ///
    /// # Errors
    /// [`dependents_refusal`] when other objects depend on them; [`Error::Failed`] when a drop fails
    /// otherwise (e.g. the tables are in use).
    pub async fn drop_workload(
        &self,
        target: &Target,
        tables: &[&str],
        objects: &[Object],
    ) -> Result<(), Error> {
        match self {
            Conn::Postgres(c) => pg::schema::drop_workload(c, target, tables, objects).await,
            Conn::SqlServer(c) => {
                mssql::schema::drop_tables(c, target, tables).await?;
                // After the tables: a trigger's function can go once its trigger has gone with its table.
                mssql::schema::drop_objects(c, target, objects).await
            }
        }
    }

    /// Runs `statements` in order, as one batch; `what` names them in an error.
    ///
    /// # Errors
    /// [`Error::Failed`] when one fails.
    pub async fn batch(&self, target: &Target, what: &str, statements: &[String]) -> Result<(), Error> {
        match self {
            Conn::Postgres(c) => {
                c.batch_execute(&statements.join(";\n")).await.map_err(|e| pg::failed(what, target, &e))
            }
            // One batch each: T-SQL wants CREATE PROCEDURE (and friends) first in its batch.
            Conn::SqlServer(c) => {
                for sql in statements {
                    c.batch(target, what, sql).await?;
                }
                Ok(())
            }
        }
    }

    /// `workload`'s load record, `None` when there is none.
    ///
    /// # Errors
    /// [`Error::Failed`] when the record exists but cannot be read.
    pub async fn read_meta(&self, target: &Target, workload: &str) -> Result<Option<MetaRow>, Error> {
        match self {
            Conn::Postgres(c) => pg::meta::read(c, target, workload).await,
            Conn::SqlServer(c) => mssql::meta::read(c, target, workload).await,
        }
    }

    /// Writes `workload`'s load record.
    ///
    /// # Errors
    /// [`Error::Failed`] when the write fails.
    pub async fn write_meta(&self, target: &Target, workload: &str, row: &MetaRow) -> Result<(), Error> {
        match self {
            Conn::Postgres(c) => pg::meta::write(c, target, workload, row).await,
            Conn::SqlServer(c) => mssql::meta::write(c, target, workload, row).await,
        }
    }

    /// Removes `workload`'s load record.
    ///
    /// # Errors
    /// [`Error::Failed`] when the delete fails.
    pub async fn remove_meta(&self, target: &Target, workload: &str) -> Result<(), Error> {
        match self {
            Conn::Postgres(c) => pg::meta::remove(c, target, workload).await,
            Conn::SqlServer(c) => mssql::meta::remove(c, target, workload).await,
        }
    }

    /// The server's version and key settings.
    ///
    /// # Errors
    /// [`Error::Failed`] when they cannot be read.
    pub async fn server_info(&self, target: &Target) -> Result<ServerInfo, Error> {
        match self {
            Conn::Postgres(c) => pg::server_info(c, target).await,
            Conn::SqlServer(c) => mssql::server_info(c, target).await,
        }
    }

    /// The server's connection limit and use.
    ///
    /// # Errors
    /// [`Error::Failed`] when they cannot be read.
    pub async fn connection_room(&self, target: &Target) -> Result<ConnectionRoom, Error> {
        match self {
            Conn::Postgres(c) => pg::connection_room(c, target).await,
            Conn::SqlServer(c) => mssql::connection_room(c, target).await,
        }
    }

    /// The server's own counters now (commits, buffer hits, WAL, …; see [`crate::counters`]), read over
    /// this connection, which the sampler keeps for itself. What the login may not read comes back in
    /// [`DbTotals::unavailable`] and is not asked again (`state` remembers): never an error.
    pub async fn counters(&self, state: &mut DbState) -> DbTotals {
        match self {
            Conn::Postgres(c) => pg::counters::read(c, state).await,
            Conn::SqlServer(c) => mssql::counters::read(c, state).await,
        }
    }

    /// Runs a check's `query`, which yields one text column of offending keys: how many rows it yields
    /// and the first `examples` of them; `what` names the check in an error.
    ///
    /// # Errors
    /// [`Error::Failed`] when the query fails.
    pub async fn offending(
        &self,
        target: &Target,
        what: &str,
        query: &str,
        examples: i64,
    ) -> Result<(u64, Vec<String>), Error> {
        match self {
            Conn::Postgres(c) => pg::offending(c, target, what, query, examples).await,
            Conn::SqlServer(c) => mssql::offending(c, target, what, query, examples).await,
        }
    }
}

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
    Error::failed(format!(
        "{}: dropping tables: other objects depend on oltpgen's tables ({}): drop them first; nothing was dropped",
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

/// The engine's `CREATE TABLE` for `table`.
pub fn create_table(engine: Engine, table: &TableDef) -> String {
    match engine {
        Engine::Postgres => pg::schema::create_table(table),
        Engine::SqlServer => mssql::schema::create_table(table),
    }
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

/// The engine's statement adding `table`'s primary key, if it has one.
pub fn primary_key(engine: Engine, table: &TableDef) -> Option<String> {
    match engine {
        Engine::Postgres => pg::schema::primary_key(table),
        Engine::SqlServer => mssql::schema::primary_key(table),
    }
}

/// The engine's `CREATE INDEX` for `index`.
pub fn create_index(engine: Engine, index: &Index) -> String {
    match engine {
        Engine::Postgres => pg::schema::create_index(index),
        Engine::SqlServer => mssql::schema::create_index(index),
    }
}

/// The engine's statement that gathers the planner's statistics of `table` after a load.
pub fn statistics(engine: Engine, table: &str) -> String {
    match engine {
        Engine::Postgres => format!("ANALYZE {table}"),
        Engine::SqlServer => mssql::schema::statistics(table),
    }
}

/// Generates `chunks` of `data` on `workers` threads and bulk-loads them over `workers` connections,
/// calling `progress` with the rows of each chunk the server accepted.
///
/// # Errors
/// The first error of any connection.
pub async fn bulk_load<D: Dataset>(
    target: &Target,
    workers: usize,
    data: Arc<D>,
    chunks: Vec<D::Chunk>,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error> {
    match target.engine() {
        Engine::Postgres => pg::bulk::load_chunks(target, workers, data, chunks, progress).await,
        Engine::SqlServer => mssql::bulk::load_chunks(target, workers, data, chunks, progress).await,
    }
}

/// Runs `statements` over `connections` connections, in the order given, calling `done` after each.
///
/// # Errors
/// The first statement that fails.
pub async fn run_statements(
    target: &Target,
    connections: usize,
    statements: Vec<String>,
    done: impl Fn(&str) + Send + Sync + 'static,
) -> Result<(), Error> {
    let (statements, next, done) = (Arc::new(statements), Arc::new(AtomicUsize::new(0)), Arc::new(done));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..connections.clamp(1, statements.len().max(1)) {
        let (target, statements, next, done) =
            (target.clone(), statements.clone(), next.clone(), done.clone());
        tasks.spawn(async move {
            let conn = Conn::open(&target).await?;
            while let Some(sql) = statements.get(next.fetch_add(1, Ordering::Relaxed)) {
                conn.batch(&target, sql, std::slice::from_ref(sql)).await?;
                done(sql);
            }
            Ok(())
        });
    }
    first_error(&mut tasks).await
}

/// Waits for every task of a load; on the first error, cancels the rest and returns it.
pub(crate) async fn first_error(tasks: &mut tokio::task::JoinSet<Result<(), Error>>) -> Result<(), Error> {
    while let Some(joined) = tasks.join_next().await {
        let outcome = joined.unwrap_or_else(|e| Err(Error::failed(format!("a load task died: {e}"))));
        if let Err(e) = outcome {
            tasks.abort_all();
            return Err(e);
        }
    }
    Ok(())
}
