//! A step table's words, shared by the text table (`report show`, summary.txt) and report.html's: the
//! column titles and widths ([`step_columns`]), a step's cells ([`step_cells`]), its verdict in one word
//! ([`verdict`]), why it failed its cap ([`failure`]), the per-target line of a step driven against several
//! targets ([`per_target`]), and the headline line under the table ([`headline`]).

use crate::model::descriptor::{Descriptor, Rate};
use crate::model::search::SearchReached;
use crate::model::{Figures, RuleVerdict, RunResult, Step};
use crate::numfmt::thousands;
use crate::stats::variability;

/// A step driven against several targets (or from several machines): each one's throughput (TPS, or
/// OPM for DS2, whose studies compare databases by OPM), and the variability across them,
/// (max - min) / max, as the studies report it. A target without the figure is shown `-` and left out
/// of the variability.
pub fn per_target(s: &Step, workload: &Descriptor) -> String {
    let column = &workload.per_target;
    let (unit, digits) = (&column.title, column.digits);
    let of = |f: &Figures| column.figure.of(f);
    let values: Vec<f64> = s.targets.values().filter_map(of).collect();
    let each: Vec<String> = s
        .targets
        .iter()
        .map(|(t, f)| format!("{t} {}", of(f).map_or("-".into(), |v| thousands(v, digits))))
        .collect();
    let spread = variability(&values).map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
    format!("step {} run {} per target {unit}: {}; variability {spread}", s.index + 1, s.run, each.join(", "))
}

/// The step table's column titles and widths (the text table right-aligns each cell in its width;
/// the last, the cap verdict, follows two spaces): step, run and load, the workload's four figure
/// columns ([`Descriptor::step_columns`]), errors and the cap. TPC-C's speaks TPS and NOPM with the
/// mean and p95 of every transaction; DS2's speaks as DS2 does, OPM and `rt_tot_avg`, beside the whole
/// order's mean and p95 from its intended start (what the default cap judges).
pub fn step_columns(workload: &Descriptor) -> [(&str, usize); 9] {
    let figure = |i: usize| workload.step_columns.get(i).map_or(("", 0), |c| (c.title.as_str(), c.width));
    let load = &workload.load_column;
    [
        ("step", 4),
        ("run", 5),
        (load.0.as_str(), load.1),
        figure(0),
        figure(1),
        figure(2),
        figure(3),
        ("errors", 8),
        ("cap", 0),
    ]
}

/// A step's row of the step table, formatted, in [`step_columns`]' order. The text table and the
/// HTML table both show these cells; a figure the step has none of is `-` (absent, not 0).
pub fn step_cells(s: &Step, workload: &Descriptor) -> [String; 9] {
    let f = &s.figures;
    let cell = |i: usize| {
        workload
            .step_columns
            .get(i)
            .map_or(String::new(), |c| c.figure.of(f).map_or("-".to_string(), |v| thousands(v, c.digits)))
    };
    [
        (s.index + 1).to_string(),
        s.run.to_string(),
        thousands(s.users as f64, 0),
        cell(0),
        cell(1),
        cell(2),
        cell(3),
        f.errors.to_string(),
        verdict(s).to_string(),
    ]
}

/// A step's rows of the step table: its own (every target's transactions together), then, when it drove
/// several targets, a row per target in the same columns — that target's users, figures and own
/// verdict under the step's cap, its step and run cells blank, its key after the verdict — so each
/// database and the total read side by side, as Benchmark Factory's reports of several databases do.
/// The total's row then says `total` after its verdict; the cap judged on it decides the headline.
pub fn step_rows(s: &Step, workload: &Descriptor) -> Vec<[String; 9]> {
    let mut total = step_cells(s, workload);
    if s.targets.len() < 2 {
        return vec![total];
    }
    total[8] = format!("{}  total", total[8]);
    let mut rows = vec![total];
    let n = s.targets.len() as u64;
    for (key, figures) in &s.targets {
        // The step as this target alone ran it: its share of the users (user i drives target i % n).
        let mut one = Step {
            figures: figures.clone(),
            targets: Default::default(),
            cap: s.target_caps.get(key).cloned(),
            target_caps: Default::default(),
            target_connections: Default::default(),
            audit: None,
            counters: Default::default(),
            arrivals: None,
            ..s.clone()
        };
        let connections = s.target_connections.get(key).copied().unwrap_or(s.connections / n);
        (one.users, one.connections) = (s.users / n, connections);
        let mut cells = step_cells(&one, workload);
        cells[0].clear();
        cells[1].clear();
        cells[8] = format!("{}  {key}", cells[8]);
        rows.push(cells);
    }
    rows
}

/// Every step's rows ([`step_rows`]) of `r`'s step table, each with whether it is the headline's row
/// (the headline step's own, or its total's with several targets), whose verdict is followed by
/// [`HEADLINE_MARK`].
pub fn table_rows(r: &RunResult) -> Vec<([String; 9], bool)> {
    let best = headline_step(r);
    let mut rows = Vec::new();
    for s in &r.steps {
        let marked = best.is_some_and(|b| std::ptr::eq(b, s));
        for (i, mut cells) in step_rows(s, r.descriptor()).into_iter().enumerate() {
            let headline = marked && i == 0;
            // A search's path: each probe's role after its verdict.
            if let Some(role) = s.probe.filter(|_| i == 0) {
                cells[8] = format!("{}  {role}", cells[8]);
                if let Some(too) = s.probe_too {
                    cells[8] = format!("{}, {too} too", cells[8]);
                }
            }
            if headline {
                cells[8] = format!("{}  {HEADLINE_MARK}", cells[8]);
            }
            rows.push((cells, headline));
        }
    }
    rows
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

/// The mean TPS (IOPS) over every run of the steps at `users`, and how many runs; `None` for one run.
pub fn runs_mean(r: &RunResult, users: u64) -> Option<(f64, usize)> {
    let rates: Vec<f64> = r.steps.iter().filter(|s| s.users == users).map(|s| s.figures.tps).collect();
    (rates.len() > 1).then(|| (rates.iter().sum::<f64>() / rates.len() as f64, rates.len()))
}

/// The headline line, the same in every output (the run's end, summary.txt, `report show` at its top
/// and under its table, report.html): the workload's own figure within the cap — NOPM for TPC-C
/// (with its TPS beside), OPM for DS2 (with `rt_tot_avg`), IOPS for `io` — where it was reached, and
/// its mean response time; or why there is none.
pub fn headline(r: &RunResult) -> String {
    let d = r.descriptor();
    let (unit, load) = (&d.unit, &d.load);
    // The cap's rules, as the steps were judged by them.
    let rules: Vec<&str> = r
        .steps
        .iter()
        .find_map(|s| s.cap.as_ref())
        .map_or(Vec::new(), |c| c.rules.iter().map(|x| x.rule.as_str()).collect());
    let cap = if rules.is_empty() { "cap".to_string() } else { format!("cap {}", rules.join(",")) };
    let Some(h) = &r.max_within_cap else {
        let why = if r.steps.is_empty() {
            "none, the run stopped before a step was measured"
        } else if r.steps.iter().any(|s| s.cap.is_some()) {
            "none, no step kept within the cap"
        } else {
            "n/a, no response-time cap was set"
        };
        return format!("max {unit} within {cap}: {why}");
    };
    let not_measured = || format!("not measured ({unit} not recorded)");
    let (value, mean) = match d.headline {
        Rate::Nopm => {
            // A result of an older oltpgen kept no NOPM beside its headline: its step has it.
            let nopm = h.nopm.or_else(|| headline_step(r).and_then(|s| s.figures.nopm));
            (
                nopm.map_or_else(not_measured, |n| thousands(n, 0)),
                format!("{} TPS, avg {} ms", thousands(h.tps, 1), thousands(h.rt_avg_ms, 1)),
            )
        }
        Rate::PerMinute => (
            h.txn_per_minute.map_or_else(not_measured, |n| thousands(n, 0)),
            format!("{} TPS, avg {} ms", thousands(h.tps, 1), thousands(h.rt_avg_ms, 2)),
        ),
        Rate::Opm => (
            h.opm.map_or_else(not_measured, |opm| thousands(opm, 0)),
            h.rt_tot_avg_ms.map_or_else(
                || "rt_tot_avg not measured".into(),
                |ms| format!("rt_tot_avg {} ms", thousands(ms, 1)),
            ),
        ),
        // Storage's latencies are fractions of a millisecond: two decimals; with --runs, the runs'
        // mean beside the median run's figure, as Iometer's study averaged its runs.
        Rate::Iops => {
            let runs = runs_mean(r, h.users)
                .map_or(String::new(), |(m, n)| format!("; mean of {n} runs {} {unit}", thousands(m, 0)));
            (thousands(h.tps, 0), format!("avg {} ms{runs}", thousands(h.rt_avg_ms, 2)))
        }
    };
    // An open loop's load is the rate it offered, to its population of users.
    let (at, load) = match headline_step(r).and_then(|s| s.arrivals.as_ref()) {
        Some(a) => {
            (format!("{}/s offered to {} {load}", thousands(a.offered_per_s, 0), h.users), "arrivals/s")
        }
        None => (format!("{} {load}", thousands(h.users as f64, 0)), load.as_str()),
    };
    let searched = h.search.as_ref().map_or(String::new(), |s| searched(r, s, load));
    format!("max {unit} within {cap}: {value} at {at} (step {}), {mean}{searched}", h.step_index + 1)
}

/// What the headline adds when a `--find-max` search found it: its probes, where the cap failed
/// above it and the resolution reached, and which run's answer it is when there were several.
fn searched(r: &RunResult, s: &SearchReached, load: &str) -> String {
    let reached = match (s.failed_at, s.passed_at, s.resolution_pct) {
        (Some(failed), Some(passed), Some(pct)) => format!(
            "the cap fails between {} and {} {load} (resolution reached {}%)",
            thousands(passed as f64, 0),
            thousands(failed as f64, 0),
            thousands(pct, 1)
        ),
        _ => "the cap never failed within the range".to_string(),
    };
    let runs = r.steps.iter().map(|s| s.run).max().unwrap_or(1);
    let median = match headline_step(r).filter(|_| runs > 1) {
        Some(answer) => format!(", the median of {runs} runs' answers, run {}'s", answer.run),
        None => String::new(),
    };
    format!("; found by --find-max in {} probes{median}: {reached}", s.probes)
}

/// The step behind `r`'s headline: its index, and its throughput (with `--runs`, the median run's
/// step of that index).
pub fn headline_step(r: &RunResult) -> Option<&Step> {
    let h = r.max_within_cap.as_ref()?;
    r.steps.iter().find(|s| s.index == h.step_index && s.figures.tps == h.tps)
}

/// What marks the headline's row in the step tables, after its verdict.
pub const HEADLINE_MARK: &str = "← headline";

/// Why step `s` failed its cap: each failed rule with what was observed (the text's and the page's
/// line under the step table).
pub fn failure(s: &Step) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::search_result;

    #[test]
    fn a_search_s_headline_says_its_probes_and_the_resolution_and_its_rows_each_probe_s_role() {
        let r = search_result(true);
        assert_eq!(
            headline(&r),
            "max NOPM within cap avg=1s: 1,200 at 6 users (step 3), 40.0 TPS, avg 100.0 ms; found by --find-max \
             in 6 probes: the cap fails between 6 and 7 users (resolution reached 16.7%)"
        );
        let verdicts: Vec<String> = table_rows(&r).into_iter().map(|(cells, _)| cells[8].clone()).collect();
        assert_eq!(
            verdicts,
            [
                "PASS  grow",
                "FAIL  grow",
                "PASS  bisect  ← headline",
                "FAIL  bisect",
                "PASS  neighbour",
                "PASS  confirm"
            ]
        );
    }

    #[test]
    fn with_several_runs_the_headline_names_the_run_whose_answer_is_the_median() {
        let mut r = search_result(true);
        let mut second = r.steps.clone();
        for (i, s) in second.iter_mut().enumerate() {
            (s.run, s.index) = (2, (6 + i) as u32);
        }
        r.steps.extend(second);
        assert!(
            headline(&r).contains("in 6 probes, the median of 2 runs' answers, run 1's:"),
            "{}",
            headline(&r)
        );
        let h = r.max_within_cap.as_mut().unwrap();
        h.step_index += 6;
        assert!(headline(&r).contains("the median of 2 runs' answers, run 2's:"), "{}", headline(&r));
    }

    #[test]
    fn a_probe_the_search_took_as_a_neighbour_too_says_so_after_its_role() {
        let mut r = search_result(true);
        r.steps[0].probe_too = Some(crate::model::search::ProbeRole::Neighbour);
        assert_eq!(table_rows(&r)[0].0[8], "PASS  grow, neighbour too");
    }

    #[test]
    fn a_load_whose_confirmation_failed_is_not_the_headline() {
        let r = search_result(false);
        let h = r.max_within_cap.as_ref().unwrap();
        assert_eq!((h.users, h.nopm), (5, Some(1_100.0)));
        assert!(
            headline(&r).ends_with("the cap fails between 5 and 6 users (resolution reached 20.0%)"),
            "{}",
            headline(&r)
        );
    }
}
