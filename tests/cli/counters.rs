//! Host and database counters on the run's clock, a real node_exporter (Debian's
//! `prometheus-node-exporter`), the live metrics endpoint checked by `promtool` (Debian's `prometheus`),
//! and a login without monitoring rights. Without those packages the parts that need them are skipped
//! with a line saying so; under CI (`CI` set: .ci/run installs them) they fail instead.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{
    Outcome, SECRET, assert_matches_schema, assert_no_secret, assert_refused, data_dir, finish, oltpgen,
    oltpgen_env, result_json, spawn, sql, start_server,
};

/// A port free now on 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Whether `program` is installed; without it the test's part that needs it is skipped with a line
/// saying so, except under CI, where it fails.
fn installed(program: &str, package: &str) -> bool {
    if Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success()) {
        return true;
    }
    let why = format!("{program} is needed: apt-get install {package}");
    assert!(std::env::var_os("CI").is_none(), "{why} (.ci/run installs it)");
    eprintln!("skipped: {why}");
    false
}

/// A node_exporter on a free port, stopped when dropped.
struct NodeExporter {
    child: Child,
    url: String,
}

impl NodeExporter {
    fn start() -> Option<NodeExporter> {
        if !installed("prometheus-node-exporter", "prometheus-node-exporter") {
            return None;
        }
        let addr = format!("127.0.0.1:{}", free_port());
        let child = Command::new("prometheus-node-exporter")
            .arg(format!("--web.listen-address={addr}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node_exporter starts");
        let exporter = NodeExporter { child, url: format!("http://{addr}/metrics") };
        let deadline = Instant::now() + Duration::from_secs(30);
        while get(&addr, "/metrics").is_none() {
            assert!(Instant::now() < deadline, "node_exporter never answered at {addr}");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(exporter)
    }
}

impl Drop for NodeExporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET path` from `addr`: the body of a 200 answer.
fn get(addr: &str, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// The series `name` of `source` in result `r`: its points.
fn series<'a>(r: &'a Value, source: &str, name: &str) -> &'a Vec<Value> {
    let all = r["counters"].as_array().expect("counters in result.json");
    let found = all.iter().find(|s| s["source"] == source && s["name"] == name);
    found.unwrap_or_else(|| panic!("no {source} {name} among {:?}", names(r)))["points"].as_array().unwrap()
}

fn names(r: &Value) -> Vec<String> {
    r["counters"].as_array().into_iter().flatten().map(|s| format!("{} {}", s["source"], s["name"])).collect()
}

/// The mean of the values of `points` at times within `range`.
fn mean(points: &[Value], range: std::ops::Range<f64>) -> Option<f64> {
    let values: Vec<f64> = points
        .iter()
        .filter(|p| range.contains(&p[0].as_f64().unwrap()))
        .map(|p| p[1].as_f64().unwrap())
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Scrapes the endpoint at `addr` until it reports completed transactions; returns that page.
fn scrape_mid_run(addr: &str, run: &mut Child) -> String {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        assert!(run.try_wait().unwrap().is_none(), "the run ended before its endpoint showed transactions");
        if let Some(page) = get(addr, "/metrics") {
            let done: f64 = page
                .lines()
                .filter(|l| l.starts_with("oltpgen_transactions_total{"))
                .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
                .sum();
            if done > 0.0 {
                return page;
            }
        }
        assert!(Instant::now() < deadline, "the endpoint never showed a transaction");
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// `promtool check metrics` on `page`: the text format, and Prometheus' naming conventions.
fn assert_promtool_accepts(page: &str) {
    if !installed("promtool", "prometheus") {
        return;
    }
    let out = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .output_with(page)
        .expect("promtool runs");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "promtool check metrics: {said}\n{page}");
}

trait OutputWith {
    fn output_with(&mut self, input: &str) -> Option<std::process::Output>;
}

impl OutputWith for Command {
    /// Runs the command with `input` on its standard input and waits for its output.
    fn output_with(&mut self, input: &str) -> Option<std::process::Output> {
        let mut child = self.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().ok()?;
        child.stdin.take()?.write_all(input.as_bytes()).ok()?;
        child.wait_with_output().ok()
    }
}

#[test]
fn host_and_database_counters_move_with_the_load_and_the_endpoint_serves_them_mid_run() {
    let Some(exporter) = NodeExporter::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("result");
    let metrics = format!("127.0.0.1:{}", free_port());
    let mut run = spawn(&[
        "tpcc",
        "--temp-db",
        "--scale",
        "1",
        "--users",
        "4",
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--ramp-up",
        "1s",
        "--warmup",
        "1s",
        "--duration",
        "8s",
        "--report-interval",
        "1s",
        "--idle-sample",
        "3s",
        "--node-exporter",
        &exporter.url,
        "--metrics-listen",
        &metrics,
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let page = scrape_mid_run(&metrics, &mut run);
    for family in ["oltpgen_users", "oltpgen_throughput", "oltpgen_latency_p95_seconds", "oltpgen_sampled"] {
        assert!(page.contains(&format!("# TYPE {family} gauge")), "{family} in:\n{page}");
    }
    assert!(page.contains("oltpgen_sampled{source=\"client\",name=\"cpu_pct\"}"), "{page}");
    assert_promtool_accepts(&page);
    assert_eq!(get(&metrics, "/elsewhere"), None, "only /metrics is served");

    let out = finish(run);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(!out.stderr.contains("warning: counters"), "everything was readable: {}", out.stderr);
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert_eq!(r["schema_version"], 4);
    let db = format!("db:{}", r["targets"][0].as_str().unwrap());
    let node = format!("node:{}", exporter.url);
    let window = &r["steps"][0]["window"];
    let (start, end) = (window["start_s"].as_f64().unwrap(), window["end_s"].as_f64().unwrap());

    // The database was idle during the idle sample (the points before 0 s) and busy in the window.
    let commits = series(&r, &db, "commits_per_s");
    let idle = mean(commits, -3.5..0.0).expect("commits sampled while idle");
    let busy = mean(commits, start + 1.0..end + 0.5).expect("commits sampled in the window");
    assert!(busy > 10.0 * idle.max(1.0), "commits rose from {idle:.1}/s idle to {busy:.1}/s");
    let written = mean(series(&r, &db, "tuples_written_per_s"), start + 1.0..end + 0.5).unwrap();
    assert!(written > 0.0, "New-Order and Payment write rows: {written}");
    assert!(mean(series(&r, &db, "wal_bytes_per_s"), start + 1.0..end + 0.5).unwrap() > 0.0);
    let hit = mean(series(&r, &db, "buffer_hit_pct"), start..end + 0.5).unwrap();
    assert!((50.0..=100.0).contains(&hit), "a warm scale-1 database is read from its buffers: {hit}");

    // CPU: the host's, seen from /proc and from the node_exporter, moves with the load. On a machine
    // already busy with other work the idle sample is no baseline: the rise is then only printed.
    for source in ["client", node.as_str()] {
        let cpu = series(&r, source, "cpu_pct");
        assert!(cpu.iter().all(|p| (0.0..=100.0).contains(&p[1].as_f64().unwrap())), "{source}: {cpu:?}");
        let (idle, busy) = (mean(cpu, -3.5..0.0).unwrap(), mean(cpu, start..end + 0.5).unwrap());
        if idle < 50.0 {
            assert!(busy > idle, "{source} CPU rose from {idle:.0}% idle to {busy:.0}% under load");
        } else {
            eprintln!("note: {source} CPU {idle:.0}% idle (the machine was busy) and {busy:.0}% under load");
        }
        let disks: Vec<String> = names(&r)
            .into_iter()
            .filter(|n| n.starts_with(&format!("\"{source}\" \"disk_")) && n.ends_with("_transfers_per_s\""))
            .collect();
        assert!(!disks.is_empty(), "{source} has a block device: {:?}", names(&r));
    }
    // Every point is on the run's clock, one per interval, from the idle sample to the run's end.
    let cpu = series(&r, "client", "cpu_pct");
    assert!(cpu.len() >= 10, "{cpu:?}");
    assert!(cpu.first().unwrap()[0].as_f64().unwrap() < 0.0, "the idle sample's points lie before 0 s");
    assert!(cpu.last().unwrap()[0].as_f64().unwrap() >= end - 1.0, "sampled until the run ended");

    // Per step, the averages the studies' tables quote.
    let averages = &r["steps"][0]["counters"];
    for key in [
        "client/cpu_pct".to_string(),
        format!("{node}/cpu_pct"),
        format!("{node}/mem_used_bytes"),
        format!("{db}/commits_per_s"),
        format!("{db}/buffer_hit_pct"),
    ] {
        assert!(averages[&key].as_f64().is_some(), "{key} in {averages}");
    }
    assert!(averages[format!("{db}/commits_per_s")].as_f64().unwrap() > 10.0 * idle.max(1.0));

    // counters.csv beside timeseries.csv: a row per point.
    let csv = std::fs::read_to_string(out_dir.join("counters.csv")).unwrap();
    let points: usize =
        r["counters"].as_array().unwrap().iter().map(|s| s["points"].as_array().unwrap().len()).sum();
    assert_eq!(csv.lines().next(), Some("elapsed_s,source,name,value"));
    assert_eq!(csv.lines().count(), points + 1);
    assert!(csv.contains(",client,cpu_pct,"), "{csv}");
    assert_eq!(
        std::fs::read_to_string(out_dir.join("timeseries.csv")).unwrap().lines().next(),
        Some("elapsed_s,users,txn,count,tps,avg_ms,p95_ms,errors"),
        "timeseries.csv keeps its columns"
    );
}

/// A short TPC-C run without think time (2 users, 4 s, a line a second) with `extra` flags, its result
/// written into `out_dir`.
fn short_run(extra: &[&str], out_dir: &Path, env: &[(&str, &str)]) -> Outcome {
    let quick =
        ["--users", "2", "--think-time", "0", "--keying-time", "0", "--warmup", "0s", "--duration", "4s"];
    let out = ["--report-interval", "1s", "--out", out_dir.to_str().unwrap()];
    oltpgen_env(&[&["tpcc"][..], extra, &quick, &out].concat(), env)
}

#[test]
fn an_unreachable_node_exporter_is_said_once_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("result");
    let nobody = format!("http://127.0.0.1:{}/metrics", free_port());
    let out = short_run(&["--temp-db", "--node-exporter", &nobody], &out_dir, &[]);
    assert_eq!(out.code, 0, "{}", out.all());
    let said: Vec<&str> = out.stderr.lines().filter(|l| l.contains(&nobody)).collect();
    assert_eq!(said.len(), 1, "said once: {}", out.stderr);
    assert!(
        said[0].starts_with("warning: counters: node:") && said[0].contains("cannot scrape"),
        "{}",
        said[0]
    );
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert!(!names(&r).iter().any(|n| n.contains("node:")), "nothing recorded for it: {:?}", names(&r));
    assert!(series(&r, "client", "cpu_pct").len() >= 3, "the other sources were sampled");
    let notes = r["config"]["counters_unavailable"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains(&nobody)), "{notes:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_login_without_monitoring_rights_still_completes_its_run() {
    let (keep, root) = data_dir();
    let server = start_server(&root);
    let admin = sql(&server.target("postgres")).await;
    admin.batch_execute(&format!("CREATE ROLE plain LOGIN PASSWORD '{SECRET}'")).await.unwrap();
    admin.batch_execute("CREATE DATABASE plaindb OWNER plain").await.unwrap();
    // A managed database's way: statistics views revoked from ordinary logins.
    let in_db = sql(&server.target("plaindb")).await;
    in_db.batch_execute("REVOKE SELECT ON pg_stat_bgwriter, pg_stat_wal FROM PUBLIC").await.unwrap();
    let url = format!("postgres://plain@127.0.0.1:{}/plaindb", server.port());
    let out_dir = keep.path().join("result");
    let out =
        tokio::task::spawn_blocking(move || short_run(&["--url", &url], &out_dir, &[("PGPASSWORD", SECRET)]))
            .await
            .unwrap();
    assert_eq!(out.code, 0, "the run completes:\n{}", out.all());
    assert_no_secret(&out);
    for view in ["pg_stat_bgwriter", "pg_stat_wal", "pg_read_all_stats"] {
        let said = out
            .stderr
            .lines()
            .filter(|l| l.starts_with("warning: counters: db:") && l.contains(view))
            .count();
        assert_eq!(said, 1, "{view} said once:\n{}", out.stderr);
    }
    let r = result_json(&keep.path().join("result"));
    assert_matches_schema(&r);
    let db = format!("db:{}", r["targets"][0].as_str().unwrap());
    assert!(!db.contains(SECRET));
    let commits = series(&r, &db, "commits_per_s");
    assert!(commits.iter().any(|p| p[1].as_f64().unwrap() > 0.0), "what it may read is read: {commits:?}");
    assert!(
        !names(&r).iter().any(|n| n.contains("wal_bytes") || n.contains("checkpoints")),
        "{:?}",
        names(&r)
    );
    let notes = r["config"]["counters_unavailable"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n.as_str().unwrap().contains("pg_stat_wal: permission denied")),
        "recorded as unavailable: {notes:?}"
    );
    drop((admin, in_db, server));
}

#[test]
fn bad_counter_flags_are_refused_before_anything_starts() {
    assert_refused(
        &oltpgen(&["tpcc", "--temp-db", "--node-exporter", "ftp://db1"]),
        "--node-exporter ftp://db1",
    );
    assert_refused(
        &oltpgen(&["tpcc", "--temp-db", "--node-exporter", &format!("http://me:{SECRET}@db1:9100")]),
        "credentials in the URL",
    );
    assert_refused(&oltpgen(&["tpcc", "--temp-db", "--metrics-listen", "db1"]), "--metrics-listen");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = oltpgen(&["tpcc", "--temp-db", "--metrics-listen", &addr]);
    assert_refused(&out, &format!("--metrics-listen {addr}: cannot listen there"));
    assert!(!out.stdout.contains("loaded"), "refused before the load: {}", out.stdout);
    assert_refused(
        &oltpgen(&["tpcc", "--temp-db", "--no-counters", "--node-exporter", "http://db1"]),
        "--no-counters",
    );
}

#[test]
fn two_runs_on_the_built_in_server_compare_their_database_counters() {
    // The built-in server takes a new port at every start: its counters are keyed by built-in/<db>.
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let out_dir = dir.path().join(name);
        let out = oltpgen(&[
            "tpcc",
            "--temp-db",
            "--scale",
            "1",
            "--users",
            "2",
            "--think-time",
            "0",
            "--keying-time",
            "0",
            "--warmup",
            "1s",
            "--duration",
            "3s",
            "--report-interval",
            "1s",
            "-q",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert_eq!(out.code, 0, "{}", out.all());
        assert_eq!(result_json(&out_dir)["targets"][0], "built-in/tpcc");
        out_dir
    };
    let (a, b) = (run("a"), run("b"));
    let out = oltpgen(&["report", "compare", a.to_str().unwrap(), b.to_str().unwrap(), "--json"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let c: Value = serde_json::from_str(&out.stdout).unwrap();
    let counters = c["steps"][0]["counters"].as_object().expect("the step's counters are compared");
    assert!(
        counters.keys().any(|k| k.starts_with("db:built-in/tpcc/")),
        "the database's counters match across the two runs: {counters:?}"
    );
}
