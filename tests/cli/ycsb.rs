//! YCSB's core workloads A–F shipped in the binary (issue 41): `oltpgen ycsb load|run|check|drop
//! --workload a..f --records N`, one load serving every workload as in YCSB, on PostgreSQL (the
//! built-in server), MariaDB and SQL Server (Babelfish).

use crate::common::{MssqlDb, data_dir, mssql_turn, mssql_url, oltpgen, result_json, sql, start_server};
use crate::mariadb_common::MariaDb;

/// Each core workload's operations, as its results name them.
const OPERATIONS: [(&str, &[&str]); 6] = [
    ("a", &["read", "update"]),
    ("b", &["read", "update"]),
    ("c", &["read"]),
    ("d", &["read", "insert"]),
    ("e", &["scan", "insert"]),
    ("f", &["read", "read_modify_write"]),
];

/// `oltpgen ycsb` with `args` (its subcommand first) at `at` (`--url …` or `--data-dir …`).
fn ycsb(at: &[&str], args: &[&str]) -> crate::common::Outcome {
    oltpgen(&[&["ycsb"][..], args, at].concat())
}

/// Runs workload `letter` for `duration` at two users on what `at` names, and asserts each of its
/// operations ran and none failed.
fn run(at: &[&str], letter: &str, operations: &[&str], duration: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("result");
    let args =
        ["run", "--workload", letter, "--users", "2", "--warmup", "0s", "--duration", duration, "--out"];
    let ran = ycsb(at, &[&args[..], &[out.to_str().unwrap()]].concat());
    assert_eq!(ran.code, 0, "{letter}: {}", ran.all());
    let result = result_json(&out);
    assert_eq!(result["workload"], "ycsb", "{letter}");
    let file = result["config"]["workload_file"].as_str().unwrap();
    assert!(file.starts_with(&format!("# oltpgen ycsb --workload {letter}:")), "{file}");
    let step = &result["steps"][0];
    assert_eq!(step["errors"], 0, "{letter}: {step}");
    let transactions = step["transactions"].as_object().unwrap();
    let names: Vec<&str> = transactions.keys().map(String::as_str).collect();
    assert_eq!(names.len(), operations.len(), "{letter}: only its operations: {names:?}");
    for op in operations {
        assert!(transactions[*op]["count"].as_u64().unwrap_or(0) > 0, "{letter}: {op} ran: {step}");
    }
}
/// Loads 1000 records at `at`, runs `letters` (each for `duration`), checks and drops.
/// Loads 1000 records at `at`, runs `letters`, checks and drops.
fn cycle(at: &[&str], load: &[&str], letters: &[&str], duration: &str) {
    let loaded = ycsb(at, &[&["load", "--records", "1000", "-q"][..], load].concat());
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    for (letter, operations) in OPERATIONS.iter().filter(|(l, _)| letters.contains(l)) {
        run(at, letter, operations, duration);
    }
    let check = ycsb(at, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
    let dropped = ycsb(at, &["drop"]);
    assert_eq!(dropped.code, 0, "{}", dropped.all());
}

#[tokio::test(flavor = "multi_thread")]
async fn ycsb_a_to_f_run_on_one_load_on_postgresql() {
    let (_keep, root) = data_dir();
    let at = ["--data-dir", root.as_str()];
    let loaded = ycsb(&at, &["load", "--records", "1000", "-q"]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    for (letter, operations) in OPERATIONS {
        run(&at, letter, operations, "2s");
    }
    // D again: a later run inserts past the first run's records, not into them (its errors are 0).
    run(&at, "d", OPERATIONS[3].1, "2s");
    let check = ycsb(&at, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());

    let server = start_server(&root);
    let client = sql(&server.target("ycsb")).await;
    let key = |n: u64| format!("user{}", oltpgen_datagen::ycsb::fnv_hash64(n));
    for record in [0, 999] {
        let key = key(record);
        let sql = "SELECT length(field9) FROM usertable WHERE ycsb_key = $1";
        let len: i32 = client.query_one(sql, &[&key]).await.unwrap().get(0);
        assert_eq!(len, 100, "record {record}'s fields are 100 characters");
    }
    let rows: i64 = client.query_one("SELECT count(*) FROM usertable", &[]).await.unwrap().get(0);
    assert!(rows > 1000, "D and E inserted new records past the 1000 loaded: {rows}");
    drop((client, server));
    let dropped = ycsb(&at, &["drop"]);
    assert_eq!(dropped.code, 0, "{}", dropped.all());
}

#[test]
fn ycsb_refuses_an_unknown_workload_in_one_line() {
    let out = ycsb(&["--data-dir", "/nonexistent/oltpgen"], &["run", "--workload", "g"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.stderr.contains("--workload g: YCSB's core workloads are a, b, c, d, e and f"),
        "{}",
        out.all()
    );
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn ycsb_a_d_e_f_run_on_mariadb() {
    let db = MariaDb::start();
    let url = db.url("ycsb");
    cycle(&["--url", &url], &["--create-database"], &["a", "d", "e", "f"], "2s");
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn ycsb_a_d_e_f_run_on_sql_server() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "ycsb").await;
    let url = db.url.clone();
    // Babelfish compiles each session's statements on their first calls (a first operation can take
    // most of a second on a loaded machine): 6 s, so that each operation of a mix runs.
    tokio::task::spawn_blocking(move || cycle(&["--url", &url], &[], &["a", "d", "e", "f"], "6s"))
        .await
        .unwrap();
}
