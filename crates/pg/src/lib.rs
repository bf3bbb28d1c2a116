//! PostgreSQL: everything oltpgen says in PostgreSQL's dialect lives under this module, so that another
//! engine is an addition beside it, not a rewrite of the workloads. The rest of the crate reaches it
//! only through `oltpgen_driver::engine`, whose enums have a PostgreSQL variant holding this module's types
//! (and the built-in PostgreSQL, `oltpgen_local`, which is this engine's own server). It answers in the
//! vocabulary ([`oltpgen_vocab`]) and imports nothing else of the crate but the bulk load's shared half
//! ([`oltpgen_vocab::chunks`]): nothing of the seam, the workloads or the other engine.
//!
//! The layout is the one a second engine mirrors (`mssql/` beside it):
//!
//! | module | what the engine supplies |
//! |---|---|
//! | `mod.rs` (here) | connect, creating the database (`load --create-database`), batches of statements, server info and settings, room for connections, the check runner |
//! | [`error`] | connect errors as one line, and every error sorted into a [`Fault`](oltpgen_vocab::error::Fault) |
//! | [`target`] | the URL parsed into this engine's settings |
//! | [`meta`] | the load record (`oltpgen_meta`) |
//! | [`schema`] | the catalog (which tables exist, drop), DDL from datagen's table definitions, statistics after a load |
//! | [`bulk`], [`copy`] | bulk load over many connections |
//! | [`counters`] | the server's own counters each interval (commits, buffer hits, WAL, checkpoints, …) |
//! | [`pristine`] | the faster `--restore` of a database oltpgen created: a pristine copy cloned back by `CREATE DATABASE … TEMPLATE` |
//! | [`tpcc`] | TPC-C's transactions, a run's sessions and the queries of its checks |
//! | [`ds2`] | DS2's schema extras and functions, its operations, its checks, and DS2's own databases |
//! | [`defined`] | a workload defined at run time: a session running its drawn statements in one transaction |

pub mod bulk;
pub mod copy;
pub mod counters;
pub mod defined;
pub mod ds2;
pub mod error;
pub mod meta;
pub mod pgpass;
pub mod pristine;
pub mod schema;
pub mod script;
pub mod target;
pub mod tpcc;

pub use tokio_postgres::{Client, Config};

use std::collections::BTreeMap;

use tokio_postgres::NoTls;

use self::error::connect_error;
use oltpgen_vocab::create::{CreateDatabase, CreateFault};
use oltpgen_vocab::server::{ConnectionRoom, ServerInfo};
use oltpgen_vocab::target::Engine;
use oltpgen_vocab::{Error, Target};

/// How long the whole handshake may take once the TCP connection is open, per server the URL names: a
/// port that accepts it but never answers PostgreSQL's startup message (another protocol there, such as
/// SQL Server's TDS) must not hang the command.
const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Opens one connection to `target`; the connection's I/O runs in its own task until the client drops.
///
/// # Errors
/// One line that says what went wrong and what to do about it (wrong password, no such database,
/// unreachable host, a port that does not speak PostgreSQL), without the password.
pub async fn connect(target: &Target) -> Result<Client, Error> {
    let settings = target::settings(target).expect("the engine chose PostgreSQL from the target");
    let mut config = settings.config.clone();
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(std::time::Duration::from_secs(10));
    }
    let label = target.label();
    let handshake = HANDSHAKE_TIMEOUT * target::hosts(&config) as u32;
    let (client, connection) = tokio::time::timeout(handshake, config.connect(NoTls))
        .await
        .map_err(|_| {
            Error::usage(format!(
                "{label}: no PostgreSQL answer within {} s: is it a PostgreSQL port? (a SQL Server takes \
                 a sqlserver:// URL)",
                handshake.as_secs()
            ))
        })?
        .map_err(|e| connect_error(label, &e, &settings.password_from))?;
    tokio::spawn(async move {
        // The connection ends with an error when the server goes away; the client sees it on its next call.
        let _ = connection.await;
    });
    Ok(client)
}

/// The longest database name PostgreSQL keeps (`NAMEDATALEN` - 1 bytes); it cuts a longer one short.
const MAX_NAME_BYTES: usize = 63;

/// PostgreSQL's steps of `load --create-database` ([`create_database`](oltpgen_vocab::create::create_database)): the admin database is
/// `postgres`, reached with the same login; the catalog is `pg_database`.
pub struct Create;

impl CreateDatabase for Create {
    type Admin = Client;
    type Fault = tokio_postgres::Error;
    const MAX_NAME: usize = MAX_NAME_BYTES;
    const DENIED_ADVICE: &'static str = "log in as a role with CREATEDB, or have the database created";

    async fn reaches(target: &Target) -> bool {
        connect(target).await.is_ok()
    }

    async fn admin(target: &Target) -> Result<(Client, Target), Error> {
        let admin_target = target::with_dbname(target, "postgres");
        Ok((connect(&admin_target).await?, admin_target))
    }

    async fn exists(admin: &mut Client, name: &str) -> Result<bool, tokio_postgres::Error> {
        Ok(admin.query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name]).await?.is_some())
    }

    async fn create(admin: &mut Client, name: &str) -> Result<(), tokio_postgres::Error> {
        admin.batch_execute(&format!("CREATE DATABASE {}", quoted(name))).await
    }

    fn fault(e: &tokio_postgres::Error) -> CreateFault {
        use tokio_postgres::error::SqlState;
        match e.code() {
            Some(&SqlState::DUPLICATE_DATABASE) => CreateFault::Exists,
            Some(&SqlState::INSUFFICIENT_PRIVILEGE) => CreateFault::Denied(
                e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string()),
            ),
            _ => CreateFault::Other,
        }
    }

    fn failed(what: &str, target: &Target, e: &tokio_postgres::Error) -> Error {
        failed(what, target, e)
    }
}

/// `name` as a quoted identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Wraps a database error met outside the measured run (load, check, drop) as a failure of the work.
pub fn failed(what: &str, target: &Target, err: &tokio_postgres::Error) -> Error {
    let msg = err.as_db_error().map_or_else(|| err.to_string(), |d| d.message().to_string());
    Error::failed(format!("{}: {what}: {msg}", target.label()))
}

/// Runs `statements` in order as one batch (one simple query: one implicit transaction); `what` names
/// them in an error.
///
/// # Errors
/// [`Error::Failed`] when one fails.
pub async fn execute_batch(
    client: &Client,
    target: &Target,
    what: &str,
    statements: &[String],
) -> Result<(), Error> {
    let running = CancelOnDrop::arm(client);
    let done = client.batch_execute(&statements.join(";\n")).await.map_err(|e| failed(what, target, &e));
    running.disarm();
    done
}

/// How long a cancel request may take to reach the server (a new connection, one packet).
const CANCEL_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The statement a client is running, cancelled on the server when this guard is dropped before
/// [`CancelOnDrop::disarm`]: work dropped part-way (Ctrl-C during a load, a sibling connection's
/// error) would otherwise go on on the server until it next writes to the client (an index build
/// runs to its end), holding its locks against the retry.
pub struct CancelOnDrop(Option<tokio_postgres::CancelToken>);

impl CancelOnDrop {
    /// Guards what `client` is about to run.
    pub fn arm(client: &Client) -> CancelOnDrop {
        CancelOnDrop(Some(client.cancel_token()))
    }

    /// The statement ended: nothing to cancel.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(token) = self.0.take() else { return };
        // A drop cannot await, and the runtime may be ending: the request goes from a thread of its own,
        // waited for (at most CANCEL_WAIT), so that it reaches the server before the process ends.
        let sent = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime
                .block_on(async { tokio::time::timeout(CANCEL_WAIT, token.cancel_query(NoTls)).await })
                .ok()
        });
        let _ = sent.join();
    }
}

/// Runs `query`, which yields one text column of offending keys: how many rows it yields and the first
/// `examples` of them, counted in the same statement so that count and examples agree. Every workload's
/// checks share it ([`tpcc::check`], [`ds2::check`]); `what` names the check in an error.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn offending(
    client: &Client,
    target: &Target,
    what: &str,
    query: &str,
    examples: i64,
) -> Result<(u64, Vec<String>), Error> {
    let sql = format!("SELECT k, count(*) OVER () FROM ({query}) v(k) LIMIT $1");
    let rows = client.query(&sql, &[&examples]).await.map_err(|e| failed(what, target, &e))?;
    let total = rows.first().map_or(0, |r| r.get::<_, i64>(1) as u64);
    Ok((total, rows.iter().map(|r| r.get(0)).collect()))
}

/// The settings recorded with every result.
const RECORDED_SETTINGS: &[&str] = &[
    "server_version",
    "max_connections",
    "shared_buffers",
    "effective_cache_size",
    "work_mem",
    "maintenance_work_mem",
    "max_wal_size",
    "wal_level",
    "synchronous_commit",
    "fsync",
    "full_page_writes",
    "default_transaction_isolation",
    "checkpoint_timeout",
    "random_page_cost",
    "jit",
];

/// Reads the server's version and key settings.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn server_info(client: &Client, target: &Target) -> Result<ServerInfo, Error> {
    let rows = client
        .query(
            "SELECT name, setting || coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)",
            &[&RECORDED_SETTINGS],
        )
        .await
        .map_err(|e| failed("reading server settings", target, &e))?;
    let mut settings: BTreeMap<String, String> =
        rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, String>(1))).collect();
    let version = settings.remove("server_version").unwrap_or_default();
    Ok(ServerInfo { engine: Engine::Postgres, version, settings })
}

/// The server's clock now, in milliseconds since the Unix epoch.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn clock_ms(client: &Client, target: &Target) -> Result<f64, Error> {
    let row = client
        .query_one("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8", &[])
        .await
        .map_err(|e| failed("reading the server's clock", target, &e))?;
    Ok(row.get(0))
}

/// Reads the server's connection limit and use.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn connection_room(client: &Client, target: &Target) -> Result<ConnectionRoom, Error> {
    let row = client
        .query_one(
            "SELECT current_setting('max_connections')::int4, current_setting('superuser_reserved_connections')::int4, \
             (SELECT count(*)::int4 FROM pg_stat_activity WHERE backend_type = 'client backend')",
            &[],
        )
        .await
        .map_err(|e| failed("reading max_connections", target, &e))?;
    let (max, reserved, in_use) =
        (row.get::<_, i32>(0) as u32, row.get::<_, i32>(1) as u32, row.get::<_, i32>(2) as u32);
    Ok(ConnectionRoom { max, reserved, in_use, available: max.saturating_sub(reserved + in_use) })
}
