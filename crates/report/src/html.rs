//! `report.html`: one self-contained page (no scripts, no network: styles inline, charts as inline SVG)
//! that reads top down as a study does: a title saying what ran, the headline (max NOPM or OPM within
//! the cap, with the cap), the settings, server and client, the step table, each step's transactions,
//! errors, audit and counters; then the charts — throughput over time with warm-up and each step's
//! window marked, the host and database counters on the same clock beneath it, response time over time
//! per transaction, throughput and response time against users (when there are several loads, with
//! the cap), and each step's percentile curves. Every point names its value on hover (SVG `<title>`),
//! the charts shrink to a phone's width, and the page prints. Every number comes from the [`RunResult`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{ORDER, RunResult, Step, Workload};
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
    /// Shaded spans of the x axis and their labels: the warm-up, each step's measured window.
    bands: Vec<Band>,
}

/// A shaded span of a time chart's x axis.
struct Band {
    from: f64,
    to: f64,
    label: String,
    fill: &'static str,
}

/// The page's styles: readable on a desk, on a phone (tables scroll, charts shrink) and on paper.
pub(crate) const STYLE: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#222}\
    table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}\
    .kv td,.kv th,td.l,th.l{text-align:left}.fail{color:#d62728;font-weight:bold}.scroll{overflow-x:auto}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(520px,100%),1fr));gap:0 1.5em}.about{display:flex;flex-wrap:wrap;gap:0 2.5em;align-items:flex-start}\
    .headline{font-size:1.4em;margin:.3em 0}.note{color:#555}h2{margin-top:1.5em;border-bottom:1px solid #ccc}\
    svg{display:block;margin:1em 0;max-width:100%;height:auto}\
    @media (max-width:700px){body{margin:.5em;padding:0}h1{font-size:1.4em}.headline{font-size:1.1em}td,th{padding:2px 4px;font-size:.85em}}\
    @media print{body{margin:0;max-width:none}svg,table{break-inside:avoid}h2{break-after:avoid}}";

/// The page opened: its title and styles.
pub(crate) fn open_page(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><style>{STYLE}</style></head><body><h1>{t}</h1>",
        t = esc(title)
    )
}

/// Renders the whole page. It exists so that a run can be read — and its curves seen — in any
/// browser, offline, from one file that can be mailed or archived beside `result.json`.
pub fn render(r: &RunResult) -> String {
    let mut h = open_page(&crate::describe::title(r));
    let _ = write!(h, "<p class=\"headline\"><b>{}</b></p>", esc(&crate::describe::headline(r)));
    if r.interrupted {
        h.push_str("<p class=\"fail\">Interrupted: the run was stopped early; the figures cover the steps that ran.</p>");
    }
    h.push_str(&about(r));
    h.push_str("<h2>Steps</h2>");
    h.push_str(&step_table(r));
    for s in r.steps.iter().filter(|s| s.targets.len() > 1) {
        let _ = write!(h, "<p>{}</p>", esc(&crate::show::per_target(s, r.workload)));
    }
    h.push_str(&counter_table(r));
    // Throughput and the counters side by side on one clock: a disk that saturates shows beside the
    // throughput that flattened.
    h.push_str("<div class=\"grid\">");
    h.push_str(&throughput_over_time(r));
    for chart in crate::counter_view::charts(r) {
        h.push_str(&counter_chart(r, &chart));
    }
    h.push_str("</div>");
    h.push_str(&response_time_over_time(r));
    if several_loads(r) {
        h.push_str(&throughput_against_users(r));
        h.push_str(&response_time_against_users(r));
    }
    h.push_str("<h2>Transactions</h2>");
    h.push_str(&transaction_tables(r));
    h.push_str(&errors(r));
    h.push_str(&audit_tables(r));
    h.push_str(&percentile_charts(r));
    h.push_str("</body></html>\n");
    h
}

/// Whether the run held more than one user load: only then are the charts against users drawn.
fn several_loads(r: &RunResult) -> bool {
    r.steps.iter().any(|s| s.users != r.steps[0].users)
}

/// What ran, on what, and what the client itself cost: three key-value tables side by side (one under
/// the other on a phone).
fn about(r: &RunResult) -> String {
    let kv = |h: &mut String, key: &str, value: &str| {
        let _ = write!(h, "<tr><td>{}</td><td>{}</td></tr>", esc(key), esc(value));
    };
    let mut h = "<div class=\"about\"><table class=\"kv\"><tr><th colspan=\"2\">run</th></tr>".to_string();
    kv(&mut h, "started", &r.started_at);
    kv(&mut h, "tool", &format!("{} {}", r.tool.name, r.tool.version));
    // The targets the result names; the configuration's copy only when it says something else.
    let targets = r.targets.join(", ");
    kv(&mut h, "targets", &targets);
    for (key, value) in crate::describe::settings(r) {
        if !(matches!(key.as_str(), "target" | "targets") && value == targets) {
            kv(&mut h, &key, &value);
        }
    }
    h.push_str("</table><table class=\"kv\"><tr><th colspan=\"2\">server</th></tr>");
    kv(&mut h, "engine", &format!("{} {}", crate::describe::engine(r), r.server.version));
    for (key, value) in &r.server.settings {
        kv(&mut h, key, value);
    }
    h.push_str("</table><table class=\"kv\"><tr><th colspan=\"2\">client (oltpgen itself)</th></tr>");
    let c = &r.client;
    let us = |v: Option<f64>| v.map_or("n/a".into(), |us| format!("{} µs", thousands(us, 1)));
    kv(&mut h, "CPU per transaction", &us(c.client_cpu_us_per_txn));
    if c.client_cpu_us_per_order.is_some() {
        kv(&mut h, "CPU per order", &us(c.client_cpu_us_per_order));
    }
    kv(
        &mut h,
        "CPU",
        &format!("{} s user, {} s system", thousands(c.cpu_user_s, 2), thousands(c.cpu_sys_s, 2)),
    );
    kv(&mut h, "transactions", &thousands(c.transactions as f64, 0));
    if c.peak_rss_bytes > 0 {
        kv(&mut h, "peak memory", &format!("{} MB", thousands(c.peak_rss_bytes as f64 / 1e6, 0)));
    }
    if let Some(p99) = c.wake_late_p99_ms {
        kv(&mut h, "wake-up lateness p99", &format!("{} ms", thousands(p99, 1)));
    }
    h.push_str("</table></div>");
    h
}

/// Each step's per-transaction table: count, rollbacks, errors, retries and the percentiles.
fn transaction_tables(r: &RunResult) -> String {
    let mut h = String::new();
    for s in &r.steps {
        let mark = match crate::show::verdict(s) {
            "FAIL" => " — <span class=\"fail\">over the cap</span>",
            "INVALID" => " — <span class=\"fail\">invalid: not measured as it should have been</span>",
            _ => "",
        };
        let _ = write!(
            h,
            "<div class=\"scroll\"><table><caption>step {} run {}: {} users{mark}</caption><tr><th class=\"l\">transaction</th>\
             <th>count</th><th>rollbacks</th><th>errors</th><th>retries</th><th>avg ms</th><th>p50 ms</th>\
             <th>p90 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr>",
            s.index + 1,
            s.run,
            thousands(s.users as f64, 0)
        );
        for name in r.workload.transactions() {
            let Some(t) = s.figures.transactions.get(*name) else { continue };
            let _ = write!(h, "<tr><td class=\"l\">{}</td>", esc(name));
            for n in [t.count, t.rollbacks, t.errors, t.retries] {
                let _ = write!(h, "<td>{}</td>", thousands(n as f64, 0));
            }
            for ms in [t.avg_ms, t.p50_ms, t.p90_ms, t.p95_ms, t.p99_ms, t.max_ms] {
                let _ = write!(h, "<td>{}</td>", thousands(ms, 1));
            }
            h.push_str("</tr>");
        }
        h.push_str("</table></div>");
    }
    h
}

/// Errors by kind over the whole run; nothing when there were none.
fn errors(r: &RunResult) -> String {
    if r.errors_by_kind.is_empty() {
        return String::new();
    }
    let mut h = "<table class=\"kv\"><tr><th>error</th><th>count</th></tr>".to_string();
    for (kind, n) in &r.errors_by_kind {
        let _ = write!(h, "<tr><td>{}</td><td>{}</td></tr>", esc(kind), thousands(*n as f64, 0));
    }
    h.push_str("</table>");
    h
}

/// The counters the studies quote per step, a row per counter and a column per step.
fn counter_table(r: &RunResult) -> String {
    let keys = crate::counter_view::step_keys(&r.steps);
    if keys.is_empty() {
        return String::new();
    }
    let mut h = "<div class=\"scroll\"><table><caption>counters, step average</caption><tr><th class=\"l\">counter</th>".to_string();
    for s in &r.steps {
        let _ = write!(h, "<th>step {} ({} users)</th>", s.index + 1, thousands(s.users as f64, 0));
    }
    h.push_str("</tr>");
    for key in &keys {
        let name = crate::counter_view::split_key(key).1;
        let _ = write!(h, "<tr><td class=\"l\">{}</td>", esc(&crate::counter_view::label(key)));
        for s in &r.steps {
            let cell = s.counters.get(key).map_or("-".into(), |v| crate::counter_view::value(name, *v));
            let _ = write!(h, "<td>{}</td>", esc(&cell));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table></div>");
    h
}

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
fn counter_chart(r: &RunResult, c: &crate::counter_view::CounterChart) -> String {
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
fn percentile_charts(r: &RunResult) -> String {
    const MAX_STEPS: usize = 8;
    if r.steps.len() <= MAX_STEPS {
        return r.steps.iter().map(|s| percentiles(r.workload, s)).collect();
    }
    let mut shown: Vec<&Step> =
        crate::cap::best_step_within_cap(&r.steps).into_iter().chain(r.steps.last()).collect();
    shown.dedup_by_key(|s| (s.index, s.run));
    shown.into_iter().map(|s| percentiles(r.workload, s)).collect()
}

/// The step table, as `report show` prints it, and the headline under it.
fn step_table(r: &RunResult) -> String {
    let mut h = "<div class=\"scroll\"><table><tr>".to_string();
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
    let _ = write!(h, "</table></div><p><b>{}</b></p>", esc(&crate::show::headline(r)));
    h
}

/// Each audited step's checks, as `report show` lists them, flags marked.
fn audit_tables(r: &RunResult) -> String {
    let mut h = String::new();
    for s in &r.steps {
        let Some(audit) = &s.audit else { continue };
        let _ = write!(
            h,
            "<div class=\"scroll\"><table class=\"kv\"><tr><th colspan=\"5\">audit of step {} run {}</th></tr>\
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
        h.push_str("</table></div>");
        for note in &audit.notes {
            let _ = write!(h, "<p>{}</p>", esc(note));
        }
    }
    h
}

/// One report interval over all transaction types.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Interval {
    /// Completed transactions.
    pub(crate) count: u64,
    /// Total transactions per second.
    pub(crate) tps: f64,
    /// Sum of each type's mean times its count, ms: the count-weighted mean's numerator.
    weighted_ms: f64,
    /// The highest p95 of any type, ms: an upper bound of the interval's p95.
    p95_max_ms: f64,
}

/// The report intervals of the transaction types `txn` keeps, keyed by their end in ms.
pub(crate) fn intervals_of(r: &RunResult, txn: impl Fn(&str) -> bool) -> BTreeMap<u64, Interval> {
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

/// Throughput per report interval in the headline's unit: TPC-C's New-Orders per minute (NOPM), DS2's
/// orders per minute (every completed order, as OPM counts); the warm-up and each step's window shaded.
fn throughput_over_time(r: &RunResult) -> String {
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
fn response_time_over_time(r: &RunResult) -> String {
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
            bands: Vec::new(),
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

/// One result's line on a comparison chart: its name, colour and points.
pub(crate) type Line<'a> = (&'a str, &'a str, Vec<(f64, f64)>);

/// A chart of several results' lines (`(name, colour, points)`), for the comparison page.
pub(crate) fn overlay_chart(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> String {
    let series: Vec<Series> =
        lines.iter().map(|(name, colour, points)| Series { name, colour, points: points.clone() }).collect();
    line_chart(&Chart { title, x_label, y_label, x_ticks: None, limit: None, bands: Vec::new() }, &series)
}

/// One SVG line chart: axes with round ticks, a line (and dots, when few) per series, a legend,
/// and the dashed limit. Both axes start at zero unless `c.x_ticks` sets the x range.
fn line_chart(c: &Chart, series: &[Series]) -> String {
    let plot = Plot::new(c, series);
    let mut g = plot.axes(c);
    plot.bands(&mut g, &c.bands);
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

    /// The shaded spans, under the lines, each labelled at its top left.
    fn bands(&self, g: &mut String, bands: &[Band]) {
        for b in bands {
            let (x0, x1) = (self.sx(b.from.max(self.x0)), self.sx(b.to.min(self.x1)));
            if x1 <= x0 {
                continue;
            }
            // A label wider than its band would run into the next one: hover names it instead.
            let label =
                if (x1 - x0) > 6.0 * b.label.chars().count() as f64 { esc(&b.label) } else { String::new() };
            let _ = write!(
                g,
                "<rect x=\"{x0:.1}\" y=\"{T}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#666\">{}</text>",
                x1 - x0,
                H - T - B,
                b.fill,
                esc(&b.label),
                x0 + 3.0,
                T + 11.0,
                label
            );
        }
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
        // Every point names its value on hover; with many points the dots are invisible targets.
        let fill = if s.points.len() <= MAX_DOTS { s.colour } else { "transparent" };
        for &(x, y) in &s.points {
            let _ = write!(
                g,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{fill}\"><title>{}: {} at {}</title></circle>",
                self.sx(x),
                self.sy(y),
                esc(s.name),
                thousands(y, if y.abs() < 10.0 { 2 } else { 1 }),
                thousands(x, if x.fract() == 0.0 { 0 } else { 2 })
            );
        }
        let ly = T + 14.0 + 18.0 * i as f64;
        let _ = write!(
            g,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"14\" height=\"4\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\"><title>{}</title>{}</text>",
            W - R + 12.0,
            ly - 4.0,
            s.colour,
            W - R + 30.0,
            ly + 1.0,
            esc(s.name),
            esc(&legend(s.name))
        );
    }
}

/// Legend characters that fit the right margin; a longer name is cut with an ellipsis (hover shows it whole).
const LEGEND_CHARS: usize = 25;

/// A series' name as its legend shows it.
fn legend(name: &str) -> String {
    match name.char_indices().nth(LEGEND_CHARS) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_string(),
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
pub(crate) fn esc(s: &str) -> String {
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
    use crate::model::{IntervalRow, Workload, is_composite};

    fn intervals(r: &RunResult) -> BTreeMap<u64, Interval> {
        intervals_of(r, |txn| !is_composite(txn))
    }

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
        // Two over time, two against users, a percentile chart per step.
        assert_eq!(html.matches("<svg").count(), 7);
        assert_eq!(html.matches("</svg>").count(), 7);
        assert!(
            html.contains("<h1>TPC-C, 10, 20, 30 users in 3 steps, an unknown engine on h</h1>"),
            "{html}"
        );
        assert!(html.contains("max NOPM within the cap: 1,200 at 20 users (step 2)"), "the headline first");
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
        let steps =
            vec![tpcc_step(0, 8, (60, 60), 5_000, Some(&cap)), tpcc_step(1, 16, (60, 60), 5_000, Some(&cap))];
        let html = render(&result(Workload::Tpcc, steps));
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
        assert!(!html.contains("max over types"), "no p95 line that contradicts the table");
        assert!(html.contains("Mean response time over time, per transaction"));
        assert!(html.contains("<title>payment: 6.00 at 10</title>"), "a line per type, its values on hover");
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
            vec![
                crate::fixtures::ds2_step(0, 100, 30_000, (400_000, 300_000), Some(&cap)),
                crate::fixtures::ds2_step(1, 200, 20_000, (900_000, 800_000), Some(&cap)),
            ],
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
        assert_eq!(
            html.matches("<svg").count(),
            3,
            "over time, and the step's percentiles: one load, no chart against users"
        );
        assert_eq!(html.matches("no data").count(), 2, "the two charts over time are empty");
        assert!(!html.contains("NaN") && !html.contains("inf"));
    }

    #[test]
    fn an_empty_result_still_renders() {
        let html = render(&result(Workload::Tpcc, Vec::new()));
        assert_eq!(html.matches("<svg").count(), 2, "the charts over time, empty");
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
