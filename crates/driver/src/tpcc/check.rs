//! `tpcc check`: the consistency conditions of clause 3.3.2, run against the database.

use super::Tpcc;
use oltpgen_report::model::checks::Clause;

use crate::consistency::{self, Check, Checks};
use crate::engine::{self, Conn};
use crate::inventory;
use crate::{Error, Target};

/// The twelve conditions, in clause order; the engine supplies each one's query
/// ([`engine::tpcc::check_queries`]).
pub const CHECKS: Checks = Checks {
    noun: "consistency condition",
    table: &[
        Check::new("3.3.2.1", "W_YTD = sum(D_YTD)"),
        Check::new("3.3.2.2", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)"),
        Check::new("3.3.2.3", "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER"),
        Check::new("3.3.2.4", "sum(O_OL_CNT) = rows in ORDER-LINE"),
        Check::new("3.3.2.5", "O_CARRIER_ID is null exactly for orders in NEW-ORDER"),
        Check::new("3.3.2.6", "O_OL_CNT = the order's ORDER-LINE rows"),
        Check::new("3.3.2.7", "OL_DELIVERY_D is null exactly for undelivered orders"),
        Check::new("3.3.2.8", "W_YTD = sum(H_AMOUNT) per warehouse"),
        Check::new("3.3.2.9", "D_YTD = sum(H_AMOUNT) per district"),
        Check::new("3.3.2.10", "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)"),
        // 3.3.2.11 only holds until the first New-Order or Delivery runs.
        Check::fresh_only("3.3.2.11", "rows in ORDER - rows in NEW-ORDER = 2100 per district"),
        Check::new("3.3.2.12", "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)"),
    ],
};

/// Runs all twelve conditions over `connections` connections, in clause order in the result.
///
/// # Errors
/// [`Error::Usage`] when `target` holds no finished TPC-C load; [`Error::Failed`] when a query fails.
pub async fn check(target: &Target, connections: usize) -> Result<Vec<Clause>, Error> {
    let runs = inventory::loaded(&Tpcc, &Conn::open(target).await?, target).await?.runs;
    consistency::run(target, connections, CHECKS, runs, engine::tpcc::check_queries).await
}

/// The conditions `check --sample` runs on every warehouse, in their exact whole-database form:
/// 3.3.2.1 reads only the warehouse and district tables (scale and ten times scale rows).
const WHOLE: [&str; 1] = ["3.3.2.1"];

/// `tpcc check --sample K`: the conditions of [`WHOLE`] on every warehouse, every other on `k`
/// warehouses drawn from `seed`. Returns the outcomes and the lines saying which
/// warehouses were drawn, which conditions ran where, and which were skipped where.
///
/// # Errors
/// [`Error::Usage`] without a finished load;
/// [`Error::Failed`] when a query fails.
pub async fn check_sampled(
    target: &Target,
    connections: usize,
    k: u32,
    seed: u64,
) -> Result<(Vec<Clause>, Vec<String>), Error> {
    let engine = target.engine();
    let loaded = inventory::loaded(&Tpcc, &Conn::open(target).await?, target).await?;
    let warehouses = sample(loaded.scale, k, seed);
    let whole_queries = engine::tpcc::check_queries(engine);
    let queries = (CHECKS.table.iter().enumerate())
        .map(|(i, c)| match WHOLE.contains(&c.clause) {
            true => whole_queries[i].to_string(),
            false => engine::tpcc::sampled_check_query(engine, i, &warehouses),
        })
        .collect();
    let clauses = consistency::run_queries(target, connections, CHECKS, loaded.runs, queries).await?;
    let sampled: Vec<&str> = CHECKS.table.iter().map(|c| c.clause).filter(|c| !WHOLE.contains(c)).collect();
    let span = format!("{} to {}", sampled[0], sampled[sampled.len() - 1]);
    let names = warehouses.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let others = loaded.scale - warehouses.len() as u32;
    let lines = vec![
        format!(
            "sampled {} of {} warehouses (--sample-seed {seed}): {names}",
            warehouses.len(),
            loaded.scale
        ),
        format!("ran on every warehouse: {}; ran on the sampled warehouses only: {span}", WHOLE.join(", ")),
        match others {
            0 => "skipped: none (the sample is every warehouse)".to_string(),
            n => format!("skipped on the other {n} warehouses: {span}"),
        },
    ];
    Ok((clauses, lines))
}

/// `k` distinct warehouses of `1..=scale` (all when `k >= scale`) drawn from `seed`, in ascending order.
fn sample(scale: u32, k: u32, seed: u64) -> Vec<u32> {
    let mut all: Vec<u32> = (1..=scale).collect();
    oltpgen_datagen::Rng::derive(seed, &[u64::from(scale)]).shuffle(&mut all);
    let mut drawn: Vec<u32> = all.into_iter().take(k as usize).collect();
    drawn.sort_unstable();
    drawn
}

#[cfg(test)]
mod tests {
    use oltpgen_vocab::target::Engine;

    #[test]
    fn every_check_has_a_query() {
        for &engine in Engine::ALL {
            assert_eq!(
                super::CHECKS.table.len(),
                super::engine::tpcc::check_queries(engine).len(),
                "{engine:?}"
            );
        }
    }
}
