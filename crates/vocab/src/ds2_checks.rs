//! DS2's integrity checks in SQL that SQL Server (T-SQL) and MySQL/MariaDB both run as written: the
//! conditions of `oltpgen_driver::ds2::CHECKS` as `oltpgen_pg::ds2::check` says them, each query yielding one
//! text column `k` of offending keys. Only ds2.2 differs between the two (MySQL has no `FULL JOIN`), so
//! each engine's list takes the other three from here, and neither engine reaches into the other.

/// ds2.1: loaded orders have 1..9 lines, a purchase 1..10 (DS2's 10 slots); no line without its order.
pub const ORDER_LINES: &str = "SELECT CONCAT('orderid=', o.orderid, ' lines=', COALESCE(l.n, 0)) AS k FROM orders o \
     LEFT JOIN (SELECT orderid, COUNT(*) AS n FROM orderlines GROUP BY orderid) l ON l.orderid = o.orderid \
     WHERE COALESCE(l.n, 0) NOT BETWEEN 1 AND 10 \
     UNION ALL \
     SELECT CONCAT('orderid=', l.orderid, ' orderlineid=', l.orderlineid, ' without its order') FROM orderlines l \
     WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.orderid = l.orderid)";

/// ds2.3: no product's stock or sales is negative (or missing).
pub const STOCK: &str = "SELECT CONCAT('prod_id=', prod_id, ' quan_in_stock=', quan_in_stock, ' sales=', sales) AS k \
     FROM inventory WHERE COALESCE(quan_in_stock, -1) < 0 OR COALESCE(sales, -1) < 0";

/// ds2.4: every order's total is its net amount plus tax (a NULL amount counts as wrong).
pub const TOTALS: &str = "SELECT CONCAT('orderid=', orderid, ' netamount=', netamount, ' tax=', tax, ' totalamount=', \
     totalamount) AS k FROM orders WHERE CASE WHEN totalamount = netamount + tax THEN 1 ELSE 0 END = 0";

/// The orders with ids `lo..=hi`, each as `orderid,customerid,lines` in one text column `k` (as the checks
/// yield theirs): what the database now holds of a run's acknowledged purchases, read by every engine
/// (PostgreSQL too) in this same SQL and compared by `oltpgen_driver::lost_commits`.
pub fn purchases_between(lo: u32, hi: u32) -> String {
    format!(
        "SELECT CONCAT(o.orderid, ',', o.customerid, ',', \
         (SELECT COUNT(*) FROM orderlines l WHERE l.orderid = o.orderid)) AS k \
         FROM orders o WHERE o.orderid BETWEEN {lo} AND {hi}"
    )
}
