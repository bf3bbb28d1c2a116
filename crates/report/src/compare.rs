//! Two results side by side ("storage A against storage B", "cache on against cache off"):
//! [`compare`] builds a [`Comparison`], [`render`] prints it.
//!
//! Every figure is compared as a [`Change`] from `a` to `b`: the ratio `b / a` (3.36×) and the change
//! in percent (+236.1%). Steps are matched by their user load (the first step at 4,000 users in `a`
//! with the first at 4,000 in `b`), so sweeps of different lengths compare like with like; the user
//! loads only one result ran are listed. When a result holds several repetitions
//! of its plan (`--runs`), its median run ([`median_run`]) stands for it, as the studies compare
//! medians; the headlines are each result's own `max_within_cap`.
//!
//! ```
//! use oltpgen_report::compare::Change;
//! let c = Change::new(205.0, 689.0);
//! assert_eq!(format!("{:.2}", c.ratio.unwrap()), "3.36");
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::model::{Figures, RunResult, Step};
use crate::numfmt::{factor, figure, percent, thousands};
use crate::stats::{median_run, percent_change, ratio};

/// One figure in both results, and how it changed from `a` (`before`) to `b` (`after`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// The figure in `a`.
    pub before: f64,
    /// The figure in `b`.
    pub after: f64,
    /// `after / before`; `None` when `before` is zero.
    pub ratio: Option<f64>,
    /// `(after / before − 1) × 100`; `None` when `before` is zero.
    pub percent: Option<f64>,
}

impl Change {
    /// The change from `before` to `after`.
    pub fn new(before: f64, after: f64) -> Self {
        Change { before, after, ratio: ratio(after, before), percent: percent_change(before, after) }
    }

    /// The change of a figure both sides may lack; `None` unless both have it.
    fn both(before: Option<f64>, after: Option<f64>) -> Option<Self> {
        Some(Change::new(before?, after?))
    }
}

/// One step present in both results.
#[derive(Debug, Clone, PartialEq)]
pub struct StepComparison {
    /// The step's index (from 0) in `a`.
    pub index: u32,
    /// Its index in `b` (from 0): matched by users, a step may sit at another place there.
    pub b_index: u32,
    /// Users running (the same in both: steps are matched by them).
    pub users: Change,
    /// Business transactions per second.
    pub tps: Change,
    /// NOPM or OPM; `None` when the workloads differ.
    pub per_minute: Option<Change>,
    /// Mean response time, ms.
    pub rt_avg_ms: Change,
    /// 95th-percentile response time, ms.
    pub rt_p95_ms: Change,
}

/// The two headlines (max TPS within the cap) side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlineComparison {
    /// The user load each headline was reached at.
    pub users: Change,
    /// The headline throughput.
    pub tps: Change,
    /// The mean response time at the headline, ms.
    pub rt_avg_ms: Change,
}

/// Everything that can be compared between two results.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// `NOPM` or `OPM` when both ran the same workload; `None` when they differ, and then
    /// per-minute and per-watt figures are not compared (they are in different units).
    pub per_minute_unit: Option<&'static str>,
    /// The headlines; `None` unless both results have one.
    pub headline: Option<HeadlineComparison>,
    /// Throughput per watt, when both measured power and ran the same workload.
    pub per_watt: Option<Change>,
    /// Dollars per TPS, when both have it.
    pub cost_per_tps_usd: Option<Change>,
    /// Dollars per NOPM or OPM, when both have it and ran the same workload.
    pub cost_per_minute_unit_usd: Option<Change>,
    /// The steps found in both, matched by user load, in `a`'s order.
    pub steps: Vec<StepComparison>,
    /// Steps found in only one of the two (`a` or `b`, step index), so none goes missing silently.
    pub unmatched_steps: Vec<(char, u32)>,
    /// What differs between the two runs besides the system under test (scale or size, pacing,
    /// workload), which a reader must weigh before reading the changes as the system's.
    pub warnings: Vec<String>,
}

/// The configuration settings that shape a run's load: two results that differ in one compare more
/// than the systems under test.
const LOAD_SHAPING: [&str; 9] = [
    "scale",
    "db_size",
    "keying_time",
    "think_time",
    "think_time_s",
    "pct_newcustomers",
    "n_searches",
    "search_batch_size",
    "n_line_items",
];

/// What differs between `a` and `b` besides the system under test.
fn warnings(a: &RunResult, b: &RunResult) -> Vec<String> {
    let mut out = Vec::new();
    if a.workload != b.workload {
        out.push(format!(
            "the workloads differ ({} against {})",
            a.workload.per_minute_unit(),
            b.workload.per_minute_unit()
        ));
    }
    for key in LOAD_SHAPING {
        let (x, y) = (a.config.get(key), b.config.get(key));
        if x.is_some() && y.is_some() && x != y {
            let show = |v: Option<&serde_json::Value>| v.map_or(String::new(), |v| v.to_string());
            out.push(format!("{key} differs: {} against {}", show(x), show(y)));
        }
    }
    out
}

/// Compares `b` against `a`.
pub fn compare(a: &RunResult, b: &RunResult) -> Comparison {
    let same_workload = a.workload == b.workload;
    let per_minute_unit = same_workload.then(|| a.workload.per_minute_unit());
    let (a_steps, b_steps) = (median_steps(a), median_steps(b));
    let mut steps = Vec::new();
    let mut unmatched_steps = Vec::new();
    for (x, key) in a_steps.iter().zip(load_keys(&a_steps)) {
        match load_keys(&b_steps).iter().position(|k| *k == key) {
            Some(j) => steps.push(compare_steps(x, b_steps[j], same_workload)),
            None => unmatched_steps.push(('a', x.index)),
        }
    }
    let a_keys: BTreeSet<(u64, usize)> = load_keys(&a_steps).into_iter().collect();
    for (y, key) in b_steps.iter().zip(load_keys(&b_steps)) {
        if !a_keys.contains(&key) {
            unmatched_steps.push(('b', y.index));
        }
    }
    let headline =
        a.max_within_cap.as_ref().zip(b.max_within_cap.as_ref()).map(|(x, y)| HeadlineComparison {
            users: Change::new(x.users as f64, y.users as f64),
            tps: Change::new(x.tps, y.tps),
            rt_avg_ms: Change::new(x.rt_avg_ms, y.rt_avg_ms),
        });
    let (ap, bp) = (a.power.as_ref(), b.power.as_ref());
    let (ac, bc) = (a.cost.as_ref(), b.cost.as_ref());
    Comparison {
        per_minute_unit,
        headline,
        per_watt: Change::both(ap.map(|p| p.per_watt), bp.map(|p| p.per_watt)).filter(|_| same_workload),
        cost_per_tps_usd: Change::both(ac.and_then(|c| c.per_tps_usd), bc.and_then(|c| c.per_tps_usd)),
        cost_per_minute_unit_usd: Change::both(
            ac.and_then(|c| c.per_minute_unit_usd),
            bc.and_then(|c| c.per_minute_unit_usd),
        )
        .filter(|_| same_workload),
        steps,
        unmatched_steps,
        warnings: warnings(a, b),
    }
}

/// The steps of `r`'s median run, in order.
fn median_steps(r: &RunResult) -> Vec<&Step> {
    let run = median_run(&r.steps);
    let by_index: BTreeMap<u32, &Step> =
        r.steps.iter().filter(|s| Some(s.run) == run).map(|s| (s.index, s)).collect();
    by_index.into_values().collect()
}

/// Each step's user load and how many steps before it ran the same load: what matches it across results.
fn load_keys(steps: &[&Step]) -> Vec<(u64, usize)> {
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s.users, steps[..i].iter().filter(|p| p.users == s.users).count()))
        .collect()
}

fn compare_steps(a: &Step, b: &Step, same_workload: bool) -> StepComparison {
    let change = |figure: fn(&Figures) -> f64| Change::new(figure(&a.figures), figure(&b.figures));
    StepComparison {
        index: a.index,
        b_index: b.index,
        users: Change::new(a.users as f64, b.users as f64),
        tps: change(|f| f.tps),
        per_minute: Change::both(a.figures.per_minute(), b.figures.per_minute()).filter(|_| same_workload),
        rt_avg_ms: change(|f| f.rt_avg_ms),
        rt_p95_ms: change(|f| f.rt_p95_ms),
    }
}

/// The comparison as text: the headline, per-watt and cost lines, then one table per step.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let w = &mut out;
    let unit = c.per_minute_unit.unwrap_or("throughput");
    for warning in &c.warnings {
        let _ = writeln!(w, "warning: {warning}: the changes are not the systems' alone");
    }
    match &c.headline {
        Some(h) => {
            let _ = writeln!(
                w,
                "max TPS within cap {} → {}, {} ({}); at {} → {} users",
                figure(h.tps.before),
                figure(h.tps.after),
                factor(h.tps.ratio),
                percent(h.tps.percent),
                thousands(h.users.before, 0),
                thousands(h.users.after, 0)
            );
        }
        None => {
            let _ = writeln!(w, "max TPS within cap: n/a (not both results have a step within a cap)");
        }
    }
    if c.per_minute_unit.is_none() {
        let _ = writeln!(w, "the workloads differ: NOPM/OPM and per-watt figures are not compared");
    }
    for (label, change, currency) in [
        (format!("{unit} per watt"), c.per_watt, ""),
        ("cost per TPS".to_string(), c.cost_per_tps_usd, "$"),
        (format!("cost per {unit}"), c.cost_per_minute_unit_usd, "$"),
    ] {
        if let Some(ch) = change {
            let _ = writeln!(
                w,
                "{label} {currency}{} → {currency}{}, {} ({})",
                figure(ch.before),
                figure(ch.after),
                factor(ch.ratio),
                percent(ch.percent)
            );
        }
    }
    for s in &c.steps {
        let users = format!("{} users", thousands(s.users.before, 0));
        let _ = writeln!(w, "\n{users:<15}{:>12}{:>12}{:>9}{:>10}", "a", "b", "b/a", "change");
        let _ = writeln!(w, "  {:<13}{:>12}{:>12}", "step", s.index + 1, s.b_index + 1);
        let mut row = |label: &str, ch: &Change, value: fn(f64) -> String| {
            let _ = writeln!(
                w,
                "  {label:<13}{:>12}{:>12}{:>9}{:>10}",
                value(ch.before),
                value(ch.after),
                factor(ch.ratio),
                percent(ch.percent)
            );
        };
        row("TPS", &s.tps, figure);
        if let Some(pm) = &s.per_minute {
            row(unit, pm, figure);
        }
        row("avg ms", &s.rt_avg_ms, figure);
        row("p95 ms", &s.rt_p95_ms, figure);
    }
    if !c.unmatched_steps.is_empty() {
        let steps: Vec<String> =
            c.unmatched_steps.iter().map(|(r, i)| format!("{r} step {}", i + 1)).collect();
        let _ = writeln!(w, "\nuser loads in only one result, not compared: {}", steps.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cap::Cap;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::{Cost, Power, Workload};

    /// Study 4's baseline: 205 TPS at 4,000 users is the last step within `avg=1s`.
    fn baseline() -> RunResult {
        let cap = Cap::default();
        result(
            Workload::Tpcc,
            vec![
                tpcc_step(0, 2_000, (3_600, 3_600), 500_000, Some(&cap)),
                tpcc_step(1, 4_000, (6_150, 6_150), 900_000, Some(&cap)),
                tpcc_step(2, 6_000, (6_600, 6_600), 1_500_000, Some(&cap)),
            ],
        )
    }

    /// Study 4's accelerated storage: 689 TPS at 14,000 users; it ran a fourth step.
    fn accelerated() -> RunResult {
        let cap = Cap::default();
        result(
            Workload::Tpcc,
            vec![
                tpcc_step(0, 4_000, (6_150, 6_150), 100_000, Some(&cap)),
                tpcc_step(1, 9_000, (13_800, 13_800), 300_000, Some(&cap)),
                tpcc_step(2, 14_000, (20_670, 20_670), 700_000, Some(&cap)),
                tpcc_step(3, 18_000, (21_000, 21_000), 1_300_000, Some(&cap)),
            ],
        )
    }

    #[test]
    fn study4_headline_is_3_36_times_at_14000_users() {
        let c = compare(&baseline(), &accelerated());
        let h = c.headline.as_ref().unwrap();
        assert_eq!((h.tps.before, h.tps.after), (205.0, 689.0));
        assert_eq!((h.users.before, h.users.after), (4_000.0, 14_000.0));
        assert_eq!(format!("{:.2}", h.tps.ratio.unwrap()), "3.36");
        // Steps are matched by users: only 4,000 users ran in both (a's second step, b's first).
        assert_eq!(c.steps.len(), 1);
        assert_eq!((c.steps[0].index, c.steps[0].b_index), (1, 0));
        assert_eq!(c.unmatched_steps, [('a', 0), ('a', 2), ('b', 1), ('b', 2), ('b', 3)]);
        assert_eq!(c.per_minute_unit, Some("NOPM"));
        assert_eq!(c.steps[0].per_minute, Some(Change::new(6_150.0, 6_150.0)));
        assert_eq!(c.steps[0].rt_avg_ms.ratio.map(|r| format!("{r:.2}")).as_deref(), Some("0.11"));
    }

    #[test]
    fn repeated_user_loads_match_in_order_and_differences_in_the_load_are_warned() {
        let cap = Cap::default();
        let step = |i, users, n| tpcc_step(i, users, (n, n), 1_000, Some(&cap));
        let mut a = result(Workload::Tpcc, vec![step(0, 8, 600), step(1, 8, 660), step(2, 16, 900)]);
        let mut b = result(Workload::Tpcc, vec![step(0, 8, 700), step(1, 16, 1_200), step(2, 16, 1_300)]);
        a.config = serde_json::json!({"scale": 1, "think_time": "spec", "seed": 1});
        b.config = serde_json::json!({"scale": 2, "think_time": "0", "seed": 2});
        let c = compare(&a, &b);
        let pairs: Vec<(u32, u32)> = c.steps.iter().map(|s| (s.index, s.b_index)).collect();
        assert_eq!(pairs, [(0, 0), (2, 1)]);
        assert_eq!(c.unmatched_steps, [('a', 1), ('b', 2)]);
        assert_eq!(c.warnings, ["scale differs: 1 against 2", "think_time differs: \"spec\" against \"0\""]);
        let text = render(&c);
        assert!(
            text.starts_with("warning: scale differs: 1 against 2: the changes are not the systems' alone\n")
        );
        assert!(text.contains("\n16 users"), "{text}");
        assert!(
            text.ends_with("user loads in only one result, not compared: a step 2, b step 3\n"),
            "{text}"
        );
    }

    #[test]
    fn renders_headline_then_a_table_per_step() {
        // Results that ran two steps each, their headlines derived from the steps they hold.
        let mut a = result(Workload::Tpcc, baseline().steps[..2].to_vec());
        let mut b = result(Workload::Tpcc, accelerated().steps[..2].to_vec());
        for r in [&a, &b] {
            let headline = r.max_within_cap.as_ref().expect("a step within the cap");
            assert!(
                r.steps.iter().any(|s| s.index == headline.step_index),
                "the headline is a step it holds"
            );
        }
        a.power = Power::new(None, 400.0, &a.steps[1].figures);
        b.power = Power::new(None, 500.0, &b.steps[1].figures);
        a.cost = Some(Cost::new(10_250.0, Some(&a.steps[1].figures)));
        b.cost = Some(Cost::new(20_700.0, Some(&b.steps[1].figures)));
        let expected = "\
max TPS within cap 205 → 460, 2.24× (+124.4%); at 4,000 → 9,000 users
NOPM per watt 15.4 → 27.6, 1.80× (+79.5%)
cost per TPS $50.0 → $45.0, 0.90× (-10.0%)
cost per NOPM $1.67 → $1.50, 0.90× (-10.0%)

4,000 users               a           b      b/a    change
  step                    2           1
  TPS                   205         205    1.00×     +0.0%
  NOPM                6,150       6,150    1.00×     +0.0%
  avg ms                900         100    0.11×    -88.9%
  p95 ms                900         100    0.11×    -88.9%

user loads in only one result, not compared: a step 1, b step 2
";
        assert_eq!(render(&compare(&a, &b)), expected);
    }

    #[test]
    fn different_workloads_compare_only_shared_units() {
        let a = baseline();
        let mut b = accelerated();
        b.workload = Workload::Ds2;
        b.max_within_cap = None;
        let c = compare(&a, &b);
        assert_eq!((c.per_minute_unit, c.headline.as_ref()), (None, None));
        assert!(c.steps.iter().all(|s| s.per_minute.is_none()));
        let text = render(&c);
        assert!(text.contains(
            "max TPS within cap: n/a (not both results have a step within a cap)\n\
             the workloads differ: NOPM/OPM and per-watt figures are not compared\n"
        ));
        assert!(text.contains("warning: the workloads differ (NOPM against OPM)"), "{text}");
        assert!(text.ends_with("a step 1, a step 3, b step 2, b step 3, b step 4\n"), "{text}");
    }

    #[test]
    fn repeated_runs_compare_their_median_run() {
        let cap = Cap::default();
        let mut runs: Vec<Step> = [(1, 6_000), (2, 9_000), (3, 7_200)]
            .into_iter()
            .map(|(run, n)| {
                let mut s = tpcc_step(0, 100, (n, 0), 1_000, Some(&cap));
                s.run = run;
                s
            })
            .collect();
        let a = result(Workload::Tpcc, runs.clone());
        runs.truncate(1);
        let b = result(Workload::Tpcc, runs);
        let c = compare(&a, &b);
        assert_eq!(c.steps.len(), 1);
        assert_eq!(c.steps[0].tps, Change::new(120.0, 100.0));
    }

    #[test]
    fn a_zero_baseline_has_no_ratio() {
        assert_eq!(Change::new(0.0, 5.0), Change { before: 0.0, after: 5.0, ratio: None, percent: None });
    }
}
