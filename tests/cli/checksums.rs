//! Per-table checksums of a workload's rows, the tests' proof that a database holds exactly the rows a
//! load made (a restore from the wrong seed, or one that missed a table, gives other sums where row
//! counts and index names agree); and a hook that holds a study still at a run's start so that the test
//! can take them there.
//!
//! Every table of the database's schema but oltpgen's own bookkeeping (`oltpgen_meta`, which records
//! when it loaded) is summed, each independent of the order the rows are stored in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use crate::mariadb_common::MariaDb;

/// Each table's checksum, by table name.
pub type Checksums = BTreeMap<String, String>;

/// The tables to sum: the workload's (and a user's own), not oltpgen's bookkeeping.
const SKIPPED: &str = "oltpgen%";

/// PostgreSQL: each table of the connection's schema as `md5(string_agg(t::text ORDER BY t::text))`,
/// every column of every row, in an order of their own.
pub async fn pg(client: &tokio_postgres::Client) -> Checksums {
    let tables = client
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() \
             AND tablename NOT LIKE $1 ORDER BY 1",
            &[&SKIPPED],
        )
        .await
        .unwrap();
    let mut sums = Checksums::new();
    for table in tables.iter().map(|r| r.get::<_, String>(0)) {
        let sql = format!("SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM \"{table}\" t");
        let sum: Option<String> = client.query_one(&sql, &[]).await.unwrap().get(0);
        sums.insert(table, sum.unwrap_or_else(|| "empty".into()));
    }
    sums
}

/// MariaDB: `CHECKSUM TABLE` of each table of database `name` (a sum of each row's CRC, so independent
/// of the rows' order).
pub fn mariadb(server: &MariaDb, name: &str) -> Checksums {
    let tables = server.sql(
        "",
        &format!(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = '{name}' \
             AND table_type = 'BASE TABLE' AND table_name NOT LIKE '{SKIPPED}' ORDER BY 1"
        ),
    );
    let list: Vec<String> = tables.lines().map(|t| format!("`{name}`.`{t}`")).collect();
    let answer = server.sql("", &format!("CHECKSUM TABLE {}", list.join(", ")));
    answer
        .lines()
        .map(|line| {
            let (table, sum) = line.split_once('\t').unwrap_or_else(|| panic!("CHECKSUM TABLE: {line}"));
            (table.rsplit('.').next().unwrap().to_string(), sum.to_string())
        })
        .collect()
}

/// SQL Server: the sum of each row's `CHECKSUM(*)` and the row count of each user table of the
/// connection's database (Babelfish has neither `CHECKSUM_AGG` nor `BINARY_CHECKSUM`).
pub async fn mssql(client: &mut oltpgen_driver::mssql::Client) -> Checksums {
    let names = crate::common::mssql_exec(
        client,
        &format!("SELECT name FROM sys.tables WHERE name NOT LIKE '{SKIPPED}' ORDER BY name"),
    )
    .await;
    let tables: Vec<String> =
        names[0].iter().map(|r| r.get::<&str, _>(0).unwrap_or_default().to_string()).collect();
    let mut sums = Checksums::new();
    for table in tables {
        let sql = format!("SELECT SUM(CAST(CHECKSUM(*) AS bigint)), COUNT_BIG(*) FROM {table}");
        let rows = crate::common::mssql_exec(client, &sql).await;
        let row = &rows[0][0];
        let sum = format!("{:?}/{:?}", row.get::<i64, _>(0), row.get::<i64, _>(1));
        sums.insert(table, sum);
    }
    sums
}

/// A hook (`--before-run`, `--after-run`) that holds the study still until the test has looked: it
/// creates `<dir>/<name>.<run>` and waits until the test removes it ([`next_pause`]).
pub fn pause_hook(dir: &Path, name: &str) -> String {
    let file = format!("'{}/{name}'.$OLTPGEN_RUN", dir.display());
    format!("touch {file} && while [ -e {file} ]; do sleep 0.1; done")
}

/// Waits until a [`pause_hook`] named `name` holds the study `child` in `dir`: its run and its file, to
/// remove once the test has looked; `None` once `child` has ended.
pub async fn next_pause(child: &mut Child, dir: &Path, name: &str) -> Option<(u32, PathBuf)> {
    loop {
        let waiting = std::fs::read_dir(dir).unwrap().flatten().find_map(|e| {
            let file = e.file_name().into_string().ok()?;
            let run = file.strip_prefix(name)?.strip_prefix('.')?.parse().ok()?;
            Some((run, e.path()))
        });
        if waiting.is_some() {
            return waiting;
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
