//! Recognising a DS2 database that DS2's own installer built (`ds2/pgsqlds2/pgsqlds2_create_all.sh` in
//! dvdstore/ds21): its eight tables and its five functions, without oltpgen's metadata. Such a database
//! is driven through the functions it has ([`Functions::Reference`](oltpgen_vocab::ds2::Functions::Reference)), and its id ranges
//! are read from its data, since no load recorded them.

use tokio_postgres::Client;

use crate::failed;
use oltpgen_vocab::ds2::ReferenceDatabase;
use oltpgen_vocab::{Error, Target};

/// Whether the reference's functions are all there (six names) with its signatures: `login` returning refcursors,
/// `new_customer` of 19 parameters, the three browses of 2, `purchase` of 25.
const FUNCTIONS: &str = "SELECT count(DISTINCT p.proname) = 6 FROM pg_proc p \
     JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = current_schema() \
     WHERE (p.proname = 'login' AND p.pronargs = 2 AND p.proretset AND p.prorettype = 'refcursor'::regtype) \
        OR (p.proname = 'new_customer' AND p.pronargs = 19) \
        OR (p.proname IN ('browse_by_category', 'browse_by_actor', 'browse_by_title') AND p.pronargs = 2) \
        OR (p.proname = 'purchase' AND p.pronargs = 25)";

/// The loaded id ranges: DS2's loaded customers are `user<customerid>` with ids from 1 (registrations,
/// `newuser<n>`, come after them), products and orders are numbered from 1.
const COUNTS: &str = "SELECT (SELECT coalesce(max(customerid), 0) FROM customers WHERE username NOT LIKE 'newuser%'), \
     (SELECT coalesce(max(prod_id), 0) FROM products), (SELECT coalesce(max(orderid), 0) FROM orders)";

/// The reference database in `target`, or `None` when its functions are not DS2's own.
///
/// # Errors
/// [`Error::Failed`] when the catalog or the tables cannot be read.
pub async fn find(client: &Client, target: &Target) -> Result<Option<ReferenceDatabase>, Error> {
    let reference: bool = client
        .query_one(FUNCTIONS, &[])
        .await
        .map_err(|e| failed("reading the DS2 functions", target, &e))?
        .get(0);
    if !reference {
        return Ok(None);
    }
    let row = client.query_one(COUNTS, &[]).await.map_err(|e| failed("counting the DS2 data", target, &e))?;
    Ok(Some(ReferenceDatabase { customers: row.get(0), products: row.get(1), orders: row.get(2) }))
}
