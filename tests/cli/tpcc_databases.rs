//! TPC-C on several databases side by side (`--url` given several times): load, run, check and drop
//! each; every step's figures per database (named by its stable key) beside the total, each one's own
//! verdict under the cap, the total's deciding the headline; `report show` and `compare` per database.
//! Two throwaway PostgreSQL databases, and PostgreSQL beside SQL Server (Babelfish) when CI has one.

use std::path::Path;
use std::time::{Duration, SystemTime};

use oltpgen_driver::Target;

use crate::common::{
    MssqlDb, assert_matches_schema, assert_no_secret, mssql_turn, mssql_url, oltpgen, result_json, sql,
};
use crate::common::{load_all, server_with};

/// Flat out and short: 3 s measured per step, a line a second, over two client threads.
#[rustfmt::skip]
const QUICK: [&str; 11] = [
    "--think-time", "0", "--keying-time", "0", "--duration", "3s", "--report-interval", "1s",
    "--client-threads", "2", "--quiet",
];

/// `tpcc check` of every database of `urls` in one command: each one's conditions hold, each named.
#[track_caller]
fn assert_all_consistent(urls: &[String], targets: &[Target]) {
    let mut args = vec!["tpcc", "check"];
    args.extend(urls.iter().flat_map(|u| ["--url", u.as_str()]));
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "every database is consistent after the run:\n{}", out.all());
    for t in targets {
        assert!(out.stdout.contains(&format!("{t}:\n")), "{t} has its own lines: {}", out.stdout);
    }
    let consistent = out.stdout.matches("consistent: every condition that applies holds").count();
    assert_eq!(consistent, targets.len(), "{}", out.stdout);
    assert_no_secret(&out);
}

/// Runs a sweep of 2 then 4 users per database on every database of `urls` into `out`, with `extra`
/// flags (the warmup at least), and checks the result: users per database, each database's figures under its key summing to the total, each one's
/// verdict, the total's headline.
fn run_and_check_result(urls: &[String], keys: &[String], extra: &[&str], out: &Path) -> serde_json::Value {
    let mut args = vec!["tpcc", "run", "--users", "2,4", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(urls.iter().flat_map(|u| ["--url", u.as_str()]));
    args.extend(QUICK);
    let run = oltpgen(&args);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_no_secret(&run);
    let r = result_json(out);
    assert_matches_schema(&r);
    let mut expected_keys = keys.to_vec();
    expected_keys.sort();
    assert_eq!(r["config"]["targets"].as_array().unwrap().len(), keys.len(), "{}", r["config"]);
    assert_eq!(r["config"]["terminals_per_warehouse"], 4.0, "4 users per database, on its one warehouse");
    let n = keys.len() as u64;
    for (step, users) in r["steps"].as_array().unwrap().iter().zip([2, 4]) {
        assert_eq!(step["users"], users * n, "--users is per database");
        let per_db = step["targets"].as_object().unwrap();
        assert_eq!(per_db.keys().cloned().collect::<Vec<_>>(), expected_keys, "keyed by each database's key");
        let sum = |figure: &str| per_db.values().map(|f| f[figure].as_f64().unwrap()).sum::<f64>();
        for figure in ["tps", "nopm"] {
            assert!(per_db.values().all(|f| f[figure].as_f64().unwrap() > 0.0), "{figure}: {step}");
            assert!((sum(figure) - step[figure].as_f64().unwrap()).abs() < 1e-6, "the total is the sum");
        }
        let count = |f: &serde_json::Value| f["transactions"]["new_order"]["count"].as_u64().unwrap();
        assert_eq!(per_db.values().map(count).sum::<u64>(), count(step), "every New-Order counted once");
        let verdicts = step["target_caps"].as_object().unwrap();
        assert_eq!(
            verdicts.keys().cloned().collect::<Vec<_>>(),
            expected_keys,
            "each database's own verdict"
        );
        assert!(step["cap"]["passed"].as_bool().unwrap(), "{step}");
    }
    // The headline is the total's: the step of most total NOPM (both passed), its users every database's.
    let headline = &r["max_within_cap"];
    let steps = r["steps"].as_array().unwrap();
    let best = steps
        .iter()
        .max_by(|a, b| a["nopm"].as_f64().unwrap().total_cmp(&b["nopm"].as_f64().unwrap()))
        .unwrap();
    assert_eq!((&headline["tps"], &headline["users"]), (&best["tps"], &best["users"]), "{headline}");
    // The end of the run shows each database's row under the total's.
    assert!(run.stdout.contains("PASS  total"), "{}", run.stdout);
    for key in keys {
        assert_eq!(run.stdout.matches(&format!("  {key}\n")).count(), 2, "a row per step: {}", run.stdout);
    }
    r
}

#[tokio::test(flavor = "multi_thread")]
async fn two_databases_are_loaded_driven_checked_and_dropped_side_by_side() {
    let (pg, urls) = server_with(&["tpcc_a", "tpcc_b"]).await;
    let targets: Vec<Target> = urls.iter().map(|u| oltpgen_driver::engine::parse_url(u).unwrap()).collect();
    // The URLs reach oltpgen's built-in server (a throwaway one): its databases are keyed without
    // its port, which changes at every start (issue 35).
    let keys: Vec<String> = ["built-in/tpcc_a", "built-in/tpcc_b"].map(String::from).to_vec();
    load_all(&urls);
    let dir = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
    run_and_check_result(&urls, &keys, &["--warmup", "1s"], &a_dir);
    // Each database ran its own users' transactions: New-Orders beyond the 3,000 a district's load has.
    for name in ["tpcc_a", "tpcc_b"] {
        let client = sql(&pg.target(name)).await;
        let orders: i64 = client.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
        assert!(orders > 30_000, "{name} took New-Orders: {orders}");
    }
    assert_all_consistent(&urls, &targets);

    // `report show` and `compare` name each database by its key; compare matches them by it.
    let show = oltpgen(&["report", "show", a_dir.to_str().unwrap()]);
    assert_eq!(show.code, 0, "{}", show.all());
    assert!(keys.iter().all(|k| show.stdout.contains(&format!("  {k}\n"))), "{}", show.stdout);
    run_and_check_result(&urls, &keys, &["--warmup", "1s"], &b_dir);
    let compare = oltpgen(&["report", "compare", a_dir.to_str().unwrap(), b_dir.to_str().unwrap()]);
    assert_eq!(compare.code, 0, "{}", compare.all());
    for key in &keys {
        assert_eq!(compare.stdout.matches(&format!("  {key} NOPM ")).count(), 2, "{}", compare.stdout);
    }

    let mut args = vec!["tpcc", "drop"];
    args.extend(urls.iter().flat_map(|u| ["--url", u.as_str()]));
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(out.stdout.matches("dropped the tpcc tables from").count(), 2, "{}", out.stdout);
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn postgresql_and_sql_server_are_driven_side_by_side() {
    let (_pg, pg_urls) = server_with(&["tpcc_pg"]).await;
    let _turn = mssql_turn().await;
    let ms = MssqlDb::create(&mssql_url(), "tpcc_mixed").await;
    let urls = vec![pg_urls[0].clone(), ms.url.clone()];
    let targets: Vec<Target> = urls.iter().map(|u| oltpgen_driver::engine::parse_url(u).unwrap()).collect();
    // PostgreSQL's is oltpgen's built-in server (a throwaway one): keyed without its port.
    let keys: Vec<String> = vec!["built-in/tpcc_pg".into(), targets[1].key()];
    load_all(&urls);
    let dir = tempfile::tempdir().unwrap();
    // Babelfish's first transactions on new sessions are slow (procedures planned): a longer warmup. On
    // a common clock, each server's clock is read against this machine's: on this machine, close.
    let at = humantime::format_rfc3339(SystemTime::now() + Duration::from_secs(5)).to_string();
    let r = run_and_check_result(&urls, &keys, &["--warmup", "8s", "--start-at", &at], dir.path());
    let offsets = r["config"]["clock_offset_ms"].as_object().unwrap();
    assert_eq!(offsets.len(), 2, "one per database: {offsets:?}");
    assert!(offsets.values().all(|ms| ms.as_f64().unwrap().abs() < 2_000.0), "{offsets:?}");
    assert_all_consistent(&urls, &targets);
}
