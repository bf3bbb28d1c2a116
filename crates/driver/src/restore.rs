//! Putting a workload's tables back to their loaded state before a run (`--restore`), from the generator
//! itself: the same seed and size give the same rows on every engine, Babelfish included, at the load's
//! speed. Only the workload's tables' rows are touched: they are emptied (`TRUNCATE`, which keeps the
//! tables, their indexes, grants and triggers) and loaded again, the workload's sequences set past the
//! loaded ids, statistics gathered; nothing else of the database changes. Written once for every
//! workload ([`Restorable`]) and engine (through the seam).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use oltpgen_datagen::schema::Dataset;

use crate::engine::{self, Conn};
use crate::inventory::Definition;
use crate::load::{self, LoadOptions};
use crate::{Error, Target};

/// A workload whose tables a study can put back to their loaded state.
pub trait Restorable: Definition {
    /// The tables a run grows (TPC-C's orders and order lines, DS2's orders): their rows at a run's
    /// start show how far the database has drifted from its load.
    const GROWING: &'static [&'static str];

    /// Puts `target`'s tables back to the rows its recorded load generated, over `opts.workers`
    /// connections.
    ///
    /// # Errors
    /// [`Error::Usage`] for a database oltpgen must not write (not loaded by it); [`Error::Failed`] when
    /// a statement or the copy fails.
    fn restore(target: &Target, opts: &LoadOptions) -> impl Future<Output = Result<(), Error>>;
}

/// Empties `data`'s tables in `target`, loads `data`'s rows into them again, runs `after` (the
/// workload's statements for a database whose rows were put back: its sequences), and gathers the
/// tables' statistics.
///
/// # Errors
/// [`Error::Failed`] naming the phase that failed.
pub async fn restore<W: Definition, D: Dataset>(
    target: &Target,
    data: D,
    after: &[String],
    opts: &LoadOptions,
) -> Result<(), Error> {
    let conn = Conn::open(target).await?;
    let engine = target.engine();
    let tables: Vec<&str> = data.tables().iter().map(|t| t.name).collect();
    let emptying = format!("emptying the {} tables to restore them", W::NAME);
    conn.batch(target, &emptying, &engine::truncate(engine, &tables)).await?;
    load::copy_rows(target, &Arc::new(data), opts).await?;
    if !after.is_empty() {
        conn.batch(target, &format!("restarting the {} sequences", W::NAME), after).await?;
    }
    let statistics: Vec<String> = tables.iter().map(|t| engine::statistics(engine, t)).collect();
    conn.batch(target, &format!("analyzing the restored {} tables", W::NAME), &statistics).await
}

/// The rows of `W`'s growing tables in `targets`, summed over them.
///
/// # Errors
/// [`Error::Failed`] when a count fails.
pub async fn start_rows<W: Restorable>(targets: &[Target]) -> Result<BTreeMap<String, u64>, Error> {
    let mut rows = BTreeMap::new();
    for target in targets {
        let conn = Conn::open(target).await?;
        for table in W::GROWING {
            // One text column, as a check's query yields: the count, written out.
            let query = format!("SELECT CAST(COUNT(*) AS VARCHAR(20)) AS k FROM {table}");
            let (_, found) = conn.offending(target, &format!("counting {table}"), &query, 1).await?;
            let n = found.first().and_then(|n| n.trim().parse::<u64>().ok()).unwrap_or(0);
            *rows.entry((*table).to_string()).or_default() += n;
        }
    }
    Ok(rows)
}
