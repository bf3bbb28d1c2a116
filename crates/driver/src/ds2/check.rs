//! `ds2 check`: DS2's integrity after a load and after every run: order lines, customer history,
//! inventory and order totals agree.

use super::identify;
use crate::consistency::{self, Clause, ClauseOutcome, EXAMPLES};
use crate::pg::{self, ds2_check};
use crate::{Error, Target};

/// Runs every DS2 check over `connections` connections, in order.
///
/// # Errors
/// [`Error::Usage`] when `target` holds no finished DS2 load (nor a database DS2's installer built);
/// [`Error::Failed`] when a query fails.
pub async fn check(target: &Target, connections: usize) -> Result<Vec<Clause>, Error> {
    identify(&pg::connect(target).await?, target).await?;
    let checked = target.clone();
    let outcomes = consistency::run_all(target, connections, ds2_check::CHECKS.len(), move |client, i| {
        let target = checked.clone();
        async move {
            let (count, examples) = ds2_check::violations(&client, &target, i, EXAMPLES).await?;
            Ok(ClauseOutcome::of(count, examples))
        }
    })
    .await?;
    Ok(outcomes
        .into_iter()
        .zip(ds2_check::CHECKS)
        .map(|(outcome, (number, title, _))| Clause { number: number.to_string(), title, outcome })
        .collect())
}
