//! Who a workload is, as a value: its name, its transaction types as the run counts them, and its
//! results' [`Descriptor`]. A value, not constants, so that a workload defined at run time (read from a
//! file, made in a test) is one exactly as TPC-C is.

use oltpgen_report::model::descriptor::Descriptor;

/// A workload's transaction types as the run machinery counts them. The names are `'static` because a
/// run's collectors, shards and users share them on the hot path without reference counts: a built-in
/// workload's are constants, and one defined at run time has them from its interned definition
/// ([`oltpgen_datagen::defined::Workload::txn_names`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kinds {
    /// Transaction types, in the order samples index them.
    pub names: &'static [&'static str],
    /// The index of the type counted per minute (TPC-C's New-Order, DS2's order).
    pub per_minute: usize,
    /// The workload's audit counters, by name (at most [`MAX_AUDIT`](crate::run::MAX_AUDIT)); a
    /// transaction adds to them through [`Ops::count`](crate::run::Ops::count).
    pub audit: &'static [&'static str],
    /// The index of the type that records a composite transaction again as the sum of its operations'
    /// times ([`Ops::counted_sum`](crate::run::Ops::counted_sum)), as DS2's driver times an order (its
    /// `rt_tot`).
    pub sum: Option<usize>,
    /// The index of the composite type (DS2's order: login, browses, purchase), whose failures are the
    /// errors and which results leave out of sums over every operation.
    pub composite: Option<usize>,
}

impl Kinds {
    /// Plain transactions, none composite, no audit: `names`, the first counted per minute.
    pub const fn plain(names: &'static [&'static str]) -> Self {
        Kinds { names, per_minute: 0, audit: &[], sum: None, composite: None }
    }
}

/// A workload's identity: everything the run machinery and the reports need to know about it that is
/// not its code. Built once per command; a run's pieces borrow it.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Its transaction types.
    pub kinds: Kinds,
    /// What its results say about it (its name is the workload's one name).
    pub descriptor: Descriptor,
}

impl Profile {
    /// The profile of a workload whose results read as `descriptor` says, with `kinds`: the
    /// descriptor's transaction list, per-minute type, composites and audit are made to match `kinds`,
    /// so the two can never disagree.
    pub fn new(mut descriptor: Descriptor, kinds: Kinds) -> Self {
        descriptor.transactions = kinds.names.iter().map(|k| k.to_string()).collect();
        descriptor.per_minute_transaction = kinds.names[kinds.per_minute].into();
        descriptor.composite =
            [kinds.composite, kinds.sum].into_iter().flatten().map(|i| kinds.names[i].into()).collect();
        if kinds.audit.is_empty() {
            descriptor.audit = None;
        }
        Profile { kinds, descriptor }
    }

    /// The workload's one name: its command, its load record's key, its results' `workload`.
    pub fn name(&self) -> &str {
        &self.descriptor.name
    }
}
