//! DS2's integrity checks in MySQL's SQL: the conditions of [`crate::ds2::CHECKS`], as PostgreSQL's
//! ([`crate::pg::ds2::check`]) say them, each query yielding one text column `k` of offending keys.
//! MySQL has no `FULL JOIN`: the second check is the union of the two one-sided joins.

/// The queries of [`crate::ds2::CHECKS`], in order.
pub const QUERIES: [&str; 4] = [
    // Loaded orders have 1..9 lines; a purchase has 1..10 (DS2's 10 slots).
    "SELECT CONCAT('orderid=', o.orderid, ' lines=', COALESCE(l.n, 0)) AS k FROM orders o \
     LEFT JOIN (SELECT orderid, COUNT(*) AS n FROM orderlines GROUP BY orderid) l ON l.orderid = o.orderid \
     WHERE COALESCE(l.n, 0) NOT BETWEEN 1 AND 10 \
     UNION ALL \
     SELECT CONCAT('orderid=', l.orderid, ' orderlineid=', l.orderlineid, ' without its order') FROM orderlines l \
     WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.orderid = l.orderid)",
    // Lines and history rows matched as counts per (order, product, customer), as on PostgreSQL.
    "SELECT CONCAT('orderid=', l.orderid, ' prod_id=', l.prod_id, ' customerid=', l.customerid, ' lines=', l.n, \
       ' cust_hist=', COALESCE(h.n, 0)) AS k \
     FROM (SELECT ol.orderid, ol.prod_id, o.customerid, COUNT(*) AS n FROM orderlines ol \
       JOIN orders o ON o.orderid = ol.orderid GROUP BY ol.orderid, ol.prod_id, o.customerid) l \
     LEFT JOIN (SELECT orderid, prod_id, customerid, COUNT(*) AS n FROM cust_hist \
       GROUP BY orderid, prod_id, customerid) h \
       ON h.orderid = l.orderid AND h.prod_id = l.prod_id AND h.customerid = l.customerid \
     WHERE h.n IS NULL OR l.n <> h.n \
     UNION ALL \
     SELECT CONCAT('orderid=', h.orderid, ' prod_id=', h.prod_id, ' customerid=', h.customerid, ' lines=0', \
       ' cust_hist=', h.n) \
     FROM (SELECT orderid, prod_id, customerid, COUNT(*) AS n FROM cust_hist GROUP BY orderid, prod_id, customerid) h \
     WHERE NOT EXISTS (SELECT 1 FROM orderlines ol JOIN orders o ON o.orderid = ol.orderid \
       WHERE ol.orderid = h.orderid AND ol.prod_id = h.prod_id AND o.customerid = h.customerid)",
    "SELECT CONCAT('prod_id=', prod_id, ' quan_in_stock=', quan_in_stock, ' sales=', sales) AS k FROM inventory \
     WHERE COALESCE(quan_in_stock, -1) < 0 OR COALESCE(sales, -1) < 0",
    "SELECT CONCAT('orderid=', orderid, ' netamount=', netamount, ' tax=', tax, ' totalamount=', totalamount) AS k \
     FROM orders WHERE CASE WHEN totalamount = netamount + tax THEN 1 ELSE 0 END = 0",
];
