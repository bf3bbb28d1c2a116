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

/// How many values an acknowledgement's key holds at most (the workload file's limit, which names it).
pub use oltpgen_datagen::defined::ACK_VALUES;

/// One commit the database acknowledged, kept to find the commits a failover lost
/// (`oltpgen_driver::lost_commits`): its key as the workload names it (TPC-C's `w_id, d_id, o_id,
/// c_id, lines`; DS2's `orderid, customerid, lines`; a script's acknowledged row), each value an
/// integer or, for text, its hash ([`Ack::value_of_text`]), the values the key does not use 0. The
/// workload's lookup (`oltpgen_driver::workload::AckLookup`) names the values and says an ack in its
/// own words. 48 bytes, inline: no allocation per ack (a million take 48 MB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ack {
    /// Which of the workload's acknowledgements it is (a script run's: which script; else 0).
    pub kind: u8,
    /// The key's values, in the workload's order; 0 past its last.
    pub key: [i64; ACK_VALUES],
    /// The target it ran against, as an index into the workload's targets.
    pub target: u8,
    /// The study's run it was acknowledged in (from 1; `--runs` is at most 100), so that only the
    /// commits a restore has not taken away are compared; 0 before the study tags it (and in files of
    /// an older oltpgen, which did not).
    pub run: u8,
}

impl Ack {
    /// The acknowledgement of kind `kind` whose key is `values` (at most [`ACK_VALUES`]; the rest
    /// ignored), of no target or run yet.
    pub fn new(kind: u8, values: &[i64]) -> Ack {
        let mut key = [0; ACK_VALUES];
        key.iter_mut().zip(values).for_each(|(k, v)| *k = *v);
        Ack { kind, key, target: 0, run: 0 }
    }

    /// The value a key keeps for a column's text (as a database returns it, or a script's parameter
    /// is sent): the integer it spells, else a 64-bit hash of the text (FNV-1a), the same for the
    /// text acknowledged and the text read back; `None` (SQL NULL) and the empty text are 0.
    pub fn value_of_text(text: Option<&str>) -> i64 {
        let Some(text) = text.filter(|t| !t.is_empty()) else { return 0 };
        text.trim().parse().unwrap_or_else(|_| {
            let hash = text
                .bytes()
                .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
            hash as i64
        })
    }
}
