//! The TPC-C-style workload against a database: load it, check its consistency, drop it, run it.
//!
//! Everything here is the workload's own and the same on every engine: its identity (name, tables,
//! load record: [`Definition`] on [`Tpcc`]; transaction names from [`TxnKind`](oltpgen_datagen::tpcc::mix::TxnKind)),
//! the inputs, deck and pacing, the audit, and the table of checks. What differs per engine (the
//! transactions' SQL, each check's query) sits under the engine's module (`pg::tpcc`), reached only
//! through the seam ([`crate::engine::tpcc`]: the session enum, the finishing DDL, the checks' queries).

mod check;
mod load;
mod run;

pub use check::{CHECKS, check};
pub use load::{load, write_csv};
pub use run::{RunOptions, Tpcc, TpccUser, run};

use oltpgen_datagen::tpcc::random::CConstants;
use oltpgen_datagen::tpcc::rows::MAX_WAREHOUSES;
use oltpgen_datagen::tpcc::schema::Table;
use serde::{Deserialize, Serialize};

use crate::engine::{self, Conn};
use crate::inventory::{self, Definition};
use crate::prepare::Drivable;
use crate::{Error, Target};
use oltpgen_vocab::target::Engine;

/// The workload's name: its `oltpgen_meta` key, its built-in database, its command.
pub const WORKLOAD: &str = oltpgen_report::model::Workload::Tpcc.name();

/// The nine table names.
pub fn table_names() -> Vec<&'static str> {
    Table::ALL.iter().map(|t| t.name()).collect()
}

/// What a load records about itself in the database, so that later commands (check, run) know how the
/// data was made: the run's NURand constants must obey the C-delta rule against the load's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadedParams {
    /// Warehouses.
    pub scale: u32,
    /// The data's seed.
    pub seed: u64,
    /// The load's C for C_LAST.
    pub c_last: i64,
    /// The load's C for C_ID.
    pub c_id: i64,
    /// The load's C for OL_I_ID.
    pub ol_i_id: i64,
    /// Runs driven since the load (3.3.2.11 holds only before the first).
    #[serde(default)]
    pub runs: u32,
}

impl LoadedParams {
    /// The load's C constants.
    pub fn c(&self) -> CConstants {
        CConstants { c_last: self.c_last, c_id: self.c_id, ol_i_id: self.ol_i_id }
    }
}

impl Definition for Tpcc {
    const NAME: &'static str = WORKLOAD;
    type Params = LoadedParams;

    fn table_names() -> Vec<&'static str> {
        table_names()
    }

    /// The server-side transactions, created with the schema so that a run in either mode finds them.
    fn finish(engine: Engine) -> Vec<String> {
        engine::tpcc::finish(engine)
    }

    fn describe(p: &LoadedParams) -> String {
        format!("scale {}", p.scale)
    }

    fn seed(p: &LoadedParams) -> u64 {
        p.seed
    }

    fn runs(p: &LoadedParams) -> u32 {
        p.runs
    }
}

impl Drivable for Tpcc {
    type Asked = u32;
    /// Only oltpgen loads TPC-C.
    type Origin = ();

    async fn identify(conn: &Conn, target: &Target) -> Result<(LoadedParams, ()), Error> {
        Ok((inventory::loaded::<Tpcc>(conn, target).await?, ()))
    }

    fn records_runs((): ()) -> bool {
        true
    }

    fn mismatch(target: &Target, loaded: &LoadedParams, asked: &u32) -> Option<Error> {
        (*asked != loaded.scale).then(|| {
            // A scale above what --scale takes (another version's load) is not one to suggest.
            if loaded.scale > MAX_WAREHOUSES {
                return Error::usage(format!(
                    "{target} holds tpcc at scale {}, above the {MAX_WAREHOUSES} warehouses --scale takes: \
                     reload with --scale {asked} --replace",
                    loaded.scale
                ));
            }
            Error::usage(format!(
                "{target} holds tpcc at scale {} but --scale {asked} was asked: run at --scale {}, \
                 or reload with --scale {asked} --replace",
                loaded.scale, loaded.scale
            ))
        })
    }

    fn same_size(a: &LoadedParams, b: &LoadedParams) -> bool {
        a.scale == b.scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scale_mismatch_never_suggests_a_scale_above_the_maximum() {
        let target: Target = crate::engine::parse_url("postgres://bench@db1/tpcc").unwrap();
        let loaded = |scale| LoadedParams { scale, seed: 1, c_last: 0, c_id: 0, ol_i_id: 0, runs: 0 };
        let err = Tpcc::mismatch(&target, &loaded(20), &10).unwrap().to_string();
        assert!(err.contains("run at --scale 20, or reload with --scale 10 --replace"), "{err}");
        let err = Tpcc::mismatch(&target, &loaded(MAX_WAREHOUSES + 1), &10).unwrap().to_string();
        assert!(err.contains("above the 1000000 warehouses --scale takes: reload with --scale 10"), "{err}");
        assert!(!err.contains("run at"), "{err}");
        assert!(Tpcc::mismatch(&target, &loaded(10), &10).is_none());
    }
}
