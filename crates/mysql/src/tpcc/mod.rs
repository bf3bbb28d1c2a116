//! TPC-C on MySQL and MariaDB: the five transactions server-side ([`procs`]: stored procedures, one
//! call each) or client-side ([`txn`]: the statements sent one by one, as go-tpc and sysbench-tpcc
//! run them), and the queries of clause 3.3.2's checks ([`check`]).

pub mod check;
pub mod procs;
pub mod txn;

use mysql_async::prelude::Queryable;
use oltpgen_datagen::tpcc::input::TxnInput;
use tokio::sync::Mutex;

use super::{ADMIN_TIMEOUT, TXN_TIMEOUT, failed, settle, timed};
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::tpcc::{Outcome, Transactions};
use oltpgen_vocab::{Error, Target};

/// How TPC-C's transactions run unless the user says: server-side, one round trip per transaction
/// (BENCHMARKS.md, "oltpgen and the peers at home", under MySQL and MariaDB).
pub const DEFAULT_TRANSACTIONS: Transactions = Transactions::Server;

/// The isolation level every transaction runs at, as results record it.
pub const ISOLATION: &str = "read committed";

/// Opens a run's sessions on one target, the transactions run as the run says.
pub struct Connector {
    target: Target,
    transactions: Transactions,
}

impl Connector {
    /// The connector of a run on `target` whose transactions run as `transactions` says.
    pub fn new(target: Target, transactions: Transactions) -> Self {
        Connector { target, transactions }
    }

    /// Connects to the target at READ COMMITTED.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when the session's
    /// isolation cannot be set.
    pub async fn open(&self) -> Result<Session, TxnError> {
        Ok(Session {
            conn: Mutex::new(super::open_session(&self.target).await?),
            transactions: self.transactions,
        })
    }
}

/// A connection that runs the five transactions server-side or client-side.
pub struct Session {
    conn: Mutex<mysql_async::Conn>,
    transactions: Transactions,
}

impl Session {
    /// Runs one transaction to its end; when it fails, what is left of it is rolled back ([`settle`]).
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn execute(&self, input: &TxnInput) -> Result<Outcome, TxnError> {
        let mut conn = self.conn.lock().await;
        let ran = match self.transactions {
            Transactions::Server => timed(TXN_TIMEOUT, txn::call(&mut conn, input)).await,
            Transactions::Client => timed(TXN_TIMEOUT, txn::execute(&mut conn, input)).await,
        };
        settle(&mut conn, ran).await
    }
}

/// Makes `target` ready for a run's transactions before its first session opens: server-side, the
/// procedures a database lacks (one loaded by an oltpgen from before them, or by hand); client-side,
/// nothing.
///
/// # Errors
/// [`Error`] naming the target when the server refuses to create them.
pub async fn ready(target: &Target, transactions: Transactions) -> Result<(), Error> {
    if transactions == Transactions::Client {
        return Ok(());
    }
    let mut conn = super::connect(target).await?;
    let what = "creating the TPC-C procedures";
    let present: Option<i64> = timed(ADMIN_TIMEOUT, conn.query_first(procs::count_existing()))
        .await
        .map_err(|e| failed(what, target, &e))?;
    if present == Some(procs::NAMES.len() as i64) {
        return Ok(());
    }
    for sql in procs::statements() {
        timed(ADMIN_TIMEOUT, conn.query_drop(sql)).await.map_err(|e| failed(what, target, &e))?;
    }
    Ok(())
}
