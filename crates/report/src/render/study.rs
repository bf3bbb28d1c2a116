//! The study's lines beside the headline, shared by `report show`, summary.txt and report.html: how the
//! runs of a repeated sweep began and which one is the median ([`runs`]), power on every meter with the
//! throughput per watt ([`power`]), the cost per unit of throughput ([`cost`]), and the steps that were not
//! steady ([`unsteady`]).

use crate::model::RunResult;
use crate::model::cycle::RunRecord;
use crate::numfmt::{figure, thousands};
use crate::stats::{median_run, run_headline};

/// Every study line `r` has, in order: runs, power, cost, then a note per step that was not steady.
pub fn lines(r: &RunResult) -> Vec<String> {
    let mut lines: Vec<String> = [runs(r), power(r), cost(r)].into_iter().flatten().collect();
    lines.extend(unsteady(r));
    lines
}

/// A note for every step whose throughput trended across its window by more than its noise (a note, not
/// a verdict: the step is judged by its cap as ever).
pub fn unsteady(r: &RunResult) -> Vec<String> {
    r.steps
        .iter()
        .filter_map(|s| {
            let t = s.trend.filter(|t| t.significant)?;
            let p = if t.p_value < 0.001 { "p < 0.001".to_string() } else { format!("p = {:.3}", t.p_value) };
            Some(format!(
                "step {} run {} not steady: throughput {:+.1}% per minute across its window ({} intervals, {p})",
                s.index + 1,
                s.run,
                t.pct_per_min,
                t.intervals
            ))
        })
        .collect()
}

/// With `--runs`: each run's headline, which one is the median, and how each began (restored, or the
/// rows it started from, so drift shows).
pub fn runs(r: &RunResult) -> Option<String> {
    if r.runs.len() < 2 {
        return None;
    }
    let unit = &r.descriptor().unit;
    let headlines: Vec<String> = r
        .runs
        .iter()
        .map(|rec| {
            let steps: Vec<_> = r.steps.iter().filter(|s| s.run == rec.run).cloned().collect();
            run_headline(&steps).map_or("none".into(), |h| thousands(h, 0))
        })
        .collect();
    let median = median_run(&r.steps).map_or("none".into(), |run| format!("run {run}"));
    let start = if r.runs.iter().all(|rec| rec.restored.is_some()) {
        // As the runs went: `generator, then template clone` when the first made the copy the others cloned.
        let mut methods: Vec<&str> =
            r.runs.iter().filter_map(|rec| rec.restored.as_ref().map(|x| x.method.as_str())).collect();
        methods.dedup();
        format!("each restored first ({})", methods.join(", then "))
    } else {
        format!("not all restored: {}", start_rows(&r.runs))
    };
    Some(format!(
        "runs: {} — {unit} within the cap {}; the median is {median}; {start}",
        r.runs.len(),
        headlines.join(" / ")
    ))
}

/// The rows each run started from, table by table: `orders 30,000 / 30,412 / 30,820`.
fn start_rows(runs: &[RunRecord]) -> String {
    let tables: Vec<&String> = runs.iter().flat_map(|r| r.start_rows.keys()).collect();
    let mut names: Vec<&String> = Vec::new();
    for t in tables {
        if !names.contains(&t) {
            names.push(t);
        }
    }
    let per_table: Vec<String> = names
        .iter()
        .map(|t| {
            let at: Vec<String> = runs
                .iter()
                .map(|r| r.start_rows.get(*t).map_or("-".into(), |n| thousands(*n as f64, 0)))
                .collect();
            format!("{t} at each run's start {}", at.join(" / "))
        })
        .collect();
    if per_table.is_empty() { "their starting rows are unknown".into() } else { per_table.join("; ") }
}

/// Active and idle watts (each meter's, when there are several) and the throughput per active watt:
/// the median run's.
pub fn power(r: &RunResult) -> Option<String> {
    let p = r.power?;
    let unit = &r.descriptor().unit;
    let median = median_run(&r.steps).and_then(|run| r.runs.iter().find(|rec| rec.run == run));
    let watts = |active: Option<f64>, idle: Option<f64>| {
        let active = active.map_or("n/a".into(), |w| format!("{} W", thousands(w, 1)));
        match idle {
            Some(w) => format!("{active} active, {} W idle", thousands(w, 1)),
            None => format!("{active} active"),
        }
    };
    let mut line = match median.filter(|rec| rec.meters.len() > 1 || r.runs.len() > 1) {
        Some(rec) => format!("power (run {}): {}", rec.run, watts(Some(p.active_w), p.idle_w)),
        None => format!("power: {}", watts(Some(p.active_w), p.idle_w)),
    };
    if let Some(rec) = median.filter(|rec| rec.meters.len() > 1) {
        let meters: Vec<String> =
            rec.meters.iter().map(|(name, m)| format!("{name} {}", watts(m.active_w, m.idle_w))).collect();
        line.push_str(&format!(" ({})", meters.join("; ")));
    }
    line.push_str(&format!("; {} {unit} per watt", figure(p.per_watt)));
    Some(line)
}

/// What the system cost and what each unit of throughput cost at the headline.
pub fn cost(r: &RunResult) -> Option<String> {
    let c = r.cost?;
    let (unit, per_second) = (&r.descriptor().unit, r.descriptor().per_second_unit());
    let mut parts = vec![format!("cost: ${} system", thousands(c.system_cost_usd, 2))];
    parts.extend(c.per_minute_unit_usd.map(|usd| format!("${} per {unit}", money(usd))));
    parts.extend(c.per_tps_usd.map(|usd| format!("${} per {per_second}", money(usd))));
    Some(parts.join(", "))
}

/// Dollars to the cent, or to three significant digits under ten cents.
fn money(usd: f64) -> String {
    if usd >= 0.1 { thousands(usd, 2) } else { format!("{usd:.3}") }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::cycle::{MeterWatts, Restored};
    use crate::model::{Cost, Power, Trend, Workload};
    use crate::stats::cap::Cap;

    fn record(run: u32, restored: bool, orders: u64) -> RunRecord {
        RunRecord {
            run,
            seed: u64::from(run),
            start_s: 0.0,
            restored: restored.then(|| Restored { method: "generator".into(), duration_s: 2.0 }),
            start_rows: BTreeMap::from([("orders".to_string(), orders)]),
            idle_window_s: None,
            idle_counters: BTreeMap::new(),
            meters: BTreeMap::new(),
            power: None,
            lost_commits: None,
        }
    }

    fn study() -> RunResult {
        let cap = Cap::default_for(Workload::Tpcc);
        let steps = [(1, 600), (2, 900), (3, 1_200)]
            .into_iter()
            .map(|(run, nopm)| {
                let mut s = tpcc_step(run - 1, 10, (nopm, nopm), 1_000, Some(&cap));
                s.run = run;
                s
            })
            .collect();
        result(Workload::Tpcc, steps)
    }

    #[test]
    fn runs_say_each_headline_the_median_and_how_they_began() {
        let mut r = study();
        r.runs = (1..=3).map(|run| record(run, true, 30_000)).collect();
        assert_eq!(
            runs(&r).unwrap(),
            "runs: 3 — NOPM within the cap 600 / 900 / 1,200; the median is run 2; each restored first (generator)"
        );
        for rec in &mut r.runs[1..] {
            rec.restored.as_mut().unwrap().method = "template clone".into();
        }
        assert!(runs(&r).unwrap().ends_with("each restored first (generator, then template clone)"));
        r.runs = [(1, 30_000), (2, 30_412), (3, 30_820)].map(|(run, n)| record(run, false, n)).to_vec();
        assert!(
            runs(&r)
                .unwrap()
                .ends_with("not all restored: orders at each run's start 30,000 / 30,412 / 30,820"),
            "{}",
            runs(&r).unwrap()
        );
        r.runs.truncate(1);
        assert_eq!(runs(&r), None, "one run: nothing to say");
    }

    #[test]
    fn power_gives_every_meter_of_the_median_run_and_the_figure_per_watt_and_cost_per_unit() {
        let mut r = study();
        r.runs = (1..=3).map(|run| record(run, true, 30_000)).collect();
        r.runs[1].meters = BTreeMap::from([
            ("server".to_string(), MeterWatts { idle_w: Some(192.6), active_w: Some(273.6) }),
            ("storage".to_string(), MeterWatts { idle_w: Some(177.9), active_w: Some(210.2) }),
        ]);
        r.power = Power::new(Some(370.5), 483.8, &r.steps[1].figures);
        assert_eq!(
            power(&r).unwrap(),
            "power (run 2): 483.8 W active, 370.5 W idle (server 273.6 W active, 192.6 W idle; storage 210.2 W \
             active, 177.9 W idle); 1.86 NOPM per watt"
        );
        r.cost = Some(Cost::new(10_994.88, Some(&r.steps[1].figures)));
        assert_eq!(cost(&r).unwrap(), "cost: $10,994.88 system, $12.22 per NOPM, $366.50 per TPS");
        assert_eq!(lines(&r).len(), 3);
        r.steps[2].trend =
            Some(Trend { pct_per_min: -4.25, p_value: 0.0123, intervals: 18, significant: true });
        r.steps[1].trend = Some(Trend { pct_per_min: 0.4, p_value: 0.6, intervals: 18, significant: false });
        assert_eq!(
            unsteady(&r),
            [
                "step 3 run 3 not steady: throughput -4.2% per minute across its window (18 intervals, p = 0.012)"
            ]
        );
    }

    /// Section 3 of the studies we reproduce: cost per OPM from the configurations' published cost and
    /// total OPM, as the cost line prints it.
    #[test]
    fn study3_cost_per_opm_prints_as_published() {
        for (usd, opm, per_opm) in
            [(10_994.88, 24_433, "$0.45 per OPM"), (32_013.19, 246_255, "$0.13 per OPM")]
        {
            let mut r =
                result(Workload::Ds2, vec![crate::fixtures::ds2_step(0, 32, opm, (1_000, 1_000), None)]);
            r.cost = Some(Cost::new(usd, Some(&r.steps[0].figures)));
            let line = cost(&r).unwrap();
            assert!(line.contains(per_opm), "{line}");
        }
    }
}
