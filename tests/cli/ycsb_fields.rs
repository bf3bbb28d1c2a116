//! YCSB's writes as YCSB's core workload makes them with writeallfields=false (issue 41): an update,
//! and a read-modify-write's write, change one field picked uniformly from FIELD0..FIELD9 to 100 new
//! random characters; an insert writes all ten, each its own. Judged against a copy of the table
//! taken before each run, on PostgreSQL (the built-in server) and MariaDB.

use crate::common::{data_dir, oltpgen, sql, start_server};
use crate::mariadb_common::MariaDb;

/// The database under test, for the test's own SQL.
enum Db<'a> {
    Pg(tokio_postgres::Client),
    Maria(&'a MariaDb),
}

impl Db<'_> {
    /// The one text `query` yields.
    async fn text(&self, query: &str) -> String {
        match self {
            Db::Pg(c) => c.query_one(query, &[]).await.unwrap().get(0),
            Db::Maria(m) => m.sql("ycsb", query).trim().to_string(),
        }
    }

    /// Copies `usertable` into `copy.usertable` (a schema on PostgreSQL, a database on MariaDB), out of
    /// the way of oltpgen's inventory of the database.
    async fn copy(&self, copy: &str) {
        let table = format!("CREATE TABLE {copy}.usertable AS SELECT * FROM usertable");
        match self {
            Db::Pg(c) => c.batch_execute(&format!("CREATE SCHEMA {copy}; {table}")).await.unwrap(),
            Db::Maria(m) => {
                m.sql("", &format!("CREATE DATABASE {copy}"));
                m.sql("ycsb", &table);
            }
        }
    }

    /// Per field, how many records' FIELDi differs from `copy`'s, and how many changed values are not
    /// 100 characters.
    async fn changed(&self, copy: &str) -> (Vec<u64>, u64) {
        let field = |i| format!("SUM(CASE WHEN u.field{i} <> s.field{i} THEN 1 ELSE 0 END)");
        let bad = |i| {
            format!(
                "SUM(CASE WHEN u.field{i} <> s.field{i} AND CHAR_LENGTH(u.field{i}) <> 100 THEN 1 ELSE 0 END)"
            )
        };
        let counts: Vec<String> =
            (0..10).map(field).chain([(0..10).map(bad).collect::<Vec<_>>().join(" + ")]).collect();
        let q = format!(
            "SELECT CONCAT_WS(',', {}) FROM usertable u JOIN {copy}.usertable s ON s.ycsb_key = u.ycsb_key",
            counts.join(", ")
        );
        let mut all: Vec<u64> = self.text(&q).await.split(',').map(|n| n.parse().unwrap()).collect();
        let bad = all.pop().unwrap();
        (all, bad)
    }
}

/// `oltpgen ycsb run --workload LETTER` for 3 s at two users, at `at`.
fn run(at: &[&str], letter: &str) {
    let args =
        ["ycsb", "run", "--workload", letter, "--users", "2", "--warmup", "0s", "--duration", "3s", "-q"];
    let ran = oltpgen(&[&args[..], at].concat());
    assert_eq!(ran.code, 0, "{letter}: {}", ran.all());
}

/// Runs A, F and D at `at` (loaded), each judged against a copy taken before it.
async fn judge(db: &Db<'_>, at: &[&str]) {
    for (letter, copy) in [("a", "before_a"), ("f", "before_f")] {
        db.copy(copy).await;
        tokio::task::block_in_place(|| run(at, letter));
        let (per_field, bad) = db.changed(copy).await;
        assert_eq!(bad, 0, "{letter}: every changed value is 100 characters: {per_field:?}");
        assert!(per_field[3] > 0, "{letter}: FIELD3 changed: {per_field:?}");
        assert!(per_field.iter().all(|&n| n > 0), "{letter}: every field is written: {per_field:?}");
        let (most, total) = (*per_field.iter().max().unwrap(), per_field.iter().sum::<u64>());
        assert!(most * 3 < total, "{letter}: no field takes the writes ({per_field:?})");
    }
    db.copy("before_d").await;
    tokio::task::block_in_place(|| run(at, "d"));
    let lengths = (0..10).map(|i| format!("CHAR_LENGTH(field{i}) = 100")).collect::<Vec<_>>().join(" AND ");
    let q = format!(
        "SELECT CONCAT_WS(',', COUNT(*), SUM(CASE WHEN {lengths} THEN 1 ELSE 0 END), \
         SUM(CASE WHEN field0 = field1 OR field3 = field9 THEN 1 ELSE 0 END)) FROM usertable u \
         WHERE NOT EXISTS (SELECT 1 FROM before_d.usertable s WHERE s.ycsb_key = u.ycsb_key)"
    );
    let inserted: Vec<u64> = db.text(&q).await.split(',').map(|n| n.parse().unwrap()).collect();
    assert!(inserted[0] > 0, "D inserted: {inserted:?}");
    assert_eq!(inserted[1], inserted[0], "every inserted field is 100 characters: {inserted:?}");
    assert_eq!(inserted[2], 0, "each inserted field is drawn of its own: {inserted:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_update_writes_one_random_field_on_postgresql() {
    let (_keep, root) = data_dir();
    let loaded = oltpgen(&["ycsb", "load", "--records", "1000", "-q", "--data-dir", &root]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let server = start_server(&root);
    let url = server.url("ycsb");
    let db = Db::Pg(sql(&server.target("ycsb")).await);
    judge(&db, &["--url", &url]).await;
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[tokio::test(flavor = "multi_thread")]
async fn an_update_writes_one_random_field_on_mariadb() {
    let maria = MariaDb::start();
    let url = maria.url("ycsb");
    let loaded = oltpgen(&["ycsb", "load", "--records", "1000", "-q", "--create-database", "--url", &url]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    judge(&Db::Maria(&maria), &["--url", &url]).await;
}
