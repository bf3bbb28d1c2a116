//! A workload defined in a file on every engine (issue 41): the README's order-entry workload, whose
//! statements and checks give MySQL's and T-SQL's own SQL where the dialects differ, loads through each
//! engine's bulk path, runs a sweep of two steps under a cap, passes its checks, and drops, on
//! PostgreSQL (the built-in server), MariaDB and SQL Server (Babelfish).

use std::path::{Path, PathBuf};

use crate::common::{MssqlDb, assert_no_secret, data_dir, mssql_turn, mssql_url, oltpgen, result_json};
use crate::mariadb_common::MariaDb;

/// The README's order-entry workload (the TOML block after its `<!-- order-entry -->` mark): the test
/// runs what the README shows.
pub fn order_entry() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let after =
        readme.split("<!-- order-entry -->").nth(1).expect("the README marks its order-entry workload");
    let block = after.split("```toml\n").nth(1).expect("a TOML block after the mark");
    block.split("\n```").next().unwrap().to_string()
}

/// Writes the order-entry workload into `dir`.
fn workload_file(dir: &Path) -> PathBuf {
    let path = dir.join("shop.toml");
    std::fs::write(&path, order_entry()).unwrap();
    path
}

/// `oltpgen custom` with `args` (its subcommand first) on the workload `file`, at `url`.
fn custom(file: &Path, url: &str, args: &[&str]) -> crate::common::Outcome {
    oltpgen(&[&["custom"][..], args, &["--file", file.to_str().unwrap(), "--url", url]].concat())
}

/// Loads, runs a two-step sweep under a cap, checks and drops the workload at `url`; the run's result.
fn cycle(url: &str, create: bool) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let file = workload_file(dir.path());
    let mut load = vec!["load", "--scale", "1", "-q"];
    if create {
        load.push("--create-database");
    }
    let loaded = custom(&file, url, &load);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    assert!(loaded.stdout.contains("loaded shop scale 1"), "{}", loaded.stdout);
    assert_no_secret(&loaded);

    let out = dir.path().join("result");
    let run = custom(
        &file,
        url,
        &["run", "--users", "1,2", "--warmup", "1s", "--duration", "2s", "--rt-cap", "avg=500ms", "--out"]
            .iter()
            .copied()
            .chain([out.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert_eq!(run.code, 0, "{}", run.all());
    assert_no_secret(&run);
    let result = result_json(&out);
    assert_eq!(result["workload"], "shop");
    assert_eq!(
        result["config"]["workload_file"].as_str(),
        Some(order_entry().as_str()),
        "the result embeds the file"
    );
    let steps = result["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{result}");
    for step in steps {
        for txn in ["new_order", "payment", "order_status"] {
            let count = step["transactions"][txn]["count"].as_u64().unwrap_or(0);
            assert!(count > 0, "{txn} ran: {step}");
        }
        assert_eq!(step["errors"], 0, "{step}");
    }

    let check = custom(&file, url, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(check.stdout.contains("every order names a customer"), "{}", check.stdout);
    // Named parameters: one draw of :item and :qty per transaction, in both its statements.
    assert!(check.stdout.contains("every item's sold count is its orders' quantities"), "{}", check.stdout);

    let dropped = custom(&file, url, &["drop"]);
    assert_eq!(dropped.code, 0, "{}", dropped.all());
    assert!(dropped.stdout.contains("dropped the shop tables"), "{}", dropped.stdout);
    result
}

#[test]
fn the_readme_order_entry_workload_runs_on_postgresql() {
    let (_keep, root) = data_dir();
    let dir = tempfile::tempdir().unwrap();
    let file = workload_file(dir.path());
    let at = |args: &[&str]| {
        oltpgen(&[&["custom"][..], args, &["--file", file.to_str().unwrap(), "--data-dir", &root]].concat())
    };
    let loaded = at(&["load", "-q"]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let out = dir.path().join("result");
    let o = out.to_str().unwrap();
    let run = at(&[
        "run",
        "--users",
        "1,2",
        "--warmup",
        "1s",
        "--duration",
        "2s",
        "--rt-cap",
        "avg=500ms",
        "--out",
        o,
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    for step in result_json(&out)["steps"].as_array().unwrap() {
        assert_eq!(step["errors"], 0, "{step}");
        assert!(step["transactions"]["order_status"]["count"].as_u64().unwrap_or(0) > 0, "{step}");
    }
    let check = at(&["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn the_readme_order_entry_workload_runs_on_mariadb() {
    let db = MariaDb::start();
    let result = cycle(&db.url("shop"), true);
    assert_eq!(result["server"]["engine"], "mysql", "{}", result["server"]);
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_order_entry_workload_runs_on_sql_server() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "custom").await;
    let result = tokio::task::spawn_blocking(move || cycle(&db.url, false)).await.unwrap();
    assert_eq!(result["server"]["engine"], "sqlserver", "{}", result["server"]);
}

#[test]
fn a_statement_that_touches_other_than_its_rows_fails_and_rolls_back() {
    let (_keep, root) = data_dir();
    let dir = tempfile::tempdir().unwrap();
    // The README's workload with payment aimed past the last customer: it touches no row, not its 1.
    let shop = order_entry().replace(
        "UPDATE customers SET balance = balance + $2 WHERE id = $1\"",
        "UPDATE customers SET balance = balance + $2 WHERE id = $1 + 1000000\"",
    );
    assert_ne!(shop, order_entry());
    let file = dir.path().join("shop.toml");
    std::fs::write(&file, shop).unwrap();
    let at = |args: &[&str]| {
        oltpgen(&[&["custom"][..], args, &["--file", file.to_str().unwrap(), "--data-dir", &root]].concat())
    };
    assert_eq!(at(&["load", "-q"]).code, 0);
    let out = dir.path().join("result");
    let run =
        at(&["run", "--users", "2", "--warmup", "0s", "--duration", "3s", "--out", out.to_str().unwrap()]);
    // So many failures make the step invalid, as any run's: said, and the result written.
    assert!(run.stderr.contains("nothing was measured: the step is INVALID"), "{}", run.all());
    let result = result_json(&out);
    let step = &result["steps"][0];
    assert!(step["errors"].as_u64().unwrap() > 0, "payments touching 0 rows are errors: {step}");
    assert_eq!(step["transactions"]["payment"]["count"].as_u64().unwrap_or(0), 0, "none counts: {step}");
    assert!(step["transactions"]["new_order"]["count"].as_u64().unwrap() > 0, "{step}");
    // New orders roll back 1 in 100 on purpose: the sold counts still match the orders.
    let check = at(&["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
}
