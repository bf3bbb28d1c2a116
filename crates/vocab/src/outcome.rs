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

/// One order the database acknowledged (TPC-C's New-Order; DS2's purchase with its order id in
/// `o_id` and 0 for warehouse and district), kept to find the commits a failover lost
/// (`oltpgen_driver::lost_commits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// The warehouse.
    pub w_id: u32,
    /// The order's id in its district.
    pub o_id: u32,
    /// Its customer.
    pub c_id: u32,
    /// The district.
    pub d_id: u8,
    /// Its order lines.
    pub lines: u8,
    /// The target it ran against, as an index into the workload's targets.
    pub target: u8,
    /// The study's run it was acknowledged in (from 1; `--runs` is at most 100), so that only the
    /// orders a restore has not taken away are compared; 0 before the study tags it (and in files of
    /// an older oltpgen, which did not).
    pub run: u8,
}

impl std::fmt::Display for Ack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.w_id == 0 {
            // DS2's purchase, in its own columns' names.
            return write!(f, "orderid={} (customerid={}, {} lines)", self.o_id, self.c_id, self.lines);
        }
        write!(
            f,
            "w_id={} d_id={} o_id={} (c_id={}, {} lines)",
            self.w_id, self.d_id, self.o_id, self.c_id, self.lines
        )
    }
}
