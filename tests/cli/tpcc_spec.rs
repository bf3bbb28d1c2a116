//! TPC-C as its standard defines it, on a real server, with the transactions client-side and server-side
//! (`--transactions`: each test runs both, each on its own copy of one load): the isolation level pinned
//! whatever the server's default, every COMMIT checked, Deliveries that never skip a district with
//! orders, a Payment without its customer failing whole, a rolled-back New-Order doing its work first, an
//! item named twice updating its stock twice, and every step's audit figures in the result and its
//! renderings.

use std::path::Path;

use crate::common::{Outcome, assert_matches_schema, data_dir, oltpgen, result_json, sql, start_server};

/// Flat out, many users on the one warehouse so that Deliveries and New-Orders meet on the same rows.
const CROWDED: &str =
    "--think-time 0 --keying-time 0 --warmup 1s --report-interval 2s --users 16 --duration 8s";

fn load(root: &str) {
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
}

/// Both ways of running the transactions.
const MODES: [&str; 2] = ["client", "server"];

/// Loads once and hands each mode its own copy of the load (a data directory under `keep`) and a
/// result directory.
fn copies_of_one_load(keep: &Path) -> Vec<(String, std::path::PathBuf, &'static str)> {
    let root = keep.join("pg").to_string_lossy().into_owned();
    load(&root);
    MODES
        .iter()
        .map(|&transactions| {
            let copy = keep.join(transactions).to_string_lossy().into_owned();
            let cp = std::process::Command::new("cp").args(["-a", &root, &copy]).status().unwrap();
            assert!(cp.success());
            (copy, keep.join(format!("{transactions}-result")), transactions)
        })
        .collect()
}

/// Runs the crowded step into `out_dir`, which must exit with `code`: its result.
fn run(root: &str, out_dir: &Path, transactions: &str, code: i32) -> (Outcome, serde_json::Value) {
    let mut args = vec!["tpcc", "run", "--data-dir", root, "--out", out_dir.to_str().unwrap()];
    args.extend(CROWDED.split(' '));
    args.extend(["--transactions", transactions]);
    let out = oltpgen(&args);
    assert_eq!(out.code, code, "{}", out.all());
    let r = result_json(out_dir);
    assert_matches_schema(&r);
    assert_eq!(r["config"]["transactions"], transactions);
    (out, r)
}

fn assert_consistent(root: &str) {
    let out = oltpgen(&["tpcc", "check", "--data-dir", root]);
    assert_eq!(out.code, 0, "the database is consistent after the run:\n{}", out.all());
}

/// Rows inserted into orders and order_line that are not there (their transaction rolled back).
async fn aborted_inserts(c: &tokio_postgres::Client) -> (i64, i64) {
    let row = c
        .query_one(
            "SELECT (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'orders') - (SELECT count(*) FROM orders), \
               (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'order_line') - (SELECT count(*) FROM order_line)",
            &[],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

fn check<'a>(step: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    let checks = step["audit"]["checks"].as_array().expect("the step is audited");
    checks.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no check {name}: {checks:#?}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_serializable_default_still_runs_read_committed_and_every_district_and_line_is_served() {
    let (keep, _) = data_dir();
    for (root, out_dir, transactions) in copies_of_one_load(keep.path()) {
        serializable_default(&root, &out_dir, transactions).await;
    }
}

async fn serializable_default(root: &str, out_dir: &Path, transactions: &str) {
    let before = {
        let pg = start_server(root);
        let c = sql(&pg.target("tpcc")).await;
        c.batch_execute("ALTER DATABASE tpcc SET default_transaction_isolation = 'serializable'")
            .await
            .unwrap();
        aborted_inserts(&c).await
    };
    let (_, r) = run(root, out_dir, transactions, 0);
    assert_eq!(r["config"]["isolation"], "read committed");
    assert_eq!(r["config"]["delivery"], "inline");
    let step = &r["steps"][0];
    // Under SERIALIZABLE, New-Orders of one district fail to serialize on d_next_o_id: none may here.
    assert_eq!((step["errors"].as_u64(), step["retries"].as_u64()), (Some(0), Some(0)), "{step}");
    let deliveries = step["transactions"]["delivery"]["count"].as_u64().unwrap();
    assert!(deliveries > 10, "{deliveries} Deliveries");
    // 2.7.4.2 / 3.4.1: 900 undelivered orders per district, so no district may be skipped.
    assert_eq!(step["audit"]["counters"]["skipped_districts"], 0, "{}", step["audit"]);
    assert_eq!(check(step, "skipped Delivery districts")["verdict"], "pass");
    assert_eq!(check(step, "keying and think times")["verdict"], "flag");
    assert_eq!(check(step, "users per warehouse")["shown"], "16.00");
    let lines = step["audit"]["counters"]["order_lines"].as_u64().unwrap();
    let new_orders = step["transactions"]["new_order"]["count"].as_u64().unwrap();
    assert!((5 * new_orders..=15 * new_orders).contains(&lines), "{lines} lines of {new_orders} orders");
    let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    for needle in
        ["audit of step 1 run 1", "skipped Delivery districts", "Delivery runs inline, not deferred"]
    {
        assert!(summary.contains(needle), "{needle}: {summary}");
    }
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("audit of step 1 run 1"), "report.html shows the audit");
    let shown = oltpgen(&["report", "show", out_dir.to_str().unwrap()]);
    assert!(shown.stdout.contains("remote Payments"), "{}", shown.all());
    assert_consistent(root);

    let pg = start_server(root);
    let c = sql(&pg.target("tpcc")).await;
    // 2.4.2.3: a New-Order that rolls back first enters its order and its valid lines (4 or more).
    let after = aborted_inserts(&c).await;
    let (orders, lines) = (after.0 - before.0, after.1 - before.1);
    assert!(orders >= 1 && lines >= 4 * orders, "rolled back: {orders} orders, {lines} lines");
    // 2.4.1.5.1: some orders name an item twice, and every line updated its stock row.
    let stock = c
        .query_one(
            "SELECT (SELECT sum(s_order_cnt) FROM stock)::int8, (SELECT sum(s_ytd) FROM stock)::int8, \
               (SELECT count(*) FROM order_line WHERE ol_o_id > 3000), \
               (SELECT sum(ol_quantity) FROM order_line WHERE ol_o_id > 3000)::int8, \
               (SELECT count(*) FROM (SELECT FROM order_line WHERE ol_o_id > 3000 \
                  GROUP BY ol_w_id, ol_d_id, ol_o_id, ol_i_id, ol_supply_w_id HAVING count(*) > 1) twice)",
            &[],
        )
        .await
        .unwrap();
    let (order_cnt, ytd, new_lines, quantity, twice): (i64, i64, i64, i64, i64) =
        (stock.get(0), stock.get(1), stock.get(2), stock.get(3), stock.get(4));
    assert!(twice > 0, "no order named an item twice in {new_lines} lines");
    assert_eq!((order_cnt, ytd), (new_lines, quantity), "each line updates its stock row");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_commit_and_a_payment_without_its_customer_are_failures_that_leave_no_trace() {
    let (keep, _) = data_dir();
    for (root, out_dir, transactions) in copies_of_one_load(keep.path()) {
        failures_leave_no_trace(&root, &out_dir, transactions).await;
    }
}

async fn failures_leave_no_trace(root: &str, out_dir: &Path, transactions: &str) {
    {
        let pg = start_server(root);
        let c = sql(&pg.target("tpcc")).await;
        // Payments by last name in district 1 find nobody; every Delivery fails at its COMMIT.
        c.batch_execute(
            "UPDATE customer SET c_last = 'NOBODY' WHERE c_d_id = 1; \
             CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$; \
             CREATE CONSTRAINT TRIGGER refuse AFTER DELETE ON new_order DEFERRABLE INITIALLY DEFERRED \
               FOR EACH ROW EXECUTE FUNCTION refuse()",
        )
        .await
        .unwrap();
    }
    // Every Delivery failing is far over the 1% of failures a measured step allows: the step is INVALID,
    // and a run whose every step is INVALID measured nothing (exit 1, issue 35), its result still written.
    let (out, r) = run(root, out_dir, transactions, 1);
    let last = out.stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: nothing was measured: the step is INVALID (step 1: "), "{}", out.all());
    let step = &r["steps"][0];
    let delivery = &step["transactions"]["delivery"];
    assert_eq!(delivery["count"], 0, "a Delivery whose COMMIT failed did not complete: {delivery}");
    assert!(delivery["errors"].as_u64().unwrap() > 0, "{delivery}");
    let payment = &step["transactions"]["payment"];
    assert!(payment["errors"].as_u64().unwrap() > 0, "a Payment without its customer fails: {payment}");
    assert!(payment["count"].as_u64().unwrap() > 0, "{payment}");
    assert!(r["errors_by_kind"]["fatal"].as_u64().unwrap() > 0, "{}", r["errors_by_kind"]);
    {
        let pg = start_server(root);
        let c = sql(&pg.target("tpcc")).await;
        c.batch_execute("DROP TRIGGER refuse ON new_order; DROP FUNCTION refuse()").await.unwrap();
    }
    // 3.3.2.8 and 3.3.2.9: no warehouse or district was paid without a history row.
    assert_consistent(root);
}
