//! A connection whose I/O runs in the querying task ([`Inline`], pgbench's scripts' sessions), against a
//! real server (the built-in PostgreSQL, a throwaway instance), on a current-thread runtime with no I/O
//! task spawned: queries, notices and long results go through; when the server ends the connection, the
//! query in flight fails as a connection lost (it does not hang), the client says it is closed, and so
//! does a connection the server ended between queries; a dropped one says goodbye to the server.

use std::time::Duration;

use oltpgen_local::{LocalPg, Placement};
use oltpgen_pg::error::fault as pg_fault;
use oltpgen_pg::inline::Inline;
use oltpgen_vocab::error::Fault;
use tokio_postgres::SimpleQueryMessage;

/// Long enough for any query here on a loaded machine; a query that waits for a dropped answer waits
/// forever, so a timeout is the failure it shows.
const PATIENCE: Duration = Duration::from_secs(60);

/// How many connections to the test's database the server has, other than `admin`'s own.
async fn others(admin: &Inline) -> i64 {
    let sql = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()";
    admin.drive(admin.client().query_one(sql, &[])).await.unwrap().get(0)
}

/// Waits (up to [`PATIENCE`]) until `admin` sees `n` other connections.
async fn until_others(admin: &Inline, n: i64) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while others(admin).await != n {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server still has {} other connections",
            others(admin).await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn an_inline_connection_runs_queries_and_surfaces_the_servers_end() {
    let said = oltpgen_vocab::console::ErrLines::new(|line| eprintln!("{line}"));
    let pg = LocalPg::start(&Placement::Temp, 20, &said).expect("a server");
    let target = pg.target("postgres");
    let admin = Inline::connect(&target).await.expect("the test server answers");
    let conn = Inline::connect(&target).await.expect("the test server answers");
    let client = conn.client();

    // A prepared query with a parameter; a notice on the way (the I/O half reads and logs it).
    let statement = conn.drive(client.prepare("SELECT $1::int4 + 1")).await.unwrap();
    let row = tokio::time::timeout(PATIENCE, conn.drive(client.query_one(&statement, &[&41i32])))
        .await
        .expect("an answer")
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), 42);
    let said = conn
        .drive(client.simple_query("DO $$ BEGIN RAISE NOTICE 'hello'; END $$; SELECT 'after the notice'"))
        .await
        .unwrap();
    assert!(
        said.iter().any(|m| matches!(m, SimpleQueryMessage::Row(r) if r.get(0) == Some("after the notice"))),
        "the query after a notice answers"
    );

    // A result longer than the socket's buffers and than one message at a time: the I/O half waits for
    // the query to take each part, and the query for the I/O half to read the next.
    let rows = tokio::time::timeout(
        PATIENCE,
        conn.drive(client.query("SELECT repeat('x', 100) || g FROM generate_series(1, 50000) g", &[])),
    )
    .await
    .expect("the whole result")
    .unwrap();
    assert_eq!(rows.len(), 50_000);
    assert_eq!(rows[49_999].get::<_, String>(0), format!("{}50000", "x".repeat(100)));

    // The server ends the connection while a query runs: the query fails as a connection lost.
    let pid: i32 = conn.drive(client.query_one("SELECT pg_backend_pid()", &[])).await.unwrap().get(0);
    let sleeping = conn.drive(client.execute("SELECT pg_sleep(30)", &[]));
    let killing = async {
        let busy = "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%pg_sleep%'";
        while admin.drive(admin.client().query_opt(busy, &[&pid])).await.unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        admin.drive(admin.client().query_one("SELECT pg_terminate_backend($1)", &[&pid])).await.unwrap();
    };
    let (err, ()) = tokio::time::timeout(PATIENCE, async { tokio::join!(sleeping, killing) })
        .await
        .expect("the query in flight ends when the server ends its connection");
    let err = err.unwrap_err();
    assert_eq!(pg_fault(&err), Fault::ConnectionLost, "{err}");
    assert!(conn.is_closed(), "the client says its connection is closed");
    let err = conn.drive(client.execute("SELECT 1", &[])).await.unwrap_err();
    assert!(err.is_closed(), "{err}");

    // Ended between queries: the next look at it reads the server's goodbye.
    let idle = Inline::connect(&target).await.expect("the test server answers");
    let pid: i32 = idle.drive(idle.client().query_one("SELECT pg_backend_pid()", &[])).await.unwrap().get(0);
    assert!(!idle.is_closed(), "an open connection is not closed");
    admin.drive(admin.client().query_one("SELECT pg_terminate_backend($1)", &[&pid])).await.unwrap();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !idle.is_closed() {
        assert!(tokio::time::Instant::now() < deadline, "a connection the server ended says so");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let err = idle.drive(idle.client().execute("SELECT 1", &[])).await.unwrap_err();
    assert_eq!(pg_fault(&err), Fault::ConnectionLost, "{err}");

    // A dropped connection ends on the server (its I/O half, handed to the runtime, says goodbye).
    drop((conn, idle));
    let open = Inline::connect(&target).await.expect("the test server answers");
    until_others(&admin, 1).await;
    drop(open);
    until_others(&admin, 0).await;
}
