//! `report.html`: one self-contained page (no scripts, no network: styles inline, charts as inline SVG)
//! with the run's header, its step table and headline, and five charts — throughput and response time
//! over time, throughput and response time against users (with the cap), and the response-time
//! percentiles of each transaction type. Every number comes from the [`RunResult`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{ORDER, RunResult, Step, Workload, is_composite};
use crate::numfmt::thousands;

/// Colour of the throughput lines. Public, like the other colours, so that a test can find the
/// lines in a screenshot of the page and so prove that the browser drew them.
pub const THROUGHPUT_COLOUR: &str = "#1f77b4";
/// Colour of the mean response-time lines.
pub const AVG_COLOUR: &str = "#2ca02c";
/// Colour of the p95 response-time line.
pub const P95_COLOUR: &str = "#ff7f0e";
/// Colour of the dashed cap line (and of failed verdicts).
pub const CAP_COLOUR: &str = "#d62728";
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

/// A limit more than this many times the highest value is named above the chart, not drawn.
const FAR_LIMIT: f64 = 5.0;

/// Above this many points a line is drawn without a dot on each.
const MAX_DOTS: usize = 60;

/// One line of a chart.
struct Series<'a> {
    name: &'a str,
    colour: &'a str,
    points: Vec<(f64, f64)>,
}

/// What a chart shows besides its lines.
struct Chart<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    /// Labelled positions of the x axis, which then spans them; else the axis runs from zero with
    /// round ticks.
    x_ticks: Option<Vec<(f64, String)>>,
    /// A dashed horizontal line and its label: the cap.
    limit: Option<(f64, String)>,
}

/// Renders the whole page. It exists so that a run can be read — and its curves seen — in any
/// browser, offline, from one file that can be mailed or archived beside `result.json`.
pub fn render(r: &RunResult) -> String {
    let workload = format!("{:?}", r.workload).to_lowercase();
    let title = format!("oltpgen {workload}: {}", r.targets.join(", "));
    let mut h = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>\
         body{{font-family:sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;margin:1em 0}}\
         td,th{{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}}\
         .kv td,.kv th{{text-align:left}}.fail{{color:{CAP_COLOUR};font-weight:bold}}\
         svg{{display:block;margin:1.5em 0}}</style></head><body><h1>{t}</h1>",
        t = esc(&title)
    );
    let _ = write!(
        h,
        "<p>{} {} ran {workload} against {} {}, started {}{}</p>",
        esc(&r.tool.name),
        esc(&r.tool.version),
        esc(&r.server.engine),
        esc(&r.server.version),
        esc(&r.started_at),
        if r.interrupted { " — <b class=\"fail\">interrupted</b>: the figures cover what ran" } else { "" }
    );
    if let Some(config) = r.config.as_object().filter(|c| !c.is_empty()) {
        h.push_str("<table class=\"kv\"><tr><th colspan=\"2\">configuration</th></tr>");
        for (key, value) in config {
            let value = value.as_str().map_or_else(|| value.to_string(), str::to_string);
            let _ = write!(h, "<tr><td>{}</td><td>{}</td></tr>", esc(key), esc(&value));
        }
        h.push_str("</table>");
    }
    h.push_str(&step_table(r));
    h.push_str(&audit_tables(r));
    h.push_str(&throughput_over_time(r));
    h.push_str(&response_time_over_time(r));
    h.push_str(&throughput_against_users(r));
    h.push_str(&response_time_against_users(r));
    if let Some(step) = crate::cap::best_step_within_cap(&r.steps).or(r.steps.last()) {
        h.push_str(&percentiles(step));
    }
    h.push_str("</body></html>\n");
    h
}

/// The step table, as `report show` prints it, and the headline under it.
fn step_table(r: &RunResult) -> String {
    let mut h = "<table><tr>".to_string();
    for (title, _) in crate::show::step_columns(r.workload) {
        let _ = write!(h, "<th>{}</th>", esc(title));
    }
    h.push_str("</tr>");
    for s in &r.steps {
        h.push_str("<tr>");
        for cell in crate::show::step_cells(s, r.workload) {
            let class = if cell == "FAIL" || cell == "INVALID" { " class=\"fail\"" } else { "" };
            let _ = write!(h, "<td{class}>{}</td>", esc(&cell));
        }
        h.push_str("</tr>");
    }
    let _ = write!(h, "</table><p><b>{}</b></p>", esc(&crate::show::headline(r)));
    h
}

/// Each audited step's checks, as `report show` lists them, flags marked.
fn audit_tables(r: &RunResult) -> String {
    let mut h = String::new();
    for s in &r.steps {
        let Some(audit) = &s.audit else { continue };
        let _ = write!(
            h,
            "<table class=\"kv\"><tr><th colspan=\"5\">audit of step {} run {}</th></tr>\
             <tr><th>clause</th><th>figure</th><th>observed</th><th>spec</th><th>verdict</th></tr>",
            s.index + 1,
            s.run
        );
        for c in &audit.checks {
            let class = if c.verdict == crate::audit::Verdict::Flag { " class=\"fail\"" } else { "" };
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td{class}>{}</td></tr>",
                esc(&c.clause),
                esc(&c.name),
                esc(&c.shown),
                esc(&c.bound),
                esc(c.verdict.mark())
            );
        }
        h.push_str("</table>");
        for note in &audit.notes {
            let _ = write!(h, "<p>{}</p>", esc(note));
        }
    }
    h
}

/// One report interval over all transaction types.
#[derive(Debug, Default, PartialEq)]
struct Interval {
    /// Completed transactions.
    count: u64,
    /// Total transactions per second.
    tps: f64,
    /// Sum of each type's mean times its count, ms: the count-weighted mean's numerator.
    weighted_ms: f64,
    /// The highest p95 of any type, ms: an upper bound of the interval's p95.
    p95_max_ms: f64,
}

/// The report intervals, keyed by their end in ms, over all transaction types but DS2's composite
/// entries (their operations are counted already).
fn intervals(r: &RunResult) -> BTreeMap<u64, Interval> {
    intervals_of(r, |txn| !is_composite(txn))
}

/// The report intervals of the transaction types `txn` keeps, keyed by their end in ms.
fn intervals_of(r: &RunResult, txn: impl Fn(&str) -> bool) -> BTreeMap<u64, Interval> {
    let mut at: BTreeMap<u64, Interval> = BTreeMap::new();
    for row in r.timeseries.iter().filter(|row| txn(&row.txn)) {
        let e = at.entry((row.elapsed_s * 1e3).round() as u64).or_default();
        e.count += row.count;
        e.tps += row.tps;
        e.weighted_ms += row.avg_ms * row.count as f64;
        e.p95_max_ms = e.p95_max_ms.max(row.p95_ms);
    }
    at
}

/// Total TPS per report interval; for DS2, orders per minute (every completed order, as OPM counts).
fn throughput_over_time(r: &RunResult) -> String {
    let (unit, at, per) = match r.workload {
        Workload::Tpcc => ("TPS", intervals(r), 1.0),
        Workload::Ds2 => ("OPM", intervals_of(r, |txn| txn == ORDER), 60.0),
    };
    let points = at.iter().map(|(ms, i)| (*ms as f64 / 1e3, i.tps * per)).collect();
    line_chart(
        &Chart {
            title: "Throughput over time",
            x_label: "seconds",
            y_label: unit,
            x_ticks: None,
            limit: None,
        },
        &[Series { name: unit, colour: THROUGHPUT_COLOUR, points }],
    )
}

/// Mean and p95 response time per report interval. The interval rows keep one p95 per type, and
/// percentiles do not add up, so the line shows the highest of them: an upper bound, labelled so.
/// For DS2, the figures of its `rt_tot` (DS2's per-order response time), one type, so its own p95.
fn response_time_over_time(r: &RunResult) -> String {
    let at = match r.workload {
        Workload::Tpcc => intervals(r),
        Workload::Ds2 => intervals_of(r, |txn| txn == crate::model::RT_TOT),
    };
    let s = |ms: &u64| *ms as f64 / 1e3;
    let avg = at.iter().filter(|(_, i)| i.count > 0).map(|(ms, i)| (s(ms), i.weighted_ms / i.count as f64));
    let p95 = at.iter().map(|(ms, i)| (s(ms), i.p95_max_ms));
    line_chart(
        &Chart {
            title: "Response time over time",
            x_label: "seconds",
            y_label: "ms",
            x_ticks: None,
            limit: None,
        },
        &[
            Series { name: "average", colour: AVG_COLOUR, points: avg.collect() },
            Series { name: "p95 (max over types)", colour: P95_COLOUR, points: p95.collect() },
        ],
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
fn throughput_against_users(r: &RunResult) -> String {
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
        },
        &[Series { name: unit, colour: THROUGHPUT_COLOUR, points: per_step(r, figure) }],
    )
}

/// Step mean response time against users, with the cap's mean limit as a dashed line: the overall
/// `avg`; for DS2 its `rt_tot_avg` and the whole order's mean, and the limit on either.
fn response_time_against_users(r: &RunResult) -> String {
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
        Workload::Tpcc => {
            vec![Series { name: "average", colour: AVG_COLOUR, points: per_step(r, |s| s.figures.rt_avg_ms) }]
        }
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
        },
        &series,
    )
}

/// Where percentile `p` lies on the "nines" axis: 90 → 1, 99 → 2, 99.9 → 3.
fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).log10()
}

/// Response-time percentile curves of each transaction type in `step`, from its merged histogram.
fn percentiles(step: &Step) -> String {
    let series: Vec<Series> = step
        .figures
        .transactions
        .iter()
        .filter(|(_, t)| t.count > 0)
        .zip(TRANSACTION_COLOURS.iter().cycle())
        .map(|((name, t), colour)| Series {
            name,
            colour,
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
        &Chart { title: &title, x_label: "percentile", y_label: "ms", x_ticks: Some(ticks), limit: None },
        &series,
    )
}

/// One SVG line chart: axes with round ticks, a line (and dots, when few) per series, a legend,
/// and the dashed limit. Both axes start at zero unless `c.x_ticks` sets the x range.
fn line_chart(c: &Chart, series: &[Series]) -> String {
    let plot = Plot::new(c, series);
    let mut g = plot.axes(c);
    plot.cap_line(&mut g);
    if series.iter().all(|s| s.points.is_empty()) {
        let _ = write!(
            g,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#888\">no data</text>",
            (L + W - R) / 2.0,
            (T + H - B) / 2.0
        );
    }
    for (i, s) in series.iter().enumerate() {
        plot.series(&mut g, i, s);
    }
    g.push_str("</svg>");
    g
}

/// A line chart's width, in SVG units.
const W: f64 = 760.0;
/// A line chart's height.
const H: f64 = 300.0;
/// Margins: left (y labels), right (legend), top (title), bottom (x labels).
const L: f64 = 70.0;
/// The right margin, where the legend goes.
const R: f64 = 190.0;
/// The top margin, where the title goes.
const T: f64 = 30.0;
/// The bottom margin, where the x labels go.
const B: f64 = 45.0;

/// A line chart's scales, chosen from its data: the ticks of both axes and the cap line, drawn when it
/// is within reach of the data (or only named, when it is far above).
struct Plot<'a> {
    x_ticks: Vec<(f64, String)>,
    y_ticks: Vec<(f64, String)>,
    /// The x range the ticks span.
    x0: f64,
    x1: f64,
    /// The y axis' top.
    y1: f64,
    /// The limit drawn as a line.
    limit: Option<&'a (f64, String)>,
    /// The limit too far above the data to draw: named at the top instead.
    far_limit: Option<&'a (f64, String)>,
}

impl<'a> Plot<'a> {
    /// Scales that fit every point of `series` and `c`'s limit.
    fn new(c: &'a Chart, series: &[Series]) -> Self {
        let all = || series.iter().flat_map(|s| s.points.iter());
        let x_ticks = match &c.x_ticks {
            Some(ticks) => ticks.clone(),
            None => round_ticks(all().map(|p| p.0).fold(0.0, f64::max)),
        };
        let (x0, x1) = (x_ticks.first().map_or(0.0, |t| t.0), x_ticks.last().map_or(1.0, |t| t.0));
        let y_max = all().map(|p| p.1).fold(0.0, f64::max);
        // A limit far above the data would flatten it against the x axis: it is then named, not drawn.
        let (limit, far_limit) = match &c.limit {
            Some((ms, _)) if y_max > 0.0 && *ms > FAR_LIMIT * y_max => (None, c.limit.as_ref()),
            limit => (limit.as_ref(), None),
        };
        let y_ticks = round_ticks(y_max.max(limit.map_or(0.0, |l| l.0)));
        let y1 = y_ticks.last().map_or(1.0, |t| t.0);
        Plot { x_ticks, y_ticks, x0, x1, y1, limit, far_limit }
    }

    /// The SVG x of data `x`.
    fn sx(&self, x: f64) -> f64 {
        L + (x - self.x0) / (self.x1 - self.x0) * (W - L - R)
    }

    /// The SVG y of data `y`.
    fn sy(&self, y: f64) -> f64 {
        H - B - y / self.y1 * (H - T - B)
    }

    /// The chart opened: title, axis labels, ticks with grid lines, and the axes.
    fn axes(&self, c: &Chart) -> String {
        let mut g = format!(
            "<svg width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" \
             role=\"img\" font-family=\"sans-serif\"><title>{t}</title>\
             <text x=\"{L}\" y=\"18\" font-weight=\"bold\">{t}</text>\
             <text x=\"{xm}\" y=\"{xl}\" text-anchor=\"middle\" font-size=\"12\">{xlab}</text>\
             <text x=\"14\" y=\"{ym}\" font-size=\"12\" transform=\"rotate(-90 14 {ym})\" \
             text-anchor=\"middle\">{ylab}</text>",
            t = esc(c.title),
            xm = (L + W - R) / 2.0,
            xl = H - 8.0,
            ym = (T + H - B) / 2.0,
            xlab = esc(c.x_label),
            ylab = esc(c.y_label),
        );
        for (x, label) in &self.x_ticks {
            let _ = write!(
                g,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{}</text>",
                self.sx(*x),
                H - B + 16.0,
                esc(label)
            );
        }
        for (y, label) in &self.y_ticks {
            let _ = write!(
                g,
                "<line x1=\"{L}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#e4e4e4\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\">{}</text>",
                W - R,
                L - 6.0,
                self.sy(*y) + 4.0,
                esc(label),
                yy = self.sy(*y)
            );
        }
        let _ = write!(
            g,
            "<polyline fill=\"none\" stroke=\"#444\" points=\"{L},{T} {L},{b} {r},{b}\"/>",
            b = H - B,
            r = W - R
        );
        g
    }

    /// The cap: a dashed line at its level, or its name at the top when it is far above the data.
    fn cap_line(&self, g: &mut String) {
        if let Some((_, label)) = self.far_limit {
            let _ = write!(
                g,
                "<text x=\"{:.1}\" y=\"{T}\" font-size=\"11\" fill=\"{CAP_COLOUR}\">{} (above)</text>",
                W - R + 6.0,
                esc(label)
            );
        }
        if let Some((limit, label)) = self.limit {
            let _ = write!(
                g,
                "<line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{CAP_COLOUR}\" \
                 stroke-width=\"2\" stroke-dasharray=\"8 5\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{CAP_COLOUR}\">{}</text>",
                W - R,
                W - R + 6.0,
                self.sy(*limit) + 4.0,
                esc(label),
                y = self.sy(*limit)
            );
        }
    }

    /// Series `s`, the `i`th: its line, its dots when there are few enough to tell apart, and its legend.
    fn series(&self, g: &mut String, i: usize, s: &Series) {
        let path: Vec<String> =
            s.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", self.sx(x), self.sy(y))).collect();
        let _ = write!(
            g,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\" stroke-linejoin=\"round\" \
             points=\"{}\"/>",
            s.colour,
            path.join(" ")
        );
        if s.points.len() <= MAX_DOTS {
            for &(x, y) in &s.points {
                let _ = write!(
                    g,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\"/>",
                    self.sx(x),
                    self.sy(y),
                    s.colour
                );
            }
        }
        let ly = T + 14.0 + 18.0 * i as f64;
        let _ = write!(
            g,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"14\" height=\"4\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>",
            W - R + 12.0,
            ly - 4.0,
            s.colour,
            W - R + 30.0,
            ly + 1.0,
            esc(s.name)
        );
    }
}

/// Ticks from zero to a round number at or above `max`, spaced 1, 2 or 5 × 10ⁿ, about five of
/// them, labelled with as many decimals as the spacing needs. Never empty, even for no data.
fn round_ticks(max: f64) -> Vec<(f64, String)> {
    let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
    let rough = max / 5.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step =
        [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| *s >= rough).unwrap_or(rough);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let n = (max / step - 1e-9).ceil() as u32;
    (0..=n).map(|i| f64::from(i) * step).map(|v| (v, thousands(v, decimals))).collect()
}

/// Text made safe for HTML, in elements and in quoted attributes.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cap::Cap;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::{IntervalRow, Workload};

    fn row(elapsed_s: f64, txn: &str, count: u64, avg_ms: f64, p95_ms: f64) -> IntervalRow {
        let tps = count as f64 / 10.0;
        IntervalRow { elapsed_s, users: 10, txn: txn.into(), count, tps, avg_ms, p95_ms, errors: 0 }
    }

    /// Three steps judged by the default cap (`avg=1s`), the last over it, and a minute of intervals.
    fn sweep() -> RunResult {
        let cap = Cap::default();
        let steps = (0..3)
            .map(|i| tpcc_step(i, 10 * (u64::from(i) + 1), (600 << i, 600 << i), 300_000 << i, Some(&cap)));
        let mut r = result(Workload::Tpcc, steps.collect());
        r.targets = vec!["postgres://u@h:5432/<tpcc>".into()];
        r.timeseries = (1..=6)
            .flat_map(|i| {
                let t = f64::from(i) * 10.0;
                [row(t, "new_order", 100, 2.0, 4.0), row(t, "payment", 300, 6.0, 9.0)]
            })
            .collect();
        r
    }

    #[test]
    fn the_page_holds_five_charts_and_nothing_from_the_network() {
        let html = render(&sweep());
        assert_eq!(html.matches("<svg").count(), 5);
        assert_eq!(html.matches("</svg>").count(), 5);
        assert!(html.contains("cap avg=1s"), "the cap is drawn in");
        assert!(html.contains("max TPS within cap: 40.0 at 20 users (step 2)"), "the headline");
        assert!(html.contains("<td class=\"fail\">FAIL</td>"), "the verdicts");
        assert!(html.contains(">NOPM</th>"));
        for external in ["http:", "https:", "src=", "href=", "<script", "<link", "@import", "url("] {
            assert!(!html.contains(external), "no external resource: found {external}");
        }
    }

    #[test]
    fn an_audited_step_lists_its_checks_with_flags_marked() {
        let mut r = sweep();
        let plan = crate::audit::TpccAuditPlan { paced: false, warehouses: 1 };
        r.steps[1].audit = Some(crate::audit::tpcc(&r.steps[1], BTreeMap::new(), plan));
        let html = render(&r);
        assert_eq!(html.matches("audit of step").count(), 1, "only the audited step");
        assert!(html.contains("audit of step 2 run 1"));
        assert!(
            html.contains("<td>keying and think times</td><td>off</td><td>on (spec&#39;s)</td><td class=\"fail\">FLAG</td>"),
            "{html}"
        );
        assert!(html.contains("<p>Delivery runs inline, not deferred"));
    }

    #[test]
    fn a_far_cap_is_named_not_drawn() {
        let cap = Cap::default();
        let r = result(Workload::Tpcc, vec![tpcc_step(0, 8, (60, 60), 5_000, Some(&cap))]);
        let html = render(&r);
        assert!(html.contains("cap avg=1s (above)</text>"));
        assert!(!html.contains("stroke-dasharray"), "no dashed line squashing 5 ms against 1 s");
        assert!(render(&sweep()).contains("stroke-dasharray"), "a near cap is drawn");
    }

    #[test]
    fn text_is_escaped() {
        let mut r = sweep();
        r.server.version = "15 \"beta\" & <more>".into();
        r.config = serde_json::json!({"target": "<script>alert(1)</script>"});
        let html = render(&r);
        assert!(html.contains("&lt;tpcc&gt;") && !html.contains("<tpcc>"));
        assert!(html.contains("15 &quot;beta&quot; &amp; &lt;more&gt;"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script"));
    }

    #[test]
    fn intervals_sum_throughput_weigh_means_and_bound_p95() {
        let html = render(&sweep());
        // 10 + 30 TPS per interval; mean (100 × 2 + 300 × 6) / 400 = 5 ms; p95 at most 9 ms.
        let at = intervals(&sweep());
        assert_eq!(at.len(), 6);
        assert_eq!(at[&10_000], Interval { count: 400, tps: 40.0, weighted_ms: 2_000.0, p95_max_ms: 9.0 });
        assert!(html.contains("p95 (max over types)"));
    }

    #[test]
    fn ds2_orders_are_not_counted_twice_over_time() {
        let mut r = result(Workload::Ds2, Vec::new());
        r.timeseries = vec![row(10.0, "login", 100, 1.0, 2.0), row(10.0, ORDER, 100, 50.0, 80.0)];
        assert_eq!(
            intervals(&r)[&10_000],
            Interval { count: 100, tps: 10.0, weighted_ms: 100.0, p95_max_ms: 2.0 }
        );
    }

    #[test]
    fn ds2_charts_speak_opm_and_rt_tot_avg() {
        let cap = Cap::default_for(Workload::Ds2);
        let mut r = result(
            Workload::Ds2,
            vec![crate::fixtures::ds2_step(0, 100, 30_000, (400_000, 300_000), Some(&cap))],
        );
        r.timeseries = vec![
            row(10.0, "login", 100, 1.0, 2.0),
            row(10.0, ORDER, 50, 9.0, 12.0),
            row(10.0, crate::model::RT_TOT, 50, 7.0, 11.0),
        ];
        let html = render(&r);
        assert!(html.contains("<th>OPM</th><th>rt_tot_avg ms</th>"), "the step table");
        assert!(html.contains("max OPM within cap: 30,000 at 100 users"), "the headline");
        assert!(
            html.contains(">rt_tot_avg</text>") && html.contains("cap order.avg=1s"),
            "rt_tot_avg and the cap drawn"
        );
        assert!(!html.contains(">TPS<"), "no TPS anywhere");
        // 50 orders in the 10 s interval: 300 OPM; DS2's rt_tot over time is its own row.
        assert_eq!(intervals_of(&r, |t| t == ORDER)[&10_000].tps * 60.0, 300.0);
        assert_eq!(intervals_of(&r, |t| t == crate::model::RT_TOT)[&10_000].p95_max_ms, 11.0);
    }

    #[test]
    fn one_step_without_a_time_series_still_renders() {
        let r = result(Workload::Tpcc, vec![tpcc_step(0, 8, (60, 0), 2_000, None)]);
        let html = render(&r);
        assert_eq!(html.matches("<svg").count(), 5);
        assert_eq!(html.matches("no data").count(), 2, "the two charts over time are empty");
        assert!(!html.contains("NaN") && !html.contains("inf"));
    }

    #[test]
    fn an_empty_result_still_renders() {
        let html = render(&result(Workload::Tpcc, Vec::new()));
        assert_eq!(html.matches("<svg").count(), 4, "time and users charts, empty");
        assert!(!html.contains("NaN") && !html.contains("inf"));
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

    #[test]
    fn ticks_are_round() {
        let labels = |max| round_ticks(max).into_iter().map(|t| t.1).collect::<Vec<_>>();
        assert_eq!(labels(1_547.0), ["0", "500", "1,000", "1,500", "2,000"]);
        assert_eq!(labels(9.0), ["0", "2", "4", "6", "8", "10"]);
        assert_eq!(labels(0.7), ["0.0", "0.2", "0.4", "0.6", "0.8"]);
        assert_eq!(labels(0.0), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert_eq!(labels(f64::NAN), labels(0.0));
    }
}
