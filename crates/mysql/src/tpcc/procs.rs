//! TPC-C's five transactions (2.4–2.8) as MySQL stored procedures, created at load and on a database
//! that lacks them, each called in one round trip (server-side, as HammerDB runs TPC-C on MySQL).
//!
//! The rules the other engines' transactions follow (`oltpgen_pg::tpcc::txn`) hold here too:
//! - READ COMMITTED, which the session pins ([`crate::SESSION_ISOLATION`]; MySQL's default is
//!   REPEATABLE READ) and the procedures run at;
//! - locks in a fixed order: New-Order takes the district, then its stock rows in the order the client
//!   sends the lines, sorted by (item, warehouse); Payment takes warehouse, district, customer; Delivery
//!   goes district by district;
//! - no lost update: every read-modify-write is one `UPDATE`, and what the transaction needs of the row
//!   is read after it, under its lock;
//! - any error rolls the whole transaction back (an `EXIT HANDLER` that rolls back and re-raises:
//!   InnoDB rolls back only the statement on a lock wait timeout, 1205);
//! - 2.4.2.3: a New-Order naming an unused item does all its work, then rolls back, and says so in its
//!   result (an expected outcome, not an error);
//! - a Payment matching no customer fails (`SIGNAL`) before it commits.
//!
//! MySQL procedures take no arrays: New-Order's lines come as four comma-separated lists (item,
//! supplying warehouse, quantity, line number), taken apart with `SUBSTRING_INDEX`.

/// The procedures' names, in the order they are created.
pub const NAMES: [&str; 5] = [
    "oltpgen_new_order",
    "oltpgen_payment",
    "oltpgen_order_status",
    "oltpgen_delivery",
    "oltpgen_stock_level",
];

/// New-Order (2.4.2): warehouse, district, customer, line count, all-local, and the lines as lists in
/// lock order; its result is the order id and whether it rolled back.
const NEW_ORDER: &str = concat!(
    "CREATE PROCEDURE oltpgen_new_order(IN p_w INT, IN p_d INT, IN p_c INT, IN p_cnt INT, IN p_all_local INT,
  IN p_items VARCHAR(255), IN p_supply VARCHAR(255), IN p_qty VARCHAR(255), IN p_num VARCHAR(255))
BEGIN
  DECLARE v_o INT; DECLARE v_d_tax DECIMAL(4,4); DECLARE v_w_tax DECIMAL(4,4); DECLARE v_disc DECIMAL(4,4);
  DECLARE v_last VARCHAR(16); DECLARE v_credit CHAR(2); DECLARE v_price DECIMAL(5,2); DECLARE v_dist CHAR(24);
  DECLARE k INT DEFAULT 1; DECLARE v_i INT; DECLARE v_s INT; DECLARE v_q INT; DECLARE v_n INT;
  DECLARE v_bad INT DEFAULT 0;
  ",
    on_error!(),
    "
  START TRANSACTION;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_next_o_id - 1, d_tax INTO v_o, v_d_tax FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
  SELECT c_discount, c_last, c_credit INTO v_disc, v_last, v_credit FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o, p_d, p_w, p_c, NOW(6), NULL, p_cnt, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
  WHILE k <= p_cnt DO
    SET v_i = ",
    nth!("p_items"),
    ";
    SET v_s = ",
    nth!("p_supply"),
    ";
    SET v_q = ",
    nth!("p_qty"),
    ";
    SET v_n = ",
    nth!("p_num"),
    ";
    SET v_price = (SELECT i_price FROM item WHERE i_id = v_i);
    IF v_price IS NULL THEN
      -- 2.4.2.3: an unused item rolls the whole order back, once the rest of it was entered.
      SET v_bad = 1;
    ELSE
      -- 2.4.2.2: quantity drops by q, or wraps by 91 when it would fall under 10.
      UPDATE stock SET s_quantity = CASE WHEN s_quantity >= v_q + 10 THEN s_quantity - v_q ELSE s_quantity - v_q + 91 END,
          s_ytd = s_ytd + v_q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (v_s <> p_w)
        WHERE s_i_id = v_i AND s_w_id = v_s;
      SELECT CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
          WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
          WHEN 9 THEN s_dist_09 ELSE s_dist_10 END INTO v_dist
        FROM stock WHERE s_i_id = v_i AND s_w_id = v_s;
      INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
          ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o, p_d, p_w, v_n, v_i, v_s, NULL, v_q, v_price * v_q, v_dist);
    END IF;
    SET k = k + 1;
  END WHILE;
  IF v_bad = 1 THEN ROLLBACK; ELSE COMMIT; END IF;
  SELECT v_o, v_bad;
END"
);

/// The customer a Payment or Order-Status names by last name (2.5.2.2, 2.6.2.2): of the matching
/// customers ordered by first name, the one at position ceil(n / 2); `v_c` stays 0 when none match.
macro_rules! pick_by_last_name {
    ($w:literal, $d:literal) => {
        concat!(
            "IF v_c = 0 THEN
    SELECT (COUNT(*) - 1) DIV 2 INTO v_n FROM customer WHERE c_w_id = ",
            $w,
            " AND c_d_id = ",
            $d,
            " AND c_last = p_last;
    SELECT c_id INTO v_c FROM customer WHERE c_w_id = ",
            $w,
            " AND c_d_id = ",
            $d,
            " AND c_last = p_last ORDER BY c_first LIMIT v_n, 1;
  END IF;"
        )
    };
}

/// Payment (2.5.2); `p_c` 0 picks the customer by `p_last`.
const PAYMENT: &str = concat!(
    "CREATE PROCEDURE oltpgen_payment(IN p_w INT, IN p_d INT, IN p_cw INT, IN p_cd INT, IN p_c INT,
  IN p_last VARCHAR(16), IN p_cents BIGINT)
BEGIN
  DECLARE v_amount DECIMAL(6,2) DEFAULT p_cents / 100; DECLARE v_w_name VARCHAR(10); DECLARE v_d_name VARCHAR(10);
  DECLARE v_c INT DEFAULT p_c; DECLARE v_n INT DEFAULT 0;
  ",
    on_error!(),
    "
  START TRANSACTION;
  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w;
  SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w AND d_id = p_d;
  ",
    pick_by_last_name!("p_cw", "p_cd"),
    "
  -- 2.5.2.2: bad credit prepends the payment to C_DATA, kept to 500 characters.
  UPDATE customer SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT_WS(' ', c_id, c_d_id, c_w_id, p_d, p_w, v_amount, c_data), 500)
        ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  -- Its warehouse and district were paid: a Payment that found no customer must not commit.
  IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'Payment matched no customer'; END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_cd, p_cw, p_d, p_w, NOW(6), v_amount, CONCAT(v_w_name, '    ', v_d_name));
  SELECT c_id, c_first, c_middle, c_last, c_balance, c_credit,
      CASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) END AS c_data
    FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  COMMIT;
END"
);

/// Order-Status (2.6.2): the customer (`p_c` 0: by `p_last`), their latest order and its lines.
const ORDER_STATUS: &str = concat!(
    "CREATE PROCEDURE oltpgen_order_status(IN p_w INT, IN p_d INT, IN p_c INT, IN p_last VARCHAR(16))
BEGIN
  DECLARE v_c INT DEFAULT p_c; DECLARE v_n INT DEFAULT 0; DECLARE v_o INT;
  START TRANSACTION READ ONLY;
  ",
    pick_by_last_name!("p_w", "p_d"),
    "
  SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
  SELECT o_id INTO v_o FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
  SELECT o_id, o_entry_d, o_carrier_id, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
    FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
    WHERE o_w_id = p_w AND o_d_id = p_d AND o_id = v_o;
  COMMIT;
END"
);

/// Delivery (2.7.4), district by district in one transaction; its result is how many districts had
/// no undelivered order and were skipped (2.7.4.2).
const DELIVERY: &str = concat!(
    "CREATE PROCEDURE oltpgen_delivery(IN p_w INT, IN p_carrier INT)
BEGIN
  DECLARE d INT DEFAULT 1; DECLARE v_o INT; DECLARE v_c INT; DECLARE v_amount DECIMAL(12,2);
  DECLARE v_skipped INT DEFAULT 0; DECLARE v_now DATETIME(6) DEFAULT NOW(6);
  ",
    on_error!(),
    "
  START TRANSACTION;
  WHILE d <= 10 DO
    -- 2.7.4.2: the oldest undelivered order, locked and deleted. 3.4.1: when a concurrent Delivery
    -- deleted it while this one waited for its lock, the locking read goes on to the next oldest.
    SET v_o = NULL;
    SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF v_o IS NULL THEN
      SET v_skipped = v_skipped + 1;
    ELSE
      DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = d AND no_o_id = v_o;
      UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = d AND o_id = v_o;
      SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = d AND o_id = v_o;
      UPDATE order_line SET ol_delivery_d = v_now WHERE ol_w_id = p_w AND ol_d_id = d AND ol_o_id = v_o;
      SELECT COALESCE(SUM(ol_amount), 0) INTO v_amount FROM order_line
        WHERE ol_w_id = p_w AND ol_d_id = d AND ol_o_id = v_o;
      UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w AND c_d_id = d AND c_id = v_c;
    END IF;
    SET d = d + 1;
  END WHILE;
  COMMIT;
  SELECT v_skipped;
END"
);

/// Stock-Level (2.8.2): distinct items of the district's last 20 orders whose home stock is under the
/// threshold, in one statement.
const STOCK_LEVEL: &str = "CREATE PROCEDURE oltpgen_stock_level(IN p_w INT, IN p_d INT, IN p_threshold INT)
BEGIN
  SELECT COUNT(DISTINCT s_i_id) FROM district
    JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id
    JOIN stock ON s_w_id = d_w_id AND s_i_id = ol_i_id
    WHERE d_w_id = p_w AND d_id = p_d AND s_quantity < p_threshold;
END";

/// The statements that (re)create every procedure.
pub fn statements() -> Vec<String> {
    let bodies = [NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL];
    oltpgen_vocab::schema::replace_procedures(NAMES.into_iter().zip(bodies.map(String::from)))
}

/// A query that yields how many of the procedures exist in the connection's database.
pub fn count_existing() -> String {
    let names: Vec<String> = NAMES.iter().map(|n| format!("'{n}'")).collect();
    format!(
        "SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = DATABASE() \
         AND routine_type = 'PROCEDURE' AND routine_name IN ({})",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_writing_body_rolls_back_on_any_error() {
        for body in [NEW_ORDER, PAYMENT, DELIVERY] {
            assert!(body.contains(on_error!()), "{}", &body[..40]);
        }
        let created = oltpgen_vocab::schema::created_objects(&statements());
        let names: Vec<&str> = created.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, NAMES, "drop removes exactly what a load creates");
    }
}
