//! TPC-C on SQL Server: the five transactions in T-SQL ([`procs`]: stored procedures created at load and
//! on a database that lacks them, or the same bodies as batches), their calls or batches ([`txn`]) and
//! the queries of clause 3.3.2's checks ([`check`]).

pub mod check;
pub mod procs;
pub mod txn;

use oltpgen_datagen::tpcc::input::TxnInput;
use tokio::sync::Mutex;

use super::error::txn_error;
use oltpgen_vocab::Target;
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::tpcc::{Outcome, Transactions};

/// How TPC-C's transactions run unless the user says: server-side, which gave more transactions and less
/// client CPU per transaction in every measurement but one noisy pair (BENCHMARKS.md, "Client-side TPC-C
/// on SQL Server").
pub const DEFAULT_TRANSACTIONS: Transactions = Transactions::Server;

/// Opens a run's sessions on one target, the transactions run as the run says, and remembers for the
/// run whether one of its sessions found the procedures in place, so that only the first asks.
pub struct Connector {
    target: Target,
    transactions: Transactions,
    /// Whether a session of this run found (or created) the procedures.
    procedures_ready: Mutex<bool>,
}

impl Connector {
    /// The connector of a run on `target` whose transactions run as `transactions` says.
    pub fn new(target: Target, transactions: Transactions) -> Self {
        Connector { target, transactions, procedures_ready: Mutex::new(false) }
    }

    /// Connects to the target to run the transactions as the run says; server-side, the run's first
    /// session creates the procedures when the database lacks them (a database loaded by another tool,
    /// or by an oltpgen from before them). Client-side needs no procedure, nor the right to create one.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when the procedures cannot
    /// be created.
    pub async fn open(&self) -> Result<Session, TxnError> {
        let client = super::connect(&self.target).await.map_err(|_| TxnError::LOST)?;
        let session =
            Session { client: Mutex::new(Box::new(client)), calls: txn::Calls::new(self.transactions) };
        if self.transactions == Transactions::Client {
            return Ok(session);
        }
        let mut ready = self.procedures_ready.lock().await;
        if !*ready {
            let mut client = session.client.lock().await;
            ensure_procedures(&mut client).await.map_err(|e| txn_error(&e))?;
            *ready = true;
        }
        drop(ready);
        Ok(session)
    }
}

/// A connection that runs the five transactions server-side (calling the procedures) or client-side
/// (sending their bodies).
pub struct Session {
    client: Mutex<Box<super::Client>>,
    calls: txn::Calls,
}

impl Session {
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
