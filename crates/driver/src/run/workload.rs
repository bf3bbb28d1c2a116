//! What the run machinery asks of a workload (TPC-C, later DS2), so that users, pools, recording and
//! results are written once.

use std::future::Future;
use std::time::Duration;

use crate::error::Fault;

/// A transaction's failure, sorted once by the engine code that met it; results count failures by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnError {
    /// What to do about it.
    pub fault: Fault,
}

/// How a transaction ended when it did not fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Done {
    /// Rolled back as the workload expects (not an error).
    pub rolled_back: bool,
}

/// The next transaction a user will run, with the waits around it.
pub struct Next<I> {
    /// Index into [`Workload::KINDS`].
    pub kind: usize,
    /// The transaction's input, made before any SQL runs.
    pub input: I,
    /// The wait before it (TPC-C's keying time).
    pub keying: Duration,
    /// The wait after it (think time).
    pub think: Duration,
}

/// A workload the run machinery can drive.
pub trait Workload: Send + Sync + 'static {
    /// Transaction types, in the order samples index them.
    const KINDS: &'static [&'static str];
    /// The index of the type counted per minute (TPC-C's New-Order).
    const PER_MINUTE_KIND: usize;
    /// A user's own state: its random stream, its deck, its home.
    type User: Send + 'static;
    /// A connection ready to run transactions (its statements prepared).
    type Session: Send + Sync + 'static;
    /// A transaction's input.
    type Input: Send + Sync + 'static;

    /// The state of user `index` (0-based).
    fn user(&self, index: u32) -> Self::User;

    /// The user's next transaction.
    fn next(&self, user: &mut Self::User) -> Next<Self::Input>;

    /// Opens a session.
    fn connect(&self) -> impl Future<Output = Result<Self::Session, TxnError>> + Send;

    /// Runs one transaction to its end on `session`.
    fn execute<'a>(
        &'a self,
        session: &'a Self::Session,
        input: &'a Self::Input,
    ) -> impl Future<Output = Result<Done, TxnError>> + Send + 'a;
}
