//! SQL Server for tests: the server CI exports in `OLTPGEN_TEST_MSSQL_URL` (Babelfish, started by
//! `.ci/run`), a database per test, and T-SQL run on it. Without that variable a test says it was
//! skipped and why, and passes: a user's `cargo test` needs no SQL Server.

use oltpgen_driver::Target;
use oltpgen_driver::mssql::{self, Client};

/// The variable that names the server.
pub const URL_VAR: &str = "OLTPGEN_TEST_MSSQL_URL";

/// The server for one test, held by it alone: SQL Server tests take turns, since Babelfish refuses
/// concurrent `CREATE DATABASE`s ("tuple concurrently updated") and a shared 2-core machine would starve
/// their short runs.
pub struct Server {
    /// The server's URL (its database may create others).
    pub url: String,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

/// The server, once it is this test's turn, or `None` after saying on stderr that `test` is skipped.
pub async fn server(test: &str) -> Option<Server> {
    static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let Some(url) = std::env::var(URL_VAR).ok().filter(|u| !u.is_empty()) else {
        eprintln!(
            "skipped {test}: {URL_VAR} is not set (CI sets it to the Babelfish server that .ci/run starts)"
        );
        return None;
    };
    Some(Server { url, _turn: TURN.lock().await })
}

/// `url` with its database replaced by `database` (the query string kept).
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let authority_at = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[authority_at..].find('/').map_or(base.len(), |i| authority_at + i);
    let mut out = format!("{}/{database}", &base[..host_end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// Connects to `url`.
pub async fn connect(url: &str) -> Client {
    let target: Target = url.parse().unwrap_or_else(|e| panic!("{url}: {e}"));
    mssql::connect(&target).await.unwrap_or_else(|e| panic!("{url}: {e}"))
}

/// Runs `sql` as batches separated by lines holding only `GO` (as sqlcmd does), and returns the last
/// batch's result sets.
pub async fn exec(client: &mut Client, sql: &str) -> Vec<Vec<tiberius::Row>> {
    let mut last = Vec::new();
    for batch in sql.split("\nGO\n").filter(|b| !b.trim().is_empty()) {
        last = client
            .simple_query(batch)
            .await
            .unwrap_or_else(|e| panic!("{batch}: {e}"))
            .into_results()
            .await
            .unwrap_or_else(|e| panic!("{batch}: {e}"));
    }
    last
}

/// The first column of the first row `sql` returns, as an `i32`.
pub async fn scalar(client: &mut Client, sql: &str) -> i32 {
    let rows = exec(client, sql).await;
    rows.first().and_then(|r| r.first()).and_then(|r| r.get::<i32, _>(0)).unwrap_or_else(|| panic!("{sql}"))
}

/// A database of this test's own on the server, created empty (dropped first when a failed run left
/// it), with its URL.
pub struct Database {
    admin: String,
    name: String,
    /// Its URL.
    pub url: String,
}

impl Database {
    /// Creates `issue14b_<name>` on the server at `server` (a URL whose database may create others).
    pub async fn create(server: &str, name: &str) -> Database {
        let name = format!("issue14b_{name}");
        let mut c = connect(server).await;
        exec(
            &mut c,
            &format!("IF DB_ID('{name}') IS NOT NULL DROP DATABASE {name}\nGO\nCREATE DATABASE {name}"),
        )
        .await;
        Database { admin: server.to_string(), url: with_database(server, &name), name }
    }

    /// Drops the database (a test that passed leaves nothing behind).
    pub async fn drop(self) {
        let mut c = connect(&self.admin).await;
        exec(&mut c, &format!("DROP DATABASE IF EXISTS {}", self.name)).await;
    }
}
