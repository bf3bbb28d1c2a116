//! Recognising a DS2 database that DS2's own installer built on SQL Server
//! (`ds2/sqlserverds2/sqlserverds2_create_all_*.sql` in dvdstore/ds21): its eight tables and its six
//! procedures with their parameter counts, without oltpgen's metadata. Such a database is driven through
//! the procedures it has ([`Functions::Reference`](oltpgen_vocab::ds2::Functions::Reference)) and its id ranges are read from its
//! data, into the same engine-neutral [`ReferenceDatabase`] as PostgreSQL's lookup.

use super::super::Conn;
use oltpgen_vocab::ds2::ReferenceDatabase;
use oltpgen_vocab::{Error, Target};

/// 1 when DS2's procedures are all there with DS2's parameter counts: `LOGIN` 2, `NEW_CUSTOMER` 19, the
/// three browses 2, `PURCHASE` 25 (names compare as the database's collation does).
const PROCEDURES: &str = "SELECT CASE WHEN COUNT(*) = 6 THEN 1 ELSE 0 END FROM (\
     SELECT o.name, COUNT(a.name) AS n FROM sys.objects o LEFT JOIN sys.all_parameters a ON a.object_id = o.object_id \
     WHERE o.type = 'P' AND o.schema_id = SCHEMA_ID() \
       AND o.name IN ('LOGIN', 'NEW_CUSTOMER', 'BROWSE_BY_CATEGORY', 'BROWSE_BY_ACTOR', 'BROWSE_BY_TITLE', 'PURCHASE') \
     GROUP BY o.name) p \
     WHERE (p.name IN ('LOGIN', 'BROWSE_BY_CATEGORY', 'BROWSE_BY_ACTOR', 'BROWSE_BY_TITLE') AND p.n = 2) \
        OR (p.name = 'NEW_CUSTOMER' AND p.n = 19) OR (p.name = 'PURCHASE' AND p.n = 25)";

/// The loaded id ranges: DS2's loaded customers are `user<customerid>` from 1 (registrations,
/// `newuser<n>`, come after them); products and orders are numbered from 1.
const COUNTS: &str = "SELECT (SELECT COALESCE(MAX(customerid), 0) FROM customers WHERE username NOT LIKE 'newuser%'), \
     (SELECT COALESCE(MAX(prod_id), 0) FROM products), (SELECT COALESCE(MAX(orderid), 0) FROM orders)";

/// The reference database in `target`, or `None` when its procedures are not DS2's.
///
/// # Errors
/// [`Error::Failed`] when the catalog or the tables cannot be read.
pub async fn find(conn: &Conn, target: &Target) -> Result<Option<ReferenceDatabase>, Error> {
    let rows = conn.batch(target, "reading the DS2 procedures", PROCEDURES).await?;
    if rows.first().and_then(|r| r.first()).and_then(|r| r.get::<i32, _>(0)) != Some(1) {
        return Ok(None);
    }
    let rows = conn.batch(target, "counting the DS2 data", COUNTS).await?;
    let row = rows.first().and_then(|r| r.first()).ok_or_else(|| Error::failed("no DS2 counts"))?;
    let int = |i: usize| row.get::<i32, _>(i).unwrap_or(0);
    Ok(Some(ReferenceDatabase { customers: int(0), products: int(1), orders: int(2) }))
}
