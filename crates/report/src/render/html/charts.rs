//! The charts of one result's page, each drawn with [`crate::render::html::svg`]: throughput over time
//! with the warm-up and each step's window shaded and labelled with its users, the host and database
//! counters on the same clock (bytes in KB, MB or GB), each transaction's mean response time over time,
//! throughput and response time against users (with every rule of the cap: the figure it judges and
//! its limit), and each step's response-time percentile curves on a "nines" axis. The colours are
//! public so that a test can find the lines in a screenshot of the page.

use crate::model::descriptor::Descriptor;
use crate::model::{ORDER, RT_TOT, RuleVerdict, RunResult, Step};
use crate::numfmt::thousands;
use crate::render::counters::{CounterChart, readable_unit};
use crate::render::html::intervals::intervals_of;
use crate::render::html::svg::{Band, Chart, Series, line_chart};
use crate::stats::cap::best_step_within_cap;

/// Colour of the throughput lines. Public, like the other colours, so that a test can find the
/// lines in a screenshot of the page and so prove that the browser drew them.
pub const THROUGHPUT_COLOUR: &str = "#1f77b4";
/// Colour of the mean response-time lines.
pub const AVG_COLOUR: &str = "#2ca02c";
/// Colour of the p95 response-time line.
pub const P95_COLOUR: &str = "#ff7f0e";
/// Colours of the percentile curves, one per transaction type in report order (DS2 has eight);
/// none is used by another chart, so each curve can be told apart from the lines above.
pub const TRANSACTION_COLOURS: [&str; 8] =
    ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939"];
/// Colour of a search's probes that failed the cap on the throughput chart (`--find-max`).
pub const FAILED_PROBE_COLOUR: &str = "#d6616b";
/// Colour of a `--find-max` search's answer on the throughput chart.
pub const ANSWER_COLOUR: &str = "#000000";
/// Colour of a cap rule's figure over all transactions (`p90=40ms`) against users: a rule on one
/// transaction (`new_order.p90=5s`) takes that transaction's colour.
pub const RULE_COLOUR: &str = "#8c6d31";

/// The percentiles of the latency curves; the labelled ones are ticks of the "nines" axis.
const PERCENTILES: [(f64, Option<&str>); 7] = [
    (50.0, Some("50")),
    (75.0, None),
    (90.0, Some("90")),
    (95.0, None),
    (99.0, Some("99")),
    (99.9, Some("99.9")),
    (99.99, Some("99.99")),
];

/// The warm-up and each step's measured window, to shade under a chart over time, each labelled with
/// its users (the count alone where the words do not fit).
fn step_bands(r: &RunResult) -> Vec<Band> {
    let mut bands = Vec::new();
    if let Some(first) = r.steps.iter().map(|s| s.window.start_s).reduce(f64::min).filter(|s| *s > 0.0) {
        let label = "warm-up".to_string();
        bands.push(Band { from: 0.0, to: first, short: label.clone(), label, fill: "#eeeeee" });
    }
    for (i, s) in r.steps.iter().enumerate().filter(|(_, s)| s.window.end_s > s.window.start_s) {
        let fill = if i % 2 == 0 { "#e8f0fa" } else { "#f3f7fc" };
        let users = thousands(s.users as f64, 0);
        bands.push(Band {
            from: s.window.start_s,
            to: s.window.end_s,
            label: format!("{users} users"),
            short: users,
            fill,
        });
    }
    bands
}

/// Each outage, shaded from its first lost connection until throughput was back (or, short of that,
/// until the first commit again, or the run's last interval).
fn outage_bands(r: &RunResult) -> Vec<Band> {
    let last = r.timeseries.iter().map(|row| row.elapsed_s).fold(0.0, f64::max);
    r.outages
        .iter()
        .map(|o| Band {
            from: o.lost_s,
            to: o.recovered_s.or(o.committed_again_s).unwrap_or(last).max(o.lost_s),
            label: o.sentence(),
            short: "outage".into(),
            fill: "#f6d5d5",
        })
        .collect()
}

/// The x axis' label of a chart over time: what its shaded bands are, when it has a step's.
fn time_label(r: &RunResult) -> &'static str {
    if r.steps.iter().any(|s| s.window.end_s > s.window.start_s) {
        "seconds (each step's window shaded, labelled with its users)"
    } else {
        "seconds"
    }
}

/// One chart of counter series on the run's clock, its steps shaded like the throughput's above;
/// bytes in the unit that reads best (KB, MB, GB).
pub(crate) fn counter_chart(r: &RunResult, c: &CounterChart) -> String {
    let max = c.lines.iter().flat_map(|(_, s)| &s.points).map(|p| p[1]).fold(0.0, f64::max);
    let (divisor, unit) = readable_unit(c.unit, max);
    let series: Vec<Series> = c
        .lines
        .iter()
        .zip(TRANSACTION_COLOURS.iter().cycle())
        .map(|((label, s), colour)| Series {
            name: label,
            colour,
            points: s.points.iter().map(|p| (p[0], p[1] / divisor)).collect(),
        })
        .collect();
    line_chart(
        &Chart {
            title: &c.title,
            x_label: time_label(r),
            y_label: &unit,
            x_ticks: None,
            limits: Vec::new(),
            bands: step_bands(r),
        },
        &series,
    )
}

/// Each step's percentile curves (the headline step's and the last's when there are many steps).
pub(crate) fn percentile_charts(r: &RunResult) -> String {
    const MAX_STEPS: usize = 8;
    if r.steps.len() <= MAX_STEPS {
        return r.steps.iter().map(|s| percentiles(r.descriptor(), s)).collect();
    }
    let mut shown: Vec<&Step> = best_step_within_cap(&r.steps).into_iter().chain(r.steps.last()).collect();
    shown.dedup_by_key(|s| (s.index, s.run));
    shown.into_iter().map(|s| percentiles(r.descriptor(), s)).collect()
}

/// Throughput per report interval in the headline's unit: TPC-C's New-Orders per minute (NOPM), DS2's
/// orders per minute (every completed order, as OPM counts); the warm-up and each step's window shaded.
pub(crate) fn throughput_over_time(r: &RunResult) -> String {
    let unit = r.descriptor().unit.as_str();
    let txn = r.descriptor().per_minute_transaction.as_str();
    let at = intervals_of(r, |t| t == txn);
    let points = at.iter().map(|(ms, i)| (*ms as f64 / 1e3, i.tps * 60.0)).collect();
    line_chart(
        &Chart {
            title: "Throughput over time",
            x_label: time_label(r),
            y_label: unit,
            x_ticks: None,
            limits: Vec::new(),
            bands: step_bands(r).into_iter().chain(outage_bands(r)).collect(),
        },
        &[Series { name: unit, colour: THROUGHPUT_COLOUR, points }],
    )
}

/// Each transaction type's mean response time per report interval, a line per type (DS2: its
/// operations and `rt_tot`), so that it agrees with the per-transaction tables.
pub(crate) fn response_time_over_time(r: &RunResult) -> String {
    let names: Vec<&str> =
        r.descriptor().transactions.iter().map(String::as_str).filter(|t| *t != ORDER).collect();
    let series: Vec<Series> = names
        .iter()
        .map(|name| Series {
            name,
            colour: txn_colour(r.descriptor(), name),
            points: intervals_of(r, |t| t == *name)
                .iter()
                .filter(|(_, i)| i.count > 0)
                .map(|(ms, i)| (*ms as f64 / 1e3, i.weighted_ms / i.count as f64))
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    line_chart(
        &Chart {
            title: "Mean response time over time, per transaction",
            x_label: time_label(r),
            y_label: "ms",
            x_ticks: None,
            limits: Vec::new(),
            bands: step_bands(r),
        },
        &series,
    )
}

/// One point per step at its users: repeated runs of a load share an x, so the line shows their
/// spread as a vertical stroke. A step without the figure (not measured) has no point, never 0.
fn per_step(r: &RunResult, figure: fn(&Step) -> Option<f64>) -> Vec<(f64, f64)> {
    let mut steps: Vec<&Step> = r.steps.iter().collect();
    steps.sort_by_key(|s| (s.users, s.run));
    steps.into_iter().filter_map(|s| Some((s.users as f64, figure(s)?))).collect()
}

/// Step throughput against users, in the headline's figure (NOPM for TPC-C, OPM for DS2, IOPS for
/// `io`): where throughput stops growing with load.
pub(crate) fn throughput_against_users(r: &RunResult) -> String {
    let unit = r.descriptor().unit.as_str();
    let figure: fn(&Step) -> Option<f64> = |s| Some(s.figures.headline_figure());
    line_chart(
        &Chart {
            title: "Throughput against users",
            x_label: "users",
            y_label: unit,
            x_ticks: None,
            limits: Vec::new(),
            bands: Vec::new(),
        },
        &search_marks(r, Series { name: unit, colour: THROUGHPUT_COLOUR, points: per_step(r, figure) }),
    )
}

/// A search's probes over the cap, in their own colour, and its answer (`--find-max`), beside `line`
/// (every step's throughput); `line` alone for a sweep.
fn search_marks<'a>(r: &RunResult, line: Series<'a>) -> Vec<Series<'a>> {
    if !r.steps.iter().any(|s| s.probe.is_some()) {
        return vec![line];
    }
    let at = |s: &Step| (s.users as f64, s.figures.headline_figure());
    let failed = r.steps.iter().filter(|s| s.cap.as_ref().is_some_and(|c| !c.passed)).map(at);
    let mut failed: Vec<(f64, f64)> = failed.collect();
    failed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let answer = crate::render::steps::headline_step(r).map(at).into_iter().collect();
    vec![
        line,
        Series { name: "probes over the cap", colour: FAILED_PROBE_COLOUR, points: failed },
        Series { name: "answer (--find-max)", colour: ANSWER_COLOUR, points: answer },
    ]
}

/// Step response times against users, with every rule of the cap: the mean and p95 the step table
/// shows (DS2: `rt_tot_avg` and the whole order's mean), a line per other rule (`p90=40ms`,
/// `new_order.p90=5s`: the figure it judged, step by step), and each rule's limit dashed.
pub(crate) fn response_time_against_users(r: &RunResult) -> String {
    // A workload with DS2's sum of an order's operations (`rt_tot`) speaks as DS2 does.
    let (shown, mut series): (&[&str], Vec<Series>) = match r.descriptor().is_composite(RT_TOT) {
        false => (
            &["avg", "p95"],
            vec![
                Series {
                    name: "average",
                    colour: AVG_COLOUR,
                    points: per_step(r, |s| Some(s.figures.rt_avg_ms)),
                },
                Series {
                    name: "p95",
                    colour: P95_COLOUR,
                    points: per_step(r, |s| Some(s.figures.rt_p95_ms)),
                },
            ],
        ),
        true => (
            &["rt_tot.avg", "order.avg"],
            vec![
                Series {
                    name: "rt_tot_avg",
                    colour: AVG_COLOUR,
                    points: per_step(r, |s| s.figures.rt_tot_avg_ms),
                },
                Series {
                    name: "order average (from its intended start)",
                    colour: P95_COLOUR,
                    points: per_step(r, |s| s.figures.order_rt_avg_ms),
                },
            ],
        ),
    };
    let rules: Vec<&RuleVerdict> =
        r.steps.iter().find_map(|s| s.cap.as_ref()).map_or(Vec::new(), |c| c.rules.iter().collect());
    // Each rule by what it judges (`new_order.p90` of `new_order.p90=5s`).
    let judged: Vec<(&str, &RuleVerdict)> = rules
        .iter()
        .map(|rule| (rule.rule.split_once('=').map_or(rule.rule.as_str(), |(f, _)| f), *rule))
        .collect();
    for (figure, rule) in judged.iter().filter(|(figure, _)| !shown.contains(figure)) {
        let colour = match figure.split_once('.') {
            Some((txn, _)) if r.descriptor().runs(txn) => txn_colour(r.descriptor(), txn),
            _ => RULE_COLOUR,
        };
        series.push(Series { name: figure, colour, points: observed(r, &rule.rule) });
    }
    line_chart(
        &Chart {
            title: "Response time against users",
            x_label: "users",
            y_label: "ms",
            x_ticks: None,
            limits: rules.iter().map(|rule| (rule.limit_ms, rule.rule.clone())).collect(),
            bands: Vec::new(),
        },
        &series,
    )
}

/// What cap rule `rule` observed in each step that measured it, at the step's users.
fn observed(r: &RunResult, rule: &str) -> Vec<(f64, f64)> {
    let mut steps: Vec<&Step> = r.steps.iter().collect();
    steps.sort_by_key(|s| (s.users, s.run));
    steps
        .into_iter()
        .filter_map(|s| {
            let verdict = s.cap.as_ref()?.rules.iter().find(|v| v.rule == rule)?;
            Some((s.users as f64, verdict.observed_ms?))
        })
        .collect()
}

/// Where percentile `p` lies on the "nines" axis: 90 → 1, 99 → 2, 99.9 → 3.
fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).log10()
}

/// A transaction type's colour, the same on every chart: its place in the workload's list.
fn txn_colour(workload: &Descriptor, name: &str) -> &'static str {
    let i = workload.transactions.iter().position(|t| t == name).unwrap_or(0);
    TRANSACTION_COLOURS[i % TRANSACTION_COLOURS.len()]
}

/// Response-time percentile curves of each transaction type in `step`, from its merged histogram, in
/// the workload's order.
fn percentiles(workload: &Descriptor, step: &Step) -> String {
    let series: Vec<Series> = workload
        .transactions
        .iter()
        .filter_map(|name| {
            Some((name.as_str(), step.figures.transactions.get(name).filter(|t| t.count > 0)?))
        })
        .map(|(name, t)| Series {
            name,
            colour: txn_colour(workload, name),
            points: PERCENTILES
                .iter()
                .map(|(p, _)| (nines(*p), t.histogram.percentile_us(*p) as f64 / 1e3))
                .collect(),
        })
        .collect();
    let ticks =
        PERCENTILES.iter().filter_map(|(p, label)| Some((nines(*p), (*label)?.to_string()))).collect();
    let title = format!(
        "Response-time percentiles, step {} run {} ({} users)",
        step.index + 1,
        step.run,
        thousands(step.users as f64, 0)
    );
    line_chart(
        &Chart {
            title: &title,
            x_label: "percentile",
            y_label: "ms",
            x_ticks: Some(ticks),
            limits: Vec::new(),
            bands: Vec::new(),
        },
        &series,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::sweep;
    use crate::render::html::result::render;

    #[test]
    fn a_search_s_chart_marks_the_probes_over_the_cap_and_the_answer() {
        let svg = throughput_against_users(&crate::fixtures::search_result(true));
        assert!(svg.contains("<title>answer (--find-max): 1,200.0 at 6</title>"), "{svg}");
        assert!(svg.contains("<title>probes over the cap: 1,300.0 at 7</title>"), "{svg}");
        assert!(svg.contains("<title>probes over the cap: 1,500.0 at 8</title>"), "{svg}");
        let sweep =
            throughput_against_users(&crate::fixtures::result(crate::model::Workload::Tpcc, Vec::new()));
        assert!(!sweep.contains("answer"), "a sweep has no answer to mark");
    }

    #[test]
    fn every_rule_of_the_cap_is_drawn_against_users() {
        let mut r = sweep();
        let cap: crate::stats::cap::Cap = "avg=1s,p90=1s,new_order.p90=20s,payment.p90=20s".parse().unwrap();
        for s in &mut r.steps {
            s.cap = Some(cap.evaluate(&s.figures));
        }
        let svg = response_time_against_users(&r);
        for legend in
            [">average</text>", ">p95</text>", ">p90</text>", ">new_order.p90</text>", ">payment.p90</text>"]
        {
            assert!(svg.contains(legend), "{legend}: {svg}");
        }
        assert!(!svg.contains(">avg</text>"), "the mean is drawn once, as the average");
        // avg=1s and p90=1s share one line within reach; the p90s at 20 s are named above the data.
        assert_eq!(svg.matches("stroke-dasharray").count(), 1, "{svg}");
        assert!(svg.contains("<title>cap avg=1s, p90=1s</title></line>"), "{svg}");
        assert!(svg.contains(">cap avg=1s, p90=1s</text>"), "{svg}");
        assert!(svg.contains(">cap p90=20s ×2 (above)</text>"), "{svg}");
        // The p90 line is the figure the cap judged, step by step.
        let judged = r.steps[2].cap.as_ref().unwrap().rules[1].observed_ms.unwrap();
        assert!(svg.contains(&format!("<title>p90: {} at 30</title>", thousands(judged, 1))), "{svg}");
    }

    #[test]
    fn bands_name_their_users_and_bytes_read_in_gb() {
        let mut r = sweep();
        for (i, s) in r.steps.iter_mut().enumerate() {
            let start = 10.0 + 20.0 * i as f64;
            s.window = crate::model::Window { start_s: start, end_s: start + 15.0 };
        }
        r.counters = vec![crate::model::CounterSeries {
            source: "client".into(),
            name: "mem_used_bytes".into(),
            points: vec![[10.0, 2.1e9], [30.0, 2.4e9], [50.0, 2.2e9]],
        }];
        let chart = &crate::render::counters::charts(&r)[0];
        let svg = counter_chart(&r, chart);
        assert!(svg.contains(">GB</text>"), "the axis' unit: {svg}");
        assert!(svg.contains(">2.0</text>") && !svg.contains("000,000"), "ticks in GB: {svg}");
        assert!(svg.contains(">20 users</text>"), "a band labelled with its users: {svg}");
        assert!(svg.contains("labelled with its users)</text>"), "the x axis says what the bands are");
    }

    #[test]
    fn percentiles_lie_on_a_nines_axis() {
        for (p, x) in [(50.0, 0.301), (90.0, 1.0), (99.0, 2.0), (99.9, 3.0), (99.99, 4.0)] {
            assert!((nines(p) - x).abs() < 1e-3, "p{p}");
        }
        let html = render(&sweep());
        assert!(html.contains(">99.99</text>"), "the nines are labelled");
        assert!(html.contains("step 2 run 1 (20 users)"), "the headline step's curves");
    }
}
