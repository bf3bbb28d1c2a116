//! What a database already holds for a workload: nothing, a finished load, a half-finished one, or
//! tables of the same names that oltpgen did not make. Every command asks before it writes or reads.

use tokio_postgres::Client;

use crate::pg::meta::{self, MetaRow};
use crate::{Error, Target};

/// The state of one workload in one database.
#[derive(Debug)]
pub enum Holding {
    /// None of the workload's tables.
    Empty,
    /// A finished load.
    Loaded(MetaRow),
    /// A load that started and did not finish (or finished tables that were dropped since).
    Partial(String),
    /// Tables of the workload's names that oltpgen did not load.
    Foreign(Vec<String>),
}

/// Looks at `target` for `workload`, whose tables are `tables`.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn inspect(
    client: &Client,
    target: &Target,
    workload: &str,
    tables: &[&str],
) -> Result<Holding, Error> {
    let present = crate::pg::schema::existing_tables(client, target, tables).await?;
    let row = meta::read(client, target, workload).await?;
    Ok(match row {
        None if present.is_empty() => Holding::Empty,
        None => Holding::Foreign(present),
        Some(r) if r.state != meta::COMPLETE => {
            Holding::Partial(format!("a {workload} load into {target} started and did not finish"))
        }
        Some(_) if present.len() < tables.len() => {
            let missing: Vec<&str> =
                tables.iter().filter(|t| !present.iter().any(|p| p == *t)).copied().collect();
            Holding::Partial(format!("{target} is missing {workload} tables: {}", missing.join(", ")))
        }
        Some(r) => Holding::Loaded(r),
    })
}

/// The loaded workload's metadata, or a usage error saying why the database cannot be used and what to do.
///
/// # Errors
/// [`Error::Usage`] for an empty, half-loaded or foreign database.
pub async fn require_loaded(
    client: &Client,
    target: &Target,
    workload: &str,
    tables: &[&str],
) -> Result<MetaRow, Error> {
    match inspect(client, target, workload, tables).await? {
        Holding::Loaded(r) => Ok(r),
        Holding::Empty => Err(Error::usage(format!(
            "{target} holds no {workload} database: load it first (oltpgen {workload} load)"
        ))),
        Holding::Partial(why) => {
            Err(Error::usage(format!("{why}: reload it (oltpgen {workload} load --replace)")))
        }
        Holding::Foreign(t) => Err(Error::usage(format!(
            "{target} holds tables oltpgen did not load ({}): use another database",
            t.join(", ")
        ))),
    }
}
