//! `tpcc drop` and `ds2 drop` on PostgreSQL drop only oltpgen's tables: a user's view over one of them,
//! or a user table's foreign key to one, makes the drop refuse (naming them) with nothing dropped, where
//! a `CASCADE` silently took them along.

use crate::common::server_with;
use crate::common::*;

/// The tables of `c`'s database among `names`, sorted.
async fn present(c: &tokio_postgres::Client, names: &[&str]) -> Vec<String> {
    let sql = "SELECT relname::text FROM pg_class WHERE relnamespace = 'public'::regnamespace \
               AND relname = ANY($1) ORDER BY 1";
    c.query(sql, &[&names]).await.unwrap().iter().map(|r| r.get(0)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn drop_refuses_while_a_users_objects_depend_on_the_tables_and_deletes_nothing() {
    let (pg, urls) = server_with(&["tpcc_dep", "ds2_dep"]).await;
    let cases = [
        ("tpcc", &urls[0], "tpcc_dep", vec!["--scale", "1"], "warehouse", "w_id"),
        ("ds2", &urls[1], "ds2_dep", vec!["--db-size", "10mb"], "customers", "customerid"),
    ];
    for (workload, url, db, size, table, key) in cases {
        let mut load = vec![workload, "load", "--url", url, "-q"];
        load.extend(size);
        let out = oltpgen(&load);
        assert_eq!(out.code, 0, "{}", out.all());
        let c = sql(&pg.target(db)).await;
        c.batch_execute(&format!(
            "CREATE VIEW users_view AS SELECT {key} FROM {table};
             CREATE TABLE users_table (ref int REFERENCES {table} ({key}))"
        ))
        .await
        .unwrap();
        let ours = [table, "oltpgen_meta"];
        let before = pg_objects(&c).await;

        let out = oltpgen(&[workload, "drop", "--url", url]);
        assert_eq!(out.code, 1, "refused as SQL Server refuses it: {}", out.all());
        let lines: Vec<&str> = out.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "one line: {}", out.stderr);
        for needle in [
            "other objects depend on oltpgen's tables",
            &format!("view users_view depends on table {table}"),
            "users_table",
            "drop them first; nothing was dropped",
        ] {
            assert!(lines[0].contains(needle), "expected '{needle}' in: {}", lines[0]);
        }
        assert_no_secret(&out);
        assert_eq!(present(&c, &["users_table", "users_view"]).await, ["users_table", "users_view"]);
        let mut ours_sorted = ours.to_vec();
        ours_sorted.sort();
        assert_eq!(present(&c, &ours).await, ours_sorted, "oltpgen's tables stay too");
        assert_eq!(pg_objects(&c).await, before, "and its functions and sequences");
        let fk: i64 = c
            .query_one("SELECT count(*) FROM pg_constraint WHERE conrelid = 'users_table'::regclass", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(fk, 1, "the user's foreign key stays");

        c.batch_execute("DROP VIEW users_view; DROP TABLE users_table").await.unwrap();
        let out = oltpgen(&[workload, "drop", "--url", url]);
        assert!(out.code == 0 && out.stdout.contains("dropped the"), "{}", out.all());
        assert!(present(&c, &ours).await.is_empty(), "dropped once nothing else depends on them");
    }
}
