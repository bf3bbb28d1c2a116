//! Issue 41's done-when for a workload file, on every engine: the README's order-entry workload
//! (three transactions) loads, runs a sweep under a cap twice, each run restored from the generator
//! first (`--runs 2 --restore`: the orders emptied again, the items' sold counts and the customers'
//! balances back to the generated ones), and passes its own checks after; on PostgreSQL two agents
//! (`--agent 0/2`, `--agent 1/2`) merge into one result whose counts are the sum of theirs.

use std::path::Path;

use crate::agents::{from_now, merge_parts};
use crate::common::{
    MssqlDb, SECRET, assert_matches_schema, assert_no_secret, finish, mssql_turn, mssql_url, oltpgen,
    oltpgen_env, result_json,
};
use crate::custom_engines::order_entry;
use crate::mariadb_common::MariaDb;
use crate::study_common::spawn_env;

/// What the rows sum to, in SQL every engine runs: the customers' balances, the items' sold counts
/// and the orders. Payments change the first, new orders the other two; a restore puts back all three.
const DIGEST: &str = "SELECT (SELECT SUM(balance) FROM customers), (SELECT SUM(sold) FROM items), (SELECT COUNT(*) FROM orders)";

/// A shell command printing [`DIGEST`] of the database under test, where a client is at hand (its
/// password from the environment, never on a command line), and that environment.
struct Digest {
    command: String,
    env: Vec<(&'static str, String)>,
}

impl Digest {
    /// The digest now.
    fn now(&self) -> String {
        let out = std::process::Command::new("sh")
            .args(["-c", &self.command])
            .envs(self.env.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let digest = String::from_utf8(out.stdout).unwrap();
        assert!(digest.trim().len() > 2, "a digest of three sums: {digest:?}");
        digest
    }
}

/// A sweep of two steps under a cap, short steps.
#[rustfmt::skip]
const SWEEP: [&str; 10] = [
    "--users", "2..4:2", "--warmup", "1s", "--duration", "2s", "--rt-cap", "avg=500ms", "--report-interval", "1s",
];

/// `oltpgen custom` with `args` (its subcommand first) on the workload `file`, at `url`.
fn custom(file: &Path, url: &str, args: &[&str]) -> crate::common::Outcome {
    oltpgen(&[&["custom"][..], args, &["--file", file.to_str().unwrap(), "--url", url]].concat())
}

/// Loads the order-entry workload at `url`, runs the sweep twice with `--restore`, and checks it: both
/// runs start from the generator's rows (with `digest`, the rows' digest as the load left it, taken by
/// a `--before-run` hook), every transaction ran in every step without an error, and the checks hold.
/// Drops it after.
fn restored_sweeps(url: &str, create: bool, digest: Option<Digest>) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shop.toml");
    std::fs::write(&file, order_entry()).unwrap();
    let mut load = vec!["load", "-q"];
    if create {
        load.push("--create-database");
    }
    let loaded = custom(&file, url, &load);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let generated = digest.as_ref().map(Digest::now);

    // A first run leaves orders behind, sold counts raised and balances paid: the restores undo them.
    let ran = custom(&file, url, &["run", "--users", "2", "--warmup", "0s", "--duration", "2s", "-q"]);
    assert_eq!(ran.code, 0, "{}", ran.all());
    if let Some(d) = &digest {
        assert_ne!(Some(d.now()), generated, "the first run changed the rows");
    }

    let out = dir.path().join("result");
    let mut args =
        [&["run", "--runs", "2", "--restore", "-q", "--out", out.to_str().unwrap()][..], &SWEEP].concat();
    let hook =
        digest.as_ref().map(|d| format!("{} > {}/digest.$OLTPGEN_RUN", d.command, dir.path().display()));
    if let Some(hook) = &hook {
        args.extend(["--before-run", hook.as_str()]);
    }
    let env: Vec<(&str, &str)> =
        digest.iter().flat_map(|d| d.env.iter().map(|(k, v)| (*k, v.as_str()))).collect();
    let study = oltpgen_env(
        &[&["custom"][..], &args, &["--file", file.to_str().unwrap(), "--url", url]].concat(),
        &env,
    );
    assert_eq!(study.code, 0, "{}", study.all());
    assert_no_secret(&study);
    let result = result_json(&out);
    assert_matches_schema(&result);
    assert_eq!(result["workload"], "shop");
    let runs = result["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{result}");
    for run in runs {
        let method = run["restored"]["method"].as_str();
        assert!(matches!(method, Some("generator" | "clone")), "every run restored first: {run}");
        assert_eq!(run["start_rows"]["orders"], 0, "the orders emptied again: {run}");
    }
    for run in 1..=2 {
        let Some(generated) = &generated else { break };
        let before = std::fs::read_to_string(dir.path().join(format!("digest.{run}"))).unwrap();
        assert_eq!(&before, generated, "run {run} starts from the generator's rows: {DIGEST}");
    }
    let steps = result["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "two steps per run: {result}");
    for step in steps {
        for txn in ["new_order", "payment", "order_status"] {
            assert!(step["transactions"][txn]["count"].as_u64().unwrap_or(0) > 0, "{txn} ran: {step}");
        }
        assert_eq!(step["errors"], 0, "{step}");
    }
    // The items' sold counts were put back with the orders: each still the sum of its orders.
    let check = custom(&file, url, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(check.stdout.contains("every item's sold count is its orders' quantities"), "{}", check.stdout);
    let dropped = custom(&file, url, &["drop"]);
    assert_eq!(dropped.code, 0, "{}", dropped.all());
    result
}

#[tokio::test(flavor = "multi_thread")]
async fn the_order_entry_file_sweeps_restores_and_checks_on_postgresql() {
    let (_pg, urls) = crate::ds2::server_with(&["shop"]).await;
    let url = urls[0].clone();
    let digest = Digest { command: format!("psql -X '{url}' -Atc '{DIGEST}'"), env: Vec::new() };
    let result =
        tokio::task::spawn_blocking(move || restored_sweeps(&url, false, Some(digest))).await.unwrap();
    assert_eq!(result["server"]["engine"], "postgres", "{}", result["server"]);
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn the_order_entry_file_sweeps_restores_and_checks_on_mariadb() {
    let db = MariaDb::start();
    let url = db.url("shop");
    let port = db.port;
    let digest = Digest {
        command: format!("mariadb --no-defaults -h127.0.0.1 -P{port} -ubench -N -B shop -e '{DIGEST}'"),
        env: vec![("MYSQL_PWD", SECRET.to_string())],
    };
    let result = restored_sweeps(&url, true, Some(digest));
    assert_eq!(result["server"]["engine"], "mysql", "{}", result["server"]);
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn the_order_entry_file_sweeps_restores_and_checks_on_sql_server() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "shop_study").await;
    let url = db.url.clone();
    // No T-SQL client at hand: the restore is judged by its orders emptied and its sold counts.
    let result = tokio::task::spawn_blocking(move || restored_sweeps(&url, false, None)).await.unwrap();
    assert_eq!(result["server"]["engine"], "sqlserver", "{}", result["server"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_agents_of_the_order_entry_file_merge_into_the_sum_of_their_counts() {
    let (_pg, urls) = crate::ds2::server_with(&["shop"]).await;
    let url = urls[0].clone();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shop.toml");
    std::fs::write(&file, order_entry()).unwrap();
    let loaded = custom(&file, &url, &["load", "-q"]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());

    let start_at = from_now(6);
    let parts: Vec<_> = (0..2).map(|i| dir.path().join(format!("agent{i}"))).collect();
    let children: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let agent = format!("{i}/2");
            let args = [
                &["custom", "run", "--file", file.to_str().unwrap(), "--url", &url][..],
                &SWEEP,
                &["--agent", &agent, "--start-at", &start_at, "-q", "--out", part.to_str().unwrap()],
            ]
            .concat();
            spawn_env(&args, &[])
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = finish(child);
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
    }
    let merged_dir = dir.path().join("merged");
    let (_, merged) = merge_parts(&[&parts[0], &parts[1]], &merged_dir);
    assert_eq!(merged["workload"], "shop");
    let steps = merged["steps"].as_array().unwrap();
    assert_eq!(steps.iter().map(|s| s["users"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 4]);
    let part_results: Vec<_> = parts.iter().map(|p| result_json(p)).collect();
    for (n, step) in steps.iter().enumerate() {
        for txn in ["new_order", "payment", "order_status"] {
            let count = |r: &serde_json::Value| r["steps"][n]["transactions"][txn]["count"].as_u64().unwrap();
            let sum: u64 = part_results.iter().map(count).sum();
            assert!(sum > 0, "{txn} ran in step {n}");
            assert_eq!(count(&merged), sum, "{txn}, step {n}: the agents' counts, summed: {step}");
        }
    }
    let check = custom(&file, &url, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
}
