//! `report.html`: one self-contained page (no scripts, no network: styles inline, charts as inline SVG)
//! that puts the answer first: a title saying what ran and the headline (max NOPM or OPM within the
//! cap, with the cap); the steps (their table, why a step failed its cap, each step's audit in a line);
//! throughput and response time against users (when there are several loads, with every rule of the
//! cap); the response time per transaction (over time, each step's table, each step's percentile
//! curves); throughput over time with the host and database counters on the same clock beneath it
//! (the counters that read zero throughout named in a line, not drawn); each step's full audit,
//! folded, its notes said once; the errors; and last the settings, server and client. Every point
//! names its value on hover (SVG `<title>`), the charts shrink to a phone's width, and the page
//! prints. Every number comes from the [`RunResult`].
//!
//! Each section's heading carries an id ([`SECTIONS`], in page order), so a test can check the order.
//! The page's charts are [`crate::render::html::charts`]', drawn with [`crate::render::html::svg`].

use std::fmt::Write as _;

use crate::model::RunResult;
use crate::model::audit::{Audit, Verdict};
use crate::model::counters::{split_key, step_keys};
use crate::numfmt::thousands;
use crate::render::counters::{charts, label, value, zero_series};
use crate::render::describe;
use crate::render::html::charts::{
    counter_chart, percentile_charts, response_time_against_users, response_time_over_time,
    throughput_against_users, throughput_over_time,
};
use crate::render::html::frame::{esc, open_page};
use crate::render::steps::{failure, headline, per_target, step_columns, table_rows, verdict};
use crate::render::text::audit::{self, line};

/// The page's sections, in the order it shows them: each heading's id and its words. A section with
/// nothing to show (one user load, no audit, no errors) is left out.
pub const SECTIONS: [(&str, &str); 7] = [
    ("steps", "Steps"),
    ("against-users", "Throughput and response time against users"),
    ("per-transaction", "Response time per transaction"),
    ("over-time", "Throughput and counters over time"),
    ("audit", "Audit"),
    ("errors", "Errors"),
    ("settings", "Settings, server and client"),
];

/// Renders the whole page. It exists so that a run can be read — and its curves seen — in any
/// browser, offline, from one file that can be mailed or archived beside `result.json`.
pub fn render(r: &RunResult) -> String {
    let mut h = open_page(&describe::title(r));
    let _ = write!(h, "<p class=\"headline\"><b>{}</b></p>", esc(&headline(r)));
    for line in crate::render::study::lines(r) {
        let _ = write!(h, "<p class=\"study\">{}</p>", esc(&line));
    }
    if r.interrupted {
        h.push_str("<p class=\"fail\">Interrupted: the run was stopped early; the figures cover the steps that ran.</p>");
    }
    for line in r.failover_sentences() {
        let _ = write!(h, "<p class=\"fail\">{}</p>", esc(&line));
    }
    for (id, title) in SECTIONS {
        let body = match id {
            "steps" => steps(r),
            // The answer's charts, full width.
            "against-users" if several_loads(r) => {
                format!("{}{}", throughput_against_users(r), response_time_against_users(r))
            }
            "per-transaction" => per_transaction(r),
            "over-time" => over_time(r),
            "audit" => audit_section(r),
            "errors" => errors(r),
            "settings" => about(r),
            _ => String::new(),
        };
        if !body.is_empty() {
            let _ = write!(h, "<h2 id=\"{id}\">{}</h2>{body}", esc(title));
        }
    }
    h.push_str("</body></html>\n");
    h
}

/// The steps: their table and the headline under it, why a step failed its cap or was not measured,
/// each target's share, and each step's audit in a line.
fn steps(r: &RunResult) -> String {
    let mut h = step_table(r);
    let mut line_of = |text: String, class: &str| {
        let _ = write!(h, "<p{class}>{}</p>", esc(&text));
    };
    for s in r.steps.iter().filter(|s| s.cap.as_ref().is_some_and(|v| v.rules.iter().any(|r| !r.passed))) {
        line_of(failure(s), " class=\"fail\"");
    }
    for (s, why) in r.steps.iter().filter_map(|s| Some((s, s.cap.as_ref()?.invalid.as_ref()?))) {
        line_of(format!("step {} run {} not measured: {why}", s.index + 1, s.run), " class=\"fail\"");
    }
    for s in r.steps.iter().filter(|s| s.targets.len() > 1) {
        line_of(per_target(s, r.descriptor()), "");
    }
    // An open loop's steps: what each offered and achieved, its lag and its drops.
    for (s, a) in r.steps.iter().filter_map(|s| Some((s, s.arrivals.as_ref()?))) {
        let class = if a.sustained { "" } else { " class=\"fail\"" };
        line_of(format!("step {} run {} arrivals: {}", s.index + 1, s.run, a.line()), class);
    }
    // The audit's lines, one a step, close together: a FLAG the pacing does not explain marked.
    let audits: Vec<String> = r
        .steps
        .iter()
        .filter_map(|s| {
            let a = s.audit.as_ref()?;
            let text = esc(&line(s, a));
            Some(if unexpected_flags(a) { format!("<span class=\"fail\">{text}</span>") } else { text })
        })
        .collect();
    if !audits.is_empty() {
        let _ = write!(h, "<p>{}</p>", audits.join("<br>"));
    }
    h
}

/// Whether audit `a` flagged something a run without the spec's pacing does not explain.
fn unexpected_flags(a: &Audit) -> bool {
    a.flagged().any(|c| !a.expected_unpaced(c))
}

/// The response time per transaction: each one's mean over time, each step's table, and each step's
/// percentile curves.
fn per_transaction(r: &RunResult) -> String {
    let mut h = response_time_over_time(r);
    h.push_str(&transaction_tables(r));
    let _ = write!(h, "<div class=\"grid\">{}</div>", percentile_charts(r));
    h
}

/// Throughput over time and the counters on the same clock, so that a disk that saturates shows
/// beside the throughput that flattened: the counters' step averages, then their charts; the counters
/// that read zero throughout named in a line instead of drawn flat.
fn over_time(r: &RunResult) -> String {
    let mut h = counter_table(r);
    h.push_str("<div class=\"grid\">");
    h.push_str(&throughput_over_time(r));
    for chart in charts(r) {
        h.push_str(&counter_chart(r, &chart));
    }
    h.push_str("</div>");
    let zero = zero_series(r);
    if !zero.is_empty() {
        let _ = write!(h, "<p class=\"note\">Zero throughout, not drawn: {}.</p>", esc(&zero.join(", ")));
    }
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
    for (key, value) in describe::settings(r) {
        if !(matches!(key.as_str(), "target" | "targets") && value == targets) {
            kv(&mut h, &key, &value);
        }
    }
    h.push_str("</table><table class=\"kv\"><tr><th colspan=\"2\">server</th></tr>");
    kv(&mut h, "engine", &format!("{} {}", describe::engine(r), r.server.version));
    for (key, value) in &r.server.settings {
        kv(&mut h, key, value);
    }
    h.push_str("</table><table class=\"kv\"><tr><th colspan=\"2\">client (oltpgen itself)</th></tr>");
    let c = &r.client;
    let us = |v: Option<f64>| v.map_or("n/a".into(), |us| format!("{} µs", thousands(us, 1)));
    kv(&mut h, &format!("CPU per {}", r.descriptor().work.one), &us(c.client_cpu_us_per_txn));
    if c.client_cpu_us_per_order.is_some() {
        kv(&mut h, "CPU per order", &us(c.client_cpu_us_per_order));
    }
    kv(
        &mut h,
        "CPU",
        &format!("{} s user, {} s system", thousands(c.cpu_user_s, 2), thousands(c.cpu_sys_s, 2)),
    );
    kv(&mut h, &r.descriptor().work.many, &thousands(c.transactions as f64, 0));
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
        let mark = match verdict(s) {
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
        for name in &r.descriptor().transactions {
            let Some(t) = s.figures.transactions.get(name) else { continue };
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
    let keys = step_keys(&r.steps);
    if keys.is_empty() {
        return String::new();
    }
    let mut h = "<div class=\"scroll\"><table><caption>counters, step average</caption><tr><th class=\"l\">counter</th>".to_string();
    for s in &r.steps {
        let _ = write!(h, "<th>step {} ({} users)</th>", s.index + 1, thousands(s.users as f64, 0));
    }
    h.push_str("</tr>");
    for key in &keys {
        let name = split_key(key).1;
        let _ = write!(h, "<tr><td class=\"l\">{}</td>", esc(&label(key)));
        for s in &r.steps {
            let cell = s.counters.get(key).map_or("-".into(), |v| value(name, *v));
            let _ = write!(h, "<td>{}</td>", esc(&cell));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table></div>");
    h
}

/// The step table, as `report show` prints it, and the headline under it.
fn step_table(r: &RunResult) -> String {
    let mut h = "<div class=\"scroll\"><table><tr>".to_string();
    for (title, _) in step_columns(r.descriptor()) {
        let _ = write!(h, "<th>{}</th>", esc(title));
    }
    h.push_str("</tr>");
    for (cells, best) in table_rows(r) {
        h.push_str(if best { "<tr class=\"best\">" } else { "<tr>" });
        for cell in cells {
            let verdict = cell.split_whitespace().next().unwrap_or("");
            let class = if verdict == "FAIL" || verdict == "INVALID" { " class=\"fail\"" } else { "" };
            let _ = write!(h, "<td{class}>{}</td>", esc(&cell));
        }
        h.push_str("</tr>");
    }
    let _ = write!(h, "</table></div><p><b>{}</b></p>", esc(&headline(r)));
    h
}

/// Each audited step's checks, as `report show --audit` lists them, flags marked, folded under the
/// step's audit line; then the notes they share, once.
fn audit_section(r: &RunResult) -> String {
    let mut h = String::new();
    for (s, (title, a)) in r.steps.iter().flat_map(|s| audit::audits(s).into_iter().map(move |t| (s, t))) {
        let summary = match title == audit::title(s, None) {
            true => line(s, a),
            false => format!("{title}: {}", audit::verdicts(a)),
        };
        let _ = write!(
            h,
            "<details><summary>{}</summary><div class=\"scroll\"><table class=\"kv\">\
             <caption>{}</caption><tr><th>clause</th><th>check</th><th>observed</th><th>spec&#39;s bound</th><th>± chance</th><th>verdict</th></tr>",
            esc(&summary),
            esc(&title)
        );
        for c in &a.checks {
            let class = match c.verdict {
                Verdict::Flag if !a.expected_unpaced(c) => " class=\"fail\"",
                _ => "",
            };
            let chance = c.tolerance.map_or(String::new(), |t| format!("±{t:.2}"));
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{chance}</td><td{class}>{}</td></tr>",
                esc(&c.clause),
                esc(&c.name),
                esc(&c.shown),
                esc(&c.bound),
                esc(c.verdict.mark())
            );
        }
        h.push_str("</table></div></details>");
    }
    if !h.is_empty() {
        let _ = write!(
            h,
            "<p class=\"note\">± chance: what chance alone spreads a share by (3 σ); a FLAG is outside the \
             spec&#39;s bound by more than that. {}</p>",
            esc(audit::notes(r).trim_end()).replace('\n', "<br>")
        );
    }
    h
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::{interval_row as row, result, sweep, tag_lines, tpcc_step};
    use crate::model::{ClientCpu, CounterSeries, ORDER, Step, Window, Workload, is_composite};
    use crate::render::html::intervals::{Interval, intervals_of};
    use crate::stats::audit::{TpccAuditPlan, tpcc};
    use crate::stats::cap::Cap;

    fn intervals(r: &RunResult) -> BTreeMap<u64, Interval> {
        intervals_of(r, |txn| !is_composite(txn))
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
        let headline = "max NOPM within cap avg=1s: 1,200 at 20 users (step 2), 40.0 TPS, avg 599.8 ms";
        assert_eq!(html.matches(headline).count(), 2, "one headline, first and under the table: {html}");
        assert!(!html.contains("max TPS"), "no other headline");
        assert_eq!(html.matches("<tr class=\"best\">").count(), 1, "the headline's row marked, once");
        assert!(html.contains("<td>PASS  ← headline</td>"));
        assert!(html.contains("cap avg=1s"), "the cap is drawn in");
        assert!(html.contains("<td class=\"fail\">FAIL</td>"), "the verdicts");
        assert!(html.contains(">NOPM</th>"));
        for external in ["http:", "https:", "src=", "href=", "<script", "<link", "@import", "url("] {
            assert!(!html.contains(external), "no external resource: found {external}");
        }
    }

    #[test]
    fn an_audited_step_lists_its_checks_with_flags_marked() {
        let mut r = sweep();
        let plan = TpccAuditPlan { paced: false, warehouses: 1 };
        r.steps[1].audit = Some(tpcc(&r.steps[1], BTreeMap::new(), plan));
        let html = render(&r);
        // Changed with the page's order: the audit's line under the step table, the checks folded
        // under the same line in the audit section.
        assert_eq!(html.matches("step 2 run 1 audit: FLAG").count(), 2, "only the audited step, twice");
        assert!(html.contains("<details><summary>step 2 run 1 audit: FLAG Order-Status share"), "{html}");
        assert!(
            html.contains(
                "<td>keying and think times</td><td>off</td><td>on (spec&#39;s)</td><td></td><td>FLAG</td>"
            ),
            "a FLAG the pacing explains is not marked as a failure: {html}"
        );
        assert!(
            html.contains("<td>Order-Status share</td><td>0.00% (0/2400)</td><td>&gt;= 4.0%</td><td>±1.20</td><td class=\"fail\">FLAG</td>"),
            "{html}"
        );
        assert!(html.contains("<td>remote Payments</td><td>0.00% (0/1200)</td><td>14.25–15.75%</td><td></td><td>not applicable at one warehouse</td>"));
        assert_eq!(html.matches("Delivery runs inline, not deferred").count(), 1);
    }

    #[test]
    fn warehouses_without_a_user_in_an_unpaced_sweep_are_not_marked_as_a_failure() {
        // Issue 39: 10 then 20 users flat out on 30 warehouses, the sweep's first steps.
        let mut r = sweep();
        let plan = TpccAuditPlan { paced: false, warehouses: 30 };
        r.steps[0].audit = Some(tpcc(&r.steps[0], BTreeMap::new(), plan));
        let html = render(&r);
        assert!(
            html.contains(
                "<td>warehouses with a user</td><td>33.33% (10/30)</td><td>100%</td><td></td><td>FLAG</td>"
            ),
            "{html}"
        );
    }

    #[test]
    fn an_outage_is_said_in_a_sentence_on_the_page_and_in_show() {
        let r = crate::fixtures::failed_over();
        let html = render(&r);
        let fault = "fault command (--fault-cmd) at 30.0 s, done at 31.5 s: ended well";
        assert!(
            html.contains(&format!("<p class=\"fail\">{fault}</p><p class=\"fail\">failover at")),
            "{html}"
        );
        let sentence =
            "failover at 31.2 s: 4.8 s without a commit, 12.0 s to 90% of throughput, 37 transactions failed";
        assert!(html.contains(&format!("<p class=\"fail\">{sentence}</p>")), "{html}");
        let text = crate::render::text::show::report(&r, crate::render::text::show::AuditView::Full);
        assert!(text.contains(&format!("\n{sentence}\n")), "{text}");
        assert!(crate::render::text::summary::render(&r).contains(sentence));
        assert!(!render(&crate::fixtures::sweep()).contains("failover at"));
        // Shaded on the throughput chart, named on hover.
        assert!(html.contains("#f6d5d5") && html.contains(&format!("<title>{sentence}</title>")), "{html}");
    }

    #[test]
    fn the_answer_comes_first_and_the_settings_last() {
        let mut r = sweep();
        r.config = serde_json::json!({"scale": 1, "keying_time": "0", "think_time": "0"});
        for s in &mut r.steps {
            s.audit = Some(tpcc(s, BTreeMap::new(), TpccAuditPlan { paced: false, warehouses: 1 }));
        }
        r.errors_by_kind = BTreeMap::from([("deadlock".into(), 1)]);
        let series = |name: &str, at: f64| CounterSeries {
            source: "db:pg".into(),
            name: name.into(),
            points: (1..=6).map(|i| [f64::from(i) * 10.0, at]).collect(),
        };
        r.counters = vec![
            series("commits_per_s", 900.0),
            series("deadlocks_per_s", 0.0),
            series("temp_bytes_per_s", 0.0),
        ];
        let html = render(&r);
        let order = [
            "<p class=\"headline\">",
            "<h2 id=\"steps\">",
            // The same headline again, under the step table.
            "</table></div><p><b>max NOPM within cap avg=1s: 1,200 at 20 users (step 2), 40.0 TPS, avg 599.8 ms<",
            "<h2 id=\"against-users\">",
            "<title>Throughput against users</title>",
            "<title>Response time against users</title>",
            "<h2 id=\"per-transaction\">",
            "<title>Mean response time over time, per transaction</title>",
            "<caption>step 1 run 1: 10 users</caption>",
            "<title>Response-time percentiles, step 1 run 1 (10 users)</title>",
            "<h2 id=\"over-time\">",
            "<title>Throughput over time</title>",
            "<title>commits/s</title>",
            "<h2 id=\"audit\">",
            "<h2 id=\"errors\">",
            "<h2 id=\"settings\">",
            "<td>started</td>",
        ];
        let at: Vec<usize> = order
            .iter()
            .map(|needle| html.find(needle).unwrap_or_else(|| panic!("{needle} in {html}")))
            .collect();
        for (pair, places) in order.windows(2).zip(at.windows(2)) {
            assert!(places[0] < places[1], "{} before {}", pair[0], pair[1]);
        }
        assert_eq!(html.matches("<h2").count(), SECTIONS.len(), "every section once");
        assert!(
            html.contains(
                "<p class=\"note\">Zero throughout, not drawn: db:pg deadlocks/s, db:pg temp bytes/s.</p>"
            ),
            "{html}"
        );
        assert!(!html.contains("<title>deadlocks/s</title>"), "no flat chart");
        assert_eq!(html.matches("Delivery runs inline").count(), 1, "said once, not per step");
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
    fn an_open_loop_s_steps_say_their_arrivals_on_the_page() {
        let mut r = sweep();
        let mut a = crate::model::arrivals::StepArrivals {
            offered_per_s: 100.0,
            achieved_per_s: 99.5,
            sustained: true,
            ..Default::default()
        };
        r.steps[0].arrivals = Some(a.clone());
        a.sustained = false;
        r.steps[1].arrivals = Some(a);
        let html = render(&r);
        assert!(html.contains("<p>step 1 run 1 arrivals: offered 100.0/s achieved 99.5/s"), "{html}");
        assert!(
            html.contains("<p class=\"fail\">step 2 run 1 arrivals: NOT SUSTAINED: offered 100.0/s"),
            "{html}"
        );
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
        assert!(html.contains("max OPM within cap order.avg=1s: 30,000 at 100 users"), "the headline");
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
    fn the_page_of_an_audited_sweep_with_counters() {
        let mut r = sweep();
        r.config = serde_json::json!({"scale": 2, "keying_time": "spec", "think_time": "spec", "transactions": "server"});
        r.server.engine = "postgres".into();
        r.server.version = "16.4".into();
        r.server.settings = BTreeMap::from([("shared_buffers".into(), "1GB".into())]);
        r.client = ClientCpu {
            peak_rss_bytes: 52_000_000,
            wake_late_p99_ms: Some(1.25),
            ..ClientCpu::new(2.5, 0.75, 54_000)
        };
        r.errors_by_kind = BTreeMap::from([("serialization_failure".into(), 3)]);
        let series = |source: &str, name: &str, at: f64| CounterSeries {
            source: source.into(),
            name: name.into(),
            points: (1..=6).map(|i| [f64::from(i) * 10.0, at * f64::from(i)]).collect(),
        };
        r.counters = vec![
            series("client", "cpu_pct", 2.0),
            series("node:http://db1:9100/metrics", "cpu_pct", 10.0),
            series("node:http://db1:9100/metrics", "disk_vda_transfers_per_s", 300.0),
        ];
        for s in &mut r.steps {
            let l = f64::from(s.index + 1);
            s.window = Window { start_s: 20.0 * l - 15.0, end_s: 20.0 * l };
            s.counters = BTreeMap::from([
                ("client/cpu_pct".to_string(), 2.0 * l),
                ("node:http://db1:9100/metrics/disk_vda_transfers_per_s".to_string(), 300.0 * l),
            ]);
        }
        r.steps[1].audit =
            Some(tpcc(&r.steps[1], BTreeMap::new(), TpccAuditPlan { paced: true, warehouses: 2 }));
        insta::assert_snapshot!("page_of_an_audited_tpcc_sweep", tag_lines(&render(&r)));
    }

    #[test]
    fn the_page_of_an_interrupted_ds2_run_on_two_targets() {
        let cap = Cap::default_for(Workload::Ds2);
        let mut first = crate::fixtures::ds2_step(0, 100, 30_000, (400_000, 300_000), Some(&cap));
        first = Step::new(
            Workload::Ds2,
            first.plan(),
            BTreeMap::from([
                ("pg1".to_string(), first.figures.transactions.clone()),
                ("pg2".to_string(), first.figures.transactions.clone()),
            ]),
        );
        cap.judge_step(&mut first);
        let mut r = result(
            Workload::Ds2,
            vec![first, crate::fixtures::ds2_step(1, 200, 20_000, (1_900_000, 800_000), Some(&cap))],
        );
        r.interrupted = true;
        r.targets = vec!["pg1".into(), "pg2".into()];
        r.config = serde_json::json!({"db_size": "10GB", "n_threads": 100, "think_time_s": 0});
        r.timeseries = vec![
            row(10.0, "login", 100, 1.0, 2.0),
            row(10.0, ORDER, 50, 9.0, 12.0),
            row(10.0, crate::model::RT_TOT, 50, 7.0, 11.0),
            row(20.0, "login", 120, 1.5, 2.5),
            row(20.0, ORDER, 60, 10.0, 14.0),
            row(20.0, crate::model::RT_TOT, 60, 8.0, 12.0),
        ];
        insta::assert_snapshot!("page_of_an_interrupted_ds2_run", tag_lines(&render(&r)));
    }
}
