//! `report.html` in a real browser: a realistic result (a three-step TPC-C sweep under a cap) is
//! rendered, headless Chromium (Debian's `chromium`) takes a screenshot of the page, and every chart's
//! lines must show in it, each in its own colour. No database is needed.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use oltpgen_report::model::histogram::LatencyHistogram;
use oltpgen_report::model::step::{StepPlan, Transactions};
use oltpgen_report::model::{
    ClientCpu, DS2_TRANSACTIONS, IO_TRANSACTIONS, IntervalRow, RunResult, SCHEMA_VERSION, Server, Step,
    TPCC_TRANSACTIONS, Tool, TxnCounters, TxnStats, Window, Workload,
};
use oltpgen_report::render::html::charts::{AVG_COLOUR, P95_COLOUR, THROUGHPUT_COLOUR, TRANSACTION_COLOURS};
use oltpgen_report::render::html::result as html;
use oltpgen_report::render::html::svg::CAP_COLOUR;
use oltpgen_report::stats::cap::{Cap, max_within_cap};

use crate::common::{assert_refused, oltpgen};

/// Measured seconds per step, and the report interval.
const STEP_S: f64 = 60.0;
const INTERVAL_S: f64 = 10.0;
/// The warm-up before the first step's window.
const WARMUP_S: f64 = 10.0;
/// TPC-C's mix in percent, in [`TPCC_TRANSACTIONS`] order.
const MIX: [u64; 5] = [45, 43, 4, 4, 4];
/// Typical mean response time of each type, ms, at light load.
const BASE_MS: [f64; 5] = [8.0, 4.0, 2.0, 40.0, 15.0];
/// DS2's operations per 100 orders, in [`DS2_TRANSACTIONS`] order (the order and rt_tot entries count
/// each order once), and their typical mean response times, ms.
const DS2_MIX: [u64; 8] = [80, 20, 100, 100, 100, 100, 100, 100];
const DS2_BASE_MS: [f64; 8] = [1.0, 1.5, 0.6, 0.6, 0.6, 2.5, 9.0, 7.0];
/// `io`'s reads and writes: Iometer's study's 30% reads, and a disk's fractions of a millisecond.
const IO_MIX: [u64; 2] = [30, 70];
const IO_BASE_MS: [f64; 2] = [0.5, 0.3];

/// `n` response times around `mean_ms`, skewed like real ones: most near the mean, a long tail.
fn latencies(n: u64, mean_ms: f64, seed: u64) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    let mut x = seed | 1;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        // Exponential around the mean, floored at a fifth of it.
        h.record_us(((0.2 - 0.8 * (1.0 - u).ln()) * mean_ms * 1e3) as u64);
    }
    h
}

/// A sweep of 8, 16 and 32 users judged by `avg=20ms`: throughput flattens as response times grow,
/// and the last step breaks the cap.
pub fn sweep() -> RunResult {
    let cap: Cap = "avg=20ms".parse().expect("a valid cap");
    run_of(Workload::Tpcc, &[(8, 900.0, 1.0), (16, 1500.0, 1.6), (32, 1700.0, 2.9)], &["db"], &cap)
}

/// A run of `workload` on `targets`, one step per `(users, rate, slowdown)` (TPC-C: `rate` TPS; DS2:
/// orders per second, on each target), judged by `cap`, with a report interval's rows every 10 s after
/// a 10 s warm-up.
pub fn run_of(workload: Workload, loads: &[(u64, f64, f64)], targets: &[&str], cap: &Cap) -> RunResult {
    let (names, mix, base_ms): (&[&str], &[u64], &[f64]) = match workload {
        Workload::Tpcc => (&TPCC_TRANSACTIONS, &MIX, &BASE_MS),
        Workload::Ds2 => (&DS2_TRANSACTIONS, &DS2_MIX, &DS2_BASE_MS),
        Workload::Io => (&IO_TRANSACTIONS, &IO_MIX, &IO_BASE_MS),
    };
    let (mut steps, mut timeseries) = (Vec::new(), Vec::new());
    for (i, &(users, rate, slowdown)) in loads.iter().enumerate() {
        let start_s = WARMUP_S + i as f64 * STEP_S;
        let per_target: BTreeMap<String, Transactions> = targets
            .iter()
            .enumerate()
            .map(|(k, target)| {
                let transactions: Transactions = names
                    .iter()
                    .enumerate()
                    .map(|(t, name)| {
                        let n = (rate * STEP_S) as u64 * mix[t] / 100;
                        let h = latencies(n, base_ms[t] * slowdown, (i * 10 + t + 100 * k) as u64 + 1);
                        let rollbacks = if *name == "new_order" { n / 100 } else { 0 };
                        (
                            name.to_string(),
                            TxnStats::new(h, TxnCounters { rollbacks, ..TxnCounters::default() }),
                        )
                    })
                    .collect();
                (target.to_string(), transactions)
            })
            .collect();
        for interval in 1..=(STEP_S / INTERVAL_S) as u32 {
            // Intervals wander by ±4% around the step's figures, as real ones do.
            let wobble = 1.0 + 0.04 * f64::from(interval % 3) - 0.04;
            for name in names {
                let t: Vec<&TxnStats> = per_target.values().filter_map(|t| t.get(*name)).collect();
                let total: u64 = t.iter().map(|t| t.count).sum();
                let count = (total as f64 / (STEP_S / INTERVAL_S) * wobble) as u64;
                timeseries.push(IntervalRow {
                    elapsed_s: start_s + f64::from(interval) * INTERVAL_S,
                    users,
                    txn: name.to_string(),
                    count,
                    tps: count as f64 / INTERVAL_S,
                    avg_ms: t[0].avg_ms * wobble,
                    p95_ms: t[0].p95_ms * wobble,
                    errors: 0,
                });
            }
        }
        let window = Window { start_s, end_s: start_s + STEP_S };
        let plan = StepPlan {
            index: i as u32,
            run: 1,
            users,
            connections: users,
            duration_s: STEP_S,
            window,
            ..Default::default()
        };
        let mut step = Step::new(workload, plan, per_target);
        step.cap = Some(cap.evaluate(&step.figures));
        steps.push(step);
    }
    let (config, label) = match workload {
        Workload::Tpcc => (
            serde_json::json!({"scale": 10, "users": "8,16,32", "rt_cap": "avg=20ms"}),
            "postgres://oltpgen@127.0.0.1:5432/<tpcc>".to_string(),
        ),
        Workload::Ds2 => {
            (serde_json::json!({"db_size": "10GB", "n_threads": 32, "think_time_s": 0}), String::new())
        }
        Workload::Io => (
            serde_json::json!({"access": "16 KiB, 30% read, 100% random", "block_bytes": 16384}),
            "/d/io.dat".into(),
        ),
    };
    let targets = match workload {
        Workload::Tpcc | Workload::Io => vec![label],
        Workload::Ds2 => targets.iter().map(|t| format!("postgres://ds2@{t}:5432/ds2")).collect(),
    };
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: Tool { name: "oltpgen".into(), version: "0.1.0".into() },
        workload: workload.into(),
        written_descriptor: Some(workload.descriptor().clone()),
        started_at: "2025-06-01T12:00:00Z".into(),
        config,
        server: Server { engine: "postgres".into(), version: "15.18".into(), settings: BTreeMap::new() },
        targets,
        max_within_cap: max_within_cap(&steps),
        steps,
        timeseries,
        client: ClientCpu::new(3.0, 1.0, 246_000),
        errors_by_kind: BTreeMap::new(),
        interrupted: false,
        power: None,
        cost: None,
        counters: Vec::new(),
        endurance: None,

        runs: Vec::new(),
        outages: Vec::new(),
        fault: None,
        lost_commits: None,
        served_by: Vec::new(),
    }
}

/// Pixels of an RGBA or RGB screenshot within a small distance of colour `hex` (`#rrggbb`).
pub(crate) fn pixels_like(png_path: &Path, hex: &str) -> usize {
    pixels_like_in_rows(png_path, hex, 0..usize::MAX)
}

/// [`pixels_like`] in the screenshot's `rows` only (from the top, in pixels): what shows on the first
/// screen of a page, say.
pub(crate) fn pixels_like_in_rows(png_path: &Path, hex: &str, rows: std::ops::Range<usize>) -> usize {
    let rgb: Vec<u8> = (1..7)
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("a #rrggbb colour"))
        .collect();
    let decoder = png::Decoder::new(std::fs::File::open(png_path).expect("the screenshot exists"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let row_bytes = info.line_size;
    buf[..info.buffer_size()]
        .chunks(row_bytes)
        .enumerate()
        .filter(|(row, _)| rows.contains(row))
        .flat_map(|(_, line)| line.chunks(info.color_type.samples()))
        .filter(|px| px.iter().zip(&rgb).all(|(&a, &b)| a.abs_diff(b) <= 24))
        .count()
}

/// The installed Chromium, if any.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// Whether the browser half of a test can run: without Chromium it is skipped with a line saying
/// why, so the other tests still run on a fresh machine; under CI (`CI` set: .ci/run installs
/// Chromium) a missing browser fails the test instead.
pub(crate) fn browser_available() -> bool {
    if chromium().is_some() {
        return true;
    }
    let why = "headless Chromium is needed to check the charts are drawn: apt-get install chromium";
    assert!(std::env::var_os("CI").is_none(), "{why} (.ci/run installs it)");
    eprintln!("skipped: the report's screenshot: {why}");
    false
}

/// Screenshots `page` into `shot` at 1,200 × 5,000 pixels.
pub(crate) fn screenshot(page: &Path, shot: &Path, profile: &Path) {
    headless(
        page,
        profile,
        &[format!("--screenshot={}", shot.display()), "--window-size=1200,5000".into()],
        None,
    );
    assert!(shot.exists(), "chromium wrote no screenshot of {}", page.display());
}

/// The page's DOM as headless Chromium parsed and laid it out (`--dump-dom`).
pub(crate) fn dom(page: &Path, profile: &Path) -> String {
    let out = page.with_extension("dom.html");
    headless(page, profile, &["--dump-dom".into()], Some(&out));
    std::fs::read_to_string(&out).expect("the dumped DOM")
}

/// Runs headless Chromium on `page` with `args`, its output into `stdout` when given, giving up after a
/// minute rather than hanging the test run.
fn headless(page: &Path, profile: &Path, args: &[String], stdout: Option<&Path>) {
    let out = match stdout {
        Some(file) => Stdio::from(std::fs::File::create(file).expect("the output file")),
        None => Stdio::null(),
    };
    let mut child = Command::new(chromium().expect("checked by browser_available"))
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("chromium can be waited for") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium took over a minute on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "chromium failed on {}: {status}", page.display());
}

#[test]
fn the_report_draws_its_charts_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let result = sweep();
    assert_eq!(
        result.max_within_cap.as_ref().map(|h| h.users),
        Some(16),
        "the fixture's last step breaks the cap"
    );
    let page = html::render(&result);
    assert_eq!(
        page.matches("<svg").count(),
        7,
        "two charts over time, two against users, a percentile chart per step"
    );

    // `oltpgen report html` renders the same page from result.json: the JSON round trip loses nothing.
    let json = dir.path().join("result.json");
    std::fs::write(&json, serde_json::to_string_pretty(&result).unwrap()).unwrap();
    let from_cli = dir.path().join("cli.html");
    let out = oltpgen(&["report", "html", json.to_str().unwrap(), "--out", from_cli.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(std::fs::read_to_string(&from_cli).unwrap(), page, "the CLI writes the same page");

    if !browser_available() {
        return;
    }
    let report = dir.path().join("report.html");
    std::fs::write(&report, &page).unwrap();
    let shot = dir.path().join("shot.png");
    screenshot(&report, &shot, &dir.path().join("chromium-profile"));

    // Each colour belongs to one kind of line, so each count proves its charts were drawn. Observed:
    // about 1,180, 630, 670, 880 and 4,300 (the mean and the p95 are each drawn on one chart, response
    // time against users: over time the page draws each transaction's own mean); the same page without
    // its lines and dots (legends and the FAIL verdict only) shows about 112, 56, 56, 212 and 56.
    let expected = [
        ("throughput", THROUGHPUT_COLOUR, 1_000),
        ("mean response time", AVG_COLOUR, 400),
        ("p95 response time", P95_COLOUR, 400),
        ("cap", CAP_COLOUR, 500),
        ("first percentile curve", TRANSACTION_COLOURS[0], 500),
    ];
    let seen: Vec<usize> = expected.iter().map(|(_, colour, _)| pixels_like(&shot, colour)).collect();
    eprintln!("screenshot pixels by colour: {seen:?}");
    for ((what, colour, least), seen) in expected.into_iter().zip(seen) {
        assert!(
            seen >= least,
            "the {what} lines ({colour}) are drawn: {seen} pixels, expected at least {least}"
        );
    }
}

/// The report commands on files: `report html --out DIR/` writes report.html into it; `report merge`
/// refuses a result given twice (it would double the throughput) and an `--out` holding a result.
#[test]
fn report_commands_write_where_asked_and_merge_each_result_once() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("result.json");
    std::fs::write(&json, serde_json::to_string_pretty(&sweep()).unwrap()).unwrap();
    let json = json.to_str().unwrap();
    let html_dir = dir.path().join("html");
    for out in [format!("{}/", html_dir.display()), html_dir.display().to_string()] {
        let done = oltpgen(&["report", "html", json, "--out", &out]);
        assert_eq!(done.code, 0, "{}", done.all());
        assert!(html_dir.join("report.html").is_file(), "{}", done.all());
        std::fs::remove_file(html_dir.join("report.html")).unwrap();
    }

    let merged = dir.path().join("merged");
    let merged = merged.to_str().unwrap();
    let twice = oltpgen(&["report", "merge", json, json, "--out", merged]);
    assert_refused(&twice, "result 2 is the same run as result 1: a result merges once");
    let copy = dir.path().join("copy.json");
    std::fs::copy(json, &copy).unwrap();
    assert_refused(&oltpgen(&["report", "merge", json, copy.to_str().unwrap(), "--out", merged]), "same run");
    let held = dir.path().to_str().unwrap();
    assert_refused(
        &oltpgen(&["report", "merge", json, copy.to_str().unwrap(), "--out", held]),
        "already holds a result: name another directory, or pass --replace",
    );
}
