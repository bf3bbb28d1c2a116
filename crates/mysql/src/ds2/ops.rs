//! DS2's five operations from the driver's side on MySQL, both ways: server-side each one `CALL` of
//! its stored procedure ([`super::sql`]), one round trip; client-side the statements, as DS2's own
//! MySQL driver (`ds2mysqlfns.cs`) sends them for login, browse and purchase. Both search, count and
//! write alike: the statements are the procedures' bodies ([`sql::history`], [`sql::by_category`],
//! [`sql::by_words`]) or do what they do. Every result set is received, so the server does the work
//! DS2's driver made it do, though only the ids are used.
//!
//! An error leaves a client-side purchase's transaction open: the session rolls it back
//! ([`crate::settle`]).

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Error, Row, Value};
use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};

use super::sql;
use oltpgen_vocab::ds2::Purchase;
use oltpgen_vocab::tpcc::Transactions;

/// The loaded customers' password (the data generator gives every customer the same one).
const PASSWORD: &str = "password";

/// MySQL's duplicate key error: a user name taken by a registration at the same time.
const DUPLICATE_KEY: u16 = 1062;

/// The columns a registration writes, in [`register`]'s order, and what each is written as (empty
/// optional fields as NULL, as on the other engines).
const CUSTOMER_VALUES: &str = "INSERT INTO customers (firstname, lastname, address1, address2, city, state, zip, \
     country, region, email, phone, creditcardtype, creditcard, creditcardexpiration, username, password, age, \
     income, gender) VALUES (?, ?, ?, NULLIF(?, ''), ?, NULLIF(?, ''), NULLIF(?, ''), ?, ?, NULLIF(?, ''), \
     NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''))";

/// Runs `sql` with `params` and receives every result set.
async fn result_sets(conn: &mut Conn, sql: &str, params: Vec<Value>) -> Result<Vec<Vec<Row>>, Error> {
    let mut result = conn.exec_iter(sql, params).await?;
    let mut sets = Vec::new();
    while !result.is_empty() {
        sets.push(result.collect::<Row>().await?);
    }
    Ok(sets)
}

/// The first column of the first row of the first result set, as an id (0 when there is none).
fn first_id(sets: &[Vec<Row>]) -> i32 {
    sets.first()
        .and_then(|rows| rows.first())
        .and_then(|row| row.get::<Option<i32>, _>(0))
        .flatten()
        .unwrap_or(0)
}

/// Logs in `user<customer_id>` / `password`; the customer's id when found. Their latest purchases are
/// read too.
///
/// # Errors
/// The server's error.
pub async fn login(
    conn: &mut Conn,
    transactions: Transactions,
    customer_id: i32,
) -> Result<Option<i32>, Error> {
    let username = format!("user{customer_id}");
    let id = match transactions {
        Transactions::Server => first_id(
            &result_sets(conn, "CALL OLTPGEN_LOGIN(?, ?)", vec![username.into(), PASSWORD.into()]).await?,
        ),
        Transactions::Client => {
            let found: Option<i32> = conn
                .exec_first(
                    "SELECT customerid FROM customers WHERE username = ? AND password = ?",
                    (username, PASSWORD),
                )
                .await?;
            if let Some(id) = found {
                conn.exec_drop(sql::history("?"), (id,)).await?;
            }
            found.unwrap_or(0)
        }
    };
    Ok((id != 0).then_some(id))
}

/// Registers a new customer; the new id, or `None` when the user name is taken (the caller retries
/// with another name, as DS2's driver does). Server-side the zip goes as DS2's driver sends it, a
/// number (0 when empty).
///
/// # Errors
/// The server's error (a field too long for its column, say).
pub async fn register(
    conn: &mut Conn,
    transactions: Transactions,
    reg: &Registration,
) -> Result<Option<i32>, Error> {
    let zip: Value = match transactions {
        Transactions::Server => reg.zip.parse::<i32>().unwrap_or(0).into(),
        Transactions::Client => reg.zip.as_str().into(),
    };
    let params: Vec<Value> = vec![
        reg.firstname.as_str().into(),
        reg.lastname.as_str().into(),
        reg.address1.as_str().into(),
        reg.address2.as_str().into(),
        reg.city.as_str().into(),
        reg.state.as_str().into(),
        zip,
        reg.country.as_str().into(),
        reg.region.into(),
        reg.email.as_str().into(),
        reg.phone.as_str().into(),
        reg.creditcardtype.into(),
        reg.creditcard.as_str().into(),
        reg.creditcardexpiration.as_str().into(),
        reg.username.as_str().into(),
        reg.password.as_str().into(),
        reg.age.into(),
        reg.income.into(),
        reg.gender.as_str().into(),
    ];
    let id = match transactions {
        Transactions::Server => {
            let call = format!("CALL NEW_CUSTOMER({}, @oltpgen_customerid)", ["?"; 19].join(", "));
            first_id(&result_sets(conn, &call, params).await?)
        }
        Transactions::Client => match conn.exec_drop(CUSTOMER_VALUES, params).await {
            Ok(()) => conn.last_insert_id().unwrap_or(0) as i32,
            Err(Error::Server(e)) if e.code == DUPLICATE_KEY => 0,
            Err(e) => return Err(e),
        },
    };
    Ok((id != 0).then_some(id))
}

/// Runs one browse; the number of products it returned.
///
/// # Errors
/// The server's error.
pub async fn browse(conn: &mut Conn, transactions: Transactions, browse: &Browse) -> Result<u64, Error> {
    let (procedure, column, key, batch): (&str, Option<&str>, Value, i32) = match browse {
        Browse::Category { category, batch } => ("BROWSE_BY_CATEGORY", None, (*category).into(), *batch),
        Browse::Actor { words, batch } => ("BROWSE_BY_ACTOR", Some("actor"), words.as_str().into(), *batch),
        Browse::Title { words, batch } => ("BROWSE_BY_TITLE", Some("title"), words.as_str().into(), *batch),
    };
    let rows = match transactions {
        Transactions::Server => {
            let sets = result_sets(conn, &format!("CALL {procedure}(?, ?)"), vec![batch.into(), key]).await?;
            sets.first().map_or(0, Vec::len)
        }
        Transactions::Client => {
            let sql = match column {
                None => sql::by_category("?", "?"),
                Some(column) => sql::by_words(column, "?", "?"),
            };
            conn.exec::<Row, _, _>(sql, vec![key, batch.into()]).await?.len()
        }
    };
    Ok(rows as u64)
}

/// The cart's lines in prod_id order (the order purchases lock inventory rows in, so that two do not
/// deadlock), each with its line number in the cart (1, 2, …), at most 10.
fn in_lock_order(lines: &[PurchaseLine]) -> Vec<(i32, PurchaseLine)> {
    let mut sorted: Vec<(i32, PurchaseLine)> =
        lines.iter().take(10).enumerate().map(|(i, l)| (i as i32 + 1, *l)).collect();
    sorted.sort_by_key(|(n, l)| (l.prod_id, *n));
    sorted
}

/// Buys `lines` for `customer_id`: the order, its lines and history rows and the stock taken, or
/// nothing when an item's stock is short. Client-side it is the procedure's work as statements in one
/// transaction.
///
/// # Errors
/// The server's error (server-side, an empty cart or one of more than 10 lines is rejected).
pub async fn purchase(
    conn: &mut Conn,
    transactions: Transactions,
    customer_id: i32,
    lines: &[PurchaseLine],
) -> Result<Purchase, Error> {
    let cart = in_lock_order(lines);
    let orderid = match transactions {
        Transactions::Server => {
            let list = |f: &dyn Fn(&(i32, PurchaseLine)) -> i32| {
                cart.iter().map(|c| f(c).to_string()).collect::<Vec<_>>().join(",")
            };
            let params: Vec<Value> = vec![
                customer_id.into(),
                (cart.len() as i32).into(),
                list(&|(_, l)| l.prod_id).into(),
                list(&|(_, l)| l.quantity).into(),
                list(&|(n, _)| *n).into(),
            ];
            first_id(&result_sets(conn, "CALL OLTPGEN_PURCHASE(?, ?, ?, ?, ?)", params).await?)
        }
        Transactions::Client => purchase_statements(conn, customer_id, &cart).await?,
    };
    Ok(match orderid {
        0 => Purchase::RolledBack,
        orderid => Purchase::Ordered { orderid },
    })
}

/// The purchase's statements in one transaction: the stock line by line, then the order with its
/// amounts computed from the prices, its lines and history rows; the new orderid, or 0 when it rolled
/// back for short stock.
async fn purchase_statements(
    conn: &mut Conn,
    customer_id: i32,
    cart: &[(i32, PurchaseLine)],
) -> Result<i32, Error> {
    conn.query_drop("START TRANSACTION").await?;
    for (_, line) in cart {
        conn.exec_drop(
            "UPDATE inventory SET quan_in_stock = quan_in_stock - ?, sales = sales + ? \
             WHERE prod_id = ? AND quan_in_stock >= ?",
            (line.quantity, line.quantity, line.prod_id, line.quantity),
        )
        .await?;
        if conn.affected_rows() == 0 {
            conn.query_drop("ROLLBACK").await?;
            return Ok(0);
        }
    }
    let items = vec!["SELECT ? AS prod_id, ? AS qty"; cart.len()].join(" UNION ALL ");
    let mut params: Vec<Value> = vec![customer_id.into()];
    params.extend(cart.iter().flat_map(|(_, l)| [l.prod_id.into(), l.quantity.into()]));
    conn.exec_drop(
        format!(
            "INSERT INTO orders (orderdate, customerid, netamount, tax, totalamount) \
             SELECT CURDATE(), ?, a.net, ROUND(a.net * 0.0825, 2), a.net + ROUND(a.net * 0.0825, 2) \
             FROM (SELECT COALESCE(SUM(p.price * c.qty), 0) AS net FROM ({items}) c \
               JOIN products p ON p.prod_id = c.prod_id) a"
        ),
        params,
    )
    .await?;
    let orderid = conn.last_insert_id().unwrap_or(0) as i32;
    let lines =
        cart.iter().map(|(n, l)| vec![(*n).into(), orderid.into(), l.prod_id.into(), l.quantity.into()]);
    let into = "orderlines (orderlineid, orderid, prod_id, quantity, orderdate)";
    insert_rows(conn, into, "(?, ?, ?, ?, CURDATE())", lines.collect()).await?;
    let history = cart.iter().map(|(_, l)| vec![customer_id.into(), orderid.into(), l.prod_id.into()]);
    insert_rows(conn, "cust_hist (customerid, orderid, prod_id)", "(?, ?, ?)", history.collect()).await?;
    conn.query_drop("COMMIT").await?;
    Ok(orderid)
}

/// Inserts `rows` into `into` (a table and its columns) in one statement, each row's values in the
/// shape of `row` (its placeholders).
async fn insert_rows(conn: &mut Conn, into: &str, row: &str, rows: Vec<Vec<Value>>) -> Result<(), Error> {
    let sql = format!("INSERT INTO {into} VALUES {}", vec![row; rows.len()].join(", "));
    conn.exec_drop(sql, rows.concat()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cart_is_bought_in_prod_id_order_keeping_its_line_numbers() {
        let line = |prod_id, quantity| PurchaseLine { prod_id, quantity };
        let cart = in_lock_order(&[line(30, 1), line(10, 2), line(20, 3), line(10, 1)]);
        let got: Vec<(i32, i32, i32)> = cart.iter().map(|(n, l)| (*n, l.prod_id, l.quantity)).collect();
        assert_eq!(got, [(2, 10, 2), (4, 10, 1), (3, 20, 3), (1, 30, 1)]);
    }
}
