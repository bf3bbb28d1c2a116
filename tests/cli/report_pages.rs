//! report.html as a reader sees it, in headless Chromium, for every kind of run: a one-step TPC-C run,
//! a sweep, DS2 on several targets, an interrupted run, and the comparison page of `report html A B`.
//! Each page is written by the binary, parsed and laid out by the browser (`--dump-dom`), which must
//! hold the title, the headline, the table rows and the series' legends, and screenshotted, where each
//! series' colour must show. The results carry host and database counters, as the counters issue
//! fills them. No database is needed. A sweep's page also shows its answer first: the sections in
//! their order, and throughput against users on the first screen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oltpgen_report::model::{CounterSeries, RunResult, Workload};
use oltpgen_report::render::html::charts::{THROUGHPUT_COLOUR, TRANSACTION_COLOURS};
use oltpgen_report::render::html::result::SECTIONS;
use oltpgen_report::stats::audit::{TpccAuditPlan, tpcc};
use oltpgen_report::stats::cap::{Cap, max_within_cap};

use crate::common::oltpgen;
use crate::report_html::{
    browser_available, dom, pixels_like, pixels_like_in_rows, run_of, screenshot, sweep,
};

/// Where the counters of [`with_counters`] come from.
const NODE: &str = "node:http://10.0.0.5:9100/metrics";

/// `r` with the counters the studies quote, per step and over time: the client's and the database
/// host's CPU, the database's disk (its transfers rising with the load, its queue lengthening) and the
/// buffer hit share, every 10 s.
pub fn with_counters(mut r: RunResult) -> RunResult {
    let db = format!("db:{}", r.targets[0]);
    let series = |source: &str, name: &str, of: &dyn Fn(f64) -> f64| CounterSeries {
        source: source.into(),
        name: name.into(),
        points: (1..=(r.steps.len() * 6 + 1) as u32)
            .map(|i| f64::from(i) * 10.0)
            .map(|t| [t, of(t)])
            .collect(),
    };
    let load = |t: f64| ((t - 10.0).max(0.0) / 60.0).floor() + 1.0;
    r.counters = vec![
        series("client", "cpu_pct", &|t| 4.0 * load(t)),
        series(NODE, "cpu_pct", &|t| (25.0 * load(t)).min(95.0)),
        series(NODE, "disk_vda_transfers_per_s", &|t| 1_500.0 * load(t)),
        series(NODE, "disk_vda_ms_per_transfer", &|t| 0.4 * load(t)),
        series(NODE, "disk_vda_queue_length", &|t| 0.8 * load(t) * load(t)),
        series(&db, "buffer_hit_pct", &|_| 99.2),
        series(&db, "commits_per_s", &|t| 700.0 * load(t)),
    ];
    for (i, s) in r.steps.iter_mut().enumerate() {
        let l = i as f64 + 1.0;
        s.counters = BTreeMap::from([
            ("client/cpu_pct".to_string(), 4.0 * l),
            (format!("{NODE}/cpu_pct"), (25.0 * l).min(95.0)),
            (format!("{NODE}/disk_vda_transfers_per_s"), 1_500.0 * l),
            (format!("{NODE}/disk_vda_ms_per_transfer"), 0.4 * l),
            (format!("{NODE}/disk_vda_queue_length"), 0.8 * l * l),
            (format!("{db}/buffer_hit_pct"), 99.2),
            (format!("{db}/commits_per_s"), 700.0 * l),
        ]);
    }
    r
}

/// One step of TPC-C at 16 users.
pub fn one_step() -> RunResult {
    let cap: Cap = "avg=20ms".parse().unwrap();
    with_counters(run_of(Workload::Tpcc, &[(16, 1_200.0, 1.2)], &["db"], &cap))
}

/// DS2 on two databases, two loads.
pub fn ds2_targets() -> RunResult {
    let cap = Cap::default_for(Workload::Ds2);
    with_counters(run_of(Workload::Ds2, &[(16, 300.0, 1.0), (32, 420.0, 1.8)], &["ds2a", "ds2b"], &cap))
}

/// The sweep stopped in its third step: the step is marked not measured, the run interrupted.
pub fn interrupted() -> RunResult {
    let mut r = with_counters(sweep());
    r.interrupted = true;
    if let Some(v) = r.steps[2].cap.as_mut() {
        v.invalidate("the run was stopped during the step".into());
    }
    r.max_within_cap = max_within_cap(&r.steps);
    r
}

/// Writes `r` as `dir/name/result.json` and returns that directory.
fn write(dir: &Path, name: &str, r: &RunResult) -> PathBuf {
    let at = dir.join(name);
    std::fs::create_dir_all(&at).unwrap();
    std::fs::write(at.join("result.json"), serde_json::to_string_pretty(r).unwrap()).unwrap();
    at
}

/// `oltpgen report html RESULTS… --out dir/page.html`, and the page's path.
fn page(dir: &Path, page: &str, results: &[&Path]) -> PathBuf {
    let out = dir.join(page);
    let mut args = vec!["report".to_string(), "html".into()];
    args.extend(results.iter().map(|p| p.display().to_string()));
    args.extend(["--out".into(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = oltpgen(&args);
    assert_eq!(done.code, 0, "{}", done.all());
    out
}

/// What one page must show: text the browser's DOM holds, and colours its screenshot shows (at least
/// about half the pixels observed, the charts over time two to a row: one.html's throughput 290 and
/// counter lines 4,093; the sweep's 1,184 and 7,539; DS2's 861; the interrupted run's 1,184; the
/// comparison's baseline 793 — under B's line where they agree — and B's 2,634; a legend alone shows
/// about 40).
struct Expect<'a> {
    texts: &'a [&'a str],
    colours: &'a [(&'a str, &'a str, usize)],
    absent: &'a [&'a str],
}

#[test]
fn every_kind_of_run_reads_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = write(d, "baseline", &with_counters(sweep()));
    let mut faster = with_counters(sweep());
    for s in &mut faster.steps {
        s.figures.nopm = s.figures.nopm.map(|n| n * 1.25);
    }
    let faster = write(d, "faster", &faster);
    let pages = [
        (
            page(d, "one.html", &[&write(d, "one", &one_step())]),
            Expect {
                texts: &[
                    "TPC-C scale 10, 16 users, PostgreSQL 15.18 on 127.0.0.1",
                    "max NOPM within cap avg=20ms: 32,400 at 16 users (step 1)",
                    "<td class=\"l\">new_order</td><td>32,400</td><td>324</td>",
                    "node:10.0.0.5:9100 vda queue length",
                    ">Disk queue length</text>",
                    "CPU per transaction",
                ],
                colours: &[
                    ("throughput", THROUGHPUT_COLOUR, 150),
                    ("first counter line", TRANSACTION_COLOURS[0], 2_000),
                ],
                absent: &["Throughput against users", "NaN"],
            },
        ),
        (
            page(d, "sweep.html", &[&base]),
            Expect {
                texts: &[
                    "TPC-C scale 10, 8, 16, 32 users in 3 steps, PostgreSQL 15.18 on 127.0.0.1",
                    "max NOPM within cap avg=20ms: 40,500 at 16 users (step 2)",
                    "step 3 run 1: 32 users — <span class=\"fail\">over the cap</span>",
                    ">Throughput against users</text>",
                    ">cap avg=20ms</text>",
                    ">32 users</text>",
                    ">warm-up</title>",
                ],
                colours: &[
                    ("throughput", THROUGHPUT_COLOUR, 600),
                    ("first line", TRANSACTION_COLOURS[0], 3_500),
                ],
                absent: &["NaN"],
            },
        ),
        (
            page(d, "ds2.html", &[&write(d, "ds2", &ds2_targets())]),
            Expect {
                texts: &[
                    "DVD Store 2 size 10GB, 16–32 users in 2 steps, PostgreSQL 15.18 on 2 targets (ds2a, ds2b)",
                    "max OPM within cap order.avg=1s: 50,400 at 32 users (step 2)",
                    "rt_tot_avg",
                    "<td class=\"l\">rt_tot</td>",
                    "step 2 run 1 per target OPM: ds2a 25,200, ds2b 25,200; variability 0.0%",
                    ">OPM</text>",
                ],
                colours: &[("throughput", THROUGHPUT_COLOUR, 450)],
                absent: &[">TPS</text>", "NaN"],
            },
        ),
        (
            page(d, "interrupted.html", &[&write(d, "interrupted", &interrupted())]),
            Expect {
                texts: &[
                    "Interrupted: the run was stopped early",
                    "invalid: not measured as it should have been",
                    "<td class=\"fail\">INVALID</td>",
                ],
                colours: &[("throughput", THROUGHPUT_COLOUR, 600)],
                absent: &["NaN"],
            },
        ),
        (
            page(d, "compare.html", &[&base, &faster]),
            Expect {
                texts: &[
                    "Comparison: baseline vs faster",
                    "<td>40,500</td><td>16</td><td>1.00×</td><td>+0.0%</td>",
                    "<td>50,625</td><td>16</td><td>1.25×</td><td>+25.0%</td>",
                    ">NOPM against users</text>",
                    "<tr><td>32</td><td>45,900</td><td>57,375</td><td>+25.0%</td>",
                    ">faster</text>",
                ],
                colours: &[("baseline", THROUGHPUT_COLOUR, 400), ("faster", "#ff7f0e", 1_300)],
                absent: &["NaN"],
            },
        ),
    ];
    for (page, _) in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        for external in ["http:", "https:", "src=", "<script", "<link", "@import", "url("] {
            let found = html.match_indices(external).any(|(i, _)| !html[..i].ends_with("node:"));
            assert!(!found, "{}: no external resource: found {external}", page.display());
        }
    }
    if !browser_available() {
        return;
    }
    for (page, expect) in pages {
        let name = page.display().to_string();
        let parsed = dom(&page, &d.join("profile"));
        for text in expect.texts {
            assert!(parsed.contains(text), "{name} shows {text:?}");
        }
        for text in expect.absent {
            assert!(!parsed.contains(text), "{name} does not show {text:?}");
        }
        let shot = page.with_extension("png");
        screenshot(&page, &shot, &d.join("profile"));
        for (what, colour, least) in expect.colours {
            let seen = pixels_like(&shot, colour);
            eprintln!("{name}: {what} {seen} pixels");
            assert!(
                seen >= *least,
                "{name}: the {what} lines ({colour}) are drawn: {seen} pixels, expected {least}"
            );
        }
    }
}

/// A flat-out sweep's page, as a browser lays it out, puts the answer first (issue 24): its sections in
/// [`SECTIONS`]' order, the settings last, throughput against users on the first screen (before, the
/// settings took it), the audit folded with its note once, and the counters that read zero named,
/// not drawn.
#[test]
fn a_sweep_s_page_puts_the_answer_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = with_counters(sweep());
    for s in &mut r.steps {
        s.audit = Some(tpcc(s, BTreeMap::new(), TpccAuditPlan { paced: false, warehouses: 10 }));
    }
    let db = format!("db:{}", r.targets[0]);
    let flat =
        CounterSeries { source: db, name: "deadlocks_per_s".into(), points: vec![[10.0, 0.0], [20.0, 0.0]] };
    r.counters.push(flat);
    r.errors_by_kind = BTreeMap::from([("serialization_failure".into(), 2)]);
    let page = page(dir.path(), "sweep.html", &[&write(dir.path(), "sweep", &r)]);
    if !browser_available() {
        return;
    }
    let parsed = dom(&page, &dir.path().join("profile"));
    let at: Vec<usize> = SECTIONS
        .iter()
        .map(|(id, _)| parsed.find(&format!("<h2 id=\"{id}\">")).unwrap_or_else(|| panic!("section {id}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "the sections in their order: {SECTIONS:?} at {at:?}");
    assert!(parsed.find("class=\"headline\"").unwrap() < at[0], "the headline first");
    assert_eq!(parsed.matches("<details>").count(), 3, "each step's audit folded");
    assert_eq!(parsed.matches("Delivery runs inline").count(), 1, "its note once");
    assert!(
        parsed.contains("Zero throughout, not drawn: db:127.0.0.1/&lt;tpcc&gt; deadlocks/s."),
        "{parsed}"
    );

    let shot = page.with_extension("png");
    screenshot(&page, &shot, &dir.path().join("profile"));
    // Observed: about 750 pixels of throughput line in the first 1,200 rows (throughput against users),
    // none before the page put the settings there.
    let first_screen = pixels_like_in_rows(&shot, THROUGHPUT_COLOUR, 0..1_200);
    eprintln!("throughput pixels on the first screen: {first_screen}");
    assert!(first_screen >= 300, "throughput against users on the first screen: {first_screen} pixels");
}
