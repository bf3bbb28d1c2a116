//! The per-transaction table ([`transaction_table`]): every transaction type's counts and response-time
//! percentiles, a row each, as summary.txt, `report show` and DS2's detailed final report print it.

use std::fmt::Write as _;

use crate::model::{Figures, Workload};

/// Every transaction type's counts and response-time percentiles in `f`, one row each, each line
/// starting with `indent`: in summary.txt per step, and in DS2's detailed view.
pub fn transaction_table(w: &mut String, workload: Workload, f: &Figures, indent: &str) {
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
    for name in workload.transactions() {
        if let Some(t) = f.transactions.get(*name) {
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
