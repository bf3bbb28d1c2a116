//! Two results side by side ("storage A against storage B", "cache on against cache off"):
//! [`compare`] builds a [`Comparison`], [`crate::render::text::compare`] prints it and
//! [`crate::render::html::compare`] draws several.
//!
//! Every figure is compared as a [`Change`] from `a` to `b`: the ratio `b / a` (3.36×) and the change
//! in percent (+236.1%). Steps are matched by their user load (the first step at 4,000 users in `a`
//! with the first at 4,000 in `b`), so sweeps of different lengths compare like with like; the user
//! loads only one result ran are listed. When a result holds several repetitions
//! of its plan (`--runs`), its median run ([`median_run`]) stands for it, as the studies compare
//! medians, and when both do, Welch's t-test over the runs says whether the change is more than their
//! noise ([`crate::stats::significance`]). The headlines are each result's own `max_within_cap`, in the
//! workload's own unit: NOPM for TPC-C, OPM (and `rt_tot_avg`) for DS2. [`Comparison::gate`] is
//! `--fail-if-slower`'s verdict, and the whole comparison serializes for `--json`.
//!
//! Results of different workloads are refused ([`CompareError::Workloads`]): NOPM and OPM count
//! different work, and no ratio between them means anything. Results judged by different caps are
//! compared, and [`Comparison::caps`] says so: each headline is the best step within its own cap.
//!
//! ```
//! use oltpgen_report::stats::compare::Change;
//! let c = Change::new(205.0, 689.0);
//! assert_eq!(format!("{:.2}", c.ratio.unwrap()), "3.36");
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::counters::{quoted, split_key};
use crate::model::{Figures, RunResult, Step, WorkloadName};
use crate::numfmt::{figure, percent};
use crate::stats::cap::best_step_within_cap;
use crate::stats::significance::{Significance, welch};
use crate::stats::{median_run, percent_change, ratio};

/// Why two results cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// A and B ran different workloads: their throughputs count different work.
    #[error(
        "A ran {} and B ran {}: their throughputs ({} and {}) count different work, so no change \
         between them means anything; compare results of one workload",
        .a,
        .b,
        .a_unit,
        .b_unit
    )]
    Workloads {
        /// A's workload.
        a: WorkloadName,
        /// B's workload.
        b: WorkloadName,
        /// A's throughput's unit, as its descriptor names it.
        a_unit: String,
        /// B's.
        b_unit: String,
    },
}

/// The caps of two results judged by different ones, each in `--rt-cap` syntax (`None`: no cap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Caps {
    /// A's cap.
    pub a: Option<String>,
    /// B's cap.
    pub b: Option<String>,
}

/// One figure in both results, and how it changed from `a` (`before`) to `b` (`after`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepComparison {
    /// The step's index (from 0) in `a`.
    pub index: u32,
    /// Its index in `b` (from 0): matched by users, a step may sit at another place there.
    pub b_index: u32,
    /// Users running (the same in both: steps are matched by them).
    pub users: Change,
    /// Business transactions per second.
    pub tps: Change,
    /// NOPM or OPM, when both steps have it.
    pub per_minute: Option<Change>,
    /// Mean response time, ms.
    pub rt_avg_ms: Change,
    /// 95th-percentile response time, ms.
    pub rt_p95_ms: Change,
    /// DS2's `rt_tot_avg`, ms, when both have it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rt_tot_avg_ms: Option<Change>,
    /// The counters the studies quote per step ([`crate::model::counters::quoted`]) that both steps hold,
    /// keyed `<source>/<name>`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, Change>,
    /// Welch's t-test of the step's throughput (NOPM/OPM, else TPS) over both results' runs at this
    /// user load, when both repeated it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significance: Option<Significance>,
    /// Each database both steps drove side by side, matched by its stable key: its own figures compared.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub targets: BTreeMap<String, TargetComparison>,
    /// The databases only one of the two steps drove (`a` or `b`, key): not compared.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_targets: Vec<(char, String)>,
}

/// One database's figures in a step both results drove it in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetComparison {
    /// Business transactions per second.
    pub tps: Change,
    /// NOPM or OPM, when both have it.
    pub per_minute: Option<Change>,
    /// Mean response time, ms.
    pub rt_avg_ms: Change,
    /// 95th-percentile response time, ms.
    pub rt_p95_ms: Change,
}

impl TargetComparison {
    /// `a`'s figures against `b`'s.
    fn new(a: &Figures, b: &Figures) -> Self {
        let change = |figure: fn(&Figures) -> f64| Change::new(figure(a), figure(b));
        TargetComparison {
            tps: change(|f| f.tps),
            per_minute: Change::both(a.per_minute(), b.per_minute()),
            rt_avg_ms: change(|f| f.rt_avg_ms),
            rt_p95_ms: change(|f| f.rt_p95_ms),
        }
    }
}

/// The two headlines (max throughput within the cap) side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeadlineComparison<'a> {
    /// The unit of [`throughput`](Self::throughput): `NOPM` or `OPM`.
    pub unit: &'a str,
    /// The headline figure in `unit`: what a study quotes and `--fail-if-slower` judges.
    pub throughput: Change,
    /// The user load each headline was reached at.
    pub users: Change,
    /// The headline's transactions per second.
    pub tps: Change,
    /// DS2: the `rt_tot_avg` at each headline, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rt_tot_avg_ms: Option<Change>,
    /// Welch's t-test of each run's throughput at its headline's user load, when both repeated it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significance: Option<Significance>,
    /// The mean response time at the headline, ms.
    pub rt_avg_ms: Change,
}

/// Everything that can be compared between two results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison<'a> {
    /// `NOPM` or `OPM`: the workload's per-minute unit (both ran the same workload).
    pub per_minute_unit: &'a str,
    /// `TPS`, or the unit of the headline when it is the per-second figure (`IOPS`).
    pub per_second_unit: &'a str,
    /// The headlines; `None` unless both results have one.
    pub headline: Option<HeadlineComparison<'a>>,
    /// Throughput per watt, when both measured power.
    pub per_watt: Option<Change>,
    /// Mean watts while active (every meter's total), when both measured power.
    pub active_w: Option<Change>,
    /// Mean watts while idle before the run (`--idle-sample`), when both measured it.
    pub idle_w: Option<Change>,
    /// Dollars per TPS (per IOPS), when both have it.
    pub cost_per_tps_usd: Option<Change>,
    /// Dollars per NOPM or OPM, when both have it.
    pub cost_per_minute_unit_usd: Option<Change>,
    /// The steps found in both, matched by user load, in `a`'s order.
    pub steps: Vec<StepComparison>,
    /// Steps found in only one of the two (`a` or `b`, step index), so none goes missing silently.
    pub unmatched_steps: Vec<(char, u32)>,
    /// The studies' counters (by key, `source/name`) that steps of one result hold and the other's never
    /// do (`a` or `b`, key), so that none goes missing silently: a database's counters match only
    /// when both results name it by the same key.
    pub unmatched_counters: Vec<(char, String)>,
    /// What differs between the two runs besides the system under test (engine, scale or size,
    /// pacing), which a reader must weigh before reading the changes as the system's.
    pub warnings: Vec<String>,
    /// Both caps, when the results were judged by different ones (`null` when by the same): each
    /// headline is then the best step within its own cap, which a reader must know before comparing them.
    pub caps: Option<Caps>,
    /// What keeps a change from meaning what it seems: a side that ran once (its run-to-run noise is
    /// unknown, so no difference can be told from it), and the two run differently (one restored before
    /// each run and the other not, one idle before its runs, one driven by agents).
    pub caveats: Vec<String>,
}

/// The configuration settings that shape a run's load: two results that differ in one compare more
/// than the systems under test.
const LOAD_SHAPING: [&str; 10] = [
    "scale",
    "db_size",
    "transactions",
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
    if a.server.engine != b.server.engine {
        out.push(format!("the engines differ ({} against {})", a.server.engine, b.server.engine));
    }
    for key in LOAD_SHAPING {
        let (x, y) = (a.config.get(key), b.config.get(key));
        if x.is_some() && y.is_some() && x != y {
            let show = |v: Option<&serde_json::Value>| v.map_or(String::new(), |v| v.to_string());
            out.push(format!("{key} differs: {} against {}", show(x), show(y)));
        }
    }
    for (name, r) in [("A", a), ("B", b)] {
        if r.interrupted {
            out.push(format!("{name} was stopped early: its steps hold only what ran"));
        }
    }
    out
}

/// A result's cap in `--rt-cap` syntax, as its steps were judged (the first judged step's rules).
fn cap_of(r: &RunResult) -> Option<String> {
    let verdict = r.steps.iter().find_map(|s| s.cap.as_ref())?;
    Some(verdict.rules.iter().map(|rule| rule.rule.as_str()).collect::<Vec<_>>().join(","))
}

/// Compares `b` against `a`.
///
/// # Errors
/// [`CompareError::Workloads`] when they ran different workloads.
pub fn compare<'a>(a: &'a RunResult, b: &RunResult) -> Result<Comparison<'a>, CompareError> {
    if a.workload != b.workload {
        return Err(CompareError::Workloads {
            a: a.workload.clone(),
            b: b.workload.clone(),
            a_unit: a.descriptor().unit.clone(),
            b_unit: b.descriptor().unit.clone(),
        });
    }
    let (a_steps, b_steps) = (median_steps(a), median_steps(b));
    let mut steps = Vec::new();
    let mut unmatched_steps = Vec::new();
    for (x, key) in a_steps.iter().zip(load_keys(&a_steps)) {
        match load_keys(&b_steps).iter().position(|k| *k == key) {
            Some(j) => {
                let mut step = compare_steps(x, b_steps[j]);
                step.significance = welch(&runs_at(a, x.users, key.1), &runs_at(b, x.users, key.1));
                steps.push(step);
            }
            None => unmatched_steps.push(('a', x.index)),
        }
    }
    let a_keys: BTreeSet<(u64, usize)> = load_keys(&a_steps).into_iter().collect();
    for (y, key) in b_steps.iter().zip(load_keys(&b_steps)) {
        if !a_keys.contains(&key) {
            unmatched_steps.push(('b', y.index));
        }
    }
    let (ap, bp) = (a.power.as_ref(), b.power.as_ref());
    let (ac, bc) = (a.cost.as_ref(), b.cost.as_ref());
    let (a_cap, b_cap) = (cap_of(a), cap_of(b));
    Ok(Comparison {
        per_minute_unit: &a.descriptor().unit,
        per_second_unit: a.descriptor().per_second_unit(),
        headline: headline(a, b),
        per_watt: Change::both(ap.map(|p| p.per_watt), bp.map(|p| p.per_watt)),
        active_w: Change::both(ap.map(|p| p.active_w), bp.map(|p| p.active_w)),
        idle_w: Change::both(ap.and_then(|p| p.idle_w), bp.and_then(|p| p.idle_w)),
        cost_per_tps_usd: Change::both(ac.and_then(|c| c.per_tps_usd), bc.and_then(|c| c.per_tps_usd)),
        cost_per_minute_unit_usd: Change::both(
            ac.and_then(|c| c.per_minute_unit_usd),
            bc.and_then(|c| c.per_minute_unit_usd),
        ),
        unmatched_counters: unmatched_counters(&a_steps, &b_steps),
        steps,
        unmatched_steps,
        warnings: warnings(a, b),
        caps: (a_cap != b_cap).then_some(Caps { a: a_cap, b: b_cap }),
        caveats: caveats(a, b),
    })
}

/// What keeps the changes between `a` and `b` from meaning what they seem (see [`Comparison::caveats`]).
fn caveats(a: &RunResult, b: &RunResult) -> Vec<String> {
    let mut out = Vec::new();
    let (a_runs, b_runs) = (runs_of(a).len(), runs_of(b).len());
    if a_runs < 2 || b_runs < 2 {
        out.push(format!(
            "A holds {} and B {}: one run cannot show its run-to-run noise, so no difference can be told \
             from it; run each with --runs 3 or more to test one",
            runs_said(a_runs),
            runs_said(b_runs)
        ));
    }
    for (what, of) in [
        ("restored before each run (--restore)", restored as fn(&RunResult) -> String),
        ("idle before each run (--idle-sample)", idle),
        ("driven by", drivers),
    ] {
        let (x, y) = (of(a), of(b));
        if x != y {
            out.push(format!("{what}: A {x}; B {y}: the two ran differently"));
        }
    }
    out
}

/// `n` runs, in words.
fn runs_said(n: usize) -> String {
    if n == 1 { "one run".into() } else { format!("{n} runs") }
}

/// How `r`'s runs were put back to their loaded state: `no`, or the methods (and how many runs).
fn restored(r: &RunResult) -> String {
    let methods: BTreeSet<&str> =
        r.runs.iter().filter_map(|run| Some(run.restored.as_ref()?.method.as_str())).collect();
    let all = methods.into_iter().collect::<Vec<_>>().join(", ");
    match r.runs.iter().filter(|run| run.restored.is_some()).count() {
        0 => "no".into(),
        n if n == r.runs.len() => format!("yes, from the {all}"),
        n => format!("{n} of {} runs, from the {all}", r.runs.len()),
    }
}

/// How long `r`'s runs sat idle before they began: `no`, or each length.
fn idle(r: &RunResult) -> String {
    let spans: BTreeSet<u64> =
        r.runs.iter().filter_map(|run| run.idle_window_s.map(|[a, b]| (b - a).round() as u64)).collect();
    let spans: Vec<String> = spans.iter().map(|s| format!("{s} s")).collect();
    if spans.is_empty() { "no".into() } else { spans.join(", ") }
}

/// Who drove `r`: agents merged (`report merge`), one agent's part, or one process.
fn drivers(r: &RunResult) -> String {
    if let Some(n) = r.config.get("agents").and_then(serde_json::Value::as_u64) {
        return format!("{n} agents");
    }
    match r.config.get("agent").and_then(|a| a.as_str()) {
        Some(a) => format!("agent {a} alone"),
        None => "one process".into(),
    }
}

/// The two headlines compared, in the workload's unit: each result's best step within the cap in its
/// median run (its `max_within_cap` when it ran once), with Welch's test over every run's figure at
/// that user load when both repeated the plan.
fn headline<'a>(a: &'a RunResult, b: &RunResult) -> Option<HeadlineComparison<'a>> {
    let best = |r: &RunResult| -> Option<Step> {
        let median: Vec<Step> = median_steps(r).into_iter().cloned().collect();
        best_step_within_cap(&median).cloned()
    };
    // A result without a headline of its own (no cap, or none kept) has none here either.
    a.max_within_cap.as_ref().zip(b.max_within_cap.as_ref())?;
    let (x, y) = (best(a)?, best(b)?);
    let figure = |s: &Step| s.figures.headline_figure();
    let per_run = |r: &RunResult, s: &Step| -> Vec<f64> {
        runs_of(r)
            .into_iter()
            .filter_map(|run| r.steps.iter().find(|t| t.run == run && t.users == s.users))
            .map(|t| t.figures.headline_figure())
            .collect()
    };
    let change = |of: fn(&Figures) -> f64| Change::new(of(&x.figures), of(&y.figures));
    Some(HeadlineComparison {
        unit: &a.descriptor().unit,
        throughput: Change::new(figure(&x), figure(&y)),
        users: Change::new(x.users as f64, y.users as f64),
        tps: change(|f| f.tps),
        rt_tot_avg_ms: Change::both(x.figures.rt_tot_avg_ms, y.figures.rt_tot_avg_ms),
        significance: welch(&per_run(a, &x), &per_run(b, &y)),
        rt_avg_ms: change(|f| f.rt_avg_ms),
    })
}

/// The quoted counters that `a`'s steps hold and `b`'s never do (`'a'`, key), then the other way.
fn unmatched_counters(a: &[&Step], b: &[&Step]) -> Vec<(char, String)> {
    let keys = |steps: &[&Step]| -> BTreeSet<String> {
        steps.iter().flat_map(|s| s.counters.keys()).filter(|k| quoted(split_key(k).1)).cloned().collect()
    };
    let (a, b) = (keys(a), keys(b));
    let only = |side: char, x: &BTreeSet<String>, y: &BTreeSet<String>| {
        x.difference(y).map(|k| (side, k.clone())).collect::<Vec<_>>()
    };
    [only('a', &a, &b), only('b', &b, &a)].concat()
}

/// The repetitions `r` holds, in order.
fn runs_of(r: &RunResult) -> Vec<u32> {
    let runs: BTreeSet<u32> = r.steps.iter().map(|s| s.run).collect();
    runs.into_iter().collect()
}

/// Each run's throughput (NOPM/OPM, else TPS) at its `nth` step (from 0) of `users` users.
fn runs_at(r: &RunResult, users: u64, nth: usize) -> Vec<f64> {
    runs_of(r)
        .into_iter()
        .filter_map(|run| {
            let mut steps: Vec<&Step> = r.steps.iter().filter(|s| s.run == run && s.users == users).collect();
            steps.sort_by_key(|s| s.index);
            steps.get(nth).map(|s| s.figures.headline_figure())
        })
        .collect()
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

fn compare_steps(a: &Step, b: &Step) -> StepComparison {
    let whole = TargetComparison::new(&a.figures, &b.figures);
    let only = |side: char, x: &Step, y: &Step| -> Vec<(char, String)> {
        x.targets.keys().filter(|k| !y.targets.contains_key(*k)).map(|k| (side, k.clone())).collect()
    };
    StepComparison {
        index: a.index,
        b_index: b.index,
        users: Change::new(a.users as f64, b.users as f64),
        tps: whole.tps,
        per_minute: whole.per_minute,
        rt_avg_ms: whole.rt_avg_ms,
        rt_p95_ms: whole.rt_p95_ms,
        targets: a
            .targets
            .iter()
            .filter_map(|(key, x)| Some((key.clone(), TargetComparison::new(x, b.targets.get(key)?))))
            .collect(),
        unmatched_targets: [only('a', a, b), only('b', b, a)].concat(),
        rt_tot_avg_ms: Change::both(a.figures.rt_tot_avg_ms, b.figures.rt_tot_avg_ms),
        counters: a
            .counters
            .iter()
            .filter(|(key, _)| quoted(split_key(key).1))
            .filter_map(|(key, x)| Some((key.clone(), Change::new(*x, *b.counters.get(key)?))))
            .collect(),
        significance: None,
    }
}

/// `--fail-if-slower`'s verdict on a comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// B's headline is no more than the allowed percentage below A's (or above it).
    Pass(String),
    /// B's headline is worse than A's by more than allowed, or B has none where A has one.
    Fail(String),
}

impl Comparison<'_> {
    /// Whether B's headline throughput is worse than A's by more than `pct` percent: the CI gate. With
    /// repeated runs a drop the t-test calls noise still fails: a gate judges the figure it is given,
    /// and the statement beside it tells a reader how sure that figure is.
    pub fn gate(&self, pct: f64, a_has_headline: bool) -> Gate {
        let Some(h) = &self.headline else {
            return match a_has_headline {
                true => Gate::Fail("B has no step within the cap, A has one".into()),
                false => Gate::Fail("A has no step within the cap: there is no headline to hold B to".into()),
            };
        };
        let change = h.throughput.percent.unwrap_or(0.0);
        let text = format!(
            "{} {} → {} ({})",
            h.unit,
            figure(h.throughput.before),
            figure(h.throughput.after),
            percent(h.throughput.percent)
        );
        if change < -pct {
            Gate::Fail(format!("B is slower than A by more than {pct}%: {text}"))
        } else {
            Gate::Pass(format!("B is within {pct}% of A or faster: {text}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{accelerated, baseline, repeated, result, tpcc_step};
    use crate::model::Workload;
    use crate::stats::cap::Cap;

    #[test]
    fn study4_headline_is_3_36_times_at_14000_users() {
        let a = baseline();
        let c = compare(&a, &accelerated()).unwrap();
        let h = c.headline.as_ref().unwrap();
        assert_eq!((h.tps.before, h.tps.after), (205.0, 689.0));
        assert_eq!((h.users.before, h.users.after), (4_000.0, 14_000.0));
        assert_eq!(format!("{:.2}", h.tps.ratio.unwrap()), "3.36");
        // Steps are matched by users: only 4,000 users ran in both (a's second step, b's first).
        assert_eq!(c.steps.len(), 1);
        assert_eq!((c.steps[0].index, c.steps[0].b_index), (1, 0));
        assert_eq!(c.unmatched_steps, [('a', 0), ('a', 2), ('b', 1), ('b', 2), ('b', 3)]);
        assert_eq!(c.per_minute_unit, "NOPM");
        assert_eq!(c.steps[0].per_minute, Some(Change::new(6_150.0, 6_150.0)));
        assert_eq!(c.steps[0].rt_avg_ms.ratio.map(|r| format!("{r:.2}")).as_deref(), Some("0.11"));
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
        let c = compare(&a, &b).unwrap();
        assert_eq!(c.steps.len(), 1);
        assert_eq!(c.steps[0].tps, Change::new(120.0, 100.0));
    }

    #[test]
    fn a_zero_baseline_has_no_ratio() {
        assert_eq!(Change::new(0.0, 5.0), Change { before: 0.0, after: 5.0, ratio: None, percent: None });
    }

    #[test]
    fn the_gate_fails_a_drop_beyond_the_allowance_only() {
        let a = repeated(16, &[6_000]);
        let pass = |c: &Comparison, pct| matches!(c.gate(pct, true), Gate::Pass(_));
        let slower = compare(&a, &repeated(16, &[5_400])).unwrap();
        assert!(!pass(&slower, 5.0), "10% slower fails a 5% gate");
        assert!(pass(&slower, 10.0), "10% slower passes a 10% gate");
        assert_eq!(
            slower.gate(5.0, true),
            Gate::Fail("B is slower than A by more than 5%: NOPM 6,000 → 5,400 (-10.0%)".into())
        );
        assert!(pass(&compare(&a, &repeated(16, &[7_000])).unwrap(), 0.0), "faster passes");
        let mut none = repeated(16, &[9_000]);
        none.max_within_cap = None;
        assert!(
            matches!(compare(&a, &none).unwrap().gate(5.0, true), Gate::Fail(why) if why.contains("B has no step"))
        );
    }

    #[test]
    fn engine_mode_size_and_pacing_differences_are_warned() {
        let mut a = repeated(16, &[6_000]);
        let mut b = repeated(16, &[6_000]);
        a.server.engine = "postgres".into();
        b.server.engine = "sqlserver".into();
        a.config = serde_json::json!({"transactions": "client", "scale": 10, "keying_time": "spec"});
        b.config = serde_json::json!({"transactions": "server", "scale": 10, "keying_time": "off"});
        assert_eq!(
            compare(&a, &b).unwrap().warnings,
            [
                "the engines differ (postgres against sqlserver)",
                "transactions differs: \"client\" against \"server\"",
                "keying_time differs: \"spec\" against \"off\""
            ]
        );
        b.interrupted = true;
        assert_eq!(
            compare(&a, &b).unwrap().warnings.last().map(String::as_str),
            Some("B was stopped early: its steps hold only what ran")
        );
    }

    #[test]
    fn a_change_of_single_runs_or_of_runs_made_differently_is_said_to_be_uncertain() {
        use crate::model::cycle::{Restored, RunRecord};
        // Issue 35: single runs compared said +11.7% with no caveat.
        let (a, b) = (repeated(16, &[6_000]), repeated(16, &[6_700]));
        let c = compare(&a, &b).unwrap();
        assert_eq!(
            c.caveats,
            [
                "A holds one run and B one run: one run cannot show its run-to-run noise, so no difference can \
              be told from it; run each with --runs 3 or more to test one"
            ]
        );
        assert!(
            compare(&repeated(16, &[6_000, 6_100, 5_900]), &repeated(16, &[6_700, 6_600, 6_800]))
                .unwrap()
                .caveats
                .is_empty(),
            "three runs a side: Welch's test says what the noise allows, and nothing else differs"
        );

        // Three runs a side, but A restored before each, sat idle 30 s and was driven by two agents.
        let mut a = repeated(16, &[6_000, 6_100, 5_900]);
        let b = repeated(16, &[6_700, 6_600, 6_800]);
        a.runs = (1..=3)
            .map(|run| RunRecord {
                run,
                seed: 1,
                start_s: 0.0,
                restored: Some(Restored { method: "generator".into(), duration_s: 1.0 }),
                start_rows: BTreeMap::new(),
                idle_window_s: Some([100.0, 130.0]),
                idle_counters: BTreeMap::new(),
                meters: BTreeMap::new(),
                power: None,
                lost_commits: None,
            })
            .collect();
        a.config = serde_json::json!({"agents": 2});
        let c = compare(&a, &b).unwrap();
        assert_eq!(
            c.caveats,
            [
                "restored before each run (--restore): A yes, from the generator; B no: the two ran differently",
                "idle before each run (--idle-sample): A 30 s; B no: the two ran differently",
                "driven by: A 2 agents; B one process: the two ran differently",
            ]
        );
        let text = crate::render::text::compare::render(&c);
        assert!(text.contains("\ncaution: restored before each run (--restore): A yes"), "{text}");
        assert_eq!(
            serde_json::to_value(&c).unwrap()["caveats"].as_array().unwrap().len(),
            3,
            "and in --json"
        );
    }
}
