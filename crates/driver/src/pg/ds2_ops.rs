//! DS2's five operations from the driver's side: each is one prepared statement calling its server
//! function (see [`super::ds2_sql`]), so one round trip in autocommit, as the reference's stored-procedure
//! calls (`ds2/pgsqlds2/ds2pgsqlfns.cs`) are. Every returned row is received, so the server does the work
//! the reference's driver made it do, though the driver, like the reference's, uses only the ids.

use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};
use tokio_postgres::{Client, Error, Statement};

const LOGIN: &str = "SELECT customerid, title, actor, related_title FROM oltpgen_login($1, $2)";
const NEW_CUSTOMER: &str = "SELECT new_customer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)";
const BROWSE_BY_CATEGORY: &str = "SELECT * FROM browse_by_category($1, $2)";
const BROWSE_BY_ACTOR: &str = "SELECT * FROM browse_by_actor($1, $2)";
const BROWSE_BY_TITLE: &str = "SELECT * FROM browse_by_title($1, $2)";
const PURCHASE: &str = "SELECT oltpgen_purchase($1, $2, $3)";

/// The loaded customers' password (the data generator gives every customer the same one).
const PASSWORD: &str = "password";

/// Prepared statements of the five operations on one connection: prepared once, so each operation is
/// a single Bind/Execute round trip.
pub struct Ds2Statements {
    login: Statement,
    new_customer: Statement,
    browse_by_category: Statement,
    browse_by_actor: Statement,
    browse_by_title: Statement,
    purchase: Statement,
}

impl Ds2Statements {
    /// Prepares every statement on `client` (pipelined: one round trip for all).
    ///
    /// # Errors
    /// The server's error when a statement does not prepare (the DS2 functions are missing: the database
    /// was not loaded by `ds2 load`).
    pub async fn prepare(client: &Client) -> Result<Self, Error> {
        let (login, new_customer, browse_by_category, browse_by_actor, browse_by_title, purchase) = tokio::join!(
            client.prepare(LOGIN),
            client.prepare(NEW_CUSTOMER),
            client.prepare(BROWSE_BY_CATEGORY),
            client.prepare(BROWSE_BY_ACTOR),
            client.prepare(BROWSE_BY_TITLE),
            client.prepare(PURCHASE),
        );
        Ok(Ds2Statements {
            login: login?,
            new_customer: new_customer?,
            browse_by_category: browse_by_category?,
            browse_by_actor: browse_by_actor?,
            browse_by_title: browse_by_title?,
            purchase: purchase?,
        })
    }
}

/// Logs in `user<customer_id>` / `password`, as the reference's driver does for a returning customer;
/// the customer's id when found. The customer's recent purchases come back too and are read, as the
/// reference reads and discards them.
///
/// # Errors
/// The server's error.
pub async fn login(client: &Client, st: &Ds2Statements, customer_id: i32) -> Result<Option<i32>, Error> {
    let username = format!("user{customer_id}");
    let rows = client.query(&st.login, &[&username, &PASSWORD]).await?;
    // Every row carries the id; 0 is the function's "no such user or wrong password".
    let found = rows.first().map_or(0, |r| r.get::<_, i32>(0));
    Ok((found != 0).then_some(found))
}

/// Registers a new customer; the new id, or None when the user name is taken (the caller retries with
/// another name, as the reference's driver does).
///
/// # Errors
/// The server's error (a field too long for its column, say).
pub async fn register(client: &Client, st: &Ds2Statements, reg: &Registration) -> Result<Option<i32>, Error> {
    let row = client
        .query_one(
            &st.new_customer,
            &[
                &reg.firstname,
                &reg.lastname,
                &reg.address1,
                &reg.address2,
                &reg.city,
                &reg.state,
                &reg.zip,
                &reg.country,
                &reg.region,
                &reg.email,
                &reg.phone,
                &reg.creditcardtype,
                &reg.creditcard,
                &reg.creditcardexpiration,
                &reg.username,
                &reg.password,
                &reg.age,
                &reg.income,
                &reg.gender,
            ],
        )
        .await?;
    let id: i32 = row.get(0);
    Ok((id != 0).then_some(id))
}

/// Runs one browse; the number of products it returned (the rows themselves are received and dropped,
/// as the reference's driver reads and drops them).
///
/// # Errors
/// The server's error.
pub async fn browse(client: &Client, st: &Ds2Statements, browse: &Browse) -> Result<u64, Error> {
    let rows = match browse {
        Browse::Category { category, batch } => {
            client.query(&st.browse_by_category, &[batch, category]).await?
        }
        Browse::Actor { words, batch } => client.query(&st.browse_by_actor, &[batch, words]).await?,
        Browse::Title { words, batch } => client.query(&st.browse_by_title, &[batch, words]).await?,
    };
    Ok(rows.len() as u64)
}

/// The purchase's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purchase {
    /// The order was written.
    Ordered {
        /// Its id.
        orderid: i32,
    },
    /// An item's stock was short, so nothing was written: DS2 counts this as a rollback, and still as
    /// an order in its orders per minute.
    RolledBack,
}

/// Buys `lines` for `customer_id` in one statement: the order, its lines and history rows and the stock
/// taken, or nothing at all when an item's stock is short. The amounts are computed by the server from
/// the products' prices.
///
/// # Errors
/// The server's error (an empty cart or one of more than 10 lines is rejected).
pub async fn purchase(
    client: &Client,
    st: &Ds2Statements,
    customer_id: i32,
    lines: &[PurchaseLine],
) -> Result<Purchase, Error> {
    let (prod_ids, quantities): (Vec<i32>, Vec<i32>) = lines.iter().map(|l| (l.prod_id, l.quantity)).unzip();
    let row = client.query_one(&st.purchase, &[&customer_id, &prod_ids, &quantities]).await?;
    Ok(match row.get::<_, i32>(0) {
        0 => Purchase::RolledBack,
        orderid => Purchase::Ordered { orderid },
    })
}
