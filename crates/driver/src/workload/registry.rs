//! The workloads built into oltpgen, by name: the one list a command consults to find a workload
//! another load left in a database (TPC-C's and DS2's tables share names) and to say which exist.

use oltpgen_report::model::Workload;

/// Every built-in workload, in the order `oltpgen --help` lists them.
pub const BUILT_IN: [Workload; 3] = [Workload::Tpcc, Workload::Ds2, Workload::Io];

/// The built-in workloads that keep their data in a database (`io` drives a file).
pub fn stored() -> impl Iterator<Item = &'static str> {
    BUILT_IN.into_iter().filter(|w| *w != Workload::Io).map(Workload::name)
}
