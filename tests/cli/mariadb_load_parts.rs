//! A load in parts and a resumed load on MariaDB (issue 44): each chunk's `LOAD DATA` commits with its
//! done-mark, so `--begin`, `--agent I/N` and `--finish` load the rows of a load in one process (the
//! finish refusing, naming the part, while one is missing), and a load killed with SIGKILL while its
//! rows go in carries on with `--resume` to the same per-table checksums; `tpcc check` passes on both.
//! And `tpcc check --sample` there: a corruption in a drawn warehouse caught, one elsewhere skipped.

use std::time::{Duration, Instant};

use crate::checksums;
use crate::common::{assert_refused, oltpgen, spawn};
use crate::mariadb_common::MariaDb;
use crate::sampled_check;

/// How many of its chunks the load into database `name` has marked done (0 before the marks' table).
fn marked(db: &MariaDb, name: &str) -> i64 {
    let exists = format!(
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '{name}' \
         AND table_name = 'oltpgen_chunks'"
    );
    if db.int("", &exists) == 0 {
        return 0;
    }
    db.int("", &format!("SELECT COUNT(*) FROM `{name}`.oltpgen_chunks"))
}

/// oltpgen's bookkeeping tables of a load in parts left in database `name`.
fn bookkeeping_left(db: &MariaDb, name: &str) -> i64 {
    db.int(
        "",
        &format!(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '{name}' \
             AND table_name IN ('oltpgen_chunks', 'oltpgen_parts')"
        ),
    )
}

/// `tpcc check` on `url` passes.
#[track_caller]
fn assert_checked(url: &str) {
    let out = oltpgen(&["tpcc", "check", "--url", url]);
    assert_eq!(out.code, 0, "{}", out.all());
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn a_mariadb_load_in_parts_or_cut_and_resumed_holds_the_rows_of_one_load() {
    let db = MariaDb::start();
    db.sql("", "CREATE DATABASE whole; CREATE DATABASE parts; CREATE DATABASE cut");
    let load = |name: &str, flags: &[&str]| {
        let url = db.url(name);
        oltpgen(
            &[&["tpcc", "load", "--scale", "2", "--load-workers", "2", "-q", "--url", &url][..], flags]
                .concat(),
        )
    };
    let out = load("whole", &[]);
    assert_eq!(out.code, 0, "{}", out.all());
    let sums = checksums::mariadb(&db, "whole");
    assert!(sums.contains_key("order_line") && sums.contains_key("history"), "{sums:?}");

    // In two parts, the finish refused while part 1 is missing.
    let out = load("parts", &["--begin", "--parts", "2"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("began tpcc scale 2 in 2 parts"), "{}", out.stdout);
    let out = load("parts", &["--agent", "0/2"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("loaded part 0/2 of tpcc scale 2"), "{}", out.stdout);
    let out = load("parts", &["--finish"]);
    assert_refused(&out, "part 1/2 (");
    assert!(!out.stderr.contains("part 0/2"), "{}", out.stderr);
    assert_refused(&load("parts", &["--agent", "0/3"]), "was begun in 2 parts: give --agent I/2");
    let out = load("parts", &["--agent", "1/2"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = load("parts", &["--finish"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("finished tpcc scale 2 in "), "{}", out.stdout);
    assert_eq!(checksums::mariadb(&db, "parts"), sums, "the rows of one load");
    assert_eq!(bookkeeping_left(&db, "parts"), 0, "the marks and the plan are gone");
    assert_checked(&db.url("parts"));
    assert_refused(&load("parts", &["--agent", "0/2"]), "which --agent never touches");

    // Killed with SIGKILL while its rows go in, then carried on.
    let url = db.url("cut");
    let mut cut = spawn(&["tpcc", "load", "--scale", "2", "--load-workers", "2", "-q", "--url", &url]);
    let started = Instant::now();
    while marked(&db, "cut") < 3 {
        assert!(cut.try_wait().unwrap().is_none(), "the load ended before it marked 3 chunks done");
        assert!(started.elapsed() < Duration::from_secs(300), "never marked 3 chunks done");
        std::thread::sleep(Duration::from_millis(10));
    }
    cut.kill().unwrap();
    cut.wait().unwrap();
    assert_eq!(db.sql("cut", "SELECT state FROM oltpgen_meta WHERE workload = 'tpcc'").trim(), "loading");
    let out = load("cut", &["--resume"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("resumed: "), "{}", out.stdout);
    assert_eq!(checksums::mariadb(&db, "cut"), sums, "the rows of a load never cut");
    assert_eq!(bookkeeping_left(&db, "cut"), 0, "the marks are gone");
    assert_checked(&url);
    // A whole load is never touched.
    assert_refused(&load("whole", &["--resume"]), "which --resume never touches");
    let corrupt = &mut |w| {
        db.sql("whole", &sampled_check::corruption(w));
    };
    sampled_check::assert_sampled_check_catches_a_drawn_warehouse_only(&db.url("whole"), corrupt);
}
