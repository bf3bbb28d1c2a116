//! DS2 as DS2's own tools see it: a database oltpgen loaded, read and called the way DS2's PostgreSQL
//! driver (`ds2/pgsqlds2/ds2pgsqlfns.cs` in dvdstore/ds21) reads and calls it — its column types, its
//! five functions with their parameter types, refcursors and 25 purchase arguments.

use tokio_postgres::types::{ToSql, Type};

use crate::common::{assert_intact, server_with};
use crate::common::{assert_matches_schema, oltpgen, result_json, sql};
use crate::ds2::QUICK;

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

/// A small DS2 database built as DS2's installer builds one (`pgsqlds2_create_all.sh`: the tables of
/// `pgsqlds2_create_tbl.sql`, data, the indexes of `pgsqlds2_create_ind.sql`, the trigger, the sequences
/// reset, and the functions of `pgsqlds2_create_sp.sql` with their defects), written here in the shape of
/// those scripts: 2,000 customers, 1,000 products, 600 orders of 3 lines.
const REFERENCE_BUILD: &str = r#"
CREATE TABLE customers (customerid serial PRIMARY KEY, firstname varchar(50) NOT NULL,
  lastname varchar(50) NOT NULL, address1 varchar(50) NOT NULL, address2 varchar(50), city varchar(50) NOT NULL,
  state varchar(50), zip varchar(9), country varchar(50) NOT NULL, region smallint NOT NULL, email varchar(50),
  phone varchar(50), creditcardtype int NOT NULL, creditcard varchar(50) NOT NULL,
  creditcardexpiration varchar(50) NOT NULL, username varchar(50) NOT NULL, password varchar(50) NOT NULL,
  age smallint, income int, gender varchar(1));
CREATE TABLE cust_hist (customerid int NOT NULL, orderid int NOT NULL, prod_id int NOT NULL);
CREATE TABLE orders (orderid serial PRIMARY KEY, orderdate date NOT NULL, customerid int,
  netamount numeric NOT NULL, tax numeric NOT NULL, totalamount numeric NOT NULL);
CREATE TABLE orderlines (orderlineid smallint NOT NULL, orderid int NOT NULL, prod_id int NOT NULL,
  quantity smallint NOT NULL, orderdate date NOT NULL);
CREATE TABLE products (prod_id serial PRIMARY KEY, category smallint NOT NULL, title text NOT NULL,
  actor text NOT NULL, price numeric NOT NULL, special smallint, common_prod_id int NOT NULL);
CREATE TABLE inventory (prod_id int NOT NULL PRIMARY KEY, quan_in_stock int NOT NULL, sales int NOT NULL)
  WITH (fillfactor = 85);
CREATE TABLE categories (category serial PRIMARY KEY, categoryname varchar(50) NOT NULL);
CREATE TABLE reorder (prod_id int NOT NULL, date_low date NOT NULL, quan_low int NOT NULL, date_reordered date,
  quan_reordered int, date_expected date);

INSERT INTO categories SELECT g, 'Category ' || g FROM generate_series(1, 16) g;
INSERT INTO customers SELECT g, 'FIRSTN', 'LASTNAMEXX', g || ' Dell Way', NULL, 'CITYNAM',
  CASE WHEN g <= 1000 THEN 'TX' ELSE '' END, CASE WHEN g <= 1000 THEN (10000 + g)::text ELSE '00000' END,
  CASE WHEN g <= 1000 THEN 'US' ELSE 'UK' END, CASE WHEN g <= 1000 THEN 1 ELSE 2 END, 'LASTNAMEXX@dell.com',
  '5125550000', 1 + g % 5, '1234567812345678', '2012/09', 'user' || g, 'password', 18 + g % 70,
  20000 * (1 + g % 5), CASE WHEN g % 2 = 0 THEN 'M' ELSE 'F' END
  FROM generate_series(1, 2000) g;
INSERT INTO products SELECT g, 1 + g % 16,
  (ARRAY['ACADEMY', 'AFRICAN', 'AGENT'])[1 + g % 3] || ' ' || (ARRAY['ADAPTATION', 'AFFAIR', 'TRUMAN'])[1 + (g / 3) % 3],
  (ARRAY['PENELOPE', 'NICK', 'ED'])[1 + g % 3] || ' ' || (ARRAY['GUINESS', 'WAHLBERG', 'CHASE'])[1 + (g / 3) % 3],
  9.99 + g % 20, (g % 10 = 0)::int, 1 + (g * 7) % 1000
  FROM generate_series(1, 1000) g;
INSERT INTO inventory SELECT g, 100 + g % 50, 0 FROM generate_series(1, 1000) g;
INSERT INTO orders SELECT g, DATE '2009-01-01' + g % 365, 1 + (g * 13) % 2000, 0, 0, 0 FROM generate_series(1, 600) g;
INSERT INTO orderlines SELECT l, o, 1 + (o * 31 + l * 17) % 1000, 1 + (o + l) % 3, DATE '2009-01-01' + o % 365
  FROM generate_series(1, 600) o, generate_series(1, 3) l;
UPDATE orders o SET netamount = s.net, tax = s.net * 0.0825, totalamount = s.net + s.net * 0.0825
  FROM (SELECT l.orderid, sum(p.price * l.quantity) AS net FROM orderlines l JOIN products p USING (prod_id)
        GROUP BY l.orderid) s
  WHERE s.orderid = o.orderid;
INSERT INTO cust_hist SELECT o.customerid, o.orderid, l.prod_id FROM orders o JOIN orderlines l USING (orderid);

CREATE UNIQUE INDEX ix_cust_username ON customers (username);
CREATE UNIQUE INDEX ix_cust_user_password ON customers (username, password);
CREATE INDEX ix_cust_hist_customerid ON cust_hist (customerid);
ALTER TABLE cust_hist ADD CONSTRAINT fk_cust_hist_customerid FOREIGN KEY (customerid)
  REFERENCES customers (customerid) ON DELETE CASCADE;
CREATE INDEX ix_order_custid ON orders (customerid);
ALTER TABLE orders ADD CONSTRAINT fk_customerid FOREIGN KEY (customerid) REFERENCES customers (customerid)
  ON DELETE SET NULL;
CREATE UNIQUE INDEX ix_orderlines_orderid ON orderlines (orderid, orderlineid);
ALTER TABLE orderlines ADD CONSTRAINT fk_orderid FOREIGN KEY (orderid) REFERENCES orders (orderid) ON DELETE CASCADE;
CREATE INDEX ix_prod_actor ON products USING gin (to_tsvector('simple', actor));
CREATE INDEX ix_prod_title ON products USING gin (to_tsvector('simple', title));
CREATE INDEX ix_prod_category ON products (category);
CREATE INDEX ix_prod_special ON products (special);
CREATE INDEX ix_prod_cat_special ON products (category, special);

CREATE FUNCTION restock_order() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE restockto int;
BEGIN
  IF NEW.quan_in_stock < 3 THEN
    restockto := CASE WHEN (NEW.prod_id + 1) % 10000 = 0 THEN 2500 ELSE 250 END;
    INSERT INTO reorder (prod_id, date_low, quan_low) VALUES (NEW.prod_id, current_timestamp, restockto - NEW.quan_in_stock);
    NEW.quan_in_stock := restockto;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER restock BEFORE UPDATE ON inventory FOR EACH ROW
  WHEN (OLD.quan_in_stock IS DISTINCT FROM NEW.quan_in_stock) EXECUTE PROCEDURE restock_order();

SELECT setval('categories_category_seq', max(category)) FROM categories;
SELECT setval('customers_customerid_seq', max(customerid)) FROM customers;
SELECT setval('orders_orderid_seq', max(orderid)) FROM orders;
SELECT setval('products_prod_id_seq', max(prod_id)) FROM products;

CREATE FUNCTION new_customer(firstname_in varchar(50), lastname_in varchar(50), address1_in varchar(50),
  address2_in varchar(50), city_in varchar(50), state_in varchar(50), zip_in varchar(9), country_in varchar(50),
  region_in smallint, email_in varchar(50), phone_in varchar(50), creditcardtype_in int, creditcard_in varchar(50),
  creditcardexpiration_in varchar(50), username_in varchar(50), password_in varchar(50), age_in smallint,
  income_in int, gender_in varchar(1))
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE customerid_out integer; age_int integer; income_int integer;
BEGIN
  BEGIN
    INSERT INTO customers (firstname, lastname, email, phone, username, password, address1, address2, city, state,
      zip, country, region, creditcardtype, creditcard, creditcardexpiration, age, income, gender)
    VALUES (firstname_in, lastname_in, email_in, phone_in, username_in, password_in, address1_in, address2_in,
      city_in, state_in, zip_in, country_in, region_in, creditcardtype_in, creditcard_in, creditcardexpiration_in,
      age_int, income_int, gender_in)
    RETURNING customerid INTO customerid_out;
    RETURN customerid_out;
  EXCEPTION WHEN unique_violation THEN
    RETURN 0;
  END;
END $$;

CREATE FUNCTION login(username_in text, password_in text) RETURNS SETOF refcursor LANGUAGE plpgsql AS $$
DECLARE customerid_out int; ref1 refcursor; ref2 refcursor;
BEGIN
  SELECT customerid INTO customerid_out FROM customers WHERE username = username_in AND password = password_in;
  IF FOUND THEN
    OPEN ref1 FOR SELECT customerid_out;
    RETURN NEXT ref1;
    OPEN ref2 FOR SELECT d.title, d.actor, p1.title AS relatedpurchase
      FROM (SELECT p.title, p.actor, p.prod_id, p.common_prod_id FROM cust_hist h JOIN products p ON h.prod_id = p.prod_id
            WHERE h.customerid = customerid_out) d
      JOIN products p1 ON d.common_prod_id = p1.prod_id;
    RETURN NEXT ref2;
  ELSE
    OPEN ref1 FOR SELECT 0;
    RETURN NEXT ref1;
  END IF;
  RETURN;
END $$;

CREATE FUNCTION browse_by_category(batch_size_in integer, category_in integer) RETURNS SETOF products
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT * FROM products WHERE category = category_in AND special = 1 LIMIT batch_size_in;
END $$;

CREATE FUNCTION browse_by_actor(batch_size_in integer, actor_in text) RETURNS SETOF products LANGUAGE plpgsql AS $$
DECLARE vector_in text;
BEGIN
  vector_in := replace(trim(both from actor_in), ' ', '&');
  RETURN QUERY SELECT * FROM products WHERE to_tsvector('simple', actor) @@ to_tsquery(vector_in) LIMIT batch_size_in;
END $$;

-- As the reference: a title browse that searches the actor column.
CREATE FUNCTION browse_by_title(batch_size_in integer, title_in text) RETURNS SETOF products LANGUAGE plpgsql AS $$
DECLARE vector_in text;
BEGIN
  vector_in := replace(trim(both from title_in), ' ', '&');
  RETURN QUERY SELECT * FROM products WHERE to_tsvector('simple', actor) @@ to_tsquery(vector_in) LIMIT batch_size_in;
END $$;

CREATE FUNCTION purchase(customerid_in integer, number_items integer, netamount_in numeric, taxamount_in numeric,
  totalamount_in numeric,
  prod_id_in0 integer DEFAULT 0, qty_in0 integer DEFAULT 0, prod_id_in1 integer DEFAULT 0, qty_in1 integer DEFAULT 0,
  prod_id_in2 integer DEFAULT 0, qty_in2 integer DEFAULT 0, prod_id_in3 integer DEFAULT 0, qty_in3 integer DEFAULT 0,
  prod_id_in4 integer DEFAULT 0, qty_in4 integer DEFAULT 0, prod_id_in5 integer DEFAULT 0, qty_in5 integer DEFAULT 0,
  prod_id_in6 integer DEFAULT 0, qty_in6 integer DEFAULT 0, prod_id_in7 integer DEFAULT 0, qty_in7 integer DEFAULT 0,
  prod_id_in8 integer DEFAULT 0, qty_in8 integer DEFAULT 0, prod_id_in9 integer DEFAULT 0, qty_in9 integer DEFAULT 0)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  date_in timestamp := current_timestamp; neworderid integer; item_id integer := 0; prodid integer; qty integer;
  cur_quan integer; cur_sales integer;
  prods integer[] := ARRAY[prod_id_in0, prod_id_in1, prod_id_in2, prod_id_in3, prod_id_in4, prod_id_in5,
    prod_id_in6, prod_id_in7, prod_id_in8, prod_id_in9];
  qtys integer[] := ARRAY[qty_in0, qty_in1, qty_in2, qty_in3, qty_in4, qty_in5, qty_in6, qty_in7, qty_in8, qty_in9];
BEGIN
  INSERT INTO orders (orderdate, customerid, netamount, tax, totalamount)
  VALUES (date_in, customerid_in, netamount_in, taxamount_in, totalamount_in) RETURNING orderid INTO neworderid;
  WHILE item_id < number_items LOOP
    prodid := prods[item_id + 1];
    qty := qtys[item_id + 1];
    SELECT quan_in_stock, sales INTO cur_quan, cur_sales FROM inventory WHERE prod_id = prodid;
    IF cur_quan - qty < 0 THEN
      RAISE EXCEPTION 'Insufficient Quantity for prodid:%', prodid;
    END IF;
    UPDATE inventory SET quan_in_stock = cur_quan - qty, sales = cur_sales + qty WHERE prod_id = prodid;
    INSERT INTO orderlines (orderlineid, orderid, prod_id, quantity, orderdate)
    VALUES (item_id + 1, neworderid, prodid, qty, date_in);
    INSERT INTO cust_hist (customerid, orderid, prod_id) VALUES (customerid_in, neworderid, prodid);
    item_id := item_id + 1;
  END LOOP;
  RETURN neworderid;
END $$;
ANALYZE;
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_database_ds2s_own_installer_built_is_driven_through_its_own_functions_and_named_so() {
    let (pg, urls) = server_with(&["ds2ref"]).await;
    let c = sql(&pg.target("ds2ref")).await;
    c.batch_execute(REFERENCE_BUILD).await.expect("DS2's schema, data and functions");
    let orders_before: i64 = c.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);

    let dir = tempfile::tempdir().unwrap();
    let args = [
        &["ds2", "run", "--url", &urls[0], "--run-time", "4s"][..],
        &["--out", dir.path().to_str().unwrap()],
        &QUICK,
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        out.stdout.contains("implementation: ds2-reference; known defects: DS2's own PostgreSQL functions"),
        "{}",
        out.stdout
    );
    let r = result_json(dir.path());
    assert_matches_schema(&r);
    assert_eq!(r["config"]["implementation"], "ds2-reference");
    assert_eq!(r["config"]["db_size"], "2000 customers, 1000 products", "read from its data");
    let defects = r["config"]["known_defects"].as_str().unwrap();
    assert!(defects.contains("browse_by_title searches the actor column") && defects.contains("english"));
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(summary.contains("known_defects=DS2's own PostgreSQL functions"), "{summary}");
    let step = &r["steps"][0];
    assert_eq!(step["errors"], 0, "{}", out.all());
    for op in ["login", "new_customer", "browse_category", "browse_actor", "purchase", "order", "rt_tot"] {
        assert!(
            step["transactions"][op]["count"].as_u64().unwrap() > 0,
            "{op} ran: {}",
            step["transactions"]
        );
    }

    let orders_after: i64 = c.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    assert!(orders_after > orders_before, "purchases went through DS2's purchase");
    let untouched: bool =
        c.query_one("SELECT to_regclass('oltpgen_meta') IS NULL", &[]).await.unwrap().get(0);
    assert!(untouched, "nothing of oltpgen's is written into DS2's database");
    drop(c);
    assert_intact(&["--url", &urls[0]]);
}
