//! TPC-C's transactions server-side (`--transactions server`, PL/pgSQL functions) against the client-side
//! statements they replace: created at load and on an older database at run start, consistent after
//! killed connections, a restart, Ctrl-C and SIGTERM, and, driven by one user with one seeded input
//! stream, leaving byte-for-byte the tables the client-side version leaves.

use std::path::Path;
use std::process::Command;

use oltpgen_driver::pg;

use crate::common::{
    assert_survives_kills_and_a_restart, attach, data_dir, finish, oltpgen, result_json, spawn, sql,
    start_server, wait_for_load,
};
use crate::tpcc_stream;

/// Flat out, server-side, six users on the one warehouse.
const SERVER_SIDE: &str =
    "--transactions server --think-time 0 --keying-time 0 --warmup 1s --report-interval 2s --users 6";

fn load(root: &str) {
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
}

fn assert_consistent(root: &str) {
    let out = oltpgen(&["tpcc", "check", "--data-dir", root]);
    assert_eq!(out.code, 0, "the database is consistent after the run:\n{}", out.all());
}

fn run_args<'a>(root: &'a str, out_dir: &'a Path, duration: &'a str) -> Vec<&'a str> {
    let mut args =
        vec!["tpcc", "run", "--data-dir", root, "--out", out_dir.to_str().unwrap(), "--duration", duration];
    args.extend(SERVER_SIDE.split(' '));
    args
}

/// The functions' names and the version the database holds.
async fn functions(c: &tokio_postgres::Client) -> (Vec<String>, Option<String>) {
    let rows = c
        .query("SELECT proname::text FROM pg_proc WHERE proname LIKE 'oltpgen\\_tpcc\\_%' ORDER BY 1", &[])
        .await
        .unwrap();
    let names = rows.iter().map(|r| r.get(0)).collect();
    let version = c.query_one("SELECT oltpgen_tpcc_procs_version()", &[]).await.ok().map(|r| r.get(0));
    (names, version)
}

const FUNCTIONS: [&str; 6] = [
    "oltpgen_tpcc_delivery",
    "oltpgen_tpcc_new_order",
    "oltpgen_tpcc_order_status",
    "oltpgen_tpcc_payment",
    "oltpgen_tpcc_procs_version",
    "oltpgen_tpcc_stock_level",
];

/// A short server-side run that must end well, with no transaction failing.
fn run_cleanly(root: &str, out_dir: &Path) {
    let out = oltpgen(&run_args(root, out_dir, "3s"));
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(out_dir);
    assert_eq!(r["config"]["transactions"], "server");
    assert!(r["steps"][0]["transactions"]["new_order"]["count"].as_u64().unwrap() > 0);
    assert_eq!(r["errors_by_kind"]["fatal"].as_u64().unwrap_or(0), 0, "{}", r["errors_by_kind"]);
}

/// The database holds the five functions and the version function, of this oltpgen's version.
async fn assert_current(c: &tokio_postgres::Client, why: &str) {
    let current = (FUNCTIONS.map(String::from).to_vec(), Some(pg::tpcc::procs::version()));
    assert_eq!(functions(c).await, current, "{why}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_functions_are_created_at_load_and_on_an_older_database_at_run_start() {
    let (keep, root) = data_dir();
    load(&root);
    {
        let pg = start_server(&root);
        let c = sql(&pg.target("tpcc")).await;
        assert_current(&c, "made at load").await;
        // A database loaded before the functions existed has none.
        c.batch_execute(
            "DROP FUNCTION oltpgen_tpcc_new_order, oltpgen_tpcc_payment, oltpgen_tpcc_order_status, \
               oltpgen_tpcc_delivery, oltpgen_tpcc_stock_level, oltpgen_tpcc_procs_version",
        )
        .await
        .unwrap();
        assert_eq!(functions(&c).await, (Vec::new(), None));
    }
    run_cleanly(&root, &keep.path().join("missing"));
    {
        let pg = start_server(&root);
        let c = sql(&pg.target("tpcc")).await;
        assert_current(&c, "made at run start").await;
        // An older version, with another argument list and a body that would fail every call.
        c.batch_execute(
            "DROP FUNCTION oltpgen_tpcc_new_order; \
             CREATE FUNCTION oltpgen_tpcc_new_order(int4) RETURNS int4 LANGUAGE sql AS 'SELECT 1/0'; \
             CREATE OR REPLACE FUNCTION oltpgen_tpcc_procs_version() RETURNS text LANGUAGE sql AS $$ SELECT 'old' $$",
        )
        .await
        .unwrap();
    }
    run_cleanly(&root, &keep.path().join("outdated"));
    assert_current(&sql(&start_server(&root).target("tpcc")).await, "replaced whole").await;
    assert_consistent(&root);
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_connections_a_restart_and_sigterm_leave_a_server_side_run_consistent() {
    let (keep, root) = data_dir();
    load(&root);
    let out_dir = keep.path().join("killed");
    let run = spawn(&run_args(&root, &out_dir, "10m"));
    let observer = attach(&root).await;
    let client = sql(&observer.target("postgres")).await;
    wait_for_load(&client, "tpcc", 6).await;
    drop(client);
    assert_survives_kills_and_a_restart(observer, &root, "tpcc", 6, run, &out_dir, "new_order").await;
    assert_eq!(result_json(&out_dir)["config"]["transactions"], "server");
    assert_consistent(&root);

    let out_dir = keep.path().join("sigterm");
    let run = spawn(&run_args(&root, &out_dir, "10m"));
    let observer = attach(&root).await;
    let client = sql(&observer.target("postgres")).await;
    wait_for_load(&client, "tpcc", 6).await;
    drop((client, observer));
    assert!(Command::new("kill").args(["-TERM", &run.id().to_string()]).status().unwrap().success());
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(out.code, 143, "{}", out.all());
    let r = result_json(&out_dir);
    assert_eq!(r["interrupted"], true);
    assert!(r["steps"][0]["transactions"]["delivery"]["count"].as_u64().unwrap() > 0);
    assert_consistent(&root);
}

/// Every table's rows as text, sorted, with the clock columns left out (order_line keeps whether a line
/// was delivered, not when).
async fn tables(c: &tokio_postgres::Client) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for table in oltpgen_driver::tpcc::table_names() {
        let clock = tpcc_stream::CLOCK_COLUMNS.map(|c| format!("'{c}'")).join(", ");
        let sql = format!(
            "SELECT string_agg(x, E'\\n' ORDER BY x) FROM (SELECT (to_jsonb(t) - ARRAY[{clock}] \
               || jsonb_build_object('delivered', to_jsonb(t) -> 'ol_delivery_d' <> 'null'::jsonb))::text AS x \
               FROM {table} t) rows"
        );
        all.push((table.to_string(), c.query_one(&sql, &[]).await.unwrap().get(0)));
    }
    all
}

/// The strongest test of the functions: the same inputs through each mode, on two copies of one load,
/// must leave the same bytes in every table.
#[tokio::test(flavor = "multi_thread")]
async fn one_input_stream_through_each_mode_leaves_identical_tables() {
    let (keep, root) = data_dir();
    load(&root);
    let copy = keep.path().join("copy").to_string_lossy().into_owned();
    let cp = Command::new("cp").args(["-a", &root, &copy]).status().unwrap();
    assert!(cp.success());
    let (client_pg, server_pg) = (start_server(&root), start_server(&copy));
    let (client_db, server_db) = (client_pg.target("tpcc"), server_pg.target("tpcc"));
    tpcc_stream::drive_both(&client_db, &server_db).await;
    let (a, b) = tokio::join!(async { tables(&sql(&client_db).await).await }, async {
        tables(&sql(&server_db).await).await
    });
    tpcc_stream::assert_same_tables(&a, &b);
    // The stream changed the tables: identical because both did the same work, not because neither did.
    let c = sql(&server_db).await;
    let row = c
        .query_one(
            "SELECT (SELECT count(*) FROM history WHERE h_date > (SELECT max(c_since) FROM customer)), \
               (SELECT count(*) FROM order_line l JOIN orders o ON (o_w_id, o_d_id, o_id) = (ol_w_id, ol_d_id, ol_o_id) \
                  WHERE o_entry_d > (SELECT max(c_since) FROM customer)), \
               (SELECT count(*) FROM customer WHERE c_credit = 'BC' AND c_payment_cnt > 1)",
            &[],
        )
        .await
        .unwrap();
    let (payments, lines, bad_credit): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert!(
        payments > 100 && lines > 1000 && bad_credit > 0,
        "{payments} payments, {lines} lines, {bad_credit} BC"
    );
}
