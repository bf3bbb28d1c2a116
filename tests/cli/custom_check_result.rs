//! `custom check --result DIR` (issue 41): a workload file's acknowledged commits, as the run in DIR
//! recorded them, compared with the database, as `tpcc check --result` compares TPC-C's orders; an
//! acknowledged row deleted by hand is named as lost, exit 1.

use crate::common::{data_dir, oltpgen, sql, start_server};

/// Orders whose insert is the acknowledgement: each keyed by its customer, quantity and a tag.
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
  { name = "customer", ty = "int", gen = { constant = 0 } },
  { name = "qty", ty = "int", gen = { constant = 0 } },
  { name = "tag", ty = "int", gen = { constant = 0 } },
]

[[transactions]]
name = "new_order"
weight = 1
params = { customer = { uniform = { min = 1, rows_of = "customers" } }, qty = { uniform = { min = 1, max = 5 } },
           tag = { uniform = { min = 1, max = 1000000000 } } }
statements = [{ sql = "INSERT INTO orders (customer, qty, tag) VALUES (:customer, :qty, :tag)" }]
ack = { statement = 1, check = "SELECT CONCAT_WS(',', customer, qty, tag) AS k FROM orders" }
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_run_s_acknowledged_rows_are_checked_and_a_deleted_one_is_named() {
    let (keep, root) = data_dir();
    let file = crate::common::file(keep.path(), "shop.toml", SHOP);
    let (file, out) = (file.to_str().unwrap(), keep.path().join("result"));
    let custom =
        |args: &[&str], at: &[&str]| oltpgen(&[&["custom"][..], args, &["--file", file], at].concat());
    let at = ["--data-dir", root.as_str()];
    tokio::task::block_in_place(|| {
        let loaded = custom(&["load", "-q"], &at);
        assert_eq!(loaded.code, 0, "{}", loaded.all());
        let args = ["run", "--users", "2", "--warmup", "0s", "--duration", "2s", "-q", "--out"];
        let ran = custom(&[&args[..], &[out.to_str().unwrap()]].concat(), &at);
        assert_eq!(ran.code, 0, "{}", ran.all());
        let check = custom(&["check", "--result", out.to_str().unwrap()], &at);
        assert_eq!(check.code, 0, "{}", check.all());
        assert!(check.stdout.contains("acknowledged"), "the acknowledgements compared: {}", check.stdout);
    });

    let server = start_server(&root);
    let client = sql(&server.target("shop")).await;
    let gone = client
        .query_one(
            "DELETE FROM orders WHERE ctid = (SELECT ctid FROM orders ORDER BY tag LIMIT 1) \
             RETURNING concat_ws(', ', customer, qty, tag)",
            &[],
        )
        .await
        .unwrap()
        .get::<_, String>(0);
    let url = server.url("shop");
    let check = tokio::task::block_in_place(|| {
        custom(&["check", "--result", out.to_str().unwrap()], &["--url", &url])
    });
    assert_eq!(check.code, 1, "{}", check.all());
    assert!(
        check.all().contains(&format!("new_order: ({gone})")),
        "names the deleted order ({gone}): {}",
        check.all()
    );
}
