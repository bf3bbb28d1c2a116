//! TPC-C on PostgreSQL: the five transactions client-side ([`txn`]: statements) and server-side
//! ([`procs`]: PL/pgSQL functions), and the queries of clause 3.3.2's checks ([`check`]).

pub mod check;
pub mod procs;
pub mod txn;

use oltpgen_datagen::tpcc::input::TxnInput;

use super::error::txn_error;
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::tpcc::{Outcome, Transactions};
use oltpgen_vocab::{Error, Target};

/// How TPC-C's transactions run unless the user says: server-side, which gave more transactions and less
/// client CPU per transaction in every measurement (BENCHMARKS.md, "TPC-C by engine and mode").
pub const DEFAULT_TRANSACTIONS: Transactions = Transactions::Server;

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

    /// Connects to the target and prepares the transactions to run as the run says.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    pub async fn open(&self) -> Result<Session, TxnError> {
        let client = super::connect(&self.target).await.map_err(|_| TxnError::LOST)?;
        let prepared = match self.transactions {
            Transactions::Client => txn::Statements::prepare(&client).await.map(Prepared::Client),
            Transactions::Server => {
                // The calls' implicit transactions run at the session's level: pin it as the client does.
                client.batch_execute(txn::SESSION_ISOLATION).await.map_err(|e| txn_error(&e))?;
                procs::Calls::prepare(&client).await.map(Prepared::Server)
            }
        }
        .map_err(|e| txn_error(&e))?;
        Ok(Session { client, prepared })
    }
}

/// A connection with the five transactions prepared, client-side or server-side.
pub struct Session {
    client: super::Client,
    prepared: Prepared,
}

/// What a session prepared: the statements, or the function calls.
enum Prepared {
    Client(txn::Statements),
    Server(procs::Calls),
}

impl Session {
    /// Runs one transaction to its end (see [`txn::execute`] and [`procs::execute`]).
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn execute(&self, input: &TxnInput) -> Result<Outcome, TxnError> {
        match &self.prepared {
            Prepared::Client(statements) => txn::execute(&self.client, statements, input).await,
            Prepared::Server(calls) => procs::execute(&self.client, calls, input).await,
        }
        .map_err(|e| txn_error(&e))
    }
}

/// Makes `target` ready for a run's transactions before its first session opens: server-side, the
/// functions ([`ensure_procs`]: a database loaded before they existed, or with an older version of
/// them, needs no reload); client-side, nothing.
///
/// # Errors
/// [`Error`] naming the target when the server refuses to create them.
pub async fn ready(target: &Target, transactions: Transactions) -> Result<(), Error> {
    match transactions {
        Transactions::Client => Ok(()),
        Transactions::Server => ensure_procs(target).await.map(|_| ()),
    }
}

/// Creates the server-side transactions on `target` when they are missing or outdated (see
/// [`procs::ensure`]); returns whether it did.
///
/// # Errors
/// [`Error`] naming the target when the server refuses.
pub async fn ensure_procs(target: &Target) -> Result<bool, Error> {
    let client = super::connect(target).await?;
    procs::ensure(&client).await.map_err(|e| super::failed("creating the TPC-C functions", target, &e))
}
