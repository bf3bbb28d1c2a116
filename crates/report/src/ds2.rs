//! DS2's final report, in its driver's terms (`Final: et=… n_overall=… opm=… rt_tot_avg=…`), so that
//! people who read DS2 output, or scripts that parse it, find what they expect: per step the whole run
//! and, with several databases, each one and the variability across them. The detailed view adds every
//! operation's counts and response-time percentiles.

use std::fmt::Write as _;

use crate::histogram::LatencyHistogram;
use crate::model::{Figures, ORDER, RunResult, Step, TxnStats, Workload};

/// The browse operations, reported together as DS2's `n_browse_overall`.
const BROWSES: [&str; 3] = ["browse_category", "browse_actor", "browse_title"];

/// The final report of a DS2 result (empty for other workloads).
pub fn final_report(r: &RunResult, detailed: bool) -> String {
    let mut out = String::new();
    if r.workload != Workload::Ds2 {
        return out;
    }
    let w = &mut out;
    for s in &r.steps {
        let _ = writeln!(
            w,
            "Final (step {} run {}): {}",
            s.index + 1,
            s.run,
            final_line(s.duration_s, &s.figures)
        );
        for (label, f) in &s.targets {
            let _ = writeln!(w, "  {label}: {}", final_line(s.duration_s, f));
        }
        if let Some(v) = variability(s) {
            let _ = writeln!(w, "  variability across databases (max - min) / max: OPM {:.1}%", v * 100.0);
        }
        if detailed {
            crate::summary::transaction_table(w, Workload::Ds2, &s.figures, "  ");
            for (label, f) in &s.targets {
                let _ = writeln!(w, "  {label}:");
                crate::summary::transaction_table(w, Workload::Ds2, f, "  ");
            }
        }
    }
    out
}

/// OPM's variability across a step's databases, (max − min) / max; `None` with one database.
fn variability(s: &Step) -> Option<f64> {
    let opm: Vec<f64> = s.targets.values().filter_map(|f| f.opm).collect();
    (opm.len() > 1).then(|| crate::stats::variability(&opm)).flatten()
}

/// Mean response time of the named operations together, ms, and how many ran.
fn merged(f: &Figures, names: &[&str]) -> (u64, f64) {
    let mut h = LatencyHistogram::new();
    for t in names.iter().filter_map(|n| f.transactions.get(*n)) {
        h.add(&t.histogram);
    }
    (h.count(), h.mean_us() / 1e3)
}

/// DS2's final line for figures measured over `duration_s`.
fn final_line(duration_s: f64, f: &Figures) -> String {
    let op = |name: &str| merged(f, &[name]);
    let (orders, rollbacks, max_ms) =
        f.transactions.get(ORDER).map_or((0, 0, 0.0), |o: &TxnStats| (o.count, o.rollbacks, o.max_ms));
    let (login, newcust, browse, purchase) =
        (op("login"), op("new_customer"), merged(f, &BROWSES), op("purchase"));
    let rate = if orders > 0 { 100.0 * rollbacks as f64 / orders as f64 } else { 0.0 };
    format!(
        "et={duration_s:.1} n_overall={orders} opm={:.0} rt_tot_max={:.0} rt_tot_avg={:.0} n_login_overall={} \
         n_newcust_overall={} n_browse_overall={} n_purchase_overall={} rt_login_avg_msec={:.0} \
         rt_newcust_avg_msec={:.0} rt_browse_avg_msec={:.0} rt_purchase_avg_msec={:.0} n_rollbacks_overall={rollbacks} \
         rollback_rate = {rate:.1}% errors={}",
        f.opm.unwrap_or(0.0),
        max_ms,
        f.rt_tot_avg_ms.unwrap_or(0.0),
        login.0,
        newcust.0,
        browse.0,
        purchase.0,
        login.1,
        newcust.1,
        browse.1,
        purchase.1,
        f.errors
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::result;
    use crate::step::tests::txn;
    use crate::step::{StepPlan, Transactions};

    fn ds2(orders: u64, rollbacks: u64, order_us: u64) -> Transactions {
        Transactions::from([
            ("login".into(), txn(orders * 4 / 5, 2_000, 0)),
            ("new_customer".into(), txn(orders / 5, 4_000, 0)),
            ("browse_category".into(), txn(orders, 1_000, 0)),
            ("browse_title".into(), txn(orders, 3_000, 0)),
            ("purchase".into(), txn(orders, 6_000, rollbacks)),
            (ORDER.into(), txn(orders, order_us, rollbacks)),
        ])
    }

    fn step(per_target: BTreeMap<String, Transactions>) -> Step {
        let plan = StepPlan { run: 1, users: 64, connections: 64, duration_s: 60.0, ..StepPlan::default() };
        Step::new(Workload::Ds2, plan, per_target)
    }

    #[test]
    fn the_final_line_speaks_ds2() {
        let mut r = result(Workload::Ds2, vec![step(BTreeMap::from([("db".into(), ds2(1000, 10, 12_000))]))]);
        let text = final_report(&r, false);
        assert!(text.starts_with("Final (step 1 run 1): et=60.0 n_overall=1000 opm=1000 "), "{text}");
        for needle in [
            "rt_tot_avg=12 ",
            "n_login_overall=800 ",
            "n_newcust_overall=200 ",
            "n_browse_overall=2000 ",
            "n_purchase_overall=1000 ",
            "rt_browse_avg_msec=2 ",
            "n_rollbacks_overall=10 rollback_rate = 1.0%",
        ] {
            assert!(text.contains(needle), "{needle} in {text}");
        }
        assert!(!text.contains("variability"), "one database");
        assert!(
            final_report(&r, true).contains("  purchase              1000        10"),
            "{}",
            final_report(&r, true)
        );
        r.workload = Workload::Tpcc;
        assert_eq!(final_report(&r, true), "");
    }

    #[test]
    fn several_databases_each_get_a_line_and_their_variability() {
        // Study 3's first scenario: 5,567 / 6,055 / 4,823 / 4,291 OPM vary by 29.1%.
        let targets = [5_567, 6_055, 4_823, 4_291]
            .into_iter()
            .enumerate()
            .map(|(i, opm)| (format!("vm{}", i + 1), ds2(opm, 0, 10_000)))
            .collect();
        let text = final_report(&result(Workload::Ds2, vec![step(targets)]), false);
        assert!(text.contains("  vm2: et=60.0 n_overall=6055 opm=6055 "), "{text}");
        assert!(text.contains("n_overall=20736 opm=20736"), "the total: {text}");
        assert!(text.contains("variability across databases (max - min) / max: OPM 29.1%"), "{text}");
    }
}
