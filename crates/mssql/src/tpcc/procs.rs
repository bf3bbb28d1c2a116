//! TPC-C's five transactions (2.4–2.8) in T-SQL, each body written once and rendered two ways
//! ([`Txn`]): as a stored procedure, created at load and on a database that lacks them (server-side, as
//! HammerDB and audited SQL Server results run TPC-C), or as one parameterized batch the client sends
//! itself (client-side: `DECLARE` each parameter from tiberius' `@P1…`, then the same body; tiberius
//! sends it through `sp_executesql`, whose plan is cached per text). Either way each transaction is one
//! round trip; the batch also runs where the login may not create procedures.
//!
//! Every construct of the bodies runs alike inside a procedure and inside `sp_executesql`, on SQL
//! Server and on Babelfish (checked there: `THROW` and an error under `XACT_ABORT ON` roll the
//! transaction back and leave `@@TRANCOUNT` 0, table variables, `SET TRANSACTION ISOLATION LEVEL`,
//! `DECLARE` inside a block; `RETURN` and `TRY`/`CATCH` too, which the bodies do not need).
//!
//! The rules the PostgreSQL transactions follow (`oltpgen_pg::tpcc::txn`) hold here too:
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
//! SQL Server runs alike. tiberius has no output parameters: each body ends with a `SELECT`.

use oltpgen_datagen::tpcc::consts::MAX_OL_CNT;

/// One transaction's T-SQL: its procedure's name, its parameters in the order the client binds them,
/// and its body, which either rendering wraps.
pub struct Txn {
    /// The procedure's name.
    pub name: &'static str,
    /// `(name, type)`; a parameter the client may leave out is NULL then (New-Order's unused lines).
    params: Vec<(String, &'static str)>,
    /// How many leading parameters every call binds (the rest may be left out).
    required: usize,
    /// The statements between `BEGIN` and `END`.
    body: String,
}

impl Txn {
    fn new(name: &'static str, params: &[(&str, &'static str)], body: impl Into<String>) -> Self {
        let params: Vec<(String, &'static str)> = params.iter().map(|(n, t)| (n.to_string(), *t)).collect();
        Txn { name, required: params.len(), params, body: body.into() }
    }

    /// `CREATE PROCEDURE` with this body (its own batch, as T-SQL wants).
    pub fn create(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, (n, t))| if i < self.required { format!("{n} {t}") } else { format!("{n} {t} = NULL") })
            .collect();
        format!("CREATE PROCEDURE {} {}\nAS\nBEGIN{}END", self.name, params.join(", "), self.body)
    }

    /// The procedure's call binding its first `bound` parameters to `@P1…`.
    pub fn call(&self, bound: usize) -> String {
        let args: Vec<String> = (1..=bound).map(|i| format!("@P{i}")).collect();
        format!("EXEC {} {}", self.name, args.join(", "))
    }

    /// The body as one batch of its own binding its first `bound` parameters to `@P1…` (the rest NULL,
    /// as the procedure's defaults): a variable of each parameter's name and type, then the body.
    pub fn batch(&self, bound: usize) -> String {
        let vars: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(
                |(i, (n, t))| {
                    if i < bound { format!("{n} {t} = @P{}", i + 1) } else { format!("{n} {t} = NULL") }
                },
            )
            .collect();
        format!("DECLARE {};{}", vars.join(", "), self.body)
    }
}

/// The five transactions, in the order they are created: New-Order, Payment, Order-Status, Delivery,
/// Stock-Level.
pub fn transactions() -> [Txn; 5] {
    [
        new_order(),
        Txn::new("oltpgen_payment", PAYMENT_PARAMS, PAYMENT),
        Txn::new("oltpgen_order_status", ORDER_STATUS_PARAMS, ORDER_STATUS),
        Txn::new("oltpgen_delivery", DELIVERY_PARAMS, DELIVERY),
        Txn::new("oltpgen_stock_level", STOCK_LEVEL_PARAMS, STOCK_LEVEL),
    ]
}

/// The statements that (re)create every procedure, each its own batch.
pub fn statements() -> Vec<String> {
    transactions()
        .iter()
        .flat_map(|t| {
            [format!("IF OBJECT_ID('{0}', 'P') IS NOT NULL DROP PROCEDURE {0}", t.name), t.create()]
        })
        .collect()
}

/// A query that yields 1 when every procedure exists.
pub fn all_exist() -> String {
    let missing: Vec<String> =
        transactions().iter().map(|t| format!("OBJECT_ID('{}', 'P') IS NULL", t.name)).collect();
    format!("SELECT CASE WHEN {} THEN 0 ELSE 1 END", missing.join(" OR "))
}

/// New-Order (2.4.2): warehouse, district, customer, line count, all-local, then each line's item,
/// supplying warehouse and quantity (tiberius cannot send a table-valued parameter, so the lines are
/// [`MAX_OL_CNT`] optional triples).
fn new_order() -> Txn {
    let n = MAX_OL_CNT;
    let head = ["@w_id", "@d_id", "@c_id", "@ol_cnt", "@all_local"];
    let lines = (1..=n).flat_map(|k| [format!("@i{k}"), format!("@s{k}"), format!("@q{k}")]);
    let params: Vec<(String, &'static str)> =
        head.iter().map(|h| h.to_string()).chain(lines).map(|p| (p, "INT")).collect();
    let values: Vec<String> = (1..=n).map(|k| format!("({k}, @i{k}, @s{k}, @q{k})")).collect();
    let body = format!(
        "
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
",
        values = values.join(", ")
    );
    Txn { name: "oltpgen_new_order", params, required: head.len(), body }
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
const PAYMENT_PARAMS: &[(&str, &str)] = &[
    ("@w_id", "INT"),
    ("@d_id", "INT"),
    ("@c_w_id", "INT"),
    ("@c_d_id", "INT"),
    ("@c_id", "INT"),
    ("@c_last", "VARCHAR(16)"),
    ("@cents", "BIGINT"),
];

/// Payment's body.
const PAYMENT: &str = concat!(
    "
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
"
);

/// Order-Status (2.6.2): the customer (`@c_id` 0: by `@c_last`), their latest order and its lines, read
/// in one statement.
const ORDER_STATUS_PARAMS: &[(&str, &str)] =
    &[("@w_id", "INT"), ("@d_id", "INT"), ("@c_id", "INT"), ("@c_last", "VARCHAR(16)")];

/// Order-Status' body.
const ORDER_STATUS: &str = concat!(
    "
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
"
);

/// Delivery (2.7.4), district by district in one transaction; its result is how many districts had
/// no undelivered order and were skipped (2.7.4.2).
const DELIVERY_PARAMS: &[(&str, &str)] = &[("@w_id", "INT"), ("@carrier_id", "INT")];

/// Delivery's body.
const DELIVERY: &str = "
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
";

/// Stock-Level (2.8.2): distinct items of the district's last 20 orders whose home stock is under the
/// threshold.
const STOCK_LEVEL_PARAMS: &[(&str, &str)] = &[("@w_id", "INT"), ("@d_id", "INT"), ("@threshold", "INT")];

/// Stock-Level's body.
const STOCK_LEVEL: &str = "
  SET NOCOUNT ON;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
  DECLARE @next INT = (SELECT d_next_o_id FROM district WHERE d_w_id = @w_id AND d_id = @d_id);
  SELECT COUNT(DISTINCT s.s_i_id) AS low_stock FROM order_line l
    JOIN stock s ON s.s_w_id = l.ol_w_id AND s.s_i_id = l.ol_i_id
    WHERE l.ol_w_id = @w_id AND l.ol_d_id = @d_id AND l.ol_o_id >= @next - 20 AND l.ol_o_id < @next
      AND s.s_quantity < @threshold;
";
