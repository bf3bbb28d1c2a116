//! What a database already holds for a workload: nothing, a finished load, a half-finished one,
//! another workload oltpgen loaded, or tables of the same names that oltpgen did not make. Every
//! command asks before it writes or reads. Written once for every workload ([`Stored`]) and
//! every engine (through [`Conn`]).

use crate::engine::Conn;
use crate::workload::{Stored, registry};
use crate::{Error, Target};
use oltpgen_vocab::meta::MetaRow;

/// The state a finished load leaves.
pub const COMPLETE: &str = "complete";
/// The state while a load runs; still there after a load that died.
pub const LOADING: &str = "loading";

/// What `target` holds for workload `W`.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn holding<W: Stored>(w: &W, conn: &Conn, target: &Target) -> Result<Holding, Error> {
    inspect(conn, target, w.name(), &w.tables()).await
}

/// The parameters of the finished `W` load in `target`, or one line saying why there is none.
///
/// # Errors
/// [`Error::Usage`] for an empty, half-loaded or foreign database.
pub async fn loaded<W: Stored>(w: &W, conn: &Conn, target: &Target) -> Result<W::Params, Error> {
    loaded_params(conn, target, w.name(), &w.tables()).await
}

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
    /// Another workload oltpgen loaded, whose tables share names with this one's (both have `orders`).
    OtherWorkload(&'static str),
}

impl Holding {
    /// Why a command of `workload` cannot use `target` when it holds oltpgen's `other` workload.
    pub fn other_workload(target: &Target, workload: &str, other: &str) -> Error {
        Error::usage(format!(
            "{target} holds oltpgen's {other} database, whose tables share names with {workload}'s: use \
             another database for {workload}, or remove the {other} one first (oltpgen {other} drop)"
        ))
    }
}

/// Looks at `target` for `workload`, whose tables are `tables`.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn inspect(
    conn: &Conn,
    target: &Target,
    workload: &str,
    tables: &[&str],
) -> Result<Holding, Error> {
    let present = conn.existing_tables(target, tables).await?;
    let row = conn.read_meta(target, workload).await?;
    if row.is_none() && !present.is_empty() {
        for other in registry::stored().filter(|w| *w != workload) {
            if conn.read_meta(target, other).await?.is_some() {
                return Ok(Holding::OtherWorkload(other));
            }
        }
    }
    Ok(match row {
        None if present.is_empty() => Holding::Empty,
        None => Holding::Foreign(present),
        Some(r) if r.state != COMPLETE => {
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
    conn: &Conn,
    target: &Target,
    workload: &str,
    tables: &[&str],
) -> Result<MetaRow, Error> {
    match inspect(conn, target, workload, tables).await? {
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
        Holding::OtherWorkload(other) => Err(Holding::other_workload(target, workload, other)),
    }
}

/// The loaded workload's recorded parameters, or a usage error saying why there are none.
///
/// # Errors
/// [`Error::Usage`] for an empty, half-loaded or foreign database, or unreadable parameters.
pub async fn loaded_params<P: serde::de::DeserializeOwned>(
    conn: &Conn,
    target: &Target,
    workload: &str,
    tables: &[&str],
) -> Result<P, Error> {
    let row = require_loaded(conn, target, workload, tables).await?;
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
pub async fn count_run(conn: &Conn, target: &Target, workload: &str) -> Result<(), Error> {
    let Some(mut row) = conn.read_meta(target, workload).await? else { return Ok(()) };
    let runs = row.params.get("runs").and_then(serde_json::Value::as_u64).unwrap_or(0);
    if let Some(params) = row.params.as_object_mut() {
        params.insert("runs".into(), (runs + 1).into());
    }
    conn.write_meta(target, workload, &row).await
}
