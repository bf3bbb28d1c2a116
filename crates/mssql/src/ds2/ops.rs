//! DS2's five operations from the driver's side on SQL Server: each one `EXEC` of its stored procedure
//! (see [`super::sql`]), one round trip, in autocommit, as DS2's SQL Server driver
//! (`ds2/sqlserverds2/ds2sqlserverfns.cs`) calls them. Every result set is received, so the server does
//! the work DS2's driver made it do, though only the ids are used.
//!
//! Behind a database can be oltpgen's procedures or DS2's own ([`Functions`]); both take the same calls,
//! except that oltpgen's login is `OLTPGEN_LOGIN` (the latest 10 purchases) and DS2's purchase is handed
//! the amounts its driver computes from the prices (here in the same batch, not DS2's extra round trip).

use std::time::Duration;

use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};
use tiberius::error::Error;
use tiberius::{ColumnData, Row, ToSql};

use crate::{Client, timed};
use oltpgen_vocab::ds2::{Functions, Purchase};

/// DS2's own SQL Server procedures' known defects, which a run through them inherits and its result
/// names.
pub const REFERENCE_DEFECTS: &str = "DS2's own SQL Server procedures, as its installer built them: PURCHASE reads \
     stock and writes it back, so concurrent purchases can lose updates, and it inserts the order before it \
     checks the stock; NEW_CUSTOMER counts a name before inserting it, so two registrations of one name at \
     once can both get in where no unique index refuses them";

/// How long one operation may take before its connection is given up as lost (an error raised while a
/// result streams can leave tiberius waiting).
const OP_TIMEOUT: Duration = Duration::from_secs(60);

/// The loaded customers' password (the data generator gives every customer the same one).
const PASSWORD: &str = "password";

/// The purchase's (prod_id, quantity) slots.
const SLOTS: usize = 10;

const LOGIN: &str = "EXEC OLTPGEN_LOGIN @P1, @P2";
const REFERENCE_LOGIN: &str = "EXEC LOGIN @P1, @P2";
const NEW_CUSTOMER: &str = "EXEC NEW_CUSTOMER @P1, @P2, @P3, @P4, @P5, @P6, @P7, @P8, @P9, @P10, @P11, @P12, \
     @P13, @P14, @P15, @P16, @P17, @P18, @P19";
const BROWSE_BY_CATEGORY: &str = "EXEC BROWSE_BY_CATEGORY @P1, @P2";
const BROWSE_BY_ACTOR: &str = "EXEC BROWSE_BY_ACTOR @P1, @P2";
const BROWSE_BY_TITLE: &str = "EXEC BROWSE_BY_TITLE @P1, @P2";
/// The slots as the procedure's arguments: `@P3, @P4, … @P22`.
const SLOT_ARGS: &str = "@P3, @P4, @P5, @P6, @P7, @P8, @P9, @P10, @P11, @P12, @P13, @P14, @P15, @P16, @P17, \
     @P18, @P19, @P20, @P21, @P22";

/// oltpgen's purchase: the amounts are computed inside, so none are passed.
fn purchase_call() -> String {
    format!("EXEC PURCHASE @P1, @P2, 0, 0, 0, {SLOT_ARGS}")
}

/// DS2's purchase: the amounts as its driver computes them (net from the prices of the cart's products,
/// 8.25% tax, total), in the same batch.
fn reference_purchase_call() -> String {
    let cart: Vec<String> = (0..SLOTS).map(|i| format!("(@P{}, @P{})", 3 + 2 * i, 4 + 2 * i)).collect();
    format!(
        "DECLARE @net MONEY = (SELECT COALESCE(SUM(p.price * c.qty), 0) FROM (VALUES {}) AS c (prod_id, qty) \
         JOIN products p ON p.prod_id = c.prod_id); \
         DECLARE @tax MONEY = @net * 0.0825; DECLARE @total MONEY = @net + @tax; \
         EXEC PURCHASE @P1, @P2, @net, @tax, @total, {SLOT_ARGS}",
        cart.join(", ")
    )
}

/// The calls of one session, built once.
pub struct Calls {
    functions: Functions,
    purchase: String,
}

impl Calls {
    /// The calls for a database served by `functions`.
    pub fn new(functions: Functions) -> Self {
        let purchase = match functions {
            Functions::Oltpgen => purchase_call(),
            Functions::Reference => reference_purchase_call(),
        };
        Calls { functions, purchase }
    }
}

/// Runs `sql` with `params` and receives every result set, under [`OP_TIMEOUT`].
async fn call(client: &mut Client, sql: &str, params: &[&dyn ToSql]) -> Result<Vec<Vec<Row>>, Error> {
    timed(OP_TIMEOUT, async { client.query(sql, params).await?.into_results().await }).await
}

/// The first column of the first row of the first result set as a whole number, whatever integer or
/// numeric type it has (DS2's `NEW_CUSTOMER` answers `@@IDENTITY`, a `NUMERIC`).
fn first_id(results: &[Vec<Row>]) -> Option<i64> {
    let (_, cell) = results.first()?.first()?.cells().next()?;
    match cell {
        ColumnData::U8(v) => v.map(i64::from),
        ColumnData::I16(v) => v.map(i64::from),
        ColumnData::I32(v) => v.map(i64::from),
        ColumnData::I64(v) => *v,
        ColumnData::Numeric(n) => n.map(|n| (n.value() / 10i128.pow(u32::from(n.scale()))) as i64),
        _ => None,
    }
}

/// Logs in `user<customer_id>` / `password`; the customer's id when found. Their purchases come back in
/// a second result set and are received.
///
/// # Errors
/// The server's error.
pub async fn login(client: &mut Client, calls: &Calls, customer_id: i32) -> Result<Option<i32>, Error> {
    let username = format!("user{customer_id}");
    let sql = match calls.functions {
        Functions::Oltpgen => LOGIN,
        Functions::Reference => REFERENCE_LOGIN,
    };
    let results = call(client, sql, &[&username.as_str(), &PASSWORD]).await?;
    Ok(first_id(&results).filter(|id| *id != 0).map(|id| id as i32))
}

/// Registers a new customer; the new id, or None when the user name is taken. The zip goes as DS2's
/// driver sends it, a number (0 when empty).
///
/// # Errors
/// The server's error (a field too long for its column, say).
pub async fn register(client: &mut Client, reg: &Registration) -> Result<Option<i32>, Error> {
    let zip: i32 = reg.zip.parse().unwrap_or(0);
    let params: [&dyn ToSql; 19] = [
        &reg.firstname.as_str(),
        &reg.lastname.as_str(),
        &reg.address1.as_str(),
        &reg.address2.as_str(),
        &reg.city.as_str(),
        &reg.state.as_str(),
        &zip,
        &reg.country.as_str(),
        &reg.region,
        &reg.email.as_str(),
        &reg.phone.as_str(),
        &reg.creditcardtype,
        &reg.creditcard.as_str(),
        &reg.creditcardexpiration.as_str(),
        &reg.username.as_str(),
        &reg.password.as_str(),
        &reg.age,
        &reg.income,
        &reg.gender.as_str(),
    ];
    let results = call(client, NEW_CUSTOMER, &params).await?;
    Ok(first_id(&results).filter(|id| *id != 0).map(|id| id as i32))
}

/// Runs one browse; the number of products it returned. The words go wrapped in double quotes, as
/// DS2's driver sends them (a phrase to `CONTAINS`).
///
/// # Errors
/// The server's error.
pub async fn browse(client: &mut Client, browse: &Browse) -> Result<u64, Error> {
    let results = match browse {
        Browse::Category { category, batch } => call(client, BROWSE_BY_CATEGORY, &[batch, category]).await?,
        Browse::Actor { words, batch } => {
            call(client, BROWSE_BY_ACTOR, &[batch, &format!("\"{words}\"").as_str()]).await?
        }
        Browse::Title { words, batch } => {
            call(client, BROWSE_BY_TITLE, &[batch, &format!("\"{words}\"").as_str()]).await?
        }
    };
    Ok(results.first().map_or(0, |rows| rows.len() as u64))
}

/// Buys `lines` for `customer_id` in one call: the order, its lines and history rows and the stock
/// taken, or nothing when an item's stock is short (the procedure answers 0).
///
/// # Errors
/// The server's error (an empty cart or one of more than 10 lines is rejected).
pub async fn purchase(
    client: &mut Client,
    calls: &Calls,
    customer_id: i32,
    lines: &[PurchaseLine],
) -> Result<Purchase, Error> {
    let items = lines.len().min(SLOTS) as i32;
    let mut slots = [0i32; 2 * SLOTS];
    for (i, line) in lines.iter().take(SLOTS).enumerate() {
        slots[2 * i] = line.prod_id;
        slots[2 * i + 1] = line.quantity;
    }
    let head: [&dyn ToSql; 2] = [&customer_id, &items];
    let params: Vec<&dyn ToSql> = head.into_iter().chain(slots.iter().map(|v| v as &dyn ToSql)).collect();
    let results = call(client, &calls.purchase, &params).await?;
    Ok(match first_id(&results).unwrap_or(0) {
        0 => Purchase::RolledBack,
        orderid => Purchase::Ordered { orderid: orderid as i32 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_purchase_call_binds_the_customer_the_count_and_ten_slots() {
        for sql in [purchase_call(), reference_purchase_call()] {
            assert!(sql.contains("EXEC PURCHASE @P1, @P2, ") && sql.ends_with("@P21, @P22"), "{sql}");
            assert!(!sql.contains("@P23"), "{sql}");
        }
        assert!(reference_purchase_call().contains("(@P21, @P22)"));
    }
}
