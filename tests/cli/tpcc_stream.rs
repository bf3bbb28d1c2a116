//! The strongest test of server-side TPC-C, on either engine: one seeded input stream driven by one user
//! through each mode (`--transactions client` and `server`) on two copies of one load must give the same
//! outcome for every transaction and leave the same rows in every table, clock columns aside. The
//! engines' tests bring the copies and read their tables; the driving and the judging are here.

use oltpgen_datagen::tpcc::mix::{KeyingTime, Pacing, ThinkTime, TxnKind};
use oltpgen_driver::Target;
use oltpgen_driver::engine::Conn;
use oltpgen_driver::inventory;
use oltpgen_driver::run::Driven;
use oltpgen_driver::tpcc::{Tpcc, TpccDriver};
use oltpgen_vocab::tpcc::{Outcome, Transactions};

/// The columns that hold the time a row was written: left out of the comparison (`ol_delivery_d` is
/// kept as whether the line was delivered).
pub const CLOCK_COLUMNS: [&str; 3] = ["o_entry_d", "ol_delivery_d", "h_date"];

/// How many transactions the stream holds: enough for rolled-back New-Orders and many Deliveries.
const N: usize = 1500;

/// The stream's seed.
const SEED: u64 = 42;

/// Drives `N` transactions of one user with [`SEED`] through `transactions` on `target`, one after
/// another, through the workload's own session (the same code a run uses).
async fn drive(target: &Target, transactions: Transactions) -> Vec<(usize, Outcome)> {
    let conn = Conn::open(target).await.unwrap();
    let loaded = inventory::loaded(&Tpcc, &conn, target).await.unwrap();
    let pacing = Pacing { keying: KeyingTime::Off, think: ThinkTime::Off };
    let tpcc = TpccDriver::new(vec![(target.clone(), transactions)], &[loaded], pacing, SEED);
    let session = tpcc.connect(0).await.unwrap_or_else(|e| panic!("connecting: {e:?}"));
    let mut user = tpcc.user(0);
    let mut outcomes = Vec::with_capacity(N);
    for _ in 0..N {
        let next = tpcc.next(&mut user);
        let outcome =
            session.execute(&next.input).await.unwrap_or_else(|e| panic!("{:?}: {e:?}", next.input));
        outcomes.push((next.kind, outcome));
    }
    outcomes
}

/// Drives the stream client-side on `client_db` and server-side on `server_db` (two copies of one load),
/// side by side, and asserts that every transaction ended alike and that the stream holds the cases
/// that matter (a rolled-back New-Order, Deliveries).
pub async fn drive_both(client_db: &Target, server_db: &Target) {
    let (client, server) =
        tokio::join!(drive(client_db, Transactions::Client), drive(server_db, Transactions::Server));
    assert_eq!(client, server, "the same outcome for every transaction");
    let rolled_back = server.iter().filter(|(_, o)| o.done.rolled_back).count();
    assert!(rolled_back > 0, "the stream holds a rolled-back New-Order");
    let deliveries = server.iter().filter(|(k, _)| *k == TxnKind::Delivery.index()).count();
    assert!(deliveries > 10, "{deliveries} Deliveries");
}

/// Asserts that two copies' tables, as `(table, every row as text)`, hold the same rows.
#[track_caller]
pub fn assert_same_tables(client_side: &[(String, String)], server_side: &[(String, String)]) {
    assert_eq!(client_side.len(), server_side.len());
    for ((table, left), (_, right)) in client_side.iter().zip(server_side) {
        assert!(left == right, "{table} differs between the client-side and server-side runs");
    }
}
