//! The five TPC-C transactions server-side: PL/pgSQL functions (`procs.sql`, what HammerDB calls stored
//! procedures), each called with one prepared statement, so one round trip per transaction.
//!
//! The functions are created at load and, on a database loaded before they existed or with an older
//! version of them, at the start of a run ([`ensure`]): `procs.sql` is versioned by a hash of its own
//! text, which a function `oltpgen_tpcc_procs_version()` returns. The client only binds the inputs
//! (the New-Order lines as arrays, with each line's stock pass as the client-side version computes it)
//! and reads the outcome: the 1% rollback arrives as the functions' own SQLSTATE and is the expected
//! outcome, not an error; Delivery returns its skipped districts.

use oltpgen_datagen::tpcc::input::{
    CustomerSelector, DeliveryInput, NewOrderInput, OrderStatusInput, PaymentInput, StockLevelInput, TxnInput,
};
use tokio_postgres::{Client, Error, Statement};

use super::txn;
use oltpgen_vocab::outcome::Done;
use oltpgen_vocab::tpcc::Outcome;

/// The functions' definitions.
const SQL: &str = include_str!("procs.sql");

/// The SQLSTATE New-Order raises when an unused item rolls it back (2.4.2.3): `OLRB1`.
const ROLLED_BACK: &str = "OLRB1";

/// Serializes installs by concurrent runs (`pg_advisory_xact_lock`'s key: "oltpgen" in ASCII).
const INSTALL_LOCK: i64 = 0x006f_6c74_7067_656e;

/// The version of the functions' definitions (`procs.sql`): FNV-1a of their text, so any edit makes a
/// new version.
pub fn version() -> String {
    let hash =
        SQL.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

/// Every statement that creates the functions (and the version function naming them), for a load's
/// finishing DDL or a run's [`ensure`]: one script, run in one transaction.
pub fn install_statements() -> Vec<String> {
    vec![format!(
        "SELECT pg_advisory_xact_lock({INSTALL_LOCK});\n{SQL}\n\
         CREATE FUNCTION oltpgen_tpcc_procs_version() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT '{}' $$;",
        version()
    )]
}

/// The version of the functions `client`'s database holds, if any.
async fn installed(client: &Client) -> Result<Option<String>, Error> {
    let row = client
        .query_one(
            "SELECT CASE WHEN to_regproc('oltpgen_tpcc_procs_version') IS NOT NULL \
               THEN (SELECT prosrc FROM pg_proc WHERE oid = to_regproc('oltpgen_tpcc_procs_version')) END",
            &[],
        )
        .await?;
    Ok(row.get::<_, Option<String>>(0))
}

/// Creates the functions on `client`'s database when they are missing or of another version (a
/// database loaded before they existed, or by another oltpgen); returns whether it did.
///
/// # Errors
/// The server's error (e.g. no right to create functions in the schema).
pub async fn ensure(client: &Client) -> Result<bool, Error> {
    let want = version();
    if installed(client).await?.is_some_and(|body| body.contains(&want)) {
        return Ok(false);
    }
    let script = install_statements().concat();
    // One simple-protocol message: its statements run as one implicit transaction.
    client.batch_execute(&script).await?;
    Ok(true)
}

/// The five calls, prepared once per connection.
pub struct Calls {
    new_order: Statement,
    payment: Statement,
    order_status: Statement,
    delivery: Statement,
    stock_level: Statement,
}

impl Calls {
    /// Prepares the calls on `client` (pipelined: one round trip for all).
    ///
    /// # Errors
    /// The server's error when a function is missing (see [`ensure`]).
    pub async fn prepare(client: &Client) -> Result<Self, Error> {
        let (new_order, payment, order_status, delivery, stock_level) = tokio::join!(
            client.prepare("SELECT oltpgen_tpcc_new_order($1, $2, $3, $4, $5, $6, $7, $8, $9)"),
            client.prepare("SELECT oltpgen_tpcc_payment($1, $2, $3, $4, $5, $6, $7)"),
            client.prepare("SELECT * FROM oltpgen_tpcc_order_status($1, $2, $3, $4)"),
            client.prepare("SELECT oltpgen_tpcc_delivery($1, $2)"),
            client.prepare("SELECT oltpgen_tpcc_stock_level($1, $2, $3)"),
        );
        Ok(Calls {
            new_order: new_order?,
            payment: payment?,
            order_status: order_status?,
            delivery: delivery?,
            stock_level: stock_level?,
        })
    }
}

/// Runs one transaction as one function call: committed, rolled back as the spec asks, or failed (the
/// call's implicit transaction then rolled back whole).
///
/// # Errors
/// The server's error.
pub async fn execute(client: &Client, calls: &Calls, input: &TxnInput) -> Result<Outcome, Error> {
    match input {
        TxnInput::NewOrder(i) => new_order(client, calls, i).await,
        TxnInput::Payment(i) => payment(client, calls, i).await,
        TxnInput::OrderStatus(i) => order_status(client, calls, i).await,
        TxnInput::Delivery(i) => delivery(client, calls, i).await,
        TxnInput::StockLevel(i) => stock_level(client, calls, i).await,
    }
}

/// A customer selector as the functions take it: an id, or a last name (the id then unused).
fn customer(c: &CustomerSelector) -> (i32, Option<&str>) {
    match c {
        CustomerSelector::ById(id) => (*id as i32, None),
        CustomerSelector::ByLastName(name) => (0, Some(name.as_str())),
    }
}

async fn new_order(client: &Client, calls: &Calls, i: &NewOrderInput) -> Result<Outcome, Error> {
    let (w, d, c, all_local) = (i.w_id as i32, i.d_id as i32, i.c_id as i32, i32::from(i.all_local));
    let (pass_of, passes) = txn::stock_passes(&i.lines);
    let items: Vec<i32> = i.lines.iter().map(|l| l.i_id as i32).collect();
    let supply: Vec<i32> = i.lines.iter().map(|l| l.supply_w_id as i32).collect();
    let qty: Vec<i32> = i.lines.iter().map(|l| l.quantity as i32).collect();
    let pass: Vec<i32> = pass_of[..i.lines.len()].iter().map(|&p| i32::from(p)).collect();
    let passes = passes as i32;
    match client
        .query_one(&calls.new_order, &[&w, &d, &c, &items, &supply, &qty, &pass, &passes, &all_local])
        .await
    {
        Ok(row) => Ok(Outcome { o_id: Some(row.get::<_, i32>(0) as u32), ..Outcome::COMMITTED }),
        // 2.4.2.3: the expected rollback, after the order was entered.
        Err(e) if e.code().is_some_and(|c| c.code() == ROLLED_BACK) => {
            Ok(Outcome { done: Done { rolled_back: true }, ..Outcome::COMMITTED })
        }
        Err(e) => Err(e),
    }
}

async fn payment(client: &Client, calls: &Calls, i: &PaymentInput) -> Result<Outcome, Error> {
    let (w, d, cw, cd) = (i.w_id as i32, i.d_id as i32, i.c_w_id as i32, i.c_d_id as i32);
    let (id, last) = customer(&i.customer);
    client.query_one(&calls.payment, &[&w, &d, &cw, &cd, &id, &last, &i.h_amount_cents]).await?;
    Ok(Outcome::COMMITTED)
}

async fn order_status(client: &Client, calls: &Calls, i: &OrderStatusInput) -> Result<Outcome, Error> {
    let (w, d) = (i.w_id as i32, i.d_id as i32);
    let (id, last) = customer(&i.customer);
    client.query(&calls.order_status, &[&w, &d, &id, &last]).await?;
    Ok(Outcome::COMMITTED)
}

async fn delivery(client: &Client, calls: &Calls, i: &DeliveryInput) -> Result<Outcome, Error> {
    let (w, carrier) = (i.w_id as i32, i.carrier_id as i32);
    let row = client.query_one(&calls.delivery, &[&w, &carrier]).await?;
    // 2.7.4.2: districts without an undelivered order were skipped.
    let skipped_districts = row.get::<_, i32>(0) as u8;
    Ok(Outcome { skipped_districts, ..Outcome::COMMITTED })
}

async fn stock_level(client: &Client, calls: &Calls, i: &StockLevelInput) -> Result<Outcome, Error> {
    let (w, d, threshold) = (i.w_id as i32, i.d_id as i32, i.threshold as i32);
    client.query_one(&calls.stock_level, &[&w, &d, &threshold]).await?;
    Ok(Outcome::COMMITTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_follows_the_text_and_the_install_names_it() {
        assert_eq!(version().len(), 16);
        let script = install_statements().concat();
        assert!(script.contains(&version()), "the version function returns the version");
        assert!(script.contains(SQL));
        for f in ["new_order", "payment", "order_status", "delivery", "stock_level"] {
            assert!(SQL.contains(&format!("CREATE FUNCTION oltpgen_tpcc_{f}(")), "{f}");
        }
    }
}
