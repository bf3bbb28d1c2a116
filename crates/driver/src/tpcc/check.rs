//! `tpcc check`: the consistency conditions of clause 3.3.2, run against the database.

use std::sync::Arc;

use tokio::sync::Mutex;

use super::loaded;
use crate::pg::{self, tpcc_check};
use crate::{Error, Target};

/// How many offending keys a failed condition shows.
const EXAMPLES: i64 = 5;

/// One condition's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseOutcome {
    /// The condition holds.
    Pass,
    /// It does not: how many rows break it, and the first of their keys.
    Fail {
        /// Offending rows (warehouses, districts, orders, … depending on the condition).
        count: u64,
        /// Up to five of their keys, e.g. `w_id=1 d_id=3`.
        examples: Vec<String>,
    },
    /// It does not apply to this database, and why.
    NotApplicable(&'static str),
}

/// One consistency condition and its outcome.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The clause number, e.g. "3.3.2.1".
    pub number: String,
    /// What the condition says, in one line.
    pub title: &'static str,
    /// Whether it held.
    pub outcome: ClauseOutcome,
}

/// The conditions' one-line statements, in clause order.
const TITLES: [&str; 12] = [
    "W_YTD = sum(D_YTD)",
    "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
    "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER",
    "sum(O_OL_CNT) = rows in ORDER-LINE",
    "O_CARRIER_ID is null exactly for orders in NEW-ORDER",
    "O_OL_CNT = the order's ORDER-LINE rows",
    "OL_DELIVERY_D is null exactly for undelivered orders",
    "W_YTD = sum(H_AMOUNT) per warehouse",
    "D_YTD = sum(H_AMOUNT) per district",
    "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)",
    "rows in ORDER - rows in NEW-ORDER = 2100 per district",
    "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)",
];

/// Clause 3.3.2.11 (0-based index) only holds until the first New-Order or Delivery runs.
const FRESH_ONLY: usize = 10;

/// Runs all twelve conditions over `connections` connections, in clause order in the result.
///
/// # Errors
/// [`Error::Usage`] when `target` holds no finished TPC-C load; [`Error::Failed`] when a query fails.
pub async fn check(target: &Target, connections: usize) -> Result<Vec<Clause>, Error> {
    let client = pg::connect(target).await?;
    let params = loaded(&client, target).await?;
    drop(client);
    let queue = Arc::new(Mutex::new(0..TITLES.len()));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..connections.clamp(1, TITLES.len()) {
        let (queue, target) = (queue.clone(), target.clone());
        workers.spawn(async move {
            let client = pg::connect(&target).await?;
            let mut found = Vec::new();
            loop {
                let Some(i) = queue.lock().await.next() else { return Ok::<_, Error>(found) };
                let outcome = if i == FRESH_ONLY && params.runs > 0 {
                    ClauseOutcome::NotApplicable("holds only before the first run")
                } else {
                    match tpcc_check::violations(&client, &target, i, EXAMPLES).await? {
                        (0, _) => ClauseOutcome::Pass,
                        (count, examples) => ClauseOutcome::Fail { count, examples },
                    }
                };
                found.push((i, outcome));
            }
        });
    }
    let mut outcomes = Vec::new();
    while let Some(joined) = workers.join_next().await {
        let found = joined.map_err(|e| Error::failed(format!("a check task died: {e}")))??;
        outcomes.extend(found);
    }
    outcomes.sort_by_key(|(i, _)| *i);
    Ok(outcomes
        .into_iter()
        .map(|(i, outcome)| Clause { number: format!("3.3.2.{}", i + 1), title: TITLES[i], outcome })
        .collect())
}
