//! PostgreSQL: everything oltpgen says in PostgreSQL's dialect lives under this module, so that another
//! engine is an addition beside it, not a rewrite of the workloads.

pub mod bulk;
pub mod copy;
pub mod ds2_check;
pub mod ds2_ops;
pub mod ds2_reference;
pub mod ds2_sql;
pub mod meta;
pub mod pgpass;
pub mod schema;
pub mod tpcc_check;
pub mod tpcc_txn;

use std::collections::BTreeMap;

use tokio_postgres::{Client, NoTls};

use crate::error::pg_connect_error;
use crate::{Error, Target};

/// Opens one connection to `target`; the connection's I/O runs in its own task until the client drops.
///
/// # Errors
/// One line that says what went wrong and what to do about it (wrong password, no such database,
/// unreachable host), without the password.
pub async fn connect(target: &Target) -> Result<Client, Error> {
    let mut config = target.pg_config().clone();
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(std::time::Duration::from_secs(10));
    }
    let (client, connection) =
        config.connect(NoTls).await.map_err(|e| pg_connect_error(target.label(), &e))?;
    tokio::spawn(async move {
        // The connection ends with an error when the server goes away; the client sees it on its next call.
        let _ = connection.await;
    });
    Ok(client)
}

/// Wraps a database error met outside the measured run (load, check, drop) as a failure of the work.
pub fn failed(what: &str, target: &Target, err: &tokio_postgres::Error) -> Error {
    let msg = err.as_db_error().map_or_else(|| err.to_string(), |d| d.message().to_string());
    Error::failed(format!("{}: {what}: {msg}", target.label()))
}

/// Runs `query`, which yields one text column of offending keys: how many rows it yields and the first
/// `examples` of them, counted in the same statement so that count and examples agree. Every workload's
/// checks share it ([`tpcc_check`], [`ds2_check`]); `what` names the check in an error.
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

/// The server's identity and the settings a reader of a result needs to judge it.
#[derive(Clone, Debug, Default)]
pub struct ServerInfo {
    /// `server_version`, e.g. "15.18 (Debian 15.18-0+deb12u1)".
    pub version: String,
    /// Key settings by name (shared_buffers, max_connections, wal_level, synchronous_commit, …).
    pub settings: BTreeMap<String, String>,
}

impl ServerInfo {
    /// The server as a result records it.
    pub fn into_result(self) -> oltpgen_report::model::Server {
        oltpgen_report::model::Server {
            engine: "postgres".into(),
            version: self.version,
            settings: self.settings,
        }
    }
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
    Ok(ServerInfo { version, settings })
}

/// How many more client connections the server accepts, and why.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionRoom {
    /// max_connections.
    pub max: u32,
    /// superuser_reserved_connections (not ours to take).
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
