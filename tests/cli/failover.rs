//! Through a failover: a throwaway PostgreSQL primary and its streaming standby (`pg_basebackup -R`),
//! driven through a URL that names both with `target_session_attrs=read-write`; the primary is stopped
//! mid-run and the standby promoted. The run must go on on the new primary, the outage be in its
//! result, and the database there pass its checks.

use std::process::Command;

use crate::common::{assert_matches_schema, assert_refused, data_dir, finish, oltpgen, result_json, spawn};
use crate::pair::{Pair, run_orders};

#[test]
fn a_tpcc_run_follows_the_primary_through_a_synchronous_failover() {
    let pair = Pair::start(true);
    pair.load("tpcc", &["--scale", "1"]);
    let run = [
        "--duration",
        "40s",
        "--warmup",
        "1s",
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--users",
        "4",
        "--report-interval",
        "5s",
    ];
    assert_follows_the_primary(&pair, "tpcc", &run);
}

#[test]
fn a_ds2_run_follows_the_primary_through_a_synchronous_failover() {
    let pair = Pair::start(true);
    pair.load("ds2", &["--db-size", "10mb"]);
    let run = [
        "--run-time",
        "40s",
        "--warmup-time",
        "1s",
        "--think-time",
        "0",
        "--n-threads",
        "4",
        "--report-rate",
        "5",
    ];
    assert_follows_the_primary(&pair, "ds2", &run);
}

/// Runs `workload` (its database `workload` loaded on the primary) with `args` through the URL of
/// both servers, failing over by `--fault-cmd` 15 s in: the run goes on on the new primary, the fault
/// and the outage are in the result and said at the end, and the new primary passes the checks.
fn assert_follows_the_primary(pair: &Pair, workload: &str, args: &[&str]) {
    let out_dir = pair.dir().join("result");
    let (url, cmd) = (pair.url(workload), pair.fail_over_cmd("true"));
    let mut all = vec![workload, "run", "--url", &url, "--out", out_dir.to_str().unwrap()];
    all.extend(args);
    all.extend(["--fault-at", "15s", "--fault-cmd", &cmd]);
    let out = finish(spawn(&all));
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    // The figures BENCHMARKS.md quotes (`cargo test --test cli failover:: -- --nocapture --test-threads 1`).
    let said: oltpgen_report::model::RunResult = serde_json::from_value(r.clone()).unwrap();
    eprintln!("{workload}, synchronous: {:?}", said.failover_sentences());
    let outages =
        r["outages"].as_array().unwrap_or_else(|| panic!("no outage in the result:\n{}", out.all()));
    assert_eq!(outages.len(), 1, "{outages:?}");
    let o = &outages[0];
    let lost = o["lost_s"].as_f64().unwrap();
    let fault = &r["fault"];
    assert!(fault["failed"].is_null(), "the fault's command ended well: {fault}");
    let fault_at = fault["at_s"].as_f64().unwrap();
    assert!((15.0..16.0).contains(&fault_at), "--fault-at 15s: {fault}");
    assert!((fault_at..fault["ended_s"].as_f64().unwrap() + 1.0).contains(&lost), "{o} {fault}");
    let log = std::fs::read_to_string(out_dir.join("hooks.log")).unwrap();
    assert!(log.contains("--fault-cmd") && log.contains("server promoted"), "{log}");
    let again = o["committed_again_s"].as_f64().unwrap_or_else(|| panic!("never committed again: {o}"));
    assert!(again > lost, "{o}");
    assert!(o["recovered_s"].as_f64().is_some(), "throughput came back: {o}");
    assert!(o["failed"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum::<u64>() > 0, "{o}");
    let said =
        out.stdout.contains("failover at ") && out.stdout.contains("fault command (--fault-cmd) at 15.");
    assert!(said, "{}", out.stdout);
    // The step lost connections in its window (INVALID as a throughput figure), but the planned fault's
    // outage is what this study measures: the run did its work (exit 0), nothing "not measured".
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("INVALID"), "connections lost in the window: not a throughput figure");
    assert!(!out.stderr.contains("nothing was measured"), "{}", out.stderr);
    // The database's counters start again on the new primary: no negative rate across the failover.
    let db_commits = r["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["source"].as_str().unwrap().starts_with("db:") && c["name"] == "commits_per_s");
    let points = db_commits.unwrap_or_else(|| panic!("no database counters: {}", r["counters"]))["points"]
        .as_array()
        .unwrap();
    assert!(points.iter().all(|p| p[1].as_f64().unwrap() >= 0.0), "{points:?}");
    assert!(
        points.iter().any(|p| p[0].as_f64().unwrap() > again + 5.0),
        "read on the new primary too: {points:?}"
    );
    // Which server answered: the primary from the start, the promoted standby after the failover.
    let served: Vec<(f64, &str)> = r["served_by"]
        .as_array()
        .unwrap_or_else(|| panic!("no served_by: {}", r["served_by"]))
        .iter()
        .map(|s| (s["from_s"].as_f64().unwrap(), s["server"].as_str().unwrap()))
        .collect();
    let (primary, standby) = (format!("127.0.0.1:{}", pair.ports[0]), format!("127.0.0.1:{}", pair.ports[1]));
    assert_eq!(served.len(), 2, "{served:?}");
    assert_eq!((served[0].0, served[0].1), (0.0, primary.as_str()), "{served:?}");
    assert_eq!(served[1].1, standby, "{served:?}");
    assert!(served[1].0 >= lost, "the new primary serves after the outage began: {served:?}");
    assert!(out.stdout.contains(&format!("served by {standby} from ")), "{}", out.stdout);
    let lost = &r["lost_commits"];
    assert_eq!(lost["lost"], 0, "synchronous replication loses no acknowledged commit: {lost}");
    assert!(lost["checked"].as_u64().unwrap() > 100, "{lost}");
    assert!(out.stdout.contains("acknowledged commits lost: 0 of "), "{}", out.stdout);
    // The new primary holds every commit and passes the checks, the run's acknowledged orders too.
    let result = out_dir.to_str().unwrap();
    let check = oltpgen(&[workload, "check", "--url", &pair.url_of(1, workload), "--result", result]);
    assert_eq!(check.code, 0, "{}", check.all());
    let checked = r["lost_commits"]["checked"].as_u64().unwrap_or_else(|| panic!("{}", r["lost_commits"]));
    let zero = format!("acknowledged commits lost: 0 of {checked} orders acknowledged");
    assert!(check.stdout.contains(&zero), "{}", check.stdout);
}

#[test]
fn a_planned_fault_needs_its_moment_its_command_and_an_out() {
    assert_refused(
        &oltpgen(&["tpcc", "run", "--temp-db", "--fault-at", "60s", "--fault-cmd", "true"]),
        "--fault-cmd logs its output into the result's directory: give it with --out DIR",
    );
    let out = oltpgen(&["tpcc", "run", "--temp-db", "--fault-cmd", "true", "--out", "/nonexistent/x"]);
    assert_refused(&out, "--fault-at");
    // Every other input given, so that only the moment can be refused: bare `tpcc` loads --temp-db and
    // runs (`tpcc run --temp-db` is refused for its empty database), into --out; with `--fault-at 1s`
    // the same command runs.
    let keep = tempfile::tempdir().unwrap();
    let dir = keep.path().join("r");
    let d = dir.to_str().unwrap();
    let out = oltpgen(&["tpcc", "--temp-db", "--fault-at", "0s", "--fault-cmd", "true", "--out", d]);
    assert_refused(&out, "invalid value '0s' for '--fault-at <DURATION>': must be longer than 0");
    assert!(!dir.exists(), "nothing written for a refused run");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_asynchronous_failover_loses_acknowledged_commits_and_the_run_says_which() {
    let pair = Pair::start(false);
    pair.load("tpcc", &["--scale", "1"]);
    let out_dir = pair.dir().join("result");
    let pid_file = pair.dir().join("walreceiver.pid");
    // The standby's WAL receiver, stopped 8 s before the fault, lets the primary run ahead; once the
    // primary is gone it is killed with what sat unread in its socket (the standby restarts its
    // recovery from what it wrote), and the standby is promoted without the rest.
    let cmd = pair.fail_over_cmd(&pair.drop_unread_wal_cmd(&pid_file));
    let url = pair.url("tpcc");
    let run = spawn(&[
        "tpcc",
        "run",
        "--url",
        &url,
        "--out",
        out_dir.to_str().unwrap(),
        "--duration",
        "40s",
        "--warmup",
        "1s",
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--users",
        "4",
        "--report-interval",
        "5s",
        "--fault-at",
        "20s",
        "--fault-cmd",
        &cmd,
    ]);
    tokio::time::sleep(std::time::Duration::from_secs(12)).await;
    pair.hold_back_standby(&pid_file).await;
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    let lost = &r["lost_commits"];
    let said: oltpgen_report::model::RunResult = serde_json::from_value(r.clone()).unwrap();
    eprintln!("tpcc, asynchronous: {:?}", said.failover_sentences());
    let reported = lost["lost"].as_u64().unwrap_or_else(|| panic!("no comparison: {}", out.all()));
    assert!(reported > 0, "the standby was held back: commits were lost: {lost}\n{}", out.all());
    assert_eq!(out.code, 1, "a lost commit fails the run: {}", out.all());
    assert!(out.stderr.contains(&format!("acknowledged commits lost: {reported} of ")), "{}", out.stderr);
    // Each one listed is missing on the new primary (or another order holds its id), by our own query.
    let new = run_orders(&pair.url_of(1, "tpcc")).await;
    let first = lost["first"].as_array().unwrap();
    assert_eq!(first.len() as u64, reported.min(10));
    for listed in first {
        let text = listed.as_str().unwrap();
        let num = |key: &str| -> i32 {
            let at = text.find(key).unwrap() + key.len();
            text[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
        };
        let key = (num("w_id="), num("d_id="), num("o_id="));
        let held = new.get(&key).copied();
        assert!(held != Some((num("c_id="), num(", "))), "{text} is on the new primary as acknowledged");
    }
    // The old primary holds every commit it made: those the new one lacks, beyond what the run
    // reported, are at most the transactions in flight when it went (one per user), never acknowledged.
    pair.restart_old_primary();
    let old = run_orders(&pair.url_of(0, "tpcc")).await;
    let truly_lost = old.iter().filter(|(k, v)| new.get(*k) != Some(*v)).count() as u64;
    assert!(truly_lost >= reported, "{truly_lost} orders lost, {reported} reported");
    assert!(truly_lost - reported <= 4, "{truly_lost} orders lost, {reported} reported: more than in flight");
    // Checked again later from the result's directory: the same loss, the same verdict.
    let check =
        oltpgen(&["tpcc", "check", "--url", &pair.url_of(1, "tpcc"), "--result", out_dir.to_str().unwrap()]);
    assert_eq!(check.code, 1, "{}", check.all());
    let checked = lost["checked"].as_u64().unwrap();
    let sentence = format!("acknowledged commits lost: {reported} of {checked} orders acknowledged");
    assert!(check.stderr.contains(&sentence), "{}", check.all());
}

#[test]
fn check_result_needs_a_result_of_its_workload_with_its_acknowledged_orders() {
    let (keep, _root) = data_dir();
    let dir = keep.path().join("r");
    let d = dir.to_str().unwrap();
    let out = oltpgen(&["tpcc", "check", "--temp-db", "--result", d]);
    assert_refused(&out, "no result.json there: name the directory of a run's result (its --out)");
    std::fs::create_dir(&dir).unwrap();
    let mut result = crate::report_html::sweep();
    std::fs::write(dir.join("result.json"), serde_json::to_string(&result).unwrap()).unwrap();
    assert_refused(&oltpgen(&["tpcc", "check", "--temp-db", "--result", d]), "cannot read acks.bin");
    // A DS2 run's result, as one reads: its workload and the descriptor it carries.
    result.workload = oltpgen_report::model::Workload::Ds2.into();
    result.written_descriptor = Some(oltpgen_report::model::Workload::Ds2.descriptor().clone());
    std::fs::write(dir.join("result.json"), serde_json::to_string(&result).unwrap()).unwrap();
    let out = oltpgen(&["tpcc", "check", "--temp-db", "--result", d]);
    assert_refused(&out, "a ds2 run's result: check it with `oltpgen ds2 check --result`");
    std::fs::write(dir.join("acks.bin"), "w_id,d_id\n").unwrap();
    assert_refused(
        &oltpgen(&["ds2", "check", "--temp-db", "--result", d]),
        "acks.bin is not a file of acknowledged orders",
    );
}

/// The SIGINT race: a run stopped at any moment of its start, while the machine is busy, exits 130 and
/// either leaves its result in `--out` (the run had begun: its live header was said) or says that
/// nothing was measured and leaves no result at all. Each stop is counted from the moment oltpgen
/// handles SIGINT (before that the signal's default action ends any program).
#[test]
fn sigint_at_any_moment_of_a_start_leaves_a_result_or_says_nothing_was_measured() {
    let (keep, root) = data_dir();
    let load = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(load.code, 0, "{}", load.all());
    let busy = Busy::start(2);
    let quick = ["--duration", "10m", "--warmup", "1s", "--users", "2", "--report-interval", "1s"];
    let mut trial = 0;
    let mut stop_at = |args: &[&str], after_ms: u64| {
        trial += 1;
        let out_dir = keep.path().join(format!("out{trial}"));
        let run = spawn(&[args, &["--out", out_dir.to_str().unwrap()], &quick[..]].concat());
        wait_for_sigint_handler(run.id());
        std::thread::sleep(std::time::Duration::from_millis(after_ms));
        assert!(Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap().success());
        let out = finish(run);
        let at = format!("SIGINT {after_ms} ms into `{}`", args.join(" "));
        assert_eq!(out.code, 130, "{at}:\n{}", out.all());
        assert!(!out.all().contains("panicked"), "{at}:\n{}", out.all());
        let began = out.stdout.contains("running tpcc on");
        if out_dir.join("result.json").exists() {
            let r = result_json(&out_dir);
            assert_matches_schema(&r);
            assert_eq!(r["interrupted"], true, "{at}");
        } else {
            assert!(!began, "{at}: the run began, yet no result.json:\n{}", out.all());
            assert!(out.stderr.contains("nothing was measured"), "{at}:\n{}", out.all());
            let left: Vec<_> = std::fs::read_dir(&out_dir).map_or(Vec::new(), |d| d.flatten().collect());
            assert!(left.is_empty(), "{at}: a half-written result: {left:?}");
        }
    };
    for ms in [0, 30, 100, 300, 700, 1200, 1800, 2500, 3500] {
        stop_at(&["tpcc", "run", "--data-dir", &root], ms);
    }
    // Bare `tpcc` loads an empty database first: stopped while it starts its server or loads, nothing
    // was measured; on a loaded one it runs at once.
    for ms in [200, 1500] {
        let (_fresh, fresh_root) = data_dir();
        stop_at(&["tpcc", "--scale", "1", "--data-dir", &fresh_root], ms);
    }
    for ms in [0, 1500] {
        stop_at(&["tpcc", "--data-dir", &root], ms);
    }
    drop(busy);
}

/// Busy-loop threads keeping the machine's cores loaded until dropped.
struct Busy {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start(n: usize) -> Busy {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let threads = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.threads.drain(..).for_each(|t| t.join().unwrap());
    }
}

/// Waits until process `pid` catches SIGINT (bit 2 of `SigCgt` in its `/proc` status).
fn wait_for_sigint_handler(pid: u32) {
    for _ in 0..1000 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let caught = status.lines().find_map(|l| l.strip_prefix("SigCgt:")).map(str::trim);
        if caught.and_then(|m| u64::from_str_radix(m, 16).ok()).is_some_and(|m| m & (1 << 1) != 0) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    panic!("oltpgen never handled SIGINT");
}
