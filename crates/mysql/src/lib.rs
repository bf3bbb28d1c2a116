//! MySQL and MariaDB, through mysql_async: everything oltpgen says in MySQL's SQL lives under this
//! module, laid out as `oltpgen_pg` and `oltpgen_mssql` are, and reached only through
//! `oltpgen_driver::engine`. Like them, it answers in the vocabulary ([`oltpgen_vocab`]) and imports nothing
//! else of the crate but the bulk load's shared half ([`oltpgen_vocab::chunks`]):
//!
//! | module | what the engine supplies |
//! |---|---|
//! | `mod.rs` (here) | connect, creating the database (`load --create-database`), a timeout on every statement, batches of statements, server info and settings, room for connections, the check runner |
//! | [`error`] | connect errors as one line, and every error sorted into a [`Fault`](oltpgen_vocab::error::Fault) |
//! | [`target`] | `mysql://` and `mariadb://` URLs, the password from the URL, `~/.my.cnf` or `MYSQL_PWD` |
//! | [`meta`] | the load record (`oltpgen_meta`) |
//! | [`schema`] | the catalog (which tables exist, drop), InnoDB DDL from datagen's table definitions, statistics after a load |
//! | [`bulk`] | `LOAD DATA LOCAL INFILE` fed from oltpgen's own row stream, one statement per table, several tables at once |
//! | [`counters`] | the server's `SHOW GLOBAL STATUS`, for the sampler |
//! | [`tpcc`] | TPC-C's transactions as stored procedures or statements, a run's sessions and the queries of its checks |
//! | [`defined`] | a workload defined at run time: a session running its drawn statements in one transaction |
//! | [`ds2`] | DS2's operations as stored procedures or statements, a run's sessions, its schema beyond the tables and the queries of its checks |

// The stored procedures' shared pieces, before the modules that use them (macros are in scope
// from their definition on).

/// Rolls the transaction back and re-raises any error (first in every writing body).
macro_rules! on_error {
    () => {
        "DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;"
    };
}

/// The `k`-th element of a comma-separated list `list`, as an integer.
macro_rules! nth {
    ($list:literal) => {
        concat!("CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(", $list, ", ',', k), ',', -1) AS SIGNED)")
    };
}

pub mod bulk;
pub mod counters;
pub mod defined;
pub mod ds2;
pub mod error;
pub mod meta;
pub mod schema;
pub mod target;
pub mod tpcc;

pub use target::Config;

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use mysql_async::prelude::Queryable;
use tokio::sync::Mutex;

use self::error::{connect_error, txn_error};
use oltpgen_vocab::create::{CreateDatabase, CreateFault};
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::server::{ConnectionRoom, ServerInfo};
use oltpgen_vocab::target::Engine;
use oltpgen_vocab::{Error, Target};

/// How long connecting may take: a server that never sends MySQL's greeting (another protocol's port,
/// such as PostgreSQL's, which waits for the client to speak first) is given up then.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a statement outside the measured run may take (index builds on big tables included).
pub const ADMIN_TIMEOUT: Duration = Duration::from_secs(4 * 3600);

/// How long one transaction or operation of a run may take before its connection is given up as lost.
pub const TXN_TIMEOUT: Duration = Duration::from_secs(60);

/// Pins READ COMMITTED for a run's session (MySQL's default is REPEATABLE READ), as on the other
/// engines: the procedures and the statements run at the session's level.
pub const SESSION_ISOLATION: &str = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED";

/// Opens one connection of a run's at READ COMMITTED ([`SESSION_ISOLATION`]).
///
/// # Errors
/// [`TxnError::LOST`] when the server cannot be reached; the sorted error when the isolation cannot be
/// set.
pub async fn open_session(target: &Target) -> Result<mysql_async::Conn, TxnError> {
    let mut conn = connect(target).await.map_err(|_| TxnError::LOST)?;
    conn.query_drop(SESSION_ISOLATION).await.map_err(|e| txn_error(&e))?;
    Ok(conn)
}

/// What a run's transaction or operation on `conn` came to, sorted into the run's errors. When it
/// failed with the connection still there, what is left of its transaction is rolled back first: a
/// lock wait timeout (1205) rolls back only its statement, and a retry must not run inside the rest.
///
/// # Errors
/// `ran`'s error, sorted.
pub async fn settle<T>(
    conn: &mut mysql_async::Conn,
    ran: Result<T, mysql_async::Error>,
) -> Result<T, TxnError> {
    match ran {
        Ok(done) => Ok(done),
        Err(e) => {
            if matches!(e, mysql_async::Error::Server(_)) {
                let _ = timed(TXN_TIMEOUT, conn.query_drop("ROLLBACK")).await;
            }
            Err(txn_error(&e))
        }
    }
}

/// One connection outside the measured run; mysql_async's calls take `&mut`, the engine's `&`.
pub struct Conn {
    conn: Mutex<mysql_async::Conn>,
}

impl Conn {
    /// Runs `f` on the connection, under [`ADMIN_TIMEOUT`].
    ///
    /// # Errors
    /// `f`'s error, or [`Error::Failed`] naming `what` when it timed out.
    pub async fn with<T, F>(&self, target: &Target, what: &str, f: F) -> Result<T, Error>
    where
        F: AsyncFnOnce(&mut mysql_async::Conn) -> Result<T, mysql_async::Error>,
    {
        let mut conn = self.conn.lock().await;
        timed(ADMIN_TIMEOUT, f(&mut conn)).await.map_err(|e| failed(what, target, &e))
    }

    /// Runs `sql` (no parameters) and returns its rows.
    ///
    /// # Errors
    /// [`Error::Failed`] naming `what`.
    pub async fn rows(&self, target: &Target, what: &str, sql: &str) -> Result<Vec<mysql_async::Row>, Error> {
        self.with(target, what, async |c| c.query(sql).await).await
    }
}

/// Runs `fut` with a time limit; running out is an I/O error (the connection is then unusable).
pub async fn timed<T>(
    limit: Duration,
    fut: impl Future<Output = Result<T, mysql_async::Error>>,
) -> Result<T, mysql_async::Error> {
    tokio::time::timeout(limit, fut).await.unwrap_or_else(|_| {
        Err(mysql_async::Error::Io(mysql_async::IoError::Io(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("no answer within {}", humantime::format_duration(limit)),
        ))))
    })
}

/// `target`'s MySQL settings.
fn config(target: &Target) -> &Config {
    target.settings().expect("the engine chose MySQL from the target")
}

/// Opens one mysql_async connection to `target`.
///
/// # Errors
/// One line that says what went wrong and what to do about it (wrong password, no such database, not
/// a MySQL port, unreachable host), without the password.
pub async fn connect(target: &Target) -> Result<mysql_async::Conn, Error> {
    let opts = config(target).opts.clone();
    timed(CONNECT_TIMEOUT, mysql_async::Conn::new(opts)).await.map_err(|e| connect_error(target, &e))
}

/// Opens one connection for work outside the measured run.
///
/// # Errors
/// See [`connect`].
pub async fn open(target: &Target) -> Result<Conn, Error> {
    Ok(Conn { conn: Mutex::new(connect(target).await?) })
}

/// The longest database name MySQL and MariaDB take.
const MAX_NAME_CHARS: usize = 64;

/// MySQL's steps of `load --create-database` ([`create_database`](oltpgen_vocab::create::create_database)): the login connects without
/// a database; `information_schema` knows the databases.
pub struct Create;

impl CreateDatabase for Create {
    type Admin = mysql_async::Conn;
    type Fault = mysql_async::Error;
    const MAX_NAME: usize = MAX_NAME_CHARS;
    const DENIED_ADVICE: &'static str =
        "log in as one who may create databases (GRANT CREATE), or have the database created";

    async fn reaches(target: &Target) -> bool {
        connect(target).await.is_ok()
    }

    /// The server without a database; errors name `target` itself.
    async fn admin(target: &Target) -> Result<(mysql_async::Conn, Target), Error> {
        Ok((connect(&target::without_database(target)).await?, target.clone()))
    }

    async fn exists(admin: &mut mysql_async::Conn, name: &str) -> Result<bool, mysql_async::Error> {
        let sql = "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?";
        let known: Option<i64> = timed(ADMIN_TIMEOUT, admin.exec_first(sql, (name,))).await?;
        Ok(known.unwrap_or(0) > 0)
    }

    async fn create(admin: &mut mysql_async::Conn, name: &str) -> Result<(), mysql_async::Error> {
        timed(ADMIN_TIMEOUT, admin.query_drop(format!("CREATE DATABASE `{name}` CHARACTER SET utf8mb4")))
            .await
    }

    fn fault(e: &mysql_async::Error) -> CreateFault {
        match e {
            // 1007: created meanwhile by someone else.
            mysql_async::Error::Server(e) if e.code == 1007 => CreateFault::Exists,
            // 1044: access denied to the database (no CREATE privilege).
            mysql_async::Error::Server(e) if e.code == 1044 => CreateFault::Denied(e.message.clone()),
            _ => CreateFault::Other,
        }
    }

    fn failed(what: &str, target: &Target, e: &mysql_async::Error) -> Error {
        failed(what, target, e)
    }
}

/// Wraps an error met outside the measured run (load, check, drop) as a failure of the work.
pub fn failed(what: &str, target: &Target, err: &mysql_async::Error) -> Error {
    let msg = match err {
        mysql_async::Error::Server(e) => e.message.clone(),
        other => other.to_string(),
    };
    Error::failed(format!("{}: {what}: {msg}", target.label()))
}

/// Runs `statements` in order, one at a time (a `CREATE PROCEDURE` is one statement, its body's `;`
/// included); `what` names them in an error.
///
/// # Errors
/// [`Error::Failed`] when one fails.
pub async fn execute_batch(
    conn: &Conn,
    target: &Target,
    what: &str,
    statements: &[String],
) -> Result<(), Error> {
    for sql in statements {
        conn.with(target, what, async |c| c.query_drop(sql).await).await?;
    }
    Ok(())
}

/// Runs `query`, which yields one text column `k` of offending keys: how many rows it yields and the
/// first `examples` of them, counted in the same statement.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn offending(
    conn: &Conn,
    target: &Target,
    what: &str,
    query: &str,
    examples: i64,
) -> Result<(u64, Vec<String>), Error> {
    let sql = format!(
        "SELECT CAST(v.k AS CHAR), COUNT(*) OVER () FROM ({query}) v ORDER BY v.k LIMIT {}",
        examples.max(1)
    );
    let rows = conn.rows(target, what, &sql).await?;
    let total = rows.first().and_then(|r| r.get::<i64, _>(1)).unwrap_or(0) as u64;
    let keys = rows.iter().map(|r| r.get::<String, _>(0).unwrap_or_default());
    Ok((total, keys.take(examples.max(0) as usize).collect()))
}

/// The settings recorded with every result: durability (`innodb_flush_log_at_trx_commit`,
/// `sync_binlog`, the binary log), the buffer pool and redo log sizes, isolation, connections.
const RECORDED_SETTINGS: &[&str] = &[
    "version_comment",
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "log_bin",
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_flush_method",
    "innodb_doublewrite",
    "transaction_isolation",
    "tx_isolation",
    "max_connections",
    "default_storage_engine",
];

/// Reads the server's version and the settings of `RECORDED_SETTINGS` it has (MariaDB and MySQL
/// each lack one of `transaction_isolation` and `tx_isolation`).
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn server_info(conn: &Conn, target: &Target) -> Result<ServerInfo, Error> {
    let names: Vec<String> = RECORDED_SETTINGS.iter().map(|n| format!("'{n}'")).collect();
    let sql = format!(
        "SELECT LOWER(variable_name), variable_value FROM information_schema.global_variables \
         WHERE LOWER(variable_name) IN ({})",
        names.join(", ")
    );
    let rows = conn.rows(target, "reading server settings", &sql).await?;
    let mut settings: BTreeMap<String, String> = rows
        .iter()
        .map(|r| (r.get::<String, _>(0).unwrap_or_default(), r.get::<String, _>(1).unwrap_or_default()))
        .collect();
    let version: Option<String> =
        conn.with(target, "reading the version", async |c| c.query_first("SELECT VERSION()").await).await?;
    let version = version.unwrap_or_default();
    let flavour = if version.to_ascii_lowercase().contains("mariadb") { "mariadb" } else { "mysql" };
    settings.insert("flavour".into(), flavour.into());
    Ok(ServerInfo { engine: Engine::MySql, version, settings })
}

/// Reads the server's clock, milliseconds since the Unix epoch (for an agent's clock offset).
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn clock_ms(conn: &Conn, target: &Target) -> Result<f64, Error> {
    let ms: Option<String> = conn
        .with(target, "reading the server's clock", async |c| {
            c.query_first("SELECT CAST(UNIX_TIMESTAMP(SYSDATE(6)) * 1000 AS CHAR)").await
        })
        .await?;
    ms.and_then(|m| m.parse().ok()).ok_or_else(|| Error::failed("the server gave no clock"))
}

/// Reads the server's connection limit (`max_connections`; one more is kept for a `SUPER` login) and
/// the connections open now.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn connection_room(conn: &Conn, target: &Target) -> Result<ConnectionRoom, Error> {
    let row: Option<(i64, i64)> = conn
        .with(target, "reading the connection limit", async |c| {
            c.query_first(
                "SELECT @@max_connections, (SELECT COUNT(*) FROM information_schema.processlist \
                 WHERE command <> 'Daemon')",
            )
            .await
        })
        .await?;
    let (max, in_use) = row.map_or((0, 0), |(m, u)| (m.max(0) as u32, u.max(0) as u32));
    Ok(ConnectionRoom { max, reserved: 0, in_use, available: max.saturating_sub(in_use) })
}
