//! What the run machinery asks of a workload (TPC-C, DS2), so that users, pools, recording and results
//! are written once.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use oltpgen_report::model::Step;
use tokio::time::Instant;

use super::sample::{AuditCounts, Status};
use crate::workload::Profile;
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Ack, Done, TxnError};

/// Retries of a transaction (or of one operation of a composite one) after a serialization failure or
/// deadlock, before it counts as an error.
pub const MAX_RETRIES: u8 = 5;

/// The names of a workload's transaction types in index order, as a constant array, from an array of
/// its kinds (an enum's `ALL`) whose `name()` is a `const fn`: so [`Kinds::names`](crate::workload::Kinds::names) comes from the
/// workload's own enum.
#[macro_export]
macro_rules! kind_names {
    ($all:expr) => {{
        let mut names = [""; $all.len()];
        let mut i = 0;
        while i < names.len() {
            names[i] = $all[i].name();
            i += 1;
        }
        names
    }};
}

/// The next transaction a user will run, with the waits around it.
pub struct Next<I> {
    /// Index into [`Kinds::names`](crate::workload::Kinds::names).
    pub kind: usize,
    /// The transaction's input, made before any SQL runs.
    pub input: I,
    /// The wait before it (TPC-C's keying time).
    pub keying: Duration,
    /// The wait after it (think time).
    pub think: Duration,
}

/// One operation of a composite transaction, as it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    /// Index into [`Kinds::names`](crate::workload::Kinds::names).
    pub kind: usize,
    /// When it was sent.
    pub started: Instant,
    /// Where the time DS2's driver counts for it starts: `started`, unless the operation was retried in
    /// a way DS2 counts only the last attempt of (a registration whose user name was taken).
    pub counted_from: Instant,
    /// When its answer was in.
    pub ended: Instant,
    /// Retries after serialization failures or deadlocks (their time is part of the operation's).
    pub retries: u8,
    /// How it ended.
    pub status: Status,
}

/// The operations a composite transaction (DS2's order: login, browses, purchase) is made of, timed one
/// by one so that each is measured as a transaction type of its own beside the whole. Transactions that
/// are one operation (TPC-C's) leave it empty. The user empties it after every transaction; it keeps its
/// allocation.
///
/// It also carries what the transaction adds to the workload's audit counters ([`Ops::count`]): the
/// user takes both after every transaction and records them with its sample; and the order the
/// database acknowledged, if the transaction placed one ([`Ops::acknowledge`]).
#[derive(Debug, Default)]
pub struct Ops {
    done: Vec<Op>,
    audit: AuditCounts,
    ack: Option<Ack>,
    retried: u8,
}

impl Ops {
    /// Counts one retry of the whole transaction by a workload that retries its own
    /// ([`Driven::retries_itself`]), so that its figures count it as the user loop's own retries are.
    pub fn retried(&mut self) {
        self.retried = self.retried.saturating_add(1);
    }

    /// The retries counted by [`retried`](Self::retried) since the last take.
    pub fn take_retried(&mut self) -> u8 {
        std::mem::take(&mut self.retried)
    }

    /// Runs the operation `op` makes, of type `kind`, retrying it alone after a serialization failure
    /// or deadlock (as DS2's driver retries a deadlocked purchase), and records how long it took in all;
    /// `rolled_back` tells an expected rollback (DS2's purchase short of stock) from a commit.
    pub async fn run<T, F: Future<Output = Result<T, TxnError>>>(
        &mut self,
        kind: usize,
        mut op: impl FnMut() -> F,
        rolled_back: impl FnOnce(&T) -> bool,
    ) -> Result<T, TxnError> {
        let started = Instant::now();
        let mut retries = 0;
        let outcome = loop {
            match op().await {
                Err(e) if e.fault == Fault::Retryable && retries < MAX_RETRIES => retries += 1,
                done => break done,
            }
        };
        let status = match &outcome {
            Ok(v) if rolled_back(v) => Status::RolledBack,
            Ok(_) => Status::Committed,
            Err(e) => Status::Failed(e.fault),
        };
        self.done.push(Op { kind, started, counted_from: started, ended: Instant::now(), retries, status });
        outcome
    }

    /// Sets what the transaction that just completed adds to the audit counters (a transaction that
    /// fails sets nothing, so retried attempts are not counted twice).
    pub fn count(&mut self, audit: AuditCounts) {
        self.audit = audit;
    }

    /// Keeps the order the transaction that just completed placed, as the database acknowledged it.
    pub fn acknowledge(&mut self, ack: Ack) {
        self.ack = Some(ack);
    }

    /// The order the last transaction placed, if it placed one.
    pub fn take_ack(&mut self) -> Option<Ack> {
        self.ack.take()
    }

    /// What the last transaction added to the audit counters, leaving zeros for the next.
    pub fn take_audit(&mut self) -> AuditCounts {
        std::mem::take(&mut self.audit)
    }

    /// Counts the last recorded operation from `at` in the sum of the operations' times (DS2's
    /// `rt_tot`), as DS2's driver counts a registration's last attempt only; its own response time
    /// still spans every attempt.
    pub fn count_last_from(&mut self, at: Instant) {
        if let Some(op) = self.done.last_mut() {
            op.counted_from = at.clamp(op.started, op.ended);
        }
    }

    /// The sum of the recorded operations' times as DS2's driver counts them (its `rt_tot`).
    pub fn counted_sum(&self) -> std::time::Duration {
        self.done.iter().map(|op| op.ended - op.counted_from).sum()
    }

    /// Whether no operation was recorded since the last drain.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// The operations recorded since the last drain, oldest first.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Op> {
        self.done.drain(..)
    }
}

/// A workload as one run drives it: the [`Driven`] of the [workload family](crate::workload).
pub trait Driven: Send + Sync + 'static {
    /// A user's own state: its random stream, its deck, its home.
    type User: Send + 'static;
    /// A connection ready to run transactions (its statements prepared): an enum over the engines
    /// (e.g. [`TpccSession`](crate::engine::tpcc::TpccSession)), so the user loop and pool never change per
    /// engine and the hot path dispatches by `match`.
    type Session: Send + Sync + 'static;
    /// A transaction's input.
    type Input: Send + Sync + 'static;

    /// Who the workload is: its transaction types and what its results say about it.
    fn profile(&self) -> &Profile;

    /// The databases driven side by side, as results name them (labels without passwords, distinct).
    /// User `i` drives target `i % targets().len()`.
    fn targets(&self) -> &[String];

    /// The state of user `index` (0-based).
    fn user(&self, index: u32) -> Self::User;

    /// The user's next transaction.
    fn next(&self, user: &mut Self::User) -> Next<Self::Input>;

    /// Opens a session to target `target` (an index into [`targets`](Self::targets)).
    fn connect(&self, target: usize) -> impl Future<Output = Result<Self::Session, TxnError>> + Send;

    /// Runs one transaction to its end on `session`; a composite transaction records its operations in
    /// `ops`.
    fn execute<'a>(
        &'a self,
        session: &'a Self::Session,
        input: &'a Self::Input,
        ops: &'a mut Ops,
    ) -> impl Future<Output = Result<Done, TxnError>> + Send + 'a;

    /// Whether the workload retries a transaction after a serialization failure or deadlock by its own
    /// rule (a pgbench script, as `--max-tries` says: once by default), counting each retry with
    /// [`Ops::retried`], so that the user loop must not retry it again; otherwise (the default) the
    /// loop retries it up to [`MAX_RETRIES`] times.
    fn retries_itself(&self) -> bool {
        false
    }

    /// The interval between a user's intended starts when its transactions arrive at a fixed rate
    /// (`io run --iops`), whatever their response times; `None` (the default): each follows the last's
    /// end and think time.
    fn pace(&self) -> Option<Duration> {
        None
    }

    /// Audits `step` (its figures built, its cap judged) from its audit counters summed over its window
    /// per target (in [`targets`](Self::targets)' order), by name: sets its `audit`, and each target's
    /// own when it drove several. Nothing for a workload without an audit.
    fn audit(&self, step: &mut Step, counters: Vec<BTreeMap<String, u64>>) {
        let _ = (step, counters);
    }

    /// How the workload's acknowledged orders are looked for after a failover, if it acknowledges
    /// any ([`Ops::acknowledge`]).
    fn acknowledged(&self) -> Option<crate::workload::AckLookup> {
        None
    }

    /// Why the workload's lost commits cannot be counted when it acknowledges none
    /// ([`acknowledged`](Self::acknowledged) is `None`) though it commits (a pgbench script that names no
    /// acknowledgement): the result names it "not measured" after a lost connection. `None` for a
    /// workload with nothing to lose (`io`).
    fn no_acknowledgement(&self) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each workload declares gives the descriptor a result of schema 3 is read with, so results
    /// old and new render alike.
    #[test]
    fn each_workload_declares_its_built_in_descriptor() {
        use oltpgen_report::model::Workload;
        assert_eq!(&crate::tpcc::PROFILE.descriptor, Workload::Tpcc.descriptor());
        assert_eq!(&crate::ds2::PROFILE.descriptor, Workload::Ds2.descriptor());
        #[cfg(feature = "io")]
        assert_eq!(&crate::io::workload::PROFILE.descriptor, Workload::Io.descriptor());
    }

    #[tokio::test]
    async fn the_counted_sum_takes_a_renamed_registrations_last_attempt_only() {
        let pause = |ms| tokio::time::sleep(std::time::Duration::from_millis(ms));
        let mut ops = Ops::default();
        let register = || async {
            pause(30).await; // a first attempt whose user name was taken
            let last = Instant::now();
            pause(5).await;
            Ok::<_, TxnError>(last)
        };
        let last = ops.run(0, register, |_| false).await.unwrap();
        ops.count_last_from(last);
        ops.run(
            1,
            || async {
                pause(5).await;
                Ok::<_, TxnError>(())
            },
            |_| true,
        )
        .await
        .unwrap();
        let sum = ops.counted_sum();
        let done: Vec<Op> = ops.drain().collect();
        assert_eq!(sum, (done[0].ended - last) + (done[1].ended - done[1].started));
        assert_eq!(done[0].counted_from, last, "the registration counts from its last attempt");
        assert!(
            done[0].ended - done[0].started >= std::time::Duration::from_millis(35),
            "its time spans both"
        );
        assert_eq!(done[1].status, Status::RolledBack);
        assert!(ops.is_empty());
    }
}
