//! DS2's database side in T-SQL, beyond the plain tables, keys and indexes the generic loader makes:
//! the id sequences, the restock trigger, the full-text index where the server has full-text search,
//! and the five operations as stored procedures.
//!
//! The procedures a client sees have the names, parameters and result shapes of DS2's own SQL Server
//! build (`ds2/sqlserverds2/build/sqlserverds2_create_sp.sql` in dvdstore/ds21, called by
//! `ds2/sqlserverds2/ds2sqlserverfns.cs`), so that DS2's own SQL Server driver runs unchanged against a
//! database oltpgen loaded:
//!
//! | procedure (as DS2's driver calls it) | result sets | behind it |
//! |---|---|---|
//! | `NEW_CUSTOMER` (19 parameters; zip `INT`, region, card type and age `TINYINT`) | the new customerid, 0 when the name is taken | a sequence, the taken name also caught when two register it at once |
//! | `LOGIN(@username_in, @password_in)` | the customerid (0: no such user or wrong password), then the whole purchase history (title, actor, related title) | the same joins, newest first |
//! | `BROWSE_BY_CATEGORY(@batch_size_in, @category_in)` | products on special | `TOP (@batch_size_in)` for `SET ROWCOUNT` |
//! | `BROWSE_BY_ACTOR(@batch_size_in, @actor_in)`, `BROWSE_BY_TITLE(@batch_size_in, @title_in)` | products whose column holds the phrase | `CONTAINS` where full-text search is installed, else `LIKE` (Babelfish) |
//! | `PURCHASE(@customerid_in, @number_items, @netamount_in, @taxamount_in, @totalamount_in, @prod_id_in0, @qty_in0, … @prod_id_in9, @qty_in9)` | the new orderid, 0 when stock is short | all or nothing, stock taken in prod_id order and relatively, amounts computed inside |
//!
//! Browses return `category` and `special` as `TINYINT`, DS2's SQL Server types (its driver reads them
//! with `GetByte`), though oltpgen's tables keep the smallints datagen defines. oltpgen's own driver
//! calls the same procedures, except that its login is `OLTPGEN_LOGIN`: the same two result sets, the
//! history cut to the latest 10 purchases (as on PostgreSQL, so that a login's work does not grow as a
//! run adds orders).
//!
//! T-SQL wants `CREATE PROCEDURE` and `CREATE TRIGGER` first in their batch, and Babelfish has no
//! `CREATE OR ALTER`: every object is dropped where it exists, then created, each statement its own
//! batch, so a repeated load needs no clean-up first.

/// The columns a browse returns, in `products`' order, with DS2's SQL Server types where its driver
/// reads them (`GetByte` for category and special).
const PRODUCT_COLUMNS: &str = "prod_id, CAST(category AS TINYINT) AS category, title, actor, price, \
     CAST(special AS TINYINT) AS special, common_prod_id";

/// Whether the server has full-text search (SQL Server's Full-Text Search feature; Babelfish has none),
/// as a T-SQL condition.
const FULL_TEXT: &str = "FULLTEXTSERVICEPROPERTY('IsFullTextInstalled') = 1";

/// The indexes a load builds beside the keys: none, as the full-text index is created with the
/// procedures ([`finish`]), where the server has full-text search, since it names the primary key of
/// `products`.
pub fn extra_indexes() -> Vec<(&'static str, String)> {
    Vec::new()
}

/// The statements that make a loaded database ready for the run, in order, each its own batch; run once
/// after the load's keys and indexes exist (the full-text index names the primary key of `products`,
/// the sequences start past the loaded ids).
pub fn finish() -> Vec<String> {
    let mut statements = Vec::new();
    statements.extend(id_sequence("customers", "customerid"));
    statements.extend(id_sequence("orders", "orderid"));
    statements.extend(full_text_index());
    statements.push("DROP TRIGGER IF EXISTS restock".to_string());
    statements.push(RESTOCK_TRIGGER.to_string());
    statements.extend(oltpgen_vocab::schema::replace_procedures(procedures()));
    statements
}

/// The procedures by name, each as its `CREATE PROCEDURE` batch.
fn procedures() -> Vec<(&'static str, String)> {
    vec![
        ("NEW_CUSTOMER", NEW_CUSTOMER.to_string()),
        ("LOGIN", login("LOGIN", "")),
        ("OLTPGEN_LOGIN", login("OLTPGEN_LOGIN", "TOP (10) ")),
        ("BROWSE_BY_CATEGORY", BROWSE_BY_CATEGORY.to_string()),
        ("BROWSE_BY_ACTOR", browse_by_words("BROWSE_BY_ACTOR", "actor")),
        ("BROWSE_BY_TITLE", browse_by_words("BROWSE_BY_TITLE", "title")),
        ("PURCHASE", purchase()),
    ]
}

/// A sequence for `table.column` starting one past the column's largest value, and the column's default
/// drawn from it. DS2's tables take new ids from `IDENTITY` columns; ours are bulk-loaded with explicit
/// ids (an identity column's counter does not advance under bulk insert on every server), so a
/// sequence is attached afterwards, as on PostgreSQL. `START WITH` takes a constant only, hence the
/// dynamic SQL. Run at load time only, while no one inserts.
fn id_sequence(table: &str, column: &str) -> [String; 3] {
    let seq = format!("{table}_{column}_seq");
    [
        format!("DROP SEQUENCE IF EXISTS {seq}"),
        format!(
            "DECLARE @sql NVARCHAR(200) = CONCAT('CREATE SEQUENCE {seq} AS INT START WITH ', \
             (SELECT COALESCE(MAX({column}), 0) + 1 FROM {table})); EXEC (@sql)"
        ),
        format!(
            "ALTER TABLE {table} ADD CONSTRAINT df_{table}_{column} DEFAULT (NEXT VALUE FOR {seq}) FOR {column}"
        ),
    ]
}

/// The statements that start the id sequences past the loaded ids again once a restore has put the
/// loaded rows back (the sequences, their grants and the columns' defaults stay as they are). `RESTART
/// WITH` takes a constant only, hence the dynamic SQL, as at load time.
fn restart_sequences() -> Vec<String> {
    [("customers", "customerid"), ("orders", "orderid")]
        .into_iter()
        .map(|(table, column)| {
            format!(
                "DECLARE @sql NVARCHAR(200) = CONCAT('ALTER SEQUENCE {table}_{column}_seq RESTART WITH ', \
                 (SELECT COALESCE(MAX({column}), 0) + 1 FROM {table})); EXEC (@sql)"
            )
        })
        .collect()
}

/// The statement dropping the full-text index over `products` where there is one (it names the table's
/// primary key, which a restore drops before it copies the rows again); the catalog stays.
pub fn drop_full_text_index() -> Vec<String> {
    vec![format!(
        "IF {FULL_TEXT} EXEC ('IF EXISTS (SELECT 1 FROM sys.fulltext_indexes WHERE object_id = \
         OBJECT_ID(''products'')) DROP FULLTEXT INDEX ON products')"
    )]
}

/// What a restore runs once the keys and indexes are built again: the sequences past the loaded ids
/// (`restart_sequences`) and the full-text index ([`drop_full_text_index`] dropped it).
pub fn after_restore() -> Vec<String> {
    let mut statements = restart_sequences();
    statements.extend(full_text_index());
    statements
}

/// DS2's full-text catalog and index over `products(actor, title)` (`sqlserverds2_create_ind_*.sql`),
/// where the server has full-text search; elsewhere (Babelfish) the browses use `LIKE` and nothing is
/// created. Dynamic SQL is parsed only where it runs, so one statement list serves both.
fn full_text_index() -> [String; 2] {
    [
        format!(
            "IF {FULL_TEXT} AND NOT EXISTS (SELECT 1 FROM sys.fulltext_catalogs WHERE name = 'ds2_fulltext') \
             EXEC ('CREATE FULLTEXT CATALOG ds2_fulltext')"
        ),
        format!(
            "IF {FULL_TEXT} EXEC ('CREATE FULLTEXT INDEX ON products (actor, title) KEY INDEX products_pkey \
             ON ds2_fulltext WITH CHANGE_TRACKING AUTO')"
        ),
    ]
}

/// DS2's SQL Server restock trigger (`sqlserverds2_create_db_*.sql`), which "keeps the number of items
/// with low QUAN_IN_STOCK constant so that the rollback rate is constant": when an update takes a
/// product's stock under 3, a reorder row records the low quantity and the stock is put back to what
/// it was before the update. DS2's trigger read one row of `inserted` into variables; this one is
/// set-based, so an update of several products restocks each of them. It does not fire itself again
/// (the restocking update leaves the stock at its old value, which is 3 or more, or is the loaded
/// value, and nested triggers see no stock under 3 written by this update).
const RESTOCK_TRIGGER: &str = "CREATE TRIGGER restock ON inventory AFTER UPDATE AS
BEGIN
  SET NOCOUNT ON;
  IF UPDATE(quan_in_stock)
  BEGIN
    INSERT INTO reorder (prod_id, date_low, quan_low)
    SELECT i.prod_id, CAST(CAST(GETDATE() AS DATE) AS DATETIME2(0)), i.quan_in_stock
    FROM inserted i JOIN deleted d ON d.prod_id = i.prod_id
    WHERE i.quan_in_stock < 3 AND i.quan_in_stock < d.quan_in_stock;
    UPDATE inventory SET quan_in_stock = d.quan_in_stock
    FROM inventory v JOIN inserted i ON i.prod_id = v.prod_id JOIN deleted d ON d.prod_id = i.prod_id
    WHERE i.quan_in_stock < 3 AND i.quan_in_stock < d.quan_in_stock;
  END
END";

/// New customer, with DS2's 19 parameters and types: the new customerid, or 0 when the user name is
/// taken (DS2's driver then retries with another name).
///
/// DS2's procedure counts the name and then inserts, so two registrations of one name at once could
/// both insert; here the unique index on `username` refuses the second, and its error (2601/2627) is
/// answered 0 as a taken name. The id comes from the sequence (DS2's `SELECT @@IDENTITY`). Empty
/// optional fields (DS2's driver sends `""` for address2, and state and zip 0 outside the US) are
/// stored as NULL, as on PostgreSQL.
const NEW_CUSTOMER: &str = "CREATE PROCEDURE NEW_CUSTOMER (
  @firstname_in VARCHAR(50), @lastname_in VARCHAR(50), @address1_in VARCHAR(50), @address2_in VARCHAR(50),
  @city_in VARCHAR(50), @state_in VARCHAR(50), @zip_in INT, @country_in VARCHAR(50), @region_in TINYINT,
  @email_in VARCHAR(50), @phone_in VARCHAR(50), @creditcardtype_in TINYINT, @creditcard_in VARCHAR(50),
  @creditcardexpiration_in VARCHAR(50), @username_in VARCHAR(50), @password_in VARCHAR(50), @age_in TINYINT,
  @income_in INT, @gender_in VARCHAR(1))
AS
BEGIN
  SET NOCOUNT ON;
  IF EXISTS (SELECT 1 FROM customers WHERE username = @username_in)
  BEGIN
    SELECT 0;
    RETURN;
  END
  DECLARE @customerid INT = NEXT VALUE FOR customers_customerid_seq;
  BEGIN TRY
    INSERT INTO customers (customerid, firstname, lastname, address1, address2, city, state, zip, country,
      region, email, phone, creditcardtype, creditcard, creditcardexpiration, username, password, age, income,
      gender)
    VALUES (@customerid, @firstname_in, @lastname_in, @address1_in, NULLIF(@address2_in, ''), @city_in,
      NULLIF(@state_in, ''), NULLIF(CAST(@zip_in AS VARCHAR(9)), '0'), @country_in, @region_in,
      NULLIF(@email_in, ''), NULLIF(@phone_in, ''), @creditcardtype_in, @creditcard_in,
      @creditcardexpiration_in, @username_in, @password_in, @age_in, @income_in, NULLIF(@gender_in, ''));
    SELECT @customerid;
  END TRY
  BEGIN CATCH
    IF ERROR_NUMBER() IN (2601, 2627) SELECT 0; ELSE THROW;
  END CATCH
END";

/// DS2's login as procedure `name`: a first result set with the customerid (0 for an unknown user or a
/// wrong password, and then no second), a second with the customer's purchases (title, actor, the
/// related title), newest first; `top` cuts the history (`TOP (10) ` for oltpgen's own driver, empty for
/// DS2's whole history). The related title is an inner join, as in DS2.
fn login(name: &str, top: &str) -> String {
    format!(
        "CREATE PROCEDURE {name} (@username_in VARCHAR(50), @password_in VARCHAR(50))
AS
BEGIN
  SET NOCOUNT ON;
  DECLARE @customerid_out INT;
  SELECT @customerid_out = customerid FROM customers WHERE username = @username_in AND password = @password_in;
  IF @customerid_out IS NULL
  BEGIN
    SELECT 0;
    RETURN;
  END
  SELECT @customerid_out;
  SELECT {top}p.title, p.actor, r.title AS RelatedPurchase
  FROM cust_hist h JOIN products p ON p.prod_id = h.prod_id JOIN products r ON r.prod_id = p.common_prod_id
  WHERE h.customerid = @customerid_out
  ORDER BY h.orderid DESC, p.title;
END"
    )
}

/// Browse by category: up to `@batch_size_in` products of the category on special (DS2 says it with
/// `SET ROWCOUNT`, which newer SQL Servers deprecate for this; `TOP` is the same limit).
const BROWSE_BY_CATEGORY: &str = "CREATE PROCEDURE BROWSE_BY_CATEGORY (@batch_size_in INT, @category_in INT)
AS
BEGIN
  SET NOCOUNT ON;
  SELECT TOP (@batch_size_in) prod_id, CAST(category AS TINYINT) AS category, title, actor, price,
    CAST(special AS TINYINT) AS special, common_prod_id
  FROM products WHERE category = @category_in AND special = 1;
END";

/// Browse by actor or by title (`name` over `column`): up to `@batch_size_in` products whose column
/// holds the words, which DS2's driver (and oltpgen's) sends wrapped in double quotes, a phrase to
/// `CONTAINS`. Where the server lacks full-text search (Babelfish), the procedure is created with `LIKE`
/// over the phrase without its quotes (`%`, `_` and `[` in it taken literally): no index serves it, so
/// it scans `products`; the run's result says which one ran (`config.browse_search`).
fn browse_by_words(name: &str, column: &str) -> String {
    let head = format!(
        "CREATE PROCEDURE {name} (@batch_size_in INT, @{column}_in VARCHAR(50))
AS
BEGIN
  SET NOCOUNT ON;
  SELECT TOP (@batch_size_in) {PRODUCT_COLUMNS} FROM products"
    );
    let phrase = format!(
        "REPLACE(REPLACE(REPLACE(REPLACE(@{column}_in, '\"', ''), '[', '[[]'), '%', '[%]'), '_', '[_]')"
    );
    let full_text = format!("{head} WHERE CONTAINS({column}, @{column}_in);\nEND");
    let like = format!("{head} WHERE {column} LIKE CONCAT('%', {phrase}, '%');\nEND");
    format!("IF {FULL_TEXT} EXEC ({}) ELSE EXEC ({})", literal(&full_text), literal(&like))
}

/// `sql` as a T-SQL string literal.
fn literal(sql: &str) -> String {
    format!("N'{}'", sql.replace('\'', "''"))
}

/// The purchase, with DS2's 25 parameters (`@number_items` of the 10 (prod_id, quantity) slots are the
/// cart): the new orderid, or 0 when an item's stock is short, in which case nothing of it remains.
///
/// - Stock is taken line by line as in DS2 (the stock after the line must not be negative, and each
///   update fires the restock trigger), but with a relative `UPDATE … WHERE quan_in_stock >= @qty`: DS2
///   read the stock and wrote back absolute values, so two purchases at once could lose an update. A
///   product without an inventory row counts as short.
/// - Lines are taken in prod_id order, so purchases lock inventory rows in one order and do not deadlock
///   on each other; order lines keep the cart's numbering (orderlineid 1..n).
/// - All or nothing (`XACT_ABORT ON`, one transaction): a short item rolls back and answers 0, as DS2's
///   procedure does, which DS2's driver counts as a rollback.
/// - Amounts: net = sum(price × quantity) from `products`, tax = net × 0.0825 rounded to the columns'
///   cents, total = net + tax; the amounts passed are not used (DS2's driver computes them from the same
///   prices with an extra query, counting a product twice in the cart once).
/// - The order's date is today (DS2 stores `GETDATE()`; the date columns here hold dates).
/// - A cart of 0 or more than 10 lines is the caller's mistake and an error.
fn purchase() -> String {
    let slots: Vec<String> = (0..10).map(|i| format!("@prod_id_in{i} INT = 0, @qty_in{i} INT = 0")).collect();
    let cart: Vec<String> = (0..10).map(|i| format!("({}, @prod_id_in{i}, @qty_in{i})", i + 1)).collect();
    format!(
        "CREATE PROCEDURE PURCHASE (@customerid_in INT, @number_items INT, @netamount_in MONEY,
  @taxamount_in MONEY, @totalamount_in MONEY, {})
AS
BEGIN
  SET NOCOUNT ON;
  SET XACT_ABORT ON;
  IF @number_items IS NULL OR @number_items NOT BETWEEN 1 AND 10
    THROW 50000, 'PURCHASE: a cart holds 1 to 10 lines', 1;
  DECLARE @cart TABLE (k INT NOT NULL PRIMARY KEY, n INT NOT NULL, prod_id INT NOT NULL, qty INT NOT NULL);
  INSERT INTO @cart (k, n, prod_id, qty)
  SELECT ROW_NUMBER() OVER (ORDER BY c.prod_id, c.n), c.n, c.prod_id, c.qty
  FROM (VALUES {}) AS c (n, prod_id, qty)
  WHERE c.n <= @number_items;
  DECLARE @k INT = 1, @prod_id INT, @qty INT, @neworderid INT, @net DECIMAL(12, 2), @tax DECIMAL(12, 2),
    @today DATETIME2(0) = CAST(CAST(GETDATE() AS DATE) AS DATETIME2(0));
  BEGIN TRANSACTION;
  WHILE @k <= @number_items
  BEGIN
    SELECT @prod_id = prod_id, @qty = qty FROM @cart WHERE k = @k;
    UPDATE inventory SET quan_in_stock = quan_in_stock - @qty, sales = sales + @qty
    WHERE prod_id = @prod_id AND quan_in_stock >= @qty;
    IF @@ROWCOUNT = 0
    BEGIN
      ROLLBACK TRANSACTION;
      SELECT 0;
      RETURN;
    END
    SET @k = @k + 1;
  END
  SELECT @net = SUM(p.price * c.qty) FROM @cart c JOIN products p ON p.prod_id = c.prod_id;
  SET @tax = ROUND(@net * 0.0825, 2);
  SET @neworderid = NEXT VALUE FOR orders_orderid_seq;
  INSERT INTO orders (orderid, orderdate, customerid, netamount, tax, totalamount)
  VALUES (@neworderid, @today, @customerid_in, @net, @tax, @net + @tax);
  INSERT INTO orderlines (orderlineid, orderid, prod_id, quantity, orderdate)
  SELECT n, @neworderid, prod_id, qty, @today FROM @cart;
  INSERT INTO cust_hist (customerid, orderid, prod_id) SELECT @customerid_in, @neworderid, prod_id FROM @cart;
  COMMIT TRANSACTION;
  SELECT @neworderid;
END",
        slots.join(",\n  "),
        cart.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_procedure_is_dropped_before_it_is_created_in_its_own_batch() {
        let names = procedures().into_iter().map(|(name, _)| name);
        assert_eq!(oltpgen_vocab::schema::procedures_not_replaced(&finish(), names), Vec::<&str>::new());
    }

    #[test]
    fn a_browse_by_words_searches_its_own_column_both_ways() {
        let actor = browse_by_words("BROWSE_BY_ACTOR", "actor");
        assert!(actor.contains("CONTAINS(actor, @actor_in)") && actor.contains("actor LIKE CONCAT("));
        assert!(!actor.contains("CONTAINS(title") && !actor.contains("title LIKE"), "{actor}");
    }
}
