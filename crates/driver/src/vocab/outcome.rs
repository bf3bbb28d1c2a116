//! How a transaction ended, as the engine code that ran it says it and the run machinery counts it:
//! [`Done`] when it did not fail, [`TxnError`] (its [`Fault`], sorted once by the engine) when it did.

use crate::error::Fault;

/// A transaction's failure, sorted once by the engine code that met it; results count failures by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnError {
    /// What to do about it.
    pub fault: Fault,
}

impl TxnError {
    /// The connection is gone: the user reconnects before its next transaction.
    pub const LOST: TxnError = TxnError { fault: Fault::ConnectionLost };
}

/// How a transaction ended when it did not fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Done {
    /// Rolled back as the workload expects (not an error).
    pub rolled_back: bool,
}
