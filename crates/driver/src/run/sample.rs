//! What a virtual user records about each transaction, and how samples leave the user without a lock
//! or a shared atomic per transaction: into the user's own small buffer, which it hands to the collector
//! in batches (when full, when the reporting interval changed, or before the user goes to sleep).

use tokio::sync::mpsc::UnboundedSender;

use crate::error::Fault;

/// The most audit counters a workload declares ([`Workload::AUDIT`](super::Workload::AUDIT)).
pub const MAX_AUDIT: usize = 8;

/// What one completed transaction adds to each of its workload's audit counters (index = position in
/// [`Workload::AUDIT`](super::Workload::AUDIT)); small numbers (an order's lines, a Delivery's skipped
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

/// One transaction's record: 16 bytes, no allocation.
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
    /// How late the user woke for it after keying or think time, µs (0 when it did not wait).
    pub late_us: u32,
    /// Completion, ms since the run began.
    pub done_ms: u32,
}

/// What a completed transaction added to the workload's audit counters, kept apart from its [`Sample`]
/// (which stays 16 bytes) and only when it added something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuditSample {
    /// The target it ran against.
    pub target: u8,
    /// Completion, ms since the run began (the step it counts in).
    pub done_ms: u32,
    /// The increments.
    pub counts: AuditCounts,
}

/// What a user hands the collector at once.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// The transactions' samples.
    pub samples: Vec<Sample>,
    /// Their audit increments (none for a workload without an audit).
    pub audit: Vec<AuditSample>,
}

/// Samples are handed over when this many wait in a buffer.
const BATCH: usize = 256;
/// ... or when the oldest has waited this long, so a step's figures are complete soon after it ends.
const MAX_AGE_MS: u32 = 1_000;

/// A user's sample buffer.
pub struct Recorder {
    buffer: Vec<Sample>,
    audit: Vec<AuditSample>,
    interval_ms: u32,
    interval: u32,
    to_collector: UnboundedSender<Batch>,
}

impl Recorder {
    /// A buffer that hands batches to `to_collector`, at least once per `interval_ms` of activity.
    pub fn new(to_collector: UnboundedSender<Batch>, interval_ms: u32) -> Self {
        Recorder {
            buffer: Vec::new(),
            audit: Vec::new(),
            interval_ms: interval_ms.max(1),
            interval: 0,
            to_collector,
        }
    }

    /// Keeps what a transaction added to the audit counters, when it added anything; it leaves with
    /// the next batch of samples (the transaction's own sample is recorded right after).
    #[inline]
    pub fn record_audit(&mut self, audit: AuditSample) {
        if audit.counts != AuditCounts::default() {
            self.audit.push(audit);
        }
    }

    /// Keeps `sample`, handing over the buffer when it is full or the sample opens a new interval.
    #[inline]
    pub fn record(&mut self, sample: Sample) {
        let interval = sample.done_ms / self.interval_ms;
        let stale =
            self.buffer.first().is_some_and(|f| sample.done_ms.saturating_sub(f.done_ms) > MAX_AGE_MS);
        if interval != self.interval || stale {
            self.flush();
            self.interval = interval;
        }
        if self.buffer.capacity() == 0 {
            self.buffer.reserve_exact(BATCH);
        }
        self.buffer.push(sample);
        if self.buffer.len() >= BATCH {
            self.flush();
        }
    }

    /// Hands over whatever is buffered (before a long sleep, and at the end).
    pub fn flush(&mut self) {
        if !self.buffer.is_empty() {
            // A closed collector means the run is over; the samples have nowhere to go.
            let batch =
                Batch { samples: std::mem::take(&mut self.buffer), audit: std::mem::take(&mut self.audit) };
            let _ = self.to_collector.send(batch);
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_stays_small() {
        assert_eq!(std::mem::size_of::<Sample>(), 16);
    }

    fn sample(done_ms: u32) -> Sample {
        Sample {
            kind: 0,
            target: 0,
            retries: 0,
            status: Status::Committed,
            latency_us: 1,
            late_us: 0,
            done_ms,
        }
    }

    #[test]
    fn batches_leave_when_full_when_the_interval_turns_and_at_the_end() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut r = Recorder::new(tx, 1000);
        for i in 0..300 {
            r.record(sample(i));
        }
        assert_eq!(rx.try_recv().unwrap().samples.len(), BATCH);
        assert!(rx.try_recv().is_err(), "the rest waits");
        r.record(sample(1500));
        assert_eq!(
            rx.try_recv().unwrap().samples.len(),
            300 - BATCH,
            "a new interval hands over the old one"
        );
        drop(r);
        assert_eq!(rx.try_recv().unwrap().samples, vec![sample(1500)]);
    }

    #[test]
    fn a_batch_leaves_once_its_oldest_sample_is_a_second_old() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut r = Recorder::new(tx, 10_000);
        r.record(sample(100));
        r.record(sample(1100));
        assert!(rx.try_recv().is_err());
        r.record(sample(1101));
        assert_eq!(rx.try_recv().unwrap().samples, vec![sample(100), sample(1100)]);
    }

    #[test]
    fn audit_increments_leave_with_the_samples_and_zeros_are_not_kept() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut r = Recorder::new(tx, 1000);
        let counted = AuditSample { target: 0, done_ms: 10, counts: [10, 1, 0, 0, 0, 0, 0, 0] };
        r.record_audit(counted);
        r.record(sample(10));
        r.record_audit(AuditSample { target: 0, done_ms: 20, counts: AuditCounts::default() });
        r.record(sample(20));
        r.flush();
        let batch = rx.try_recv().unwrap();
        assert_eq!((batch.samples.len(), batch.audit), (2, vec![counted]));
    }
}
