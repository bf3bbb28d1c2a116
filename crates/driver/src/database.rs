//! Resolving what a command drives: the server `--url` names, or the built-in PostgreSQL.

use crate::local::{LocalPg, Placement};
use crate::{Error, Target};

/// The database a command works on, and the built-in server behind it when there is one (kept alive for
/// as long as this value lives, and stopped when it drops).
pub struct Database {
    /// Where to connect.
    pub target: Target,
    local: Option<LocalPg>,
}

impl Database {
    /// `url` when given; else the built-in instance at `placement`, started with room for
    /// `connections` client connections, holding database `dbname` (created when missing).
    ///
    /// # Errors
    /// [`Error::Environment`] when the built-in server cannot be started.
    pub async fn open(
        url: Option<Target>,
        placement: &Placement,
        connections: u32,
        dbname: &str,
    ) -> Result<Self, Error> {
        if let Some(target) = url {
            return Ok(Database { target, local: None });
        }
        // Headroom above the client's own connections: checks, the inventory, an admin's psql.
        let max_connections = (connections + 20).max(100);
        let placement = placement.clone();
        let local = tokio::task::spawn_blocking(move || LocalPg::start(&placement, max_connections))
            .await
            .map_err(|e| Error::environment(format!("starting the built-in PostgreSQL: {e}")))??;
        let target = local.ensure_database(dbname).await?;
        Ok(Database { target, local: Some(local) })
    }

    /// Whether this is oltpgen's own server (for messages that suggest flags).
    pub fn is_builtin(&self) -> bool {
        self.local.is_some()
    }
}
