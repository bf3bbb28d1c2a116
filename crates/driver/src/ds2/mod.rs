//! DVD Store 2 against a database: load it at any size, check its integrity, drive one or several
//! databases side by side with DS2's orders.

mod check;
mod load;
mod run;

pub use check::check;
pub use load::{drop_all, load, write_csv};
pub use run::{Ds2, Ds2Session, Ds2User, Prepared, RunOptions, prepare, progress, run};

pub use crate::pg::ds2_ops::Functions;

use oltpgen_datagen::ds2::schema::Table;
use oltpgen_datagen::ds2::size::DbSize;
use serde::{Deserialize, Serialize};

use crate::inventory::{self, Holding};
use crate::{Error, Target};

/// The workload's name: its `oltpgen_meta` key, its built-in database, its command.
pub const WORKLOAD: &str = "ds2";

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

/// The parameters of the finished DS2 load in `target`, or one line saying why there is none.
///
/// # Errors
/// [`Error::Usage`] for an empty, half-loaded or foreign database.
pub async fn loaded(client: &tokio_postgres::Client, target: &Target) -> Result<LoadedParams, Error> {
    inventory::loaded_params(client, target, WORKLOAD, &table_names()).await
}

/// What `target` holds for DS2.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn holding(client: &tokio_postgres::Client, target: &Target) -> Result<Holding, Error> {
    inventory::inspect(client, target, WORKLOAD, &table_names()).await
}

/// A DS2 database ready to be driven: what it holds, and whose server functions serve it.
#[derive(Clone, Debug, PartialEq)]
pub struct Identified {
    /// What was loaded (for a database DS2's installer built: read from its data).
    pub loaded: LoadedParams,
    /// oltpgen's functions, or the reference's own.
    pub functions: Functions,
}

/// What `target` holds for a run or a check: a finished oltpgen load, or a database DS2's own installer
/// built (its eight tables and five functions, no oltpgen metadata), which is driven through the
/// functions it has. Nothing is written to the latter: it has no seed, so its current order count
/// stands in for one, and each run draws new streams as its orders grow.
///
/// # Errors
/// [`Error::Usage`] for an empty, half-loaded or foreign database, or one of DS2's without data.
pub async fn identify(client: &tokio_postgres::Client, target: &Target) -> Result<Identified, Error> {
    if let Holding::Foreign(present) = holding(client, target).await?
        && present.len() == table_names().len()
        && let Some(db) = crate::pg::ds2_reference::find(client, target).await?
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
        return Ok(Identified { loaded, functions: Functions::Reference });
    }
    Ok(Identified { loaded: loaded(client, target).await?, functions: Functions::Oltpgen })
}
