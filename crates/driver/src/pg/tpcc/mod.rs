//! TPC-C on PostgreSQL: the five transactions ([`txn`]) and the queries of clause 3.3.2's checks
//! ([`check`]).

pub mod check;
pub mod txn;

use super::error::txn_error;
use crate::Target;
use crate::run::TxnError;
use crate::tpcc::Outcome;
use oltpgen_datagen::tpcc::input::TxnInput;

/// A connection with the five transactions prepared.
pub struct Session {
    client: super::Client,
    statements: txn::Statements,
}

impl Session {
    /// Connects to `target` and prepares the transactions.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    pub async fn open(target: &Target) -> Result<Self, TxnError> {
        let client = super::connect(target).await.map_err(|_| TxnError::LOST)?;
        let statements = txn::Statements::prepare(&client).await.map_err(|e| txn_error(&e))?;
        Ok(Session { client, statements })
    }

    /// Runs one transaction to its end (see [`txn::execute`]).
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn execute(&self, input: &TxnInput) -> Result<Outcome, TxnError> {
        txn::execute(&self.client, &self.statements, input).await.map_err(|e| txn_error(&e))
    }
}
