//! `tpcc run` and bare `tpcc`: results, their schema, consistency after load, and faults (killed
//! connections, a restarted server, Ctrl-C).

use std::path::Path;
use std::process::{Child, Command};

use oltpgen_driver::local::LocalPg;

use crate::common::{
    assert_matches_schema, assert_no_secret, assert_refused, assert_survives_kills_and_a_restart, attach,
    data_dir, finish, oltpgen, result_json, spawn, sql, wait_for_load,
};
use crate::figures::{assert_client_cpu, assert_figures_from_counts};

/// Flat out, 6 users over two client threads (each with its share of the users and connections).
#[rustfmt::skip]
const SATURATE: [&str; 12] = [
    "--think-time", "0", "--keying-time", "0", "--warmup", "1s", "--report-interval", "2s", "--users", "6",
    "--client-threads", "2",
];

fn assert_consistent(root: &str) {
    let out = oltpgen(&["tpcc", "check", "--data-dir", root]);
    assert_eq!(out.code, 0, "the database is consistent after the run:\n{}", out.all());
    assert!(out.stdout.contains("3.3.2.11  n/a"), "3.3.2.11 applies only before a run: {}", out.stdout);
}

#[test]
fn bare_tpcc_loads_runs_writes_a_valid_result_and_leaves_the_database_consistent() {
    let (keep, root) = data_dir();
    let out_dir = keep.path().join("result");
    let args = [
        &[
            "tpcc",
            "--scale",
            "1",
            "--duration",
            "6s",
            "--data-dir",
            &root,
            "--out",
            out_dir.to_str().unwrap(),
        ][..],
        &SATURATE,
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("loaded tpcc scale 1"), "an empty database is loaded first: {}", out.stdout);
    assert!(out.stdout.contains("NOPM"), "the live line: {}", out.stdout);
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    let step = &r["steps"][0];
    assert_eq!(step["users"], 6);
    assert_figures_from_counts(step);
    assert_client_cpu(&r);
    assert!(step["tps"].as_f64().unwrap() > 10.0, "{step}");
    for txn in ["new_order", "payment", "order_status", "delivery", "stock_level"] {
        assert!(step["transactions"][txn]["count"].as_u64().unwrap() > 0, "{txn} ran");
        assert!(step["transactions"][txn]["histogram"].as_str().is_some_and(|h| !h.is_empty()));
    }
    assert_eq!(r["config"]["think_time"], "off");
    assert_eq!(r["config"]["client_threads"], 2, "the client threads the run used");
    assert!(r["client"]["client_cpu_us_per_txn"].as_f64().unwrap() > 0.0);
    assert!(std::fs::read_to_string(out_dir.join("summary.txt")).unwrap().contains("new_order"));
    assert!(
        std::fs::read_to_string(out_dir.join("report.html")).unwrap().contains("<svg"),
        "report.html is written"
    );
    assert_consistent(&root);

    // Another scale than the one loaded is refused, naming both.
    let out = oltpgen(&["tpcc", "--scale", "2", "--duration", "5s", "--data-dir", &root]);
    assert_refused(&out, "holds tpcc at scale 1 but --scale 2 was asked");
    // More connections than the server can take are refused before anything starts.
    let out = oltpgen(&[
        "tpcc",
        "run",
        "--users",
        "5000",
        "--data-dir",
        &root,
        "--url",
        "postgres://x@127.0.0.1:1/x",
    ]);
    assert_refused(&out, "cannot be used with");
}

#[tokio::test(flavor = "multi_thread")]
async fn more_users_than_connections_share_a_pool_and_too_many_are_refused() {
    let pg = LocalPg::start(&oltpgen_driver::local::Placement::Temp, 40, &crate::common::test_stderr())
        .expect("a server");
    let url = pg.url("tpcc");
    let client = sql(&pg.target("postgres")).await;
    client.batch_execute("CREATE DATABASE tpcc").await.unwrap();
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--url", &url, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = oltpgen(&["tpcc", "run", "--users", "60", "--url", &url, "--duration", "5s"]);
    assert_refused(&out, "and this run needs 60: share fewer with --connections");
    let dir = tempfile::tempdir().unwrap();
    let args = [
        &[
            "tpcc",
            "run",
            "--url",
            &url,
            "--duration",
            "4s",
            "--connections",
            "3",
            "--out",
            dir.path().to_str().unwrap(),
            "-q",
        ][..],
        &SATURATE,
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(dir.path());
    assert_eq!((r["steps"][0]["users"].as_u64(), r["steps"][0]["connections"].as_u64()), (Some(6), Some(3)));
    assert_eq!(r["config"]["client_threads"], 2, "three connections split over two threads");
    assert!(r["steps"][0]["tps"].as_f64().unwrap() > 10.0);
}

/// A scale-1 database in its own data directory, and a saturating run on it that is under way.
struct RunUnderWay {
    _keep: tempfile::TempDir,
    root: String,
    out_dir: std::path::PathBuf,
    run: Child,
}

/// Loads, starts `tpcc run --duration <duration>` in the background, and returns once its users are
/// connected and running, with a connection of the test's own to the same server.
async fn run_under_way(duration: &str) -> (RunUnderWay, LocalPg, tokio_postgres::Client) {
    let (keep, root) = data_dir();
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out_dir = keep.path().join("result");
    let (run, observer, client) = start_run(&root, &out_dir, duration).await;
    (RunUnderWay { _keep: keep, root, out_dir, run }, observer, client)
}

/// Starts a saturating `tpcc run --duration <duration>` on the database loaded at `root`, and returns
/// once its users are connected and running, with a connection of the test's own to the same server.
async fn start_run(
    root: &str,
    out_dir: &std::path::Path,
    duration: &str,
) -> (Child, LocalPg, tokio_postgres::Client) {
    let args = [
        &["tpcc", "run", "--duration", duration, "--data-dir", root, "--out", out_dir.to_str().unwrap()][..],
        &SATURATE,
    ]
    .concat();
    let run = spawn(&args);
    let observer = attach(root).await;
    let client = sql(&observer.target("postgres")).await;
    wait_for_load(&client, "tpcc", 6).await;
    (run, observer, client)
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_connections_and_a_restarted_server_are_survived_and_counted() {
    let (RunUnderWay { _keep, root, out_dir, run }, observer, client) = run_under_way("10m").await;
    drop(client);
    assert_survives_kills_and_a_restart(observer, &root, "tpcc", 6, run, &out_dir, "new_order").await;
    assert_consistent(&root);
}

/// Ctrl-C, SIGTERM (a timeout, systemd, a CI cancel) and SIGHUP (a closed ssh session) each stop a run
/// cleanly: the result of what ran is written, the built-in server is stopped, the exit code is 128 +
/// the signal.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_sigterm_and_sighup_write_what_ran_and_exit_128_plus_the_signal() {
    let (RunUnderWay { _keep, root, out_dir, run }, observer, client) = run_under_way("10m").await;
    let mut under_way = Some((run, observer, client));
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let (out_dir, (run, observer, client)) = match under_way.take() {
            Some(first) => (out_dir.clone(), first),
            None => {
                let dir = out_dir.with_extension(signal);
                (dir.clone(), start_run(&root, &dir, "10m").await)
            }
        };
        drop((client, observer));
        let status =
            Command::new("kill").args([&format!("-{signal}"), &run.id().to_string()]).status().unwrap();
        assert!(status.success());
        let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
        assert_eq!(out.code, code, "SIG{signal}: {}", out.all());
        assert!(out.stderr.contains("interrupted"), "{}", out.stderr);
        let r = result_json(&out_dir);
        assert_matches_schema(&r);
        assert_eq!(r["interrupted"], true);
        assert!(r["steps"][0]["transactions"]["new_order"]["count"].as_u64().unwrap() > 0);
        // The step the signal cut short was not measured as asked: it neither passes nor makes the headline.
        let verdict = &r["steps"][0]["cap"];
        assert_eq!(verdict["passed"], false, "SIG{signal}: {verdict}");
        assert_eq!(verdict["invalid"], "the run was stopped during the step", "SIG{signal}");
        assert!(r["max_within_cap"].is_null(), "SIG{signal}: {}", r["max_within_cap"]);
        assert!(out.stdout.contains("none, no step kept within the cap"), "SIG{signal}: {}", out.stdout);
        let out = oltpgen(&["local", "status", "--data-dir", &root]);
        assert!(out.stdout.contains("running:     no"), "SIG{signal} stopped the server: {}", out.stdout);
    }
    assert_consistent(&root);

    // A second Ctrl-C while the first one's clean stop goes on ends oltpgen at once.
    let (run, observer, client) = start_run(&root, &out_dir.with_extension("twice"), "10m").await;
    drop((client, observer));
    let pid = run.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    std::thread::sleep(std::time::Duration::from_millis(30));
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    let stopped = oltpgen(&["local", "stop", "--data-dir", &root]);
    assert_eq!(stopped.code, 0, "{}", stopped.all());
    assert_eq!(out.code, 130, "{}", out.all());
    assert!(out.stderr.contains("stopped at once (a second signal)"), "{}", out.stderr);
}

/// A server that goes away for good during a run: the run ends at its set time and writes what ran,
/// then says the server went away and cannot be reached (exit 1), rather than ending as a success.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_gone_for_good_fails_the_run_saying_so() {
    let (RunUnderWay { _keep, root, out_dir, run }, observer, client) = run_under_way("15s").await;
    drop((client, observer));
    let pid = std::fs::read_to_string(Path::new(&root).join("data/postmaster.pid")).unwrap();
    let pid = pid.lines().next().unwrap().to_string();
    // SIGINT to the postmaster: PostgreSQL's fast shutdown, as `pg_ctl stop` does it.
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(
        out.stderr.contains("the server went away during the run")
            && out.stderr.contains("still cannot be reached"),
        "{}",
        out.stderr
    );
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert!(r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0) > 0, "{}", r["errors_by_kind"]);
    assert_eq!(r["steps"][0]["cap"]["passed"], false, "{}", r["steps"][0]["cap"]);
    assert!(r["max_within_cap"].is_null());
}

/// result.json is written after every judged step: a run killed outright (SIGKILL, nothing to catch)
/// keeps the steps it judged.
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_sweep_keeps_the_steps_it_judged() {
    let (keep, root) = data_dir();
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out_dir = keep.path().join("result");
    let mut args = vec!["tpcc", "run", "--data-dir", &root, "--out", out_dir.to_str().unwrap(), "-q"];
    args.extend(["--think-time", "0", "--keying-time", "0", "--report-interval", "2s"]);
    args.extend(["--users", "2,4", "--duration", "6s", "--warmup", "0s"]);
    let mut run = spawn(&args);
    let written = out_dir.join("result.json");
    for _ in 0..600 {
        if written.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    run.kill().unwrap();
    let _ = run.wait();
    let stopped = oltpgen(&["local", "stop", "--data-dir", &root]);
    assert_eq!(stopped.code, 0, "{}", stopped.all());
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert_eq!(r["interrupted"], true, "a result written part-way says it is not the whole run");
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "the first step, judged before the kill: {steps:?}");
    assert_eq!(steps[0]["users"], 2);
    assert!(steps[0]["transactions"]["new_order"]["count"].as_u64().unwrap() > 0);

    // A meter's log that turns out unreadable at the end costs the power figures, not the result. Its
    // first lines are checked before the run: it turns bad during the run (the hook writes it).
    let log = keep.path().join("watts.csv");
    std::fs::write(&log, "").unwrap();
    let spoil = format!("echo \"not a meter's log\" > {}", log.display());
    let out_dir = keep.path().join("with-power");
    let mut args = vec!["tpcc", "run", "--data-dir", &root, "--out", out_dir.to_str().unwrap(), "-q"];
    args.extend([
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--users",
        "2",
        "--duration",
        "2s",
        "--warmup",
        "0s",
    ]);
    args.extend(["--power-log", log.to_str().unwrap(), "--before-run", &spoil]);
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stderr.contains("warning: --power-log"), "{}", out.stderr);
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert!(r["power"].is_null() && r["steps"][0]["tps"].as_f64().unwrap() > 0.0, "{r}");
}

/// The cap a sweep of 1, 2 and 128 users is judged by, from what two users measure on this machine now
/// (a debug build, a loaded machine): 8 times their mean response time. One and two users keep well
/// within it; 128 users cannot: Little's law puts their mean at 128 / TPS, over 8 × (2 / TPS of two
/// users) unless 128 users get 8 times the throughput of two out of one warehouse.
fn cap_from_two_users(root: &str, probe: &std::path::Path) -> String {
    let out = oltpgen(
        &[
            &["tpcc", "run", "--users", "2", "--duration", "3s", "--data-dir", root][..],
            &["--out", probe.to_str().unwrap(), "-q"],
            &SATURATE[..6],
        ]
        .concat(),
    );
    assert_eq!(out.code, 0, "{}", out.all());
    let rt_ms = result_json(probe)["steps"][0]["rt_avg_ms"].as_f64().unwrap();
    assert!(rt_ms > 0.0, "two users measured");
    format!("avg={}ms", (8.0 * rt_ms).ceil())
}

/// A three-step sweep whose last step cannot meet the cap (see [`cap_from_two_users`]).
#[test]
fn a_sweep_reports_the_highest_throughput_within_the_cap() {
    let (keep, root) = data_dir();
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let cap = cap_from_two_users(&root, &keep.path().join("probe"));
    let out_dir = keep.path().join("sweep");
    // A meter that reads 250 W every second, from before the run to well after it.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let log: String = (now - 10..now + 300).map(|t| format!("{t},250\n")).collect();
    let power_log = keep.path().join("watts.csv");
    std::fs::write(&power_log, format!("timestamp,watts\n{log}")).unwrap();
    let out = oltpgen(&[
        "tpcc",
        "--system-cost",
        "1000",
        "--power-log",
        power_log.to_str().unwrap(),
        "--scale",
        "1",
        "--users",
        "1,2,128",
        "--rt-cap",
        &cap,
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--warmup",
        "1s",
        "--duration",
        "4s",
        "--report-interval",
        "2s",
        "--data-dir",
        &root,
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    let steps = r["steps"].as_array().unwrap();
    let users: Vec<u64> = steps.iter().map(|s| s["users"].as_u64().unwrap()).collect();
    assert_eq!(users, [1, 2, 128]);
    steps.iter().for_each(assert_figures_from_counts);
    let verdicts: Vec<bool> = steps.iter().map(|s| s["cap"]["passed"].as_bool().unwrap()).collect();
    assert_eq!(verdicts, [true, true, false], "{}", out.stdout);
    // The headline is the passing step with the highest NOPM, TPC-C's headline figure (one or two
    // users: which one is faster depends on the machine), never the failing one.
    let best = (0..2)
        .max_by(|&a, &b| steps[a]["nopm"].as_f64().unwrap().total_cmp(&steps[b]["nopm"].as_f64().unwrap()));
    let best = best.unwrap();
    assert_eq!(r["max_within_cap"]["step_index"], best, "{}", r["max_within_cap"]);
    assert_eq!(r["max_within_cap"]["users"], steps[best]["users"]);
    assert_eq!(r["max_within_cap"]["tps"], steps[best]["tps"]);
    let (tps, nopm) = (steps[best]["tps"].as_f64().unwrap(), steps[best]["nopm"].as_f64().unwrap());
    assert_eq!(r["power"]["active_w"], 250.0);
    assert!(
        (r["power"]["per_watt"].as_f64().unwrap() - nopm / 250.0).abs() < 1e-9,
        "NOPM per watt at the headline"
    );
    assert!(
        (r["cost"]["per_tps_usd"].as_f64().unwrap() - 1000.0 / tps).abs() < 1e-9,
        "USD per TPS at the headline"
    );
    assert!(out.stdout.contains("step 3 (run 1): 128 users"), "a line per step: {}", out.stdout);
    assert!(
        out.stdout.contains("   3    1      128 "),
        "the final step table, as result.json has it: {}",
        out.stdout
    );
    let headline = out.stdout.lines().find(|l| l.starts_with("max NOPM within cap avg=")).unwrap_or_default();
    let at = format!(" at {} users (step {}), ", steps[best]["users"], best + 1);
    assert!(headline.contains(&at), "the headline, in NOPM, names its step: {}", out.stdout);
    assert_consistent(&root);
    assert_refused(&oltpgen(&["tpcc", "--users", "8,4", "--data-dir", &root]), "must not decrease");

    // --stop-after-breach 1 ends the sweep at the first step over the cap.
    let stopped = keep.path().join("stopped");
    let out = oltpgen(&[
        "tpcc",
        "run",
        "--users",
        "128,129,130",
        "--rt-cap",
        &cap,
        "--stop-after-breach",
        "1",
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--warmup",
        "1s",
        "--duration",
        "3s",
        "--data-dir",
        &root,
        "--out",
        stopped.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(&stopped);
    let users: Vec<u64> =
        r["steps"].as_array().unwrap().iter().map(|s| s["users"].as_u64().unwrap()).collect();
    assert_eq!(users, [128], "the sweep stopped after the first breach");
    assert!(r["max_within_cap"].is_null());
}

/// Two runs into one `--out` at once: the first claims the directory when it starts work, so the second
/// is refused at its start (naming the first's pid) rather than the first losing its result at the
/// end; the first writes its result and leaves no marker.
#[test]
fn a_second_run_into_the_same_out_is_refused_at_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("result");
    let out = out_dir.to_str().unwrap();
    // Flat out, so that its 3 s measure something (a run that completes nothing exits 1).
    let first = spawn(&[
        "tpcc",
        "--temp-db",
        "--scale",
        "1",
        "--users",
        "2",
        "--keying-time",
        "0",
        "--think-time",
        "0",
        "--duration",
        "3s",
        "--warmup",
        "0s",
        "--out",
        out,
    ]);
    let marker = out_dir.join(".oltpgen-writing");
    for _ in 0..600 {
        if marker.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let second = oltpgen(&["tpcc", "--temp-db", "--scale", "1", "--out", out]);
    let pid = first.id();
    let first = finish(first);
    assert_refused(&second, &format!("--out: {out} is being written by another oltpgen command (pid {pid})"));
    assert_eq!(first.code, 0, "{}", first.all());
    assert_eq!(result_json(&out_dir)["steps"][0]["users"], 2, "the first run's result is whole");
    assert!(!marker.exists(), "the marker goes when the run ends");
}

#[test]
fn a_run_into_a_closed_pipe_goes_on_to_its_end_and_keeps_its_result() {
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("result");
    // `oltpgen tpcc … | head -2`: the reader takes two lines and goes away.
    let mut child = spawn(&[
        "tpcc",
        "--temp-db",
        "--scale",
        "1",
        "--users",
        "2",
        "--duration",
        "3s",
        "--warmup",
        "0s",
        "--report-interval",
        "1s",
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout is piped"));
    for _ in 0..2 {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "a line before the pipe closes");
    }
    drop(stdout);
    let out = finish(child);
    assert_eq!(out.code, 0, "the run's own exit code, not a panic's: {}", out.stderr);
    assert_no_secret(&out);
    assert!(!out.stderr.contains("Broken pipe"), "{}", out.stderr);
    assert_eq!(result_json(&out_dir)["steps"][0]["users"], 2, "the result is whole");
}
