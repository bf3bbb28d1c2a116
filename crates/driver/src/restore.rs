//! Putting a workload's tables back to their loaded state before a run (`--restore`), from the generator
//! itself: the same seed and size give the same rows on every engine, Babelfish included, at the load's
//! speed. Only the workload's tables' rows are touched: they are emptied (`TRUNCATE`, which keeps the
//! tables, their grants and triggers), their keys and the workload's indexes dropped, the rows loaded
//! again and the keys and indexes built after them (the load's own code and order: faster than copying
//! into indexed tables), the workload's sequences set past the loaded ids, statistics gathered; nothing
//! else of the database changes (a user's own index on a workload's table stays, and is kept up). Written once for every
//! workload ([`Stored`]) and engine (through the seam).

use std::collections::BTreeMap;
use std::sync::Arc;

use oltpgen_datagen::schema::Dataset;

use crate::engine::{self, Conn};
use crate::load::{self, LoadOptions};
use crate::workload::Stored;
use crate::{Error, Target};

/// What a workload builds beside its tables' keys and plain indexes, which a restore drops and builds
/// again, in the target's engine's words.
#[derive(Default)]
pub struct Extras {
    /// Dropping the extra indexes (and what depends on the keys, as SQL Server's full-text index), where
    /// they exist, before the keys are dropped.
    pub dropped: Vec<String>,
    /// The extra indexes the load builds beside the keys: (table, statement).
    pub indexes: Vec<(&'static str, String)>,
    /// Run once the keys and indexes are built again (DS2's sequences set past the loaded ids).
    pub after: Vec<String>,
}

/// Puts `data`'s tables in `target` back to their loaded rows, as the load builds them: empties them and
/// drops the workload's own keys and indexes (one transaction where the engine allows, so that a user's
/// object depending on them, which makes it fail, leaves everything as it was), copies the rows into the
/// bare tables, builds the keys and indexes and runs `extras.after` (`load::build_keys_and_finish`,
/// the load's own code), and gathers the tables' statistics. The user's own indexes, grants and objects
/// stay.
///
/// # Errors
/// [`Error::Failed`] naming the phase that failed.
pub async fn restore<W: Stored, D: Dataset>(
    w: &W,
    target: &Target,
    data: D,
    extras: Extras,
    opts: &LoadOptions,
) -> Result<(), Error> {
    let conn = Conn::open(target).await?;
    let engine = target.engine();
    let tables: Vec<&str> = data.tables().iter().map(|t| t.name).collect();
    conn.refuse_restore_dependents(target, &tables).await?;
    let mut clearing = engine::truncate(engine, &tables);
    clearing.extend(extras.dropped);
    clearing.extend(load::keys_and_indexes_dropped(engine, &data));
    let emptying = format!("emptying the {} tables and dropping their keys to restore them", w.name());
    conn.batch(target, &emptying, &clearing).await?;
    let data = Arc::new(data);
    let rows = load::copy_rows(target, &data, opts).await?;
    let keys = load::index_statements(engine, &*data, &rows, extras.indexes);
    load::build_keys_and_finish(w, &conn, target, keys, &extras.after, &tables, opts).await
}

/// The rows of `W`'s growing tables in `targets`, summed over them.
///
/// # Errors
/// [`Error::Failed`] when a count fails.
pub async fn start_rows<W: Stored>(w: &W, targets: &[Target]) -> Result<BTreeMap<String, u64>, Error> {
    let mut rows = BTreeMap::new();
    for target in targets {
        let conn = Conn::open(target).await?;
        for table in w.growing() {
            // One text column, as a check's query yields: the count, written out.
            let query = format!("SELECT CAST(COUNT(*) AS VARCHAR(20)) AS k FROM {table}");
            let (_, found) = conn.offending(target, &format!("counting {table}"), &query, 1).await?;
            let n = found.first().and_then(|n| n.trim().parse::<u64>().ok()).unwrap_or(0);
            *rows.entry((*table).to_string()).or_default() += n;
        }
    }
    Ok(rows)
}
