//! DVD Store 2 on SQL Server (the Babelfish server CI exports in `OLTPGEN_TEST_MSSQL_URL`; skipped,
//! saying so, without it): load, run, check and drop as the README shows them, two databases side by
//! side, DS2's own SQL Server driver's view of an oltpgen database (its procedures' names, parameters
//! and result shapes), a database built by DS2's own SQL Server scripts driven through its own
//! procedures and left without oltpgen's records, bad input, and faults under a run: sessions killed,
//! the server restarted, Ctrl-C.

use oltpgen_driver::mssql::Client;

use crate::common::assert_intact;
use crate::common::{
    SECRET, assert_matches_schema, assert_refused, finish, mssql_int, oltpgen, result_json, spawn,
};
use crate::mssql_common::{
    Database, OwnBabelfish, connect, exec, kill_run_sessions, scalar, server, wait_for_commits, with_database,
};

/// A short run's flags, as `ds2`'s tests' `QUICK` but with a longer warmup: a Babelfish session
/// compiles each procedure on its first call, which takes seconds on a busy 2-core machine.
const QUICK: [&str; 8] =
    ["--n-threads", "4", "--think-time", "0", "--warmup-time", "15s", "--report-rate", "2"];

/// A short measured run's flags on top of [`QUICK`].
fn run_args<'a>(urls: &[&'a str], out: &'a str, run_time: &'a str) -> Vec<&'a str> {
    let mut args = vec!["ds2", "run"];
    for u in urls {
        args.extend(["--url", u]);
    }
    args.extend(["--run-time", run_time, "--out", out, "-q"]);
    args.extend(QUICK);
    args
}

/// The password in `url` (`scheme://user:password@…`), which no output may show.
fn password(url: &str) -> &str {
    let rest = &url[url.find("://").map_or(0, |i| i + 3)..];
    let userinfo = &rest[..rest.find('@').unwrap_or(0)];
    userinfo.split_once(':').map_or("", |(_, p)| p)
}

/// A new database `name` on `server` with DS2 loaded by `oltpgen ds2 load --url sqlserver://…`.
async fn loaded(server: &str, name: &str) -> Database {
    let db = Database::create(server, name).await;
    let out = oltpgen(&["ds2", "load", "--url", &db.url, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    db
}

/// Asserts that a run's result has every operation counted, no errors, and the browse search the
/// server can do (Babelfish lacks full-text search: `like`).
#[track_caller]
fn assert_ran(r: &serde_json::Value, implementation: &str) {
    assert_matches_schema(r);
    assert_eq!(r["server"]["engine"], "sqlserver");
    assert_eq!(r["config"]["implementation"], implementation);
    let babelfish = r["server"]["settings"]["babelfish"] == "yes";
    assert_eq!(r["config"]["browse_search"], if babelfish { "like" } else { "full-text" });
    let step = &r["steps"][0];
    assert_eq!(step["errors"], 0, "{step}");
    let count = |op: &str| step["transactions"][op]["count"].as_u64().unwrap_or(0);
    // Every kind ran (a short run on a busy server may draw no registration, or no browse of one key).
    for ops in [
        &["order"][..],
        &["purchase"],
        &["login", "new_customer"],
        &["browse_category", "browse_actor", "browse_title"],
    ] {
        assert!(ops.iter().map(|op| count(op)).sum::<u64>() > 0, "{ops:?} ran: {}", step["transactions"]);
    }
}

/// README: `oltpgen ds2 load --url sqlserver://…`, `oltpgen ds2 run --n-threads 4 --url sqlserver://…`,
/// `oltpgen ds2 check --url sqlserver://…`, `oltpgen ds2 drop --url sqlserver://…`.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn ds2_loads_runs_checks_clean_and_drops_on_sql_server() {
    let server = server().await;
    let server = server.url.as_str();
    let db = loaded(server, "ds2_run").await;
    let url = db.url.as_str();
    assert_intact(&["--url", url]);
    let mut c = connect(url).await;
    let orders_before = scalar(&mut c, "SELECT COUNT(*) FROM orders").await;

    let dir = tempfile::tempdir().unwrap();
    let out = oltpgen(&run_args(&[url], dir.path().to_str().unwrap(), "6s"));
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(!out.all().contains(password(server)), "the password leaked:\n{}", out.all());
    assert_ran(&result_json(dir.path()), "oltpgen");
    assert!(scalar(&mut c, "SELECT COUNT(*) FROM orders").await > orders_before, "purchases wrote orders");
    assert_eq!(scalar(&mut c, "SELECT COUNT(*) FROM oltpgen_meta WHERE workload = 'ds2'").await, 1);
    assert_intact(&["--url", url]);

    let made = crate::mssql_common::mssql_objects(&mut c).await;
    for object in ["LOGIN", "PURCHASE", "customers_customerid_seq", "orders_orderid_seq", "restock"] {
        assert!(made.iter().any(|o| o.eq_ignore_ascii_case(object)), "{object} in {made:?}");
    }
    exec(&mut c, crate::mssql_common::MSSQL_OWN_PROCEDURE).await;
    drop(c);
    let out = oltpgen(&["ds2", "drop", "--url", url]);
    assert_eq!(out.code, 0, "{}", out.all());
    let mut c = connect(url).await;
    let left = crate::mssql_common::mssql_objects(&mut c).await;
    assert_eq!(left, ["users_own"], "drop leaves the user's procedure alone, and only it");
    let left = scalar(
        &mut c,
        "SELECT COUNT(*) FROM sys.tables WHERE name IN ('customers', 'orders', 'orderlines', 'cust_hist', \
         'products', 'inventory', 'reorder', 'categories', 'oltpgen_meta')",
    )
    .await;
    assert_eq!(left, 0, "ds2 drop leaves no DS2 table");
    drop(c);
    drop(db);
}

/// DS2's SQL Server driver (`ds2sqlserverfns.cs`) calls the procedures by name with its parameters and
/// reads their results so: LOGIN's id then history, browses' `GetByte` category and special,
/// NEW_CUSTOMER's id or 0, PURCHASE's order id or 0 (a rollback); the restock trigger writes a reorder.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn ds2s_own_sql_server_driver_finds_its_procedures_and_shapes_in_an_oltpgen_database() {
    let server = server().await;
    let server = server.url.as_str();
    let db = loaded(server, "ds2_shapes").await;
    let url = db.url.as_str();
    let mut c = connect(url).await;

    // LOGIN: the id, then the history (title, actor, related title); a wrong password is one set, 0.
    let sets = exec(&mut c, "EXEC LOGIN @username_in = 'user5', @password_in = 'password'").await;
    assert_eq!(sets.len(), 2, "id and history");
    assert_eq!(sets[0][0].get::<i32, _>(0), Some(5));
    assert!(sets[1].iter().all(|r| r.get::<&str, _>(2).is_some()));
    let sets = exec(&mut c, "EXEC LOGIN @username_in = 'user5', @password_in = 'wrong'").await;
    assert_eq!((sets.len(), sets[0][0].get::<i32, _>(0)), (1, Some(0)));

    // Browses: prod_id INT, category TINYINT, title, actor, price, special TINYINT, common_prod_id INT.
    let product = exec(&mut c, "SELECT actor, title FROM products WHERE prod_id = 7").await;
    let (actor, title) = (
        product[0][0].get::<&str, _>(0).unwrap().to_string(),
        product[0][0].get::<&str, _>(1).unwrap().to_string(),
    );
    for call in [
        "EXEC BROWSE_BY_CATEGORY @batch_size_in = 5, @category_in = 3".to_string(),
        format!("EXEC BROWSE_BY_ACTOR @batch_size_in = 5, @actor_in = '\"{actor}\"'"),
        format!("EXEC BROWSE_BY_TITLE @batch_size_in = 5, @title_in = '\"{title}\"'"),
    ] {
        let rows = &exec(&mut c, &call).await[0];
        assert!(!rows.is_empty() && rows.len() <= 5, "{call}: {} rows", rows.len());
        let r = &rows[0];
        let _: (i32, u8, &str, &str, u8, i32) = (
            r.get(0).unwrap(),
            r.get(1).unwrap(),
            r.get(2).unwrap(),
            r.get(3).unwrap(),
            r.get(5).unwrap(),
            r.get(6).unwrap(),
        );
    }

    // NEW_CUSTOMER with DS2's 19 parameters: a new id, then 0 for the same name.
    let new_customer = "EXEC NEW_CUSTOMER @firstname_in = 'A', @lastname_in = 'B', @address1_in = 'C', \
         @address2_in = '', @city_in = 'D', @state_in = '', @zip_in = 0, @country_in = 'Japan', @region_in = 2, \
         @email_in = 'e@x', @phone_in = '1', @creditcardtype_in = 1, @creditcard_in = '1', \
         @creditcardexpiration_in = '2012/09', @username_in = 'newuser_shapes', @password_in = 'pw', \
         @age_in = 30, @income_in = 40000, @gender_in = 'M'";
    let id = scalar(&mut c, new_customer).await;
    assert_eq!(id, scalar(&mut c, "SELECT MAX(customerid) FROM customers").await, "the new customer's id");
    assert_eq!(scalar(&mut c, new_customer).await, 0, "a taken name");

    // PURCHASE with DS2's 25 parameters: the order id; the lines keep the cart's numbering.
    let purchase = |cart: &str| {
        format!(
            "EXEC PURCHASE @customerid_in = 5, @number_items = 2, @netamount_in = 0, @taxamount_in = 0, @totalamount_in = 0, {cart}"
        )
    };
    let orderid =
        scalar(&mut c, &purchase("@prod_id_in0 = 12, @qty_in0 = 1, @prod_id_in1 = 11, @qty_in1 = 2")).await;
    assert!(orderid > 0);
    let lines = exec(
        &mut c,
        &format!(
            "SELECT prod_id, orderlineid FROM orderlines WHERE orderid = {orderid} ORDER BY orderlineid"
        ),
    )
    .await;
    let lines: Vec<(i32, i16)> = lines[0].iter().map(|r| (r.get(0).unwrap(), r.get(1).unwrap())).collect();
    assert_eq!(lines, [(12, 1), (11, 2)]);
    let priced = format!(
        "SELECT CASE WHEN o.netamount = (SELECT SUM(p.price * l.quantity) FROM orderlines l JOIN products p \
         ON p.prod_id = l.prod_id WHERE l.orderid = o.orderid) AND o.totalamount = o.netamount + o.tax THEN 1 ELSE 0 END \
         FROM orders o WHERE orderid = {orderid}"
    );
    assert_eq!(scalar(&mut c, &priced).await, 1, "the server's amounts");

    // Short stock: 0 and nothing written (the trigger is off while the stock is set).
    exec(
        &mut c,
        "DISABLE TRIGGER restock ON inventory\nGO\nUPDATE inventory SET quan_in_stock = 0 WHERE prod_id = 13\nGO\n\
         ENABLE TRIGGER restock ON inventory",
    )
    .await;
    let orders = scalar(&mut c, "SELECT COUNT(*) FROM orders").await;
    let stock_11 = scalar(&mut c, "SELECT quan_in_stock FROM inventory WHERE prod_id = 11").await;
    assert_eq!(
        scalar(&mut c, &purchase("@prod_id_in0 = 11, @qty_in0 = 1, @prod_id_in1 = 13, @qty_in1 = 1")).await,
        0
    );
    assert_eq!(scalar(&mut c, "SELECT COUNT(*) FROM orders").await, orders, "all or nothing");
    assert_eq!(scalar(&mut c, "SELECT quan_in_stock FROM inventory WHERE prod_id = 11").await, stock_11);

    // The restock trigger: a purchase that takes stock under 3 writes a reorder and puts the stock back.
    exec(&mut c, "UPDATE inventory SET quan_in_stock = 4 WHERE prod_id = 14").await;
    let reorders = scalar(&mut c, "SELECT COUNT(*) FROM reorder").await;
    let one = "EXEC PURCHASE @customerid_in = 5, @number_items = 1, @netamount_in = 0, @taxamount_in = 0, \
         @totalamount_in = 0, @prod_id_in0 = 14, @qty_in0 = 3";
    assert!(scalar(&mut c, one).await > 0);
    assert_eq!(scalar(&mut c, "SELECT COUNT(*) FROM reorder").await, reorders + 1);
    assert_eq!(scalar(&mut c, "SELECT quan_low FROM reorder WHERE prod_id = 14").await, 1);
    assert_eq!(scalar(&mut c, "SELECT quan_in_stock FROM inventory WHERE prod_id = 14").await, 4);
    drop(c);
    assert_intact(&["--url", url]);
    drop(db);
}

/// README: `oltpgen ds2 --n-threads 4 --url sqlserver://…/A --url sqlserver://…/B` loads each empty
/// database, then drives both side by side.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn two_sql_server_databases_are_loaded_and_driven_side_by_side() {
    let server = server().await;
    let server = server.url.as_str();
    let (a, b) = (Database::create(server, "ds2_side_a").await, Database::create(server, "ds2_side_b").await);
    let dir = tempfile::tempdir().unwrap();
    let mut args = run_args(&[&a.url, &b.url], dir.path().to_str().unwrap(), "6s");
    args.remove(1); // bare `ds2`: load what is empty, then run
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(dir.path());
    assert_ran(&r, "oltpgen");
    assert_eq!(r["targets"].as_array().unwrap().len(), 2);
    let per_db = r["steps"][0]["targets"].as_object().unwrap();
    assert_eq!(per_db.len(), 2, "{per_db:?}");
    for t in per_db.values() {
        assert!(t["transactions"]["purchase"]["count"].as_u64().unwrap() > 0, "{t}");
    }
    for db in [a, b] {
        assert_intact(&["--url", &db.url]);
        drop(db);
    }
}

/// A small DS2 database built by DS2's own SQL Server scripts (`sqlserverds2_create_db_*.sql`: tables,
/// categories and the RESTOCK trigger; `sqlserverds2_create_ind_*.sql`: keys and indexes;
/// `sqlserverds2_create_sp.sql`: the procedures), as far as Babelfish runs them, with data in the shape
/// DS2's loader writes (2,000 customers, 1,000 products, 600 orders of 3 lines). What Babelfish cannot
/// run is adapted, and only that: no filegroups, `USE DS2` or `DBCC PINTABLE` (one database per test);
/// no `CREATE STATISTICS`; no full-text catalog, and the two word browses say `LIKE` over the phrase
/// for `CONTAINS`.
const REFERENCE_BUILD: &str = r#"
CREATE TABLE CUSTOMERS (CUSTOMERID INT IDENTITY NOT NULL, FIRSTNAME VARCHAR(50) NOT NULL,
  LASTNAME VARCHAR(50) NOT NULL, ADDRESS1 VARCHAR(50) NOT NULL, ADDRESS2 VARCHAR(50), CITY VARCHAR(50) NOT NULL,
  STATE VARCHAR(50), ZIP INT, COUNTRY VARCHAR(50) NOT NULL, REGION TINYINT NOT NULL, EMAIL VARCHAR(50),
  PHONE VARCHAR(50), CREDITCARDTYPE TINYINT NOT NULL, CREDITCARD VARCHAR(50) NOT NULL,
  CREDITCARDEXPIRATION VARCHAR(50) NOT NULL, USERNAME VARCHAR(50) NOT NULL, PASSWORD VARCHAR(50) NOT NULL,
  AGE TINYINT, INCOME INT, GENDER VARCHAR(1))
GO
CREATE TABLE CUST_HIST (CUSTOMERID INT NOT NULL, ORDERID INT NOT NULL, PROD_ID INT NOT NULL)
GO
CREATE TABLE ORDERS (ORDERID INT IDENTITY NOT NULL, ORDERDATE DATETIME NOT NULL, CUSTOMERID INT NOT NULL,
  NETAMOUNT MONEY NOT NULL, TAX MONEY NOT NULL, TOTALAMOUNT MONEY NOT NULL)
GO
CREATE TABLE ORDERLINES (ORDERLINEID SMALLINT NOT NULL, ORDERID INT NOT NULL, PROD_ID INT NOT NULL,
  QUANTITY SMALLINT NOT NULL, ORDERDATE DATETIME NOT NULL)
GO
CREATE TABLE PRODUCTS (PROD_ID INT IDENTITY NOT NULL, CATEGORY TINYINT NOT NULL, TITLE VARCHAR(50) NOT NULL,
  ACTOR VARCHAR(50) NOT NULL, PRICE MONEY NOT NULL, SPECIAL TINYINT, COMMON_PROD_ID INT NOT NULL)
GO
CREATE TABLE INVENTORY (PROD_ID INT NOT NULL, QUAN_IN_STOCK INT NOT NULL, SALES INT NOT NULL)
GO
CREATE TABLE CATEGORIES (CATEGORY TINYINT IDENTITY NOT NULL, CATEGORYNAME VARCHAR(50) NOT NULL)
GO
SET IDENTITY_INSERT CATEGORIES ON
INSERT INTO CATEGORIES (CATEGORY, CATEGORYNAME) VALUES (1,'Action')
INSERT INTO CATEGORIES (CATEGORY, CATEGORYNAME) VALUES (2,'Animation')
SET IDENTITY_INSERT CATEGORIES OFF
GO
CREATE TABLE REORDER (PROD_ID INT NOT NULL, DATE_LOW DATETIME NOT NULL, QUAN_LOW INT NOT NULL,
  DATE_REORDERED DATETIME, QUAN_REORDERED INT, DATE_EXPECTED DATETIME)
GO
CREATE TRIGGER RESTOCK ON INVENTORY AFTER UPDATE
AS
  DECLARE @changedPROD_ID INT, @oldQUAN_IN_STOCK INT, @newQUAN_IN_STOCK INT;
  IF UPDATE(QUAN_IN_STOCK)
    BEGIN
      SELECT @changedPROD_ID = i.PROD_ID, @oldQUAN_IN_STOCK = d.QUAN_IN_STOCK, @newQUAN_IN_STOCK = i.QUAN_IN_STOCK
        FROM inserted i INNER JOIN deleted d ON i.PROD_ID = d.PROD_ID
      IF @newQUAN_IN_STOCK < 3
        BEGIN
          INSERT INTO REORDER (PROD_ID, DATE_LOW, QUAN_LOW) VALUES (@changedPROD_ID, GETDATE(), @newQUAN_IN_STOCK)
          UPDATE INVENTORY SET QUAN_IN_STOCK = @oldQUAN_IN_STOCK WHERE PROD_ID = @changedPROD_ID
        END
    END
  RETURN
GO
WITH d AS (SELECT n FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) v (n)),
  g AS (SELECT a.n + 10 * b.n + 100 * c.n + 1000 * e.n + 1 AS n FROM d a, d b, d c, d e)
INSERT INTO CUSTOMERS (FIRSTNAME, LASTNAME, ADDRESS1, ADDRESS2, CITY, STATE, ZIP, COUNTRY, REGION, EMAIL, PHONE,
  CREDITCARDTYPE, CREDITCARD, CREDITCARDEXPIRATION, USERNAME, PASSWORD, AGE, INCOME, GENDER)
SELECT 'FIRSTN', 'LASTNAMEXX', CONCAT(n, ' Dell Way'), NULL, 'CITYNAM', CASE WHEN n <= 1000 THEN 'TX' ELSE '' END,
  CASE WHEN n <= 1000 THEN 10000 + n ELSE 0 END, CASE WHEN n <= 1000 THEN 'US' ELSE 'UK' END,
  CASE WHEN n <= 1000 THEN 1 ELSE 2 END, 'LASTNAMEXX@dell.com', '5125550000', 1 + n % 5, '1234567812345678',
  '2012/09', CONCAT('user', n), 'password', 18 + n % 70, 20000 * (1 + n % 5), CASE WHEN n % 2 = 0 THEN 'M' ELSE 'F' END
FROM g WHERE n <= 2000 ORDER BY n
GO
WITH d AS (SELECT n FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) v (n)),
  g AS (SELECT a.n + 10 * b.n + 100 * c.n + 1 AS n FROM d a, d b, d c)
INSERT INTO PRODUCTS (CATEGORY, TITLE, ACTOR, PRICE, SPECIAL, COMMON_PROD_ID)
SELECT 1 + n % 16,
  CONCAT(CASE n % 3 WHEN 0 THEN 'ACADEMY' WHEN 1 THEN 'AFRICAN' ELSE 'AGENT' END, ' ',
    CASE (n / 3) % 3 WHEN 0 THEN 'ADAPTATION' WHEN 1 THEN 'AFFAIR' ELSE 'TRUMAN' END),
  CONCAT(CASE n % 3 WHEN 0 THEN 'PENELOPE' WHEN 1 THEN 'NICK' ELSE 'ED' END, ' ',
    CASE (n / 3) % 3 WHEN 0 THEN 'GUINESS' WHEN 1 THEN 'WAHLBERG' ELSE 'CHASE' END),
  9.99 + n % 20, CASE WHEN n % 10 = 0 THEN 1 ELSE 0 END, 1 + (n * 7) % 1000
FROM g ORDER BY n
GO
INSERT INTO INVENTORY (PROD_ID, QUAN_IN_STOCK, SALES) SELECT PROD_ID, 100 + PROD_ID % 50, 0 FROM PRODUCTS
GO
WITH d AS (SELECT n FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) v (n)),
  g AS (SELECT a.n + 10 * b.n + 100 * c.n + 1 AS n FROM d a, d b, d c)
INSERT INTO ORDERS (ORDERDATE, CUSTOMERID, NETAMOUNT, TAX, TOTALAMOUNT)
SELECT DATEADD(day, n % 365, '2009-01-01'), 1 + (n * 13) % 2000, 0, 0, 0 FROM g WHERE n <= 600 ORDER BY n
GO
INSERT INTO ORDERLINES (ORDERLINEID, ORDERID, PROD_ID, QUANTITY, ORDERDATE)
SELECT l.n, o.ORDERID, 1 + (o.ORDERID * 31 + l.n * 17) % 1000, 1 + (o.ORDERID + l.n) % 3, o.ORDERDATE
FROM ORDERS o CROSS JOIN (VALUES (1), (2), (3)) l (n)
GO
UPDATE ORDERS SET NETAMOUNT = s.net, TAX = s.net * 0.0825, TOTALAMOUNT = s.net + CAST(s.net * 0.0825 AS MONEY)
FROM ORDERS o JOIN (SELECT l.ORDERID, SUM(p.PRICE * l.QUANTITY) AS net FROM ORDERLINES l
  JOIN PRODUCTS p ON p.PROD_ID = l.PROD_ID GROUP BY l.ORDERID) s ON s.ORDERID = o.ORDERID
GO
INSERT INTO CUST_HIST (CUSTOMERID, ORDERID, PROD_ID)
SELECT o.CUSTOMERID, o.ORDERID, l.PROD_ID FROM ORDERS o JOIN ORDERLINES l ON l.ORDERID = o.ORDERID
GO
ALTER TABLE CATEGORIES ADD CONSTRAINT PK_CATEGORIES PRIMARY KEY CLUSTERED (CATEGORY)
GO
ALTER TABLE CUSTOMERS ADD CONSTRAINT PK_CUSTOMERS PRIMARY KEY CLUSTERED (CUSTOMERID)
GO
CREATE UNIQUE INDEX IX_CUST_UN_PW ON CUSTOMERS (USERNAME, PASSWORD)
GO
CREATE INDEX IX_CUST_HIST_CUSTOMERID ON CUST_HIST (CUSTOMERID)
GO
CREATE INDEX IX_CUST_HIST_CUSTOMERID_PRODID ON CUST_HIST (CUSTOMERID ASC, PROD_ID ASC)
GO
ALTER TABLE CUST_HIST ADD CONSTRAINT FK_CUST_HIST_CUSTOMERID FOREIGN KEY (CUSTOMERID)
  REFERENCES CUSTOMERS (CUSTOMERID) ON DELETE CASCADE
GO
ALTER TABLE ORDERS ADD CONSTRAINT PK_ORDERS PRIMARY KEY CLUSTERED (ORDERID)
GO
CREATE INDEX IX_ORDER_CUSTID ON ORDERS (CUSTOMERID)
GO
ALTER TABLE ORDERLINES ADD CONSTRAINT PK_ORDERLINES PRIMARY KEY CLUSTERED (ORDERID, ORDERLINEID)
GO
ALTER TABLE ORDERLINES ADD CONSTRAINT FK_ORDERID FOREIGN KEY (ORDERID) REFERENCES ORDERS (ORDERID) ON DELETE CASCADE
GO
ALTER TABLE INVENTORY ADD CONSTRAINT PK_INVENTORY PRIMARY KEY CLUSTERED (PROD_ID)
GO
ALTER TABLE PRODUCTS ADD CONSTRAINT PK_PRODUCTS PRIMARY KEY CLUSTERED (PROD_ID)
GO
CREATE INDEX IX_PROD_PRODID ON PRODUCTS (PROD_ID ASC) INCLUDE (TITLE)
GO
CREATE INDEX IX_PROD_PRODID_COMMON_PRODID ON PRODUCTS (PROD_ID ASC, COMMON_PROD_ID ASC) INCLUDE (TITLE, ACTOR)
GO
CREATE INDEX IX_PROD_SPECIAL_CATEGORY_PRODID ON PRODUCTS (SPECIAL ASC, CATEGORY ASC, PROD_ID ASC)
  INCLUDE (TITLE, ACTOR, PRICE, COMMON_PROD_ID)
GO
CREATE INDEX IX_PROD_CATEGORY ON PRODUCTS (CATEGORY)
GO
CREATE INDEX IX_PROD_SPECIAL ON PRODUCTS (SPECIAL)
GO
CREATE PROCEDURE NEW_CUSTOMER
  (
  @firstname_in VARCHAR(50), @lastname_in VARCHAR(50), @address1_in VARCHAR(50), @address2_in VARCHAR(50),
  @city_in VARCHAR(50), @state_in VARCHAR(50), @zip_in INT, @country_in VARCHAR(50), @region_in TINYINT,
  @email_in VARCHAR(50), @phone_in VARCHAR(50), @creditcardtype_in TINYINT, @creditcard_in VARCHAR(50),
  @creditcardexpiration_in VARCHAR(50), @username_in VARCHAR(50), @password_in VARCHAR(50), @age_in TINYINT,
  @income_in INT, @gender_in VARCHAR(1)
  )
  AS
  IF (SELECT COUNT(*) FROM CUSTOMERS WHERE USERNAME=@username_in) = 0
  BEGIN
    INSERT INTO CUSTOMERS (FIRSTNAME, LASTNAME, ADDRESS1, ADDRESS2, CITY, STATE, ZIP, COUNTRY, REGION, EMAIL, PHONE,
      CREDITCARDTYPE, CREDITCARD, CREDITCARDEXPIRATION, USERNAME, PASSWORD, AGE, INCOME, GENDER)
    VALUES (@firstname_in, @lastname_in, @address1_in, @address2_in, @city_in, @state_in, @zip_in, @country_in,
      @region_in, @email_in, @phone_in, @creditcardtype_in, @creditcard_in, @creditcardexpiration_in, @username_in,
      @password_in, @age_in, @income_in, @gender_in)
    SELECT @@IDENTITY
  END
  ELSE
    SELECT 0
GO
CREATE PROCEDURE LOGIN
  (
  @username_in              VARCHAR(50),
  @password_in              VARCHAR(50)
  )
  AS
DECLARE @customerid_out INT
  SELECT @customerid_out=CUSTOMERID FROM CUSTOMERS WHERE USERNAME=@username_in AND PASSWORD=@password_in
  IF (@@ROWCOUNT > 0)
    BEGIN
      SELECT @customerid_out
      SELECT derivedtable1.TITLE, derivedtable1.ACTOR, PRODUCTS_1.TITLE AS RelatedPurchase
        FROM (SELECT PRODUCTS.TITLE, PRODUCTS.ACTOR, PRODUCTS.PROD_ID, PRODUCTS.COMMON_PROD_ID
          FROM CUST_HIST INNER JOIN
             PRODUCTS ON CUST_HIST.PROD_ID = PRODUCTS.PROD_ID
          WHERE (CUST_HIST.CUSTOMERID = @customerid_out)) AS derivedtable1 INNER JOIN
             PRODUCTS AS PRODUCTS_1 ON derivedtable1.COMMON_PROD_ID = PRODUCTS_1.PROD_ID
    END
  ELSE
    SELECT 0
GO
CREATE PROCEDURE BROWSE_BY_CATEGORY
  (
  @batch_size_in            INT,
  @category_in              INT
  )
  AS
  SET ROWCOUNT @batch_size_in
  SELECT * FROM PRODUCTS WHERE CATEGORY=@category_in and SPECIAL=1
  SET ROWCOUNT 0
GO
CREATE PROCEDURE BROWSE_BY_ACTOR
  (
  @batch_size_in            INT,
  @actor_in                 VARCHAR(50)
  )
  AS
  SET ROWCOUNT @batch_size_in
  SELECT * FROM PRODUCTS WHERE ACTOR LIKE '%' + REPLACE(@actor_in, '"', '') + '%'
  SET ROWCOUNT 0
GO
CREATE PROCEDURE BROWSE_BY_TITLE
  (
  @batch_size_in            INT,
  @title_in                 VARCHAR(50)
  )
  AS
  SET ROWCOUNT @batch_size_in
  SELECT * FROM PRODUCTS WHERE TITLE LIKE '%' + REPLACE(@title_in, '"', '') + '%'
  SET ROWCOUNT 0
GO
CREATE PROCEDURE PURCHASE
  (
  @customerid_in            INT,
  @number_items             INT,
  @netamount_in             MONEY,
  @taxamount_in             MONEY,
  @totalamount_in           MONEY,
  @prod_id_in0              INT = 0,     @qty_in0     INT = 0,
  @prod_id_in1              INT = 0,     @qty_in1     INT = 0,
  @prod_id_in2              INT = 0,     @qty_in2     INT = 0,
  @prod_id_in3              INT = 0,     @qty_in3     INT = 0,
  @prod_id_in4              INT = 0,     @qty_in4     INT = 0,
  @prod_id_in5              INT = 0,     @qty_in5     INT = 0,
  @prod_id_in6              INT = 0,     @qty_in6     INT = 0,
  @prod_id_in7              INT = 0,     @qty_in7     INT = 0,
  @prod_id_in8              INT = 0,     @qty_in8     INT = 0,
  @prod_id_in9              INT = 0,     @qty_in9     INT = 0
  )
  AS
  DECLARE
  @date_in                  DATETIME,
  @neworderid               INT,
  @item_id                  INT,
  @prod_id                  INT,
  @qty                      INT,
  @cur_quan                 INT,
  @new_quan                 INT,
  @cur_sales                INT,
  @new_sales                INT
  SET DATEFORMAT ymd
  SET @date_in = GETDATE()
  BEGIN TRANSACTION
  INSERT INTO ORDERS (ORDERDATE, CUSTOMERID, NETAMOUNT, TAX, TOTALAMOUNT)
  VALUES (@date_in, @customerid_in, @netamount_in, @taxamount_in, @totalamount_in)
  SET @neworderid = @@IDENTITY
  SET @item_id = 0
  WHILE (@item_id < @number_items)
  BEGIN
    SELECT @prod_id = CASE @item_id WHEN 0 THEN @prod_id_in0 WHEN 1 THEN @prod_id_in1 WHEN 2 THEN @prod_id_in2
      WHEN 3 THEN @prod_id_in3 WHEN 4 THEN @prod_id_in4 WHEN 5 THEN @prod_id_in5 WHEN 6 THEN @prod_id_in6
      WHEN 7 THEN @prod_id_in7 WHEN 8 THEN @prod_id_in8 WHEN 9 THEN @prod_id_in9
    END
    SELECT @qty = CASE @item_id WHEN 0 THEN @qty_in0 WHEN 1 THEN @qty_in1 WHEN 2 THEN @qty_in2 WHEN 3 THEN @qty_in3
      WHEN 4 THEN @qty_in4 WHEN 5 THEN @qty_in5 WHEN 6 THEN @qty_in6 WHEN 7 THEN @qty_in7 WHEN 8 THEN @qty_in8
      WHEN 9 THEN @qty_in9
    END
    SELECT @cur_quan=QUAN_IN_STOCK, @cur_sales=SALES FROM INVENTORY WHERE PROD_ID=@prod_id
    SET @new_quan = @cur_quan - @qty
    SET @new_sales = @cur_Sales + @qty
    IF (@new_quan < 0)
      BEGIN
        ROLLBACK TRANSACTION
        SELECT 0
        RETURN
      END
    ELSE
      BEGIN
        UPDATE INVENTORY SET QUAN_IN_STOCK=@new_quan, SALES=@new_sales WHERE PROD_ID=@prod_id
        INSERT INTO ORDERLINES (ORDERLINEID, ORDERID, PROD_ID, QUANTITY, ORDERDATE)
        VALUES (@item_id + 1, @neworderid, @prod_id, @qty, @date_in)
        INSERT INTO CUST_HIST (CUSTOMERID, ORDERID, PROD_ID) VALUES (@customerid_in, @neworderid, @prod_id)
        SET @item_id = @item_id + 1
      END
  END
  COMMIT
  SELECT @neworderid
GO
"#;

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn a_database_ds2s_own_sql_server_scripts_built_is_driven_through_its_procedures_and_left_unrecorded() {
    let server = server().await;
    let server = server.url.as_str();
    let db = Database::create(server, "ds2_reference").await;
    let url = db.url.as_str();
    let mut c = connect(url).await;
    exec(&mut c, REFERENCE_BUILD).await;
    let orders_before = scalar(&mut c, "SELECT COUNT(*) FROM ORDERS").await;

    let dir = tempfile::tempdir().unwrap();
    let out = oltpgen(&run_args(&[url], dir.path().to_str().unwrap(), "6s"));
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(dir.path());
    assert_ran(&r, "ds2-reference");
    assert_eq!(r["config"]["db_size"], "2000 customers, 1000 products", "read from its data");
    let defects = r["config"]["known_defects"].as_str().unwrap();
    assert!(defects.contains("DS2's own SQL Server procedures"), "{defects}");

    assert!(
        scalar(&mut c, "SELECT COUNT(*) FROM ORDERS").await > orders_before,
        "purchases through PURCHASE"
    );
    assert_eq!(
        scalar(&mut c, "SELECT COUNT(*) FROM sys.objects WHERE name IN ('oltpgen_meta', 'OLTPGEN_LOGIN')")
            .await,
        0,
        "nothing of oltpgen's is written into DS2's database"
    );
    drop(c);
    assert_intact(&["--url", url]);
    drop(db);
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn ds2_on_sql_server_refuses_a_wrong_password_and_an_unknown_database_in_one_line() {
    let server = server().await;
    let server = server.url.as_str();
    let wrong = server.replacen(&format!(":{}@", password(server)), &format!(":{SECRET}@"), 1);
    assert_ne!(wrong, server, "the test URL carries a password");
    for args in [["ds2", "load"], ["ds2", "run"], ["ds2", "check"]] {
        let out = oltpgen(&[&args[..], &["--url", &wrong]].concat());
        assert_refused(&out, "refused the login");
    }
    let missing = with_database(server, "issue14b_no_such_database");
    let out = oltpgen(&["ds2", "check", "--url", &missing]);
    assert_refused(&out, "create the database first");
    assert!(!out.all().contains(password(server)), "{}", out.all());
}

/// Orders the run committed (purchases write one each).
const ORDERS: &str = "SELECT COUNT(*) FROM orders";

/// Waits until the run on `watch`'s database commits 4 more orders than it has now.
async fn wait_for_more_orders(watch: &mut Client) {
    let now = mssql_int(watch, ORDERS).await;
    wait_for_commits(watch, ORDERS, now + 4).await;
}

/// Asserts that a run's result was written with purchases counted and the lost connections counted too.
#[track_caller]
fn assert_survived(r: &serde_json::Value) {
    assert_matches_schema(r);
    assert!(r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0) > 0, "{}", r["errors_by_kind"]);
    assert!(r["steps"][0]["transactions"]["order"]["count"].as_u64().unwrap_or(0) > 0, "{}", r["steps"][0]);
    // Connections were lost: every acknowledged purchase was compared with the database, and none is
    // missing (a killed session loses only its unacknowledged one; a fast restart keeps every commit).
    let lost = &r["lost_commits"];
    assert!(lost["checked"].as_u64().unwrap_or(0) > 0, "purchases compared on SQL Server: {lost}");
    assert_eq!(lost["lost"], 0, "{lost}");
}

/// [`QUICK`]'s warmup: a run's measured step begins this long after it started.
const WARMUP: std::time::Duration = std::time::Duration::from_secs(15);

/// Ends the run started at `started` with Ctrl-C after two report intervals (so the result's last one
/// lies after whatever happened before), and not before its measured step is under way (a run stopped
/// in its warmup measured no step): it exits 130 with its result written in `out`, marked interrupted,
/// the orders that ran counted; the result is returned.
async fn interrupted(
    run: std::process::Child,
    started: std::time::Instant,
    out: &std::path::Path,
) -> serde_json::Value {
    let two_intervals = std::time::Instant::now() + std::time::Duration::from_secs(4);
    let in_the_step = started + WARMUP + std::time::Duration::from_secs(4);
    tokio::time::sleep_until(two_intervals.max(in_the_step).into()).await;
    assert!(
        std::process::Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap().success()
    );
    let outcome = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(outcome.code, 130, "the run went on until Ctrl-C:\n{}", outcome.all());
    let r = result_json(out);
    assert_matches_schema(&r);
    assert_eq!(r["interrupted"], true);
    let last = r["timeseries"].as_array().unwrap().iter().rev().find(|row| row["txn"] == "order").cloned();
    assert!(last.is_some_and(|row| row["count"].as_u64().unwrap_or(0) > 0), "orders ran to the end: {r}");
    r
}

/// `KILL <spid>` of every session of a DS2 run: its users reconnect and go on, the lost connections are
/// counted, the run ends at its set time (exit 0) with its result written, and `ds2 check` is clean.
/// Then a second run cut short by Ctrl-C exits 130 with what ran written, and the data stays intact.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn killed_sessions_reconnect_and_ctrl_c_writes_what_ran_on_sql_server() {
    let server = server().await;
    let db = loaded(&server.url, "ds2_kill").await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("killed");
    let run = spawn(&run_args(&[&db.url], out.to_str().unwrap(), "40s"));
    let mut watch = connect(&db.url).await;
    wait_for_more_orders(&mut watch).await;
    kill_run_sessions(&server.url, &db.name, &mut watch, 4).await;
    wait_for_more_orders(&mut watch).await;
    let outcome = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(outcome.code, 0, "the run ended at its set time:\n{}", outcome.all());
    let r = result_json(&out);
    assert_survived(&r);
    assert_eq!(r["interrupted"], false);
    assert_intact(&["--url", &db.url]);

    let out = dir.path().join("cut");
    let (run, started) =
        (spawn(&run_args(&[&db.url], out.to_str().unwrap(), "10m")), std::time::Instant::now());
    wait_for_more_orders(&mut watch).await;
    interrupted(run, started, &out).await;
    drop(watch);
    assert_intact(&["--url", &db.url]);
    drop(db);
}

/// A restart of the server (a Babelfish of the test's own) under a DS2 run: the users reconnect and go
/// on, the lost connections are counted, Ctrl-C then ends the run with its result written, and
/// `ds2 check` is clean.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn users_reconnect_after_a_sql_server_restart_under_ds2() {
    let (own, url) = tokio::task::spawn_blocking(OwnBabelfish::start).await.unwrap();
    let db = loaded(&url, "ds2_restart").await;
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let run = spawn(&run_args(&[&db.url], dir.path().to_str().unwrap(), "10m"));
    let mut watch = connect(&db.url).await;
    wait_for_more_orders(&mut watch).await;
    drop(watch);
    let own = own.restart().await;
    let mut watch = connect(&db.url).await;
    wait_for_more_orders(&mut watch).await;
    drop(watch);
    assert_survived(&interrupted(run, started, dir.path()).await);
    assert_intact(&["--url", &db.url]);
    drop(db);
    drop(own);
}
