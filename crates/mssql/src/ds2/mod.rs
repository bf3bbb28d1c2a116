//! DS2 on SQL Server: its schema beyond tables and indexes, and its stored procedures ([`sql`]); the
//! operations as a client calls them ([`ops`]); its checks ([`check`]); databases DS2's own installer
//! built ([`reference`](mod@reference)); and how the server searches titles and actors
//! ([`browse_search`]).

pub mod check;
pub mod ops;
pub mod reference;
pub mod sql;

use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};
use tokio::sync::Mutex;

use super::Conn;
use super::error::txn_error;
use oltpgen_vocab::ds2::{Functions, Purchase};
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::{Error, Target};

/// A connection that calls DS2's five procedures, each error sorted into the run's.
pub struct Session {
    client: Mutex<Box<super::Client>>,
    calls: ops::Calls,
}

impl Session {
    /// Connects to `target`, to call the procedures of `functions`.
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached.
    pub async fn open(target: &Target, functions: Functions) -> Result<Self, TxnError> {
        let client = super::connect(target).await.map_err(|_| TxnError::LOST)?;
        Ok(Session { client: Mutex::new(Box::new(client)), calls: ops::Calls::new(functions) })
    }

    /// See [`ops::login`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn login(&self, customer_id: i32) -> Result<Option<i32>, TxnError> {
        let mut client = self.client.lock().await;
        ops::login(&mut client, &self.calls, customer_id).await.map_err(|e| txn_error(&e))
    }

    /// See [`ops::register`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn register(&self, form: &Registration) -> Result<Option<i32>, TxnError> {
        let mut client = self.client.lock().await;
        ops::register(&mut client, form).await.map_err(|e| txn_error(&e))
    }

    /// See [`ops::browse`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn browse(&self, browse: &Browse) -> Result<u64, TxnError> {
        let mut client = self.client.lock().await;
        ops::browse(&mut client, browse).await.map_err(|e| txn_error(&e))
    }

    /// See [`ops::purchase`].
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn purchase(&self, customer_id: i32, lines: &[PurchaseLine]) -> Result<Purchase, TxnError> {
        let mut client = self.client.lock().await;
        ops::purchase(&mut client, &self.calls, customer_id, lines).await.map_err(|e| txn_error(&e))
    }
}

/// How the database's `BROWSE_BY_ACTOR` searches, as a result records it: `"full-text"` when it is
/// `CONTAINS` over a full-text index, `"like"` where the server lacks full-text search (Babelfish) and the
/// procedure was created with `LIKE`. Read from the procedure itself, so it holds for a database DS2's
/// installer built too.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn browse_search(conn: &Conn, target: &Target) -> Result<&'static str, Error> {
    let sql = "SELECT CASE WHEN OBJECT_DEFINITION(OBJECT_ID('BROWSE_BY_ACTOR')) LIKE '%CONTAINS(%' \
         THEN 1 ELSE 0 END";
    let rows = conn.batch(target, "reading BROWSE_BY_ACTOR", sql).await?;
    let contains = rows.first().and_then(|r| r.first()).and_then(|r| r.get::<i32, _>(0)) == Some(1);
    Ok(if contains { "full-text" } else { "like" })
}
