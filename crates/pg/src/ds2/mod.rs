//! DS2 on PostgreSQL: its schema beyond tables and indexes, and its server functions ([`sql`]); the
//! operations as a client calls them ([`ops`]); its checks ([`check`]); and databases DS2's own
//! installer built ([`reference`](mod@reference)).

pub mod check;
pub mod ops;
pub mod reference;
pub mod sql;

use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};

use super::error::txn_error;
use oltpgen_vocab::Target;
use oltpgen_vocab::ds2::{Functions, Purchase};
use oltpgen_vocab::outcome::TxnError;

/// A connection with the five operations prepared, each sorted into the run's errors.
pub struct Session {
    client: super::Client,
    statements: ops::Ds2Statements,
}

impl Session {
    /// Connects to `target` and prepares the operations of `functions`.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    pub async fn open(target: &Target, functions: Functions) -> Result<Self, TxnError> {
        let client = super::connect(target).await.map_err(|_| TxnError::LOST)?;
        let statements = ops::Ds2Statements::prepare(&client, functions).await.map_err(|e| txn_error(&e))?;
        Ok(Session { client, statements })
    }

    /// See [`ops::login`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn login(&self, customer_id: i32) -> Result<Option<i32>, TxnError> {
        ops::login(&self.client, &self.statements, customer_id).await.map_err(|e| txn_error(&e))
    }

    /// See [`ops::register`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn register(&self, form: &Registration) -> Result<Option<i32>, TxnError> {
        ops::register(&self.client, &self.statements, form).await.map_err(|e| txn_error(&e))
    }

    /// See [`ops::browse`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn browse(&self, browse: &Browse) -> Result<u64, TxnError> {
        ops::browse(&self.client, &self.statements, browse).await.map_err(|e| txn_error(&e))
    }

    /// See [`ops::purchase`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn purchase(&self, customer_id: i32, lines: &[PurchaseLine]) -> Result<Purchase, TxnError> {
        ops::purchase(&self.client, &self.statements, customer_id, lines).await.map_err(|e| txn_error(&e))
    }
}
