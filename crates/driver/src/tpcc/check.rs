//! `tpcc check`: the consistency conditions of clause 3.3.2, run against the database.

use super::loaded;
use crate::consistency::{self, Clause, ClauseOutcome, EXAMPLES};
use crate::pg::{self, tpcc_check};
use crate::{Error, Target};

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
    let runs = loaded(&client, target).await?.runs;
    drop(client);
    let checked = target.clone();
    let outcomes = consistency::run_all(target, connections, TITLES.len(), move |client, i| {
        let target = checked.clone();
        async move {
            if i == FRESH_ONLY && runs > 0 {
                return Ok(ClauseOutcome::NotApplicable("holds only before the first run"));
            }
            let (count, examples) = tpcc_check::violations(&client, &target, i, EXAMPLES).await?;
            Ok(ClauseOutcome::of(count, examples))
        }
    })
    .await?;
    Ok(outcomes
        .into_iter()
        .enumerate()
        .map(|(i, outcome)| Clause { number: format!("3.3.2.{}", i + 1), title: TITLES[i], outcome })
        .collect())
}
