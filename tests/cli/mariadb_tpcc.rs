//! TPC-C on MariaDB through the MySQL engine (`mariadb://` URLs): load, check, run in both modes,
//! drop, the password from `MYSQL_PWD` or `~/.my.cnf`, bad input, lock wait timeouts retried after
//! a rollback, and the acknowledged New-Orders compared after lost connections. Each test starts a MariaDB of its own ([`MariaDb`]).

use crate::common::{
    SECRET, assert_matches_schema, assert_no_secret, assert_refused, finish, oltpgen, oltpgen_env,
    result_json, spawn,
};
use crate::mariadb_common::MariaDb;

/// `tpcc check` on `url` passes every condition.
#[track_caller]
fn assert_consistent(url: &str) {
    let out = oltpgen(&["tpcc", "check", "--url", url]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("consistent: every condition that applies holds"), "{}", out.stdout);
    assert_no_secret(&out);
}

/// `tpcc run` on `url` with `users` users, no keying or think time, measuring for `duration`, the
/// transactions run as `transactions` says; its result.
#[track_caller]
fn run(url: &str, users: &str, duration: &str, transactions: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("r");
    // No warmup: the step's window is the whole run (past its ramp), so that the result's counts can be
    // held against the rows the run added (`assert_commits_agree`).
    let timing = ["--warmup", "0s", "--think-time", "0", "--keying-time", "0", "--report-interval", "2s"];
    let mut args = vec!["tpcc", "run", "--url", url, "--users", users, "--duration", duration, "--quiet"];
    args.extend(timing);
    args.extend(["--transactions", transactions, "-o", out_path.to_str().unwrap()]);
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    let r = result_json(&out_path);
    assert_matches_schema(&r);
    r
}

/// MariaDB's own count of the New-Orders and Payments committed so far: the districts' next order ids
/// summed (a committed New-Order advances its district's by one, a rolled-back one does not: TPC-C's
/// consistency condition 2 ties it to the orders held) and the rows of `history` (one per committed
/// Payment).
fn commits_counted_by(db: &MariaDb) -> (i64, i64) {
    (db.int("tpcc", "SELECT SUM(d_next_o_id) FROM district"), db.int("tpcc", "SELECT COUNT(*) FROM history"))
}

/// The run's committed New-Orders (counted less rolled back) and Payments, as its result `r` counts
/// them in its only step, agree with what the database gained, `added` (New-Orders, Payments): every
/// commit the result counts is in the database, so the result never counts more; the database may hold
/// a few more, committed outside the measured window (during the ramp before it, or in flight at its
/// end), at most one per user at each edge and 5% of the count.
#[track_caller]
fn assert_commits_agree(r: &serde_json::Value, added: (i64, i64), users: i64) {
    let t = &r["steps"][0]["transactions"];
    let n =
        |kind: &str, field: &str| t[kind][field].as_i64().unwrap_or_else(|| panic!("{kind}.{field}: {t}"));
    let counted = [n("new_order", "count") - n("new_order", "rollbacks"), n("payment", "count")];
    for ((kind, counted), added) in
        ["New-Orders", "Payments"].into_iter().zip(counted).zip([added.0, added.1])
    {
        assert!(counted > 0, "{kind}: {t}");
        assert!(counted <= added, "{counted} {kind} counted committed, MariaDB holds {added} more rows");
        let outside = 2 * users + counted / 20;
        assert!(added - counted <= outside, "MariaDB holds {added} {kind}, the result counts {counted}");
    }
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn tpcc_loads_runs_both_modes_checks_and_drops_on_mariadb() {
    let db = MariaDb::start();
    let url = db.url("tpcc");
    let out = oltpgen(&[
        "tpcc",
        "load",
        "--scale",
        "1",
        "--load-workers",
        "2",
        "--quiet",
        "--create-database",
        "--url",
        &url,
    ]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("loaded tpcc scale 1 into mariadb://bench@127.0.0.1:"), "{}", out.stdout);
    assert_no_secret(&out);
    assert_consistent(&url);
    assert_eq!(db.int("tpcc", "SELECT COUNT(*) FROM customer"), 30_000);
    assert_eq!(db.int("tpcc", "SELECT COUNT(*) FROM stock"), 100_000);
    let undelivered_lines = db.int("tpcc", "SELECT COUNT(*) FROM order_line WHERE ol_delivery_d IS NULL");
    assert!(undelivered_lines > 0, "NULLs loaded as NULL");
    let undelivered = db.int("tpcc", "SELECT SUM(o_ol_cnt) FROM orders WHERE o_carrier_id IS NULL");
    assert_eq!(undelivered_lines, undelivered, "NULL exactly where the order is undelivered");
    let engines =
        db.sql("", "SELECT DISTINCT engine FROM information_schema.tables WHERE table_schema = 'tpcc'");
    assert_eq!(engines.trim(), "InnoDB", "every table InnoDB");

    // Server-side: the procedures a database lacks are created before the run.
    db.sql("tpcc", "DROP PROCEDURE oltpgen_payment");
    let before = commits_counted_by(&db);
    let r = run(&url, "4", "6s", "server");
    let after = commits_counted_by(&db);
    assert!(after.0 > before.0, "the run entered orders");
    assert_eq!(r["server"]["engine"], "mysql", "{}", r["server"]);
    assert_eq!(r["server"]["settings"]["flavour"], "mariadb", "{}", r["server"]);
    assert_eq!(r["server"]["settings"]["innodb_flush_log_at_trx_commit"], "2", "{}", r["server"]);
    assert!(r["server"]["settings"]["sync_binlog"].is_string(), "{}", r["server"]);
    assert!(r["server"]["settings"]["innodb_buffer_pool_size"].is_string(), "{}", r["server"]);
    assert_eq!(r["config"]["isolation"], "read committed", "{}", r["config"]);
    assert_eq!(r["config"]["transactions"], "server", "{}", r["config"]);
    let step = &r["steps"][0];
    assert!(step["tps"].as_f64().unwrap() > 0.0, "{step}");
    assert_eq!(step["errors"], 0, "{step}");
    assert!(step["transactions"]["new_order"]["rollbacks"].as_u64().unwrap() > 0, "the 1% rollback: {step}");
    let db_series: Vec<&str> = r["counters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["source"].as_str().unwrap().starts_with("db:"))
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for name in [
        "commits_per_s",
        "buffer_hit_pct",
        "row_lock_waits_per_s",
        "log_bytes_written_per_s",
        "threads_running",
    ] {
        assert!(db_series.contains(&name), "{name} in {db_series:?}");
    }
    // MariaDB's own count of the run's commits agrees with the run's.
    assert_commits_agree(&r, (after.0 - before.0, after.1 - before.1), 4);
    assert_consistent(&url);

    // Client-side: the statements, no procedure needed.
    db.sql("tpcc", "DROP PROCEDURE oltpgen_new_order");
    let r = run(&url, "3", "4s", "client");
    assert_eq!(r["config"]["transactions"], "client", "{}", r["config"]);
    assert_eq!(r["steps"][0]["errors"], 0, "{}", r["steps"][0]);
    assert!(r["steps"][0]["transactions"]["delivery"]["count"].as_u64().unwrap() > 0, "{}", r["steps"][0]);
    assert_consistent(&url);

    // drop refuses while a user's view (in another database) or foreign key depends on the tables.
    db.sql("", "CREATE DATABASE mine; CREATE VIEW mine.v AS SELECT w_id FROM tpcc.warehouse");
    db.sql("tpcc", "CREATE TABLE mine_fk (w INT, FOREIGN KEY (w) REFERENCES warehouse (w_id)) ENGINE=InnoDB");
    let out = oltpgen(&["tpcc", "drop", "--url", &url]);
    assert_eq!(out.code, 1, "{}", out.all());
    for needle in [
        "view mine.v depends on table warehouse",
        "constraint",
        "on table tpcc.mine_fk",
        "nothing was dropped",
    ] {
        assert!(out.stderr.contains(needle), "{needle}: {}", out.stderr);
    }
    assert_eq!(db.int("tpcc", "SELECT COUNT(*) FROM warehouse"), 1, "nothing dropped");
    db.sql("", "DROP DATABASE mine; DROP TABLE tpcc.mine_fk; CREATE TABLE tpcc.keep_me (x INT)");
    let out = oltpgen(&["tpcc", "drop", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    let left = db.sql(
        "tpcc",
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'tpcc' \
        UNION ALL SELECT routine_name FROM information_schema.routines WHERE routine_schema = 'tpcc'",
    );
    assert_eq!(left.trim(), "keep_me", "exactly what the load created is gone");
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn bad_input_on_mariadb_is_one_line() {
    let db = MariaDb::start();
    db.sql("", "CREATE DATABASE tpcc");
    let wrong = format!("mariadb://bench:not-{SECRET}@127.0.0.1:{}/tpcc", db.port);
    let out = oltpgen(&["tpcc", "check", "--url", &wrong]);
    assert_refused(&out, "the server refused the login");
    assert!(!out.all().contains("not-"), "{}", out.all());
    assert_refused(
        &oltpgen(&["tpcc", "check", "--url", &db.url("nope")]),
        "Unknown database 'nope'; create the database first",
    );
    assert_refused(&oltpgen(&["tpcc", "run", "--url", &db.url("tpcc"), "--duration", "1s"]), "");
    assert_refused(
        &oltpgen(&["tpcc", "load", "--url", &format!("{}?ssl-mode=maybe", db.url("tpcc"))]),
        "ssl-mode must be",
    );

    // A port that is not MySQL's: the peer closes the connection before any greeting.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            drop(stream);
        }
    });
    let url = format!("mysql://bench:{SECRET}@127.0.0.1:{port}/tpcc");
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &url]), "is it a MySQL or MariaDB port?");
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn the_password_comes_from_my_cnf_or_mysql_pwd() {
    let db = MariaDb::start();
    let url = db.url_without_password("tpcc");
    let home = tempfile::tempdir().unwrap();
    let home_dir = home.path().to_str().unwrap();
    let load = ["tpcc", "load", "--scale", "1", "--quiet", "--create-database", "--url", &url];
    let out = oltpgen_env(&load, &[("HOME", home_dir), ("MYSQL_PWD", SECRET)]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    // ~/.my.cnf's [client] group is read before MYSQL_PWD, as the mysql client reads them.
    std::fs::write(
        home.path().join(".my.cnf"),
        format!("[mysqld]\npassword=no\n[client]\npassword = \"{SECRET}\"\n"),
    )
    .unwrap();
    let check = ["tpcc", "check", "--url", &url];
    let out = oltpgen_env(&check, &[("HOME", home_dir), ("MYSQL_PWD", "wrong")]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_secret(&out);
    std::fs::remove_file(home.path().join(".my.cnf")).unwrap();
    let out = oltpgen_env(&check, &[("HOME", home_dir), ("MYSQL_PWD", "wrong")]);
    assert_refused(&out, "~/.my.cnf's [client] password, or MYSQL_PWD");
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn lock_wait_timeouts_roll_back_before_the_retry() {
    let db = MariaDb::start();
    let url = db.url("tpcc");
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--quiet", "--create-database", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    db.sql("", "SET GLOBAL innodb_lock_wait_timeout = 1");
    // A session of the test's own holds the warehouse row (every Payment's first update) for 2 s at a
    // time, five times over the run: Payments time out waiting (1205, which rolls back only the
    // statement) and are retried, none more often than the retries allowed.
    let hold =
        "START TRANSACTION; UPDATE warehouse SET w_ytd = w_ytd WHERE w_id = 1; SELECT SLEEP(2); ROLLBACK; \
                SELECT SLEEP(0.3);"
            .repeat(5);
    for transactions in ["server", "client"] {
        let mut holder = db.spawn_sql("tpcc", &hold);
        let r = run(&url, "2", "5s", transactions);
        holder.wait().unwrap();
        let payment = &r["steps"][0]["transactions"]["payment"];
        assert!(
            payment["retries"].as_u64().unwrap() > 0,
            "{transactions}: lock wait timeouts retried: {payment}"
        );
        assert_eq!(r["steps"][0]["errors"], 0, "{transactions}: {}", r["steps"][0]);
        // A retry inside the rest of a half-rolled-back transaction would break W_YTD = sum(D_YTD).
        assert_consistent(&url);
    }
}

/// Every row of every TPC-C table of database `db`, as text sorted, the clock columns left out
/// (`ol_delivery_d` kept as whether the line was delivered).
fn tables(db: &MariaDb, name: &str) -> Vec<(String, String)> {
    let tables = [
        "warehouse",
        "district",
        "customer",
        "history",
        "new_order",
        "orders",
        "order_line",
        "item",
        "stock",
    ];
    tables
        .iter()
        .map(|table| {
            let columns = db.sql(
                name,
                &format!(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = '{name}' \
                     AND table_name = '{table}' ORDER BY ordinal_position"
                ),
            );
            let select: Vec<String> =
                columns
                    .lines()
                    .filter(|c| *c == "ol_delivery_d" || !crate::tpcc_stream::CLOCK_COLUMNS.contains(c))
                    .map(|c| {
                        if c == "ol_delivery_d" { "ol_delivery_d IS NULL".to_string() } else { c.to_string() }
                    })
                    .collect();
            let order: Vec<String> = (1..=select.len()).map(|i| i.to_string()).collect();
            let rows = db.sql(
                name,
                &format!("SELECT {} FROM {table} ORDER BY {}", select.join(", "), order.join(", ")),
            );
            (table.to_string(), rows)
        })
        .collect()
}

/// The statements (client-side) do what the procedures (server-side) do: one seeded input stream
/// through each mode, on two copies of one load, ends every transaction alike and leaves the same rows
/// in every table.
#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[tokio::test(flavor = "multi_thread")]
async fn one_input_stream_through_each_mode_leaves_identical_tables_on_mariadb() {
    let db = MariaDb::start();
    for name in ["stream_client", "stream_server"] {
        let load = ["tpcc", "load", "--scale", "1", "--quiet", "--create-database", "--url", &db.url(name)];
        let out = oltpgen(&load);
        assert_eq!(out.code, 0, "{}", out.all());
    }
    let target =
        |name: &str| -> oltpgen_driver::Target { oltpgen_driver::engine::parse_url(&db.url(name)).unwrap() };
    crate::tpcc_stream::drive_both(&target("stream_client"), &target("stream_server")).await;
    let (a, b) = (tables(&db, "stream_client"), tables(&db, "stream_server"));
    crate::tpcc_stream::assert_same_tables(&a, &b);
    // The stream changed the tables: identical because both did the same work.
    assert!(db.int("stream_server", "SELECT COUNT(*) FROM history") > 30_000);
    assert!(db.int("stream_server", "SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NOT NULL") > 21_000);
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn acknowledged_new_orders_are_compared_after_lost_connections_on_mariadb() {
    let db = MariaDb::start();
    let url = db.url("tpcc");
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--quiet", "--create-database", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("r");
    for transactions in ["server", "client"] {
        let out_path = out_dir.with_extension(transactions);
        let o = out_path.to_str().unwrap();
        let timing = ["--warmup", "0s", "--duration", "8s", "--think-time", "0", "--keying-time", "0"];
        let args =
            ["tpcc", "run", "--url", &url, "--users", "4", "--transactions", transactions, "-q", "-o", o];
        let run = spawn(&[&args[..], &timing[..]].concat());
        // Every session of the run's login killed twice while it commits New-Orders (the first time
        // once every district has had some: the ones below are then acknowledged before any kill).
        for _ in 0..2 {
            let orders = db.int("tpcc", "SELECT COUNT(*) FROM orders");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while db.int("tpcc", "SELECT COUNT(*) FROM orders") < orders + 100 {
                assert!(std::time::Instant::now() < deadline, "the run commits New-Orders");
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            db.sql("", "KILL CONNECTION USER bench");
        }
        let out = finish(run);
        // Nothing lost, but the one step lost connections in its window: nothing measured (exit 1).
        assert_eq!(out.code, 1, "{transactions}: {}", out.all());
        let nothing = "error: nothing was measured: the step is INVALID (step 1: the server was unreachable";
        assert!(out.stderr.lines().last().unwrap_or_default().starts_with(nothing), "{}", out.stderr);
        assert_no_secret(&out);
        let r = result_json(&out_path);
        assert!(r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0) > 0, "{}", r["errors_by_kind"]);
        let lost = &r["lost_commits"];
        let checked = lost["checked"].as_u64().unwrap_or(0);
        assert!(checked > 20, "{transactions}: the acknowledged New-Orders compared on MariaDB: {lost}");
        assert_eq!(lost["lost"], 0, "{lost}");
        assert!(
            out.stdout.contains(&format!("acknowledged commits lost: 0 of {checked} ")),
            "{}",
            out.stdout
        );
        // The server that answered, by its own host and port, once: the same server all along.
        let port = url.rsplit(':').next().and_then(|p| p.split('/').next()).unwrap();
        let served = r["served_by"].as_array().unwrap();
        assert_eq!(served.len(), 1, "{served:?}");
        assert!(served[0]["server"].as_str().unwrap().ends_with(&format!(":{port}")), "{served:?}");
    }
    // An acknowledged order taken away (district 1/1's first of the run) is found by `check --result`,
    // and so is one whose customer changed under its id; the other orders and districts are not.
    let first =
        db.int("tpcc", "SELECT MIN(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id > 3000");
    db.sql("tpcc", &format!("DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = {first}"));
    db.sql(
        "tpcc",
        &format!(
            "UPDATE orders SET o_c_id = o_c_id % 3000 + 1 WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = {first}"
        ),
    );
    let result = out_dir.with_extension("server");
    let check = oltpgen(&["tpcc", "check", "--url", &url, "--result", result.to_str().unwrap()]);
    assert_eq!(check.code, 1, "{}", check.all());
    let r = result_json(&result);
    let checked = r["lost_commits"]["checked"].as_u64().unwrap();
    let all = check.all();
    assert!(all.contains(&format!("acknowledged commits lost: 2 of {checked} orders acknowledged")), "{all}");
    assert!(all.contains(&format!("(first: w_id=1 d_id=1 o_id={first} ")), "{all}");
    assert_no_secret(&check);
}
