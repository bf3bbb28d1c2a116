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

/// The loaded workload's recorded parameters, or a usage error saying why there are none.
///
/// # Errors
/// [`Error::Usage`] for an empty, half-loaded or foreign database, or unreadable parameters.
pub async fn loaded_params<P: serde::de::DeserializeOwned>(
    client: &Client,
    target: &Target,
    workload: &str,
    tables: &[&str],
) -> Result<P, Error> {
    let row = require_loaded(client, target, workload, tables).await?;
    serde_json::from_value(row.params).map_err(|e| {
        Error::usage(format!(
            "{target}: the {workload} load's metadata is unreadable ({e}): reload it (oltpgen {workload} load --replace)"
        ))
    })
}

/// Counts one more run in `workload`'s recorded parameters (its `runs` field), so that later commands
/// know the data is no longer as loaded, and runs draw new random streams.
///
/// # Errors
/// [`Error::Failed`] when the metadata cannot be written.
pub async fn count_run(client: &Client, target: &Target, workload: &str) -> Result<(), Error> {
    let Some(mut row) = meta::read(client, target, workload).await? else { return Ok(()) };
    let runs = row.params.get("runs").and_then(serde_json::Value::as_u64).unwrap_or(0);
    if let Some(params) = row.params.as_object_mut() {
        params.insert("runs".into(), (runs + 1).into());
    }
    meta::write(client, target, workload, &row).await
}
