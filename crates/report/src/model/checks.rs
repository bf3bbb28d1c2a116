//! What a consistency check found: each check's number, title and outcome (pass, fail with the first
//! offending keys, not applicable and why). The checks themselves run in the driver.

/// One check's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseOutcome {
    /// The condition holds.
    Pass,
    /// It does not: how many rows break it, and the first of their keys.
    Fail {
        /// Offending rows (warehouses, districts, orders, … depending on the check).
        count: u64,
        /// The first of their keys, e.g. `w_id=1 d_id=3`.
        examples: Vec<String>,
    },
    /// It does not apply to this database, and why.
    NotApplicable(&'static str),
}

impl ClauseOutcome {
    /// The outcome of a query that found `count` offending rows, `examples` of them named.
    pub fn of(count: u64, examples: Vec<String>) -> Self {
        if count == 0 { ClauseOutcome::Pass } else { ClauseOutcome::Fail { count, examples } }
    }
}

/// One check and its outcome.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The check's number, e.g. TPC-C's "3.3.2.1" or "ds2.1".
    pub number: String,
    /// What it asserts, in one line.
    pub title: &'static str,
    /// Whether it held.
    pub outcome: ClauseOutcome,
}

/// The clauses of `clauses` that failed, by number.
pub fn failed(clauses: &[Clause]) -> Vec<&str> {
    clauses
        .iter()
        .filter(|c| matches!(c.outcome, ClauseOutcome::Fail { .. }))
        .map(|c| c.number.as_str())
        .collect()
}
