//! What a virtual user records about each transaction: a small sample, and apart from it what the
//! transaction added to the workload's audit counters. A user's turn ends on its shard's thread, where
//! the shard's collector takes both in at once: no buffer per user, no lock, no channel.

use oltpgen_vocab::error::Fault;

/// The most audit counters a workload declares ([`Kinds::audit`](crate::workload::Kinds::audit)).
pub const MAX_AUDIT: usize = 8;

/// What one completed transaction adds to each of its workload's audit counters (index = position in
/// [`Kinds::audit`](crate::workload::Kinds::audit)); small numbers (an order's lines, a Delivery's skipped
/// districts).
pub type AuditCounts = [u8; MAX_AUDIT];

/// How one transaction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Committed.
    Committed,
    /// Rolled back as the workload expects (TPC-C's 1% New-Order): completed, not an error.
    RolledBack,
    /// Failed after its retries, for this reason.
    Failed(Fault),
}

/// One transaction's record: 12 bytes, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The workload's transaction index.
    pub kind: u8,
    /// The target (database) it ran against, as an index into the workload's targets.
    pub target: u8,
    /// Retries after serialization failures or deadlocks.
    pub retries: u8,
    /// How it ended.
    pub status: Status,
    /// Completion − intended start, µs (saturating at u32::MAX, about 71 minutes).
    pub latency_us: u32,
    /// Completion, ms since the run began.
    pub done_ms: u32,
}

/// What a completed transaction added to the workload's audit counters, kept apart from its [`Sample`]
/// (which stays 12 bytes) and only when it added something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuditSample {
    /// The target it ran against.
    pub target: u8,
    /// Completion, ms since the run began (the step it counts in).
    pub done_ms: u32,
    /// The increments.
    pub counts: AuditCounts,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_stays_small() {
        assert_eq!(std::mem::size_of::<Sample>(), 12);
    }
}
