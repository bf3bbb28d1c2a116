//! MySQL's `--restore` refused with nothing changed (issue 36): MariaDB commits each `TRUNCATE` on its
//! own, so a user's foreign key to the workload's last table used to leave the first ones empty. And
//! each test's MariaDB keeps its temporary files in a directory of its own, not the shared `/tmp`.

use crate::common::{assert_no_secret, oltpgen};
use crate::mariadb_common::MariaDb;

/// Every table of database `db` with its rows, `table:rows` a line, sorted.
fn rows_by_table(db: &MariaDb, name: &str) -> Vec<String> {
    let tables = db.sql(
        "",
        &format!("SELECT table_name FROM information_schema.tables WHERE table_schema = '{name}' ORDER BY 1"),
    );
    tables.lines().map(|t| format!("{t}:{}", db.int(name, &format!("SELECT COUNT(*) FROM {t}")))).collect()
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn a_restore_a_users_foreign_key_stops_is_refused_before_any_table_is_emptied_on_mariadb() {
    let db = MariaDb::start();
    // Its temporary files in its own directory (issue 36's flaky test shared /tmp between servers).
    let tmpdir = db.sql("", "SELECT @@tmpdir");
    assert_eq!(tmpdir.trim(), db.tmpdir().to_str().unwrap(), "the server's own tmpdir");
    assert_ne!(MariaDb::start().tmpdir(), db.tmpdir(), "each server its own");

    let url = db.url("tpcc");
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--quiet", "--create-database", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    // A user's table in another database refers to `item`, which a restore empties after seven others.
    db.sql(
        "",
        "CREATE DATABASE mine; CREATE TABLE mine.favourites (i INT, FOREIGN KEY (i) REFERENCES tpcc.item (i_id)) \
         ENGINE=InnoDB; INSERT INTO mine.favourites VALUES (1)",
    );
    let before = rows_by_table(&db, "tpcc");
    assert!(before.iter().any(|t| t == "orders:30000"), "{before:?}");

    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    let mut args = vec!["tpcc", "run", "--url", &url, "--users", "2", "--runs", "2", "--restore", "-q"];
    args.extend(["--think-time", "0", "--keying-time", "0", "--duration", "1s", "--warmup", "1s"]);
    args.extend(["--out", result.to_str().unwrap()]);
    let out = oltpgen(&args);
    assert_eq!(out.code, 1, "{}", out.all());
    assert_no_secret(&out);
    for needle in [
        "restoring tables: other objects depend on oltpgen's tables",
        "on table mine.favourites depends on table item",
        "nothing was changed",
    ] {
        assert!(out.stderr.contains(needle), "{needle}: {}", out.stderr);
    }
    assert_eq!(rows_by_table(&db, "tpcc"), before, "every table still holds its rows");
    assert_eq!(db.int("mine", "SELECT COUNT(*) FROM favourites"), 1, "the user's row stays");
}
