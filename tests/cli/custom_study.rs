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
    assert_per_minute_headline(&result, &out);
    // The items' sold counts were put back with the orders: each still the sum of its orders.
    let check = custom(&file, url, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(check.stdout.contains("every item's sold count is its orders' quantities"), "{}", check.stdout);
    let dropped = custom(&file, url, &["drop"]);
    assert_eq!(dropped.code, 0, "{}", dropped.all());
    result
}

/// The file's `headline = { per_minute = "new_order" }`: every step's `per_minute` is its New-Orders'
/// completions per minute, the headline is the best of them within the cap, and summary.txt says it
/// as `new_order per minute`, never NOPM (TPC-C's).
#[track_caller]
fn assert_per_minute_headline(result: &serde_json::Value, out: &Path) {
    assert_eq!(result["descriptor"]["headline"], "per_minute", "{}", result["descriptor"]);
    assert_eq!(result["descriptor"]["unit"], "new_order per minute");
    assert_eq!(result["descriptor"]["per_minute_transaction"], "new_order");
    for step in result["steps"].as_array().unwrap() {
        let count = step["transactions"]["new_order"]["count"].as_f64().unwrap();
        let per_minute = step["per_minute"].as_f64().expect("a step's per_minute");
        let expected = count * 60.0 / step["duration_s"].as_f64().unwrap();
        assert!(
            (per_minute - expected).abs() < 1e-6 * expected.max(1.0),
            "{per_minute} ≠ {expected}: {step}"
        );
        assert!(step["nopm"].is_null(), "no NOPM of a workload file: {step}");
    }
    let headline = result["max_within_cap"]["per_minute"].as_f64().expect("the headline's per_minute");
    let best = result["steps"].as_array().unwrap().iter().filter_map(|s| s["per_minute"].as_f64());
    assert!(best.fold(0.0, f64::max) >= headline && headline > 0.0, "{}", result["max_within_cap"]);
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains("new_order per minute"), "{summary}");
    assert!(!summary.contains("NOPM"), "{summary}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_order_entry_file_sweeps_restores_and_checks_on_postgresql() {
    let (_pg, urls) = crate::common::server_with(&["shop"]).await;
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
    let (_pg, urls) = crate::common::server_with(&["shop"]).await;
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
    // The merged result headlines the file's transaction per minute, in every report.
    assert_per_minute_headline(&merged, &merged_dir);
    let shown = oltpgen(&["report", "show", merged_dir.to_str().unwrap()]);
    assert_eq!(shown.code, 0, "{}", shown.all());
    assert!(shown.stdout.contains("max new_order per minute within cap"), "{}", shown.stdout);
    assert!(shown.stdout.contains("new_order/min"), "the step table's column: {}", shown.stdout);
    let html = std::fs::read_to_string(merged_dir.join("report.html")).unwrap();
    assert!(html.contains("new_order per minute"), "report.html says it");
    for text in [&shown.stdout, &html] {
        assert!(!text.contains("NOPM"), "NOPM is TPC-C's: {text}");
    }
    let check = custom(&file, &url, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
}

#[test]
fn a_headline_naming_no_transaction_is_refused_at_its_line() {
    let (keep, root) = crate::common::data_dir();
    let file = keep.path().join("shop.toml");
    let text = order_entry().replace("per_minute = \"new_order\"", "per_minute = \"neworder\"");
    std::fs::write(&file, text).unwrap();
    let load = oltpgen(&["custom", "load", "--file", file.to_str().unwrap(), "--data-dir", &root]);
    crate::common::assert_refused(
        &load,
        "shop.toml:2: workload shop: headline: per_minute names \"neworder\", which is not one of the \
         transactions: name one of new_order, payment, order_status",
    );
}
