//! A server's own counters at one reading, as its engine reads them over the sampler's connection
//! ([`DbTotals`]), and what the engine remembers between readings of one database ([`DbState`]). The
//! sampler (`crate::counters`) turns two readings into the figures the studies quote.

use std::collections::{BTreeMap, BTreeSet};

/// A database's counters at one moment, as its engine reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DbTotals {
    /// Totals since the server's statistics were reset, by name; each becomes `<name>_per_s`.
    pub totals: BTreeMap<&'static str, f64>,
    /// Values as they are now (`active_backends`, `lock_waits`), kept as read.
    pub gauges: BTreeMap<&'static str, f64>,
    /// What could not be read this time, and why (each said once: the engine stops asking).
    pub unavailable: Vec<String>,
    /// The connection was lost: the sampler opens another at its next reading.
    pub connection_lost: bool,
}

/// What an engine remembers between readings of one database: its version, learnt at the first
/// reading, and the groups of counters it gave up on.
#[derive(Clone, Debug, Default)]
pub struct DbState {
    /// The server's version in the engine's own numbering (PostgreSQL's `server_version_num`); 0
    /// before the first reading.
    pub version: i32,
    /// Groups (named after their view) not asked again: unreadable, or not in this version.
    pub given_up: BTreeSet<&'static str>,
    /// The server the connection reached, learnt once per connection: `host:port` (PostgreSQL: a URL
    /// naming several hosts reaches whichever is the primary now; MySQL), the instance's name (SQL
    /// Server: a listener reaches whichever replica is the primary now).
    pub server: Option<String>,
}
