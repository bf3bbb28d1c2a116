//! TPC-C's words between the workload and the engines: where the five transactions run
//! ([`Transactions`], which each engine's session honours) and how one ended ([`Outcome`], which the
//! engine reports and the workload's audit counts).

use super::outcome::Done;

/// Where the five transactions' logic runs: HammerDB's "stored procedures" or statements (DS2's
/// operations run one way or the other too, on the engines that have both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transactions {
    /// Server-side: each transaction is one call of a function (a stored procedure) created at load.
    Server,
    /// Client-side: the client sends each transaction's statements.
    Client,
}

impl Transactions {
    /// The name results record in `config.transactions`.
    pub fn name(self) -> &'static str {
        match self {
            Transactions::Server => "server",
            Transactions::Client => "client",
        }
    }
}

/// How a transaction ended when it did not fail, with what the audit counts of its outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Rolled back as the spec asks (2.4.2.3) or committed.
    pub done: Done,
    /// Delivery: districts that had no undelivered order and were skipped (2.7.4.2).
    pub skipped_districts: u8,
    /// New-Order: the order's id, when the engine reports it (its acknowledgement, kept to find the
    /// commits a failover lost).
    pub o_id: Option<u32>,
}

impl Outcome {
    /// Committed, nothing skipped.
    pub const COMMITTED: Outcome =
        Outcome { done: Done { rolled_back: false }, skipped_districts: 0, o_id: None };
}
