//! The template clone never cuts another client (issue 36): while the built-in server's database is
//! put back from its pristine copy, a client that keeps connecting is refused at its connect (the
//! database closed to connections, or being cloned) or makes the clone decline; a session of its that
//! got in is never terminated, as `DROP DATABASE … WITH (FORCE)` did to one that connected between the
//! count of sessions and the drop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use oltpgen_driver::pg::pristine;
use tokio_postgres::error::SqlState;

use crate::common::{data_dir, sql, start_server};

/// What the other client met over its connects.
#[derive(Default)]
struct Met {
    /// Sessions that ran their queries to the end.
    whole: AtomicU64,
    /// Connects refused (database closed, missing, or being created).
    refused: AtomicU64,
    /// Sessions cut after they connected: what must never happen.
    cut: AtomicU64,
}

#[tokio::test(flavor = "multi_thread")]
async fn another_client_connecting_throughout_the_clones_is_refused_or_declines_them_never_cut() {
    let (_keep, root) = data_dir();
    let pg = start_server(&root);
    let admin = sql(&pg.target("postgres")).await;
    admin.batch_execute("CREATE DATABASE window_db").await.unwrap();
    let target = pg.target("window_db");
    sql(&target).await.batch_execute("CREATE TABLE t AS SELECT generate_series(1, 1000) AS x").await.unwrap();
    assert!(pristine::keep(&target, "test").await.unwrap().is_ok(), "the copy is made");

    let met = Arc::new(Met::default());
    let stop = Arc::new(AtomicBool::new(false));
    let mut config = oltpgen_driver::pg::target::config(&target).unwrap().clone();
    config.application_name("someone else");
    let clients: Vec<_> = (0..3u64)
        .map(|k| {
            let (met, stop, config) = (met.clone(), stop.clone(), config.clone());
            tokio::spawn(async move {
                let mut i = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    i += 1;
                    match config.connect(tokio_postgres::NoTls).await {
                        Err(_) => {
                            met.refused.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok((client, conn)) => {
                            let conn = tokio::spawn(conn);
                            let queried =
                                client.batch_execute("SELECT pg_sleep(0.003); SELECT count(*) FROM t").await;
                            match queried {
                                Ok(()) => met.whole.fetch_add(1, Ordering::Relaxed),
                                Err(e) => {
                                    let cut = e.code() == Some(&SqlState::ADMIN_SHUTDOWN) || e.is_closed();
                                    assert!(cut, "only a cut session fails here: {e}");
                                    met.cut.fetch_add(1, Ordering::Relaxed)
                                }
                            };
                            drop(client);
                            let _ = conn.await;
                        }
                    }
                    // Gaps of 0 to 9 ms, different for each client: some clones find nobody there.
                    tokio::time::sleep(Duration::from_millis((i * 7 + k * 3) % 10)).await;
                }
            })
        })
        .collect();

    let (mut cloned, mut declined) = (0, 0);
    for _ in 0..30 {
        match pristine::put_back(&target).await.expect("no statement fails") {
            Ok(()) => cloned += 1,
            Err(why) => {
                assert!(why.contains("window_db"), "{why}");
                declined += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.await.unwrap();
    }
    let (whole, refused, cut) = (
        met.whole.load(Ordering::Relaxed),
        met.refused.load(Ordering::Relaxed),
        met.cut.load(Ordering::Relaxed),
    );
    eprintln!(
        "{cloned} cloned, {declined} declined; the other client: {whole} whole, {refused} refused, {cut} cut"
    );
    assert_eq!(cut, 0, "no session of another client is ever cut");
    assert!(whole > 0 && cloned > 0, "both the client and the clones got through");
    let open: bool = admin
        .query_one("SELECT datallowconn FROM pg_database WHERE datname = 'window_db'", &[])
        .await
        .unwrap()
        .get(0);
    assert!(open, "the database is open to connections again");
    pristine::discard(&target, &crate::common::test_stderr()).await.unwrap();
}
