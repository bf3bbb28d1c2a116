//! `oltpgen report show`: a result's steps as one table — users, TPS, NOPM or OPM, mean and p95
//! response time, errors, cap verdict — why any step failed its cap, and the headline.
//!
//! Where [`crate::summary`] details every transaction of every step, this is the one-screen view of
//! a user-load sweep: how throughput and response time moved as users grew, and where the cap cut in.

use std::fmt::Write as _;

use crate::model::{Figures, RuleVerdict, RunResult, Step, Workload};
use crate::numfmt::thousands;

/// The step table, a line per step that failed its cap, then the headline line.
pub fn render(r: &RunResult) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "{:>4}{:>5}{:>9}{:>10}{:>10}{:>10}{:>10}{:>8}  cap",
        "step",
        "run",
        "users",
        "TPS",
        r.workload.per_minute_unit(),
        "avg ms",
        "p95 ms",
        "errors"
    );
    for s in &r.steps {
        let [step, run, users, tps, pm, avg, p95, errors, cap] = step_cells(s);
        let _ =
            writeln!(w, "{step:>4}{run:>5}{users:>9}{tps:>10}{pm:>10}{avg:>10}{p95:>10}{errors:>8}  {cap}");
    }
    for s in r.steps.iter().filter(|s| s.cap.as_ref().is_some_and(|v| v.rules.iter().any(|r| !r.passed))) {
        let _ = writeln!(w, "{}", failure(s));
    }
    for (s, why) in r.steps.iter().filter_map(|s| Some((s, s.cap.as_ref()?.invalid.as_ref()?))) {
        let _ = writeln!(w, "step {} run {} not measured: {why}", s.index + 1, s.run);
    }
    for s in r.steps.iter().filter(|s| s.targets.len() > 1) {
        let _ = writeln!(w, "{}", per_target(s, r.workload));
    }
    for s in &r.steps {
        if let Some(audit) = &s.audit {
            w.push_str(&crate::audit::render_text(s, audit));
        }
    }
    let _ = writeln!(w, "{}", headline(r));
    out
}

/// A step driven against several targets (or from several machines): each one's throughput (TPS, or
/// OPM for DS2, whose studies compare databases by OPM), and the variability across them,
/// (max - min) / max, as the studies report it.
fn per_target(s: &Step, workload: Workload) -> String {
    let (unit, of, digits): (&str, fn(&Figures) -> f64, usize) = match workload {
        Workload::Tpcc => ("TPS", |f| f.tps, 1),
        Workload::Ds2 => ("OPM", |f| f.opm.unwrap_or(0.0), 0),
    };
    let values: Vec<f64> = s.targets.values().map(of).collect();
    let each: Vec<String> =
        s.targets.iter().map(|(t, f)| format!("{t} {}", thousands(of(f), digits))).collect();
    let spread = crate::stats::variability(&values).map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
    format!("step {} run {} per target {unit}: {}; variability {spread}", s.index + 1, s.run, each.join(", "))
}

/// A step's row of the step table, formatted, in column order: step, run, users, TPS, NOPM or OPM,
/// avg ms, p95 ms, errors, cap verdict. The text table and the HTML table both show these cells.
pub(crate) fn step_cells(s: &Step) -> [String; 9] {
    let f = &s.figures;
    [
        (s.index + 1).to_string(),
        s.run.to_string(),
        thousands(s.users as f64, 0),
        thousands(f.tps, 1),
        f.per_minute().map_or("-".to_string(), |pm| thousands(pm, 0)),
        thousands(f.rt_avg_ms, 1),
        thousands(f.rt_p95_ms, 1),
        f.errors.to_string(),
        verdict(s).to_string(),
    ]
}

/// A step's verdict in one word: PASS, FAIL, INVALID (not measured: it neither passes nor fails the
/// cap), or `-` without a cap.
pub fn verdict(s: &Step) -> &'static str {
    match &s.cap {
        None => "-",
        Some(v) if v.invalid.is_some() => "INVALID",
        Some(v) if v.passed => "PASS",
        Some(_) => "FAIL",
    }
}

/// Why step `s` failed its cap: each failed rule with what was observed.
fn failure(s: &Step) -> String {
    let rules: Vec<String> = s
        .cap
        .iter()
        .flat_map(|v| &v.rules)
        .filter(|r| !r.passed)
        .map(|RuleVerdict { rule, observed_ms, .. }| match observed_ms {
            Some(ms) => format!("{rule} (observed {} ms)", thousands(*ms, 1)),
            None => format!("{rule} (nothing measured)"),
        })
        .collect();
    format!("step {} run {} over the cap: {}", s.index + 1, s.run, rules.join(", "))
}

/// The headline line: the highest TPS within the cap, where it was reached, and its mean response
/// time — or why there is none.
pub fn headline(r: &RunResult) -> String {
    match &r.max_within_cap {
        Some(h) => format!(
            "max TPS within cap: {} at {} users (step {}), avg {} ms",
            thousands(h.tps, 1),
            thousands(h.users as f64, 0),
            h.step_index + 1,
            thousands(h.rt_avg_ms, 1)
        ),
        None if r.steps.iter().any(|s| s.cap.is_some()) => {
            "max TPS within cap: none, no step kept within the cap".to_string()
        }
        None => "max TPS within cap: n/a, no response-time cap was set".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cap::Cap;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::Workload;
    use crate::step::Transactions;
    use std::collections::BTreeMap;

    #[test]
    fn a_sweep_shows_every_step_the_failures_and_the_headline() {
        let cap: Cap = "avg=1s,new_order.p90=1s,delivery.p90=5s".parse().unwrap();
        let mut steps: Vec<Step> =
            [(2_000, 3_600, 500_000), (4_000, 6_150, 900_000), (14_000, 6_600, 1_500_000)]
                .into_iter()
                .enumerate()
                .map(|(i, (users, n, latency_us))| tpcc_step(i as u32, users, (n, n), latency_us, Some(&cap)))
                .collect();
        steps[2].figures.errors = 12;
        let r = result(Workload::Tpcc, steps);
        let expected = "\
step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
   1    1    2,000     120.0     3,600     500.1     500.2       0  FAIL
   2    1    4,000     205.0     6,150     899.8     900.1       0  FAIL
   3    1   14,000     220.0     6,600   1,499.6   1,500.2      12  FAIL
step 1 run 1 over the cap: delivery.p90=5s (nothing measured)
step 2 run 1 over the cap: delivery.p90=5s (nothing measured)
step 3 run 1 over the cap: avg=1s (observed 1,499.6 ms), new_order.p90=1s (observed 1,500.2 ms), delivery.p90=5s (nothing measured)
max TPS within cap: none, no step kept within the cap
";
        assert_eq!(render(&r), expected);
    }

    #[test]
    fn several_targets_show_each_ones_throughput_and_the_variability() {
        use crate::step::tests::txn;
        let per_target = |n| Transactions::from([("new_order".to_string(), txn(n, 1_000, 0))]);
        let plan = crate::step::StepPlan { run: 1, users: 64, duration_s: 60.0, ..Default::default() };
        let step = Step::new(
            Workload::Tpcc,
            plan,
            BTreeMap::from([
                ("ds2_1".to_string(), per_target(6_000)),
                ("ds2_2".to_string(), per_target(4_200)),
            ]),
        );
        let text = render(&result(Workload::Tpcc, vec![step]));
        assert!(
            text.contains("step 1 run 1 per target TPS: ds2_1 100.0, ds2_2 70.0; variability 30.0%"),
            "{text}"
        );
    }

    #[test]
    fn a_step_not_measured_shows_invalid_and_why() {
        let cap = Cap::default();
        let mut lost = tpcc_step(1, 6_000, (6_600, 6_600), 500_000, Some(&cap));
        lost.cap = Some(cap.judge(&lost.figures, 4));
        let r = result(Workload::Tpcc, vec![tpcc_step(0, 4_000, (6_150, 6_150), 900_000, Some(&cap)), lost]);
        let expected = "\
step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
   1    1    4,000     205.0     6,150     899.8     900.1       0  PASS
   2    1    6,000     220.0     6,600     500.1     500.2       0  INVALID
step 2 run 1 not measured: the server was unreachable for part of the window (4 transactions lost their connection)
max TPS within cap: 205.0 at 4,000 users (step 1), avg 899.8 ms
";
        assert_eq!(render(&r), expected);
    }

    #[test]
    fn headline_names_the_step_and_its_users() {
        let cap = Cap::default();
        let r = result(
            Workload::Tpcc,
            vec![
                tpcc_step(0, 4_000, (6_150, 6_150), 900_000, Some(&cap)),
                tpcc_step(1, 6_000, (6_600, 6_600), 1_500_000, Some(&cap)),
            ],
        );
        let expected = "\
step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
   1    1    4,000     205.0     6,150     899.8     900.1       0  PASS
   2    1    6,000     220.0     6,600   1,499.6   1,500.2       0  FAIL
step 2 run 1 over the cap: avg=1s (observed 1,499.6 ms)
max TPS within cap: 205.0 at 4,000 users (step 1), avg 899.8 ms
";
        assert_eq!(render(&r), expected);
    }

    #[test]
    fn without_a_cap_there_is_no_verdict_and_no_headline() {
        let r = result(Workload::Tpcc, vec![tpcc_step(0, 8, (60, 0), 2_000, None)]);
        let expected = "\
step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
   1    1        8       1.0        60       2.0       2.0       0  -
max TPS within cap: n/a, no response-time cap was set
";
        assert_eq!(render(&r), expected);
    }
}
