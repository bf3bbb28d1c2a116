//! The study cycle (issue 26): `--runs` repeating the whole sweep, each run put back to the loaded
//! database (`--restore`), hooked (`--before-run`, `--after-run`), idled (`--idle-sample`) and metered
//! on two power meters, the median run by the headline; a hook that fails; the flags' refusals (DS2's
//! own spellings among them). On a
//! throwaway PostgreSQL, and on the SQL Server CI exports (Babelfish).

use std::path::Path;

use serde_json::Value;

use crate::checksums;
use crate::common::server_with;
use crate::common::{
    MssqlDb, SECRET, assert_matches_schema, assert_no_secret, assert_refused,
    assert_two_runs_restored_from_the_generator, finish, mssql, mssql_int, mssql_turn, mssql_url, oltpgen,
    result_json, spawn, sql,
};
use crate::study_common::meters;

/// The hooks, each echoing what it was given into hooks.log.
const HOOKS: [&str; 4] = [
    "--before-run",
    "echo before run=$OLTPGEN_RUN targets=$OLTPGEN_TARGETS out=$OLTPGEN_OUT",
    "--after-run",
    "echo after run=$OLTPGEN_RUN",
];

/// Each run's headline in the per-minute `unit` (the best step within the cap, by OPM for DS2 and TPS
/// otherwise, as the headline ranks steps), by run number.
fn headlines(r: &Value, unit: &str) -> Vec<f64> {
    let steps = r["steps"].as_array().unwrap();
    let runs = r["runs"].as_array().unwrap().len() as u64;
    (1..=runs)
        .map(|run| {
            let merit = |s: &Value| s["opm"].as_f64().unwrap_or(s["tps"].as_f64().unwrap());
            steps
                .iter()
                .filter(|s| s["run"] == run && s["cap"]["passed"] == true)
                .max_by(|a, b| merit(a).total_cmp(&merit(b)))
                .map_or(0.0, |s| s[unit].as_f64().unwrap())
        })
        .collect()
}

/// What every three-run study must show: three runs, each restored with its own seed, idle for about
/// two seconds before it, starting from the same rows (`start_rows`), metered on both meters; the result's
/// power the median run's (by `unit`), the lines saying so in summary.txt, `report show` and report.html;
/// the hooks run before and after each run, in order, told their run, targets and directory.
#[track_caller]
fn assert_study(dir: &Path, unit: &str, start_rows: &Value) {
    let r = result_json(dir);
    assert_matches_schema(&r);
    assert_eq!(r["interrupted"], false);
    assert_eq!(r["config"]["runs"], 3);
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{r}");
    let seeds: std::collections::BTreeSet<u64> = runs.iter().map(|x| x["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds.len(), 3, "each run its own seed: {seeds:?}");
    let mut last_start = -1.0;
    for (i, run) in runs.iter().enumerate() {
        assert_eq!(run["run"], i + 1);
        assert_eq!(run["restored"]["method"], "generator", "{run}");
        assert_eq!(&run["start_rows"], start_rows, "every run from the loaded rows: {run}");
        let [a, b] = [0, 1].map(|k| run["idle_window_s"][k].as_f64().unwrap());
        assert!((1.9..4.0).contains(&(b - a)), "idle for two seconds before every run: {run}");
        assert!(run["idle_counters"]["client/cpu_pct"].is_number(), "the counters at rest: {run}");
        let start = run["start_s"].as_f64().unwrap();
        assert!(start > last_start, "runs one after the other on one clock: {runs:?}");
        last_start = start;
        let meters = &run["meters"];
        let (server, storage) = (&meters["server"], &meters["storage"]);
        assert_eq!(server["active_w"], 300.0, "{run}");
        assert_eq!(server["idle_w"], 300.0, "{run}");
        let total = 300.0 + storage["active_w"].as_f64().unwrap();
        assert!(
            (run["power"]["active_w"].as_f64().unwrap() - total).abs() < 1e-6,
            "the meters add up: {run}"
        );
    }
    // Run k's steps lie inside its own span of the clock, after its start.
    for s in r["steps"].as_array().unwrap() {
        let run = &runs[s["run"].as_u64().unwrap() as usize - 1];
        assert!(s["window"]["start_s"].as_f64().unwrap() >= run["start_s"].as_f64().unwrap(), "{s}");
    }
    // The median run by the headline stands for the study: its power, its headline.
    let heads = headlines(&r, unit);
    let mut order = [0, 1, 2];
    order.sort_by(|&a, &b| heads[a].total_cmp(&heads[b]));
    let median = &runs[order[1]];
    assert_eq!(r["power"], median["power"], "the study's power is the median run's ({heads:?})");
    let active: Vec<f64> = runs.iter().map(|x| x["power"]["active_w"].as_f64().unwrap()).collect();
    assert!(
        active[0] < active[1] && active[1] < active[2],
        "each run metered over its own window: {active:?}"
    );
    let index = r["max_within_cap"]["step_index"].as_u64().unwrap() as usize;
    assert_eq!(r["steps"][index]["run"], median["run"], "the headline is the median run's");
    // Said beside the headline, in every rendering.
    let median_run = median["run"].as_u64().unwrap();
    let said = format!("power (run {median_run}): ");
    let summary = std::fs::read_to_string(dir.join("summary.txt")).unwrap();
    let show = oltpgen(&["report", "show", dir.to_str().unwrap()]);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    for text in [&summary, &show.stdout, &html] {
        assert!(
            text.contains(&said)
                && text.contains(&format!("{unit_upper} per watt", unit_upper = unit.to_uppercase())),
            "{text}"
        );
        assert!(text.contains("cost: $1,000.00 system"), "{text}");
        assert!(
            text.contains(&format!("the median is run {median_run}; each restored first (generator)")),
            "{text}"
        );
    }
    // The hooks, before and after each run, in order, told their run, databases and directory.
    let log = std::fs::read_to_string(dir.join("hooks.log")).unwrap();
    let said: Vec<&str> = log.lines().filter(|l| !l.starts_with("---")).collect();
    assert_eq!(said.len(), 6, "{log}");
    for run in 1..=3 {
        let before = format!("before run={run} targets=");
        assert!(said[2 * run - 2].starts_with(&before), "{log}");
        assert!(said[2 * run - 2].ends_with(&format!("out={}", dir.display())), "{log}");
        assert_eq!(said[2 * run - 1], format!("after run={run}"), "{log}");
    }
}

/// The common flags of a short study: three runs, restored, idle two seconds before each, both hooks,
/// two meters, a system cost, a loose cap; `before` the `--before-run` hook (at least [`HOOKS`]' own).
fn study_flags<'a>(meters: &'a [String; 2], out: &'a Path, before: &'a str) -> Vec<&'a str> {
    let mut args = vec!["--runs", "3", "--restore", "--idle-sample", "2s", "--system-cost", "1000"];
    args.extend(["--before-run", before, HOOKS[2], HOOKS[3]]);
    args.extend(["--power-log", &meters[0], "--power-log", &meters[1], "-q", "--out", out.to_str().unwrap()]);
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn three_restored_tpcc_runs_hooked_idled_and_metered_report_the_median_run() {
    let (pg, urls) = server_with(&["study"]).await;
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let client = sql(&pg.target("study")).await;
    // The user's own table, index and grant on one of the workload's, which a restore must leave as
    // they are.
    client
        .batch_execute(
            "CREATE TABLE users_own (x int); INSERT INTO users_own VALUES (7); \
             CREATE INDEX users_own_ix ON orders (o_entry_d); \
             CREATE ROLE study_reader; GRANT SELECT ON orders TO study_reader",
        )
        .await
        .unwrap();
    let indexes = indexes(&client).await;
    assert!(indexes.contains("orders_pkey") && indexes.contains("users_own_ix"), "{indexes}");
    let loaded = checksums::pg(&client).await;
    let dir = tempfile::tempdir().unwrap();
    let meters = meters(dir.path());
    let result = dir.path().join("result");
    // Each run held at its start (after its restore) while the test sums every table.
    let before = format!("{} && {}", HOOKS[1], checksums::pause_hook(dir.path(), "start"));
    let mut args = vec!["tpcc", "run", "--url", &urls[0], "--users", "2,4", "--rt-cap", "avg=10s"];
    args.extend(["--think-time", "0", "--keying-time", "0", "--warmup", "0s", "--duration", "2s"]);
    args.extend(["--report-interval", "1s"]);
    args.extend(study_flags(&meters, &result, &before));
    let mut study = spawn(&args);
    let mut restored = Vec::new();
    while let Some((run, file)) = checksums::next_pause(&mut study, dir.path(), "start").await {
        restored.push(run);
        assert_eq!(
            checksums::pg(&client).await,
            loaded,
            "run {run} starts from the loaded rows, row for row"
        );
        std::fs::remove_file(file).unwrap();
    }
    assert_eq!(restored, [1, 2, 3], "every run held at its start");
    let out = finish(study);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    let r = result_json(&result);
    let shape: Vec<(u64, u64)> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["run"].as_u64().unwrap(), s["users"].as_u64().unwrap()))
        .collect();
    assert_eq!(shape, [(1, 2), (1, 4), (2, 2), (2, 4), (3, 2), (3, 4)], "the whole sweep, run after run");
    assert_study(
        &result,
        "nopm",
        &serde_json::json!({"orders": 30_000, "order_line": r["runs"][0]["start_rows"]["order_line"]}),
    );
    // The last run grew the tables it started from, so the equal starts are the restores'.
    let orders: i64 = client.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    assert!(orders > 30_000, "the last run added orders: {orders}");
    let own: i32 = client.query_one("SELECT x FROM users_own", &[]).await.unwrap().get(0);
    let granted: bool = client
        .query_one("SELECT has_table_privilege('study_reader', 'orders', 'SELECT')", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!((own, granted), (7, true), "the user's table and grant are untouched");
    // The restore dropped the workload's keys and indexes and built them again; the user's index stayed.
    assert_eq!(self::indexes(&client).await, indexes, "the same keys and indexes as loaded");
    let check = oltpgen(&["tpcc", "check", "--url", &urls[0]]);
    assert_eq!(check.code, 0, "{}", check.all());
    client.batch_execute("REVOKE ALL ON orders FROM study_reader; DROP ROLE study_reader").await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn three_restored_ds2_runs_hooked_idled_and_metered_report_the_median_run() {
    let (pg, urls) = server_with(&["study_ds2"]).await;
    let out = oltpgen(&["ds2", "load", "--db-size", "10mb", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let client = sql(&pg.target("study_ds2")).await;
    let loaded: i64 = client.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    let indexes = indexes(&client).await;
    assert!(indexes.contains("ix_prod_actor_fts"), "the full-text indexes: {indexes}");
    let dir = tempfile::tempdir().unwrap();
    let meters = meters(dir.path());
    let result = dir.path().join("result");
    let mut args = vec!["ds2", "run", "--url", &urls[0], "--n-threads", "4", "--run-time", "2s"];
    args.extend([
        "--think-time",
        "0",
        "--warmup-time",
        "0s",
        "--report-rate",
        "1",
        "--rt-cap",
        "order.avg=10s",
    ]);
    args.extend(study_flags(&meters, &result, HOOKS[1]));
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_study(&result, "opm", &serde_json::json!({ "orders": loaded }));
    let r = result_json(&result);
    assert!(
        r["errors_by_kind"].as_object().unwrap().is_empty(),
        "new customers and orders took fresh ids: {r}"
    );
    let orders: i64 = client.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    assert!(orders > loaded, "the last run added orders: {orders}");
    assert_eq!(self::indexes(&client).await, indexes, "the same keys and indexes as loaded");
    let check = oltpgen(&["ds2", "check", "--url", &urls[0]]);
    assert_eq!(check.code, 0, "{}", check.all());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ds2_study_of_two_databases_restores_both_before_every_run() {
    let (pg, urls) = server_with(&["study_ds2_a", "study_ds2_b"]).await;
    let mut loaded = 0;
    for (url, db) in urls.iter().zip(["study_ds2_a", "study_ds2_b"]) {
        let out = oltpgen(&["ds2", "load", "--db-size", "10mb", "--url", url, "-q"]);
        assert_eq!(out.code, 0, "{}", out.all());
        let client = sql(&pg.target(db)).await;
        loaded += client.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get::<_, i64>(0);
    }
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let mut args = vec!["ds2", "run", "--url", &urls[0], "--url", &urls[1], "--n-threads", "2"];
    args.extend(["--run-time", "2s", "--think-time", "0", "--warmup-time", "0s", "--report-rate", "1"]);
    args.extend(["--runs", "2", "--restore", "-q", "--out", result.to_str().unwrap()]);
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(&result);
    assert_matches_schema(&r);
    for run in r["runs"].as_array().unwrap() {
        assert_eq!(run["restored"]["method"], "generator", "{run}");
        assert_eq!(run["start_rows"]["orders"], loaded, "both databases as loaded: {run}");
    }
    for url in &urls {
        let check = oltpgen(&["ds2", "check", "--url", url]);
        assert_eq!(check.code, 0, "{}", check.all());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn runs_not_restored_show_their_drift_and_a_failing_hook_stops_the_study_keeping_what_ran() {
    let (_pg, urls) = server_with(&["study_hook"]).await;
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let mut args = vec!["tpcc", "run", "--url", &urls[0], "--users", "2", "--runs", "3"];
    args.extend(["--think-time", "0", "--keying-time", "0", "--warmup", "0s", "--duration", "2s"]);
    args.extend(["--before-run", "test \"$OLTPGEN_RUN\" -lt 3", "--out", result.to_str().unwrap()]);
    let out = oltpgen(&args);
    assert_eq!(out.code, 1, "{}", out.all());
    let lines: Vec<&str> = out.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {}", out.stderr);
    assert!(
        lines[0].contains("--before-run `test \"$OLTPGEN_RUN\" -lt 3` for run 3 failed (exit status: 1"),
        "names the hook, its run and its status: {}",
        lines[0]
    );
    assert!(
        lines[0].ends_with(&format!("the result of what ran is in {}", result.display())),
        "{}",
        lines[0]
    );
    // The live lines: the header once, a separator where the second run starts.
    assert_eq!(out.stdout.matches("running tpcc on ").count(), 1, "{}", out.stdout);
    assert_eq!(out.stdout.lines().filter(|l| *l == "-- run 2 of 3 --").count(), 1, "{}", out.stdout);
    assert!(!out.stdout.contains("-- run 3 of 3 --"), "run 3's hook failed before it: {}", out.stdout);
    let r = result_json(&result);
    assert_matches_schema(&r);
    assert_eq!(r["interrupted"], true);
    let runs: Vec<u64> = r["steps"].as_array().unwrap().iter().map(|s| s["run"].as_u64().unwrap()).collect();
    assert_eq!(runs, [1, 2], "the two runs before the failing hook are kept");
    // Not restored: the second run started from what the first left, and says so.
    let orders: Vec<u64> =
        r["runs"].as_array().unwrap().iter().map(|x| x["start_rows"]["orders"].as_u64().unwrap()).collect();
    assert!(orders.len() == 2 && orders[0] == 30_000 && orders[1] > orders[0], "drift: {orders:?}");
    assert!(r["runs"][0].get("restored").is_none());
    let summary = std::fs::read_to_string(result.join("summary.txt")).unwrap();
    let drift = format!("orders at each run's start 30,000 / {}", thousands(orders[1]));
    assert!(summary.contains("not all restored: ") && summary.contains(&drift), "{summary}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_checksums_tell_a_load_from_one_of_another_seed() {
    let names = ["sums_a", "sums_b", "sums_seed2"];
    let (pg, urls) = server_with(&names).await;
    let mut sums = Vec::new();
    for (url, seed) in urls.iter().zip(["1", "1", "2"]) {
        let out = oltpgen(&["tpcc", "load", "--scale", "1", "--seed", seed, "--url", url, "-q"]);
        assert_eq!(out.code, 0, "{}", out.all());
    }
    for name in names {
        sums.push(checksums::pg(&sql(&pg.target(name)).await).await);
    }
    assert_eq!(sums[0].len(), 9, "TPC-C's nine tables: {:?}", sums[0]);
    assert_eq!(sums[0], sums[1], "one seed, one size: the same rows");
    let differ: Vec<&String> = sums[0].keys().filter(|t| sums[0][*t] != sums[2][*t]).collect();
    assert!(differ.len() >= 7, "another seed, other rows (all but new_order's keys): {differ:?}");
}

/// The indexes (keys included) of the database's current schema, by name, comma-separated.
async fn indexes(client: &tokio_postgres::Client) -> String {
    let query = "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes \
                 WHERE schemaname = current_schema()";
    client.query_one(query, &[]).await.unwrap().get(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restore_a_users_foreign_key_depends_on_is_refused_leaving_the_database_as_it_was() {
    let (pg, urls) = server_with(&["study_fk"]).await;
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let client = sql(&pg.target("study_fk")).await;
    client
        .batch_execute(
            "CREATE TABLE depots (w_id int REFERENCES warehouse (w_id)); INSERT INTO depots VALUES (1)",
        )
        .await
        .unwrap();
    let before = indexes(&client).await;
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let mut args = vec!["tpcc", "run", "--url", &urls[0], "--users", "2", "--runs", "2", "--restore", "-q"];
    args.extend(["--think-time", "0", "--duration", "1s", "--out", result.to_str().unwrap()]);
    let out = oltpgen(&args);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stderr.contains("referenced in a foreign key"), "says why: {}", out.stderr);
    assert_eq!(indexes(&client).await, before, "no key or index dropped");
    let depots: i64 = client.query_one("SELECT count(*) FROM depots", &[]).await.unwrap().get(0);
    let orders: i64 = client.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    assert_eq!((depots, orders), (1, 30_000), "nothing emptied");
}

/// `n` with thousands separators, as the reports print counts.
fn thousands(n: u64) -> String {
    oltpgen_report::numfmt::thousands(n as f64, 0)
}

#[test]
fn hooks_need_an_out_and_meters_their_own_labels() {
    assert_refused(
        &oltpgen(&["tpcc", "run", "--temp-db", "--before-run", "true"]),
        "--before-run logs its output into the result's directory: give it with --out DIR",
    );
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.csv");
    std::fs::write(&log, "1,2\n").unwrap();
    let twice = format!("server={}", log.display());
    let out = oltpgen(&["tpcc", "run", "--temp-db", "--power-log", &twice, "--power-log", &twice]);
    assert_refused(&out, "--power-log names the meter server twice");
    // DS2's own spelling of a host's counters carries a password: refused without repeating it.
    let perf = format!("--linux_perf_host=root:{SECRET}:db1");
    let out = oltpgen(&["ds2", "run", "--temp-db", "--n_threads=2", &perf]);
    assert_refused(&out, "--linux_perf_host puts a password on the command line");
    assert!(out.stderr.contains("--node-exporter"), "{}", out.stderr);
    // DS2's --target edits one URL's host: several are refused.
    let out = oltpgen(&["ds2", "run", "--target=db1", "--url", "postgres://a/x", "--url", "postgres://b/y"]);
    assert_refused(&out, "give one --url as the pattern");
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn restored_runs_on_sql_server_start_from_the_loaded_rows() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    for (workload, load, run, table) in [
        (
            "tpcc",
            ["--scale", "1"],
            ["--users", "2", "--think-time", "0", "--keying-time", "0", "--duration", "2s"],
            "orders",
        ),
        (
            "ds2",
            ["--db-size", "10mb"],
            ["--n-threads", "2", "--think-time", "0", "--run-time", "2s", "--report-rate", "1"],
            "orders",
        ),
    ] {
        let db = MssqlDb::create(&url, &format!("study_{workload}")).await;
        let out = oltpgen(&[&[workload, "load", "--url", &db.url, "-q"][..], &load].concat());
        assert_eq!(out.code, 0, "{}", out.all());
        let mut client = mssql(&db.url).await;
        let loaded = mssql_int(&mut client, &format!("SELECT COUNT(*) FROM {table}")).await;
        assert_two_runs_restored_from_the_generator(workload, &db.url, &run, (table, loaded));
        let check = oltpgen(&[workload, "check", "--url", &db.url]);
        assert_eq!(check.code, 0, "{workload}: {}", check.all());
    }
}

/// The databases of the built-in server at `root` (started for the question, stopped after).
async fn databases(root: &str) -> Vec<String> {
    assert_eq!(oltpgen(&["local", "start", "--data-dir", root]).code, 0);
    let pg = oltpgen_driver::local::LocalPg::join(Path::new(root)).unwrap();
    let client = sql(&pg.target("postgres")).await;
    let rows = client.query("SELECT datname::text FROM pg_database ORDER BY 1", &[]).await.unwrap();
    drop(client);
    assert_eq!(oltpgen(&["local", "stop", "--data-dir", root]).code, 0);
    rows.iter().map(|r| r.get(0)).collect()
}

/// The flags of a short three-run restored TPC-C study on the built-in server at `root`, each run
/// `duration` long, its result in `out`.
fn built_in_study<'a>(root: &'a str, duration: &'a str, out: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["tpcc", "run", "--data-dir", root, "--users", "2", "--runs", "3", "--restore"];
    args.extend(["--think-time", "0", "--keying-time", "0", "--warmup", "0s", "--duration", duration]);
    args.extend(["--report-interval", "1s", "-q", "--out", out.to_str().unwrap()]);
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn the_built_in_server_s_runs_after_the_first_are_cloned_from_a_pristine_copy_dropped_at_the_end() {
    let (_keep, root) = crate::common::data_dir();
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let out = oltpgen(&built_in_study(&root, "3s", &result));
    assert_eq!(out.code, 0, "{}", out.all());
    let said =
        "MB more on the server's disk) is cloned back before the later runs, and dropped at the study's end";
    assert!(out.stderr.contains(said), "its disk space said: {}", out.stderr);
    assert!(!out.stderr.contains("warning"), "the counters' sampler is never cut: {}", out.stderr);
    let r = result_json(&result);
    assert_matches_schema(&r);
    let runs = r["runs"].as_array().unwrap();
    let methods: Vec<&str> = runs.iter().map(|x| x["restored"]["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["generator", "template clone", "template clone"]);
    let orders: Vec<u64> = runs.iter().map(|x| x["start_rows"]["orders"].as_u64().unwrap()).collect();
    assert_eq!(orders, [30_000; 3], "every run from the loaded rows");
    assert_eq!(runs[1]["start_rows"], runs[0]["start_rows"]);
    assert_eq!(runs[2]["start_rows"], runs[0]["start_rows"]);
    // The database's counters go on after every clone, from a new baseline: never negative, and read
    // during the last run.
    let db: Vec<&Value> =
        r["counters"].as_array().unwrap().iter().filter(|s| s["source"] == "db:built-in/tpcc").collect();
    assert!(!db.is_empty(), "{}", r["counters"]);
    let last_start = runs[2]["start_s"].as_f64().unwrap();
    for series in &db {
        let points = series["points"].as_array().unwrap();
        assert!(points.iter().all(|p| p[1].as_f64().unwrap() >= 0.0), "{series}");
    }
    let commits = db.iter().find(|s| s["name"] == "commits_per_s").expect("commits/s");
    let in_last: Vec<f64> = commits["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p[0].as_f64().unwrap() > last_start)
        .map(|p| p[1].as_f64().unwrap())
        .collect();
    assert!(in_last.iter().any(|&c| c > 0.0), "commits counted during the last run: {commits}");
    let summary = std::fs::read_to_string(result.join("summary.txt")).unwrap();
    assert!(summary.contains("each restored first (generator, then template clone)"), "{summary}");
    let check = oltpgen(&["tpcc", "check", "--data-dir", &root]);
    assert_eq!(check.code, 0, "{}", check.all());
    let left = databases(&root).await;
    assert!(
        left.contains(&"tpcc".to_string()) && !left.iter().any(|d| d.ends_with("_oltpgen_pristine")),
        "{left:?}"
    );

    // Ctrl-C in the second run, once cloned: the copy is dropped all the same, the database kept.
    let result = dir.path().join("interrupted");
    let mut args = built_in_study(&root, "5s", &result);
    args.retain(|a| *a != "-q");
    let mut run = crate::common::spawn(&args);
    let stdout = run.stdout.take().unwrap();
    let pid = run.id().to_string();
    let said = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let mut lines = std::io::BufReader::new(stdout).lines().map_while(Result::ok);
        let second = lines.by_ref().any(|l| l == "-- run 2 of 3 --");
        let status = std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(status.success());
        (second, lines.collect::<Vec<_>>().join("\n"))
    })
    .await
    .unwrap();
    let out = tokio::task::spawn_blocking(move || crate::common::finish(run)).await.unwrap();
    assert!(said.0, "the second run began: {}{}", said.1, out.all());
    assert_eq!(out.code, 130, "{}", out.all());
    let runs = result_json(&result)["runs"].as_array().unwrap().len();
    assert_eq!(runs, 2, "cut short in the second run");
    let left = databases(&root).await;
    assert!(
        left.contains(&"tpcc".to_string()) && !left.iter().any(|d| d.ends_with("_oltpgen_pristine")),
        "{left:?}"
    );
    let check = oltpgen(&["tpcc", "check", "--data-dir", &root]);
    assert_eq!(check.code, 0, "{}", check.all());
}

#[tokio::test(flavor = "multi_thread")]
async fn another_client_on_the_built_in_database_keeps_the_restore_on_the_generator_and_its_session() {
    let (_keep, root) = crate::common::data_dir();
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(oltpgen(&["local", "start", "--data-dir", &root]).code, 0);
    let pg = oltpgen_driver::local::LocalPg::join(Path::new(&root)).unwrap();
    let mut config = oltpgen_driver::pg::target::config(&pg.target("tpcc")).unwrap().clone();
    config.application_name("someone else");
    let (client, conn) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let mut args = built_in_study(&root, "2s", &result);
    let runs = args.iter().position(|a| *a == "--runs").unwrap() + 1;
    args[runs] = "2";
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let said = "--restore: built-in/tpcc: restored from the generator rather than cloned: 1 other client session(s) connected to tpcc";
    assert_eq!(out.stderr.matches(said).count(), 1, "said once: {}", out.stderr);
    let r = result_json(&result);
    let methods: Vec<&str> =
        r["runs"].as_array().unwrap().iter().map(|x| x["restored"]["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["generator", "generator"]);
    let orders: i64 = client.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    assert!(orders > 30_000, "the other client's session was never cut: {orders}");
    drop(client);
    assert!(!databases(&root).await.iter().any(|d| d.ends_with("_oltpgen_pristine")));
}
