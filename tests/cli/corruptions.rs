//! One corruption per consistency check, as data: which check it must break, the SQL that breaks it on a
//! freshly loaded database, and the keys the check must name. Each corruption breaks its own check and no
//! other (where the conditions are coupled, the SQL repairs the coupled ones), so a test can assert that
//! every other check still passes. The SQL is plain SQL on the workloads' own tables, so another engine's
//! tests can reuse the table as it is.

/// A corruption of a freshly loaded database that exactly one check must catch.
pub struct Corruption {
    /// The check it breaks, as `check` prints it ("3.3.2.4", "ds2.1").
    pub check: &'static str,
    /// Statements that break it, run in order in one session.
    pub sql: &'static [&'static str],
    /// Keys the failing check must name among its examples.
    pub keys: &'static [&'static str],
}

/// TPC-C's twelve conditions of clause 3.3.2, on a fresh scale-1 load (4.3.3.1: every district holds
/// orders 1..=3000, orders 2101..=3000 undelivered with a NEW-ORDER row, delivered lines have
/// OL_AMOUNT = 0, each customer one HISTORY row of 10.00 in its own district). Deleting a delivered order
/// with its lines is invisible to every condition but 3.3.2.11 (its lines carry no amount), which is how
/// the corruptions of 3.3.2.3 and 3.3.2.5 keep 3.3.2.11 whole.
pub const TPCC: [Corruption; 12] = [
    Corruption {
        // A payment to a district that does not exist: the warehouse's YTD and history agree (3.3.2.8),
        // every real district still agrees with its history (3.3.2.9), but not the warehouse with its
        // districts.
        check: "3.3.2.1",
        sql: &[
            "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
             VALUES (1, 11, 1, 11, 1, CURRENT_TIMESTAMP, 5, 'corrupt')",
            "UPDATE warehouse SET w_ytd = w_ytd + 5 WHERE w_id = 1",
        ],
        keys: &["w_id=1"],
    },
    Corruption {
        check: "3.3.2.2",
        sql: &["UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 3"],
        keys: &["w_id=1 d_id=3"],
    },
    Corruption {
        // A gap in NEW-ORDER: order 2500 delivered out of turn (its carrier and delivery dates set, its
        // lines' amounts zero as a loaded delivered order's), and delivered order 1 removed so that the
        // district still holds 2100 delivered orders.
        check: "3.3.2.3",
        sql: &[
            "DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 4 AND no_o_id = 2500",
            "UPDATE orders SET o_carrier_id = 1 WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 2500",
            "UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP, ol_amount = 0 \
             WHERE ol_w_id = 1 AND ol_d_id = 4 AND ol_o_id = 2500",
            "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 4 AND ol_o_id = 1",
            "DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 1",
        ],
        keys: &["w_id=1 d_id=4"],
    },
    Corruption {
        // A line of an order that does not exist: no order's own line count (3.3.2.6) sees it.
        check: "3.3.2.4",
        sql: &["INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, \
                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) \
                VALUES (9999, 5, 1, 1, 1, 1, NULL, 5, 0, 'corrupt')"],
        keys: &["w_id=1 d_id=5"],
    },
    Corruption {
        // Undelivered order 2101 loses its NEW-ORDER row (still the lowest-numbered gapless run of
        // 2102..=3000), and delivered order 1 goes so that 2100 delivered orders remain.
        check: "3.3.2.5",
        sql: &[
            "DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 6 AND no_o_id = 2101",
            "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 6 AND ol_o_id = 1",
            "DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 6 AND o_id = 1",
        ],
        keys: &["w_id=1 d_id=6 o_id=2101"],
    },
    Corruption {
        // Two orders' line counts, wrong by one each way: the district's sum (3.3.2.4) still holds.
        check: "3.3.2.6",
        sql: &[
            "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 7 AND o_id = 1",
            "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 7 AND o_id = 2",
        ],
        keys: &["w_id=1 d_id=7 o_id=1", "w_id=1 d_id=7 o_id=2"],
    },
    Corruption {
        // A delivered line without its delivery date (its amount is zero, so no balance changes).
        check: "3.3.2.7",
        sql: &["UPDATE order_line SET ol_delivery_d = NULL \
                WHERE ol_w_id = 1 AND ol_d_id = 8 AND ol_o_id = 1 AND ol_number = 1"],
        keys: &["w_id=1 d_id=8 o_id=1 ol_number=1"],
    },
    Corruption {
        // A history row of a district and customer that do not exist: only the warehouse's sum sees it.
        check: "3.3.2.8",
        sql: &["INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
                VALUES (1, 11, 1, 11, 1, CURRENT_TIMESTAMP, 5, 'corrupt')"],
        keys: &["w_id=1"],
    },
    Corruption {
        // A payment booked to the wrong district of the same warehouse, for the same customer.
        check: "3.3.2.9",
        sql: &["UPDATE history SET h_d_id = 2 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1"],
        keys: &["w_id=1 d_id=1", "w_id=1 d_id=2"],
    },
    Corruption {
        // Balance and YTD payment moved together: their sum (3.3.2.12) still holds.
        check: "3.3.2.10",
        sql: &["UPDATE customer SET c_balance = c_balance + 1, c_ytd_payment = c_ytd_payment - 1 \
                WHERE c_w_id = 1 AND c_d_id = 9 AND c_id = 42"],
        keys: &["w_id=1 d_id=9 c_id=42"],
    },
    Corruption {
        // A delivered order gone with its lines (they carry no amount).
        check: "3.3.2.11",
        sql: &[
            "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 9 AND ol_o_id = 1",
            "DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 9 AND o_id = 1",
        ],
        keys: &["w_id=1 d_id=9"],
    },
    Corruption {
        // YTD payment alone: the balance (3.3.2.10) does not read it.
        check: "3.3.2.12",
        sql: &[
            "UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 10 AND c_id = 7",
        ],
        keys: &["w_id=1 d_id=10 c_id=7"],
    },
];

/// DS2's four integrity checks, on a fresh 10MB load (orders 1..=12000, each with its lines and one
/// cust_hist row per line).
pub const DS2: [Corruption; 4] = [
    Corruption {
        // An order stripped of its lines and, with them, of their history rows (so ds2.2 holds).
        check: "ds2.1",
        sql: &["DELETE FROM cust_hist WHERE orderid = 5", "DELETE FROM orderlines WHERE orderid = 5"],
        keys: &["orderid=5 lines=0"],
    },
    Corruption { check: "ds2.2", sql: &["DELETE FROM cust_hist WHERE orderid = 7"], keys: &["orderid=7 "] },
    Corruption {
        // Sales, not stock: the restock trigger puts any stock under 3 back up.
        check: "ds2.3",
        sql: &["UPDATE inventory SET sales = -1 WHERE prod_id = 3"],
        keys: &["prod_id=3 ", "sales=-1"],
    },
    Corruption {
        check: "ds2.4",
        sql: &["UPDATE orders SET totalamount = totalamount + 1 WHERE orderid = 9"],
        keys: &["orderid=9 "],
    },
];
