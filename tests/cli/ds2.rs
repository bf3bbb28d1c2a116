//! DS2: load, check, runs on one database and on several side by side, the all-or-nothing purchase,
//! faults (killed connections, a restarted server, Ctrl-C) and refusals.

use std::path::Path;
use std::process::Command;

use oltpgen_driver::local::LocalPg;

use crate::common::{
    PG_OWN_FUNCTION, assert_intact, assert_matches_schema, assert_refused,
    assert_survives_kills_and_a_restart, attach, data_dir, finish, oltpgen, pg_objects, result_json,
    server_with, spawn, sql, wait_for_load,
};
use crate::figures::{assert_client_cpu, assert_figures_from_counts, assert_rt_tot_avg_spans_operations};

/// Flat out and short: 4 users per database over two client threads, no think time, 1 s of warmup, a
/// line every 2 s.
pub(crate) const QUICK: [&str; 10] = [
    "--n-threads",
    "4",
    "--think-time",
    "0",
    "--warmup-time",
    "1s",
    "--report-rate",
    "2",
    "--client-threads",
    "2",
];

async fn count(client: &tokio_postgres::Client, table: &str) -> i64 {
    client.query_one(&format!("SELECT count(*) FROM {table}"), &[]).await.unwrap().get(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn bare_ds2_loads_runs_and_reports_in_ds2_terms_and_the_data_stays_intact() {
    let (keep, root) = data_dir();
    let out_dir = keep.path().join("result");
    let csv = keep.path().join("intervals.csv");
    let args = [
        &["ds2", "--run-time", "6s", "--detailed-view", "--data-dir", &root][..],
        &["--out", out_dir.to_str().unwrap(), "--csv-output", csv.to_str().unwrap()],
        &QUICK,
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        out.stdout.contains("loaded ds2 --db-size 10MB"),
        "an empty database is loaded first: {}",
        out.stdout
    );
    assert!(
        out.stdout.contains("opm=") && out.stdout.contains("rt_tot_avg="),
        "progress lines: {}",
        out.stdout
    );
    // DS2's progress line: running totals since the stats reset, as ds2xdriver prints them.
    for needle in
        [" n_overall=", " rt_tot_lastn_max_msec=", " rt_tot_avg_msec=", " rt_tot_sampled=", " rollbacks: n="]
    {
        assert!(out.stdout.contains(needle), "{needle} in the progress lines: {}", out.stdout);
    }
    assert!(out.stdout.contains("\nStats reset\n"), "the warmup's end resets the totals: {}", out.stdout);
    assert!(
        out.stdout.contains("cap order.avg=1s: order = a whole order from its intended start"),
        "{}",
        out.stdout
    );
    // The step table and the headline speak OPM and rt_tot_avg.
    assert!(out.stdout.contains("     OPM  rt_tot_avg ms  order avg ms"), "{}", out.stdout);
    assert!(out.stdout.contains("max OPM within cap order.avg=1s: "), "{}", out.stdout);
    assert!(out.stdout.contains("Final (step 1 run 1): et="), "DS2's final line: {}", out.stdout);
    assert!(out.stdout.contains("  purchase "), "the detailed view: {}", out.stdout);
    assert!(out.stdout.contains("per order"), "client CPU per order: {}", out.stdout);

    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert_eq!(r["workload"], "ds2");
    let step = &r["steps"][0];
    assert_eq!(step["users"], 4);
    assert_figures_from_counts(step);
    assert_rt_tot_avg_spans_operations(step);
    assert_client_cpu(&r);
    assert!(step["opm"].as_f64().unwrap() > 60.0, "{}", step["opm"]);
    // rt_tot_avg is DS2's, the sum of an order's operations' times; the whole order from its intended
    // start, which also counts the gaps between them, is never shorter.
    let (rt_tot, order) =
        (step["rt_tot_avg_ms"].as_f64().unwrap(), step["order_rt_avg_ms"].as_f64().unwrap());
    assert!(rt_tot > 0.0 && order >= rt_tot * 0.999, "rt_tot_avg {rt_tot} ms, the order's {order} ms");
    assert_eq!(
        step["transactions"]["rt_tot"]["count"], step["transactions"]["order"]["count"],
        "one each per order"
    );
    assert_eq!(r["max_within_cap"]["opm"], step["opm"], "the headline is DS2's OPM");
    for op in
        ["login", "new_customer", "browse_category", "browse_actor", "browse_title", "purchase", "order"]
    {
        assert!(step["transactions"][op]["count"].as_u64().unwrap() > 0, "{op} ran");
    }
    let t = &step["transactions"];
    // Samples count in the window they complete in: each of the 4 users has at most one order whose
    // operations straddle each edge of the window.
    let orders = t["order"]["count"].as_u64().unwrap();
    let ran = |op: &str| t[op]["count"].as_u64().unwrap();
    assert!(ran("purchase").abs_diff(orders) <= 4, "one purchase per order: {t}");
    let arrivals = ran("login") + ran("new_customer");
    assert!(arrivals.abs_diff(orders) <= 4, "a login or a registration per order: {arrivals} for {orders}");
    assert!(r["client"]["client_cpu_us_per_order"].as_f64().unwrap() > 0.0);
    assert_eq!(r["config"]["pct_newcustomers"], 20);
    assert_eq!(r["config"]["rt_cap"], "order.avg=1s", "DS2 caps a whole order's mean by default");
    assert_eq!(step["cap"]["rules"][0]["rule"], "order.avg=1s");
    assert!(std::fs::read_to_string(out_dir.join("report.html")).unwrap().contains("<svg"));

    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(rows.starts_with("run_s,et_s,target,users,opm,rt_tot_avg_ms,"), "{rows}");
    // Issue 39: each row's et_s is its progress line's et=, which restarts at `Stats reset` as DS2's
    // driver's does; run_s goes on.
    for row in rows.lines().skip(1).filter(|r| r.split(',').nth(2) == Some("all")) {
        let (run_s, et_s) =
            row.split_once(',').map(|(a, rest)| (a, rest.split(',').next().unwrap())).unwrap();
        let et_s: f64 = et_s.parse().unwrap();
        assert!(out.stdout.contains(&format!("et={et_s:7.1} n_overall=")), "{row}: {}", out.stdout);
        assert!(run_s.parse::<f64>().unwrap() >= et_s, "{row}");
    }
    let last = rows.lines().last().unwrap();
    let clock = |i: usize| last.split(',').nth(i).unwrap().parse::<f64>().unwrap();
    assert!(clock(0) > clock(1), "after the reset et_s restarted, run_s did not: {last}");
    assert!(rows.lines().next().unwrap().ends_with(",order_avg_ms,order_max_ms"), "{rows}");
    assert!(rows.lines().count() >= 3, "a row per interval: {rows}");

    assert_intact(&["--data-dir", &root]);
    let server = crate::common::start_server(&root);
    let client = sql(&server.target("ds2")).await;
    assert!(count(&client, "orders").await > 12_000, "orders were added to the 12,000 loaded");
    assert!(count(&client, "customers").await > 20_000, "customers registered");
    drop((client, server));

    // Another size than the one loaded is refused, naming both.
    let out = oltpgen(&["ds2", "run", "--db-size", "1GB", "--run-time", "5s", "--data-dir", &root]);
    assert_refused(&out, "holds ds2 at --db-size 10MB but --db-size 1GB was asked");
    assert!(!out.stdout.contains("running ds2"), "nothing starts before the checks pass: {}", out.stdout);
    // Reloading needs --replace.
    assert_refused(
        &oltpgen(&["ds2", "load", "--data-dir", &root]),
        "already holds a ds2 database (--db-size 10MB)",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn two_databases_side_by_side_report_each_and_the_variability() {
    let (pg, urls) = server_with(&["ds2_1", "ds2_2", "ds2_empty"]).await;
    for url in &urls[..2] {
        let out = oltpgen(&["ds2", "load", "--db-size", "10mb", "--url", url, "-q"]);
        assert_eq!(out.code, 0, "{}", out.all());
    }
    assert_intact(&["--url", &urls[0], "--url", &urls[1]]);
    let dir = tempfile::tempdir().unwrap();
    let args = [
        &["ds2", "run", "--url", &urls[0], "--url", &urls[1], "--run-time", "5s", "--detailed-view"][..],
        &["--out", dir.path().to_str().unwrap()],
        &QUICK,
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(dir.path());
    assert_matches_schema(&r);
    assert_eq!(r["targets"].as_array().unwrap().len(), 2);
    let step = &r["steps"][0];
    assert_eq!(step["users"], 8, "--n-threads is per database");
    assert_eq!(r["config"]["client_threads"], 2, "each database's users on both threads");
    let per_db = step["targets"].as_object().unwrap();
    assert_eq!(per_db.len(), 2, "{step}");
    let opm: Vec<f64> = per_db.values().map(|f| f["opm"].as_f64().unwrap()).collect();
    assert!(opm.iter().all(|o| *o > 0.0), "{opm:?}");
    assert!((opm.iter().sum::<f64>() - step["opm"].as_f64().unwrap()).abs() < 1e-6, "the total is the sum");
    assert!(out.stdout.contains("variability across databases"), "{}", out.stdout);
    assert!(
        out.stdout.contains(&format!("  {}: et=", pg.target("ds2_2").label())),
        "a progress line per database: {}",
        out.stdout
    );
    assert!(out.stdout.contains("per target OPM"), "{}", out.stdout);
    assert_intact(&["--url", &urls[0], "--url", &urls[1]]);

    assert_refused(&oltpgen(&["ds2", "run", "--url", &urls[0], "--url", &urls[0]]), "twice");
    // A database that cannot be driven stops the run before any is touched.
    let runs = || async {
        let client = sql(&pg.target("ds2_1")).await;
        let row =
            client.query_one("SELECT params->>'runs' FROM oltpgen_meta WHERE workload = 'ds2'", &[]).await;
        row.unwrap().get::<_, Option<String>>(0)
    };
    let before = runs().await;
    assert_refused(&oltpgen(&["ds2", "run", "--url", &urls[0], "--url", &urls[2]]), "holds no ds2 database");
    assert_eq!(runs().await, before, "the loaded database's run count is untouched");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_purchase_short_of_stock_leaves_nothing_behind_and_counts_as_a_rolled_back_order() {
    let (pg, urls) = server_with(&["ds2"]).await;
    let url = &urls[0];
    let out = oltpgen(&["ds2", "load", "--url", url, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let client = sql(&pg.target("ds2")).await;
    // The reorder trigger restocks a product whose stock falls under 3, and records it.
    client.batch_execute("UPDATE inventory SET quan_in_stock = 2 WHERE prod_id = 1").await.unwrap();
    let restocked: i32 =
        client.query_one("SELECT quan_in_stock FROM inventory WHERE prod_id = 1", &[]).await.unwrap().get(0);
    assert_eq!(restocked, 250, "restocked by the trigger");
    assert_eq!(count(&client, "reorder WHERE prod_id = 1").await, 1, "and a reorder row written");
    // Empty shelves everywhere (without the trigger restocking them at once).
    client
        .batch_execute(
            "ALTER TABLE inventory DISABLE TRIGGER USER; UPDATE inventory SET quan_in_stock = 0; \
             ALTER TABLE inventory ENABLE TRIGGER USER",
        )
        .await
        .unwrap();
    let before = [
        count(&client, "orders").await,
        count(&client, "orderlines").await,
        count(&client, "cust_hist").await,
    ];
    let sales: i64 = client.query_one("SELECT sum(sales)::int8 FROM inventory", &[]).await.unwrap().get(0);

    let dir = tempfile::tempdir().unwrap();
    let args = [
        &["ds2", "run", "--url", url, "--run-time", "4s", "--pct-newcustomers", "0"][..],
        &["--out", dir.path().to_str().unwrap(), "-q"],
        &QUICK,
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(dir.path());
    let order = &r["steps"][0]["transactions"]["order"];
    let orders = order["count"].as_u64().unwrap();
    assert!(orders > 0);
    assert_eq!(order["rollbacks"].as_u64(), Some(orders), "every purchase was short of stock");
    let purchases = r["steps"][0]["transactions"]["purchase"]["rollbacks"].as_u64().unwrap();
    // A purchase and its order can fall on either side of the window's edges: at most one per user each.
    assert!(purchases.abs_diff(orders) <= 4, "every purchase rolled back: {purchases} for {orders} orders");
    assert!(
        r["steps"][0]["opm"].as_f64().unwrap() > 0.0,
        "rolled-back orders count in OPM, as DS2 counts them"
    );
    assert_eq!(r["steps"][0]["errors"], 0, "a rollback is not an error");

    let after = [
        count(&client, "orders").await,
        count(&client, "orderlines").await,
        count(&client, "cust_hist").await,
    ];
    assert_eq!(after, before, "no order, line or history row of a rolled-back purchase remains");
    let stock: i64 =
        client.query_one("SELECT sum(quan_in_stock)::int8 FROM inventory", &[]).await.unwrap().get(0);
    let sales_after: i64 =
        client.query_one("SELECT sum(sales)::int8 FROM inventory", &[]).await.unwrap().get(0);
    assert_eq!((stock, sales_after), (0, sales), "inventory untouched");
    assert_intact(&["--url", url]);
}

/// A loaded S database in its own directory, and `ds2 run --run-time <run_time>` under way on it.
async fn run_under_way(
    run_time: &str,
) -> (tempfile::TempDir, String, std::path::PathBuf, std::process::Child, LocalPg) {
    let (keep, root) = data_dir();
    let out = oltpgen(&["ds2", "load", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out_dir = keep.path().join("result");
    let args = [
        &["ds2", "run", "--run-time", run_time, "--data-dir", &root, "--out", out_dir.to_str().unwrap()][..],
        &QUICK,
    ]
    .concat();
    let run = spawn(&args);
    let observer = attach(&root).await;
    wait_for_load(&sql(&observer.target("postgres")).await, "ds2", 4).await;
    (keep, root, out_dir, run, observer)
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_connections_and_a_restarted_server_are_survived_and_counted() {
    let (_keep, root, out_dir, run, observer) = run_under_way("10m").await;
    assert_survives_kills_and_a_restart(observer, &root, "ds2", 4, run, &out_dir, "order").await;
    assert_intact(&["--data-dir", &root]);
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_writes_what_ran_and_ends_a_run_time_0_run_as_asked() {
    // --run-time 0 runs until Ctrl-C, as DS2's does: then Ctrl-C is the normal end.
    let (_keep, root, out_dir, run, observer) = run_under_way("0").await;
    drop(observer);
    assert!(Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap().success());
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert_eq!(r["interrupted"], false, "the run ended as asked");
    assert!(r["steps"][0]["transactions"]["order"]["count"].as_u64().unwrap() > 0);
    assert!(
        r["steps"][0]["cap"]["invalid"].is_null(),
        "measured until Ctrl-C, as asked: {}",
        r["steps"][0]["cap"]
    );
    assert!(out.stdout.contains("Final (step 1 run 1)"), "{}", out.stdout);
    assert!(!out.stdout.contains("INTERRUPTED"), "{}", out.stdout);

    // A run with a set length that Ctrl-C cuts short exits 130, its result written.
    let out_dir = Path::new(&root).parent().unwrap().join("cut");
    let run = spawn(
        &[
            &["ds2", "run", "--run-time", "10m", "--data-dir", &root, "--out", out_dir.to_str().unwrap()][..],
            &QUICK,
        ]
        .concat(),
    );
    let observer = attach(&root).await;
    wait_for_load(&sql(&observer.target("postgres")).await, "ds2", 4).await;
    drop(observer);
    assert!(Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap().success());
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(out.code, 130, "{}", out.all());
    let r = result_json(&out_dir);
    assert_eq!(r["interrupted"], true);
    assert_eq!(
        r["steps"][0]["cap"]["invalid"], "the run was stopped during the step",
        "{}",
        r["steps"][0]["cap"]
    );
    assert!(r["max_within_cap"].is_null(), "{}", r["max_within_cap"]);
    assert_intact(&["--data-dir", &root]);
}

#[test]
fn ds2_load_writes_csv_files_instead_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = oltpgen(&["ds2", "load", "--csv", dir.path().to_str().unwrap(), "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let lines = |table: &str| {
        std::fs::read_to_string(dir.path().join(format!("{table}.csv"))).unwrap().lines().count()
    };
    assert_eq!((lines("customers"), lines("orders"), lines("products")), (20_000, 12_000, 10_000));
    assert_eq!((lines("categories"), lines("reorder")), (16, 0));
    assert_eq!(lines("orderlines"), lines("cust_hist"), "a history row per order line");
}

#[test]
fn ds2_flags_are_checked() {
    assert_refused(&oltpgen(&["ds2", "load", "--db-size", "10XB", "--temp-db"]), "not a DS2 size");
    assert_refused(&oltpgen(&["ds2", "load", "--db-size", "0GB", "--temp-db"]), "--db-size");
    assert_refused(&oltpgen(&["ds2", "run", "--n-line-items", "0", "--temp-db"]), "--n-line-items");
    assert_refused(&oltpgen(&["ds2", "run", "--pct-newcustomers", "101", "--temp-db"]), "--pct-newcustomers");
    assert_refused(&oltpgen(&["ds2", "run", "--run-time", "soon", "--temp-db"]), "not a duration");
    assert_refused(&oltpgen(&["ds2", "run", "--n-threads", "8,4", "--temp-db"]), "must not decrease");
    assert_refused(
        &oltpgen(&["ds2", "run", "--run-time", "0", "--runs", "3", "--temp-db"]),
        "a run time of 0 runs until Ctrl-C, which ends the study",
    );
    assert_refused(
        &oltpgen(&["ds2", "run", "--temp-db"]),
        "`ds2 run` has nothing to work on: `oltpgen ds2 --temp-db …` loads and runs in one command",
    );
}

/// A load that fails at its last step (creating DS2's functions) stays marked unfinished: every command
/// refuses the database, as after an interrupted load, until it is loaded again.
#[tokio::test(flavor = "multi_thread")]
async fn a_load_that_failed_creating_functions_is_refused_by_every_command() {
    let (pg, urls) = server_with(&["ds2"]).await;
    let url = &urls[0];
    // A function of oltpgen's name with another return type: the load's CREATE OR REPLACE cannot replace it.
    let client = sql(&pg.target("ds2")).await;
    client
        .batch_execute("CREATE FUNCTION oltpgen_login(text, text) RETURNS int LANGUAGE sql AS 'SELECT 1'")
        .await
        .unwrap();
    let out = oltpgen(&["ds2", "load", "--url", url, "-q"]);
    assert_eq!(out.code, 1, "the load fails: {}", out.all());
    assert!(out.stderr.contains("finishing the ds2 schema"), "{}", out.stderr);
    for command in ["run", "check"] {
        let out = oltpgen(
            &["ds2", command, "--url", url, "--run-time", "5s"][..if command == "run" { 6 } else { 4 }],
        );
        assert_refused(&out, "a ds2 load into");
        assert!(
            out.stderr.contains("did not finish: reload it (oltpgen ds2 load --replace)"),
            "{}",
            out.stderr
        );
    }
    assert_refused(&oltpgen(&["ds2", "load", "--url", url]), "did not finish: pass --replace");
    client.batch_execute("DROP FUNCTION oltpgen_login(text, text)").await.unwrap();
    let out = oltpgen(&["ds2", "load", "--replace", "--url", url, "-q"]);
    assert_eq!(out.code, 0, "a reload mends it: {}", out.all());
    // TPC-C's commands see oltpgen's DS2 database for what it is (both have an `orders` table), and
    // leave it alone, --replace or not.
    for args in [&["tpcc", "check"][..], &["tpcc", "drop"], &["tpcc", "load", "--scale", "1", "--replace"]] {
        let out = oltpgen(&[args, &["--url", url]].concat());
        assert_refused(&out, "holds oltpgen's ds2 database, whose tables share names with tpcc's");
        assert!(out.stderr.contains("(oltpgen ds2 drop)"), "{}", out.stderr);
    }
    let made = pg_objects(&client).await;
    for object in ["customers_customerid_seq", "login", "oltpgen_purchase", "restock", "restock_order"] {
        assert!(made.iter().any(|o| o == object), "{object} in {made:?}");
    }
    client.batch_execute(PG_OWN_FUNCTION).await.unwrap();
    // The user's own overload of one of DS2's names; and what an earlier oltpgen left, its own
    // signature of purchase, which the load would have dropped.
    client.batch_execute("CREATE FUNCTION login(int4) RETURNS int LANGUAGE sql AS 'SELECT 1'").await.unwrap();
    client
        .batch_execute(
            "CREATE FUNCTION purchase(int4, int4[], int4[]) RETURNS int LANGUAGE sql AS 'SELECT 1'",
        )
        .await
        .unwrap();
    let out = oltpgen(&["ds2", "drop", "--url", url]);
    assert!(out.code == 0 && out.stdout.contains("dropped the ds2 tables"), "{}", out.all());
    assert_eq!(
        pg_objects(&client).await,
        ["login", "users_own"],
        "drop leaves the user's functions alone (their login(int4) beside DS2's login), and only them: \
         an earlier oltpgen's purchase went too"
    );
    let left: String = client
        .query_one("SELECT oid::regprocedure::text FROM pg_proc WHERE proname = 'login'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, "login(integer)", "the user's overload, not DS2's");
    let out = oltpgen(&["ds2", "drop", "--url", url]);
    assert!(out.code == 0 && out.stdout.contains("holds no ds2 tables: nothing to drop"), "{}", out.all());
}

/// `--window` alone: the banner says what is measured (it printed the warmup and run time the window
/// replaces), the run ends with the window although --run-time 0 means "until Ctrl-C", and the result
/// records the window.
#[test]
fn a_window_is_what_the_banner_says_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("result");
    let args = ["ds2", "--temp-db", "--n-threads", "2", "--think-time", "0", "--report-rate", "1"];
    let out = oltpgen(&[&args[..], &["--window", "2s..4s", "--out", out_dir.to_str().unwrap()]].concat());
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains(", measuring 2 s..4 s of each step (think"), "{}", out.stdout);
    assert!(!out.stdout.contains("until Ctrl-C"), "{}", out.stdout);
    let result = result_json(&out_dir);
    assert_eq!(result["config"]["window_s"], serde_json::json!([2.0, 4.0]), "{result:#}");
}
