//! The load record: one row per workload loaded into a database (`oltpgen_meta`), which every engine
//! reads and writes in its own SQL and every command reads before it writes or reads the workload's
//! tables.

/// A workload's row in the load record (`oltpgen_meta`).
#[derive(Clone, Debug, PartialEq)]
pub struct MetaRow {
    /// "complete" once a load finished; "loading" while it runs (or after it died).
    pub state: String,
    /// The load's parameters (JSON: scale, seed, C constants, …).
    pub params: serde_json::Value,
    /// The oltpgen version that loaded it.
    pub tool_version: String,
}
