//! What a server says about itself, in every engine's terms alike: its identity and settings
//! ([`ServerInfo`], for the result) and how many more connections it takes ([`ConnectionRoom`], checked
//! before a run).

use std::collections::BTreeMap;

use super::target::{Engine, Target};
use crate::error::Error;

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
