//! DS2's integrity checks in PostgreSQL's SQL. DS2 defines no consistency conditions of its own, so these
//! assert what its procedures guarantee about every order, loaded or bought during a run: the lines and
//! the customer history that go with it, stock that is never negative, and totals that add up.
//!
//! Each query returns the keys of the rows that break its condition, so a failure names where to look.

/// The queries of `oltpgen_driver::ds2::CHECKS`, in order: each yields one text column of offending keys.
pub const QUERIES: [&str; 4] = [
    // Loaded orders have 1..9 lines; a purchase has 1..10 (the reference's 10 slots).
    "SELECT format('orderid=%s lines=%s', o.orderid, coalesce(l.n, 0)) FROM orders o \
     LEFT JOIN (SELECT orderid, count(*) n FROM orderlines GROUP BY orderid) l ON l.orderid = o.orderid \
     WHERE coalesce(l.n, 0) NOT BETWEEN 1 AND 10 \
     UNION ALL \
     SELECT format('orderid=%s orderlineid=%s without its order', l.orderid, l.orderlineid) FROM orderlines l \
     WHERE NOT EXISTS (SELECT FROM orders o WHERE o.orderid = l.orderid)",
    // cust_hist has no line number, so lines and history rows are matched as counts per (order,
    // product, customer): a product bought twice in one order has two of each. Lines without an order
    // are ds2.1's to report; their history rows, matching no order's line, are reported here.
    "SELECT format('orderid=%s prod_id=%s customerid=%s lines=%s cust_hist=%s', \
       coalesce(l.orderid, h.orderid), coalesce(l.prod_id, h.prod_id), coalesce(l.customerid, h.customerid), \
       coalesce(l.n, 0), coalesce(h.n, 0)) \
     FROM (SELECT ol.orderid, ol.prod_id, o.customerid, count(*) n FROM orderlines ol \
       JOIN orders o ON o.orderid = ol.orderid GROUP BY 1, 2, 3) l \
     FULL JOIN (SELECT orderid, prod_id, customerid, count(*) n FROM cust_hist GROUP BY 1, 2, 3) h \
       ON h.orderid = l.orderid AND h.prod_id = l.prod_id AND h.customerid = l.customerid \
     WHERE l.n IS DISTINCT FROM h.n",
    "SELECT format('prod_id=%s quan_in_stock=%s sales=%s', prod_id, quan_in_stock, sales) FROM inventory \
     WHERE (quan_in_stock >= 0 AND sales >= 0) IS NOT TRUE",
    "SELECT format('orderid=%s netamount=%s tax=%s totalamount=%s', orderid, netamount, tax, totalamount) \
     FROM orders WHERE totalamount IS DISTINCT FROM netamount + tax",
];
