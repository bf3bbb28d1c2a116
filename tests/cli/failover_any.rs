//! Lost commits of any workload through a failover (issues 40 and 41): pgbench's `tpcb-like`
//! acknowledged by its history insert (oltpgen's wrapper, pgbench's text verbatim) and a user's script
//! acknowledged by the row its `-- oltpgen: ack` statement returns, run together on a throwaway
//! PostgreSQL primary whose standby is held back, then promoted without what it had not received. The
//! result's figures must agree with what each server holds, counted by the test's own queries; a
//! script that names no acknowledgement is "not measured", and says so.

use std::collections::HashMap;

use crate::agents::path;
use crate::common::{assert_matches_schema, finish, oltpgen, result_json, spawn, sql};
use crate::pair::Pair;

/// A user's order entry: the order's id and customer, as the database returned them, are its
/// acknowledgement; the lookup reads every order back. Few customers and amounts: the new primary
/// hands the lost orders' ids out again, and many go to the same customer (the same key: the lost
/// one is still lost, two acknowledged and one held), for the same amount too (the same row but for
/// the time it was made).
const ORDERS: &str = "\\set cid random(1, 3)
\\set amount random(1, 2)
BEGIN;
-- oltpgen: ack
INSERT INTO my_orders (cid, amount) VALUES (:cid, :amount) RETURNING id, cid;
UPDATE my_customers SET spent = spent + :amount WHERE cid = :cid;
END;
-- oltpgen: ack-check SELECT id, cid FROM my_orders
";

/// The commits `query` yields on the server at `url` (two text columns: the commit's whole row, told
/// apart from every other commit's, and its key as oltpgen says a lost one), counted by value.
async fn rows(url: &str, query: &str) -> HashMap<(String, String), u64> {
    let target: oltpgen_driver::Target = oltpgen_driver::engine::parse_url(url).unwrap();
    let mut held = HashMap::new();
    for row in sql(&target).await.query(query, &[]).await.unwrap() {
        *held.entry((row.get::<_, String>(0), row.get::<_, String>(1))).or_default() += 1;
    }
    held
}

/// The keys (as oltpgen says them) of `old`'s commits that `new` lacks, alike ones counted.
fn missing(
    old: &HashMap<(String, String), u64>,
    new: &HashMap<(String, String), u64>,
) -> HashMap<String, u64> {
    let mut lost = HashMap::new();
    for (commit, n) in old {
        let gone = n.saturating_sub(new.get(commit).copied().unwrap_or(0));
        if gone > 0 {
            *lost.entry(commit.1.clone()).or_default() += gone;
        }
    }
    lost
}

/// What `a` holds more of than `b`, key by key, in key order.
fn beyond(a: &HashMap<String, u64>, b: &HashMap<String, u64>) -> Vec<(String, u64)> {
    let mut more: Vec<(String, u64)> = a
        .iter()
        .filter_map(|(k, n)| {
            Some((k.clone(), n.checked_sub(b.get(k).copied().unwrap_or(0)).filter(|&m| m > 0)?))
        })
        .collect();
    more.sort();
    more
}

/// The commits a server holds, each as its whole row (history rows with their time, orders with
/// theirs: an order id a new primary handed out again is another commit) and as oltpgen says its key.
const COMMITS: &str = "SELECT concat_ws(',', 'h', tid, bid, aid, delta, mtime), \
                       format('tpcb-like: tid=%s bid=%s aid=%s delta=%s', tid, bid, aid, delta) \
                       FROM pgbench_history \
                       UNION ALL SELECT concat_ws(',', 'o', id, cid, amount, made), \
                       format('orders: (%s, %s)', id, cid) FROM my_orders";

/// `my_orders` on the server at `url`: each order's customer, amount and time made, by id.
async fn orders(url: &str) -> HashMap<i64, [String; 3]> {
    let target: oltpgen_driver::Target = oltpgen_driver::engine::parse_url(url).unwrap();
    let query = "SELECT id, cid::text, amount::text, made::text FROM my_orders";
    let rows = sql(&target).await.query(query, &[]).await.unwrap();
    rows.iter().map(|r| (r.get(0), [r.get(1), r.get(2), r.get(3)])).collect()
}

/// Runs `oltpgen custom run` with `args` through both servers' URL for `db`, 40 s, failing over 20 s
/// in with the standby held back from 12 s (its WAL receiver stopped, then killed with what it had not
/// read): commits were lost, the run says how many of how many (exit 1), and each server holds what
/// the figures say, counted by `commits` (a row per commit, as [`rows`] reads them): the new primary every
/// acknowledged commit found and at most one in flight per user besides, the old one (restarted) the
/// lost ones and at most those in flight besides, key by key as the run's `lost_commits.txt` names
/// them. Returns the result's `lost_commits`.
async fn lost_in_a_failover(pair: &Pair, db: &str, args: &[&str], commits: &str) -> serde_json::Value {
    let out_dir = pair.dir().join("result");
    let pid_file = pair.dir().join("walreceiver.pid");
    let cmd = pair.fail_over_cmd(&pair.drop_unread_wal_cmd(&pid_file));
    let url = pair.url(db);
    #[rustfmt::skip]
    let all: Vec<String> = [
        &["custom", "run", "--url", &url, "--out", path(&out_dir), "--users", "4", "--warmup", "1s"][..],
        &["--duration", "40s", "--report-interval", "5s", "--fault-at", "20s", "--fault-cmd", &cmd],
        args,
    ]
    .concat()
    .into_iter()
    .map(String::from)
    .collect();
    let run = tokio::task::spawn_blocking(move || {
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        finish(spawn(&all))
    });
    tokio::time::sleep(std::time::Duration::from_secs(12)).await;
    pair.hold_back_standby(&pid_file).await;
    let out = run.await.unwrap();
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    let lost = r["lost_commits"].clone();
    // The figures the report quotes (`-- --nocapture`), and how long the failover took.
    eprintln!("{db}: {lost}; fault {}", r["fault"]);
    let (checked, reported) = (lost["checked"].as_u64(), lost["lost"].as_u64());
    let (Some(checked), Some(reported)) = (checked, reported) else {
        panic!("no comparison: {lost}\n{}", out.all())
    };
    assert!(reported > 0, "the standby was held back: commits were lost: {lost}\n{}", out.all());
    assert!(checked > reported, "some acknowledged commits are on the new primary: {lost}");
    assert_eq!(out.code, 1, "a lost commit fails the run: {}", out.all());
    let said = format!("acknowledged commits lost: {reported} of {checked} ");
    assert!(out.stderr.contains(&said), "{}", out.stderr);
    assert_eq!(lost["first"].as_array().unwrap().len() as u64, reported.min(10));
    // Found on the new primary by the test's own count: every acknowledged commit it holds, plus at
    // most the transactions in flight when the primary went (one per user), never acknowledged.
    let found = checked - reported;
    let new = rows(&pair.url_of(1, db), commits).await;
    let held: u64 = new.values().sum();
    assert!((found..=found + 4).contains(&held), "new primary holds {held}; {found} acknowledged found");
    // The old primary holds every commit it made: those the new one lacks are the acknowledged ones
    // reported lost, and at most those in flight besides.
    pair.restart_old_primary();
    let truly_lost = missing(&rows(&pair.url_of(0, db), commits).await, &new);
    let truly: u64 = truly_lost.values().sum();
    eprintln!("{db}: acknowledged {checked}, reported lost {reported}, truly missing {truly}");
    assert!((reported..=reported + 4).contains(&truly), "{truly} lost, {reported} reported");
    // Key by key: every commit the run names lost (lost_commits.txt) the old primary holds and the new
    // one lacks; those it does not name are at most the transactions in flight.
    let listed = std::fs::read_to_string(out_dir.join("lost_commits.txt")).unwrap();
    let mut named: HashMap<String, u64> = HashMap::new();
    listed.lines().for_each(|l| *named.entry(l.to_string()).or_default() += 1);
    assert_eq!(named.values().sum::<u64>(), reported, "one line per lost commit");
    let wrong = beyond(&named, &truly_lost);
    assert!(
        wrong.is_empty(),
        "{} named lost, yet not missing: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(20)]
    );
    let unnamed = beyond(&truly_lost, &named);
    let first = &unnamed[..unnamed.len().min(20)];
    assert!(
        unnamed.iter().map(|(_, n)| n).sum::<u64>() <= 4,
        "{} missing, yet not named: {first:?}",
        unnamed.len()
    );
    lost
}

#[tokio::test(flavor = "multi_thread")]
async fn scripts_report_the_acknowledged_commits_an_asynchronous_failover_lost() {
    let pair = Pair::start(false);
    pair.load("tpcb", &["--scale", "1"]);
    let primary = pair.url_of(0, "tpcb");
    let target: oltpgen_driver::Target = oltpgen_driver::engine::parse_url(&primary).unwrap();
    sql(&target)
        .await
        .batch_execute(
            "CREATE TABLE my_orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, cid int, amount int,
                                     made timestamptz DEFAULT clock_timestamp());
             CREATE TABLE my_customers (cid int PRIMARY KEY, spent bigint);
             INSERT INTO my_customers SELECT g, 0 FROM generate_series(1, 1000) g;",
        )
        .await
        .unwrap();
    let script = pair.dir().join("orders.sql");
    std::fs::write(&script, ORDERS).unwrap();
    let scripts = ["--pgbench-builtin", "tpcb-like", "--pgbench-script", path(&script)];
    let lost = lost_in_a_failover(&pair, "tpcb", &scripts, COMMITS).await;
    for listed in lost["first"].as_array().unwrap() {
        let text = listed.as_str().unwrap();
        let said = text.starts_with("tpcb-like: tid=") || text.starts_with("orders: (");
        assert!(said, "each lost commit said in its script's words: {text}");
    }
    // The new primary hands the lost orders' ids out again (its sequence goes on from what it had
    // received), many to the same customer (the key acknowledged twice, held once: one lost, which
    // the key-by-key comparison above found named), some for the same amount too (only the time made
    // tells the two commits apart: a count by id, customer and amount took the lost one for held, one
    // too few lost, as the run seemed to say one too many). How often (`-- --nocapture`).
    let [old, new] = [0, 1].map(|i| pair.url_of(i, "tpcb"));
    let (old, new) = (orders(&old).await, orders(&new).await);
    let lost: Vec<_> = old.iter().filter(|(id, o)| new.get(*id) != Some(*o)).collect();
    let again: Vec<_> = lost.iter().filter_map(|(id, o)| Some((o, new.get(*id)?))).collect();
    let alike = |n: usize| again.iter().filter(|(o, r)| o[..n] == r[..n]).count();
    let (customer, amount) = (alike(1), alike(2));
    eprintln!(
        "orders lost {}, their ids handed out again {}, to the same customer {customer}, and for the same \
         amount {amount}",
        lost.len(),
        again.len(),
    );
    assert!(customer > 0, "some lost orders' keys held by another commit: the case is tested");
    // TPC-B's invariant holds on the new primary: whole transactions only.
    let check = oltpgen(&["tpcb", "check", "--url", &pair.url_of(1, "tpcb")]);
    assert_eq!(check.code, 0, "{}", check.all());
}

#[test]
fn a_script_that_names_no_acknowledgement_has_its_lost_commits_not_measured() {
    let pair = Pair::start(true);
    pair.load("tpcb", &["--scale", "1"]);
    let out_dir = pair.dir().join("result");
    let (url, cmd) = (pair.url("tpcb"), pair.fail_over_cmd("true"));
    #[rustfmt::skip]
    let out = finish(spawn(&[
        "custom", "run", "--url", &url, "--out", path(&out_dir), "--users", "2", "--pgbench-builtin", "select-only",
        "--warmup", "1s", "--duration", "15s", "--report-interval", "5s", "--fault-at", "5s", "--fault-cmd", &cmd,
    ]));
    let r = result_json(&out_dir);
    assert_matches_schema(&r);
    assert_eq!(r["lost_commits"]["not_measured"], "the script names no acknowledgement", "{}", out.all());
    assert!(
        out.stdout.contains("acknowledged commits lost: not measured: the script names no acknowledgement"),
        "{}",
        out.all()
    );
    // Named, not a failure: the user chose not to count them.
    assert_eq!(out.code, 0, "{}", out.all());
}

/// An order-entry workload whose `new_order` names its acknowledgement: the order insert's parameters
/// (customer, item, quantity and a tag drawn from a billion, so that two orders are seldom alike),
/// read back from `orders`.
const SHOP: &str = r#"name = "shop"

[[tables]]
name = "customers"
rows = 1000
primary_key = ["id"]
columns = [
  { name = "id", ty = "int", gen = "sequence" },
  { name = "balance", ty = "numeric(12,2)", gen = { uniform = { min = 0, max = 5000 } } },
]

[[tables]]
name = "items"
rows = 100
primary_key = ["id"]
columns = [
  { name = "id", ty = "int", gen = "sequence" },
  { name = "sold", ty = "int", gen = { constant = 0 } },
]

[[tables]]
name = "orders"
rows = 0
columns = [
  { name = "customer", ty = "int", gen = { constant = 0 } },
  { name = "item", ty = "int", gen = { constant = 0 } },
  { name = "qty", ty = "int", gen = { constant = 0 } },
  { name = "tag", ty = "int", gen = { constant = 0 } },
]

[[transactions]]
name = "new_order"
weight = 5
rollback_pct = 1
params = { customer = { uniform = { min = 1, rows_of = "customers" } },
           item = { uniform = { min = 1, rows_of = "items" } }, qty = { uniform = { min = 1, max = 5 } },
           tag = { uniform = { min = 1, max = 1000000000 } } }
statements = [
  { sql = "UPDATE items SET sold = sold + :qty WHERE id = :item", rows = 1 },
  { sql = "INSERT INTO orders (customer, item, qty, tag) VALUES (:customer, :item, :qty, :tag)" },
]
ack = { statement = 2, check = "SELECT CONCAT_WS(',', customer, item, qty, tag) AS k FROM orders" }

[[transactions]]
name = "payment"
weight = 4
statements = [
  { sql = "UPDATE customers SET balance = balance + $2 WHERE id = $1", rows = 1,
    params = [{ uniform = { min = 1, rows_of = "customers" } }, { uniform = { min = 1, max = 500 } }] },
]

[[checks]]
name = "every item's sold count is its orders' quantities"
sql = "SELECT CAST(i.id AS text) AS k FROM items i LEFT JOIN (SELECT item, SUM(qty) AS q FROM orders GROUP BY item) o ON o.item = i.id WHERE i.sold <> COALESCE(o.q, 0)"
"#;

/// Loads the workload file `shop` (`SHOP`'s shape) into a pair and runs it through a failover
/// ([`lost_in_a_failover`]): its lost orders named by their keys. Returns the pair and the file.
async fn orders_lost_in_a_failover(shop: &str) -> (Pair, std::path::PathBuf) {
    let pair = Pair::start(false);
    let file = pair.dir().join("shop.toml");
    std::fs::write(&file, shop).unwrap();
    pair.load_into("custom", "shop", &["--file", path(&file)]);
    let orders = "SELECT concat_ws(',', customer, item, qty, tag), \
                  format('new_order: (%s, %s, %s, %s)', customer, item, qty, tag) FROM orders";
    let lost = lost_in_a_failover(&pair, "shop", &["--file", path(&file)], orders).await;
    for listed in lost["first"].as_array().unwrap() {
        assert!(listed.as_str().unwrap().starts_with("new_order: ("), "{listed}");
    }
    (pair, file)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workload_file_reports_the_acknowledged_orders_an_asynchronous_failover_lost() {
    let (pair, file) = orders_lost_in_a_failover(SHOP).await;
    // The file's checks pass on the new primary: whole transactions only.
    let check = oltpgen(&["custom", "check", "--file", path(&file), "--url", &pair.url_of(1, "shop")]);
    assert_eq!(check.code, 0, "{}", check.all());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workload_file_acknowledged_by_its_returned_rows_reports_the_orders_a_failover_lost() {
    // The order's tag is made by the server (its transaction's id) and known only from the row the
    // INSERT returns: that row is the acknowledgement.
    let insert = "INSERT INTO orders (customer, item, qty, tag) VALUES (:customer, :item, :qty, :tag)";
    let returned = "INSERT INTO orders (customer, item, qty, tag) VALUES (:customer, :item, :qty, \
                    CAST(txid_current() AS int)) RETURNING customer, item, qty, tag";
    let shop = SHOP
        .replace(insert, returned)
        .replace(",\n           tag = { uniform = { min = 1, max = 1000000000 } } }", " }")
        .replace("ack = { statement = 2,", "ack = { statement = 2, row = true,");
    assert_eq!(shop.matches("txid_current").count() + shop.matches("row = true").count(), 2, "{shop}");
    assert!(!shop.contains(":tag"), "{shop}");
    orders_lost_in_a_failover(&shop).await;
}

#[test]
fn an_ack_naming_no_statement_of_its_transaction_is_refused_at_its_line() {
    let (keep, root) = crate::common::data_dir();
    let file = keep.path().join("shop.toml");
    std::fs::write(&file, SHOP.replace("ack = { statement = 2,", "ack = { statement = 3,")).unwrap();
    let out = oltpgen(&["custom", "load", "--file", path(&file), "--data-dir", &root]);
    crate::common::assert_refused(
        &out,
        "shop.toml:42: workload shop: transaction new_order, ack: statement = 3: the transaction has statements 1 to 2",
    );
}
