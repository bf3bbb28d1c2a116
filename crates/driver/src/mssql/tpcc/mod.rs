//! TPC-C on SQL Server: the five transactions in T-SQL ([`procs`]: stored procedures created at load and
//! on a database that lacks them, or the same bodies as batches), their calls or batches ([`txn`]) and
//! the queries of clause 3.3.2's checks ([`check`]).

pub mod check;
pub mod procs;
pub mod txn;

use std::collections::BTreeSet;
use std::sync::LazyLock;

use oltpgen_datagen::tpcc::input::TxnInput;
use tokio::sync::Mutex;

use super::error::txn_error;
use crate::Target;
use crate::run::TxnError;
use crate::tpcc::{Outcome, Transactions};

/// The databases (by label) this process saw holding the procedures, so that only the first session
/// of a run asks.
static READY: LazyLock<Mutex<BTreeSet<String>>> = LazyLock::new(|| Mutex::new(BTreeSet::new()));

/// A connection that runs the five transactions server-side (calling the procedures) or client-side
/// (sending their bodies).
pub struct Session {
    client: Mutex<Box<super::Client>>,
    calls: txn::Calls,
}

impl Session {
    /// Connects to `target` to run the transactions as `transactions` says; server-side, creates the
    /// procedures first when the database lacks them (a database loaded by another tool, or by an
    /// oltpgen from before them). Client-side needs no procedure, nor the right to create one.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when the procedures cannot
    /// be created.
    pub async fn open(target: &Target, transactions: Transactions) -> Result<Self, TxnError> {
        let client = super::connect(target).await.map_err(|_| TxnError::LOST)?;
        let session = Session { client: Mutex::new(Box::new(client)), calls: txn::Calls::new(transactions) };
        if transactions == Transactions::Client {
            return Ok(session);
        }
        let mut ready = READY.lock().await;
        if !ready.contains(target.label()) {
            let mut client = session.client.lock().await;
            ensure_procedures(&mut client).await.map_err(|e| txn_error(&e))?;
            ready.insert(target.label().to_string());
        }
        drop(ready);
        Ok(session)
    }

    /// Runs one transaction to its end (see [`txn::execute`]).
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn execute(&self, input: &TxnInput) -> Result<Outcome, TxnError> {
        let mut client = self.client.lock().await;
        txn::execute(&mut client, &self.calls, input).await.map_err(|e| txn_error(&e))
    }
}

/// Creates the procedures when one is missing.
async fn ensure_procedures(client: &mut super::Client) -> Result<(), tiberius::error::Error> {
    let rows = super::timed(super::ADMIN_TIMEOUT, async {
        client.simple_query(procs::all_exist()).await?.into_first_result().await
    })
    .await?;
    if rows.first().and_then(|r| r.get::<i32, _>(0)) == Some(1) {
        return Ok(());
    }
    for sql in procs::statements() {
        super::timed(super::ADMIN_TIMEOUT, async { client.simple_query(sql).await?.into_results().await })
            .await?;
    }
    Ok(())
}

/// The statements a TPC-C load runs once its tables and indexes exist: the procedures.
pub fn finish() -> Vec<String> {
    procs::statements()
}
