//! TPC-C consistency conditions (clause 3.3.2) in PostgreSQL's SQL.
//!
//! Each query returns the keys of the rows that break its condition, so a failure names where to look.

/// One query per condition of `oltpgen_driver::tpcc::CHECKS`, in clause order 3.3.2.1 … 3.3.2.12; each yields
/// one text column of offending keys.
pub const QUERIES: [&str; 12] = [
    // 3.3.2.1: W_YTD = sum(D_YTD)
    "SELECT format('w_id=%s', w_id) FROM warehouse w \
     LEFT JOIN (SELECT d_w_id, sum(d_ytd) s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id \
     WHERE w.w_ytd IS DISTINCT FROM d.s",
    // 3.3.2.2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
    "SELECT format('w_id=%s d_id=%s', d_w_id, d_id) FROM district d \
     LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) m FROM orders GROUP BY 1, 2) o \
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
     LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) m FROM new_order GROUP BY 1, 2) n \
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id \
     WHERE o.m IS DISTINCT FROM d.d_next_o_id - 1 OR (n.m IS NOT NULL AND n.m <> d.d_next_o_id - 1)",
    // 3.3.2.3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order) per district
    "SELECT format('w_id=%s d_id=%s', no_w_id, no_d_id) FROM new_order GROUP BY no_w_id, no_d_id \
     HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)",
    // 3.3.2.4: sum(O_OL_CNT) = count(order_line) per district
    "SELECT format('w_id=%s d_id=%s', d_w_id, d_id) FROM district d \
     LEFT JOIN (SELECT o_w_id, o_d_id, sum(o_ol_cnt) s FROM orders GROUP BY 1, 2) o \
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
     LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) c FROM order_line GROUP BY 1, 2) l \
       ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id \
     WHERE coalesce(o.s, 0) <> coalesce(l.c, 0)",
    // 3.3.2.5: O_CARRIER_ID is NULL exactly when a new_order row exists
    "SELECT format('w_id=%s d_id=%s o_id=%s', o_w_id, o_d_id, o_id) FROM orders o \
     LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id \
     WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)",
    // 3.3.2.6: O_OL_CNT = number of the order's lines
    "SELECT format('w_id=%s d_id=%s o_id=%s', o_w_id, o_d_id, o_id) FROM orders o \
     LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) c FROM order_line GROUP BY 1, 2, 3) l \
       ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id \
     WHERE o.o_ol_cnt <> coalesce(l.c, 0)",
    // 3.3.2.7: OL_DELIVERY_D is NULL exactly when the order's O_CARRIER_ID is NULL
    "SELECT format('w_id=%s d_id=%s o_id=%s ol_number=%s', ol_w_id, ol_d_id, ol_o_id, ol_number) \
     FROM order_line l JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id \
     WHERE (l.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)",
    // 3.3.2.8: W_YTD = sum(H_AMOUNT) per warehouse
    "SELECT format('w_id=%s', w_id) FROM warehouse w \
     LEFT JOIN (SELECT h_w_id, sum(h_amount) s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id \
     WHERE w.w_ytd IS DISTINCT FROM h.s",
    // 3.3.2.9: D_YTD = sum(H_AMOUNT) per district
    "SELECT format('w_id=%s d_id=%s', d_w_id, d_id) FROM district d \
     LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) s FROM history GROUP BY 1, 2) h \
       ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id \
     WHERE d.d_ytd IS DISTINCT FROM h.s",
    // 3.3.2.10: C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) per customer
    "SELECT format('w_id=%s d_id=%s c_id=%s', c_w_id, c_d_id, c_id) FROM customer c \
     LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, sum(ol_amount) s FROM orders \
       JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
       WHERE ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3) ol \
       ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id \
     LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, sum(h_amount) s FROM history GROUP BY 1, 2, 3) h \
       ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id \
     WHERE c.c_balance <> coalesce(ol.s, 0) - coalesce(h.s, 0)",
    // 3.3.2.11: count(orders) - count(new_order) = 2100 per district (fresh database only)
    "SELECT format('w_id=%s d_id=%s', d_w_id, d_id) FROM district d \
     LEFT JOIN (SELECT o_w_id, o_d_id, count(*) c FROM orders GROUP BY 1, 2) o \
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
     LEFT JOIN (SELECT no_w_id, no_d_id, count(*) c FROM new_order GROUP BY 1, 2) n \
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id \
     WHERE coalesce(o.c, 0) - coalesce(n.c, 0) <> 2100",
    // 3.3.2.12: C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) per customer
    "SELECT format('w_id=%s d_id=%s c_id=%s', c_w_id, c_d_id, c_id) FROM customer c \
     LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, sum(ol_amount) s FROM orders \
       JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
       WHERE ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3) ol \
       ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id \
     WHERE c.c_balance + c.c_ytd_payment <> coalesce(ol.s, 0)",
];

/// `query` restricted to the rows of `warehouses`: each TPC-C table it reads is shadowed by a
/// common table expression of the same name holding only those warehouses' rows (a non-recursive CTE's
/// own name inside it is the table), inlined so that the key's leading `w_id` finds them by index.
/// Exact for every per-warehouse condition: history is kept where the paying or the paid customer's
/// warehouse is sampled, which each condition's join narrows to its own.
pub fn sampled(query: &str, warehouses: &[u32]) -> String {
    let list = warehouses.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let only = |table: &str, filter: String| {
        format!("{table} AS NOT MATERIALIZED (SELECT * FROM {table} WHERE {filter})")
    };
    let tables = [
        only("warehouse", format!("w_id IN ({list})")),
        only("district", format!("d_w_id IN ({list})")),
        only("customer", format!("c_w_id IN ({list})")),
        only("history", format!("h_w_id IN ({list}) OR h_c_w_id IN ({list})")),
        only("orders", format!("o_w_id IN ({list})")),
        only("new_order", format!("no_w_id IN ({list})")),
        only("order_line", format!("ol_w_id IN ({list})")),
    ];
    format!("WITH {} {query}", tables.join(", "))
}
