//! DS2's database side in PostgreSQL's SQL, beyond the plain tables, keys and indexes the generic loader
//! makes: the full-text indexes, the id sequences, the restock trigger and the five operations as
//! server-side functions.
//!
//! The operations live in the server, as in the reference (`dvdstore/ds21`, `ds2/pgsqlds2/build/`
//! and `ds2/sqlserverds2/build/sqlserverds2_create_sp.sql`), so that each is one round trip.
//!
//! The five functions a client sees have the reference PostgreSQL build's names, argument lists and
//! result shapes (`pgsqlds2_create_sp.sql`, called by `ds2/pgsqlds2/ds2pgsqlfns.cs`), so that DS2's own
//! driver runs unchanged against a database oltpgen loaded. Behind them are our own internals; where
//! they depart from the reference the comment at the function says so and why:
//!
//! | function (as DS2's driver calls it) | returns | behind it |
//! |---|---|---|
//! | `login(username_in, password_in)` | refcursors: the customerid, then the whole history (title, actor, relatedpurchase) | the same joins |
//! | `new_customer(19 fields, zip varchar, region and age smallint)` | the new customerid, 0 when the name is taken | `ON CONFLICT` instead of a subtransaction; age and income kept |
//! | `browse_by_category(batch_size_in, category_in)` | products on special | none |
//! | `browse_by_actor(batch_size_in, actor_in)`, `browse_by_title(batch_size_in, title_in)` | products matching every word | `simple` configuration on both sides; title searches titles |
//! | `purchase(customerid_in, number_items, netamount_in, taxamount_in, totalamount_in, prod_id_in0, qty_in0, … prod_id_in9, qty_in9)` | the new orderid, 0 when stock is short | `oltpgen_purchase`: amounts computed inside from the prices (the passed ones are not trusted), rows locked in prod_id order, relative stock updates |
//!
//! oltpgen's own driver calls what is cheapest for it: `oltpgen_login` (one result set, the last 10
//! purchases, no cursors and so no transaction around it) and `oltpgen_purchase` (the cart as two arrays),
//! and the other three as they are.
//!
//! Every statement can run again on a database that already has it (`CREATE OR REPLACE`, `IF NOT EXISTS`,
//! `DROP … IF EXISTS`), so a load that is repeated or resumed needs no clean-up first.

/// The text-search configuration of the full-text indexes and of the searches. It must be the same on
/// both sides: an index on `to_tsvector('simple', …)` serves only queries over that same expression, and
/// the words must be normalised alike. The reference's PostgreSQL procedures built the index with `simple`
/// but parsed the query with the server's default configuration (usually `english`), which stems words
/// ("ACADEMY" → `academi`) and drops stop words ("WILL"), so stemmed words never matched. `simple` only
/// lower-cases, which suits names and title words.
const TS_CONFIG: &str = "simple";

/// The SQLSTATE `purchase` raises internally when an item's stock is short, and catches; a code of our
/// own, so that no other error (a `RAISE` in a trigger someone added, say) is mistaken for a short item.
const SHORT_STOCK: &str = "DS2SS";

/// The searchable columns of `products`, each with its GIN index's name and the browse function over it.
const SEARCHED: [(&str, &str, &str); 2] =
    [("actor", "ix_prod_actor_fts", "browse_by_actor"), ("title", "ix_prod_title_fts", "browse_by_title")];

/// The full-text indexes over `products.actor` and `products.title`, as (table, statement): the loader
/// creates them with the other indexes, after the data is in (a GIN index is built far faster in bulk
/// than row by row). The spec asks for them: "a full-text index over products(actor) and products(title)
/// (PostgreSQL: a GIN index on to_tsvector)".
pub fn extra_indexes() -> Vec<(&'static str, String)> {
    SEARCHED
        .iter()
        .map(|(column, index, _)| {
            (
                "products",
                format!(
                    "CREATE INDEX IF NOT EXISTS {index} ON products USING gin (to_tsvector('{TS_CONFIG}', {column}))"
                ),
            )
        })
        .collect()
}

/// The statements dropping [`extra_indexes`] where they exist, before a restore copies the rows again.
pub fn drop_extra_indexes() -> Vec<String> {
    SEARCHED.iter().map(|(_, index, _)| format!("DROP INDEX IF EXISTS {index}")).collect()
}

/// The statements that make a loaded database ready for the run, in order, for one connection; run once
/// after the load's keys and indexes exist (the functions name the unique index on `customers.username`,
/// and the sequences start past the loaded ids). Each is one statement.
pub fn finish() -> Vec<String> {
    let mut statements = Vec::new();
    // The reference's tables take new ids from identity/serial columns; ours are loaded with explicit ids,
    // so a sequence is attached afterwards and set past the largest loaded id.
    statements.extend(id_sequence("customers", "customerid"));
    statements.extend(id_sequence("orders", "orderid"));
    statements.push(RESTOCK_FUNCTION.to_string());
    statements.push("DROP TRIGGER IF EXISTS restock ON inventory".to_string());
    statements.push(RESTOCK_TRIGGER.to_string());
    // Signatures earlier oltpgen versions gave these names: a new return type or parameter name cannot be
    // replaced in place, and a leftover overload would make calls ambiguous.
    statements.extend(LEGACY_SIGNATURES.iter().map(|f| format!("DROP FUNCTION IF EXISTS {f}")));
    statements.push(OLTPGEN_LOGIN.to_string());
    statements.push(LOGIN.to_string());
    statements.push(NEW_CUSTOMER.to_string());
    statements.push(BROWSE_BY_CATEGORY.to_string());
    statements.extend(SEARCHED.iter().map(|(column, _, function)| browse_by_words(function, column)));
    statements.push(oltpgen_purchase());
    statements.push(purchase());
    statements
}

/// The signatures of earlier oltpgen loads that DS2's now replace.
const LEGACY_SIGNATURES: [&str; 5] = [
    "login(text, text)",
    "new_customer(text, text, text, text, text, text, int4, text, int4, text, text, int4, text, text, text, text, int4, int4, text)",
    "browse_by_actor(int4, text)",
    "browse_by_title(int4, text)",
    "purchase(int4, int4[], int4[])",
];

/// A sequence for `table.column`, set so that its next value is one past the column's largest value (1
/// in an empty table), and made the column's default. `AS integer` matches the int4 column, so running out
/// is an error from the sequence rather than from the insert. Re-running moves the sequence to the
/// current maximum, which is only safe while no one inserts: it runs at load time.
fn id_sequence(table: &str, column: &str) -> [String; 3] {
    let seq = format!("{table}_{column}_seq");
    [
        format!("CREATE SEQUENCE IF NOT EXISTS {seq} AS integer OWNED BY {table}.{column}"),
        restart_sequence(table, column),
        format!("ALTER TABLE {table} ALTER COLUMN {column} SET DEFAULT nextval('{seq}')"),
    ]
}

/// The statement that sets `table.column`'s sequence one past the column's largest value.
fn restart_sequence(table: &str, column: &str) -> String {
    format!(
        "SELECT setval('{table}_{column}_seq', (SELECT coalesce(max({column}), 0) + 1 FROM {table}), false)"
    )
}

/// The statements that set the id sequences past the loaded ids again once a restore has put the
/// loaded rows back (the sequence, its grants and the columns' defaults stay as they are).
pub fn restart_sequences() -> Vec<String> {
    vec![restart_sequence("customers", "customerid"), restart_sequence("orders", "orderid")]
}

/// The reference's restock rule (`ds2/pgsqlds2/build/pgsqlds2_create_trig.sql`), which "keeps the number
/// of items with low QUAN_IN_STOCK constant so that the rollback rate is constant": when an update takes
/// a product's stock under 3, a reorder row is written and the stock is put back to 250 (2,500 when
/// `(prod_id + 1) % 10000 = 0`). The reference's `quan_low` holds the quantity restocked
/// (`restockto - NEW.QUAN_IN_STOCK`), and so does ours. Its `+ 1` makes the large restock land one before
/// the driver's popular titles (every 10,000th product, picked ten times as often); we keep the rule as
/// written so that rollback and reorder rates compare with the reference's.
const RESTOCK_FUNCTION: &str = "CREATE OR REPLACE FUNCTION restock_order() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  restock_to int4;
BEGIN
  IF NEW.quan_in_stock < 3 THEN
    restock_to := CASE WHEN (NEW.prod_id + 1) % 10000 = 0 THEN 2500 ELSE 250 END;
    INSERT INTO reorder (prod_id, date_low, quan_low) VALUES (NEW.prod_id, current_date, restock_to - NEW.quan_in_stock);
    NEW.quan_in_stock := restock_to;
  END IF;
  RETURN NEW;
END
$$";

/// Fires only when the stock changes, as the reference's trigger does.
const RESTOCK_TRIGGER: &str = "CREATE TRIGGER restock BEFORE UPDATE ON inventory FOR EACH ROW \
     WHEN (OLD.quan_in_stock IS DISTINCT FROM NEW.quan_in_stock) EXECUTE FUNCTION restock_order()";

/// oltpgen's login: the customer's id and up to 10 of their latest purchases, each with the title that
/// "people who liked this also liked" (the product's `common_prod_id`).
///
/// One result set, one row per purchase: DS2's `login` returns refcursors (which Npgsql 2 dereferences),
/// which would cost a transaction and a FETCH per cursor. Every row carries the customerid; a customer
/// with no purchases gets one row with NULL titles, an unknown user or wrong password one row with
/// customerid 0 (the reference's `SELECT 0`).
///
/// The reference's procedures return the whole history (SQL Server, PostgreSQL) or the first `batch`
/// rows (Oracle); we take the reference web page's "previous purchases", `ORDER BY ORDERID DESC, TITLE
/// ASC LIMIT 10` (`ds2/pgsqlds2/web/php/dslogin.php`), so that the work per login does not grow as the
/// run adds orders. The related title is an inner join as in the reference: a purchase whose related
/// product is missing is not listed.
const OLTPGEN_LOGIN: &str = "CREATE OR REPLACE FUNCTION oltpgen_login(username_in text, password_in text)
RETURNS TABLE (customerid int4, title text, actor text, related_title text)
LANGUAGE sql STABLE AS $$
  WITH who AS (
    SELECT c.customerid FROM customers c WHERE c.username = username_in AND c.password = password_in
  ), history AS (
    SELECT h.orderid, p.title, p.actor, r.title AS related_title
    FROM who
    JOIN cust_hist h ON h.customerid = who.customerid
    JOIN products p ON p.prod_id = h.prod_id
    JOIN products r ON r.prod_id = p.common_prod_id
    ORDER BY h.orderid DESC, p.title
    LIMIT 10
  )
  SELECT coalesce((SELECT customerid FROM who), 0), h.title::text, h.actor::text, h.related_title::text
  FROM (VALUES (1)) AS one (x) LEFT JOIN history h ON true
  ORDER BY h.orderid DESC, h.title
$$";

/// DS2's login, as its driver calls it (`pgsqlds2_create_sp.sql`): a first cursor with the customerid
/// (0 for an unknown user or a wrong password), then, for a customer found, a second with their whole
/// purchase history (title, actor, the related title), newest first. DS2's driver reads both in one
/// transaction.
const LOGIN: &str = "CREATE OR REPLACE FUNCTION login(username_in text, password_in text)
RETURNS SETOF refcursor LANGUAGE plpgsql AS $$
DECLARE
  found_id int4;
  ref1 refcursor;
  ref2 refcursor;
BEGIN
  SELECT c.customerid INTO found_id FROM customers c WHERE c.username = username_in AND c.password = password_in;
  OPEN ref1 FOR SELECT coalesce(found_id, 0);
  RETURN NEXT ref1;
  IF found_id IS NOT NULL THEN
    OPEN ref2 FOR
      SELECT p.title, p.actor, r.title AS relatedpurchase
      FROM cust_hist h JOIN products p ON p.prod_id = h.prod_id JOIN products r ON r.prod_id = p.common_prod_id
      WHERE h.customerid = found_id
      ORDER BY h.orderid DESC, p.title;
    RETURN NEXT ref2;
  END IF;
END
$$";

/// New customer: the new customerid, or 0 when the user name is taken (the driver then retries with
/// another name), as the reference's `NEW_CUSTOMER`.
///
/// `ON CONFLICT (username) DO NOTHING` gives the reference's PostgreSQL `EXCEPTION WHEN unique_violation`
/// result without a subtransaction per call; it waits for a concurrent insert of the same name and then
/// reports it taken. It names the username only, so that a clash on the customerid (a sequence behind the
/// data) is an error, not a "name taken" the driver would retry for ever.
///
/// Departures: age and income are stored (the reference's PostgreSQL procedure inserted two never-set
/// locals, so they were NULL; SQL Server stores them). The form's empty optional fields (the reference's
/// driver sends `""` for address2, and for state and zip outside the US) are stored as NULL.
///
/// The parameters are the reference's, types included (`zip_in` varchar, `region_in` and `age_in`
/// smallint), so that DS2's driver, which binds them so, finds the function.
const NEW_CUSTOMER: &str = "CREATE OR REPLACE FUNCTION new_customer(
  firstname_in varchar, lastname_in varchar, address1_in varchar, address2_in varchar, city_in varchar,
  state_in varchar, zip_in varchar, country_in varchar, region_in smallint, email_in varchar,
  phone_in varchar, creditcardtype_in int4, creditcard_in varchar, creditcardexpiration_in varchar,
  username_in varchar, password_in varchar, age_in smallint, income_in int4, gender_in varchar)
RETURNS int4 LANGUAGE sql AS $$
  WITH added AS (
    INSERT INTO customers (firstname, lastname, address1, address2, city, state, zip, country, region, email,
      phone, creditcardtype, creditcard, creditcardexpiration, username, password, age, income, gender)
    VALUES (firstname_in, lastname_in, address1_in, nullif(address2_in, ''), city_in, nullif(state_in, ''),
      nullif(zip_in, ''), country_in, region_in, nullif(email_in, ''), nullif(phone_in, ''),
      creditcardtype_in, creditcard_in, creditcardexpiration_in, username_in, password_in, age_in, income_in,
      nullif(gender_in, ''))
    ON CONFLICT (username) DO NOTHING
    RETURNING customerid
  )
  SELECT coalesce((SELECT customerid FROM added), 0)
$$";

/// Browse by category: up to `batch` products of the category that are on special, as the reference.
/// The browse functions are single-statement SQL functions marked STABLE, so the planner inlines them
/// into the caller's query and plans them with the index.
const BROWSE_BY_CATEGORY: &str =
    "CREATE OR REPLACE FUNCTION browse_by_category(batch_size_in int4, category_in int4)
RETURNS SETOF products LANGUAGE sql STABLE AS $$
  SELECT * FROM products WHERE category = category_in AND special = 1 LIMIT batch_size_in
$$";

/// Browse by actor or by title (`function` over `column`): up to `batch` products whose column holds
/// every word searched for.
///
/// The reference joins the words with `&` and parses them with `to_tsquery`, which fails on a quote, a
/// colon or a lone `&`; `plainto_tsquery` ANDs the words the same way and ignores punctuation, so no input
/// raises an error (input without any word matches nothing). The configuration is `simple` on both sides
/// (see [`TS_CONFIG`]). The reference's PostgreSQL `BROWSE_BY_TITLE` searched the ACTOR column, so most
/// title searches found nothing; here the title search searches titles, as the SQL Server and Oracle
/// procedures do (`CONTAINS(TITLE, …)`).
///
/// The words parameter is named as the reference names it (`actor_in`, `title_in`). DS2's driver wraps
/// the words in double quotes, which `plainto_tsquery` ignores.
fn browse_by_words(function: &str, column: &str) -> String {
    format!(
        "CREATE OR REPLACE FUNCTION {function}(batch_size_in int4, {column}_in text)
RETURNS SETOF products LANGUAGE sql STABLE AS $$
  SELECT * FROM products
  WHERE to_tsvector('{TS_CONFIG}', {column}) @@ plainto_tsquery('{TS_CONFIG}', {column}_in)
  LIMIT batch_size_in
$$"
    )
}

/// oltpgen's purchase: one order for `customerid_in` with a line per (prod_ids[i], quantities[i]); the new orderid,
/// or 0 when an item's stock is short, in which case nothing of the purchase remains.
///
/// - Stock is taken line by line in the reference's way (the stock after the line must not be negative;
///   each update fires the restock trigger, so a product bought twice in one cart is checked against the
///   stock the first line left), but with a relative `UPDATE … WHERE quan_in_stock >= q`: the reference
///   read the stock and wrote back absolute values, so two concurrent purchases could lose an update.
///   A product without an inventory row cannot be sold and counts as short.
/// - Lines are taken in prod_id order, so concurrent purchases lock inventory rows in one order and
///   cannot deadlock on each other; the order lines keep the cart's numbering (orderlineid 1..n).
/// - All or nothing: the work runs in a block whose exception handler (a subtransaction) undoes it when
///   the short-stock error is raised, and the function returns 0. The reference raised the error to the
///   client (SQLSTATE P0001), which reads here as a failed operation; DS2 counts a short item as a
///   rollback, an ordinary outcome.
/// - Amounts: net = sum(price × quantity) from `products`, tax = round(net × 0.0825, 2), total = net + tax.
///   The reference's driver computed them with an extra, untimed price query before the call (and counted
///   a product that appears twice in the cart once); computing them here saves that round trip and
///   gives the same amounts, rounded to the columns' two decimals, with total = net + tax exactly.
/// - orderdate is `current_date` (the columns are dates).
/// - A cart of 0 or more than 10 lines, or arrays of different lengths, is a caller's mistake and an
///   error (the reference's procedure has 10 slots).
fn oltpgen_purchase() -> String {
    format!(
        "CREATE OR REPLACE FUNCTION oltpgen_purchase(customerid_in int4, prod_ids int4[], quantities int4[])
RETURNS int4 LANGUAGE plpgsql AS $$
DECLARE
  line record;
  net numeric(12, 2);
  tax_amount numeric(12, 2);
  new_orderid int4;
BEGIN
  IF coalesce(cardinality(prod_ids), 0) NOT BETWEEN 1 AND 10
     OR cardinality(prod_ids) IS DISTINCT FROM cardinality(quantities) THEN
    RAISE EXCEPTION 'purchase: % products and % quantities; a cart holds 1 to 10 lines',
      cardinality(prod_ids), cardinality(quantities) USING ERRCODE = 'invalid_parameter_value';
  END IF;
  BEGIN
    FOR line IN
      SELECT c.prod_id, c.quantity FROM unnest(prod_ids, quantities) WITH ORDINALITY AS c (prod_id, quantity, n)
      ORDER BY c.prod_id, c.n
    LOOP
      UPDATE inventory SET quan_in_stock = quan_in_stock - line.quantity, sales = sales + line.quantity
      WHERE prod_id = line.prod_id AND quan_in_stock >= line.quantity;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'insufficient quantity for prod_id %', line.prod_id USING ERRCODE = '{SHORT_STOCK}';
      END IF;
    END LOOP;
    SELECT sum(p.price * c.quantity) INTO net
    FROM unnest(prod_ids, quantities) AS c (prod_id, quantity) JOIN products p ON p.prod_id = c.prod_id;
    tax_amount := round(net * 0.0825, 2);
    INSERT INTO orders (orderdate, customerid, netamount, tax, totalamount)
    VALUES (current_date, customerid_in, net, tax_amount, net + tax_amount)
    RETURNING orderid INTO new_orderid;
    INSERT INTO orderlines (orderlineid, orderid, prod_id, quantity, orderdate)
    SELECT c.n, new_orderid, c.prod_id, c.quantity, current_date
    FROM unnest(prod_ids, quantities) WITH ORDINALITY AS c (prod_id, quantity, n);
    INSERT INTO cust_hist (customerid, orderid, prod_id)
    SELECT customerid_in, new_orderid, c.prod_id FROM unnest(prod_ids) AS c (prod_id);
    RETURN new_orderid;
  EXCEPTION WHEN SQLSTATE '{SHORT_STOCK}' THEN
    RETURN 0;
  END;
END
$$"
    )
}

/// DS2's purchase, as its driver calls it (`pgsqlds2_create_sp.sql`): the customer, the number of items,
/// the amounts the client computed, then 10 (prod_id, quantity) slots of which the first `number_items`
/// are the cart (the driver caps it at 10). Behind it is [`oltpgen_purchase`], which computes the
/// amounts from the products' prices (those passed are not used: DS2's driver computes them from the same
/// prices, with a product that appears twice counted once), locks in prod_id order and updates stock
/// relatively. A short item returns 0, which DS2's driver counts as a rollback as it counts the error
/// its own procedure raises.
fn purchase() -> String {
    let slots: Vec<String> =
        (0..10).map(|i| format!("prod_id_in{i} int4 DEFAULT 0, qty_in{i} int4 DEFAULT 0")).collect();
    let array = |name: &str| {
        let items: Vec<String> = (0..10).map(|i| format!("{name}{i}")).collect();
        format!("(ARRAY[{}])[1:number_items]", items.join(", "))
    };
    format!(
        "CREATE OR REPLACE FUNCTION purchase(customerid_in int4, number_items int4, netamount_in numeric,
  taxamount_in numeric, totalamount_in numeric, {})
RETURNS int4 LANGUAGE sql AS $$
  SELECT oltpgen_purchase(customerid_in, {}, {})
$$",
        slots.join(", "),
        array("prod_id_in"),
        array("qty_in")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_of_the_search_use_one_configuration() {
        let indexes = extra_indexes();
        for ((column, _, function), (table, index)) in SEARCHED.iter().zip(&indexes) {
            assert_eq!(*table, "products");
            let expr = format!("to_tsvector('simple', {column})");
            assert!(index.contains(&expr), "{index}");
            let browse = browse_by_words(function, column);
            assert!(
                browse.contains(&expr) && browse.contains(&format!("plainto_tsquery('simple', {column}_in)")),
                "{browse}"
            );
        }
    }
}
