//! The per-transaction table ([`transaction_table`]): every transaction type's counts and response-time
//! percentiles, a row each, as summary.txt, `report show` and DS2's detailed final report print it.

use std::fmt::Write as _;

use crate::model::Figures;
use crate::model::descriptor::Descriptor;

/// Every transaction type's counts and response-time percentiles in `f`, one row each, each line
/// starting with `indent`: in summary.txt per step, and in DS2's detailed view.
pub fn transaction_table(w: &mut String, workload: &Descriptor, f: &Figures, indent: &str) {
    let _ = writeln!(
        w,
        "{indent}{:<16}{:>10}{:>10}{:>8}{:>8}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}",
        "transaction",
        "count",
        "rollbacks",
        "errors",
        "retries",
        "avg ms",
        "p50 ms",
        "p90 ms",
        "p95 ms",
        "p99 ms",
        "max ms"
    );
    for name in &workload.transactions {
        if let Some(t) = f.transactions.get(name) {
            let _ = writeln!(
                w,
                "{indent}{name:<16}{:>10}{:>10}{:>8}{:>8}{:>9.1}{:>9.1}{:>9.1}{:>9.1}{:>9.1}{:>9.1}",
                t.count,
                t.rollbacks,
                t.errors,
                t.retries,
                t.avg_ms,
                t.p50_ms,
                t.p90_ms,
                t.p95_ms,
                t.p99_ms,
                t.max_ms
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{ds2_step, whole_lines};
    use crate::model::Workload;

    #[test]
    fn a_row_per_transaction_in_the_workload_s_order() {
        let s = ds2_step(0, 16, 30_000, (400_000, 300_000), None);
        let mut w = String::new();
        transaction_table(&mut w, Workload::Ds2.descriptor(), &s.figures, "");
        insta::assert_snapshot!(whole_lines(w), @r"
            transaction          count rollbacks  errors retries   avg ms   p50 ms   p90 ms   p95 ms   p99 ms   max ms
            login                30000         0       0       0     75.0     75.0     75.0     75.0     75.0     75.0
            purchase             30000         0       0       0    225.0    225.0    225.0    225.0    225.0    225.0
            order                30000         0       0       0    400.0    400.1    400.1    400.1    400.1    400.1
            rt_tot               30000         0       0       0    299.9    300.0    300.0    300.0    300.0    300.0
            ");
        let mut indented = String::new();
        transaction_table(&mut indented, Workload::Ds2.descriptor(), &s.figures, "> ");
        assert!(indented.lines().all(|l| l.starts_with("> ")), "{indented}");
    }
}
