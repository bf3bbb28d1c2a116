//! The five TPC-C transactions as a session runs them: server-side, one `CALL` of a procedure
//! ([`super::procs`]) each ([`call`]); client-side, the same steps as prepared statements sent one by
//! one ([`execute`]), each transaction between `START TRANSACTION` and `COMMIT`, as go-tpc and
//! sysbench-tpcc send them. mysql_async prepares a statement once per connection and keeps it.
//!
//! Client-side keeps the procedures' rules ([`super::procs`]): New-Order's lines in lock order (sorted
//! by item and supplying warehouse), every read-modify-write one `UPDATE` read back under its lock, a
//! Payment that matches no customer an error before it commits. Money is sent as exact decimal text
//! (cents formatted), never a float.

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Error, Row, ServerError, Value};
use oltpgen_datagen::tpcc::input::{
    CustomerSelector, DeliveryInput, NewOrderInput, OrderLineInput, OrderStatusInput, PaymentInput,
    StockLevelInput, TxnInput,
};

use oltpgen_vocab::outcome::Done;
use oltpgen_vocab::tpcc::Outcome;

/// A New-Order's lines in lock order (by item, then supplying warehouse), each with its line number.
fn lines_in_lock_order(i: &NewOrderInput) -> Vec<(i32, OrderLineInput)> {
    let mut lines: Vec<(i32, OrderLineInput)> =
        i.lines.iter().enumerate().map(|(k, l)| (k as i32 + 1, *l)).collect();
    lines.sort_by_key(|(n, l)| (l.i_id, l.supply_w_id, *n));
    lines
}

/// A customer selector as the procedures take it: an id and no name, or 0 and a last name.
fn customer(c: &CustomerSelector) -> (i32, &str) {
    match c {
        CustomerSelector::ById(id) => (*id as i32, ""),
        CustomerSelector::ByLastName(name) => (0, name.as_str()),
    }
}

/// `cents` as exact decimal text (`1234` is `12.34`).
fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.unsigned_abs() / 100, cents.unsigned_abs() % 100)
}

/// Runs one transaction as a call of its procedure.
///
/// # Errors
/// The server's error (the procedure rolled the transaction back).
pub async fn call(conn: &mut Conn, input: &TxnInput) -> Result<Outcome, Error> {
    match input {
        TxnInput::NewOrder(i) => {
            let lines = lines_in_lock_order(i);
            let list = |f: &dyn Fn(&(i32, OrderLineInput)) -> String| {
                lines.iter().map(f).collect::<Vec<_>>().join(",")
            };
            let params: Vec<Value> = vec![
                (i.w_id as i32).into(),
                (i.d_id as i32).into(),
                (i.c_id as i32).into(),
                (lines.len() as i32).into(),
                i32::from(i.all_local).into(),
                list(&|(_, l)| l.i_id.to_string()).into(),
                list(&|(_, l)| l.supply_w_id.to_string()).into(),
                list(&|(_, l)| l.quantity.to_string()).into(),
                list(&|(n, _)| n.to_string()).into(),
            ];
            let row: Option<(i32, i32)> =
                conn.exec_first("CALL oltpgen_new_order(?, ?, ?, ?, ?, ?, ?, ?, ?)", params).await?;
            // 2.4.2.3: the procedure says whether it rolled back, and the order's id.
            let rolled_back = row.is_some_and(|(_, bad)| bad == 1);
            let o_id = row.filter(|_| !rolled_back).map(|(o, _)| o as u32);
            Ok(Outcome { done: Done { rolled_back }, o_id, ..Outcome::COMMITTED })
        }
        TxnInput::Payment(i) => {
            let (id, name) = customer(&i.customer);
            let params = (i.w_id, i.d_id, i.c_w_id, i.c_d_id, id, name, i.h_amount_cents);
            conn.exec_drop("CALL oltpgen_payment(?, ?, ?, ?, ?, ?, ?)", params).await?;
            Ok(Outcome::COMMITTED)
        }
        TxnInput::OrderStatus(i) => {
            let (id, name) = customer(&i.customer);
            conn.exec_drop("CALL oltpgen_order_status(?, ?, ?, ?)", (i.w_id, i.d_id, id, name)).await?;
            Ok(Outcome::COMMITTED)
        }
        TxnInput::Delivery(i) => {
            let skipped: Option<i32> =
                conn.exec_first("CALL oltpgen_delivery(?, ?)", (i.w_id, i.carrier_id)).await?;
            // 2.7.4.2: districts without an undelivered order were skipped.
            Ok(Outcome { skipped_districts: skipped.unwrap_or(0) as u8, ..Outcome::COMMITTED })
        }
        TxnInput::StockLevel(i) => {
            conn.exec_drop("CALL oltpgen_stock_level(?, ?, ?)", (i.w_id, i.d_id, i.threshold)).await?;
            Ok(Outcome::COMMITTED)
        }
    }
}

/// Runs one transaction client-side, to its end: committed, rolled back as the spec asks, or failed
/// (the caller rolls back what is left open).
///
/// # Errors
/// The server's error.
pub async fn execute(conn: &mut Conn, input: &TxnInput) -> Result<Outcome, Error> {
    match input {
        TxnInput::NewOrder(i) => new_order(conn, i).await,
        TxnInput::Payment(i) => payment(conn, i).await,
        TxnInput::OrderStatus(i) => order_status(conn, i).await,
        TxnInput::Delivery(i) => delivery(conn, i).await,
        TxnInput::StockLevel(i) => stock_level(conn, i).await,
    }
}

/// `n` placeholders, comma-separated.
fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

async fn new_order(conn: &mut Conn, i: &NewOrderInput) -> Result<Outcome, Error> {
    let (w, d, c) = (i.w_id, i.d_id, i.c_id);
    let lines = lines_in_lock_order(i);
    conn.query_drop("START TRANSACTION").await?;
    conn.exec_drop("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?", (w, d))
        .await?;
    let o_id: Option<i32> =
        conn.exec_first("SELECT d_next_o_id - 1 FROM district WHERE d_w_id = ? AND d_id = ?", (w, d)).await?;
    let o_id = o_id.unwrap_or(0);
    let _: Option<String> = conn.exec_first("SELECT w_tax FROM warehouse WHERE w_id = ?", (w,)).await?;
    let _: Option<Row> = conn
        .exec_first(
            "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            (w, d, c),
        )
        .await?;
    let ids: Vec<Value> = lines.iter().map(|(_, l)| l.i_id.into()).collect();
    let sql =
        format!("SELECT i_id, CAST(i_price * 100 AS SIGNED) FROM item WHERE i_id IN ({})", marks(ids.len()));
    let prices: Vec<(u32, i64)> = conn.exec(sql, ids).await?;
    let dist = format!("s_dist_{d:02}");
    let stock_update = "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= ? + 10 THEN s_quantity - ? \
         ELSE s_quantity - ? + 91 END, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, \
         s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?";
    let stock_read = format!("SELECT {dist} FROM stock WHERE s_i_id = ? AND s_w_id = ?");
    let mut values: Vec<Value> = Vec::with_capacity(lines.len() * 7);
    let mut entered = 0;
    for (n, l) in &lines {
        // 2.4.2.3: an unused item's line is the only step skipped; the rest of the order is entered
        // before the rollback.
        let Some(&(_, cents)) = prices.iter().find(|(id, _)| *id == l.i_id) else { continue };
        let q = l.quantity;
        let remote = u32::from(l.supply_w_id != w);
        conn.exec_drop(stock_update, (q, q, q, q, remote, l.i_id, l.supply_w_id)).await?;
        let dist_info: Option<String> = conn.exec_first(stock_read.as_str(), (l.i_id, l.supply_w_id)).await?;
        let amount = money(cents * i64::from(q));
        values.extend([n.into(), l.i_id.into(), l.supply_w_id.into(), q.into(), amount.into()]);
        values.push(dist_info.unwrap_or_default().into());
        entered += 1;
    }
    conn.exec_drop(
        "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) \
         VALUES (?, ?, ?, ?, NOW(6), NULL, ?, ?)",
        (o_id, d, w, c, lines.len() as i32, i32::from(i.all_local)),
    )
    .await?;
    conn.exec_drop("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)", (o_id, d, w))
        .await?;
    if entered > 0 {
        let row = format!("({o_id}, {d}, {w}, ?, ?, ?, NULL, ?, ?, ?)");
        let sql = format!(
            "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, \
             ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES {}",
            vec![row.as_str(); entered].join(", ")
        );
        conn.exec_drop(sql, values).await?;
    }
    // 2.4.2.3: an item that does not exist rolls the whole order back.
    let rolled_back = entered < lines.len();
    conn.query_drop(if rolled_back { "ROLLBACK" } else { "COMMIT" }).await?;
    let o_id = (!rolled_back).then_some(o_id as u32);
    Ok(Outcome { done: Done { rolled_back }, o_id, ..Outcome::COMMITTED })
}

/// The customer a Payment or Order-Status names (2.5.2.2, 2.6.2.2): by id, or of the customers with
/// the last name ordered by first name, the one at position ceil(n / 2); `None` when none match.
async fn pick(conn: &mut Conn, w: u32, d: u32, who: &CustomerSelector) -> Result<Option<i32>, Error> {
    match who {
        CustomerSelector::ById(id) => Ok(Some(*id as i32)),
        CustomerSelector::ByLastName(name) => {
            let ids: Vec<i32> = conn
                .exec(
                    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
                    (w, d, name.as_str()),
                )
                .await?;
            Ok(ids.get(ids.len().saturating_sub(1) / 2).copied())
        }
    }
}

/// The error of a Payment that matched no customer (as the procedure's `SIGNAL` raises it).
fn no_customer() -> Error {
    Error::Server(ServerError {
        code: 1644,
        message: "Payment matched no customer".into(),
        state: "45000".into(),
    })
}

async fn payment(conn: &mut Conn, i: &PaymentInput) -> Result<Outcome, Error> {
    let (w, d, cw, cd) = (i.w_id, i.d_id, i.c_w_id, i.c_d_id);
    let amount = money(i.h_amount_cents);
    conn.query_drop("START TRANSACTION").await?;
    conn.exec_drop("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?", (amount.as_str(), w)).await?;
    let w_name: Option<String> = conn.exec_first("SELECT w_name FROM warehouse WHERE w_id = ?", (w,)).await?;
    conn.exec_drop(
        "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
        (amount.as_str(), w, d),
    )
    .await?;
    let d_name: Option<String> =
        conn.exec_first("SELECT d_name FROM district WHERE d_w_id = ? AND d_id = ?", (w, d)).await?;
    let Some(c) = pick(conn, cw, cd, &i.customer).await? else { return Err(no_customer()) };
    // 2.5.2.2: bad credit prepends the payment to C_DATA, kept to 500 characters.
    conn.exec_drop(
        "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, \
           c_payment_cnt = c_payment_cnt + 1, \
           c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT_WS(' ', c_id, c_d_id, c_w_id, ?, ?, ?, c_data), 500) \
             ELSE c_data END \
         WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
        vec![
            Value::from(amount.as_str()),
            amount.as_str().into(),
            d.into(),
            w.into(),
            amount.as_str().into(),
            cw.into(),
            cd.into(),
            c.into(),
        ],
    )
    .await?;
    if conn.affected_rows() == 0 {
        return Err(no_customer());
    }
    let h_data = format!("{}    {}", w_name.unwrap_or_default(), d_name.unwrap_or_default());
    conn.exec_drop(
        "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
         VALUES (?, ?, ?, ?, ?, NOW(6), ?, ?)",
        (c, cd, cw, d, w, amount.as_str(), h_data),
    )
    .await?;
    let _: Option<Row> = conn
        .exec_first(
            "SELECT c_id, c_first, c_middle, c_last, c_balance, c_credit, \
               CASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) END FROM customer \
             WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            (cw, cd, c),
        )
        .await?;
    conn.query_drop("COMMIT").await?;
    Ok(Outcome::COMMITTED)
}

async fn order_status(conn: &mut Conn, i: &OrderStatusInput) -> Result<Outcome, Error> {
    let (w, d) = (i.w_id, i.d_id);
    conn.query_drop("START TRANSACTION READ ONLY").await?;
    if let Some(c) = pick(conn, w, d, &i.customer).await? {
        let _: Option<Row> = conn
            .exec_first(
                "SELECT c_balance, c_first, c_middle, c_last FROM customer \
                 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
                (w, d, c),
            )
            .await?;
        let order: Option<Row> = conn
            .exec_first(
                "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? \
                 ORDER BY o_id DESC LIMIT 1",
                (w, d, c),
            )
            .await?;
        if let Some(o_id) = order.and_then(|r| r.get::<i32, _>(0)) {
            let _: Vec<Row> = conn
                .exec(
                    "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line \
                     WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
                    (w, d, o_id),
                )
                .await?;
        }
    }
    conn.query_drop("COMMIT").await?;
    Ok(Outcome::COMMITTED)
}

async fn delivery(conn: &mut Conn, i: &DeliveryInput) -> Result<Outcome, Error> {
    let (w, carrier) = (i.w_id, i.carrier_id);
    let mut skipped_districts = 0;
    conn.query_drop("START TRANSACTION").await?;
    for d in 1..=10u32 {
        // 2.7.4.2: the oldest undelivered order, locked; 3.4.1: a concurrent Delivery's deleted row is
        // passed over by the locking read, which goes on to the next oldest.
        let oldest: Option<i32> = conn
            .exec_first(
                "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE",
                (w, d),
            )
            .await?;
        let Some(o) = oldest else {
            skipped_districts += 1;
            continue;
        };
        conn.exec_drop("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?", (w, d, o))
            .await?;
        conn.exec_drop(
            "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
            (carrier, w, d, o),
        )
        .await?;
        let c: Option<i32> = conn
            .exec_first("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?", (w, d, o))
            .await?;
        conn.exec_drop(
            "UPDATE order_line SET ol_delivery_d = NOW(6) WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
            (w, d, o),
        )
        .await?;
        let amount: Option<String> = conn
            .exec_first(
                "SELECT CAST(COALESCE(SUM(ol_amount), 0) AS CHAR) FROM order_line \
                 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
                (w, d, o),
            )
            .await?;
        conn.exec_drop(
            "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 \
             WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            (amount.unwrap_or_else(|| "0".into()), w, d, c.unwrap_or(0)),
        )
        .await?;
    }
    conn.query_drop("COMMIT").await?;
    Ok(Outcome { skipped_districts, ..Outcome::COMMITTED })
}

async fn stock_level(conn: &mut Conn, i: &StockLevelInput) -> Result<Outcome, Error> {
    let _: Option<i64> = conn
        .exec_first(
            "SELECT COUNT(DISTINCT s_i_id) FROM district \
               JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id >= d_next_o_id - 20 \
                 AND ol_o_id < d_next_o_id \
               JOIN stock ON s_w_id = d_w_id AND s_i_id = ol_i_id \
             WHERE d_w_id = ? AND d_id = ? AND s_quantity < ?",
            (i.w_id, i.d_id, i.threshold),
        )
        .await?;
    Ok(Outcome::COMMITTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_exact_decimal_text() {
        assert_eq!(money(1234), "12.34");
        assert_eq!(money(5), "0.05");
        assert_eq!(money(-100), "-1.00");
        assert_eq!(money(500_000), "5000.00");
    }

    #[test]
    fn lines_go_in_lock_order_keeping_their_numbers() {
        let mut lines = oltpgen_datagen::tpcc::input::OrderLines::default();
        for (i_id, supply_w_id) in [(9, 1), (3, 2), (3, 1)] {
            lines.push(OrderLineInput { i_id, supply_w_id, quantity: 1 });
        }
        let input = NewOrderInput { w_id: 1, d_id: 1, c_id: 1, lines, all_local: false, rollback: false };
        let order: Vec<(i32, u32, u32)> =
            lines_in_lock_order(&input).iter().map(|(n, l)| (*n, l.i_id, l.supply_w_id)).collect();
        assert_eq!(order, [(3, 3, 1), (2, 3, 2), (1, 9, 1)]);
    }
}
