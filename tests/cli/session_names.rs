//! Sessions a DBA can see (issue 36): every session oltpgen opens names itself `oltpgen` where the
//! engine shows it — PostgreSQL's `application_name` in `pg_stat_activity` (on a `--url`, not only the
//! built-in server's), MySQL's and MariaDB's `program_name` connection attribute in
//! `performance_schema.session_connect_attrs`, SQL Server's `program_name` in `sys.dm_exec_sessions`.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::common::server_with;
use crate::common::{finish, mssql, mssql_exec, mssql_url, oltpgen, spawn};
use crate::mariadb_common::MariaDb;

/// A short `tpcc run` on `url` in the background: two users, no pacing, `seconds` measured.
fn run_in_background(url: &str, seconds: &str) -> std::process::Child {
    let timing = ["--warmup", "1s", "--think-time", "0", "--keying-time", "0", "--duration", seconds];
    spawn(&[&["tpcc", "run", "--url", url, "--users", "2", "-q"][..], &timing].concat())
}

/// What `names` (one query's rows, each a name) gave while `child` ran, polled every 100 ms; the child's
/// outcome is asserted.
async fn names_while_running<F, Fut>(child: std::process::Child, names: F) -> BTreeSet<String>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Vec<String>>,
{
    let mut seen = BTreeSet::new();
    let mut child = child;
    while child.try_wait().unwrap().is_none() {
        seen.extend(names().await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out = finish(child);
    assert_eq!(out.code, 0, "{}", out.all());
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn a_url_run_s_postgresql_sessions_are_named_oltpgen() {
    let (pg, urls) = server_with(&["names"]).await;
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    // The URL names no application: the users' sessions showed an empty one before issue 36.
    assert!(!urls[0].contains("application_name"), "{}", urls[0]);
    let mut config = oltpgen_driver::pg::target::config(&pg.target("postgres")).unwrap().clone();
    config.application_name("observer");
    let (observer, conn) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let query = "SELECT coalesce(application_name, '') FROM pg_stat_activity \
                 WHERE datname = 'names' AND backend_type = 'client backend' AND pid <> pg_backend_pid()";
    let seen = names_while_running(run_in_background(&urls[0], "3s"), async || {
        observer.query(query, &[]).await.unwrap().iter().map(|r| r.get::<_, String>(0)).collect()
    })
    .await;
    assert!(seen.contains("oltpgen"), "the users' sessions: {seen:?}");
    assert!(seen.iter().all(|n| n.starts_with("oltpgen")), "every session is oltpgen's: {seen:?}");
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[tokio::test(flavor = "multi_thread")]
async fn a_mariadb_run_s_sessions_carry_program_name_oltpgen() {
    let db = MariaDb::start_with(&["--performance-schema=ON"]);
    let url = db.url("names");
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--quiet", "--create-database", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    // Every session of the run's login, with its program_name (NULL: none sent).
    let query = "SELECT CONCAT(p.ID, ':', COALESCE(a.ATTR_VALUE, '<none>')) \
                 FROM information_schema.processlist p LEFT JOIN performance_schema.session_connect_attrs a \
                   ON a.PROCESSLIST_ID = p.ID AND a.ATTR_NAME = 'program_name' WHERE p.USER = 'bench'";
    let seen = names_while_running(run_in_background(&url, "3s"), async || {
        db.sql("", query).lines().map(|l| l.split_once(':').unwrap().1.to_string()).collect()
    })
    .await;
    assert_eq!(seen, BTreeSet::from(["oltpgen".to_string()]), "every session of the run is named");
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn sql_server_sessions_are_named_oltpgen_in_dm_exec_sessions() {
    let mut client = mssql(&mssql_url()).await;
    // Babelfish has sys.dm_exec_sessions too: the session's own row.
    let rows =
        mssql_exec(&mut client, "SELECT program_name FROM sys.dm_exec_sessions WHERE session_id = @@SPID")
            .await;
    let name: Option<&str> = rows[0][0].get(0);
    assert_eq!(name, Some("oltpgen"));
}
