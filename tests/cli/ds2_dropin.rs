//! DS2 as DS2's own tools see it: a database oltpgen loaded, read and called the way DS2's PostgreSQL
//! driver (`ds2/pgsqlds2/ds2pgsqlfns.cs` in dvdstore/ds21) reads and calls it — its column types, its
//! five functions with their parameter types, refcursors and 25 purchase arguments.

use tokio_postgres::types::{ToSql, Type};

use crate::common::{oltpgen, sql};
use crate::ds2::{assert_intact, server_with};

/// `SELECT f($1, …)` with every parameter typed as DS2's driver binds it (Npgsql's `NpgsqlDbType`).
async fn call(
    c: &tokio_postgres::Client,
    query: &str,
    params: &[(&(dyn ToSql + Sync), Type)],
) -> Vec<tokio_postgres::Row> {
    c.query_typed(query, params).await.unwrap_or_else(|e| panic!("{query}: {e:?}"))
}

/// The names of the cursors `login('user5', password)` opens in `tx`.
async fn login(tx: &tokio_postgres::Transaction<'_>, password: &str) -> Vec<String> {
    let rows = tx.query("SELECT login($1, $2)::text", &[&"user5", &password]).await.unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn ds2s_own_driver_finds_its_column_types_and_its_five_functions_in_an_oltpgen_database() {
    let (pg, urls) = server_with(&["ds2"]).await;
    let out = oltpgen(&["ds2", "load", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let mut c = sql(&pg.target("ds2")).await;

    // pgsqlds2_create_tbl.sql's types, where a client reads or binds them.
    let columns = c
        .query(
            "SELECT table_name || '.' || column_name, data_type, coalesce(character_maximum_length, 0) \
             FROM information_schema.columns WHERE table_schema = 'public' \
             AND column_name IN ('zip', 'region', 'age', 'orderlineid', 'quantity', 'category', 'special') \
             AND table_name IN ('customers', 'orderlines', 'products') ORDER BY 1",
            &[],
        )
        .await
        .unwrap();
    let columns: Vec<(String, String, i32)> =
        columns.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    let expected = [
        ("customers.age", "smallint", 0),
        ("customers.region", "smallint", 0),
        ("customers.zip", "character varying", 9),
        ("orderlines.orderlineid", "smallint", 0),
        ("orderlines.quantity", "smallint", 0),
        ("products.category", "smallint", 0),
        ("products.special", "smallint", 0),
    ];
    assert_eq!(columns, expected.map(|(n, t, l)| (n.to_string(), t.to_string(), l)));

    // Browses: ds2browse reads GetInt32, GetInt16, GetString, GetString, GetDecimal, GetInt16, GetInt32,
    // and passes the words wrapped in double quotes.
    let product = c.query_one("SELECT actor, title FROM products WHERE prod_id = 7", &[]).await.unwrap();
    let (actor, title): (String, String) = (product.get(0), product.get(1));
    for (function, words) in [
        ("browse_by_category", None),
        ("browse_by_actor", Some(format!("\"{actor}\""))),
        ("browse_by_title", Some(format!("\"{title}\""))),
    ] {
        let query = format!("SELECT * FROM {function}($1, $2)");
        let rows = match &words {
            None => call(&c, &query, &[(&5i32, Type::INT4), (&3i32, Type::INT4)]).await,
            Some(w) => call(&c, &query, &[(&5i32, Type::INT4), (w, Type::VARCHAR)]).await,
        };
        assert!(!rows.is_empty() && rows.len() <= 5, "{function}: {} rows", rows.len());
        let types: Vec<Type> = rows[0].columns().iter().map(|col| col.type_().clone()).collect();
        assert_eq!(types[1], Type::INT2, "{function}: category");
        assert_eq!(types[4], Type::NUMERIC, "{function}: price");
        assert_eq!(types[5], Type::INT2, "{function}: special");
        let _: (i32, i16, String, String, i16, i32) =
            (rows[0].get(0), rows[0].get(1), rows[0].get(2), rows[0].get(3), rows[0].get(5), rows[0].get(6));
    }

    // New customer with DS2's parameter types: varchar zip, smallint region and age; a taken name is 0.
    let text = |s: &'static str| -> Box<dyn ToSql + Sync> { Box::new(s) };
    let form: Vec<(Box<dyn ToSql + Sync>, Type)> = vec![
        (text("ABCDEF"), Type::VARCHAR),
        (text("GHIJKLMNOP"), Type::VARCHAR),
        (text("123 Dell Way"), Type::VARCHAR),
        (text(""), Type::VARCHAR),
        (text("QRSTUVW"), Type::VARCHAR),
        (text("TX"), Type::VARCHAR),
        (text("78682"), Type::VARCHAR),
        (text("US"), Type::VARCHAR),
        (Box::new(1i16), Type::INT2),
        (text("GHIJKLMNOP@dell.com"), Type::VARCHAR),
        (text("5125551212"), Type::VARCHAR),
        (Box::new(3i32), Type::INT4),
        (text("1234567812345678"), Type::VARCHAR),
        (text("2012/09"), Type::VARCHAR),
        (text("newuser_dropin"), Type::VARCHAR),
        (text("password"), Type::VARCHAR),
        (Box::new(44i16), Type::INT2),
        (Box::new(80_000i32), Type::INT4),
        (text("F"), Type::VARCHAR),
    ];
    let params: Vec<(&(dyn ToSql + Sync), Type)> =
        form.iter().map(|(v, t)| (v.as_ref(), t.clone())).collect();
    let placeholders: Vec<String> = (1..=19).map(|i| format!("${i}")).collect();
    let query = format!("SELECT new_customer({})", placeholders.join(", "));
    let id: i32 = call(&c, &query, &params).await[0].get(0);
    assert!(id > 20_000, "a new customer after the loaded ones: {id}");
    let again: i32 = call(&c, &query, &params).await[0].get(0);
    assert_eq!(again, 0, "a taken user name");
    let zip: String =
        c.query_one("SELECT zip FROM customers WHERE customerid = $1", &[&id]).await.unwrap().get(0);
    assert_eq!(zip, "78682");

    // Login: refcursors read in one transaction, as Npgsql 2 dereferences them: the id, then the history.
    let tx = c.transaction().await.unwrap();
    let cursors = login(&tx, "password").await;
    assert_eq!(cursors.len(), 2, "the customer and their history");
    let fetch = |name: &str| format!("FETCH ALL FROM \"{name}\"");
    let found: i32 = tx.query_one(&fetch(&cursors[0]), &[]).await.unwrap().get(0);
    assert_eq!(found, 5);
    let history = tx.query(&fetch(&cursors[1]), &[]).await.unwrap();
    let bought: i64 =
        tx.query_one("SELECT count(*) FROM cust_hist WHERE customerid = 5", &[]).await.unwrap().get(0);
    assert_eq!(history.len() as i64, bought, "the whole history");
    if let Some(row) = history.first() {
        let names: Vec<&str> = row.columns().iter().map(|col| col.name()).collect();
        assert_eq!(names, ["title", "actor", "relatedpurchase"]);
    }
    let unknown = login(&tx, "wrong").await;
    assert_eq!(unknown.len(), 1);
    let zero: i32 = tx.query_one(&fetch(&unknown[0]), &[]).await.unwrap().get(0);
    assert_eq!(zero, 0, "a wrong password finds no one");
    tx.commit().await.unwrap();

    // Purchase: 5 scalars, then 10 (prod_id, qty) pairs of which number_items are the cart. The amounts
    // are the server's, from the prices, whatever the client passed.
    let purchase = |cart: &str| {
        format!(
            "SELECT purchase(5, 2, 1.00, 0.08, 1.08, {cart}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)"
        )
    };
    let orderid: i32 = c.query_one(&purchase("11, 1, 12, 2"), &[]).await.unwrap().get(0);
    assert!(orderid > 12_000, "a new order after the loaded ones: {orderid}");
    let lines = c
        .query(
            "SELECT prod_id, quantity FROM orderlines WHERE orderid = $1 ORDER BY orderlineid",
            &[&orderid],
        )
        .await
        .unwrap();
    let lines: Vec<(i32, i16)> = lines.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(lines, [(11, 1), (12, 2)]);
    let priced: bool = c
        .query_one(
            "SELECT o.netamount = (SELECT sum(p.price * l.quantity) FROM orderlines l JOIN products p USING (prod_id) \
             WHERE l.orderid = o.orderid) AND o.totalamount = o.netamount + o.tax FROM orders o WHERE orderid = $1",
            &[&orderid],
        )
        .await
        .unwrap()
        .get(0);
    assert!(priced, "the server's amounts");
    // A short item: 0, which DS2's driver counts as a rollback, and nothing written.
    c.batch_execute(
        "ALTER TABLE inventory DISABLE TRIGGER USER; UPDATE inventory SET quan_in_stock = 0 WHERE prod_id = 13; \
         ALTER TABLE inventory ENABLE TRIGGER USER",
    )
    .await
    .unwrap();
    let orders: i64 = c.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    let short: i32 = c.query_one(&purchase("11, 1, 13, 1"), &[]).await.unwrap().get(0);
    assert_eq!(short, 0);
    let after: i64 = c.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    assert_eq!(after, orders, "all or nothing");
    drop(c);
    assert_intact(&["--url", &urls[0]]);
}
