//! The charts of one result's page, each drawn with [`crate::render::html::svg`]: throughput over time
//! with the warm-up and each step's window shaded, the host and database counters on the same clock,
//! each transaction's mean response time over time, throughput and response time against users (with
//! the cap), and each step's response-time percentile curves on a "nines" axis. The colours are public
//! so that a test can find the lines in a screenshot of the page.

use crate::model::{ORDER, RunResult, Step, Workload};
use crate::numfmt::thousands;
use crate::render::counters::CounterChart;
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

/// The warm-up and each step's measured window, to shade under a chart over time.
fn step_bands(r: &RunResult) -> Vec<Band> {
    let mut bands = Vec::new();
    if let Some(first) = r.steps.iter().map(|s| s.window.start_s).reduce(f64::min).filter(|s| *s > 0.0) {
        bands.push(Band { from: 0.0, to: first, label: "warm-up".into(), fill: "#eeeeee" });
    }
    for (i, s) in r.steps.iter().enumerate().filter(|(_, s)| s.window.end_s > s.window.start_s) {
        let fill = if i % 2 == 0 { "#e8f0fa" } else { "#f3f7fc" };
        bands.push(Band {
            from: s.window.start_s,
            to: s.window.end_s,
            label: format!("{} users", thousands(s.users as f64, 0)),
            fill,
        });
    }
    bands
}

/// One chart of counter series on the run's clock, its steps shaded like the throughput's above.
pub(crate) fn counter_chart(r: &RunResult, c: &CounterChart) -> String {
    let series: Vec<Series> = c
        .lines
        .iter()
        .zip(TRANSACTION_COLOURS.iter().cycle())
        .map(|((label, s), colour)| Series {
            name: label,
            colour,
            points: s.points.iter().map(|p| (p[0], p[1])).collect(),
        })
        .collect();
    line_chart(
        &Chart {
            title: &c.title,
            x_label: "seconds",
            y_label: c.unit,
            x_ticks: None,
            limit: None,
            bands: step_bands(r),
        },
        &series,
    )
}

/// Each step's percentile curves (the headline step's and the last's when there are many steps).
pub(crate) fn percentile_charts(r: &RunResult) -> String {
    const MAX_STEPS: usize = 8;
    if r.steps.len() <= MAX_STEPS {
        return r.steps.iter().map(|s| percentiles(r.workload, s)).collect();
    }
    let mut shown: Vec<&Step> = best_step_within_cap(&r.steps).into_iter().chain(r.steps.last()).collect();
    shown.dedup_by_key(|s| (s.index, s.run));
    shown.into_iter().map(|s| percentiles(r.workload, s)).collect()
}

/// Throughput per report interval in the headline's unit: TPC-C's New-Orders per minute (NOPM), DS2's
/// orders per minute (every completed order, as OPM counts); the warm-up and each step's window shaded.
pub(crate) fn throughput_over_time(r: &RunResult) -> String {
    let unit = r.workload.per_minute_unit();
    let txn = r.workload.per_minute_txn();
    let at = intervals_of(r, |t| t == txn);
    let points = at.iter().map(|(ms, i)| (*ms as f64 / 1e3, i.tps * 60.0)).collect();
    line_chart(
        &Chart {
            title: "Throughput over time",
            x_label: "seconds",
            y_label: unit,
            x_ticks: None,
            limit: None,
            bands: step_bands(r),
        },
        &[Series { name: unit, colour: THROUGHPUT_COLOUR, points }],
    )
}

/// Each transaction type's mean response time per report interval, a line per type (DS2: its
/// operations and `rt_tot`), so that it agrees with the per-transaction tables.
pub(crate) fn response_time_over_time(r: &RunResult) -> String {
    let names: Vec<&str> = r.workload.transactions().iter().copied().filter(|t| *t != ORDER).collect();
    let series: Vec<Series> = names
        .iter()
        .map(|name| Series {
            name,
            colour: txn_colour(r.workload, name),
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
            x_label: "seconds",
            y_label: "ms",
            x_ticks: None,
            limit: None,
            bands: step_bands(r),
        },
        &series,
    )
}

/// One point per step at its users: repeated runs of a load share an x, so the line shows their
/// spread as a vertical stroke.
fn per_step(r: &RunResult, figure: fn(&Step) -> f64) -> Vec<(f64, f64)> {
    let mut steps: Vec<&Step> = r.steps.iter().collect();
    steps.sort_by_key(|s| (s.users, s.run));
    steps.into_iter().map(|s| (s.users as f64, figure(s))).collect()
}

/// Step TPS (DS2: OPM) against users: where throughput stops growing with load.
pub(crate) fn throughput_against_users(r: &RunResult) -> String {
    let (unit, figure): (&str, fn(&Step) -> f64) = match r.workload {
        Workload::Tpcc => ("TPS", |s| s.figures.tps),
        Workload::Ds2 => ("OPM", |s| s.figures.opm.unwrap_or(0.0)),
    };
    line_chart(
        &Chart {
            title: "Throughput against users",
            x_label: "users",
            y_label: unit,
            x_ticks: None,
            limit: None,
            bands: Vec::new(),
        },
        &[Series { name: unit, colour: THROUGHPUT_COLOUR, points: per_step(r, figure) }],
    )
}

/// Step mean response time against users, with the cap's mean limit as a dashed line: the overall
/// `avg`; for DS2 its `rt_tot_avg` and the whole order's mean, and the limit on either.
pub(crate) fn response_time_against_users(r: &RunResult) -> String {
    let means = match r.workload {
        Workload::Tpcc => ["avg="].as_slice(),
        Workload::Ds2 => ["order.avg=", "rt_tot.avg="].as_slice(),
    };
    let limit = r
        .steps
        .iter()
        .filter_map(|s| s.cap.as_ref())
        .flat_map(|c| &c.rules)
        .find(|rule| means.iter().any(|m| rule.rule.starts_with(m)))
        .map(|rule| (rule.limit_ms, format!("cap {}", rule.rule)));
    let series = match r.workload {
        Workload::Tpcc => vec![
            Series { name: "average", colour: AVG_COLOUR, points: per_step(r, |s| s.figures.rt_avg_ms) },
            Series { name: "p95", colour: P95_COLOUR, points: per_step(r, |s| s.figures.rt_p95_ms) },
        ],
        Workload::Ds2 => vec![
            Series {
                name: "rt_tot_avg",
                colour: AVG_COLOUR,
                points: per_step(r, |s| s.figures.rt_tot_avg_ms.unwrap_or(0.0)),
            },
            Series {
                name: "order average (from its intended start)",
                colour: P95_COLOUR,
                points: per_step(r, |s| s.figures.order_rt_avg_ms.unwrap_or(0.0)),
            },
        ],
    };
    line_chart(
        &Chart {
            title: "Response time against users",
            x_label: "users",
            y_label: "ms",
            x_ticks: None,
            limit,
            bands: Vec::new(),
        },
        &series,
    )
}

/// Where percentile `p` lies on the "nines" axis: 90 → 1, 99 → 2, 99.9 → 3.
fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).log10()
}

/// A transaction type's colour, the same on every chart: its place in the workload's list.
fn txn_colour(workload: Workload, name: &str) -> &'static str {
    let i = workload.transactions().iter().position(|t| *t == name).unwrap_or(0);
    TRANSACTION_COLOURS[i % TRANSACTION_COLOURS.len()]
}

/// Response-time percentile curves of each transaction type in `step`, from its merged histogram, in
/// the workload's order.
fn percentiles(workload: Workload, step: &Step) -> String {
    let series: Vec<Series> = workload
        .transactions()
        .iter()
        .filter_map(|name| Some((*name, step.figures.transactions.get(*name).filter(|t| t.count > 0)?)))
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
            limit: None,
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
    fn percentiles_lie_on_a_nines_axis() {
        for (p, x) in [(50.0, 0.301), (90.0, 1.0), (99.0, 2.0), (99.9, 3.0), (99.99, 4.0)] {
            assert!((nines(p) - x).abs() < 1e-3, "p{p}");
        }
        let html = render(&sweep());
        assert!(html.contains(">99.99</text>"), "the nines are labelled");
        assert!(html.contains("step 2 run 1 (20 users)"), "the headline step's curves");
    }
}
