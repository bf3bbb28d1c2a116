//! Resumable loads (issue 44): each chunk's rows commit with its done-mark, so a load killed with
//! SIGKILL at any moment (during the rows, during the keys, after the workload's finishing statements)
//! carries on with `--resume` to exactly the rows, keys and objects of a load never cut; a database
//! loaded whole, an empty one and a cut load of other parameters are refused and left alone.

use std::time::{Duration, Instant};

use crate::checksums;
use crate::common::{assert_refused, finish, oltpgen, spawn, sql};

/// What a load leaves besides its rows: the indexes and the oltpgen functions, by name.
const SHAPE: &str = "SELECT string_agg(name, ',' ORDER BY name) FROM (\
     SELECT indexname::text AS name FROM pg_indexes WHERE schemaname = current_schema() \
     UNION ALL SELECT proname::text FROM pg_proc WHERE proname LIKE 'oltpgen%') n";

/// The load record's state, and whether the chunk marks are gone.
const RECORD: &str =
    "SELECT state, to_regclass('oltpgen_chunks') IS NULL FROM oltpgen_meta WHERE workload = 'tpcc'";

/// Waits (up to 5 minutes) until `ready` says so, failing when `load` ends first.
async fn until<F: std::future::Future<Output = bool>>(
    load: &mut std::process::Child,
    what: &str,
    mut ready: impl FnMut() -> F,
) {
    let started = Instant::now();
    while !ready().await {
        assert!(load.try_wait().unwrap().is_none(), "the load ended before {what}");
        assert!(started.elapsed() < Duration::from_secs(300), "never {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_load_killed_at_any_moment_resumes_to_the_rows_of_one_never_cut() {
    let names = ["whole", "cut_rows", "cut_keys", "cut_finish", "other"];
    let (pg, urls) = crate::common::server_with(&names).await;
    let url = |name: &str| urls[names.iter().position(|n| *n == name).unwrap()].clone();
    let load = |name: &str| spawn(&["tpcc", "load", "--scale", "2", "--url", &url(name), "-q"]);
    let out = finish(load("whole"));
    assert_eq!(out.code, 0, "{}", out.all());
    let whole = sql(&pg.target("whole")).await;
    let (sums, shape) =
        (checksums::pg(&whole).await, whole.query_one(SHAPE, &[]).await.unwrap().get::<_, String>(0));
    assert!(shape.contains("customer_pkey") && shape.contains("oltpgen_tpcc_new_order"), "{shape}");

    // Killed while copying rows: some chunks marked done, some not.
    let mut cut = load("cut_rows");
    let client = sql(&pg.target("cut_rows")).await;
    let marked = "SELECT count(*) FROM oltpgen_chunks";
    until(&mut cut, "it marked 3 chunks done", || async {
        client.query_opt(marked, &[]).await.ok().flatten().is_some_and(|r| r.get::<_, i64>(0) >= 3)
    })
    .await;
    cut.kill().unwrap();
    cut.wait().unwrap();

    // Killed while building keys.
    let mut cut = load("cut_keys");
    let client = sql(&pg.target("cut_keys")).await;
    let building = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND datname = 'cut_keys' \
                    AND (query LIKE 'ALTER TABLE%' OR query LIKE 'CREATE INDEX%')";
    until(&mut cut, "it built keys", || async {
        client.query_one(building, &[]).await.unwrap().get::<_, i64>(0) > 0
    })
    .await;
    cut.kill().unwrap();
    cut.wait().unwrap();

    // Killed after its finishing statements (the functions exist), its ANALYZE of `item` held by a
    // lock the test takes once item's key is built.
    let mut cut = load("cut_finish");
    let mut holder = sql(&pg.target("cut_finish")).await;
    let keyed = "SELECT to_regclass('item_pkey') IS NOT NULL";
    until(&mut cut, "it built item's key", || async {
        holder.query_one(keyed, &[]).await.unwrap().get::<_, bool>(0)
    })
    .await;
    let lock = holder.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE item IN SHARE MODE").await.unwrap();
    let observer = sql(&pg.target("cut_finish")).await;
    let analyzing =
        "SELECT count(*) FROM pg_stat_activity WHERE datname = 'cut_finish' AND query LIKE 'ANALYZE item%'";
    until(&mut cut, "it analyzed item", || async {
        observer.query_one(analyzing, &[]).await.unwrap().get::<_, i64>(0) > 0
    })
    .await;
    let functions = observer
        .query_one("SELECT count(*) FROM pg_proc WHERE proname LIKE 'oltpgen_tpcc%'", &[])
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert!(functions > 0, "the finishing statements ran before ANALYZE");
    cut.kill().unwrap();
    cut.wait().unwrap();
    lock.rollback().await.unwrap();

    for name in ["cut_rows", "cut_keys", "cut_finish"] {
        let client = sql(&pg.target(name)).await;
        let state: String = client.query_one(RECORD, &[]).await.unwrap().get(0);
        assert_eq!(state, "loading", "{name}: a cut load is marked as such");
        let out = oltpgen(&["tpcc", "load", "--scale", "2", "--url", &url(name), "--resume", "-q"]);
        assert_eq!(out.code, 0, "{name}: {}", out.all());
        assert!(out.stdout.contains("resumed: "), "{name}: {}", out.stdout);
        assert_eq!(checksums::pg(&client).await, sums, "{name}: the rows of a load never cut");
        assert_eq!(client.query_one(SHAPE, &[]).await.unwrap().get::<_, String>(0), shape, "{name}");
        let row = client.query_one(RECORD, &[]).await.unwrap();
        assert_eq!((row.get::<_, String>(0), row.get::<_, bool>(1)), ("complete".into(), true), "{name}");
    }

    // A whole load is never touched; nor an empty database; nor a cut load of other parameters.
    let out = oltpgen(&["tpcc", "load", "--scale", "2", "--url", &url("whole"), "--resume", "-q"]);
    assert_refused(&out, "which --resume never touches");
    assert_eq!(checksums::pg(&whole).await, sums);
    // Nor one loaded whole whose table was dropped since (its marks went with the load).
    whole.batch_execute("ALTER TABLE history RENAME TO history_aside").await.unwrap();
    let out = oltpgen(&["tpcc", "load", "--scale", "2", "--url", &url("whole"), "--resume", "-q"]);
    assert_refused(&out, "it was loaded whole once: load it again with --replace");
    whole.batch_execute("ALTER TABLE history_aside RENAME TO history").await.unwrap();
    assert_eq!(checksums::pg(&whole).await, sums);
    let out = oltpgen(&["tpcc", "load", "--scale", "2", "--url", &url("other"), "--resume", "-q"]);
    assert_refused(&out, "holds no cut or begun tpcc load to carry on");
    let mut cut = load("other");
    let client = sql(&pg.target("other")).await;
    until(&mut cut, "it marked a chunk done", || async {
        client.query_opt(marked, &[]).await.ok().flatten().is_some_and(|r| r.get::<_, i64>(0) >= 1)
    })
    .await;
    cut.kill().unwrap();
    cut.wait().unwrap();
    let out =
        oltpgen(&["tpcc", "load", "--scale", "2", "--seed", "9", "--url", &url("other"), "--resume", "-q"]);
    assert_refused(&out, "the cut tpcc load in");
    assert!(out.stderr.contains("is scale 2, seed 1, not scale 2, seed 9"), "{}", out.stderr);
}

/// DS2 resumes as TPC-C does (the loader is written once): cut while copying its rows, carried on to
/// the rows, indexes (its full-text ones too), sequences and functions of a load never cut.
#[tokio::test(flavor = "multi_thread")]
async fn a_ds2_load_killed_during_its_rows_resumes_to_the_rows_of_one_never_cut() {
    let names = ["whole", "cut"];
    let (pg, urls) = crate::common::server_with(&names).await;
    let load = |url: &str| spawn(&["ds2", "load", "--db-size", "100MB", "--url", url, "-q"]);
    let out = finish(load(&urls[0]));
    assert_eq!(out.code, 0, "{}", out.all());
    let whole = sql(&pg.target("whole")).await;
    let (sums, shape) =
        (checksums::pg(&whole).await, whole.query_one(SHAPE, &[]).await.unwrap().get::<_, String>(0));
    let mut cut = load(&urls[1]);
    let client = sql(&pg.target("cut")).await;
    until(&mut cut, "it marked 3 chunks done", || async {
        let marked = "SELECT count(*) FROM oltpgen_chunks";
        client.query_opt(marked, &[]).await.ok().flatten().is_some_and(|r| r.get::<_, i64>(0) >= 3)
    })
    .await;
    cut.kill().unwrap();
    cut.wait().unwrap();
    let out = oltpgen(&["ds2", "load", "--db-size", "100MB", "--url", &urls[1], "--resume", "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("resumed: "), "{}", out.stdout);
    assert_eq!(checksums::pg(&client).await, sums, "the rows of a load never cut");
    assert_eq!(client.query_one(SHAPE, &[]).await.unwrap().get::<_, String>(0), shape);
    let next = "SELECT nextval('customers_customerid_seq')::int8 - (SELECT max(customerid) FROM customers)";
    assert_eq!(
        client.query_one(next, &[]).await.unwrap().get::<_, i64>(0),
        1,
        "the sequence starts past the ids"
    );
}
