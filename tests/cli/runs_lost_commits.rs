//! Lost commits and "nothing measured" when the study's features meet (issue 35, items 1, 5, 8 and
//! 10's acknowledgements): a `--runs 2 --restore` study whose sessions are killed in run 1 compares
//! each run's acknowledged orders at that run's end (a restore hands the same ids out again), and
//! `check --result` compares only the last run's, saying so; a comparison that cannot be made fails the
//! run and is recorded as not measured; a run whose every step is INVALID exits 1; `report merge`
//! keeps the agents' acknowledged orders. On throwaway PostgreSQL servers.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use crate::common::server_with;
use crate::common::{assert_matches_schema, assert_no_secret, finish, oltpgen, result_json, spawn, sql};
use oltpgen_driver::Target;
use serde_json::Value;

/// Flat out, a cap no step breaks on a busy machine, a line a second, quiet.
#[rustfmt::skip]
const TPCC_PACE: [&str; 9] = [
    "--think-time", "0", "--keying-time", "0", "--rt-cap", "avg=10s", "--report-interval", "1s", "-q",
];

/// Rows of `orders` in `db`'s database, on a connection of its own (none is held between calls, so a
/// restore's clone is not declined for it); 0 while a restore has the table away.
async fn orders(db: &Target) -> i64 {
    let Ok((client, conn)) =
        oltpgen_driver::pg::target::config(db).unwrap().connect(tokio_postgres::NoTls).await
    else {
        return 0;
    };
    tokio::spawn(conn);
    client.query_one("SELECT count(*) FROM orders", &[]).await.map_or(0, |r| r.get(0))
}

/// Waits until the run has committed `n` orders beyond `loaded` in `db`: a run (not a restore, which
/// leaves `loaded`) is under way.
async fn wait_for_orders(db: &Target, loaded: i64, n: i64) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while orders(db).await < loaded + n {
        assert!(Instant::now() < deadline, "the run never committed {n} orders");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Terminates every client session on database `db` (the run's), from `admin` (on another database);
/// returns how many.
async fn kill_sessions(admin: &tokio_postgres::Client, db: &str) -> i64 {
    admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 \
             AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
            &[&db],
        )
        .await
        .unwrap()
        .get(0)
}

/// How many orders `dir`'s acks.bin holds (16 bytes each after a 16-byte header).
fn acks_in(dir: &Path) -> u64 {
    let len = std::fs::metadata(dir.join("acks.bin")).expect("acks.bin is written").len();
    (len - 16) / 16
}

/// Runs `workload` on database `db` (loaded by `load`, `loaded` orders) as a two-run study restored
/// before each run, with `run` flags, killing its sessions once while run 1 commits: nothing was lost,
/// so the study passes; run 1's orders were compared at its end (none lost), run 2 lost no connection
/// and compared nothing; `check --result` compares run 2's orders only and says so.
async fn assert_each_run_compared_at_its_end(workload: &str, db: &str, load: &[&str], run: &[&str]) {
    let (pg, urls) = server_with(&[db]).await;
    let out = oltpgen(&[&[workload, "load", "--url", &urls[0], "-q"][..], load].concat());
    assert_eq!(out.code, 0, "{}", out.all());
    let (admin, target) = (sql(&pg.target("postgres")).await, pg.target(db));
    let loaded = orders(&target).await;
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let study = ["--runs", "2", "--restore", "--out", result.to_str().unwrap()];
    let child = spawn(&[&[workload, "run", "--url", &urls[0]][..], run, &study].concat());
    wait_for_orders(&target, loaded, 40).await;
    // Past the 1 s warmup: in run 1's measured window.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(kill_sessions(&admin, db).await > 0, "the run's sessions were killed");
    let out = tokio::task::spawn_blocking(move || finish(child)).await.unwrap();
    assert_no_secret(&out);
    assert_eq!(out.code, 0, "{workload}: nothing was lost: {}", out.all());
    let r = result_json(&result);
    assert_matches_schema(&r);
    assert!(r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0) > 0, "{}", r["errors_by_kind"]);
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{r}");
    assert!(runs.iter().all(|run| run["restored"].is_object()), "{runs:?}");
    let first = &runs[0]["lost_commits"];
    assert_eq!(first["lost"], 0, "{workload}: run 1's orders compared before run 2's restore: {first}");
    let checked = first["checked"].as_u64().unwrap_or(0);
    assert!(checked > 0, "{first}");
    assert!(runs[1].get("lost_commits").is_none(), "run 2 lost no connection: {}", runs[1]);
    assert_eq!(&r["lost_commits"], first, "the study's figure is the runs' sum");
    let said = format!("run 1: acknowledged commits lost: 0 of {checked} orders acknowledged");
    assert!(out.stdout.contains(&said), "{}", out.stdout);
    // Run 1's step lost connections in its window, run 2's did not: the study measured something.
    let steps = r["steps"].as_array().unwrap();
    assert!(steps[0]["cap"]["invalid"].is_string(), "{}", steps[0]["cap"]);
    assert!(steps[1]["cap"]["invalid"].is_null(), "{}", steps[1]["cap"]);
    // Later, from the result's directory: only run 2's orders, which the database still holds.
    let last = acks_in(&result) - checked;
    assert!(last > 0, "run 2 acknowledged orders");
    let check = oltpgen(&[workload, "check", "--url", &urls[0], "--result", result.to_str().unwrap()]);
    assert_eq!(check.code, 0, "{}", check.all());
    let which = "comparing the last run's (run 2) acknowledged orders only: --restore put the database \
                 back before run 2";
    assert!(check.stdout.contains(which), "{}", check.stdout);
    let none = format!("acknowledged commits lost: 0 of {last} orders acknowledged");
    assert!(check.stdout.contains(&none), "{}", check.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restored_tpcc_study_killed_in_run_1_compares_each_run_at_its_end_and_loses_nothing() {
    let run = [&["--users", "4", "--warmup", "1s", "--duration", "8s"][..], &TPCC_PACE].concat();
    assert_each_run_compared_at_its_end("tpcc", "lost_runs_tpcc", &["--scale", "1"], &run).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restored_ds2_study_killed_in_run_1_compares_each_run_at_its_end_and_loses_nothing() {
    #[rustfmt::skip]
    let run = [
        "--n-threads", "4", "--run-time", "8s", "--warmup-time", "1s", "--think-time", "0",
        "--report-rate", "1", "--rt-cap", "order.avg=10s", "-q",
    ];
    assert_each_run_compared_at_its_end("ds2", "lost_runs_ds2", &["--db-size", "10mb"], &run).await;
}

/// A TPC-C run of 4 users for 8 s (1 s of warmup) on a new database `db` of a throwaway server, loaded
/// at scale 1; in its measured window, `during` (SQL on the database) runs, after the run's sessions
/// were killed when `kill`. The run must fail (exit 1), its last line starting with `said`: that line,
/// the result (matching the schema), and the directory holding it (as `result`).
async fn failed_run(db: &str, kill: bool, during: &str, said: &str) -> (String, Value, tempfile::TempDir) {
    let (pg, urls) = server_with(&[db]).await;
    crate::common::load_all(&urls);
    let (admin, target) = (sql(&pg.target("postgres")).await, pg.target(db));
    let loaded = orders(&target).await;
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let args = ["tpcc", "run", "--url", &urls[0], "--users", "4", "--warmup", "1s", "--duration", "8s"];
    let child = spawn(&[&args[..], &TPCC_PACE, &["--out", result.to_str().unwrap()]].concat());
    wait_for_orders(&target, loaded, 20).await;
    // Past the 1 s warmup: in the measured window.
    tokio::time::sleep(Duration::from_secs(2)).await;
    if kill {
        assert!(kill_sessions(&admin, db).await > 0, "the run's sessions were killed");
    }
    sql(&target).await.batch_execute(during).await.unwrap();
    let out = tokio::task::spawn_blocking(move || finish(child)).await.unwrap();
    assert_no_secret(&out);
    assert_eq!(out.code, 1, "{}", out.all());
    let last = out.stderr.lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with(said), "{}", out.stderr);
    let r = result_json(&result);
    assert_matches_schema(&r);
    (last, r, dir)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lost_commit_comparison_that_cannot_be_made_fails_the_run_and_is_recorded_not_measured() {
    // Connections lost, then the orders table gone: the run's end cannot read the orders back. A
    // comparison not made is no "nothing lost".
    let rename = "ALTER TABLE orders RENAME TO orders_away";
    let (last, r, dir) =
        failed_run("unmeasured", true, rename, "error: acknowledged commits lost: not measured: ").await;
    assert!(last.contains("orders"), "{last}");
    assert!(r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0) > 0, "{}", r["errors_by_kind"]);
    let why = r["lost_commits"]["not_measured"].as_str().unwrap_or_else(|| panic!("{}", r["lost_commits"]));
    assert!(why.contains("orders"), "{why}");
    let lost = &r["lost_commits"];
    assert!(lost.get("lost").is_none(), "no figure where none was measured: {lost}");
    assert_eq!(&r["runs"][0]["lost_commits"], lost);
    let show = oltpgen(&["report", "show", dir.path().join("result").to_str().unwrap()]);
    assert!(show.stdout.contains("acknowledged commits lost: not measured: "), "{}", show.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_whose_every_step_is_invalid_for_errors_exits_1_saying_nothing_was_measured() {
    // New-Order and Stock-Level fail from then on (no connection lost): far over 1% of the step.
    let rename = "ALTER TABLE stock RENAME TO stock_away";
    let said = "error: nothing was measured: the step is INVALID (step 1: ";
    let (last, r, _dir) = failed_run("nothing_measured", false, rename, said).await;
    assert!(last.contains("transactions failed"), "{last}");
    assert!(r["errors_by_kind"].get("connection_lost").is_none(), "{}", r["errors_by_kind"]);
    assert!(r["steps"][0]["transactions"]["payment"]["count"].as_u64().unwrap() > 0, "Payments committed");
    assert!(r["max_within_cap"].is_null(), "{}", r["max_within_cap"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn report_merge_keeps_the_agents_acknowledged_orders_for_check_result() {
    let (_pg, url) = crate::agents::loaded().await;
    let dir = tempfile::tempdir().unwrap();
    let parts = [0, 1].map(|i| dir.path().join(format!("agent{i}")));
    let start_at = humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_secs(6)).to_string();
    let agents: Vec<_> = (0..2)
        .map(|i| {
            let agent = format!("{i}/2");
            let args = ["tpcc", "run", "--url", &url, "--users", "4", "--warmup", "1s", "--duration", "3s"];
            let part = ["--agent", &agent, "--start-at", &start_at, "--out", parts[i].to_str().unwrap()];
            spawn(&[&args[..], &TPCC_PACE, &part].concat())
        })
        .collect();
    for (i, agent) in agents.into_iter().enumerate() {
        let out = finish(agent);
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
    }
    let merged = dir.path().join("merged");
    let [a, b, m] = [&parts[0], &parts[1], &merged].map(|p| p.to_str().unwrap());
    let out = oltpgen(&["report", "merge", a, b, "--out", m]);
    assert_eq!(out.code, 0, "{}", out.all());
    // Every part's orders, in the parts' order, each with its target and run as written.
    let bytes = |p: &Path| std::fs::read(p.join("acks.bin")).unwrap();
    let expected = [bytes(&parts[0]), bytes(&parts[1])[16..].to_vec()].concat();
    assert_eq!(bytes(&merged), expected, "the parts' acks.bin, one after the other");
    let all = acks_in(&merged);
    assert!(all > 0, "the agents acknowledged orders");
    let check = oltpgen(&["tpcc", "check", "--url", &url, "--result", m]);
    assert_eq!(check.code, 0, "{}", check.all());
    let none = format!("acknowledged commits lost: 0 of {all} orders acknowledged");
    assert!(check.stdout.contains(&none), "{}", check.stdout);
}
