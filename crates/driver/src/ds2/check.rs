//! `ds2 check`: DS2's integrity after a load and after every run: order lines, customer history,
//! inventory and order totals agree.

use super::identify;
use oltpgen_report::model::checks::Clause;

use crate::consistency::{self, Check, Checks};
use crate::engine::{self, Conn};
use crate::{Error, Target};

/// DS2's checks, in order (DS2 defines none of its own: these assert what its procedures guarantee);
/// the engine supplies each one's query ([`engine::ds2::check_queries`]).
pub const CHECKS: Checks = Checks {
    noun: "integrity check",
    table: &[
        Check::new("ds2.1", "every order has 1 to 10 lines, and every line belongs to an order"),
        Check::new(
            "ds2.2",
            "every order line has its cust_hist row with the order's customer, and every cust_hist row its line",
        ),
        Check::new("ds2.3", "no product's stock or sales is negative"),
        Check::new("ds2.4", "every order's total is its net amount plus tax"),
    ],
};

/// Runs every DS2 check over `connections` connections, in order.
///
/// # Errors
/// [`Error::Usage`] when `target` holds no finished DS2 load (nor a database DS2's installer built);
/// [`Error::Failed`] when a query fails.
pub async fn check(target: &Target, connections: usize) -> Result<Vec<Clause>, Error> {
    identify(&Conn::open(target).await?, target).await?;
    consistency::run(target, connections, CHECKS, 0, engine::ds2::check_queries).await
}

#[cfg(test)]
mod tests {
    use oltpgen_vocab::target::Engine;

    #[test]
    fn every_check_has_a_query() {
        for &engine in Engine::ALL {
            assert_eq!(
                super::CHECKS.table.len(),
                super::engine::ds2::check_queries(engine).len(),
                "{engine:?}"
            );
        }
    }
}
