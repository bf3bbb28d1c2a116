//! How PostgreSQL's errors are sorted ([`pg_fault`]), against errors provoked on a real server (the
//! built-in PostgreSQL, a throwaway instance): a deadlock and a serialization failure are retried, a
//! terminated backend and a closed connection are connections lost, anything else is fatal.

use std::time::Duration;

use oltpgen_local::{LocalPg, Placement};
use oltpgen_pg::error::fault as pg_fault;
use oltpgen_vocab::Target;
use oltpgen_vocab::error::Fault;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};

async fn connect(target: &Target) -> Client {
    let (client, conn) = oltpgen_pg::target::config(target)
        .expect("a PostgreSQL target")
        .connect(NoTls)
        .await
        .expect("the test server answers");
    tokio::spawn(conn);
    client
}

/// Asserts that `err` carries `code` and sorts as `fault`.
#[track_caller]
fn assert_sorted(err: &tokio_postgres::Error, code: &SqlState, fault: Fault) {
    assert_eq!(err.code(), Some(code), "the server's SQLSTATE: {err}");
    assert_eq!(pg_fault(err), fault, "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn server_errors_are_sorted_by_what_the_driver_does_next() {
    let said = oltpgen_vocab::console::ErrLines::new(|line| eprintln!("{line}"));
    let pg = LocalPg::start(&Placement::Temp, 20, &said).expect("a server");
    let target = pg.target("postgres");
    let (a, b, admin) = (connect(&target).await, connect(&target).await, connect(&target).await);
    admin
        .batch_execute("CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0), (2, 0);")
        .await
        .unwrap();

    // 40P01: each holds the row the other wants; the server breaks the cycle by failing one of them.
    a.batch_execute("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await.unwrap();
    b.batch_execute("BEGIN; UPDATE t SET v = 1 WHERE id = 2").await.unwrap();
    let (ra, rb) = tokio::join!(
        a.execute("UPDATE t SET v = 2 WHERE id = 2", &[]),
        b.execute("UPDATE t SET v = 2 WHERE id = 1", &[])
    );
    let deadlocked = match (ra, rb) {
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => e,
        other => panic!("one of the two is chosen as the deadlock's victim: {other:?}"),
    };
    assert_sorted(&deadlocked, &SqlState::T_R_DEADLOCK_DETECTED, Fault::Retryable);
    a.batch_execute("ROLLBACK").await.unwrap();
    b.batch_execute("ROLLBACK").await.unwrap();

    // 40001: a repeatable-read transaction updates a row another committed since its snapshot.
    a.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT v FROM t WHERE id = 1").await.unwrap();
    b.batch_execute("UPDATE t SET v = 3 WHERE id = 1").await.unwrap();
    let err = a.execute("UPDATE t SET v = 4 WHERE id = 1", &[]).await.unwrap_err();
    assert_sorted(&err, &SqlState::T_R_SERIALIZATION_FAILURE, Fault::Retryable);
    a.batch_execute("ROLLBACK").await.unwrap();

    // Anything else is fatal: a constraint broken, a bad statement.
    let err = a.execute("INSERT INTO t VALUES (1, 0)", &[]).await.unwrap_err();
    assert_sorted(&err, &SqlState::UNIQUE_VIOLATION, Fault::Fatal);
    let err = a.execute("SELECT 1 / (v - v) FROM t", &[]).await.unwrap_err();
    assert_sorted(&err, &SqlState::DIVISION_BY_ZERO, Fault::Fatal);
    let err = a.execute("SELEKT 1", &[]).await.unwrap_err();
    assert_sorted(&err, &SqlState::SYNTAX_ERROR, Fault::Fatal);

    // 57P01: the backend is terminated (as by an administrator, or a server shutting down); after it,
    // the connection is closed.
    let pid: i32 = b.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
    let killer = tokio::spawn(async move {
        // Once the backend is busy with the statement below.
        while admin
            .query_opt("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%pg_sleep%'", &[&pid])
            .await
            .unwrap()
            .is_none()
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        admin.query_one("SELECT pg_terminate_backend($1)", &[&pid]).await.unwrap();
    });
    let err = b.execute("SELECT pg_sleep(30)", &[]).await.unwrap_err();
    killer.await.unwrap();
    match err.code() {
        Some(code) => assert_sorted(&err, code, Fault::ConnectionLost),
        None => assert!(err.is_closed(), "terminated: {err}"),
    }
    assert!(
        err.code().is_none_or(|c| *c == SqlState::ADMIN_SHUTDOWN),
        "a terminated backend says 57P01 or nothing: {err}"
    );
    assert_eq!(pg_fault(&err), Fault::ConnectionLost, "{err}");
    let err = b.execute("SELECT 1", &[]).await.unwrap_err();
    assert!(err.is_closed(), "{err}");
    assert_eq!(pg_fault(&err), Fault::ConnectionLost, "a closed connection: {err}");
}
