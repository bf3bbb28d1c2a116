//! Microsoft SQL Server, through tiberius (TDS): everything oltpgen says in T-SQL lives under this
//! module, laid out as `oltpgen_pg` is, and reached only through `oltpgen_driver::engine`. Like it, it answers
//! in the vocabulary ([`oltpgen_vocab`]) and imports nothing else of the crate but the bulk load's shared
//! half ([`oltpgen_vocab::chunks`]):
//!
//! | module | what the engine supplies |
//! |---|---|
//! | `mod.rs` (here) | connect, creating the database (`load --create-database`), a timeout on every query, batches of statements, server info and settings, room for connections, the check runner |
//! | [`error`] | connect errors as one line, and every error sorted into a [`Fault`](oltpgen_vocab::error::Fault) |
//! | [`target`] | `sqlserver://` URLs and ADO.NET strings parsed into this engine's settings |
//! | [`meta`] | the load record (`oltpgen_meta`) |
//! | [`schema`] | the catalog (which tables exist, drop), T-SQL DDL from datagen's table definitions, statistics after a load |
//! | [`bulk`] | TDS bulk insert over many connections |
//! | [`counters`] | the server's perfmon counters, file I/O and lock waits, for the sampler |
//! | [`tpcc`] | TPC-C's transactions as stored procedures, a run's sessions and the queries of its checks |
//! | [`defined`] | a workload defined at run time: a session running its drawn statements in one transaction |
//! | [`ds2`] | DS2's operations as its SQL Server build's stored procedures, its checks, databases DS2's installer built |
//!
//! Babelfish (a SQL Server layer on PostgreSQL, the server the tests run against) is detected once at
//! connect (`SERVERPROPERTY('Babelfish')`); where it lacks a feature the code takes a fallback and says
//! so where it does.

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

use tokio::net::TcpStream;
use tokio::sync::Mutex;
use tokio_util::compat::{Compat, TokioAsyncWriteCompatExt};

use self::error::connect_error;
use oltpgen_vocab::create::{CreateDatabase, CreateFault};
use oltpgen_vocab::server::{ConnectionRoom, ServerInfo};
use oltpgen_vocab::target::Engine;
use oltpgen_vocab::{Error, Target};

/// A tiberius client on a tokio TCP stream.
pub type Client = tiberius::Client<Compat<TcpStream>>;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a statement outside the measured run may take (index builds on big tables included): a
/// Babelfish error raised while a result streams can leave tiberius waiting for ever.
pub const ADMIN_TIMEOUT: Duration = Duration::from_secs(4 * 3600);

/// One connection outside the measured run; tiberius' calls take `&mut`, the engine's `&`.
pub struct Conn {
    client: Mutex<Box<Client>>,
}

impl Conn {
    /// Runs `f` on the client, under [`ADMIN_TIMEOUT`].
    ///
    /// # Errors
    /// `f`'s error, or [`Error::Failed`] naming `what` when it timed out.
    pub async fn with<T, F>(&self, target: &Target, what: &str, f: F) -> Result<T, Error>
    where
        F: AsyncFnOnce(&mut Client) -> Result<T, tiberius::error::Error>,
    {
        let mut client = self.client.lock().await;
        timed(ADMIN_TIMEOUT, f(&mut client)).await.map_err(|e| failed(what, target, &e))
    }

    /// Runs `sql` (one batch, no parameters) and returns every result set's rows.
    ///
    /// # Errors
    /// [`Error::Failed`] naming `what`.
    pub async fn batch(
        &self,
        target: &Target,
        what: &str,
        sql: &str,
    ) -> Result<Vec<Vec<tiberius::Row>>, Error> {
        self.with(target, what, async |c| c.simple_query(sql).await?.into_results().await).await
    }
}

/// Runs `fut` with a time limit; running out is an I/O error (the connection is then unusable).
pub async fn timed<T>(
    limit: Duration,
    fut: impl Future<Output = Result<T, tiberius::error::Error>>,
) -> Result<T, tiberius::error::Error> {
    tokio::time::timeout(limit, fut).await.unwrap_or_else(|_| {
        Err(tiberius::error::Error::Io {
            kind: std::io::ErrorKind::TimedOut,
            message: format!("no answer within {}", humantime::format_duration(limit)),
        })
    })
}

/// `target`'s SQL Server settings.
fn config(target: &Target) -> &Config {
    target.settings().expect("the engine chose SQL Server from the target")
}

/// Opens one tiberius connection to `target` (following one Azure gateway redirect).
///
/// # Errors
/// One line that says what went wrong and what to do about it (wrong password, no such database,
/// TLS refused, not a SQL Server port, unreachable host), without the password.
pub async fn connect(target: &Target) -> Result<Client, Error> {
    let mut tds = config(target).tds.clone();
    let label = target.label();
    let attempt = async |tds: tiberius::Config| -> Result<Client, tiberius::error::Error> {
        let addr = tds.get_addr();
        let tcp = TcpStream::connect(&addr).await?;
        tcp.set_nodelay(true)?;
        Client::connect(tds, tcp.compat_write()).await
    };
    let first = timed(CONNECT_TIMEOUT, attempt(tds.clone())).await;
    let result = match first {
        // Azure SQL's gateway hands the client on to the node that holds the database.
        Err(tiberius::error::Error::Routing { host, port }) => {
            tds.host(host);
            tds.port(port);
            timed(CONNECT_TIMEOUT, attempt(tds)).await
        }
        other => other,
    };
    result.map_err(|e| match e {
        tiberius::error::Error::Server(_) if !config(target).has_secret => Error::usage(format!(
            "{label}: the server refused the login and no password was given: put it in --url or set {}",
            target::PASSWORD_VAR
        )),
        e => connect_error(label, &e),
    })
}

/// Opens one connection for work outside the measured run.
///
/// # Errors
/// See [`connect`].
pub async fn open(target: &Target) -> Result<Conn, Error> {
    Ok(Conn { client: Mutex::new(Box::new(connect(target).await?)) })
}

/// The longest database name SQL Server takes (a `sysname`, in characters; the names created are ASCII).
const MAX_NAME_CHARS: usize = 128;

/// SQL Server's steps of `load --create-database` ([`create_database`](oltpgen_vocab::create::create_database)): the admin database is
/// `master`, reached with the same login; `DB_ID` knows the databases.
pub struct Create;

impl CreateDatabase for Create {
    type Admin = Client;
    type Fault = tiberius::error::Error;
    const MAX_NAME: usize = MAX_NAME_CHARS;
    const DENIED_ADVICE: &'static str =
        "log in as one who may create databases (dbcreator), or have the database created";

    async fn reaches(target: &Target) -> bool {
        connect(target).await.is_ok()
    }

    async fn admin(target: &Target) -> Result<(Client, Target), Error> {
        let admin_target = target::with_dbname(target, "master");
        Ok((connect(&admin_target).await?, admin_target))
    }

    async fn exists(admin: &mut Client, name: &str) -> Result<bool, tiberius::error::Error> {
        let literal = name.replace('\'', "''");
        let known = format!("SELECT CAST(CASE WHEN DB_ID(N'{literal}') IS NULL THEN 0 ELSE 1 END AS int)");
        let row = timed(ADMIN_TIMEOUT, async { admin.simple_query(known).await?.into_row().await }).await?;
        Ok(row.and_then(|r| r.get::<i32, _>(0)) == Some(1))
    }

    async fn create(admin: &mut Client, name: &str) -> Result<(), tiberius::error::Error> {
        let create = format!("CREATE DATABASE [{}]", name.replace(']', "]]"));
        timed(ADMIN_TIMEOUT, async { admin.simple_query(create).await?.into_results().await }).await.map(drop)
    }

    fn fault(e: &tiberius::error::Error) -> CreateFault {
        match e {
            // 1801: created meanwhile by someone else.
            tiberius::error::Error::Server(e) if e.code() == 1801 => CreateFault::Exists,
            // 262: CREATE DATABASE permission denied.
            tiberius::error::Error::Server(e) if e.code() == 262 => {
                CreateFault::Denied(e.message().to_string())
            }
            _ => CreateFault::Other,
        }
    }

    fn failed(what: &str, target: &Target, e: &tiberius::error::Error) -> Error {
        failed(what, target, e)
    }
}

/// Wraps an error met outside the measured run (load, check, drop) as a failure of the work.
pub fn failed(what: &str, target: &Target, err: &tiberius::error::Error) -> Error {
    let msg = match err {
        tiberius::error::Error::Server(e) => e.message().to_string(),
        other => other.to_string(),
    };
    Error::failed(format!("{}: {what}: {msg}", target.label()))
}

/// Runs `statements` in order, one batch each (T-SQL wants `CREATE PROCEDURE` and friends first in
/// their batch); `what` names them in an error.
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
        conn.batch(target, what, sql).await?;
    }
    Ok(())
}

/// Runs `query`, which yields one text column `k` of offending keys: how many rows it yields and the
/// first `examples` of them, counted in the same statement.
///
/// A common table expression read twice (the rows, their count) rather than `COUNT_BIG(*) OVER ()`
/// beside `TOP`: Babelfish plans the window under the `TOP` as if its first rows came early (its
/// PostgreSQL does not cost the whole partition a window over `()` reads first) and takes nested loops
/// that keep the order, which made a `check --sample` condition on one warehouse of two take 38 s
/// (900 million join comparisons) where the whole one took 0.6 s; the common table expression, read
/// twice, is planned for all its rows (hash joins: 0.6 s).
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
        "WITH v AS ({query}) SELECT TOP ({examples}) v.k, (SELECT COUNT_BIG(*) FROM v) FROM v ORDER BY v.k"
    );
    let rows = conn.batch(target, what, &sql).await?.into_iter().next().unwrap_or_default();
    let total = rows.first().and_then(|r| r.get::<i64, _>(1)).unwrap_or(0) as u64;
    Ok((total, rows.iter().map(|r| r.get::<&str, _>(0).unwrap_or("").to_string()).collect()))
}

/// Whether `conn`'s server is Babelfish (SQL Server says NULL for the property).
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn is_babelfish(conn: &Conn, target: &Target) -> Result<bool, Error> {
    let rows =
        conn.batch(target, "asking for Babelfish", "SELECT CAST(SERVERPROPERTY('Babelfish') AS int)").await?;
    Ok(rows.first().and_then(|r| r.first()).and_then(|r| r.get::<i32, _>(0)) == Some(1))
}

/// Reads the server's version and key settings: edition, the database's read-committed snapshot and
/// recovery model, max server memory, MAXDOP, and whether it is Babelfish. `sql_variant` values are
/// cast (tiberius cannot read them).
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn server_info(conn: &Conn, target: &Target) -> Result<ServerInfo, Error> {
    let sql = "SELECT @@VERSION, CAST(SERVERPROPERTY('Edition') AS nvarchar(128)), \
         CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)), \
         (SELECT CAST(is_read_committed_snapshot_on AS int) FROM sys.databases WHERE name = DB_NAME()), \
         (SELECT CAST(recovery_model_desc AS nvarchar(60)) FROM sys.databases WHERE name = DB_NAME()), \
         (SELECT CAST(value_in_use AS bigint) FROM sys.configurations WHERE name = 'max server memory (MB)'), \
         (SELECT CAST(value_in_use AS bigint) FROM sys.configurations WHERE name = 'max degree of parallelism'), \
         CAST(SERVERPROPERTY('Babelfish') AS int), @@MAX_CONNECTIONS";
    let rows = conn.batch(target, "reading server settings", sql).await?;
    let row = rows.first().and_then(|r| r.first()).ok_or_else(|| Error::failed("no server settings"))?;
    let text = |i: usize| row.get::<&str, _>(i).map(str::to_string);
    let int = |i: usize| row.get::<i64, _>(i).map(|v| v.to_string());
    let mut settings = BTreeMap::new();
    let mut put = |name: &str, v: Option<String>| {
        settings.insert(name.to_string(), v.unwrap_or_else(|| "unknown".into()));
    };
    put("edition", text(1));
    put("product_version", text(2));
    put("is_read_committed_snapshot_on", row.get::<i32, _>(3).map(|v| (v == 1).to_string()));
    put("recovery_model", text(4));
    put("max_server_memory_mb", int(5));
    put("max_degree_of_parallelism", int(6));
    put("babelfish", Some(if row.get::<i32, _>(7) == Some(1) { "yes" } else { "no" }.into()));
    put("max_connections", row.get::<i32, _>(8).map(|v| v.to_string()));
    let version = text(0).unwrap_or_default().lines().next().unwrap_or_default().trim().to_string();
    Ok(ServerInfo { engine: Engine::SqlServer, version, settings })
}

/// The server's clock now (`SYSUTCDATETIME`), in milliseconds since the Unix epoch.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn clock_ms(conn: &Conn, target: &Target) -> Result<f64, Error> {
    let sql = "DECLARE @t datetime2 = SYSUTCDATETIME(); \
         SELECT CAST(DATEDIFF(second, '19700101', @t) AS bigint) * 1000 + DATEPART(millisecond, @t)";
    let rows = conn.batch(target, "reading the server's clock", sql).await?;
    let row = rows.first().and_then(|r| r.first()).ok_or_else(|| Error::failed("no server clock"))?;
    Ok(row.get::<i64, _>(0).unwrap_or(0) as f64)
}

/// Reads the server's connection limit (`@@MAX_CONNECTIONS`) and the user sessions open now.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn connection_room(conn: &Conn, target: &Target) -> Result<ConnectionRoom, Error> {
    let sql =
        "SELECT @@MAX_CONNECTIONS, (SELECT COUNT(*) FROM sys.dm_exec_sessions WHERE is_user_process = 1)";
    let rows = conn.batch(target, "reading the connection limit", sql).await?;
    let row = rows.first().and_then(|r| r.first()).ok_or_else(|| Error::failed("no connection limit"))?;
    let (max, in_use) = (row.get::<i32, _>(0).unwrap_or(0) as u32, row.get::<i32, _>(1).unwrap_or(0) as u32);
    Ok(ConnectionRoom { max, reserved: 0, in_use, available: max.saturating_sub(in_use) })
}
