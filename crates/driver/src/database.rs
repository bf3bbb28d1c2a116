//! The database a command drives: a server `--url` names, or the built-in PostgreSQL (feature `local`).

#[cfg(feature = "local")]
use oltpgen_local::{LocalPg, Placement};

#[cfg(feature = "local")]
use crate::Error;
use crate::Target;

/// The database a command works on, and the built-in server behind it when there is one (kept alive for
/// as long as this value lives, and stopped when it drops).
pub struct Database {
    /// Where to connect.
    pub target: Target,
    #[cfg(feature = "local")]
    local: Option<LocalPg>,
}

impl Database {
    /// A database on a server `--url` names.
    pub fn at(target: Target) -> Self {
        Database {
            target,
            #[cfg(feature = "local")]
            local: None,
        }
    }

    /// The built-in instance at `placement`, started with room for `connections` client connections,
    /// holding database `dbname` (created when missing).
    ///
    /// # Errors
    /// [`Error::Environment`] when the built-in server cannot be started.
    #[cfg(feature = "local")]
    pub async fn built_in(placement: &Placement, connections: u32, dbname: &str) -> Result<Self, Error> {
        // Headroom above the client's own connections: checks, the inventory, an admin's psql.
        let max_connections = (connections + 20).max(100);
        let placement = placement.clone();
        // The server is started on a blocking thread, outside the command's task: it takes the handle
        // the command scoped with it, and keeps it for what it says until it stops.
        let said = oltpgen_vocab::console::ErrLines::current();
        let local = tokio::task::spawn_blocking(move || LocalPg::start(&placement, max_connections, &said))
            .await
            .map_err(|e| Error::environment(format!("starting the built-in PostgreSQL: {e}")))??;
        let target = local.ensure_database(dbname).await?;
        Ok(Database { target, local: Some(local) })
    }

    /// Whether this is oltpgen's own server (for messages that suggest flags).
    pub fn is_builtin(&self) -> bool {
        #[cfg(feature = "local")]
        return self.local.is_some();
        #[cfg(not(feature = "local"))]
        return false;
    }
}
