//! Consistency checks of a loaded (and driven) database, whatever the workload: each check names what it
//! asserts, runs as one query, and reports pass, fail with the first offending keys, or not applicable.
//! The checks run side by side over a few connections; results come back in the checks' order.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::Mutex;

use crate::{Error, Target, pg};

/// How many offending keys a failed check shows.
pub const EXAMPLES: i64 = 5;

/// One check's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseOutcome {
    /// The condition holds.
    Pass,
    /// It does not: how many rows break it, and the first of their keys.
    Fail {
        /// Offending rows (warehouses, districts, orders, … depending on the check).
        count: u64,
        /// Up to [`EXAMPLES`] of their keys, e.g. `w_id=1 d_id=3`.
        examples: Vec<String>,
    },
    /// It does not apply to this database, and why.
    NotApplicable(&'static str),
}

impl ClauseOutcome {
    /// The outcome of a query that found `count` offending rows, `examples` of them named.
    pub fn of(count: u64, examples: Vec<String>) -> Self {
        if count == 0 { ClauseOutcome::Pass } else { ClauseOutcome::Fail { count, examples } }
    }
}

/// One check and its outcome.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The check's number, e.g. TPC-C's "3.3.2.1" or "ds2.1".
    pub number: String,
    /// What it asserts, in one line.
    pub title: &'static str,
    /// Whether it held.
    pub outcome: ClauseOutcome,
}

/// Runs checks `0..count` on `target` over up to `connections` connections; `run(client, i)` runs check
/// `i`. Outcomes come back in check order.
///
/// # Errors
/// The first connection or query that fails.
pub async fn run_all<F, Fut>(
    target: &Target,
    connections: usize,
    count: usize,
    run: F,
) -> Result<Vec<ClauseOutcome>, Error>
where
    F: Fn(Arc<tokio_postgres::Client>, usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ClauseOutcome, Error>> + Send,
{
    let queue = Arc::new(Mutex::new(0..count));
    let run = Arc::new(run);
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..connections.clamp(1, count.max(1)) {
        let (queue, target, run) = (queue.clone(), target.clone(), run.clone());
        workers.spawn(async move {
            let client = Arc::new(pg::connect(&target).await?);
            let mut found = Vec::new();
            loop {
                let Some(i) = queue.lock().await.next() else { return Ok::<_, Error>(found) };
                found.push((i, run(client.clone(), i).await?));
            }
        });
    }
    let mut outcomes = Vec::with_capacity(count);
    while let Some(joined) = workers.join_next().await {
        let found = joined.map_err(|e| Error::failed(format!("a check task died: {e}")))??;
        outcomes.extend(found);
    }
    outcomes.sort_by_key(|(i, _)| *i);
    Ok(outcomes.into_iter().map(|(_, o)| o).collect())
}
