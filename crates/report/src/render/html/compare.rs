//! `report html A B …`: one self-contained page comparing several results, the studies' "before and
//! after" view: each result's headline in a table with its change against the first (the baseline),
//! the warnings [`crate::stats::compare`] raises (and the caps, when they differ), throughput and
//! response time against users with a line per result, and each result's throughput over its own
//! clock. Results of another workload than the baseline's are refused, as `report compare` refuses
//! them.

use std::fmt::Write as _;

use crate::model::{RunResult, Step};
use crate::numfmt::{factor, figure, percent, thousands};
use crate::render::describe;
use crate::render::html::frame::{esc, open_page};
use crate::render::html::intervals::intervals_of;
use crate::render::html::svg::{Line, overlay_chart};
use crate::render::text::compare::{caps_line, power_and_cost, sentence};
use crate::stats::cap::best_step_within_cap;
use crate::stats::compare::{CompareError, Comparison, compare};

/// Colours of the results, the baseline first.
const RESULT_COLOURS: [&str; 6] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"];

/// The comparison page of `results`, each named (its directory's name), the first the baseline.
///
/// # Errors
/// [`CompareError::Workloads`] when a result ran another workload than the baseline.
pub fn render(results: &[(String, RunResult)]) -> Result<String, CompareError> {
    let Some((base_name, base)) = results.first() else {
        return Ok(open_page("no results") + "</body></html>\n");
    };
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    // Each result against the baseline, once: its headline's row and its notes both read it.
    let comparisons: Vec<Comparison> =
        results.iter().map(|(_, r)| compare(base, r)).collect::<Result<_, _>>()?;
    let mut h = open_page(&format!("Comparison: {}", names.join(" vs ")));
    h.push_str(&headline_table(results, &comparisons));
    for ((name, _), c) in results.iter().zip(&comparisons).skip(1) {
        h.push_str(&against_baseline(base_name, name, c));
    }
    h.push_str(&charts(results, &names));
    h.push_str("</body></html>\n");
    Ok(h)
}

/// A row per result (the baseline first): what ran, its headline within the cap and where it was
/// reached, and the headline's change against the baseline's.
fn headline_table(results: &[(String, RunResult)], comparisons: &[Comparison]) -> String {
    let (base_name, base) = &results[0];
    let unit = &base.descriptor().unit;
    let mut h = "<div class=\"scroll\"><table><tr><th class=\"l\">result</th><th class=\"l\">what ran</th>"
        .to_string();
    let _ = write!(
        h,
        "<th>max {unit} within cap</th><th>at users</th><th>vs {}</th><th>change</th></tr>",
        esc(base_name)
    );
    for ((name, r), c) in results.iter().zip(comparisons) {
        let best = best_step_within_cap(&r.steps);
        // The headline's unit's figure: per minute (NOPM, OPM), or per second (a workload with none per
        // minute, `io`'s IOPS).
        let value = best.map_or("none".into(), |s| thousands(s.figures.headline_figure(), 0));
        let users = best.map_or("-".into(), |s| thousands(s.users as f64, 0));
        let (f, p) = c.headline.as_ref().map_or(("n/a".into(), "n/a".into()), |x| {
            (factor(x.throughput.ratio), percent(x.throughput.percent))
        });
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{value}</td><td>{users}</td><td>{f}</td><td>{p}</td></tr>",
            esc(name),
            esc(&describe::title(r))
        );
    }
    h.push_str("</table></div>");
    h
}

/// What a reader must weigh of result `name` against the baseline `base_name`: the warnings, Welch's
/// verdict over the runs when both repeated them, the caveats, and the steps both ran.
fn against_baseline(base_name: &str, name: &str, c: &Comparison) -> String {
    let mut h = String::new();
    for w in &c.warnings {
        let _ = write!(
            h,
            "<p class=\"fail\">{}: {}: the changes are not the systems' alone</p>",
            esc(name),
            esc(w)
        );
    }
    if let Some(caps) = &c.caps {
        let _ = write!(h, "<p class=\"fail\">{}: {}</p>", esc(name), esc(&caps_line(caps)));
    }
    if let Some(sig) = c.headline.as_ref().and_then(|x| x.significance) {
        let _ = write!(h, "<p>{}: {}</p>", esc(name), esc(&sig.statement("faster", "slower")));
    }
    for caveat in &c.caveats {
        let _ = write!(h, "<p class=\"fail\">{}: caution: {}</p>", esc(name), esc(caveat));
    }
    h.push_str(&power_and_cost_table(base_name, name, c));
    h.push_str(&step_table(base_name, name, c));
    h
}

/// The per-watt, watts and cost figures of both results and their change, as `report compare` lists
/// them, then the studies' one sentence ("+91.8% OPM, +184% OPM per watt, 32.5% less active power, …");
/// nothing when neither power nor cost was measured.
fn power_and_cost_table(a: &str, b: &str, c: &Comparison) -> String {
    let rows = power_and_cost(c);
    if rows.is_empty() {
        return String::new();
    }
    let mut h = format!(
        "<div class=\"scroll\"><table><caption>{b} against {a}, power and cost</caption><tr>\
         <th class=\"l\">figure</th><th>{a}</th><th>{b}</th><th>{b}/{a}</th><th>change</th></tr>",
        a = esc(a),
        b = esc(b)
    );
    for (label, ch, currency) in rows {
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td>{currency}{}</td><td>{currency}{}</td><td>{}</td><td>{}</td></tr>",
            esc(&label),
            figure(ch.before),
            figure(ch.after),
            factor(ch.ratio),
            percent(ch.percent)
        );
    }
    h.push_str("</table></div>");
    if let Some(line) = sentence(c) {
        let _ = write!(h, "<p>{}: {}</p>", esc(b), esc(&line));
    }
    h
}

/// The charts, a line per result (named `names`): throughput and mean response time against users,
/// and each result's throughput over its own clock, in the baseline's unit.
fn charts(results: &[(String, RunResult)], names: &[&str]) -> String {
    let unit = results[0].1.descriptor().unit.as_str();
    let per_step = |f: fn(&Step) -> f64| -> Vec<Vec<(f64, f64)>> {
        results.iter().map(|(_, r)| r.steps.iter().map(|s| (s.users as f64, f(s))).collect()).collect()
    };
    let lines = |points: Vec<Vec<(f64, f64)>>| -> Vec<Line> {
        names.iter().zip(RESULT_COLOURS.iter().cycle()).zip(points).map(|((n, c), p)| (*n, *c, p)).collect()
    };
    let mut h = overlay_chart(
        &format!("{unit} against users"),
        "users",
        unit,
        &lines(per_step(|s| s.figures.headline_figure())),
    );
    h.push_str(&overlay_chart(
        "Mean response time against users",
        "users",
        "ms",
        &lines(per_step(|s| s.figures.rt_avg_ms)),
    ));
    let over_time: Vec<Vec<(f64, f64)>> = results
        .iter()
        .map(|(_, r)| {
            let txn = r.descriptor().per_minute_transaction.as_str();
            intervals_of(r, |t| t == txn).iter().map(|(ms, i)| (*ms as f64 / 1e3, i.tps * 60.0)).collect()
        })
        .collect();
    h.push_str(&overlay_chart(&format!("{unit} over time"), "seconds", unit, &lines(over_time)));
    h
}

/// The steps both results ran, matched by users: each one's throughput and mean response time in both,
/// and the change.
fn step_table(a: &str, b: &str, c: &Comparison) -> String {
    if c.steps.is_empty() {
        return String::new();
    }
    let unit = c.per_minute_unit;
    let mut h = format!(
        "<div class=\"scroll\"><table><caption>{b} against {a}, step by step</caption><tr><th>users</th>\
         <th>{unit} {a}</th><th>{unit} {b}</th><th>change</th><th>avg ms {a}</th><th>avg ms {b}</th><th>change</th></tr>",
        a = esc(a),
        b = esc(b)
    );
    for s in &c.steps {
        let throughput = s.per_minute.unwrap_or(s.tps);
        let _ = write!(h, "<tr><td>{}</td>", thousands(s.users.before, 0));
        for (ch, decimals) in [(throughput, 0), (s.rt_avg_ms, 1)] {
            let _ = write!(
                h,
                "<td>{}</td><td>{}</td><td>{}</td>",
                thousands(ch.before, decimals),
                thousands(ch.after, decimals),
                percent(ch.percent)
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</table></div>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{accelerated, baseline, repeated, sweep, tag_lines};

    #[test]
    fn two_sweeps_side_by_side() {
        let mut a = baseline();
        a.timeseries = sweep().timeseries;
        a.interrupted = true;
        let page = render(&[("hdd".to_string(), a), ("nvme".to_string(), accelerated())]).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
        assert!(page.contains("<td>nvme</td>") || page.contains(">nvme</td>"), "each result named");
        assert!(
            page.contains("hdd was stopped early") || page.contains("A was stopped early"),
            "the warning"
        );
        assert_eq!(page.matches("<svg").count(), 3, "against users twice, over time once");
        insta::assert_snapshot!("comparison_of_two_sweeps", tag_lines(&page));
    }

    #[test]
    fn repeated_runs_state_whether_they_differ() {
        let results = [
            ("before".to_string(), repeated(16, &[6_000, 6_120, 5_940])),
            ("after".to_string(), repeated(16, &[6_720, 6_700, 6_760])),
        ];
        let page = render(&results).unwrap();
        assert!(page.contains("<p>after: B is 11.7% faster, p &lt; 0.01</p>"), "{page}");
        insta::assert_snapshot!("comparison_of_repeated_runs", tag_lines(&page));
    }

    #[test]
    fn another_workload_is_refused_and_other_caps_are_said() {
        let mut ds2 = accelerated();
        ds2.workload = crate::model::Workload::Ds2.into();
        let refused = render(&[("tpcc".to_string(), baseline()), ("ds2".to_string(), ds2)]);
        assert!(matches!(refused, Err(CompareError::Workloads { .. })), "{refused:?}");
        let mut strict = accelerated();
        let cap: crate::stats::cap::Cap = "p90=6ms".parse().unwrap();
        for s in &mut strict.steps {
            s.cap = Some(cap.evaluate(&s.figures));
        }
        let page = render(&[("hdd".to_string(), baseline()), ("nvme".to_string(), strict)]).unwrap();
        assert!(
            page.contains("<p class=\"fail\">nvme: the caps differ: A avg=1s, B p90=6ms: each headline"),
            "{page}"
        );
    }

    #[test]
    fn power_and_cost_changes_and_the_studies_sentence() {
        let (mut a, mut b) = (baseline(), accelerated());
        let headline = |r: &RunResult| {
            let i = r.max_within_cap.as_ref().expect("a headline").step_index;
            r.steps.iter().find(|s| s.index == i).expect("its step").figures.clone()
        };
        a.power = crate::model::Power::new(Some(250.0), 400.0, &headline(&a));
        b.power = crate::model::Power::new(Some(125.0), 300.0, &headline(&b));
        a.cost = Some(crate::model::Cost::new(10_000.0, Some(&headline(&a))));
        let page = render(&[("hdd".to_string(), a), ("nvme".to_string(), b)]).unwrap();
        for row in [
            "<tr><td class=\"l\">active watts</td><td>400</td><td>300</td><td>0.75×</td><td>-25.0%</td></tr>",
            "<tr><td class=\"l\">idle watts</td><td>250</td><td>125</td><td>0.50×</td><td>-50.0%</td></tr>",
        ] {
            assert!(page.contains(row), "{row} in {page}");
        }
        assert!(page.contains("<td class=\"l\">NOPM per watt</td>"), "{page}");
        assert!(!page.contains("cost per TPS"), "a cost needs both results' costs: {page}");
        let sentence = "<p>nvme: in short: +236% NOPM, +348% NOPM per watt, 25.0% less active power, \
                        50.0% less idle power</p>";
        assert!(page.contains(sentence), "{page}");
    }

    #[test]
    fn no_results_still_make_a_page() {
        insta::assert_snapshot!("comparison_of_no_results", tag_lines(&render(&[]).unwrap()));
    }
}
