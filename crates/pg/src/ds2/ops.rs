//! DS2's five operations from the driver's side: each is one prepared statement calling its server
//! function (see [`super::sql`]), so one round trip in autocommit, as the reference's stored-procedure
//! calls (`ds2/pgsqlds2/ds2pgsqlfns.cs`) are. Every returned row is received, so the server does the work
//! the reference's driver made it do, though the driver, like the reference's, uses only the ids.
//!
//! Two implementations of the functions can be behind a database ([`Functions`]): oltpgen's, which its
//! load creates, and the reference's own, in a database DS2's installer built, driven as they are (their
//! known defects included: [`REFERENCE_DEFECTS`]).

use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Error, Statement};

use oltpgen_vocab::ds2::{Functions, Purchase};

/// The reference PostgreSQL functions' known defects, which a run through them inherits and its summary
/// names.
pub const REFERENCE_DEFECTS: &str = "DS2's own PostgreSQL functions, as its installer built them: browse_by_title \
     searches the actor column, so title searches rarely match; browse_by_actor and browse_by_title parse the \
     words with to_tsquery's default configuration (english: stemmed, stop words dropped) while the indexed \
     text is parsed with 'simple', so a word that stemming changes never matches; purchase reads stock and writes \
     it back, so concurrent purchases can lose updates";

const LOGIN: &str = "SELECT customerid, title, actor, related_title FROM oltpgen_login($1, $2)";
/// The reference's login: the names of the cursors it opens (read within the same transaction).
const REFERENCE_LOGIN: &str = "SELECT login($1, $2)::text";
const NEW_CUSTOMER: &str = "SELECT new_customer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)";
const BROWSE_BY_CATEGORY: &str = "SELECT * FROM browse_by_category($1, $2)";
const BROWSE_BY_ACTOR: &str = "SELECT * FROM browse_by_actor($1, $2)";
const BROWSE_BY_TITLE: &str = "SELECT * FROM browse_by_title($1, $2)";
const PURCHASE: &str = "SELECT oltpgen_purchase($1, $2, $3)";
/// The reference's purchase: the cart's 10 slots (0 where empty), and the amounts its driver computes
/// from the prices (net, 8.25% tax, total), here in the same statement rather than with the reference
/// driver's extra round trip.
const REFERENCE_PURCHASE: &str = "SELECT purchase($1, $4, net, net * 0.0825, net + net * 0.0825, \
     p[1], q[1], p[2], q[2], p[3], q[3], p[4], q[4], p[5], q[5], p[6], q[6], p[7], q[7], p[8], q[8], p[9], q[9], \
     p[10], q[10]) \
     FROM (SELECT $2::int4[] AS p, $3::int4[] AS q, (SELECT coalesce(sum(pr.price * c.qty), 0) \
       FROM unnest($2::int4[], $3::int4[]) AS c (prod_id, qty) JOIN products pr ON pr.prod_id = c.prod_id) AS net) AS cart";

/// The reference purchase's slots.
const SLOTS: usize = 10;

/// The loaded customers' password (the data generator gives every customer the same one).
const PASSWORD: &str = "password";

/// Prepared statements of the five operations on one connection: prepared once, so each operation is
/// a single Bind/Execute round trip.
pub struct Ds2Statements {
    functions: Functions,
    login: Statement,
    new_customer: Statement,
    browse_by_category: Statement,
    browse_by_actor: Statement,
    browse_by_title: Statement,
    purchase: Statement,
}

impl Ds2Statements {
    /// Prepares every statement of `functions` on `client` (pipelined: one round trip for all).
    ///
    /// # Errors
    /// The server's error when a statement does not prepare (the DS2 functions are missing).
    pub async fn prepare(client: &Client, functions: Functions) -> Result<Self, Error> {
        let (login, purchase) = match functions {
            Functions::Oltpgen => (LOGIN, PURCHASE),
            Functions::Reference => (REFERENCE_LOGIN, REFERENCE_PURCHASE),
        };
        let (login, new_customer, browse_by_category, browse_by_actor, browse_by_title, purchase) = tokio::join!(
            client.prepare(login),
            client.prepare(NEW_CUSTOMER),
            client.prepare(BROWSE_BY_CATEGORY),
            client.prepare(BROWSE_BY_ACTOR),
            client.prepare(BROWSE_BY_TITLE),
            client.prepare(purchase),
        );
        Ok(Ds2Statements {
            functions,
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
    let found = match st.functions {
        Functions::Oltpgen => {
            let rows = client.query(&st.login, &[&username, &PASSWORD]).await?;
            // Every row carries the id; 0 is the function's "no such user or wrong password".
            rows.first().map_or(0, |r| r.get::<_, i32>(0))
        }
        Functions::Reference => reference_login(client, st, &username).await?,
    };
    Ok((found != 0).then_some(found))
}

/// The reference's login, as Npgsql 2 runs it for DS2's driver: in a transaction, the function's
/// cursors, then every row of each (the id, then the history), then the commit: three round trips.
async fn reference_login(client: &Client, st: &Ds2Statements, username: &str) -> Result<i32, Error> {
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&username, &PASSWORD];
    let (begun, cursors) = tokio::join!(client.batch_execute("BEGIN"), client.query(&st.login, &params));
    let fetched = async {
        begun?;
        let mut fetch = String::new();
        for row in cursors? {
            let name: &str = row.get(0);
            fetch.push_str(&format!("FETCH ALL FROM \"{}\";", name.replace('"', "\"\"")));
        }
        fetch.push_str("COMMIT");
        client.simple_query(&fetch).await
    }
    .await;
    let messages = match fetched {
        Ok(m) => m,
        Err(e) => {
            // Leave the connection usable for the next operation; a lost one is reported as it is.
            let _ = client.batch_execute("ROLLBACK").await;
            return Err(e);
        }
    };
    // The first row of the first cursor is the id (0 for no such user).
    let id = messages.iter().find_map(|m| match m {
        tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse().ok()),
        _ => None,
    });
    Ok(id.unwrap_or(0))
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
    // DS2's driver wraps the words in double quotes; the reference's functions get them so.
    let quoted = |words: &String| match st.functions {
        Functions::Oltpgen => words.clone(),
        Functions::Reference => format!("\"{words}\""),
    };
    let rows = match browse {
        Browse::Category { category, batch } => {
            client.query(&st.browse_by_category, &[batch, category]).await?
        }
        Browse::Actor { words, batch } => client.query(&st.browse_by_actor, &[batch, &quoted(words)]).await?,
        Browse::Title { words, batch } => client.query(&st.browse_by_title, &[batch, &quoted(words)]).await?,
    };
    Ok(rows.len() as u64)
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
    let (mut prod_ids, mut quantities): (Vec<i32>, Vec<i32>) =
        lines.iter().map(|l| (l.prod_id, l.quantity)).unzip();
    let row = match st.functions {
        Functions::Oltpgen => client.query_one(&st.purchase, &[&customer_id, &prod_ids, &quantities]).await?,
        Functions::Reference => {
            let items = prod_ids.len().min(SLOTS) as i32;
            prod_ids.resize(SLOTS, 0);
            quantities.resize(SLOTS, 0);
            match client.query_one(&st.purchase, &[&customer_id, &prod_ids, &quantities, &items]).await {
                // The reference raises an exception for a short item; its driver counts it a rollback.
                Err(e) if e.code() == Some(&SqlState::RAISE_EXCEPTION) => return Ok(Purchase::RolledBack),
                other => other?,
            }
        }
    };
    Ok(match row.get::<_, i32>(0) {
        0 => Purchase::RolledBack,
        orderid => Purchase::Ordered { orderid },
    })
}
