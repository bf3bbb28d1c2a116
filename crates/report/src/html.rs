//! `report.html`: one self-contained page (no scripts, no network: styles inline, charts as inline SVG)
//! with the run's header, its step table and headline, and four charts. Every number comes from the
//! [`RunResult`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{RunResult, Step};
use crate::numfmt::thousands;

/// Colours of the series, in order; the first is the throughput line's.
pub const PALETTE: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];

/// The percentiles of the latency curves, with their labels.
const PERCENTILES: [(f64, &str); 7] =
    [(50.0, "50"), (75.0, "75"), (90.0, "90"), (95.0, "95"), (99.0, "99"), (99.9, "99.9"), (99.99, "99.99")];

/// One line of a chart.
struct Series<'a> {
    name: &'a str,
    points: Vec<(f64, f64)>,
}

/// What a chart shows besides its series.
struct Chart<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    /// Labels for the x axis at given positions (else numbers).
    x_ticks: Option<Vec<(f64, String)>>,
    /// A dashed horizontal line: the cap.
    limit: Option<(f64, String)>,
}

/// The whole page.
pub fn render(r: &RunResult) -> String {
    let mut h = String::new();
    let unit = r.workload.per_minute_unit();
    let title = format!("oltpgen {} — {}", format!("{:?}", r.workload).to_lowercase(), r.targets.join(", "));
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>\
         body{{font-family:sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse}}\
         td,th{{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}}\
         .fail{{color:#d62728;font-weight:bold}}svg{{display:block;margin:1em 0}}</style></head><body>",
        esc(&title)
    );
    let _ = write!(h, "<h1>{}</h1>", esc(&title));
    let _ = write!(
        h,
        "<p>{} {}, {} {}, started {}{}</p>",
        esc(&r.tool.name),
        esc(&r.tool.version),
        esc(&r.server.engine),
        esc(&r.server.version),
        esc(&r.started_at),
        if r.interrupted { " — <b>interrupted</b>" } else { "" }
    );
    if let Some(config) = r.config.as_object() {
        let items: Vec<String> =
            config.iter().map(|(k, v)| format!("{}={}", esc(k), esc(&v.to_string()))).collect();
        let _ = write!(h, "<p><small>{}</small></p>", items.join(" "));
    }
    let _ = write!(
        h,
        "<table><tr><th>step</th><th>run</th><th>users</th><th>TPS</th><th>{unit}</th><th>avg ms</th>\
         <th>p95 ms</th><th>errors</th><th>cap</th></tr>"
    );
    for s in &r.steps {
        let cells: Vec<String> = crate::show::step_cells(s)
            .iter()
            .map(|c| {
                if c == "FAIL" { "<td class=\"fail\">FAIL</td>".to_string() } else { format!("<td>{c}</td>") }
            })
            .collect();
        let _ = write!(h, "<tr>{}</tr>", cells.concat());
    }
    let _ = write!(h, "</table><p><b>{}</b></p>", esc(&crate::show::headline(r)));
    h.push_str(&over_time(r));
    h.push_str(&against_users(r));
    if let Some(step) = headline_step(r) {
        h.push_str(&percentiles(step));
    }
    h.push_str("</body></html>\n");
    h
}

/// Throughput and response time per reporting interval, over all transaction types.
fn over_time(r: &RunResult) -> String {
    // elapsed → (count, tps, count-weighted avg, highest p95)
    let mut at: BTreeMap<u64, (u64, f64, f64, f64)> = BTreeMap::new();
    for row in &r.timeseries {
        let e = at.entry((row.elapsed_s * 1000.0) as u64).or_default();
        e.0 += row.count;
        e.1 += row.tps;
        e.2 += row.avg_ms * row.count as f64;
        e.3 = e.3.max(row.p95_ms);
    }
    let x = |ms: &u64| *ms as f64 / 1000.0;
    let tps = at.iter().map(|(ms, v)| (x(ms), v.1)).collect();
    let avg = at.iter().filter(|(_, v)| v.0 > 0).map(|(ms, v)| (x(ms), v.2 / v.0 as f64)).collect();
    let p95 = at.iter().map(|(ms, v)| (x(ms), v.3)).collect();
    let time = |title, y_label| Chart { title, x_label: "seconds", y_label, x_ticks: None, limit: None };
    line_chart(&time("Throughput over time", "TPS"), &[Series { name: "TPS", points: tps }])
        + &line_chart(
            &time("Response time over time", "ms"),
            &[Series { name: "average", points: avg }, Series { name: "p95 (max of types)", points: p95 }],
        )
}

/// Throughput and average response time against users, one point per step, with the cap drawn in.
fn against_users(r: &RunResult) -> String {
    let point = |f: fn(&Step) -> f64| r.steps.iter().map(|s| (s.users as f64, f(s))).collect::<Vec<_>>();
    let avg_cap = r
        .steps
        .iter()
        .filter_map(|s| s.cap.as_ref())
        .flat_map(|c| &c.rules)
        .find(|rule| rule.rule.starts_with("avg="))
        .map(|rule| (rule.limit_ms, format!("cap {}", rule.rule)));
    let users = |title, y_label, limit| Chart { title, x_label: "users", y_label, x_ticks: None, limit };
    line_chart(
        &users("Throughput against users", "TPS", None),
        &[Series { name: "TPS", points: point(|s| s.figures.tps) }],
    ) + &line_chart(
        &users("Response time against users", "ms", avg_cap),
        &[Series { name: "average", points: point(|s| s.figures.rt_avg_ms) }],
    )
}

/// The headline step, or the last one.
fn headline_step(r: &RunResult) -> Option<&Step> {
    r.max_within_cap.as_ref().and_then(|h| r.steps.get(h.step_index as usize)).or(r.steps.last())
}

/// Response-time percentiles of each transaction type in `step`, from its merged histogram.
fn percentiles(step: &Step) -> String {
    let series: Vec<Series> = step
        .figures
        .transactions
        .iter()
        .filter(|(_, t)| t.count > 0)
        .map(|(name, t)| Series {
            name,
            points: PERCENTILES
                .iter()
                .enumerate()
                .map(|(i, (p, _))| (i as f64, t.histogram.percentile_us(*p) as f64 / 1e3))
                .collect(),
        })
        .collect();
    let ticks = PERCENTILES.iter().enumerate().map(|(i, (_, l))| (i as f64, (*l).to_string())).collect();
    let title = format!("Response-time percentiles, step {} ({} users)", step.index + 1, step.users);
    line_chart(
        &Chart { title: &title, x_label: "percentile", y_label: "ms", x_ticks: Some(ticks), limit: None },
        &series,
    )
}

/// One SVG line chart: axes with five ticks each, a line and dots per series, a legend, and the limit.
fn line_chart(c: &Chart, series: &[Series]) -> String {
    const W: f64 = 720.0;
    const H: f64 = 300.0;
    // Margins: left (y labels), right (legend), top (title), bottom (x labels).
    const L: f64 = 70.0;
    const R: f64 = 190.0;
    const T: f64 = 30.0;
    const B: f64 = 45.0;
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = bounds(all().map(|p| p.0), false);
    let (_, y1) = bounds(all().map(|p| p.1).chain(c.limit.iter().map(|l| l.0)), true);
    let sx = |x: f64| L + (x - x0) / (x1 - x0) * (W - L - R);
    let sy = |y: f64| H - B - y / y1 * (H - T - B);
    let mut g = format!(
        "<svg width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" role=\"img\"><title>{t}</title>\
         <text x=\"{L}\" y=\"18\" font-weight=\"bold\">{t}</text>\
         <line x1=\"{L}\" y1=\"{yb}\" x2=\"{xr}\" y2=\"{yb}\" stroke=\"#444\"/>\
         <line x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{yb}\" stroke=\"#444\"/>\
         <text x=\"{xm}\" y=\"{xl}\" text-anchor=\"middle\" font-size=\"12\">{xlab}</text>\
         <text x=\"14\" y=\"{ym}\" font-size=\"12\" transform=\"rotate(-90 14 {ym})\" text-anchor=\"middle\">{ylab}</text>",
        t = esc(c.title),
        yb = H - B,
        xr = W - R,
        xm = (L + W - R) / 2.0,
        xl = H - 8.0,
        ym = (T + H - B) / 2.0,
        xlab = esc(c.x_label),
        ylab = esc(c.y_label),
    );
    let x_ticks = c.x_ticks.clone().unwrap_or_else(|| {
        (0..=4).map(|i| x0 + (x1 - x0) * f64::from(i) / 4.0).map(|x| (x, short(x))).collect()
    });
    for (x, label) in x_ticks {
        let _ = write!(
            g,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{}</text>",
            sx(x),
            H - B + 16.0,
            esc(&label)
        );
    }
    for i in 0..=4 {
        let y = y1 * f64::from(i) / 4.0;
        let _ = write!(
            g,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\">{}</text>\
             <line x1=\"{L}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#eee\"/>",
            L - 6.0,
            sy(y) + 4.0,
            short(y),
            W - R,
            yy = sy(y)
        );
    }
    if let Some((limit, label)) = &c.limit {
        let _ = write!(
            g,
            "<line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#d62728\" stroke-dasharray=\"6 4\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#d62728\">{}</text>",
            W - R,
            W - R + 6.0,
            sy(*limit) + 4.0,
            esc(label),
            y = sy(*limit)
        );
    }
    for (i, s) in series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let path: Vec<String> = s.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y))).collect();
        let _ = write!(
            g,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2.5\" points=\"{}\"/>",
            path.join(" ")
        );
        for &(x, y) in &s.points {
            let _ = write!(g, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>", sx(x), sy(y));
        }
        let ly = T + 14.0 + 18.0 * i as f64;
        let _ = write!(
            g,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"14\" height=\"4\" fill=\"{colour}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>",
            W - R + 12.0,
            ly - 4.0,
            W - R + 30.0,
            ly + 1.0,
            esc(s.name)
        );
    }
    g.push_str("</svg>");
    g
}

/// The range an axis spans; from zero for values, and never empty.
fn bounds(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let lo = if from_zero || !lo.is_finite() { 0.0 } else { lo };
    let hi = if hi.is_finite() && hi > lo { hi } else { lo + 1.0 };
    (lo, if from_zero { hi * 1.1 } else { hi })
}

/// A tick label: few digits.
fn short(v: f64) -> String {
    if v.abs() >= 100.0 { thousands(v, 0) } else { format!("{v:.1}") }
}

/// Text made safe for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cap::Cap;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::{IntervalRow, Workload};

    fn sweep() -> RunResult {
        let cap = Cap::default();
        let steps = (0..3).map(|i| {
            tpcc_step(i, 10 * (u64::from(i) + 1), (600, 600), 2_000 * (u64::from(i) + 1), Some(&cap))
        });
        let mut r = result(Workload::Tpcc, steps.collect());
        r.targets = vec!["postgres://u@h:5432/<tpcc>".into()];
        r.timeseries = (1..=6)
            .map(|i| IntervalRow {
                elapsed_s: f64::from(i) * 10.0,
                users: 10,
                txn: "new_order".into(),
                count: 100,
                tps: 10.0,
                avg_ms: 2.0,
                p95_ms: 4.0,
                errors: 0,
            })
            .collect();
        r
    }

    #[test]
    fn the_page_holds_five_charts_and_nothing_from_the_network() {
        let html = render(&sweep());
        assert_eq!(html.matches("<svg").count(), 5);
        assert!(html.contains("cap avg=1s"), "the cap is drawn in");
        assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"));
        assert!(html.contains("&lt;tpcc&gt;") && !html.contains("<tpcc>"), "text is escaped");
    }

    #[test]
    fn an_empty_result_still_renders() {
        let html = render(&result(Workload::Tpcc, Vec::new()));
        assert_eq!(html.matches("<svg").count(), 4, "time and users charts, empty");
        assert!(!html.contains("NaN"));
    }
}
