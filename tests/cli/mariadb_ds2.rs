//! DVD Store 2 on MariaDB through the MySQL engine (`mariadb://` URLs): load (every table InnoDB,
//! PRODUCTS with its full-text indexes), run with the operations server-side and client-side, the
//! integrity checks, runs restored to the loaded rows (new ids past the loaded ones), and drop of
//! exactly what the load created. Each test starts a MariaDB of its own ([`MariaDb`]).

use crate::common::assert_intact;
use crate::common::{
    assert_matches_schema, assert_no_secret, assert_refused, assert_two_runs_restored_from_the_generator,
    oltpgen, result_json,
};
use crate::ds2::QUICK;
use crate::mariadb_common::MariaDb;

/// `ds2 run` on `url` for `run_time` with the flags `extra`; its result.
#[track_caller]
fn run(url: &str, run_time: &str, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("r");
    let args = [
        &["ds2", "run", "--url", url, "--run-time", run_time, "-q", "--out", out_path.to_str().unwrap()][..],
        &QUICK,
        extra,
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    let r = result_json(&out_path);
    assert_matches_schema(&r);
    r
}

/// Asserts that a run's step counted every operation, purchases included, without an error.
#[track_caller]
fn assert_ran(r: &serde_json::Value) {
    assert_eq!(r["server"]["engine"], "mysql", "{}", r["server"]);
    let step = &r["steps"][0];
    assert_eq!(step["errors"], 0, "{step}");
    for op in ["login", "new_customer", "browse_category", "browse_actor", "browse_title", "purchase"] {
        assert!(step["transactions"][op]["count"].as_u64().unwrap_or(0) > 0, "{op}: {step}");
    }
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn ds2_loads_runs_both_ways_checks_restores_and_drops_on_mariadb() {
    let db = MariaDb::start();
    let url = db.url("ds2");
    // Bad input: the same one line as TPC-C's.
    assert_refused(
        &oltpgen(&["ds2", "check", "--url", &url]),
        "Unknown database 'ds2'; create the database first",
    );
    let out = oltpgen(&["ds2", "load", "--create-database", "--url", &url, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    assert_intact(&["--url", &url]);
    let engines =
        db.sql("", "SELECT DISTINCT engine FROM information_schema.tables WHERE table_schema = 'ds2'");
    assert_eq!(engines.trim(), "InnoDB", "every table InnoDB, PRODUCTS too");
    let full_text = db.sql(
        "",
        "SELECT GROUP_CONCAT(column_name ORDER BY column_name) FROM information_schema.statistics \
         WHERE table_schema = 'ds2' AND table_name = 'products' AND index_type = 'FULLTEXT'",
    );
    assert_eq!(full_text.trim(), "actor,title", "a full-text index over each searched column");
    let customers = db.int("ds2", "SELECT MAX(customerid) FROM customers");
    let orders = db.int("ds2", "SELECT MAX(orderid) FROM orders");
    let matches = db.int("ds2", "SELECT COUNT(*) FROM products WHERE MATCH (actor) AGAINST ((SELECT actor FROM products WHERE prod_id = 1))");
    assert!(matches > 0, "the full-text index finds a loaded actor");

    // Server-side: each operation one call of its procedure.
    let r = run(&url, "5s", &[]);
    assert_ran(&r);
    assert_intact(&["--url", &url]);
    let new_orders = db.int("ds2", &format!("SELECT COUNT(*) FROM orders WHERE orderid > {orders}"));
    assert!(new_orders > 0, "purchases took new order ids past the loaded ones");
    let new_customers =
        db.int("ds2", &format!("SELECT COUNT(*) FROM customers WHERE customerid > {customers}"));
    assert!(new_customers > 0, "registrations took new customer ids past the loaded ones");
    // The restock trigger kept every product in stock.
    assert_eq!(db.int("ds2", "SELECT COUNT(*) FROM inventory WHERE quan_in_stock < 0"), 0);

    // Client-side: the statements, no procedure needed.
    db.sql("ds2", "DROP PROCEDURE OLTPGEN_PURCHASE");
    let before = db.int("ds2", "SELECT MAX(orderid) FROM orders");
    let r = run(&url, "4s", &["--transactions", "client"]);
    assert_ran(&r);
    assert_eq!(r["config"]["transactions"], "client", "{}", r["config"]);
    assert!(db.int("ds2", "SELECT MAX(orderid) FROM orders") > before, "client-side purchases");
    assert_intact(&["--url", &url]);

    // Restored runs start from the loaded rows and new ids continue past them.
    let reload = oltpgen(&["ds2", "load", "--url", &url, "--replace", "-q"]);
    assert_eq!(reload.code, 0, "{}", reload.all());
    let run = [&["--run-time", "3s"][..], &QUICK].concat();
    assert_two_runs_restored_from_the_generator("ds2", &url, &run, ("orders", orders));
    assert_intact(&["--url", &url]);
    let next = db.int(
        "",
        "SELECT auto_increment FROM information_schema.tables WHERE table_schema = 'ds2' AND table_name = 'orders'",
    );
    assert!(next > db.int("ds2", "SELECT MAX(orderid) FROM orders"), "the counter is past every order");

    // drop removes exactly what the load created: tables, trigger, procedures.
    db.sql("ds2", "CREATE TABLE keep_me (x INT); CREATE PROCEDURE mine() SELECT 1");
    let out = oltpgen(&["ds2", "drop", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    let left = db.sql(
        "",
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'ds2' \
         UNION ALL SELECT routine_name FROM information_schema.routines WHERE routine_schema = 'ds2' \
         UNION ALL SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = 'ds2'",
    );
    let mut left: Vec<&str> = left.lines().collect();
    left.sort_unstable();
    assert_eq!(left, ["keep_me", "mine"], "exactly what the load created is gone");
}

#[test]
fn client_side_ds2_is_refused_in_one_line_where_the_engine_runs_it_server_side_only() {
    let out =
        oltpgen(&["ds2", "run", "--url", "postgres://bench@127.0.0.1:1/ds2", "--transactions", "client"]);
    assert_refused(&out, "--transactions client runs DS2 on MySQL and MariaDB only");
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn two_mariadb_databases_are_loaded_and_swept_side_by_side_under_a_cap() {
    let db = MariaDb::start();
    db.sql("", "CREATE DATABASE ds2_a; CREATE DATABASE ds2_b");
    let (a, b) = (db.url("ds2_a"), db.url("ds2_b"));
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("r");
    // Bare `ds2`: loads each empty database, then sweeps 2 and 4 threads per database.
    let out = oltpgen(&[
        "ds2",
        "--url",
        &a,
        "--url",
        &b,
        "--n-threads",
        "2,4",
        "--rt-cap",
        "order.avg=2s",
        "--think-time",
        "0",
        "--warmup-time",
        "1s",
        "--run-time",
        "3s",
        "--client-threads",
        "2",
        "-q",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    let r = result_json(&out_path);
    assert_matches_schema(&r);
    assert_eq!(r["targets"].as_array().unwrap().len(), 2, "{}", r["targets"]);
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.iter().map(|s| s["users"].as_u64().unwrap()).collect::<Vec<_>>(), [4, 8]);
    for step in steps {
        assert_eq!(step["cap"]["rules"][0]["rule"], "order.avg=2s", "{step}");
        let per_db = step["targets"].as_object().unwrap();
        assert_eq!(per_db.len(), 2, "{per_db:?}");
        for t in per_db.values() {
            assert!(t["transactions"]["purchase"]["count"].as_u64().unwrap() > 0, "{t}");
        }
    }
    assert!(r["max_within_cap"]["opm"].as_f64().unwrap() > 0.0, "{}", r["max_within_cap"]);
    for url in [a, b] {
        assert_intact(&["--url", &url]);
    }
}
