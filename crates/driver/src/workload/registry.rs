//! The workloads built into oltpgen, by name ([`Workload::ALL`], the list their results are read with):
//! what a command consults to find a workload another load left in a database (TPC-C's and DS2's
//! tables share names).

use oltpgen_report::model::Workload;

/// The built-in workloads that keep their data in a database (`io` drives a file).
pub fn stored() -> impl Iterator<Item = &'static str> {
    Workload::ALL.into_iter().filter(|w| *w != Workload::Io).map(Workload::name)
}
