//! DVD Store 2 against a database: load it at any size, check its integrity, drive one or several
//! databases side by side with DS2's orders.
//!
//! As for TPC-C, the workload's identity is written once here ([`Stored`] on [`Ds2`], the types
//! from [`Ds2Op`], the composite order declared to the run machinery) and each engine supplies its
//! SQL under its own module (`pg::ds2`), reached only through the seam ([`crate::engine::ds2`]: the
//! session enum, the finishing DDL and indexes, the checks' queries, DS2's own databases).

mod check;
mod load;
mod run;

pub use check::{CHECKS, check};
pub use load::{load, restore, write_csv};
pub use run::{Ds2Driver, Ds2Op, Ds2User, RunOptions, progress, run};

use oltpgen_datagen::ds2::schema::Table;
use oltpgen_datagen::ds2::size::DbSize;
use serde::{Deserialize, Serialize};

use std::path::Path;
use std::sync::LazyLock;

use oltpgen_report::model::Workload;
use oltpgen_report::model::checks::Clause;

use crate::engine::{self, Conn};
use crate::inventory::{self, Holding};
use crate::load::{LoadOptions, LoadSummary};
use crate::lost_commits::{span, width};
use crate::workload::{AckLookup, Kinds, Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::ds2::Functions;
use oltpgen_vocab::ds2_checks::purchases_between;
use oltpgen_vocab::target::Engine;

/// The workload's name: its `oltpgen_meta` key, its built-in database, its command.
pub const WORKLOAD: &str = Workload::Ds2.name();

/// The eight table names.
pub fn table_names() -> Vec<&'static str> {
    Table::ALL.iter().map(|t| t.def().name).collect()
}

/// What a load records about itself in the database, so that runs know the id ranges to draw from
/// and checks know what was loaded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadedParams {
    /// The size as loaded (`10MB`, `1GB`, `10GB`, …).
    pub db_size: String,
    /// The data's seed.
    pub seed: u64,
    /// Customers loaded (ids 1..=customers); a run's logins draw from them.
    pub customers: i32,
    /// Products loaded (ids 1..=products).
    pub products: i32,
    /// Orders loaded (ids 1..=orders).
    pub orders: i32,
    /// Runs driven since the load.
    #[serde(default)]
    pub runs: u32,
}

/// DS2 tables and indexes per customer (orders, products and history scale with customers), for the
/// disk the built-in server needs: 23 MB measured for 10MB's 20,000 customers, rounded up.
const BYTES_PER_CUSTOMER: u64 = 1_200;

/// DS2 as the run counts it and its results say it: its operations, then its two views of one whole
/// order (the composite `order`, counted per minute as OPM, and `rt_tot`, the sum of its operations).
pub static PROFILE: LazyLock<Profile> = LazyLock::new(|| {
    let kinds = Kinds {
        per_minute: Ds2Op::Order.index(),
        sum: Some(Ds2Op::RtTot.index()),
        composite: Some(Ds2Op::Order.index()),
        ..Kinds::plain(&run::KIND_NAMES)
    };
    Profile::new(Workload::Ds2.descriptor().clone(), kinds)
});

/// DVD Store 2, the workload: what it keeps in a database and how. A run's own state is a
/// [`Ds2Driver`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Ds2;

impl Stored for Ds2 {
    type Params = LoadedParams;
    type Size = DbSize;
    type Asked = str;
    type Origin = Functions;

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn tables(&self) -> Vec<&str> {
        table_names()
    }

    /// The sequences, the restock trigger, the operations (and on SQL Server the full-text index).
    fn finish(&self, engine: Engine) -> Vec<String> {
        engine::ds2::finish(engine)
    }

    fn describe(&self, p: &LoadedParams) -> String {
        format!("--db-size {}", p.db_size)
    }

    fn seed(&self, p: &LoadedParams) -> u64 {
        p.seed
    }

    fn runs(&self, p: &LoadedParams) -> u32 {
        p.runs
    }

    async fn identify(&self, conn: &Conn, target: &Target) -> Result<(LoadedParams, Functions), Error> {
        identify(conn, target).await
    }

    /// A database DS2's installer built is left as it is: no run is counted in it.
    fn records_runs(&self, functions: Functions) -> bool {
        functions == Functions::Oltpgen
    }

    fn mismatch(&self, target: &Target, loaded: &LoadedParams, asked: &str) -> Option<Error> {
        (!asked.eq_ignore_ascii_case(&loaded.db_size)).then(|| {
            Error::usage(format!(
                "{target} holds ds2 at --db-size {} but --db-size {asked} was asked: run at --db-size {}, \
                 or reload it with oltpgen ds2 load --db-size {asked} --replace",
                loaded.db_size, loaded.db_size
            ))
        })
    }

    fn same_size(&self, a: &LoadedParams, b: &LoadedParams) -> bool {
        (a.customers, a.products) == (b.customers, b.products)
    }

    fn size_words(&self, size: DbSize) -> String {
        format!("ds2 --db-size {size}")
    }

    fn size_bytes(&self, size: DbSize) -> u64 {
        BYTES_PER_CUSTOMER * u64::from(size.customers().unsigned_abs())
    }

    async fn load(
        &self,
        target: &Target,
        size: DbSize,
        seed: u64,
        opts: &LoadOptions,
    ) -> Result<LoadSummary, Error> {
        load(target, size, seed, opts).await
    }

    async fn write_csv(&self, dir: &Path, size: DbSize, seed: u64, opts: &LoadOptions) -> Result<u64, Error> {
        write_csv(dir, size, seed, opts).await
    }

    async fn check(&self, target: &Target, connections: usize) -> Result<Vec<Clause>, Error> {
        check(target, connections).await
    }

    fn growing(&self) -> &[&str] {
        &["orders"]
    }

    async fn restore(&self, target: &Target, opts: &LoadOptions) -> Result<(), Error> {
        restore(target, opts).await
    }

    fn acknowledged(&self) -> Option<AckLookup> {
        Some(acks())
    }
}

/// DS2's acknowledged purchases (keyed `orderid, customerid, lines`), read back by their id range in
/// the same SQL on every engine ([`purchases_between`]).
pub fn acks() -> AckLookup {
    AckLookup::new(
        "comparing the acknowledged purchases",
        |acks, _| {
            let o = span(acks, 0);
            (purchases_between(o.0 as u32, o.1 as u32), width(o))
        },
        |a| {
            let [orderid, customerid, lines, ..] = a.key;
            format!("orderid={orderid} (customerid={customerid}, {lines} lines)")
        },
    )
}

/// What `target` holds for a run or a check, and whose server functions serve it: a finished oltpgen
/// load, or a database DS2's own installer built (its eight tables and five functions, no oltpgen
/// metadata), which is driven through the functions it has. Nothing is written to the latter: it has
/// no seed, so its current order count stands in for one, and each run draws new streams as its
/// orders grow.
///
/// # Errors
/// [`Error::Usage`] for an empty, half-loaded or foreign database, or one of DS2's without data.
pub async fn identify(conn: &Conn, target: &Target) -> Result<(LoadedParams, Functions), Error> {
    if let Holding::Foreign(present) = inventory::holding(&Ds2, conn, target).await?
        && present.len() == table_names().len()
        && let Some(db) = engine::ds2::reference(conn, target).await?
    {
        if db.customers < 1 || db.products < 1 {
            return Err(Error::usage(format!(
                "{target} holds DS2's tables and functions but no customers or products: load its data first"
            )));
        }
        let standard = [DbSize::S, DbSize::M, DbSize::L]
            .into_iter()
            .find(|s| (s.customers(), s.products()) == (db.customers, db.products));
        let loaded = LoadedParams {
            db_size: standard.map_or_else(
                || format!("{} customers, {} products", db.customers, db.products),
                |s| s.to_string(),
            ),
            seed: db.orders as u64,
            customers: db.customers,
            products: db.products,
            orders: db.orders,
            runs: 0,
        };
        return Ok((loaded, Functions::Reference));
    }
    Ok((inventory::loaded(&Ds2, conn, target).await?, Functions::Oltpgen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disk_a_load_needs_scales_with_the_customers() {
        assert_eq!(Ds2.size_bytes(DbSize::S), 24_000_000);
        assert!(Ds2.size_bytes(DbSize::L) > 100 * Ds2.size_bytes(DbSize::M) / 2);
    }
}
