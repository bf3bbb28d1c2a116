//! DVD Store 2 on the target's engine: the sessions a run's users drive ([`Ds2Session`]), what a load
//! creates beside the tables, the checks' queries, databases DS2's own installer built, and the engine's
//! facts a run records. One arm per engine; the SQL is the engine's (`oltpgen_pg::ds2`, `oltpgen_mssql::ds2`,
//! `oltpgen_mysql::ds2`).

use oltpgen_datagen::ds2::input::{Browse, PurchaseLine, Registration};

use super::Conn;
use crate::{Error, Target};
use oltpgen_vocab::ds2::{Functions, Purchase, ReferenceDatabase};
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::target::Engine;
use oltpgen_vocab::tpcc::Transactions;

/// A connection with the five operations prepared, in its engine's terms: an enum, so that every
/// operation is a `match` the compiler sees through, with no boxing or dynamic dispatch.
pub enum Ds2Session {
    /// On PostgreSQL.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::ds2::Session),
    /// On SQL Server (its stored procedures).
    #[cfg(feature = "mssql")]
    SqlServer(oltpgen_mssql::ds2::Session),
    /// On MySQL or MariaDB.
    #[cfg(feature = "mysql")]
    MySql(oltpgen_mysql::ds2::Session),
}

impl Ds2Session {
    /// Connects to `target` and prepares the operations of `functions`, run as `transactions` says
    /// (client-side only on MySQL: [`transactions`]).
    ///
    /// # Errors
    /// [`TxnError::LOST`] when the server cannot be reached; the sorted error when preparing fails.
    #[cfg_attr(not(feature = "mysql"), allow(unused_variables))]
    pub async fn open(
        target: &Target,
        functions: Functions,
        transactions: Transactions,
    ) -> Result<Self, TxnError> {
        match target.engine() {
            #[cfg(feature = "postgres")]
            Engine::Postgres => {
                Ok(Ds2Session::Postgres(oltpgen_pg::ds2::Session::open(target, functions).await?))
            }
            #[cfg(feature = "mssql")]
            Engine::SqlServer => {
                Ok(Ds2Session::SqlServer(oltpgen_mssql::ds2::Session::open(target, functions).await?))
            }
            #[cfg(feature = "mysql")]
            Engine::MySql => {
                Ok(Ds2Session::MySql(oltpgen_mysql::ds2::Session::open(target, transactions).await?))
            }
        }
    }

    /// A returning customer (`user<customer_id>`) logs in: their id when found.
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn login(&self, customer_id: i32) -> Result<Option<i32>, TxnError> {
        each_engine!(self, Ds2Session(s) => s.login(customer_id).await)
    }

    /// A new customer registers: their id, `None` when the user name is taken.
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn register(&self, form: &Registration) -> Result<Option<i32>, TxnError> {
        each_engine!(self, Ds2Session(s) => s.register(form).await)
    }

    /// One browse: the number of products it returned.
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn browse(&self, browse: &Browse) -> Result<u64, TxnError> {
        each_engine!(self, Ds2Session(s) => s.browse(browse).await)
    }

    /// The purchase that ends an order.
    ///
    /// # Errors
    /// The server's error, sorted.
    pub async fn purchase(&self, customer_id: i32, lines: &[PurchaseLine]) -> Result<Purchase, TxnError> {
        each_engine!(self, Ds2Session(s) => s.purchase(customer_id, lines).await)
    }
}

/// The statements a DS2 load runs on `engine` once its tables' keys and indexes exist: the sequences
/// (on MySQL `AUTO_INCREMENT`), the restock trigger, the operations (and on SQL Server the full-text
/// index).
pub fn finish(engine: Engine) -> Vec<String> {
    each_engine!(engine, m => m::ds2::sql::finish())
}

/// The statements dropping what a DS2 load built on `engine` beside the keys and plain indexes (its
/// full-text indexes), before a restore copies the rows again.
pub fn dropped_for_restore(engine: Engine) -> Vec<String> {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::ds2::sql::drop_extra_indexes(),
        #[cfg(feature = "mssql")]
        Engine::SqlServer => oltpgen_mssql::ds2::sql::drop_full_text_index(),
        #[cfg(feature = "mysql")]
        Engine::MySql => oltpgen_mysql::ds2::sql::drop_extra_indexes(),
    }
}

/// The statements a restore of DS2 on `engine` runs once the keys and indexes are built again: the id
/// sequences set past the loaded ids (and on SQL Server the full-text index, which names the primary key
/// of `products`).
pub fn after_restore(engine: Engine) -> Vec<String> {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::ds2::sql::restart_sequences(),
        #[cfg(feature = "mssql")]
        Engine::SqlServer => oltpgen_mssql::ds2::sql::after_restore(),
        #[cfg(feature = "mysql")]
        Engine::MySql => oltpgen_mysql::ds2::sql::restart_sequences(),
    }
}

/// The indexes a DS2 load builds on `engine` beside the keys (e.g. full-text): (table, statement).
pub fn extra_indexes(engine: Engine) -> Vec<(&'static str, String)> {
    each_engine!(engine, m => m::ds2::sql::extra_indexes())
}

/// The queries of DS2's integrity checks on `engine`, in order: each yields one text column of
/// offending keys.
pub fn check_queries(engine: Engine) -> &'static [&'static str] {
    each_engine!(engine, m => &m::ds2::check::QUERIES)
}

/// A database DS2's own installer built, as `conn`'s engine recognises it in its catalog; `None` when
/// its functions are not DS2's.
///
/// # Errors
/// [`Error::Failed`] when the catalog or the tables cannot be read.
pub async fn reference(conn: &Conn, target: &Target) -> Result<Option<ReferenceDatabase>, Error> {
    match conn {
        #[cfg(feature = "postgres")]
        Conn::Postgres(c) => oltpgen_pg::ds2::reference::find(c, target).await,
        #[cfg(feature = "mssql")]
        Conn::SqlServer(c) => oltpgen_mssql::ds2::reference::find(c, target).await,
        // DS2's own MySQL installer builds upper-case MyISAM tables oltpgen does not drive.
        #[cfg(feature = "mysql")]
        Conn::MySql(_) => Ok(None),
    }
}

/// The known defects of DS2's own functions on `engine`, which a run through them inherits.
pub fn reference_defects(engine: Engine) -> &'static str {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::ds2::ops::REFERENCE_DEFECTS,
        #[cfg(feature = "mssql")]
        Engine::SqlServer => oltpgen_mssql::ds2::ops::REFERENCE_DEFECTS,
        #[cfg(feature = "mysql")]
        Engine::MySql => "",
    }
}

/// How the browses of `target` search titles and actors, where its engine has a choice (SQL Server:
/// full-text or, where the server lacks it, `LIKE`); `None` where it has one way (PostgreSQL's and
/// MySQL's full-text indexes).
///
/// # Errors
/// [`Error::Failed`] when the procedures cannot be read.
pub async fn browse_search(target: &Target) -> Result<Option<&'static str>, Error> {
    match target.engine() {
        // One way to search: no connection needed to ask.
        #[cfg(feature = "postgres")]
        Engine::Postgres => Ok(None),
        #[cfg(feature = "mysql")]
        Engine::MySql => Ok(None),
        #[cfg(feature = "mssql")]
        Engine::SqlServer => {
            let conn = oltpgen_mssql::open(target).await?;
            Ok(Some(oltpgen_mssql::ds2::browse_search(&conn, target).await?))
        }
    }
}

/// How DS2's operations run on `target` when the user asked for `asked` (`--transactions`; server-side
/// unless asked): server-side on every engine; client-side, as statements, on MySQL and MariaDB, as DS2's
/// own MySQL driver runs them (PostgreSQL and SQL Server run DS2 through its functions and procedures).
///
/// # Errors
/// [`Error::Usage`] for client-side on PostgreSQL or SQL Server.
pub fn transactions(target: &Target, asked: Option<Transactions>) -> Result<Transactions, Error> {
    let client_side = match target.engine() {
        #[cfg(feature = "postgres")]
        Engine::Postgres => false,
        #[cfg(feature = "mssql")]
        Engine::SqlServer => false,
        #[cfg(feature = "mysql")]
        Engine::MySql => true,
    };
    match asked.unwrap_or(Transactions::Server) {
        Transactions::Client if !client_side => Err(Error::usage(format!(
            "{}: --transactions client runs DS2 on MySQL and MariaDB only; on PostgreSQL and SQL Server DS2 runs \
             through its server functions: leave --transactions out",
            target.label()
        ))),
        transactions => Ok(transactions),
    }
}
