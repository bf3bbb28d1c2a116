//! DS2's integrity checks in PostgreSQL's SQL. DS2 defines no consistency conditions of its own, so these
//! assert what its procedures guarantee about every order, loaded or bought during a run: the lines and
//! the customer history that go with it, stock that is never negative, and totals that add up.
//!
//! Each query returns the keys of the rows that break its condition, so a failure names where to look.

use tokio_postgres::Client;

use super::offending;
use crate::{Error, Target};

/// The checks, in order, as (name, what it asserts in one line, query yielding one text column of
/// offending keys).
pub const CHECKS: [(&str, &str, &str); 4] = [
    (
        "ds2.1",
        "every order has 1 to 10 lines, and every line belongs to an order",
        // Loaded orders have 1..9 lines; a purchase has 1..10 (the reference's 10 slots).
        "SELECT format('orderid=%s lines=%s', o.orderid, coalesce(l.n, 0)) FROM orders o \
         LEFT JOIN (SELECT orderid, count(*) n FROM orderlines GROUP BY orderid) l ON l.orderid = o.orderid \
         WHERE coalesce(l.n, 0) NOT BETWEEN 1 AND 10 \
         UNION ALL \
         SELECT format('orderid=%s orderlineid=%s without its order', l.orderid, l.orderlineid) FROM orderlines l \
         WHERE NOT EXISTS (SELECT FROM orders o WHERE o.orderid = l.orderid)",
    ),
    (
        "ds2.2",
        "every order line has its cust_hist row with the order's customer, and every cust_hist row its line",
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
    ),
    (
        "ds2.3",
        "no product's stock or sales is negative",
        "SELECT format('prod_id=%s quan_in_stock=%s sales=%s', prod_id, quan_in_stock, sales) FROM inventory \
         WHERE (quan_in_stock >= 0 AND sales >= 0) IS NOT TRUE",
    ),
    (
        "ds2.4",
        "every order's total is its net amount plus tax",
        "SELECT format('orderid=%s netamount=%s tax=%s totalamount=%s', orderid, netamount, tax, totalamount) \
         FROM orders WHERE totalamount IS DISTINCT FROM netamount + tax",
    ),
];

/// Runs check `index` (0-based, into [`CHECKS`]): the number of offending rows and up to `examples` of
/// their keys.
///
/// # Errors
/// [`Error::Failed`] when the query fails.
pub async fn violations(
    client: &Client,
    target: &Target,
    index: usize,
    examples: i64,
) -> Result<(u64, Vec<String>), Error> {
    let (name, _, query) = CHECKS[index];
    offending(client, target, &format!("integrity check {name}"), query, examples).await
}
