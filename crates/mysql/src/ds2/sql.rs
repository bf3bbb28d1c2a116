//! DS2's database side in MySQL's SQL, beyond the plain InnoDB tables, keys and indexes the generic
//! loader makes: the full-text indexes over `products`, new ids from `AUTO_INCREMENT`, the restock
//! trigger, and the five operations as stored procedures, each called in one round trip
//! (server-side; [`super::ops`] also runs them as statements, client-side).
//!
//! DS2's own MySQL build (`ds2/mysqlds2/build/` in dvdstore/ds21) makes `PRODUCTS` MyISAM for its
//! full-text search, has one procedure (`NEW_CUSTOMER`, 19 inputs and the new id as an `OUT`
//! parameter) and runs the rest from its driver as statements (`ds2mysqlfns.cs`): browses with
//! `MATCH … AGAINST` in natural language mode, a purchase as one transaction that reads stock and writes
//! it back. Here every table is InnoDB (it has full-text indexes), `NEW_CUSTOMER` keeps DS2's signature,
//! and the other procedures are oltpgen's:
//!
//! | procedure | result sets | behind it |
//! |---|---|---|
//! | `NEW_CUSTOMER` (DS2's 19 inputs, `OUT customerid_out`) | the new customerid, 0 when the name is taken | `AUTO_INCREMENT`; the taken name also caught when two register it at once (the unique index) |
//! | `OLTPGEN_LOGIN(username_in, password_in)` | the customerid (0: no such user or wrong password), then the latest 10 purchases (title, actor, related title) | as on SQL Server |
//! | `BROWSE_BY_CATEGORY(batch_size_in, category_in)` | products on special | none |
//! | `BROWSE_BY_ACTOR(batch_size_in, actor_in)`, `BROWSE_BY_TITLE(batch_size_in, title_in)` | products whose column matches the words | `MATCH … AGAINST` in natural language mode, as DS2's MySQL driver: any word, best matches first |
//! | `OLTPGEN_PURCHASE(customerid_in, number_items, prod_ids, quantities, line_numbers)` | the new orderid, 0 when stock is short | the cart as comma-separated lists in prod_id order (procedures take no arrays), all or nothing, relative stock updates, amounts computed inside |
//!
//! Every statement can run again on a database that already has it (`DROP … IF EXISTS` first), so a
//! repeated load needs no clean-up; each is one statement (a body's `;` included), no `DELIMITER`.

use oltpgen_vocab::schema::replace_procedures;

/// The columns a browse returns, in `products`' order.
pub const PRODUCT_COLUMNS: &str = "prod_id, category, title, actor, price, special, common_prod_id";

/// The searchable columns of `products`, each with its full-text index and its browse procedure.
const SEARCHED: [(&str, &str, &str); 2] =
    [("actor", "ix_prod_actor_ft", "BROWSE_BY_ACTOR"), ("title", "ix_prod_title_ft", "BROWSE_BY_TITLE")];

/// The tables whose ids a run draws new, from `AUTO_INCREMENT`: (table, column).
const NEW_IDS: [(&str, &str); 2] = [("customers", "customerid"), ("orders", "orderid")];

/// The full-text indexes over `products.actor` and `products.title`, as (table, statement), built
/// after the data is in with the other indexes. One column each: `MATCH (actor)` is served only by an
/// index over exactly `(actor)`.
pub fn extra_indexes() -> Vec<(&'static str, String)> {
    SEARCHED
        .iter()
        .map(|(column, index, _)| {
            ("products", format!("CREATE FULLTEXT INDEX {index} ON products ({column})"))
        })
        .collect()
}

/// The statements dropping the full-text indexes of [`extra_indexes`] before a restore copies the rows
/// again (built after the copy as the load builds them).
pub fn drop_extra_indexes() -> Vec<String> {
    SEARCHED.iter().map(|(_, index, _)| crate::schema::drop_index_where_exists(index, "products")).collect()
}

/// The statements that make a loaded database ready for the run, in order, each one statement; run
/// once after the load's keys and indexes exist. The id columns become `AUTO_INCREMENT` only now, so
/// the rows load with their own ids and the counter starts past the largest (InnoDB sets it to the
/// column's maximum + 1).
pub fn finish() -> Vec<String> {
    let mut statements: Vec<String> = NEW_IDS
        .iter()
        .map(|(table, column)| format!("ALTER TABLE {table} MODIFY {column} INT NOT NULL AUTO_INCREMENT"))
        .collect();
    statements.push("DROP TRIGGER IF EXISTS restock".to_string());
    statements.push(RESTOCK_TRIGGER.to_string());
    statements.extend(replace_procedures(procedures()));
    statements
}

/// The statements that start new ids past the loaded ones again once a restore has put the loaded rows
/// back: a counter set to 1 is set to the column's maximum + 1 (a `TRUNCATE` reset it, and the reloaded
/// rows may or may not have moved it, depending on the server).
pub fn restart_sequences() -> Vec<String> {
    NEW_IDS.iter().map(|(table, _)| format!("ALTER TABLE {table} AUTO_INCREMENT = 1")).collect()
}

/// The procedures by name, each as its `CREATE PROCEDURE` statement.
fn procedures() -> Vec<(&'static str, String)> {
    let mut procedures = vec![
        ("NEW_CUSTOMER", NEW_CUSTOMER.to_string()),
        ("OLTPGEN_LOGIN", oltpgen_login()),
        (
            "BROWSE_BY_CATEGORY",
            procedure(
                "BROWSE_BY_CATEGORY",
                "IN batch_size_in INT, IN category_in INT",
                &by_category("category_in", "batch_size_in"),
            ),
        ),
    ];
    procedures.extend(SEARCHED.iter().map(|(column, _, name)| {
        let params = format!("IN batch_size_in INT, IN {column}_in VARCHAR(50)");
        (*name, procedure(name, &params, &by_words(column, &format!("{column}_in"), "batch_size_in")))
    }));
    procedures.push(("OLTPGEN_PURCHASE", OLTPGEN_PURCHASE.to_string()));
    procedures
}

/// DS2's restock trigger (`mysqlds2_create_trigger2.sql`; on SQL Server `restock`), which "keeps the
/// number of items with low QUAN_IN_STOCK constant so that the rollback rate is constant": when an
/// update takes a product's stock under 3, a reorder row records the low quantity and the stock stays
/// what it was. A MySQL trigger may not update its own table, so it is a `BEFORE UPDATE` that sets the
/// new row's stock back.
const RESTOCK_TRIGGER: &str = "CREATE TRIGGER restock BEFORE UPDATE ON inventory FOR EACH ROW
BEGIN
  IF NEW.quan_in_stock < 3 AND NEW.quan_in_stock < OLD.quan_in_stock THEN
    INSERT INTO reorder (prod_id, date_low, quan_low) VALUES (NEW.prod_id, CURDATE(), NEW.quan_in_stock);
    SET NEW.quan_in_stock = OLD.quan_in_stock;
  END IF;
END";

/// New customer with DS2's MySQL signature (19 inputs, `OUT customerid_out`), which also answers the
/// id as a result set so that a caller needs one round trip. DS2 counts the name and then inserts, so
/// two registrations of one name at once could both get in; here the unique index on `username`
/// refuses the second (1062), answered 0 as a taken name. Empty optional fields (DS2's driver sends
/// `""`, and zip 0 outside the US) are stored as NULL, as on the other engines.
const NEW_CUSTOMER: &str = "CREATE PROCEDURE NEW_CUSTOMER (IN firstname_in VARCHAR(50), IN lastname_in VARCHAR(50),
  IN address1_in VARCHAR(50), IN address2_in VARCHAR(50), IN city_in VARCHAR(50), IN state_in VARCHAR(50),
  IN zip_in INT, IN country_in VARCHAR(50), IN region_in INT, IN email_in VARCHAR(50), IN phone_in VARCHAR(50),
  IN creditcardtype_in INT, IN creditcard_in VARCHAR(50), IN creditcardexpiration_in VARCHAR(50),
  IN username_in VARCHAR(50), IN password_in VARCHAR(50), IN age_in INT, IN income_in INT, IN gender_in VARCHAR(1),
  OUT customerid_out INT)
BEGIN
  DECLARE v_taken INT DEFAULT 0;
  DECLARE CONTINUE HANDLER FOR 1062 SET v_taken = 1;
  SET customerid_out = 0;
  IF NOT EXISTS (SELECT 1 FROM customers WHERE username = username_in) THEN
    INSERT INTO customers (firstname, lastname, address1, address2, city, state, zip, country, region, email,
      phone, creditcardtype, creditcard, creditcardexpiration, username, password, age, income, gender)
    VALUES (firstname_in, lastname_in, address1_in, NULLIF(address2_in, ''), city_in, NULLIF(state_in, ''),
      NULLIF(CAST(zip_in AS CHAR), '0'), country_in, region_in, NULLIF(email_in, ''), NULLIF(phone_in, ''),
      creditcardtype_in, creditcard_in, creditcardexpiration_in, username_in, password_in, age_in, income_in,
      NULLIF(gender_in, ''));
    IF v_taken = 0 THEN SET customerid_out = LAST_INSERT_ID(); END IF;
  END IF;
  SELECT customerid_out;
END";

/// The customer's purchases as the login shows them, newest first, at most 10 (as on the other
/// engines, so that a login's work does not grow as a run adds orders), for the customer `customer` (a
/// parameter or a variable). The related title is an inner join, as in DS2.
pub fn history(customer: &str) -> String {
    format!(
        "SELECT p.title, p.actor, r.title AS relatedpurchase \
         FROM cust_hist h JOIN products p ON p.prod_id = h.prod_id JOIN products r ON r.prod_id = p.common_prod_id \
         WHERE h.customerid = {customer} ORDER BY h.orderid DESC, p.title LIMIT 10"
    )
}

/// The login: a first result set with the customerid (0 for an unknown user or a wrong password, and
/// then no second), a second with the history ([`history`]).
fn oltpgen_login() -> String {
    format!(
        "CREATE PROCEDURE OLTPGEN_LOGIN (IN username_in VARCHAR(50), IN password_in VARCHAR(50))
BEGIN
  DECLARE v_customerid INT DEFAULT 0;
  SELECT customerid INTO v_customerid FROM customers WHERE username = username_in AND password = password_in;
  SELECT v_customerid;
  IF v_customerid <> 0 THEN
    {};
  END IF;
END",
        history("v_customerid")
    )
}

/// Browse by category: up to the batch size of products of the category on special; `category` and
/// `batch` are parameters or variables.
pub fn by_category(category: &str, batch: &str) -> String {
    format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE category = {category} AND special = 1 LIMIT {batch}"
    )
}

/// Browse by actor or by title over `column`, the words in `words`, up to `batch` products: as DS2's
/// MySQL driver searches, `MATCH … AGAINST` in natural language mode (any word, best matches first),
/// served by the column's full-text index.
pub fn by_words(column: &str, words: &str, batch: &str) -> String {
    format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE MATCH ({column}) AGAINST ({words} IN NATURAL LANGUAGE MODE) \
         LIMIT {batch}"
    )
}

/// The procedure `name` whose body is the one statement `select`, taking `params`.
fn procedure(name: &str, params: &str, select: &str) -> String {
    format!("CREATE PROCEDURE {name} ({params})\nBEGIN\n  {select};\nEND")
}

/// The purchase: the cart as three comma-separated lists in prod_id order (products, quantities, the
/// cart's line numbers), `number_items` long. Answers the new orderid, or 0 when an item's stock is
/// short, in which case nothing of it remains.
///
/// - Stock is taken line by line with a relative `UPDATE … WHERE quan_in_stock >= quantity` (DS2 read
///   the stock and wrote it back, so two purchases at once could lose an update), in prod_id order, so
///   purchases lock inventory rows in one order and do not deadlock on each other; each update fires the
///   restock trigger. A product without an inventory row counts as short.
/// - Any error rolls the whole transaction back and is raised again (a lock wait timeout rolls back only
///   its statement).
/// - Amounts: net = sum(price × quantity) from `products`, tax = net × 0.0825 rounded to cents, total =
///   net + tax. The order's date is today.
/// - A cart of 0 or more than 10 lines is the caller's mistake and an error.
const OLTPGEN_PURCHASE: &str = concat!(
    "CREATE PROCEDURE OLTPGEN_PURCHASE (IN customerid_in INT, IN number_items INT, IN p_items VARCHAR(255),
  IN p_qty VARCHAR(255), IN p_num VARCHAR(255))
BEGIN
  DECLARE k INT DEFAULT 1; DECLARE v_i INT; DECLARE v_q INT; DECLARE v_o INT; DECLARE v_short INT DEFAULT 0;
  DECLARE v_net DECIMAL(12,2) DEFAULT 0; DECLARE v_tax DECIMAL(12,2);
  ",
    on_error!(),
    "
  IF number_items IS NULL OR number_items NOT BETWEEN 1 AND 10 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'PURCHASE: a cart holds 1 to 10 lines';
  END IF;
  START TRANSACTION;
  WHILE k <= number_items AND v_short = 0 DO
    SET v_i = ",
    nth!("p_items"),
    ";
    SET v_q = ",
    nth!("p_qty"),
    ";
    UPDATE inventory SET quan_in_stock = quan_in_stock - v_q, sales = sales + v_q
      WHERE prod_id = v_i AND quan_in_stock >= v_q;
    IF ROW_COUNT() = 0 THEN SET v_short = 1; END IF;
    SET v_net = v_net + v_q * COALESCE((SELECT price FROM products WHERE prod_id = v_i), 0);
    SET k = k + 1;
  END WHILE;
  IF v_short = 1 THEN
    ROLLBACK;
    SELECT 0;
  ELSE
    SET v_tax = ROUND(v_net * 0.0825, 2);
    INSERT INTO orders (orderdate, customerid, netamount, tax, totalamount)
      VALUES (CURDATE(), customerid_in, v_net, v_tax, v_net + v_tax);
    SET v_o = LAST_INSERT_ID();
    SET k = 1;
    WHILE k <= number_items DO
      SET v_i = ",
    nth!("p_items"),
    ";
      INSERT INTO orderlines (orderlineid, orderid, prod_id, quantity, orderdate)
        VALUES (",
    nth!("p_num"),
    ", v_o, v_i, ",
    nth!("p_qty"),
    ", CURDATE());
      INSERT INTO cust_hist (customerid, orderid, prod_id) VALUES (customerid_in, v_o, v_i);
      SET k = k + 1;
    END WHILE;
    COMMIT;
    SELECT v_o;
  END IF;
END"
);

#[cfg(test)]
mod tests {
    use super::*;
    use oltpgen_vocab::schema::{ObjectKind, created_objects, procedures_not_replaced};

    #[test]
    fn every_procedure_is_dropped_before_it_is_created_and_drop_finds_them_all() {
        let statements = finish();
        let made = procedures();
        let names = made.iter().map(|(name, _)| *name);
        assert_eq!(procedures_not_replaced(&statements, names), Vec::<&str>::new());
        let created = created_objects(&statements);
        assert_eq!(created.len(), procedures().len(), "{created:?}");
        assert!(created.iter().all(|o| o.kind == ObjectKind::Procedure));
    }

    #[test]
    fn a_browse_by_actor_searches_its_own_column_through_its_own_index() {
        let actor = &procedures()[3].1;
        assert!(actor.starts_with("CREATE PROCEDURE BROWSE_BY_ACTOR ("), "{actor}");
        assert!(actor.contains("MATCH (actor) AGAINST (actor_in IN NATURAL LANGUAGE MODE)"), "{actor}");
        assert!(!actor.contains("MATCH (title"), "{actor}");
        let indexes = extra_indexes();
        assert!(indexes.iter().any(|(_, s)| s.ends_with("ON products (actor)")), "{indexes:?}");
    }

    #[test]
    fn new_ids_continue_past_the_loaded_ones_after_a_restore() {
        assert_eq!(
            restart_sequences(),
            ["ALTER TABLE customers AUTO_INCREMENT = 1", "ALTER TABLE orders AUTO_INCREMENT = 1"]
        );
    }
}
