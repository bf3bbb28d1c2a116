//! SQL Server for the SQL Server tests, on the shared helpers of [`crate::common`]: the server CI exports
//! in `OLTPGEN_TEST_MSSQL_URL` (Babelfish, started by `.ci/run`), held for one test at a time, a database
//! per test, and T-SQL run on it; and what TPC-C's and DS2's fault tests share: a run's sessions found and
//! killed, waiting for it to commit, and a Babelfish of a test's own to restart.
//!
//! A user's `cargo test` needs no SQL Server: every test that needs one carries
//! `#[cfg_attr(not(oltpgen_test_mssql), ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)")]`,
//! and `build.rs` sets `oltpgen_test_mssql` when the variable is set at build time (cargo rebuilds when
//! it changes), so without it `cargo test` lists those tests as `ignored, needs a SQL Server: …` rather
//! than passing them. CI must run them: `.ci/run` refuses to go on without the URL, and
//! [`ci_runs_the_sql_server_tests`] fails a CI build that would ignore them.

use std::time::Duration;

pub use crate::common::{
    MssqlDb as Database, mssql as connect, mssql_exec as exec, mssql_with_db as with_database,
};
use crate::common::{mssql_exec, mssql_int};
use oltpgen_driver::mssql::Client;

/// The server for one test, held by it alone ([`crate::common::mssql_turn`]).
pub struct Server {
    /// The server's URL (its database may create others).
    pub url: String,
    _turn: crate::common::MssqlTurn,
}

/// The server, once it is this test's turn.
pub async fn server() -> Server {
    Server { url: crate::common::mssql_url(), _turn: crate::common::mssql_turn().await }
}

/// Under CI (`CI` set, as `.ci/run` sets it) the SQL Server tests run rather than being ignored: a CI
/// build without `OLTPGEN_TEST_MSSQL_URL` fails here, as a missing URL failed them when they skipped
/// at run time.
#[test]
fn ci_runs_the_sql_server_tests() {
    assert!(
        cfg!(oltpgen_test_mssql) || std::env::var_os("CI").is_none(),
        "CI must run the SQL Server tests: set OLTPGEN_TEST_MSSQL_URL before building them"
    );
}

/// The first column of the first row `sql` returns (a query or an `EXEC`), as an `i32`.
pub async fn scalar(client: &mut Client, sql: &str) -> i32 {
    let rows = exec(client, sql).await;
    rows.first().and_then(|r| r.first()).and_then(|r| r.get::<i32, _>(0)).unwrap_or_else(|| panic!("{sql}"))
}

/// Waits until `sql` (a count or sum that commits raise) reaches `at_least`: the run committed.
pub async fn wait_for_commits(client: &mut Client, sql: &str, at_least: i64) {
    for _ in 0..3000 {
        if mssql_int(client, sql).await >= at_least {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the run committed nothing: {sql} stayed below {at_least}");
}

/// Waits until at least `n` sessions other than `gone` match `sessions`; returns them.
pub async fn wait_for_sessions(admin: &mut Client, sessions: &str, n: usize, gone: &[i32]) -> Vec<i32> {
    for _ in 0..1200 {
        let rows = mssql_exec(admin, sessions).await;
        let found: Vec<i32> =
            rows[0].iter().filter_map(|r| r.get::<i32, _>(0)).filter(|s| !gone.contains(s)).collect();
        if found.len() >= n {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("fewer than {n} sessions of the run appeared");
}

/// `KILL`s the `n` (or more) sessions a run holds on database `db` of the server at `server` (any
/// session there but `watch`'s), then waits until the run has `n` new ones: its users reconnected.
/// Returns the killed sessions' ids.
pub async fn kill_run_sessions(server: &str, db: &str, watch: &mut Client, n: usize) -> Vec<i32> {
    let mut admin = connect(&with_database(server, "master")).await;
    let watcher = mssql_int(watch, "SELECT @@SPID").await;
    let sessions = format!(
        "SELECT CAST(session_id AS int) FROM sys.dm_exec_sessions WHERE database_id = DB_ID('{db}') AND session_id IS NOT NULL \
         AND session_id <> @@SPID AND session_id <> {watcher}"
    );
    let victims = wait_for_sessions(&mut admin, &sessions, n, &[]).await;
    for spid in &victims {
        // KILL refuses a session that ended meanwhile; the rest still die.
        let _ = async { admin.simple_query(format!("KILL {spid}")).await?.into_results().await }.await;
    }
    wait_for_sessions(&mut admin, &sessions, n, &victims).await;
    victims
}

/// A Babelfish of the test's own (a throwaway data directory and free ports), stopped when dropped:
/// the shared one is never restarted.
pub struct OwnBabelfish {
    env: Vec<(String, String)>,
    _data: tempfile::TempDir,
}

impl OwnBabelfish {
    /// The start script beside the repository (`../shared/babelfish/start`).
    const START: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/babelfish/start");

    /// Starts one; returns it and its URL. Without the start script the test fails naming the path it
    /// looked for.
    pub fn start() -> (OwnBabelfish, String) {
        let script = std::path::Path::new(Self::START);
        assert!(
            script.is_file(),
            "this test restarts a Babelfish of its own, started by {}, which is not there: it needs \
             shared/babelfish/ beside the oltpgen clone",
            script.display()
        );
        let data = tempfile::tempdir().unwrap();
        let free =
            || std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
        let env = vec![
            ("BABELFISH_DATA".to_string(), data.path().join("data").display().to_string()),
            ("BABELFISH_PORT".to_string(), free()),
            ("BABELFISH_PG_PORT".to_string(), free()),
        ];
        let own = OwnBabelfish { env, _data: data };
        let out = own.script(&[]);
        let url = out.lines().last().unwrap_or_default().to_string();
        assert!(url.starts_with("sqlserver://"), "{out}");
        (own, url)
    }

    /// Stops and starts it again, off the test's runtime (the script blocks): a server restart.
    pub async fn restart(self) -> OwnBabelfish {
        tokio::task::spawn_blocking(move || {
            self.script(&["stop"]);
            self.script(&[]);
            self
        })
        .await
        .unwrap()
    }

    /// Runs the start script with `args` and this instance's environment; its output.
    fn script(&self, args: &[&str]) -> String {
        let out = std::process::Command::new(Self::START)
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap_or_else(|e| panic!("the Babelfish start script {} does not run: {e}", Self::START));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{args:?}: {text}{}", String::from_utf8_lossy(&out.stderr));
        text
    }
}

impl Drop for OwnBabelfish {
    fn drop(&mut self) {
        let _ = std::process::Command::new(Self::START)
            .arg("stop")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output();
    }
}

/// A procedure of the user's own that `drop` must leave, in T-SQL.
pub const MSSQL_OWN_PROCEDURE: &str = "CREATE PROCEDURE users_own AS SELECT 1";

/// The procedures, functions, sequences and triggers of a SQL Server database, by name (as
/// [`crate::common::pg_objects`]).
pub async fn mssql_objects(client: &mut oltpgen_driver::mssql::Client) -> Vec<String> {
    let sql = "SELECT name FROM sys.objects WHERE type IN ('P', 'FN', 'IF', 'TF', 'SO', 'TR') ORDER BY name";
    let rows = mssql_exec(client, sql).await;
    rows[0].iter().map(|r| r.get::<&str, _>(0).unwrap_or_default().to_string()).collect()
}

impl crate::common::MssqlDb {
    /// Whether the database exists now.
    pub async fn exists(&self) -> bool {
        let mut client = crate::common::mssql(&self.admin).await;
        mssql_int(&mut client, &format!("SELECT COUNT(*) FROM sys.databases WHERE name = '{}'", self.name))
            .await
            == 1
    }
}
