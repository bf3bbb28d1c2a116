//! The five TPC-C transactions (2.4–2.8) in PostgreSQL's SQL, as client-side prepared statements.
//!
//! Round trips are the client's main cost, so each transaction is written to need as few as its data
//! dependencies allow, with the statements of one round trip pipelined (tokio-postgres sends every query
//! of futures polled together before it waits for the first answer; `join!(biased; …)` polls them, and
//! so sends them, in the order written):
//!
//! | transaction   | round trips | how |
//! |---------------|-------------|-----|
//! | New-Order     | 2 | BEGIN, district (locks it, takes the order id), warehouse, customer, items, stock updates; then the three inserts and COMMIT |
//! | Payment       | 1 | BEGIN, warehouse, district, customer + history (one statement), COMMIT |
//! | Order-Status  | 1 | one read-only statement (one snapshot) |
//! | Delivery      | 1 | BEGIN, ten one-statement district deliveries, COMMIT |
//! | Stock-Level   | 1 | one read-only statement |
//!
//! Lost updates are impossible under READ COMMITTED because every read-modify-write is a single `UPDATE`
//! (which re-reads the row after waiting for its lock), and the New-Order lines are sorted by item id so
//! that concurrent orders lock stock rows in one order.

use futures_util::future::join_all;
use oltpgen_datagen::tpcc::input::{
    CustomerSelector, DeliveryInput, NewOrderInput, OrderStatusInput, PaymentInput, StockLevelInput, TxnInput,
};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Error, Row, Statement};

use crate::run::Done as Outcome;

// New-Order's first round trip: lock the district and take the order id, then read and update.
const NO_DISTRICT: &str = "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 \
     RETURNING d_next_o_id - 1, d_tax";
const NO_WAREHOUSE: &str = "SELECT w_tax FROM warehouse WHERE w_id = $1";
const NO_CUSTOMER: &str =
    "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3";
// Prices come back in cents, so the client computes amounts exactly without a decimal type.
const NO_ITEMS: &str =
    "SELECT i_id, (i_price * 100)::int4, i_name, i_data FROM item WHERE i_id = ANY($1::int4[]) ORDER BY i_id";
// 2.4.2.2: quantity drops by q, or wraps by 91 when it would fall under 10.
const NO_STOCK: &str = "UPDATE stock SET \
       s_quantity = CASE WHEN s_quantity >= v.q + 10 THEN s_quantity - v.q ELSE s_quantity - v.q + 91 END, \
       s_ytd = s_ytd + v.q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + v.remote \
     FROM unnest($1::int4[], $2::int4[], $3::int4[], $4::int4[]) AS v(i_id, w_id, q, remote) \
     WHERE s_i_id = v.i_id AND s_w_id = v.w_id \
     RETURNING s_i_id, s_w_id, s_quantity, s_data, CASE $5::int4 \
       WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 \
       WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 \
       WHEN 9 THEN s_dist_09 ELSE s_dist_10 END";
// New-Order's second round trip.
const NO_ORDER: &str = "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) \
     VALUES ($1, $2, $3, $4, localtimestamp, NULL, $5, $6)";
const NO_NEW_ORDER: &str = "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)";
const NO_LINES: &str = "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, \
       ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) \
     SELECT $1, $2, $3, v.n, v.i_id, v.w_id, NULL, v.q, v.cents / 100.0, v.dist \
     FROM unnest($4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int8[], $9::text[]) AS v(n, i_id, w_id, q, cents, dist)";

const PAY_WAREHOUSE: &str = "UPDATE warehouse SET w_ytd = w_ytd + $2::int8 / 100.0 WHERE w_id = $1 \
     RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip";
const PAY_DISTRICT: &str = "UPDATE district SET d_ytd = d_ytd + $3::int8 / 100.0 WHERE d_w_id = $1 AND d_id = $2 \
     RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip";
/// The customer part of Payment, for a customer chosen by `pick` (a CTE named `pick` yielding one c_id):
/// update the balance, prepend to c_data for bad credit (2.5.2.2), and insert the history row.
macro_rules! pay_customer {
    ($pick:literal) => {
        concat!(
            "WITH pick AS (",
            $pick,
            "), c AS (UPDATE customer SET c_balance = c_balance - $6::int8 / 100.0, \
               c_ytd_payment = c_ytd_payment + $6::int8 / 100.0, c_payment_cnt = c_payment_cnt + 1, \
               c_data = CASE WHEN c_credit = 'BC' THEN left(concat_ws(' ', c_id, c_d_id, c_w_id, $2::int4, $1::int4, \
                 to_char($6::int8 / 100.0, 'FM99990.00')) || ' ' || c_data, 500) ELSE c_data END \
             FROM pick WHERE c_w_id = $3 AND c_d_id = $4 AND c_id = pick.id \
             RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, \
               c_since, c_credit, c_credit_lim, c_discount, c_balance, CASE WHEN c_credit = 'BC' THEN left(c_data, 200) END), \
             h AS (INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
               SELECT c.c_id, $4, $3, $2, $1, localtimestamp, $6::int8 / 100.0, \
                 (SELECT w_name FROM warehouse WHERE w_id = $1) || '    ' || \
                 (SELECT d_name FROM district WHERE d_w_id = $1 AND d_id = $2) FROM c) \
             SELECT * FROM c"
        )
    };
}
const PAY_BY_ID: &str = pay_customer!("SELECT $5::int4 AS id");
// 2.5.2.2: the matching customers ordered by c_first, the one at position ceil(n / 2).
const PAY_BY_NAME: &str = pay_customer!(
    "SELECT c_id AS id FROM customer WHERE c_w_id = $3 AND c_d_id = $4 AND c_last = $5::text ORDER BY c_first \
     OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = $3 AND c_d_id = $4 AND c_last = $5::text) LIMIT 1"
);

/// Order-Status for a customer chosen by `pick`: the customer, their latest order and its lines, in one snapshot.
macro_rules! order_status {
    ($pick:literal) => {
        concat!(
            "WITH c AS (",
            $pick,
            "), o AS (SELECT o_id, o_entry_d, o_carrier_id FROM orders, c \
               WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = c.c_id ORDER BY o_id DESC LIMIT 1) \
             SELECT c.c_id, c.c_balance, c.c_first, c.c_middle, c.c_last, o.o_id, o.o_entry_d, o.o_carrier_id, \
               l.ol_i_id, l.ol_supply_w_id, l.ol_quantity, l.ol_amount, l.ol_delivery_d \
             FROM c LEFT JOIN o ON true LEFT JOIN order_line l \
               ON l.ol_w_id = $1 AND l.ol_d_id = $2 AND l.ol_o_id = o.o_id"
        )
    };
}
const OS_BY_ID: &str = order_status!(
    "SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer \
     WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3::int4"
);
const OS_BY_NAME: &str = order_status!(
    "SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer \
     WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text ORDER BY c_first \
     OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text) LIMIT 1"
);

// 2.7.4.2, one district: the oldest new order is deleted (a concurrent Delivery that took it first
// leaves nothing to delete after the lock wait, and the district is skipped), then its order, lines and
// customer are updated. Returns one row when an order was delivered.
const DELIVERY: &str = "WITH n AS (DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = \
       (SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2) RETURNING no_o_id), \
     o AS (UPDATE orders SET o_carrier_id = $3 FROM n WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = n.no_o_id \
       RETURNING o_id, o_c_id), \
     l AS (UPDATE order_line SET ol_delivery_d = localtimestamp FROM n \
       WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = n.no_o_id RETURNING ol_amount), \
     c AS (UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM l), \
       c_delivery_cnt = c_delivery_cnt + 1 FROM o WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = o.o_c_id RETURNING c_id) \
     SELECT o_id FROM o";

// 2.8.2.2: distinct items of the district's last 20 orders whose home stock is under the threshold.
const STOCK_LEVEL: &str = "SELECT count(DISTINCT s_i_id) FROM district \
     JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id \
     JOIN stock ON s_w_id = d_w_id AND s_i_id = ol_i_id \
     WHERE d_w_id = $1 AND d_id = $2 AND s_quantity < $3";

/// Every statement, prepared once per connection.
pub struct Statements {
    begin: Statement,
    commit: Statement,
    rollback: Statement,
    no_district: Statement,
    no_warehouse: Statement,
    no_customer: Statement,
    no_items: Statement,
    no_stock: Statement,
    no_order: Statement,
    no_new_order: Statement,
    no_lines: Statement,
    pay_warehouse: Statement,
    pay_district: Statement,
    pay_by_id: Statement,
    pay_by_name: Statement,
    os_by_id: Statement,
    os_by_name: Statement,
    delivery: Statement,
    stock_level: Statement,
}

impl Statements {
    /// Prepares every statement on `client` (pipelined: one round trip for all).
    ///
    /// # Errors
    /// The server's error when a statement does not prepare (the schema is not TPC-C's).
    pub async fn prepare(client: &Client) -> Result<Self, Error> {
        let sql = [
            "BEGIN",
            "COMMIT",
            "ROLLBACK",
            NO_DISTRICT,
            NO_WAREHOUSE,
            NO_CUSTOMER,
            NO_ITEMS,
            NO_STOCK,
            NO_ORDER,
            NO_NEW_ORDER,
            NO_LINES,
            PAY_WAREHOUSE,
            PAY_DISTRICT,
            PAY_BY_ID,
            PAY_BY_NAME,
            OS_BY_ID,
            OS_BY_NAME,
            DELIVERY,
            STOCK_LEVEL,
        ];
        let prepared = join_all(sql.iter().map(|s| client.prepare(s))).await;
        let mut it = prepared.into_iter();
        let mut next = || it.next().expect("one statement per query");
        Ok(Statements {
            begin: next()?,
            commit: next()?,
            rollback: next()?,
            no_district: next()?,
            no_warehouse: next()?,
            no_customer: next()?,
            no_items: next()?,
            no_stock: next()?,
            no_order: next()?,
            no_new_order: next()?,
            no_lines: next()?,
            pay_warehouse: next()?,
            pay_district: next()?,
            pay_by_id: next()?,
            pay_by_name: next()?,
            os_by_id: next()?,
            os_by_name: next()?,
            delivery: next()?,
            stock_level: next()?,
        })
    }
}

/// Runs one transaction to its end: committed, rolled back as the spec asks, or failed (and then not
/// left open: the connection is ready for the next transaction, or broken).
///
/// # Errors
/// The first error the server reported; the transaction is rolled back.
pub async fn execute(client: &Client, st: &Statements, input: &TxnInput) -> Result<Outcome, Error> {
    match input {
        TxnInput::NewOrder(i) => new_order(client, st, i).await,
        TxnInput::Payment(i) => payment(client, st, i).await,
        TxnInput::OrderStatus(i) => order_status(client, st, i).await,
        TxnInput::Delivery(i) => delivery(client, st, i).await,
        TxnInput::StockLevel(i) => stock_level(client, st, i).await,
    }
}

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// The first error of a pipeline, or its rows.
fn all_ok(results: Vec<Result<Vec<Row>, Error>>) -> Result<Vec<Vec<Row>>, Error> {
    results.into_iter().collect()
}

/// Runs `statements` pipelined inside one transaction ending with COMMIT; on an error the COMMIT has
/// already ended the (aborted) transaction, so only the first error is returned.
async fn one_trip(
    client: &Client,
    st: &Statements,
    statements: &[(&Statement, Params<'_>)],
) -> Result<Vec<Vec<Row>>, Error> {
    let begin = client.query(&st.begin, &[]);
    let body = statements.iter().map(|(s, p)| client.query(*s, p));
    let commit = client.query(&st.commit, &[]);
    let (_, rows, _) = tokio::join!(biased; begin, join_all(body), commit);
    all_ok(rows)
}

async fn new_order(client: &Client, st: &Statements, i: &NewOrderInput) -> Result<Outcome, Error> {
    let (w, d, c) = (i.w_id as i32, i.d_id as i32, i.c_id as i32);
    let n = i.lines.len();
    let mut item_ids = Vec::with_capacity(n);
    let mut supply = Vec::with_capacity(n);
    let mut qty = Vec::with_capacity(n);
    let mut remote = Vec::with_capacity(n);
    for l in i.lines.iter() {
        item_ids.push(l.i_id as i32);
        supply.push(l.supply_w_id as i32);
        qty.push(l.quantity as i32);
        remote.push(i32::from(l.supply_w_id != i.w_id));
    }
    let (p_district, p_warehouse, p_customer): (Params, Params, Params) = (&[&w, &d], &[&w], &[&w, &d, &c]);
    let (p_items, p_stock): (Params, Params) = (&[&item_ids], &[&item_ids, &supply, &qty, &remote, &d]);
    let (begin, district, warehouse, customer, items, stock) = tokio::join!(
        biased;
        client.query(&st.begin, &[]),
        client.query_one(&st.no_district, p_district),
        client.query_one(&st.no_warehouse, p_warehouse),
        client.query_one(&st.no_customer, p_customer),
        client.query(&st.no_items, p_items),
        client.query(&st.no_stock, p_stock),
    );
    let first = (|| Ok::<_, Error>((begin?, district?, warehouse?, customer?, items?, stock?)))();
    let (_, district, _warehouse, _customer, items, stock) = match first {
        Ok(r) => r,
        Err(e) => {
            let _ = client.query(&st.rollback, &[]).await;
            return Err(e);
        }
    };
    // 2.4.2.3: an item that does not exist rolls the whole order back.
    if items.len() < n {
        client.query(&st.rollback, &[]).await?;
        return Ok(Outcome { rolled_back: true });
    }
    let o_id: i32 = district.get(0);
    // Lines and items are both sorted by item id (the ids are distinct): zip them.
    let mut numbers = Vec::with_capacity(n);
    let mut cents = Vec::with_capacity(n);
    let mut dist: Vec<&str> = Vec::with_capacity(n);
    for (k, (line, item)) in i.lines.iter().zip(&items).enumerate() {
        numbers.push(k as i32 + 1);
        cents.push(i64::from(item.get::<_, i32>(1)) * i64::from(line.quantity));
        let s = stock.iter().find(|s| {
            s.get::<_, i32>(0) == line.i_id as i32 && s.get::<_, i32>(1) == line.supply_w_id as i32
        });
        dist.push(s.map_or("", |s| s.get(4)));
    }
    let (ol_cnt, all_local) = (n as i32, i32::from(i.all_local));
    let p_order: Params = &[&o_id, &d, &w, &c, &ol_cnt, &all_local];
    let p_new_order: Params = &[&o_id, &d, &w];
    let p_lines: Params = &[&o_id, &d, &w, &numbers, &item_ids, &supply, &qty, &cents, &dist];
    let (order, new_order, lines, commit) = tokio::join!(
        biased;
        client.execute(&st.no_order, p_order),
        client.execute(&st.no_new_order, p_new_order),
        client.execute(&st.no_lines, p_lines),
        client.execute(&st.commit, &[]),
    );
    order?;
    new_order?;
    lines?;
    commit?;
    Ok(Outcome::default())
}

async fn payment(client: &Client, st: &Statements, i: &PaymentInput) -> Result<Outcome, Error> {
    let (w, d, cw, cd, amount) =
        (i.w_id as i32, i.d_id as i32, i.c_w_id as i32, i.c_d_id as i32, i.h_amount_cents);
    let by_id;
    let by_name;
    let (customer, key): (&Statement, &(dyn ToSql + Sync)) = match &i.customer {
        CustomerSelector::ById(id) => {
            by_id = *id as i32;
            (&st.pay_by_id, &by_id)
        }
        CustomerSelector::ByLastName(name) => {
            by_name = name.as_str();
            (&st.pay_by_name, &by_name)
        }
    };
    let rows = one_trip(
        client,
        st,
        &[
            (&st.pay_warehouse, &[&w, &amount]),
            (&st.pay_district, &[&w, &d, &amount]),
            (customer, &[&w, &d, &cw, &cd, key, &amount]),
        ],
    )
    .await?;
    debug_assert_eq!(rows[2].len(), 1, "Payment found its customer");
    Ok(Outcome::default())
}

async fn order_status(client: &Client, st: &Statements, i: &OrderStatusInput) -> Result<Outcome, Error> {
    let (w, d) = (i.w_id as i32, i.d_id as i32);
    match &i.customer {
        CustomerSelector::ById(id) => client.query(&st.os_by_id, &[&w, &d, &(*id as i32)]).await?,
        CustomerSelector::ByLastName(name) => client.query(&st.os_by_name, &[&w, &d, &name.as_str()]).await?,
    };
    Ok(Outcome::default())
}

async fn delivery(client: &Client, st: &Statements, i: &DeliveryInput) -> Result<Outcome, Error> {
    let (w, carrier) = (i.w_id as i32, i.carrier_id as i32);
    let districts: Vec<i32> = (1..=10).collect();
    let params: Vec<[&(dyn ToSql + Sync); 3]> =
        districts.iter().map(|d| [&w as _, d as _, &carrier as _]).collect();
    let statements: Vec<(&Statement, Params<'_>)> = params.iter().map(|p| (&st.delivery, &p[..])).collect();
    // A district without an undelivered order yields no row and is skipped (2.7.4.2).
    one_trip(client, st, &statements).await?;
    Ok(Outcome::default())
}

async fn stock_level(client: &Client, st: &Statements, i: &StockLevelInput) -> Result<Outcome, Error> {
    let (w, d, threshold) = (i.w_id as i32, i.d_id as i32, i.threshold as i32);
    client.query_one(&st.stock_level, &[&w, &d, &threshold]).await?;
    Ok(Outcome::default())
}
