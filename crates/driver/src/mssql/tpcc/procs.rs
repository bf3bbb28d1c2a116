//! TPC-C's five transactions (2.4–2.8) as T-SQL stored procedures, created at load and on a database
//! that lacks them, so that each transaction is one round trip (as HammerDB and audited SQL Server
//! results run TPC-C).
//!
//! The rules the PostgreSQL transactions follow ([`crate::pg::tpcc::txn`]) hold here too:
//! - READ COMMITTED, pinned in every procedure whatever the server's default;
//! - locks in a fixed order: New-Order takes the district, then its stock rows by (item, warehouse);
//!   Payment takes warehouse, district, customer; Delivery goes district by district;
//! - no lost update: every read-modify-write is one `UPDATE` (which re-reads the row once it holds its
//!   lock), and what the transaction needs of the row is read after it, under that lock;
//! - `XACT_ABORT ON`: any error rolls the whole transaction back (SQL Server, and Babelfish, roll back
//!   only the failing statement otherwise);
//! - 2.4.2.3: a New-Order naming an unused item does all its work, then rolls back, and says so in its
//!   result (an expected outcome, not an error);
//! - a Payment matching no customer fails (`THROW`) before it commits.
//!
//! Babelfish has no `CREATE OR ALTER`: each procedure is dropped when it exists, then created, which
//! SQL Server runs alike. tiberius has no output parameters: each procedure ends with a `SELECT`.

use oltpgen_datagen::tpcc::consts::MAX_OL_CNT;

/// The procedures' names, in the order they are created.
pub const NAMES: [&str; 5] = [
    "oltpgen_new_order",
    "oltpgen_payment",
    "oltpgen_order_status",
    "oltpgen_delivery",
    "oltpgen_stock_level",
];

/// The statements that (re)create every procedure, each its own batch.
pub fn statements() -> Vec<String> {
    let bodies = [
        new_order(),
        PAYMENT.to_string(),
        ORDER_STATUS.to_string(),
        DELIVERY.to_string(),
        STOCK_LEVEL.to_string(),
    ];
    NAMES
        .iter()
        .zip(bodies)
        .flat_map(|(name, body)| {
            [
                format!("IF OBJECT_ID('{name}', 'P') IS NOT NULL DROP PROCEDURE {name}"),
                format!("CREATE PROCEDURE {name} {body}"),
            ]
        })
        .collect()
}

/// A query that yields 1 when every procedure exists.
pub fn all_exist() -> String {
    let missing: Vec<String> = NAMES.iter().map(|n| format!("OBJECT_ID('{n}', 'P') IS NULL")).collect();
    format!("SELECT CASE WHEN {} THEN 0 ELSE 1 END", missing.join(" OR "))
}

/// The call of New-Order with `lines` order lines: warehouse, district, customer, line count, all-local,
/// then each line's item, supplying warehouse and quantity (tiberius cannot send a table-valued
/// parameter, so the lines are 15 optional triples).
pub fn new_order_call(lines: usize) -> String {
    let params: Vec<String> = (1..=5 + 3 * lines).map(|i| format!("@P{i}")).collect();
    format!("EXEC oltpgen_new_order {}", params.join(", "))
}

/// New-Order (2.4.2): its parameters are generated for [`MAX_OL_CNT`] lines.
fn new_order() -> String {
    let n = MAX_OL_CNT;
    let params: Vec<String> =
        (1..=n).map(|k| format!("@i{k} INT = NULL, @s{k} INT = NULL, @q{k} INT = NULL")).collect();
    let values: Vec<String> = (1..=n).map(|k| format!("({k}, @i{k}, @s{k}, @q{k})")).collect();
    format!(
        "@w_id INT, @d_id INT, @c_id INT, @ol_cnt INT, @all_local INT, {params}
AS
BEGIN
  SET NOCOUNT ON;
  SET XACT_ABORT ON;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
  DECLARE @lines TABLE (n INT PRIMARY KEY, ord INT NOT NULL, i_id INT NOT NULL, s_w_id INT NOT NULL, q INT NOT NULL,
    price DECIMAL(5,2) NULL);
  DECLARE @stock TABLE (n INT PRIMARY KEY, s_quantity INT, dist CHAR(24));
  DECLARE @o_id INT, @d_tax DECIMAL(4,4), @w_tax DECIMAL(4,4), @c_discount DECIMAL(4,4), @c_last VARCHAR(16),
    @c_credit CHAR(2), @k INT = 1, @count INT, @n INT, @i INT, @s INT, @q INT, @rolled_back INT = 0;
  -- The lines in lock order: by item and supplying warehouse (a stock row named twice is updated twice,
  -- 2.4.1.5.1).
  INSERT INTO @lines (n, ord, i_id, s_w_id, q)
    SELECT n, ROW_NUMBER() OVER (ORDER BY i, s, n), i, s, q FROM (VALUES {values}) v(n, i, s, q) WHERE i IS NOT NULL;
  SET @count = (SELECT COUNT(*) FROM @lines);
  BEGIN TRANSACTION;
  -- 2.4.2.2: the district is locked by taking its next order id, which is then read back under that
  -- lock (Babelfish's UPDATE … OUTPUT INSERTED returned stale values under concurrency).
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = @w_id AND d_id = @d_id;
  SELECT @o_id = d_next_o_id - 1, @d_tax = d_tax FROM district WHERE d_w_id = @w_id AND d_id = @d_id;
  SELECT @w_tax = w_tax FROM warehouse WHERE w_id = @w_id;
  SELECT @c_discount = c_discount, @c_last = c_last, @c_credit = c_credit FROM customer
    WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_id = @c_id;
  UPDATE l SET price = i.i_price FROM @lines l JOIN item i ON i.i_id = l.i_id;
  WHILE @k <= @count
  BEGIN
    SELECT @n = n, @i = i_id, @s = s_w_id, @q = q FROM @lines WHERE ord = @k;
    -- 2.4.2.2: quantity drops by q, or wraps by 91 when it would fall under 10.
    UPDATE stock SET s_quantity = CASE WHEN s_quantity >= @q + 10 THEN s_quantity - @q ELSE s_quantity - @q + 91 END,
        s_ytd = s_ytd + @q, s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + CASE WHEN @s <> @w_id THEN 1 ELSE 0 END
      WHERE s_i_id = @i AND s_w_id = @s;
    -- Read back under the lock the UPDATE holds.
    INSERT INTO @stock (n, s_quantity, dist)
      SELECT @n, s_quantity, CASE @d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
          WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07
          WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
        FROM stock WHERE s_i_id = @i AND s_w_id = @s;
    SET @k = @k + 1;
  END;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (@o_id, @d_id, @w_id, @c_id, SYSDATETIME(), NULL, @ol_cnt, @all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @d_id, @w_id);
  INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity,
      ol_amount, ol_dist_info)
    SELECT @o_id, @d_id, @w_id, l.n, l.i_id, l.s_w_id, NULL, l.q, l.price * l.q, s.dist
    FROM @lines l JOIN @stock s ON s.n = l.n WHERE l.price IS NOT NULL;
  -- 2.4.2.3: an unused item rolls the whole order back, once the rest of it was entered.
  IF EXISTS (SELECT 1 FROM @lines WHERE price IS NULL) SET @rolled_back = 1;
  IF @rolled_back = 1 ROLLBACK TRANSACTION; ELSE COMMIT TRANSACTION;
  SELECT @o_id AS o_id, @rolled_back AS rolled_back,
    CAST((SELECT SUM(price * q) FROM @lines) * (1 - @c_discount) * (1 + @w_tax + @d_tax) AS DECIMAL(12,2)) AS total;
END",
        params = params.join(", "),
        values = values.join(", ")
    )
}

/// The customer a Payment or Order-Status names by last name (2.5.2.2, 2.6.2.2): of the matching
/// customers ordered by first name, the one at position ceil(n / 2); `@c_id` stays 0 when none match.
macro_rules! pick_by_last_name {
    ($w:literal, $d:literal) => {
        concat!(
            "IF @c_id = 0
  BEGIN
    DECLARE @matching INT = (SELECT COUNT(*) FROM customer WHERE c_w_id = ",
            $w,
            " AND c_d_id = ",
            $d,
            " AND c_last = @c_last);
    SELECT @c_id = c_id FROM customer WHERE c_w_id = ",
            $w,
            " AND c_d_id = ",
            $d,
            " AND c_last = @c_last
      ORDER BY c_first OFFSET (@matching - 1) / 2 ROWS FETCH NEXT 1 ROWS ONLY;
  END;"
        )
    };
}

/// Payment (2.5.2); `@c_id` 0 picks the customer by `@c_last` (tiberius' NULL parameters are a type
/// Babelfish refuses, so 0 stands for none).
const PAYMENT: &str = concat!(
    "@w_id INT, @d_id INT, @c_w_id INT, @c_d_id INT, @c_id INT, @c_last VARCHAR(16), @cents BIGINT
AS
BEGIN
  SET NOCOUNT ON;
  SET XACT_ABORT ON;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
  DECLARE @amount DECIMAL(6,2) = @cents / 100.0, @w_name VARCHAR(10), @d_name VARCHAR(10);
  BEGIN TRANSACTION;
  UPDATE warehouse SET w_ytd = w_ytd + @amount WHERE w_id = @w_id;
  SELECT @w_name = w_name FROM warehouse WHERE w_id = @w_id;
  UPDATE district SET d_ytd = d_ytd + @amount WHERE d_w_id = @w_id AND d_id = @d_id;
  SELECT @d_name = d_name FROM district WHERE d_w_id = @w_id AND d_id = @d_id;
  ",
    pick_by_last_name!("@c_w_id", "@c_d_id"),
    "
  -- 2.5.2.2: bad credit prepends the payment to C_DATA, kept to 500 characters.
  UPDATE customer SET c_balance = c_balance - @amount, c_ytd_payment = c_ytd_payment + @amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', @d_id, ' ', @w_id, ' ',
        @amount, ' ', c_data), 500) ELSE c_data END
    WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
  -- Its warehouse and district were paid: a Payment that found no customer must not commit.
  IF @@ROWCOUNT = 0 THROW 50001, 'Payment matched no customer', 1;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (@c_id, @c_d_id, @c_w_id, @d_id, @w_id, SYSDATETIME(), @amount, CONCAT(@w_name, '    ', @d_name));
  SELECT c_id, c_first, c_middle, c_last, c_balance, c_credit,
      CASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) END AS c_data
    FROM customer WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
  COMMIT TRANSACTION;
END"
);

/// Order-Status (2.6.2): the customer (`@c_id` 0: by `@c_last`), their latest order and its lines, read
/// in one statement.
const ORDER_STATUS: &str = concat!(
    "@w_id INT, @d_id INT, @c_id INT, @c_last VARCHAR(16)
AS
BEGIN
  SET NOCOUNT ON;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
  ",
    pick_by_last_name!("@w_id", "@d_id"),
    "
  SELECT c.c_id, c.c_balance, c.c_first, c.c_middle, c.c_last, o.o_id, o.o_entry_d, o.o_carrier_id,
      l.ol_i_id, l.ol_supply_w_id, l.ol_quantity, l.ol_amount, l.ol_delivery_d
    FROM customer c
    OUTER APPLY (SELECT TOP (1) o_id, o_entry_d, o_carrier_id FROM orders
      WHERE o_w_id = c.c_w_id AND o_d_id = c.c_d_id AND o_c_id = c.c_id ORDER BY o_id DESC) o
    LEFT JOIN order_line l ON l.ol_w_id = c.c_w_id AND l.ol_d_id = c.c_d_id AND l.ol_o_id = o.o_id
    WHERE c.c_w_id = @w_id AND c.c_d_id = @d_id AND c.c_id = @c_id;
END"
);

/// Delivery (2.7.4), district by district in one transaction; its result is how many districts had
/// no undelivered order and were skipped (2.7.4.2).
const DELIVERY: &str = "@w_id INT, @carrier_id INT
AS
BEGIN
  SET NOCOUNT ON;
  SET XACT_ABORT ON;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
  DECLARE @d INT = 1, @o INT, @c INT, @amount DECIMAL(12,2), @skipped INT = 0, @now DATETIME2(6) = SYSDATETIME();
  BEGIN TRANSACTION;
  WHILE @d <= 10
  BEGIN
    -- 2.7.4.2: the oldest undelivered order, deleted. 3.4.1: when a concurrent Delivery deleted it while
    -- this one waited for its lock, the DELETE finds nothing and the next oldest is taken, so no
    -- district with orders is skipped.
    WHILE 1 = 1
    BEGIN
      SELECT @o = MIN(no_o_id) FROM new_order WHERE no_w_id = @w_id AND no_d_id = @d;
      IF @o IS NULL BREAK;
      DELETE FROM new_order WHERE no_w_id = @w_id AND no_d_id = @d AND no_o_id = @o;
      IF @@ROWCOUNT = 1 BREAK;
    END;
    IF @o IS NULL
      SET @skipped = @skipped + 1;
    ELSE
    BEGIN
      UPDATE orders SET o_carrier_id = @carrier_id WHERE o_w_id = @w_id AND o_d_id = @d AND o_id = @o;
      SELECT @c = o_c_id FROM orders WHERE o_w_id = @w_id AND o_d_id = @d AND o_id = @o;
      UPDATE order_line SET ol_delivery_d = @now WHERE ol_w_id = @w_id AND ol_d_id = @d AND ol_o_id = @o;
      SELECT @amount = COALESCE(SUM(ol_amount), 0) FROM order_line WHERE ol_w_id = @w_id AND ol_d_id = @d AND ol_o_id = @o;
      UPDATE customer SET c_balance = c_balance + @amount, c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = @w_id AND c_d_id = @d AND c_id = @c;
    END;
    SET @d = @d + 1;
  END;
  COMMIT TRANSACTION;
  SELECT @skipped AS skipped;
END";

/// Stock-Level (2.8.2): distinct items of the district's last 20 orders whose home stock is under the
/// threshold.
const STOCK_LEVEL: &str = "@w_id INT, @d_id INT, @threshold INT
AS
BEGIN
  SET NOCOUNT ON;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
  DECLARE @next INT = (SELECT d_next_o_id FROM district WHERE d_w_id = @w_id AND d_id = @d_id);
  SELECT COUNT(DISTINCT s.s_i_id) AS low_stock FROM order_line l
    JOIN stock s ON s.s_w_id = l.ol_w_id AND s.s_i_id = l.ol_i_id
    WHERE l.ol_w_id = @w_id AND l.ol_d_id = @d_id AND l.ol_o_id >= @next - 20 AND l.ol_o_id < @next
      AND s.s_quantity < @threshold;
END";
