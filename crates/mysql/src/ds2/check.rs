//! DS2's integrity checks in MySQL's SQL: the conditions of `oltpgen_driver::ds2::CHECKS`, as PostgreSQL's
//! (`oltpgen_pg::ds2::check`) say them, each query yielding one text column `k` of offending keys; all
//! but ds2.2 are the ones SQL Server runs too ([`oltpgen_vocab::ds2_checks`]). MySQL has no `FULL
//! JOIN`: ds2.2 is the union of the two one-sided joins.

use oltpgen_vocab::ds2_checks::{ORDER_LINES, STOCK, TOTALS};

/// The queries of `oltpgen_driver::ds2::CHECKS`, in order.
pub const QUERIES: [&str; 4] = [
    ORDER_LINES,
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
    STOCK,
    TOTALS,
];
