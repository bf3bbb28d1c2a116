//! DS2 on MySQL and MariaDB: its schema beyond tables and indexes, and its stored procedures
//! ([`sql`]); the operations as a client runs them, server-side or client-side ([`ops`]); and its
//! checks ([`check`]). A database DS2's own MySQL installer built is not recognised (its tables are
//! upper-case MyISAM ones): oltpgen drives the databases it loads.

pub mod check;
pub mod ops;
pub mod sql;

use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};
use tokio::sync::Mutex;

use super::{TXN_TIMEOUT, settle, timed};
use oltpgen_vocab::Target;
use oltpgen_vocab::ds2::Purchase;
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::tpcc::Transactions;

/// A connection at READ COMMITTED that runs DS2's five operations as `transactions` says, each error
/// sorted into the run's (and a transaction left open rolled back).
pub struct Session {
    conn: Mutex<mysql_async::Conn>,
    transactions: Transactions,
}

impl Session {
    /// Connects to `target`, to run the operations as `transactions` says.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when the session's
    /// isolation cannot be set.
    pub async fn open(target: &Target, transactions: Transactions) -> Result<Self, TxnError> {
        Ok(Session { conn: Mutex::new(super::open_session(target).await?), transactions })
    }

    /// See [`ops::login`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn login(&self, customer_id: i32) -> Result<Option<i32>, TxnError> {
        let mut conn = self.conn.lock().await;
        let ran = timed(TXN_TIMEOUT, ops::login(&mut conn, self.transactions, customer_id)).await;
        settle(&mut conn, ran).await
    }

    /// See [`ops::register`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn register(&self, form: &Registration) -> Result<Option<i32>, TxnError> {
        let mut conn = self.conn.lock().await;
        let ran = timed(TXN_TIMEOUT, ops::register(&mut conn, self.transactions, form)).await;
        settle(&mut conn, ran).await
    }

    /// See [`ops::browse`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn browse(&self, browse: &Browse) -> Result<u64, TxnError> {
        let mut conn = self.conn.lock().await;
        let ran = timed(TXN_TIMEOUT, ops::browse(&mut conn, self.transactions, browse)).await;
        settle(&mut conn, ran).await
    }

    /// See [`ops::purchase`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn purchase(&self, customer_id: i32, lines: &[PurchaseLine]) -> Result<Purchase, TxnError> {
        let mut conn = self.conn.lock().await;
        let ran = timed(TXN_TIMEOUT, ops::purchase(&mut conn, self.transactions, customer_id, lines)).await;
        settle(&mut conn, ran).await
    }
}
