//! TPC-C's consistency conditions (clause 3.3.2) in SQL that SQL Server (T-SQL) and MySQL/MariaDB
//! both run as written, the same conditions as `oltpgen_pg::tpcc::check`'s: each query yields one text
//! column `k` with the keys of the rows that break its condition. Neither has `IS DISTINCT FROM` (SQL
//! Server before 2022) nor boolean comparison in common, so NULLs are spelled out and "exactly when"
//! becomes a comparison of two `CASE`s. Shared here, below the engines, so neither engine reaches into
//! the other.

/// The orders of warehouses `w.0..=w.1` with ids `o.0..=o.1`, each as `w_id,d_id,o_id,customer,lines` in
/// one text column `k` (as the checks yield theirs): what the database now holds of a run's acknowledged
/// New-Orders, read by every engine (PostgreSQL too) in this same SQL and compared by
/// `oltpgen_driver::lost_commits`.
pub fn orders_between(w: (u32, u32), o: (u32, u32)) -> String {
    format!(
        "SELECT CONCAT(o_w_id, ',', o_d_id, ',', o_id, ',', o_c_id, ',', o_ol_cnt) AS k FROM orders \
         WHERE o_w_id BETWEEN {} AND {} AND o_id BETWEEN {} AND {}",
        w.0, w.1, o.0, o.1
    )
}

/// One query per condition of `oltpgen_driver::tpcc::CHECKS`, in clause order 3.3.2.1 … 3.3.2.12.
pub const QUERIES: [&str; 12] = [
    // 3.3.2.1: W_YTD = sum(D_YTD)
    "SELECT CONCAT('w_id=', w_id) AS k FROM warehouse w \
     LEFT JOIN (SELECT d_w_id, SUM(d_ytd) s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id \
     WHERE d.s IS NULL OR w.w_ytd <> d.s",
    // 3.3.2.2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
    "SELECT CONCAT('w_id=', d_w_id, ' d_id=', d_id) AS k FROM district d \
     LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) m FROM orders GROUP BY o_w_id, o_d_id) o \
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
     LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) m FROM new_order GROUP BY no_w_id, no_d_id) n \
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id \
     WHERE o.m IS NULL OR o.m <> d.d_next_o_id - 1 OR (n.m IS NOT NULL AND n.m <> d.d_next_o_id - 1)",
    // 3.3.2.3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order) per district
    "SELECT CONCAT('w_id=', no_w_id, ' d_id=', no_d_id) AS k FROM new_order GROUP BY no_w_id, no_d_id \
     HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)",
    // 3.3.2.4: sum(O_OL_CNT) = count(order_line) per district
    "SELECT CONCAT('w_id=', d_w_id, ' d_id=', d_id) AS k FROM district d \
     LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) s FROM orders GROUP BY o_w_id, o_d_id) o \
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
     LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) c FROM order_line GROUP BY ol_w_id, ol_d_id) l \
       ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id \
     WHERE COALESCE(o.s, 0) <> COALESCE(l.c, 0)",
    // 3.3.2.5: O_CARRIER_ID is NULL exactly when a new_order row exists
    "SELECT CONCAT('w_id=', o_w_id, ' d_id=', o_d_id, ' o_id=', o_id) AS k FROM orders o \
     LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id \
     WHERE CASE WHEN o.o_carrier_id IS NULL THEN 1 ELSE 0 END <> CASE WHEN n.no_o_id IS NULL THEN 0 ELSE 1 END",
    // 3.3.2.6: O_OL_CNT = number of the order's lines
    "SELECT CONCAT('w_id=', o_w_id, ' d_id=', o_d_id, ' o_id=', o_id) AS k FROM orders o \
     LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) c FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l \
       ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id \
     WHERE o.o_ol_cnt <> COALESCE(l.c, 0)",
    // 3.3.2.7: OL_DELIVERY_D is NULL exactly when the order's O_CARRIER_ID is NULL
    "SELECT CONCAT('w_id=', ol_w_id, ' d_id=', ol_d_id, ' o_id=', ol_o_id, ' ol_number=', ol_number) AS k \
     FROM order_line l JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id \
     WHERE CASE WHEN l.ol_delivery_d IS NULL THEN 1 ELSE 0 END <> CASE WHEN o.o_carrier_id IS NULL THEN 1 ELSE 0 END",
    // 3.3.2.8: W_YTD = sum(H_AMOUNT) per warehouse
    "SELECT CONCAT('w_id=', w_id) AS k FROM warehouse w \
     LEFT JOIN (SELECT h_w_id, SUM(h_amount) s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id \
     WHERE h.s IS NULL OR w.w_ytd <> h.s",
    // 3.3.2.9: D_YTD = sum(H_AMOUNT) per district
    "SELECT CONCAT('w_id=', d_w_id, ' d_id=', d_id) AS k FROM district d \
     LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM history GROUP BY h_w_id, h_d_id) h \
       ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id \
     WHERE h.s IS NULL OR d.d_ytd <> h.s",
    // 3.3.2.10: C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) per customer
    "SELECT CONCAT('w_id=', c_w_id, ' d_id=', c_d_id, ' c_id=', c_id) AS k FROM customer c \
     LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) s FROM orders \
       JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
       WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) ol \
       ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id \
     LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) s FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h \
       ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id \
     WHERE c.c_balance <> COALESCE(ol.s, 0) - COALESCE(h.s, 0)",
    // 3.3.2.11: count(orders) - count(new_order) = 2100 per district (fresh database only)
    "SELECT CONCAT('w_id=', d_w_id, ' d_id=', d_id) AS k FROM district d \
     LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) c FROM orders GROUP BY o_w_id, o_d_id) o \
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
     LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) c FROM new_order GROUP BY no_w_id, no_d_id) n \
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id \
     WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100",
    // 3.3.2.12: C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) per customer
    "SELECT CONCAT('w_id=', c_w_id, ' d_id=', c_d_id, ' c_id=', c_id) AS k FROM customer c \
     LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) s FROM orders \
       JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
       WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) ol \
       ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id \
     WHERE c.c_balance + c.c_ytd_payment <> COALESCE(ol.s, 0)",
];

/// The rows of the sampled `warehouses` a table keeps in `tpcc check --sample`, as a `WHERE` filter on
/// the table's own columns; `None` for a table no condition narrows (`item`, `stock`). `history` is kept
/// where the paying or the paid customer's warehouse is sampled, which each condition's join narrows to
/// its own.
fn sample_filter(table: &str, list: &str) -> Option<String> {
    Some(match table {
        "warehouse" => format!("w_id IN ({list})"),
        "district" => format!("d_w_id IN ({list})"),
        "customer" => format!("c_w_id IN ({list})"),
        "history" => format!("h_w_id IN ({list}) OR h_c_w_id IN ({list})"),
        "orders" => format!("o_w_id IN ({list})"),
        "new_order" => format!("no_w_id IN ({list})"),
        "order_line" => format!("ol_w_id IN ({list})"),
        _ => return None,
    })
}

/// One of [`QUERIES`] restricted to the rows of `warehouses` (`tpcc check --sample`): each table it
/// reads after `FROM` or `JOIN` becomes a derived table of that table's sampled rows under the same name
/// (or the alias the query gives it). A derived table rather than PostgreSQL's shadowing CTE: SQL
/// Server takes a CTE naming itself for a recursive one, and neither engine takes a `WITH` inside the
/// derived table the check runner wraps each query in. Exact for every per-warehouse condition.
pub fn sampled(query: &str, warehouses: &[u32]) -> String {
    let list = warehouses.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let words: Vec<&str> = query.split_whitespace().collect();
    let no_alias = |next: Option<&&str>| {
        next.is_none_or(|w| {
            w.starts_with(')') || ["GROUP", "JOIN", "LEFT", "WHERE", "ON", "HAVING", "ORDER"].contains(w)
        })
    };
    let mut out = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let after_from = i > 0 && ["FROM", "JOIN"].contains(&words[i - 1]);
        match sample_filter(word, &list).filter(|_| after_from) {
            Some(filter) if no_alias(words.get(i + 1)) => {
                out.push(format!("(SELECT * FROM {word} WHERE {filter}) {word}"));
            }
            Some(filter) => out.push(format!("(SELECT * FROM {word} WHERE {filter})")),
            None => out.push((*word).to_string()),
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_a_condition_reads_is_narrowed_to_the_sample_under_its_own_name() {
        let q = sampled(QUERIES[9], &[2, 5]);
        assert!(q.contains("FROM (SELECT * FROM customer WHERE c_w_id IN (2, 5)) c LEFT"), "{q}");
        assert!(q.contains("FROM (SELECT * FROM orders WHERE o_w_id IN (2, 5)) orders JOIN"), "{q}");
        assert!(q.contains("JOIN (SELECT * FROM order_line WHERE ol_w_id IN (2, 5)) order_line ON"), "{q}");
        assert!(q.contains("h_w_id IN (2, 5) OR h_c_w_id IN (2, 5)) history GROUP"), "{q}");
        for query in QUERIES {
            let q = sampled(query, &[1]);
            let tables =
                ["warehouse", "district", "customer", "history", "orders", "new_order", "order_line"];
            for t in tables {
                assert!(
                    !q.contains(&format!("FROM {t} ")) || q.contains(&format!("SELECT * FROM {t} WHERE")),
                    "{q}"
                );
                assert_eq!(
                    q.matches(&format!("FROM {t} WHERE")).count(),
                    query
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .windows(2)
                        .filter(|w| ["FROM", "JOIN"].contains(&w[0]) && w[1] == t)
                        .count(),
                    "{t} in {q}"
                );
            }
        }
    }
}
