//! Consistency checks of a loaded (and driven) database, whatever the workload: each check names what it
//! asserts, runs as one query, and reports pass, fail with the first offending keys, or not applicable.
//! Each workload declares its checks once as a table ([`Check`]: clause, title, fresh-only) and each
//! engine supplies every clause's query. The checks run side by side over a few connections; results
//! come back in the table's order.

use std::sync::Arc;

use oltpgen_report::model::checks::{Clause, ClauseOutcome};
use tokio::sync::Mutex;

use crate::engine::Conn;
use crate::{Error, Target};
use oltpgen_vocab::target::Engine;

/// How many offending keys a failed check shows.
pub const EXAMPLES: i64 = 5;

/// One check of a workload, as its table declares it; the engine supplies its query.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// The clause it checks, e.g. TPC-C's "3.3.2.1" or "ds2.1".
    pub clause: &'static str,
    /// What it asserts, in one line.
    pub title: &'static str,
    /// Holds only on a database no run has driven yet (TPC-C's 3.3.2.11).
    pub fresh_only: bool,
}

impl Check {
    /// A check that holds at any time.
    pub const fn new(clause: &'static str, title: &'static str) -> Self {
        Check { clause, title, fresh_only: false }
    }

    /// A check that holds only before the first run.
    pub const fn fresh_only(clause: &'static str, title: &'static str) -> Self {
        Check { clause, title, fresh_only: true }
    }
}

/// A workload's checks: what an error calls one (e.g. "consistency condition"), and the table.
#[derive(Clone, Copy, Debug)]
pub struct Checks {
    /// What an error calls one check, before its clause.
    pub noun: &'static str,
    /// The checks, in order.
    pub table: &'static [Check],
}

/// Runs every check of `checks` on `target` over up to `connections` connections, check `i` as the
/// `i`th of the engine's `queries(engine)`; `runs` is how many runs drove the database since its load (fresh-only
/// checks do not apply after the first). Outcomes come back in the table's order.
///
/// # Errors
/// The first connection or query that fails.
pub async fn run(
    target: &Target,
    connections: usize,
    checks: Checks,
    runs: u32,
    queries: fn(Engine) -> &'static [&'static str],
) -> Result<Vec<Clause>, Error> {
    let sqls = queries(target.engine()).iter().map(|q| (*q).to_string()).collect();
    run_queries(target, connections, checks, runs, sqls).await
}

/// As [`run`], check `i` as `queries[i]` (e.g. restricted to a sample of the database).
///
/// # Errors
/// The first connection or query that fails.
pub async fn run_queries(
    target: &Target,
    connections: usize,
    checks: Checks,
    runs: u32,
    queries: Vec<String>,
) -> Result<Vec<Clause>, Error> {
    let (table, queries) = (checks.table, Arc::new(queries));
    let queue = Arc::new(Mutex::new(0..table.len()));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..connections.clamp(1, table.len().max(1)) {
        let (queue, target, queries) = (queue.clone(), target.clone(), queries.clone());
        workers.spawn(async move {
            let conn = Conn::open(&target).await?;
            let mut found = Vec::new();
            loop {
                let Some(i) = queue.lock().await.next() else { return Ok::<_, Error>(found) };
                let check = table[i];
                let outcome = if check.fresh_only && runs > 0 {
                    ClauseOutcome::NotApplicable("holds only before the first run")
                } else {
                    let what = format!("{} {}", checks.noun, check.clause);
                    let (count, examples) = conn.offending(&target, &what, &queries[i], EXAMPLES).await?;
                    ClauseOutcome::of(count, examples)
                };
                found.push((i, outcome));
            }
        });
    }
    let mut outcomes = Vec::with_capacity(table.len());
    while let Some(joined) = workers.join_next().await {
        let found = joined.map_err(|e| Error::failed(format!("a check task died: {e}")))??;
        outcomes.extend(found);
    }
    outcomes.sort_by_key(|(i, _)| *i);
    Ok(outcomes
        .into_iter()
        .map(|(i, outcome)| Clause { number: table[i].clause.to_string(), title: table[i].title, outcome })
        .collect())
}
