//! The TPC-C-style workload against a database: load it, check its consistency, drop it, run it.
//!
//! Everything here is the workload's own and the same on every engine: its identity (name, tables,
//! load record: [`Stored`] on [`Tpcc`]; transaction names from [`TxnKind`]),
//! the inputs, deck and pacing, the audit, and the table of checks. What differs per engine (the
//! transactions' SQL, each check's query) sits under the engine's module (`pg::tpcc`), reached only
//! through the seam ([`crate::engine::tpcc`]: the session enum, the finishing DDL, the checks' queries).

mod check;
mod load;
mod run;

pub use check::{CHECKS, check};
pub use load::{load, restore, write_csv};
pub use run::{RunOptions, TpccDriver, TpccUser, run};

use oltpgen_datagen::tpcc::random::CConstants;
use oltpgen_datagen::tpcc::rows::MAX_WAREHOUSES;
use oltpgen_datagen::tpcc::schema::Table;
use serde::{Deserialize, Serialize};

use std::path::Path;
use std::sync::LazyLock;

use oltpgen_datagen::tpcc::consts::DISTRICTS_PER_WAREHOUSE;
use oltpgen_datagen::tpcc::mix::TxnKind;
use oltpgen_report::model::Workload;
use oltpgen_report::model::audit::TPCC_COUNTERS;
use oltpgen_report::model::checks::Clause;

use crate::engine::{self, Conn};
use crate::inventory;
use crate::load::{LoadOptions, LoadSummary};
use crate::lost_commits::{span, width};
use crate::workload::{AckLookup, Kinds, Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::target::Engine;
use oltpgen_vocab::tpcc_checks::orders_between;

/// The workload's name: its `oltpgen_meta` key, its built-in database, its command.
pub const WORKLOAD: &str = Workload::Tpcc.name();

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

/// TPC-C's tables and indexes per warehouse, for the disk the built-in server needs: 120 MB measured
/// at scale 1 (PostgreSQL 15), rounded up.
const BYTES_PER_WAREHOUSE: u64 = 125 << 20;

/// The transaction types' names in index order, from [`TxnKind`] (the results'
/// [`TPCC_TRANSACTIONS`](oltpgen_report::model::TPCC_TRANSACTIONS), checked by a test).
pub(crate) const KIND_NAMES: [&str; TxnKind::ALL.len()] = crate::kind_names!(TxnKind::ALL);

/// TPC-C as the run counts it and its results say it: the five transactions, New-Order counted per
/// minute (NOPM), the audit's counters.
pub static PROFILE: LazyLock<Profile> = LazyLock::new(|| {
    let kinds =
        Kinds { per_minute: TxnKind::NewOrder.index(), audit: &TPCC_COUNTERS, ..Kinds::plain(&KIND_NAMES) };
    Profile::new(Workload::Tpcc.descriptor().clone(), kinds)
});

/// TPC-C, the workload: what it keeps in a database and how. A run's own state is a
/// [`TpccDriver`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Tpcc;

impl Stored for Tpcc {
    type Params = LoadedParams;
    type Size = u32;
    type Asked = u32;
    /// Only oltpgen loads TPC-C.
    type Origin = ();

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn tables(&self) -> Vec<&str> {
        table_names()
    }

    /// The server-side transactions, created with the schema so that a run in either mode finds them.
    fn finish(&self, engine: Engine) -> Vec<String> {
        engine::tpcc::finish(engine)
    }

    fn describe(&self, p: &LoadedParams) -> String {
        format!("scale {}", p.scale)
    }

    fn seed(&self, p: &LoadedParams) -> u64 {
        p.seed
    }

    fn runs(&self, p: &LoadedParams) -> u32 {
        p.runs
    }

    async fn identify(&self, conn: &Conn, target: &Target) -> Result<(LoadedParams, ()), Error> {
        Ok((inventory::loaded(self, conn, target).await?, ()))
    }

    fn records_runs(&self, (): ()) -> bool {
        true
    }

    fn mismatch(&self, target: &Target, loaded: &LoadedParams, asked: &u32) -> Option<Error> {
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

    fn same_size(&self, a: &LoadedParams, b: &LoadedParams) -> bool {
        a.scale == b.scale
    }

    fn size_words(&self, scale: u32) -> String {
        format!("tpcc scale {scale}")
    }

    fn size_bytes(&self, scale: u32) -> u64 {
        BYTES_PER_WAREHOUSE * u64::from(scale)
    }

    async fn load(
        &self,
        target: &Target,
        scale: u32,
        seed: u64,
        opts: &LoadOptions,
    ) -> Result<LoadSummary, Error> {
        load(target, scale, seed, opts).await
    }

    async fn write_csv(&self, dir: &Path, scale: u32, seed: u64, opts: &LoadOptions) -> Result<u64, Error> {
        write_csv(dir, scale, seed, opts).await
    }

    async fn check_sampled(
        &self,
        target: &Target,
        connections: usize,
        k: u32,
        seed: u64,
    ) -> Result<(Vec<Clause>, Vec<String>), Error> {
        check::check_sampled(target, connections, k, seed).await
    }

    async fn check(&self, target: &Target, connections: usize) -> Result<Vec<Clause>, Error> {
        check(target, connections).await
    }

    fn growing(&self) -> &[&str] {
        &["orders", "order_line"]
    }

    async fn restore(&self, target: &Target, opts: &LoadOptions) -> Result<(), Error> {
        restore(target, opts).await
    }

    fn acknowledged(&self) -> Option<AckLookup> {
        Some(acks())
    }
}

/// TPC-C's acknowledged New-Orders (keyed `w_id, d_id, o_id, c_id, lines`), read back by their
/// warehouses and id range in the same SQL on every engine ([`orders_between`]).
pub fn acks() -> AckLookup {
    AckLookup::new(
        "comparing the acknowledged orders",
        |acks, _| {
            // Keyed w_id, d_id, o_id: warehouses and ids are u32s as TPC-C keeps them.
            let as_u32 = |(lo, hi): (i64, i64)| (lo as u32, hi as u32);
            let (w, o) = (span(acks, 0), span(acks, 2));
            // Every order the query can yield: one per id in each district of each warehouse.
            (orders_between(as_u32(w), as_u32(o)), width(w) * i64::from(DISTRICTS_PER_WAREHOUSE) * width(o))
        },
        |a| {
            let [w_id, d_id, o_id, c_id, lines] = a.key;
            format!("w_id={w_id} d_id={d_id} o_id={o_id} (c_id={c_id}, {lines} lines)")
        },
    )
}
