//! The five TPC-C transactions (2.4–2.8) in PostgreSQL's SQL, as client-side prepared statements.
//!
//! Round trips are the client's main cost, so each transaction is written to need as few as its data
//! dependencies allow, with the statements of one round trip pipelined (tokio-postgres sends every query
//! of futures polled together before it waits for the first answer; `join!(biased; …)` polls them, and
//! so sends them, in the order written):
//!
//! | transaction   | round trips | how |
//! |---------------|-------------|-----|
//! | New-Order     | 2 | BEGIN, district (locks it, takes the order id), warehouse, customer, items, stock updates; then the three inserts and COMMIT (or, for an unused item, ROLLBACK) |
//! | Payment       | 1 | BEGIN, warehouse, district, customer + history (one statement), COMMIT |
//! | Order-Status  | 1 | one read-only statement (one snapshot) |
//! | Delivery      | 1 | BEGIN, ten one-statement district deliveries, COMMIT |
//! | Stock-Level   | 1 | one read-only statement |
//!
//! Lost updates are impossible under READ COMMITTED because every read-modify-write is a single `UPDATE`
//! (which re-reads the row after waiting for its lock), and the New-Order lines are sorted by item id so
//! that concurrent orders lock stock rows in one order. That argument holds for READ COMMITTED only, so
//! every transaction pins it ([`ISOLATION`]), whatever the server's default, and every COMMIT's answer
//! is checked: a COMMIT that fails is the transaction's failure.

use futures_util::future::join_all;
use oltpgen_datagen::tpcc::consts::MAX_OL_CNT;
use oltpgen_datagen::tpcc::input::{
    CustomerSelector, DeliveryInput, NewOrderInput, OrderLineInput, OrderStatusInput, PaymentInput,
    StockLevelInput, TxnInput,
};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Error, Row, Statement};

use oltpgen_vocab::outcome::Done;
use oltpgen_vocab::tpcc::Outcome;

/// The isolation level every transaction runs at, as results record it.
pub const ISOLATION: &str = "read committed";
const BEGIN: &str = "BEGIN ISOLATION LEVEL READ COMMITTED";
// The read-only transactions are one statement each, outside BEGIN: the session's level covers them.
pub(super) const SESSION_ISOLATION: &str =
    "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED";

const MAX_LINES: usize = MAX_OL_CNT as usize;

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
/// update the balance, prepend to c_data for bad credit (2.5.2.2), and insert the history row. A Payment
/// that matches no customer must not commit (its warehouse and district were paid): the history row is
/// then inserted with no customer, which its NOT NULL `h_c_id` refuses, so the transaction aborts with an
/// error naming the history row, at no cost to the Payments that find their customer.
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
                 (SELECT d_name FROM district WHERE d_w_id = $1 AND d_id = $2) FROM (SELECT) AS one LEFT JOIN c ON true) \
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

// 2.7.4.2, one district: the oldest new order still there is locked and deleted, then its order, lines
// and customer are updated. Returns one row when an order was delivered, none when the district had no
// new order (skipped). 3.4.1: the lock is taken by `FOR UPDATE` under the `LIMIT`, so when a concurrent
// Delivery deleted the oldest order while this one waited for its lock, the scan goes on to the next
// oldest instead of finding nothing (a `DELETE … WHERE no_o_id = (SELECT min …)` rechecks the one row it
// chose, finds it gone and skips a district that still has orders: no serial order gives that).
const DELIVERY: &str = "WITH oldest AS (SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 \
       ORDER BY no_o_id LIMIT 1 FOR UPDATE), \
     n AS (DELETE FROM new_order USING oldest WHERE no_w_id = $1 AND no_d_id = $2 AND new_order.no_o_id = oldest.no_o_id \
       RETURNING new_order.no_o_id), \
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
    /// Pins the session's isolation level (for the one-statement reads) and prepares every statement on
    /// `client` (pipelined: one round trip for all).
    ///
    /// # Errors
    /// The server's error when a statement does not prepare (the schema is not TPC-C's).
    pub async fn prepare(client: &Client) -> Result<Self, Error> {
        client.batch_execute(SESSION_ISOLATION).await?;
        let sql = [
            BEGIN,
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

/// Runs `statements` pipelined inside one transaction ending with COMMIT. The first error wins: a
/// statement's (the COMMIT then ended the aborted transaction), else the COMMIT's own (a serialization
/// failure or a deferred constraint met at commit, a connection lost before its answer).
async fn one_trip(
    client: &Client,
    st: &Statements,
    statements: &[(&Statement, Params<'_>)],
) -> Result<Vec<Vec<Row>>, Error> {
    let begin = client.query(&st.begin, &[]);
    let body = statements.iter().map(|(s, p)| client.query(*s, p));
    let commit = client.query(&st.commit, &[]);
    let (begin, rows, commit) = tokio::join!(biased; begin, join_all(body), commit);
    begin?;
    let rows = all_ok(rows)?;
    commit?;
    Ok(rows)
}

/// 2.4.1.5.1: an order may name an item (a stock row) more than once, and each line updates its stock
/// row as if it were the only one. A set-based UPDATE touches a row once however often it is named, so
/// the lines go in passes: pass `k` updates the `k`-th naming of each stock row, one statement per pass,
/// pipelined in order (nearly every order needs one pass). Returns each line's pass and the pass count.
pub(super) fn stock_passes(lines: &[OrderLineInput]) -> ([u8; MAX_LINES], usize) {
    let mut pass = [0u8; MAX_LINES];
    for (k, line) in lines.iter().enumerate() {
        let same = |other: &OrderLineInput| other.i_id == line.i_id && other.supply_w_id == line.supply_w_id;
        pass[k] = lines[..k].iter().filter(|other| same(other)).count() as u8;
    }
    let passes = lines.len().min(1) + pass[..lines.len()].iter().copied().max().map_or(0, usize::from);
    (pass, passes)
}

/// One pass of stock updates (see [`stock_passes`]): the lines' columns, as the statement binds them.
#[derive(Default)]
struct StockPass {
    item_ids: Vec<i32>,
    supply: Vec<i32>,
    qty: Vec<i32>,
    remote: Vec<i32>,
}

impl StockPass {
    /// The order's stock passes, and each line's pass ([`stock_passes`]).
    fn of_order(i: &NewOrderInput) -> ([u8; MAX_LINES], Vec<StockPass>) {
        let (pass_of, passes) = stock_passes(&i.lines);
        let mut stock_passes: Vec<StockPass> = (0..passes).map(|_| StockPass::default()).collect();
        for (l, &p) in i.lines.iter().zip(&pass_of) {
            let p = &mut stock_passes[usize::from(p)];
            p.item_ids.push(l.i_id as i32);
            p.supply.push(l.supply_w_id as i32);
            p.qty.push(l.quantity as i32);
            p.remote.push(i32::from(l.supply_w_id != i.w_id));
        }
        (pass_of, stock_passes)
    }
}

/// The order's lines as the insert binds them: those whose item exists, each with its number, its
/// amount in cents and its stock row's district information.
struct Lines<'a> {
    numbers: Vec<i32>,
    /// The lines' items, supplying warehouses and quantities (`remote` unused).
    valid: StockPass,
    cents: Vec<i64>,
    dist: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    /// The lines of `i` priced from `items` (sorted by id, once each however many lines name them) and
    /// matched with their stock rows (`stock`, one list per pass, `pass_of` each line's).
    fn entered(i: &NewOrderInput, pass_of: &[u8], items: &[Row], stock: &'a [Vec<Row>]) -> Self {
        let n = i.lines.len();
        let price = |i_id: i32| {
            items
                .binary_search_by_key(&i_id, |row| row.get::<_, i32>(0))
                .ok()
                .map(|k| items[k].get::<_, i32>(1))
        };
        let mut entered = Lines {
            numbers: Vec::with_capacity(n),
            valid: StockPass::default(),
            cents: Vec::with_capacity(n),
            dist: Vec::with_capacity(n),
        };
        for (k, (line, &p)) in i.lines.iter().zip(pass_of).enumerate() {
            // 2.4.2.3: an unused item's line is the only step skipped; the rest of the order is entered
            // before the rollback.
            let Some(cents_each) = price(line.i_id as i32) else { continue };
            entered.numbers.push(k as i32 + 1);
            entered.valid.item_ids.push(line.i_id as i32);
            entered.valid.supply.push(line.supply_w_id as i32);
            entered.valid.qty.push(line.quantity as i32);
            entered.cents.push(i64::from(cents_each) * i64::from(line.quantity));
            let s = stock[usize::from(p)].iter().find(|s| {
                s.get::<_, i32>(0) == line.i_id as i32 && s.get::<_, i32>(1) == line.supply_w_id as i32
            });
            entered.dist.push(s.map_or("", |s| s.get(4)));
        }
        entered
    }
}

async fn new_order(client: &Client, st: &Statements, i: &NewOrderInput) -> Result<Outcome, Error> {
    let (pass_of, passes) = StockPass::of_order(i);
    let (district, items, stock) = new_order_reads(client, st, i, &passes).await?;
    let o_id: i32 = district.get(0);
    let lines = Lines::entered(i, &pass_of, &items, &stock);
    // 2.4.2.3: an item that does not exist rolls the whole order back.
    let rolled_back = lines.numbers.len() < i.lines.len();
    new_order_writes(client, st, i, (o_id, rolled_back), &lines).await?;
    // A rolled-back New-Order was never acknowledged: it has no order to keep.
    Ok(Outcome {
        done: Done { rolled_back },
        o_id: (!rolled_back).then_some(o_id as u32),
        ..Outcome::COMMITTED
    })
}

/// New-Order's first round trip: BEGIN, the district (locked, its order id taken), warehouse,
/// customer, items and the stock updates of every pass; ROLLBACK when one fails. Returns the
/// district's row, the items' and each pass's stock rows.
async fn new_order_reads(
    client: &Client,
    st: &Statements,
    i: &NewOrderInput,
    passes: &[StockPass],
) -> Result<(Row, Vec<Row>, Vec<Vec<Row>>), Error> {
    let (w, d, c) = (i.w_id as i32, i.d_id as i32, i.c_id as i32);
    let item_ids: Vec<i32> = i.lines.iter().map(|l| l.i_id as i32).collect();
    let (p_district, p_warehouse, p_customer): (Params, Params, Params) = (&[&w, &d], &[&w], &[&w, &d, &c]);
    let p_items: Params = &[&item_ids];
    let p_stock: Vec<[&(dyn ToSql + Sync); 5]> = passes
        .iter()
        .map(|p| [&p.item_ids as _, &p.supply as _, &p.qty as _, &p.remote as _, &d as _])
        .collect();
    let (begin, district, warehouse, customer, items, stock) = tokio::join!(
        biased;
        client.query(&st.begin, &[]),
        client.query_one(&st.no_district, p_district),
        client.query_one(&st.no_warehouse, p_warehouse),
        client.query_one(&st.no_customer, p_customer),
        client.query(&st.no_items, p_items),
        join_all(p_stock.iter().map(|p| client.query(&st.no_stock, &p[..]))),
    );
    let first = (|| Ok::<_, Error>((begin?, district?, warehouse?, customer?, items?, all_ok(stock)?)))();
    match first {
        Ok((_, district, _warehouse, _customer, items, stock)) => Ok((district, items, stock)),
        Err(e) => {
            let _ = client.query(&st.rollback, &[]).await;
            Err(e)
        }
    }
}

/// New-Order's second round trip: the order, the new order and the `lines` inserted, then COMMIT, or
/// ROLLBACK when the order is `rolled_back` (numbered `o_id`).
async fn new_order_writes(
    client: &Client,
    st: &Statements,
    i: &NewOrderInput,
    (o_id, rolled_back): (i32, bool),
    lines: &Lines<'_>,
) -> Result<(), Error> {
    let (w, d, c) = (i.w_id as i32, i.d_id as i32, i.c_id as i32);
    let (ol_cnt, all_local) = (i.lines.len() as i32, i32::from(i.all_local));
    let p_order: Params = &[&o_id, &d, &w, &c, &ol_cnt, &all_local];
    let p_new_order: Params = &[&o_id, &d, &w];
    let valid = &lines.valid;
    let p_lines: Params = &[
        &o_id,
        &d,
        &w,
        &lines.numbers,
        &valid.item_ids,
        &valid.supply,
        &valid.qty,
        &lines.cents,
        &lines.dist,
    ];
    let end = if rolled_back { &st.rollback } else { &st.commit };
    let (order, new_order, lines, end) = tokio::join!(
        biased;
        client.execute(&st.no_order, p_order),
        client.execute(&st.no_new_order, p_new_order),
        client.execute(&st.no_lines, p_lines),
        client.execute(end, &[]),
    );
    order?;
    new_order?;
    lines?;
    end?;
    Ok(())
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
    debug_assert_eq!(rows[2].len(), 1, "a Payment that found no customer failed above");
    Ok(Outcome::COMMITTED)
}

async fn order_status(client: &Client, st: &Statements, i: &OrderStatusInput) -> Result<Outcome, Error> {
    let (w, d) = (i.w_id as i32, i.d_id as i32);
    match &i.customer {
        CustomerSelector::ById(id) => client.query(&st.os_by_id, &[&w, &d, &(*id as i32)]).await?,
        CustomerSelector::ByLastName(name) => client.query(&st.os_by_name, &[&w, &d, &name.as_str()]).await?,
    };
    Ok(Outcome::COMMITTED)
}

async fn delivery(client: &Client, st: &Statements, i: &DeliveryInput) -> Result<Outcome, Error> {
    let (w, carrier) = (i.w_id as i32, i.carrier_id as i32);
    let districts: Vec<i32> = (1..=10).collect();
    let params: Vec<[&(dyn ToSql + Sync); 3]> =
        districts.iter().map(|d| [&w as _, d as _, &carrier as _]).collect();
    let statements: Vec<(&Statement, Params<'_>)> = params.iter().map(|p| (&st.delivery, &p[..])).collect();
    // 2.7.4.2: a district without an undelivered order yields no row and is skipped.
    let delivered = one_trip(client, st, &statements).await?;
    let skipped_districts = delivered.iter().filter(|rows| rows.is_empty()).count() as u8;
    Ok(Outcome { skipped_districts, ..Outcome::COMMITTED })
}

async fn stock_level(client: &Client, st: &Statements, i: &StockLevelInput) -> Result<Outcome, Error> {
    let (w, d, threshold) = (i.w_id as i32, i.d_id as i32, i.threshold as i32);
    client.query_one(&st.stock_level, &[&w, &d, &threshold]).await?;
    Ok(Outcome::COMMITTED)
}
