//! The load record: one row per workload loaded into a database (`oltpgen_meta`), which every engine
//! reads and writes in its own SQL and every command reads before it writes or reads the workload's
//! tables. Beside it, the two tables of a load in parts or resumed. Their names are here, once; each
//! engine writes them in its own SQL.

/// The load record's table, which the loader treats as one of each workload's tables.
pub const TABLE: &str = "oltpgen_meta";

/// The done-marks of a load's chunks: one row per chunk whose rows are in, written in the chunk's own
/// transaction, so that a cut load resumes with the chunks not marked and a chunk cut mid-way is
/// rolled back with its mark.
pub const CHUNKS: &str = "oltpgen_chunks";

/// The plan of a load in parts (`load --begin`): one row per part, each naming the parts of the plan,
/// so that a part of another plan is refused and `--finish` names a part not yet in.
pub const PARTS: &str = "oltpgen_parts";

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
