//! Ctrl-C during a load (issue 39): said at once, stopped within a few seconds of the signal (its
//! COPYs cancelled, the generating threads let go), the database marked half-loaded.

use std::io::{BufRead as _, BufReader};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{attach, data_dir, spawn, sql};

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_during_a_load_says_so_at_once_and_stops_within_seconds() {
    let (_keep, root) = data_dir();
    let mut load = spawn(&["tpcc", "load", "--scale", "5", "--data-dir", &root]);
    // Every line of its standard error, with when it came.
    let stderr = load.stderr.take().unwrap();
    let (tx, said) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send((Instant::now(), line));
        }
    });
    let observer = attach(&root).await;
    let client = sql(&observer.target("postgres")).await;
    let copying = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'COPY %'";
    let started = Instant::now();
    while client.query_one(copying, &[]).await.unwrap().get::<_, i64>(0) == 0 {
        assert!(started.elapsed() < Duration::from_secs(120), "the load never began copying");
        assert!(load.try_wait().unwrap().is_none(), "the load ended before it copied");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(client);
    let signalled = Instant::now();
    assert!(Command::new("kill").args(["-INT", &load.id().to_string()]).status().unwrap().success());
    let status = loop {
        if let Some(status) = load.try_wait().unwrap() {
            break status;
        }
        assert!(signalled.elapsed() < Duration::from_secs(30), "the load did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    let ended = signalled.elapsed();
    let lines: Vec<(Instant, String)> = said.iter().collect();
    let all: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    let (at, stopping) = lines
        .iter()
        .find(|(_, l)| l.starts_with("stopping: the load is cancelled; waiting for the server"))
        .unwrap_or_else(|| panic!("no line said it was stopping: {all:?}"));
    assert!(stopping.contains("a second Ctrl-C ends at once"), "{stopping}");
    assert!(at.duration_since(signalled) < Duration::from_secs(1), "said at once: {all:?}");
    assert_eq!(status.code(), Some(130), "{all:?}");
    assert!(!all.iter().any(|l| l.contains("panicked")), "{all:?}");
    assert!(
        all.last().unwrap().contains(
            "the database is marked half-loaded: carry it on with --resume (the same size and --seed), or load \
             it again with --replace"
        ),
        "{all:?}"
    );
    assert!(ended < Duration::from_secs(3), "stopped {:.1} s after the signal: {all:?}", ended.as_secs_f64());
}

/// The server's active statements of the load into `db` that build keys or indexes.
const BUILDING: &str = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND datname = $1 \
                        AND (query LIKE 'ALTER TABLE%' OR query LIKE 'CREATE INDEX%')";

/// On a server of one's own (`--url`), the key and index builds under way are cancelled there, not
/// left running (an index build goes on until it ends otherwise, its locks held against the retry).
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_during_the_index_builds_cancels_them_on_the_server() {
    let (pg, urls) = crate::common::server_with(&["stop_keys"]).await;
    let client = sql(&pg.target("postgres")).await;
    let load = spawn(&["tpcc", "load", "--scale", "10", "--url", &urls[0], "-q"]);
    let building = || async { client.query_one(BUILDING, &[&"stop_keys"]).await.unwrap().get::<_, i64>(0) };
    let started = Instant::now();
    while building().await == 0 {
        assert!(started.elapsed() < Duration::from_secs(300), "the load never built its keys");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(Command::new("kill").args(["-INT", &load.id().to_string()]).status().unwrap().success());
    let out = crate::common::finish(load);
    assert_eq!(out.code, 130, "{}", out.all());
    assert!(out.stderr.contains("stopping: the load is cancelled"), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    // The cancel reached the server before oltpgen ended; a moment for the backends to end.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(building().await, 0, "no key or index build left running on the server");
}
