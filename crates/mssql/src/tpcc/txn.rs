//! The five TPC-C transactions as calls of their stored procedures or as the procedures' bodies sent
//! as batches ([`super::procs`]): one round trip each, under a time limit (an error raised while a
//! result streams can leave tiberius waiting).

use std::time::Duration;

use oltpgen_datagen::tpcc::consts::MAX_OL_CNT;
use oltpgen_datagen::tpcc::input::{CustomerSelector, TxnInput};
use tiberius::ToSql;
use tiberius::error::Error;

use super::procs;
use crate::{Client, timed};
use oltpgen_vocab::outcome::Done;
use oltpgen_vocab::tpcc::{Outcome, Transactions};

/// The isolation level every body pins, as results record it.
pub const ISOLATION: &str = "read committed";

/// How long one transaction may take before its connection is given up as lost.
const TXN_TIMEOUT: Duration = Duration::from_secs(60);

/// What a session sends for each transaction, built once: the procedures' calls (server-side) or
/// their bodies as batches (client-side); New-Order's by line count.
pub struct Calls {
    new_order: Vec<String>,
    payment: String,
    order_status: String,
    delivery: String,
    stock_level: String,
}

impl Calls {
    /// The texts for `transactions`: each binds every parameter but New-Order's unused lines.
    pub fn new(transactions: Transactions) -> Self {
        let render = |t: &procs::Txn, bound: usize| match transactions {
            Transactions::Server => t.call(bound),
            Transactions::Client => t.batch(bound),
        };
        let [new_order, payment, order_status, delivery, stock_level] = procs::transactions();
        Calls {
            new_order: (0..=MAX_OL_CNT as usize).map(|lines| render(&new_order, 5 + 3 * lines)).collect(),
            payment: render(&payment, 7),
            order_status: render(&order_status, 4),
            delivery: render(&delivery, 2),
            stock_level: render(&stock_level, 3),
        }
    }
}

/// Runs one transaction to its end: committed, rolled back as the spec asks, or failed (the procedure
/// or batch rolled it back: `XACT_ABORT ON`).
///
/// # Errors
/// The server's error, or a timeout (as an I/O error: the connection is then given up).
pub async fn execute(client: &mut Client, calls: &Calls, input: &TxnInput) -> Result<Outcome, Error> {
    timed(TXN_TIMEOUT, run(client, calls, input)).await
}

/// A selector as the procedures take it: an id and no name, or 0 and a last name (no NULL: Babelfish
/// refuses tiberius' NULL parameters).
fn customer(c: &CustomerSelector) -> (i32, &str) {
    match c {
        CustomerSelector::ById(id) => (*id as i32, ""),
        CustomerSelector::ByLastName(name) => (0, name.as_str()),
    }
}

/// The first row's column `i` of the first result, as an `i32`.
fn first_i32(rows: &[tiberius::Row], i: usize) -> Option<i32> {
    rows.first().and_then(|r| r.get::<i32, _>(i))
}

async fn run(client: &mut Client, calls: &Calls, input: &TxnInput) -> Result<Outcome, Error> {
    match input {
        TxnInput::NewOrder(i) => {
            let head =
                [i.w_id as i32, i.d_id as i32, i.c_id as i32, i.lines.len() as i32, i32::from(i.all_local)];
            let lines: Vec<i32> = i
                .lines
                .iter()
                .flat_map(|l| [l.i_id as i32, l.supply_w_id as i32, l.quantity as i32])
                .collect();
            let params: Vec<&dyn ToSql> = head.iter().chain(&lines).map(|v| v as &dyn ToSql).collect();
            let rows =
                client.query(&calls.new_order[i.lines.len()], &params).await?.into_first_result().await?;
            // 2.4.2.3: the body says whether it rolled back, and the order's id.
            let rolled_back = first_i32(&rows, 1) == Some(1);
            let o_id = first_i32(&rows, 0).filter(|_| !rolled_back).map(|o| o as u32);
            Ok(Outcome { done: Done { rolled_back }, o_id, ..Outcome::COMMITTED })
        }
        TxnInput::Payment(i) => {
            let (id, name) = customer(&i.customer);
            let (w, d, cw, cd) = (i.w_id as i32, i.d_id as i32, i.c_w_id as i32, i.c_d_id as i32);
            let params: [&dyn ToSql; 7] = [&w, &d, &cw, &cd, &id, &name, &i.h_amount_cents];
            client.query(&calls.payment, &params).await?.into_results().await?;
            Ok(Outcome::COMMITTED)
        }
        TxnInput::OrderStatus(i) => {
            let (id, name) = customer(&i.customer);
            let (w, d) = (i.w_id as i32, i.d_id as i32);
            client.query(&calls.order_status, &[&w, &d, &id, &name]).await?.into_results().await?;
            Ok(Outcome::COMMITTED)
        }
        TxnInput::Delivery(i) => {
            let (w, carrier) = (i.w_id as i32, i.carrier_id as i32);
            let rows = client.query(&calls.delivery, &[&w, &carrier]).await?.into_first_result().await?;
            // 2.7.4.2: districts without an undelivered order were skipped.
            let skipped_districts = first_i32(&rows, 0).unwrap_or(0) as u8;
            Ok(Outcome { skipped_districts, ..Outcome::COMMITTED })
        }
        TxnInput::StockLevel(i) => {
            let (w, d, threshold) = (i.w_id as i32, i.d_id as i32, i.threshold as i32);
            client.query(&calls.stock_level, &[&w, &d, &threshold]).await?.into_first_result().await?;
            Ok(Outcome::COMMITTED)
        }
    }
}
