//! TPC-C client-side on SQL Server (`--transactions client`: the procedures' bodies sent as batches):
//! a run needs no procedure and leaves the database consistent, and one seeded input stream through
//! each mode leaves the same tables ([`crate::tpcc_stream`]).

use oltpgen_driver::Target;

use crate::common::{
    MssqlDb, assert_no_secret, mssql, mssql_exec, mssql_int, mssql_turn, mssql_url, oltpgen, result_json,
};
use crate::tpcc_stream;

/// Loads TPC-C at scale 1 (the default seed: two loads hold the same rows) into `url`.
#[track_caller]
fn load(url: &str) {
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--load-workers", "2", "--quiet", "--url", url]);
    assert_eq!(out.code, 0, "{}", out.all());
}

/// `tpcc check` on `url` passes every condition.
#[track_caller]
fn assert_consistent(url: &str) {
    let out = oltpgen(&["tpcc", "check", "--url", url]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("consistent: every condition that applies holds"), "{}", out.stdout);
}

/// The oltpgen procedures the database holds.
const PROCEDURES: &str = "SELECT COUNT(*) FROM sys.procedures WHERE name LIKE 'oltpgen[_]%'";

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn a_client_side_run_on_sql_server_needs_no_procedure_and_stays_consistent() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "client_side").await;
    load(&db.url);
    let mut client = mssql(&db.url).await;
    assert_eq!(mssql_int(&mut client, PROCEDURES).await, 5);
    // As on a database whose login may not create procedures: none is there.
    for name in ["new_order", "payment", "order_status", "delivery", "stock_level"] {
        mssql_exec(&mut client, &format!("DROP PROCEDURE oltpgen_{name}")).await;
    }
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("r");
    let out = oltpgen(&[
        "tpcc",
        "run",
        "--url",
        &db.url,
        "--transactions",
        "client",
        "--client-threads",
        "2",
        "--users",
        "4",
        "--duration",
        "10s",
        "--warmup",
        "1s",
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--report-interval",
        "2s",
        "--quiet",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    let r = result_json(&out_path);
    assert_eq!(r["config"]["transactions"], "client", "{}", r["config"]);
    assert_eq!(r["config"]["client_threads"], 2, "{}", r["config"]);
    for kind in ["new_order", "payment", "order_status", "delivery", "stock_level"] {
        let count = r["steps"][0]["transactions"][kind]["count"].as_u64().unwrap_or(0);
        assert!(count > 0, "{kind} ran: {}", r["steps"][0]["transactions"]);
    }
    assert_eq!(r["errors_by_kind"]["fatal"].as_u64().unwrap_or(0), 0, "{}", r["errors_by_kind"]);
    assert_eq!(mssql_int(&mut client, PROCEDURES).await, 0, "a client-side run creates no procedure");
    assert_consistent(&db.url);
}

/// Every table's rows as text, sorted, with the clock columns left out (order_line keeps whether a line
/// was delivered, not when).
async fn tables(url: &str) -> Vec<(String, String)> {
    let mut client = mssql(url).await;
    let mut all = Vec::new();
    for table in oltpgen_driver::tpcc::table_names() {
        let rows = mssql_exec(&mut client, &format!("SELECT * FROM {table}")).await;
        let mut lines: Vec<String> = rows[0]
            .iter()
            .map(|row| {
                let cells = row.cells().map(|(column, value)| match column.name() {
                    "ol_delivery_d" => {
                        format!("delivered={}", !matches!(value, tiberius::ColumnData::DateTime2(None)))
                    }
                    name if tpcc_stream::CLOCK_COLUMNS.contains(&name) => String::new(),
                    name => format!("{name}={value:?}"),
                });
                cells.collect::<Vec<_>>().join(" ")
            })
            .collect();
        lines.sort();
        all.push((table.to_string(), lines.join("\n")));
    }
    all
}

/// The procedures' bodies, sent as batches, do what the procedures do: the same inputs through each
/// mode, on two copies of one load, leave the same rows in every table.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn one_input_stream_through_each_mode_leaves_identical_tables_on_sql_server() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let (client_side, server_side) =
        (MssqlDb::create(&url, "stream_client").await, MssqlDb::create(&url, "stream_server").await);
    load(&client_side.url);
    load(&server_side.url);
    let target = |db: &MssqlDb| -> Target { oltpgen_driver::engine::parse_url(&db.url).unwrap() };
    tpcc_stream::drive_both(&target(&client_side), &target(&server_side)).await;
    let (a, b) = tokio::join!(tables(&client_side.url), tables(&server_side.url));
    tpcc_stream::assert_same_tables(&a, &b);
    // The stream changed the tables: identical because both did the same work, not because neither did.
    let mut client = mssql(&server_side.url).await;
    let payments = mssql_int(&mut client, "SELECT COUNT(*) FROM history").await - 30_000;
    let orders = mssql_int(&mut client, "SELECT COUNT(*) FROM orders").await - 30_000;
    let bad_credit =
        mssql_int(&mut client, "SELECT COUNT(*) FROM customer WHERE c_credit = 'BC' AND c_payment_cnt > 1")
            .await;
    assert!(
        payments > 100 && orders > 100 && bad_credit > 0,
        "{payments} payments, {orders} orders, {bad_credit} BC"
    );
}
