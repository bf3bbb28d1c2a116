//! A load in parts and a resumed load on SQL Server (Babelfish here; issue 44): each chunk's TDS bulk
//! insert runs inside a transaction with its done-mark, so `--begin`, `--agent I/N` and `--finish` load
//! the rows of a load in one process (the finish refusing, naming the part, while one is missing), and a
//! load killed with SIGKILL while its rows go in carries on with `--resume` to the same per-table
//! checksums; `tpcc check` passes on both. And `tpcc check --sample` there: a corruption in a drawn
//! warehouse caught, one elsewhere skipped. Scale 2 (two warehouses, so each of two parts has one):
//! each load takes about 15 s on Babelfish. DS2 in two parts there too, at 10 MB.

use std::time::{Duration, Instant};

use crate::checksums;
use crate::common::{
    MssqlDb, assert_refused, mssql, mssql_exec, mssql_int, mssql_turn, mssql_url, oltpgen, spawn,
};
use crate::sampled_check;

/// How many chunks the load into the database of `client` has marked done (0 before the marks' table).
async fn marked(client: &mut oltpgen_driver::mssql::Client) -> i64 {
    if mssql_int(client, "SELECT COUNT(*) FROM sys.tables WHERE name = 'oltpgen_chunks'").await == 0 {
        return 0;
    }
    mssql_int(client, "SELECT COUNT(*) FROM oltpgen_chunks").await
}

/// oltpgen's bookkeeping tables of a load in parts left in the database of `client`.
async fn bookkeeping_left(client: &mut oltpgen_driver::mssql::Client) -> i64 {
    let sql = "SELECT COUNT(*) FROM sys.tables WHERE name IN ('oltpgen_chunks', 'oltpgen_parts')";
    mssql_int(client, sql).await
}

/// `tpcc check` on `url` passes.
#[track_caller]
fn assert_checked(url: &str) {
    let out = oltpgen(&["tpcc", "check", "--url", url]);
    assert_eq!(out.code, 0, "{}", out.all());
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn a_sql_server_load_in_parts_or_cut_and_resumed_holds_the_rows_of_one_load() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let (whole, parts, cut) = (
        MssqlDb::create(&url, "lp_whole").await,
        MssqlDb::create(&url, "lp_parts").await,
        MssqlDb::create(&url, "lp_cut").await,
    );
    let load = |url: &str, flags: &[&str]| {
        oltpgen(
            &[&["tpcc", "load", "--scale", "2", "--load-workers", "2", "-q", "--url", url][..], flags]
                .concat(),
        )
    };
    let out = load(&whole.url, &[]);
    assert_eq!(out.code, 0, "{}", out.all());
    let sums = checksums::mssql(&mut mssql(&whole.url).await).await;
    assert!(sums.contains_key("order_line") && sums.contains_key("history"), "{sums:?}");

    // In two parts, the finish refused while part 1 is missing.
    let out = load(&parts.url, &["--begin", "--parts", "2"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("began tpcc scale 2 in 2 parts"), "{}", out.stdout);
    let out = load(&parts.url, &["--agent", "0/2"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("loaded part 0/2 of tpcc scale 2"), "{}", out.stdout);
    let out = load(&parts.url, &["--finish"]);
    assert_refused(&out, "part 1/2 (");
    assert!(!out.stderr.contains("part 0/2"), "{}", out.stderr);
    assert_refused(&load(&parts.url, &["--agent", "0/3"]), "was begun in 2 parts: give --agent I/2");
    let out = load(&parts.url, &["--agent", "1/2"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = load(&parts.url, &["--finish"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("finished tpcc scale 2 in "), "{}", out.stdout);
    let mut client = mssql(&parts.url).await;
    assert_eq!(checksums::mssql(&mut client).await, sums, "the rows of one load");
    assert_eq!(bookkeeping_left(&mut client).await, 0, "the marks and the plan are gone");
    assert_checked(&parts.url);
    assert_refused(&load(&parts.url, &["--agent", "0/2"]), "which --agent never touches");

    // Killed with SIGKILL while its rows go in, then carried on.
    let mut load_cut =
        spawn(&["tpcc", "load", "--scale", "2", "--load-workers", "2", "-q", "--url", &cut.url]);
    let mut client = mssql(&cut.url).await;
    let started = Instant::now();
    while marked(&mut client).await < 3 {
        assert!(load_cut.try_wait().unwrap().is_none(), "the load ended before it marked 3 chunks done");
        assert!(started.elapsed() < Duration::from_secs(300), "never marked 3 chunks done");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    load_cut.kill().unwrap();
    load_cut.wait().unwrap();
    let state = mssql_exec(&mut client, "SELECT state FROM oltpgen_meta WHERE workload = 'tpcc'").await;
    assert_eq!(state[0][0].get::<&str, _>(0), Some("loading"));
    let out = load(&cut.url, &["--resume"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let found: usize = (out.stdout.split("resumed: ").nth(1))
        .and_then(|r| r.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("the chunks found done are named: {}", out.stdout));
    assert!(found >= 3 && !out.stdout.contains(&format!("{found} of {found} chunks")), "{}", out.stdout);
    assert_eq!(checksums::mssql(&mut client).await, sums, "the rows of a load never cut");
    assert_eq!(bookkeeping_left(&mut client).await, 0, "the marks are gone");
    assert_checked(&cut.url);
    // A whole load is never touched.
    assert_refused(&load(&whole.url, &["--resume"]), "which --resume never touches");

    let mut client = mssql(&whole.url).await;
    let corrupt = &mut |w| {
        let handle = tokio::runtime::Handle::current();
        let sql = sampled_check::corruption(w);
        tokio::task::block_in_place(|| handle.block_on(mssql_exec(&mut client, &sql)));
    };
    sampled_check::assert_sampled_check_catches_a_drawn_warehouse_only(&whole.url, corrupt);
}

/// DS2 in two parts on SQL Server: the finish refused naming part 0 while only part 1 is in, then the
/// rows of a load in one process, the id sequences started past the loaded ids, `ds2 check` passing.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn a_ds2_load_in_parts_on_sql_server_holds_the_rows_of_one_load() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let (whole, parts) = (MssqlDb::create(&url, "ds2_whole").await, MssqlDb::create(&url, "ds2_parts").await);
    let load = |url: &str, flags: &[&str]| {
        oltpgen(
            &[&["ds2", "load", "--db-size", "10MB", "--load-workers", "2", "-q", "--url", url][..], flags]
                .concat(),
        )
    };
    let out = load(&whole.url, &[]);
    assert_eq!(out.code, 0, "{}", out.all());
    let sums = checksums::mssql(&mut mssql(&whole.url).await).await;
    assert!(sums.contains_key("customers") && sums.contains_key("inventory"), "{sums:?}");
    for step in [&["--begin", "--parts", "2"][..], &["--agent", "1/2"]] {
        let out = load(&parts.url, step);
        assert_eq!(out.code, 0, "{}", out.all());
    }
    let out = load(&parts.url, &["--finish"]);
    assert_refused(&out, "part 0/2 (");
    for step in [&["--agent", "0/2"][..], &["--finish"]] {
        let out = load(&parts.url, step);
        assert_eq!(out.code, 0, "{}", out.all());
    }
    let mut client = mssql(&parts.url).await;
    assert_eq!(checksums::mssql(&mut client).await, sums, "the rows of one load");
    let next = "SELECT CAST(NEXT VALUE FOR customers_customerid_seq AS bigint)";
    let next = mssql_exec(&mut client, next).await[0][0].get::<i64, _>(0).unwrap();
    assert_eq!(next, mssql_int(&mut client, "SELECT MAX(customerid) FROM customers").await + 1);
    let out = oltpgen(&["ds2", "check", "--url", &parts.url]);
    assert_eq!(out.code, 0, "{}", out.all());
}
