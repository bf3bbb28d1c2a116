//! DS2's integrity checks in T-SQL: the conditions of `oltpgen_driver::ds2::CHECKS`, as PostgreSQL's
//! (`oltpgen_pg::ds2::check`) say them, each query yielding one text column `k` of offending keys; all
//! but ds2.2 are the ones MySQL runs too ([`oltpgen_vocab::ds2_checks`]). They read only columns both
//! oltpgen's tables and DS2's own SQL Server tables have (`MONEY` and `DATETIME` there, `DECIMAL` and
//! `DATETIME2` here), so they check a database DS2's installer built too.

use oltpgen_vocab::ds2_checks::{ORDER_LINES, STOCK, TOTALS};

/// The queries of `oltpgen_driver::ds2::CHECKS`, in order.
pub const QUERIES: [&str; 4] = [
    ORDER_LINES,
    // Lines and history rows matched as counts per (order, product, customer), as on PostgreSQL.
    "SELECT CONCAT('orderid=', COALESCE(l.orderid, h.orderid), ' prod_id=', COALESCE(l.prod_id, h.prod_id), \
       ' customerid=', COALESCE(l.customerid, h.customerid), ' lines=', COALESCE(l.n, 0), \
       ' cust_hist=', COALESCE(h.n, 0)) AS k \
     FROM (SELECT ol.orderid, ol.prod_id, o.customerid, COUNT(*) AS n FROM orderlines ol \
       JOIN orders o ON o.orderid = ol.orderid GROUP BY ol.orderid, ol.prod_id, o.customerid) l \
     FULL JOIN (SELECT orderid, prod_id, customerid, COUNT(*) AS n FROM cust_hist \
       GROUP BY orderid, prod_id, customerid) h \
       ON h.orderid = l.orderid AND h.prod_id = l.prod_id AND h.customerid = l.customerid \
     WHERE l.n IS NULL OR h.n IS NULL OR l.n <> h.n",
    STOCK,
    TOTALS,
];
