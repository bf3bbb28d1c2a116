//! TPC-C on SQL Server (the Babelfish server whose URL CI exports as `OLTPGEN_TEST_MSSQL_URL`): load,
//! check, run through the stored procedures, the spec's rules kept by them, drop, and a session killed
//! mid-run. Each test creates its own database and drops it; `tpcc check` passes after every load.

use std::time::Duration;

use crate::common::{
    MssqlDb, assert_matches_schema, assert_no_secret, assert_refused, finish, mssql, mssql_exec, mssql_int,
    mssql_turn, mssql_url, oltpgen, oltpgen_env, result_json, spawn,
};
use crate::mssql_common::{
    MSSQL_OWN_PROCEDURE, OwnBabelfish, kill_run_sessions, mssql_objects, wait_for_commits,
};

/// `tpcc check` on `url` passes every condition.
#[track_caller]
fn assert_consistent(url: &str) {
    let out = oltpgen(&["tpcc", "check", "--url", url]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("consistent: every condition that applies holds"), "{}", out.stdout);
    assert_no_secret(&out);
}

/// `tpcc run` on `url` with `users` users and no keying or think time, measuring for `duration`,
/// reporting every 2 s, the result in `out`.
fn run_args<'a>(url: &'a str, users: &'a str, duration: &'a str, out: &'a std::path::Path) -> Vec<&'a str> {
    let timing = ["--think-time", "0", "--keying-time", "0", "--warmup", "1s", "--report-interval", "2s"];
    let mut args = vec!["tpcc", "run", "--url", url, "--users", users, "--duration", duration, "--quiet"];
    args.extend(timing);
    args.extend(["-o", out.to_str().unwrap()]);
    args
}

/// Loads TPC-C at scale 1 into `url` with two bulk streams.
#[track_caller]
fn load(url: &str, extra: &[&str]) {
    let mut args = vec!["tpcc", "load", "--scale", "1", "--load-workers", "2", "--quiet", "--url", url];
    args.extend_from_slice(extra);
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("loaded tpcc scale 1 into sqlserver://"), "{}", out.stdout);
    if extra.contains(&"--create-database") {
        let created =
            format!("/{} (a database --create-database created): ", url.rsplit('/').next().unwrap());
        assert!(out.stdout.contains(&created), "expected '{created}' in: {}", out.stdout);
    }
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn tpcc_loads_runs_checks_and_drops_on_sql_server() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "tpcc").await;
    load(&db.url, &[]);
    assert_consistent(&db.url);
    let mut client = mssql(&db.url).await;
    assert_eq!(mssql_int(&mut client, "SELECT COUNT(*) FROM customer").await, 30_000);
    assert_eq!(mssql_int(&mut client, "SELECT COUNT(*) FROM stock").await, 100_000);
    spec_rules_hold(&mut client).await;

    // A database that lacks the procedures gets them when a run connects.
    mssql_exec(&mut client, "DROP PROCEDURE oltpgen_payment").await;
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("r");
    let orders = "SELECT SUM(d_next_o_id) FROM district";
    let before_run = mssql_int(&mut client, orders).await;
    let out = oltpgen(&run_args(&db.url, "6", "15s", &out_path));
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    let r = result_json(&out_path);
    assert_matches_schema(&r);
    assert_eq!(r["server"]["engine"], "sqlserver", "{}", r["server"]);
    assert_eq!(r["server"]["settings"]["babelfish"], "yes", "{}", r["server"]);
    assert!(r["server"]["settings"]["is_read_committed_snapshot_on"].is_string(), "{}", r["server"]);
    assert_eq!(r["config"]["isolation"], "read committed", "{}", r["config"]);
    // The server's own counters: series where the server has the views, and what it lacks named once.
    let source = format!("db:{}", r["targets"][0].as_str().unwrap());
    let db_series: Vec<&str> = r["counters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["source"] == source.as_str())
        .filter_map(|c| c["name"].as_str())
        .collect();
    let unavailable = r["config"]["counters_unavailable"].to_string();
    // Babelfish has the sessions view only; SQL Server has every group (perfmon counters, file stalls).
    assert!(db_series.contains(&"user_sessions"), "{db_series:?} {unavailable}");
    for (view, series) in [
        ("sys.dm_os_performance_counters", "batch_requests_per_s"),
        ("sys.dm_io_virtual_file_stats", "data_file_reads_per_s"),
        ("sys.dm_os_wait_stats", "lock_wait_ms_per_s"),
    ] {
        assert!(
            unavailable.contains(view) != db_series.contains(&series),
            "{view}: read or named unavailable, one of the two: {db_series:?} {unavailable}"
        );
    }
    // The views Babelfish lacks are one warning naming them and the counters lost, never its raw errors.
    let warnings: Vec<&str> =
        out.stderr.lines().filter(|l| l.starts_with("warning: counters: db:")).collect();
    assert_eq!(warnings.len(), 1, "one warning on the server's counters:\n{}", out.stderr);
    for needle in [
        "the server (Babelfish) has no sys.dm_os_performance_counters, sys.dm_io_virtual_file_stats or \
         sys.dm_os_wait_stats, so these SQL Server counters are not sampled: batch requests, transactions, \
         lock waits, deadlocks, checkpoint pages, buffer cache hit ratio and page life expectancy;",
        "time waited on locks",
    ] {
        assert!(warnings[0].contains(needle), "expected '{needle}' in: {}", warnings[0]);
    }
    for raw in ["does not exist", "relation \""] {
        assert!(!out.all().contains(raw), "the server's raw error reached the user:\n{}", out.all());
        assert!(!unavailable.contains(raw), "the server's raw error reached the result: {unavailable}");
    }
    // New-Orders committed (counted in the database: on a busy machine Babelfish may finish none inside
    // the measured window itself).
    assert!(mssql_int(&mut client, orders).await > before_run, "New-Orders ran: {}", r["steps"][0]);
    assert_eq!(
        mssql_int(&mut client, "SELECT COUNT(*) FROM sys.procedures WHERE name LIKE 'oltpgen[_]%'").await,
        5
    );
    assert_consistent(&db.url);

    // Loaded twice only on purpose; the ADO.NET form, from OLTPGEN_URL with SQLCMDPASSWORD, reaches it.
    let again = oltpgen(&["tpcc", "load", "--scale", "1", "--url", &db.url]);
    assert_refused(&again, "already holds a tpcc database (scale 1): pass --replace");
    load(&db.url, &["--replace"]);
    let (user, password, host, port) = parts(&url);
    let ado = format!("Server=tcp:{host},{port};Database={};User Id={user};Encrypt=false", db.name);
    let out = oltpgen_env(&["tpcc", "check"], &[("OLTPGEN_URL", &ado), ("SQLCMDPASSWORD", &password)]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(!out.all().contains(&password), "{}", out.all());

    assert_eq!(mssql_objects(&mut client).await.len(), 5, "the load made the procedures");
    mssql_exec(&mut client, MSSQL_OWN_PROCEDURE).await;
    // A user's view over warehouse and a table of theirs referencing it: refused as on PostgreSQL.
    mssql_exec(
        &mut client,
        "CREATE VIEW users_view AS SELECT w_id FROM warehouse\nGO\n\
         CREATE TABLE users_table (ref INT REFERENCES warehouse (w_id))\nGO\n",
    )
    .await;
    let out = oltpgen(&["tpcc", "drop", "--url", &db.url]);
    assert_eq!(out.code, 1, "{}", out.all());
    for needle in [
        "dropping tables: other objects depend on oltpgen's tables (",
        "depends on table warehouse",
        "view users_view",
        "users_table",
        "): drop them first; nothing was dropped",
    ] {
        assert!(out.stderr.contains(needle), "expected '{needle}' in: {}", out.stderr);
    }
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert_eq!(mssql_int(&mut client, "SELECT COUNT(*) FROM warehouse").await, 1, "nothing was dropped");
    mssql_exec(&mut client, "DROP VIEW users_view\nGO\nDROP TABLE users_table\nGO\n").await;
    let out = oltpgen(&["tpcc", "drop", "--url", &db.url]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &db.url]), "holds no tpcc database: load it first");
    assert_eq!(
        mssql_objects(&mut client).await,
        ["users_own"],
        "drop leaves the user's procedure alone, and only it"
    );
}

/// The rules the PostgreSQL transactions follow, kept by the procedures (`tests/cli/tpcc_spec.rs` has
/// them for PostgreSQL): an unused item rolls a New-Order back once it did its work, and says so; a
/// Payment matching no customer fails and pays nobody.
async fn spec_rules_hold(client: &mut oltpgen_driver::mssql::Client) {
    let next = "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1";
    let before = mssql_int(client, next).await;
    // 2.4.2.3: item 100001 does not exist.
    let rows = mssql_exec(client, "EXEC oltpgen_new_order 1, 1, 1, 2, 1, 5, 1, 3, 100001, 1, 2").await;
    let row = &rows.last().unwrap()[0];
    assert_eq!(row.get::<i32, _>(1), Some(1), "the procedure says it rolled back");
    assert_eq!(row.get::<i32, _>(0).map(i64::from), Some(before), "it took the next order id first");
    assert_eq!(mssql_int(client, next).await, before, "and rolled back the district");
    let orders = format!("SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = {before}");
    assert_eq!(mssql_int(client, &orders).await, 0);

    let ytd = "SELECT CAST(w_ytd * 100 AS bigint) FROM warehouse WHERE w_id = 1";
    let paid = mssql_int(client, ytd).await;
    let err = async {
        client
            .simple_query("EXEC oltpgen_payment 1, 1, 1, 1, 0, 'NOSUCHNAME', 1234")
            .await?
            .into_results()
            .await
    }
    .await;
    assert!(err.is_err(), "a Payment that matched no customer failed");
    assert_eq!(mssql_int(client, "SELECT @@TRANCOUNT").await, 0, "and left no transaction open");
    assert_eq!(mssql_int(client, ytd).await, paid, "and paid no warehouse");
}

/// user, password, host and port of a `sqlserver://user:password@host:port/…` URL.
fn parts(url: &str) -> (String, String, String, String) {
    let rest = url.split_once("://").unwrap().1;
    let (userinfo, hostpart) = rest.split_once('@').unwrap();
    let (user, password) = userinfo.split_once(':').unwrap();
    let hostport = hostpart.split(['/', '?']).next().unwrap();
    let (host, port) = hostport.split_once(':').unwrap_or((hostport, "1433"));
    (user.into(), password.into(), host.into(), port.into())
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_session_reconnects_and_the_result_is_written() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "kill").await;
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("r");
    let (run, mut watch) = a_run_under_way(&db.url, &out_path).await;
    kill_run_sessions(&url, &db.name, &mut watch, 4).await;
    let r = recovered_then_interrupted(&mut watch, run, &out_path).await;
    let series = r["timeseries"].as_array().unwrap();
    let last = series.iter().rev().find(|row| row["txn"] == "new_order").unwrap();
    assert!(last["count"].as_u64().unwrap() > 0, "users reconnected and went on: {last}");
    drop(watch);
    assert_consistent(&db.url);
}

/// Loads `db_url`, starts a 4-user run writing its result to `out_path`, and returns it once it has
/// committed New-Orders, with a connection watching the database.
async fn a_run_under_way(
    db_url: &str,
    out_path: &std::path::Path,
) -> (std::process::Child, oltpgen_driver::mssql::Client) {
    load(db_url, &[]);
    let run = spawn(&run_args(db_url, "4", "10m", out_path));
    let commits = "SELECT SUM(d_next_o_id) FROM district";
    let mut watch = mssql(db_url).await;
    let loaded = mssql_int(&mut watch, commits).await;
    wait_for_commits(&mut watch, commits, loaded + 4).await;
    (run, watch)
}

/// After a fault: waits until the run commits New-Orders again, for two report intervals more (so the
/// result's last one lies after the users came back), then ends it with Ctrl-C. The result must have
/// been written and count the lost connections; it is returned.
async fn recovered_then_interrupted(
    watch: &mut oltpgen_driver::mssql::Client,
    run: std::process::Child,
    out_path: &std::path::Path,
) -> serde_json::Value {
    let commits = "SELECT SUM(d_next_o_id) FROM district";
    let after_fault = mssql_int(watch, commits).await;
    wait_for_commits(watch, commits, after_fault + 4).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let status = std::process::Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(out.code, 130, "the run went on until Ctrl-C:\n{}", out.all());
    let r = result_json(out_path);
    assert_matches_schema(&r);
    assert!(r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0) > 0, "{}", r["errors_by_kind"]);
    r
}

/// Every SQL Server example of the README (its `### SQL Server` section's first block) runs, with the
/// example's server, login and database replaced by the test server's and a database of its own.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_sql_server_examples_run() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "readme").await;
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = readme.split("### SQL Server\n").nth(1).expect("the README has a SQL Server section");
    let block =
        section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("an example block");
    let (user, password, host, port) = parts(&url);
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_oltpgen")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let cwd = tempfile::tempdir().unwrap();
    let lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 5, "{block}");
    for line in lines {
        let line = line
            .replace("bench:secret@sql1:1433/tpcc", &format!("{user}:{password}@{host}:{port}/{}", db.name))
            .replace("bench@sql1:1433/tpcc", &format!("{user}@{host}:{port}/{}", db.name))
            .replace("SQLCMDPASSWORD=secret", &format!("SQLCMDPASSWORD={password}"))
            .replace(
                "Server=tcp:sql1,1433;Database=tpcc;User Id=bench;Password=secret",
                &format!("Server=tcp:{host},{port};Database={};User Id={user};Password={password}", db.name),
            );
        assert!(!line.contains("sql1") && !line.contains("secret"), "every example is rewritten: {line}");
        let out = std::process::Command::new("bash")
            .args(["-c", &line])
            .env("PATH", &path)
            .env_remove("OLTPGEN_URL")
            .current_dir(cwd.path())
            .output()
            .unwrap();
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{line}:\n{all}");
        assert!(!all.contains(&password), "{all}");
    }
}

/// `load --create-database` on SQL Server: without the flag a missing database is refused, naming the
/// flag, and nothing is created; with it `tpcc load` creates the database from `master` (and says so in
/// its line), loads it, and `tpcc check` passes; on the database now there the flag creates nothing and
/// the load goes on to its own refusal (already loaded). The database is dropped at the end.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn load_creates_a_missing_database_only_when_told() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::absent(&url, "create").await;
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--url", &db.url]);
    assert_refused(&out, "create the database first (load with --create-database, or CREATE DATABASE)");
    assert!(!db.exists().await, "a load without --create-database created {}", db.name);

    load(&db.url, &["--create-database"]);
    assert!(db.exists().await);
    assert_consistent(&db.url);
    let again = oltpgen(&["tpcc", "load", "--scale", "1", "--create-database", "--url", &db.url]);
    assert_refused(&again, "already holds a tpcc database (scale 1): pass --replace");
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn users_reconnect_after_a_server_restart() {
    let (server, url) = tokio::task::spawn_blocking(OwnBabelfish::start).await.unwrap();
    let db = MssqlDb::create(&url, "restart").await;
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("r");
    let (run, watch) = a_run_under_way(&db.url, &out_path).await;
    drop(watch);
    let server = server.restart().await;
    let mut watch = mssql(&db.url).await;
    let r = recovered_then_interrupted(&mut watch, run, &out_path).await;
    drop(watch);
    // The restart is measured as a failover through an availability group's listener would be.
    let outage = &r["outages"][0];
    let (lost, again) = (outage["lost_s"].as_f64(), outage["committed_again_s"].as_f64());
    assert!(
        lost.is_some() && again > lost,
        "the outage, from the lost connection to a commit again: {outage}"
    );
    // Every acknowledged New-Order was compared with the database after the restart: none is missing.
    let lost = &r["lost_commits"];
    assert!(lost["checked"].as_u64().unwrap_or(0) > 0, "New-Orders compared on SQL Server: {lost}");
    assert_eq!(lost["lost"], 0, "{lost}");
    // The server that answered, by its instance's name, the same before and after the restart.
    let served = r["served_by"].as_array().unwrap();
    assert_eq!(served.len(), 1, "{served:?}");
    assert!(!served[0]["server"].as_str().unwrap().is_empty(), "{served:?}");
    assert_consistent(&db.url);
    drop(db);
    drop(server);
}
