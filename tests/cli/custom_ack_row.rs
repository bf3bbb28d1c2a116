//! A workload file's acknowledgement read from the row its statement returns (issue 41):
//! `ack = { statement = N, row = true, check = "…" }` keys a commit by a value only the server
//! knows (here an order id the INSERT computes), `custom check --result` compares those keys with the
//! database and names a deleted order; a bad returned-row ack is one line, exit 2.

use crate::common::{MssqlDb, assert_refused, data_dir, mssql_turn, mssql_url, oltpgen, sql, start_server};
use crate::mariadb_common::MariaDb;

/// Orders whose id the server makes (the next after the highest) and hands back with RETURNING: the
/// acknowledgement is the returned row, not the drawn parameters.
const SHOP: &str = r#"name = "shop"

[[tables]]
name = "customers"
rows = 100
primary_key = ["id"]
columns = [{ name = "id", ty = "int", gen = "sequence" }]

[[tables]]
name = "orders"
rows = 0
columns = [
  { name = "id", ty = "int", gen = { constant = 0 } },
  { name = "customer", ty = "int", gen = { constant = 0 } },
  { name = "qty", ty = "int", gen = { constant = 0 } },
]

[[transactions]]
name = "new_order"
weight = 1
params = { customer = { uniform = { min = 1, rows_of = "customers" } }, qty = { uniform = { min = 1, max = 5 } } }
statements = [{ sql = "INSERT INTO orders (id, customer, qty) SELECT COALESCE(MAX(id), 0) + 1, CAST(:customer AS int), CAST(:qty AS int) FROM orders RETURNING id, customer, qty",
                sql_mysql = "INSERT INTO orders (id, customer, qty) SELECT COALESCE(MAX(id), 0) + 1, :customer, :qty FROM orders RETURNING id, customer, qty",
                sql_mssql = "INSERT INTO orders (id, customer, qty) OUTPUT INSERTED.id, INSERTED.customer, INSERTED.qty SELECT COALESCE(MAX(id), 0) + 1, :customer, :qty FROM orders" }]
ack = { statement = 1, row = true, check = "SELECT CONCAT_WS(',', id, customer, qty) AS k FROM orders" }
"#;

/// `oltpgen custom ARGS --file FILE AT`.
fn custom(file: &str, args: &[&str], at: &[&str]) -> crate::common::Outcome {
    oltpgen(&[&["custom"][..], args, &["--file", file], at].concat())
}

/// Writes `text` as `name` in `dir`, loads it at `at` (which must pass) and runs it for a second: the
/// run's outcome, for a refusal at its start.
fn loaded_then_run(dir: &std::path::Path, name: &str, text: &str, at: &[&str]) -> crate::common::Outcome {
    let file = crate::common::file(dir, name, text);
    let file = file.to_str().unwrap();
    let loaded = custom(file, &["load", "-q"], at);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    custom(file, &["run", "--duration", "1s", "-q"], at)
}

/// Loads and runs `file` at `at` (two users, two seconds), result in `out`; then checks the result
/// against the database: it passes, its acknowledgements compared.
fn run_and_check(file: &str, at: &[&str], out: &str) {
    let loaded = custom(file, &["load", "-q"], at);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let args = ["run", "--users", "2", "--warmup", "0s", "--duration", "2s", "-q", "--out", out];
    let ran = custom(file, &args, at);
    assert_eq!(ran.code, 0, "{}", ran.all());
    let check = custom(file, &["check", "--result", out], at);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(check.stdout.contains("acknowledged"), "the acknowledgements compared: {}", check.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_returned_row_is_the_acknowledgement_and_a_deleted_order_is_named() {
    let (keep, root) = data_dir();
    let file = crate::common::file(keep.path(), "shop.toml", SHOP);
    let (file, out) = (file.to_str().unwrap(), keep.path().join("result"));
    let out = out.to_str().unwrap();
    tokio::task::block_in_place(|| run_and_check(file, &["--data-dir", root.as_str()], out));

    let server = start_server(&root);
    let client = sql(&server.target("shop")).await;
    let gone = client
        .query_one(
            "DELETE FROM orders WHERE ctid = (SELECT ctid FROM orders ORDER BY id DESC LIMIT 1) \
             RETURNING concat_ws(', ', id, customer, qty)",
            &[],
        )
        .await
        .unwrap()
        .get::<_, String>(0);
    let url = server.url("shop");
    let check = tokio::task::block_in_place(|| custom(file, &["check", "--result", out], &["--url", &url]));
    assert_eq!(check.code, 1, "{}", check.all());
    assert!(
        check.all().contains(&format!("new_order: ({gone})")),
        "names the deleted order ({gone}) by the id the server made: {}",
        check.all()
    );
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn mariadb_returns_and_keeps_the_acknowledging_rows() {
    let db = MariaDb::start();
    let keep = tempfile::tempdir().unwrap();
    let file = crate::common::file(keep.path(), "shop.toml", SHOP);
    let (file, out) = (file.to_str().unwrap(), keep.path().join("result"));
    let (out, url) = (out.to_str().unwrap(), db.url("shop"));
    db.sql("", "CREATE DATABASE shop");
    run_and_check(file, &["--url", &url], out);
    // An order gone: the kept acknowledgements name it, so they were read from the returned rows.
    let gone =
        db.sql("shop", "SELECT CONCAT_WS(', ', id, customer, qty) FROM orders ORDER BY id DESC LIMIT 1");
    db.sql("shop", "DELETE FROM orders ORDER BY id DESC LIMIT 1");
    let check = custom(file, &["check", "--result", out], &["--url", &url]);
    assert_eq!(check.code, 1, "{}", check.all());
    assert!(check.all().contains(&format!("new_order: ({})", gone.trim())), "{}", check.all());
}

#[test]
fn a_returned_row_ack_without_a_statement_or_a_row_is_refused_in_one_line() {
    let (keep, root) = data_dir();
    let at = ["--data-dir", root.as_str()];
    let no_statement = SHOP.replace("ack = { statement = 1, row = true,", "ack = { row = true,");
    let file = crate::common::file(keep.path(), "shop.toml", &no_statement);
    let refused = custom(file.to_str().unwrap(), &["load"], &at);
    assert_refused(&refused, "missing field `statement`");
    let line = 1 + no_statement.lines().position(|l| l.starts_with("ack = ")).unwrap();
    let at_line = format!("shop.toml: line {line}: ");
    assert!(refused.stderr.contains(&at_line), "at the ack's line, {line}: {}", refused.stderr);
    // The statement returns nothing: PostgreSQL says so when the run prepares it.
    let no_row = SHOP.replace(" RETURNING id, customer, qty\",", "\",");
    let ran = loaded_then_run(keep.path(), "no_row.toml", &no_row, &at);
    assert_refused(&ran, "ack row = true, but it returns no columns: add RETURNING");
    assert!(ran.stderr.contains("transaction new_order, statement 1 (INSERT INTO orders"), "{}", ran.stderr);
    // More columns than a key keeps.
    let wide = SHOP
        .replace("name = \"shop\"", "name = \"wide\"")
        .replace(" RETURNING id, customer, qty\",", " RETURNING id, customer, qty, id, customer, qty\",");
    let ran = loaded_then_run(keep.path(), "wide.toml", &wide, &at);
    assert_refused(&ran, "ack row = true, but it returns 6 columns; a key keeps at most 5: return fewer");
}

#[test]
fn an_acknowledging_statement_that_returns_no_row_is_an_error_of_its_transaction() {
    let (keep, root) = data_dir();
    let at = ["--data-dir", root.as_str()];
    // The INSERT's SELECT yields nothing: no order, no row back, nothing to acknowledge.
    let none = SHOP.replace("FROM orders RETURNING", "FROM orders HAVING COUNT(*) < 0 RETURNING");
    assert_ne!(none, SHOP);
    let file = crate::common::file(keep.path(), "shop.toml", &none);
    let (file, out) = (file.to_str().unwrap(), keep.path().join("result"));
    assert_eq!(custom(file, &["load", "-q"], &at).code, 0);
    let args = ["run", "--users", "1", "--warmup", "0s", "--duration", "2s", "-q", "--out"];
    let ran = custom(file, &[&args[..], &[out.to_str().unwrap()]].concat(), &at);
    assert!(ran.stderr.contains("nothing was measured"), "{}", ran.all());
    let step = &crate::common::result_json(&out)["steps"][0];
    assert!(step["errors"].as_u64().unwrap() > 0, "each run of it is an error: {step}");
    assert_eq!(step["transactions"]["new_order"]["count"].as_u64().unwrap_or(0), 0, "none counts: {step}");
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn sql_server_returns_the_acknowledging_rows_with_output_inserted() {
    let url = mssql_url();
    let _turn = mssql_turn().await;
    let db = MssqlDb::create(&url, "ackrow").await;
    let keep = tempfile::tempdir().unwrap();
    let file = crate::common::file(keep.path(), "shop.toml", SHOP);
    let out = keep.path().join("result");
    let (file, out) = (file.to_str().unwrap().to_string(), out.to_str().unwrap().to_string());
    tokio::task::spawn_blocking(move || run_and_check(&file, &["--url", &db.url], &out)).await.unwrap();
    // A returned column of another type is refused before the run, as PostgreSQL's is: T-SQL tells
    // the columns when the statement's trial runs.
    let db = MssqlDb::create(&url, "ackrow_dec").await;
    let decimal = SHOP.replace(r#"{ name = "qty", ty = "int""#, r#"{ name = "qty", ty = "numeric(10,2)""#);
    assert_ne!(decimal, SHOP);
    let ran = tokio::task::spawn_blocking(move || {
        loaded_then_run(keep.path(), "decimal.toml", &decimal, &["--url", db.url.as_str()])
    })
    .await
    .unwrap();
    assert_refused(
        &ran,
        "ack row = true, but it returns a decimal column: return integer or text columns (cast it)",
    );
    assert!(ran.stderr.contains("statement 1 (INSERT INTO orders"), "{}", ran.stderr);
}
