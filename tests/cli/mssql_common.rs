//! SQL Server for DS2's tests, on the shared helpers of [`crate::common`]: the server CI exports in
//! `OLTPGEN_TEST_MSSQL_URL` (Babelfish, started by `.ci/run`), held for one test at a time, a database
//! per test, and T-SQL run on it. Without that variable a test says it was skipped and why, and passes
//! (in CI it fails): a user's `cargo test` needs no SQL Server.

pub use crate::common::{
    MssqlDb as Database, mssql as connect, mssql_exec as exec, mssql_with_db as with_database,
};
use oltpgen_driver::mssql::Client;

/// The server for one test, held by it alone ([`crate::common::mssql_turn`]).
pub struct Server {
    /// The server's URL (its database may create others).
    pub url: String,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

/// The server, once it is this test's turn, or `None` after saying on stderr that the test is skipped.
pub async fn server() -> Option<Server> {
    let url = crate::common::mssql_url()?;
    Some(Server { url, _turn: crate::common::mssql_turn().await })
}

/// The first column of the first row `sql` returns (a query or an `EXEC`), as an `i32`.
pub async fn scalar(client: &mut Client, sql: &str) -> i32 {
    let rows = exec(client, sql).await;
    rows.first().and_then(|r| r.first()).and_then(|r| r.get::<i32, _>(0)).unwrap_or_else(|| panic!("{sql}"))
}
