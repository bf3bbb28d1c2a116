//! A workload file's indexes (built after the data), timestamp generator, rows as an expression of
//! `:scale` and its bigint, float, bool and text columns (issue 41).

use crate::common::{data_dir, oltpgen, sql, start_server};

const FILE: &str = r#"name = "events"

[[tables]]
name = "events"
rows = "250 * :scale"
primary_key = ["id"]
indexes = [["at"], ["kind", "at"]]
columns = [
  { name = "id", ty = "int", gen = "sequence" },
  { name = "kind", ty = "smallint", gen = { uniform = { min = 1, max = 5 } } },
  { name = "at", ty = "timestamp", gen = { timestamp = { from = "2024-02-28", to = "2024-03-01 12:00:00" } } },
]

[[transactions]]
name = "recent"
weight = 1
statements = [{ sql = "SELECT count(*) FROM events WHERE kind = $1", params = [{ uniform = { min = 1, max = 5 } }] }]
"#;

#[tokio::test(flavor = "multi_thread")]
async fn indexes_are_built_and_timestamps_stay_in_their_range() {
    let (_keep, root) = data_dir();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.toml");
    std::fs::write(&file, FILE).unwrap();
    let file = file.to_str().unwrap();
    let loaded = oltpgen(&["custom", "load", "-q", "--scale", "2", "--file", file, "--data-dir", &root]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());

    let server = start_server(&root);
    let client = sql(&server.target("events")).await;
    let q = "SELECT indexname || ':' || indexdef FROM pg_indexes WHERE tablename = 'events' ORDER BY 1";
    let indexes: Vec<String> = client.query(q, &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(indexes.len(), 3, "the key and two indexes: {indexes:?}");
    assert!(indexes[0].starts_with("events_i1:") && indexes[0].ends_with("(at)"), "{indexes:?}");
    assert!(indexes[1].starts_with("events_i2:") && indexes[1].ends_with("(kind, at)"), "{indexes:?}");
    let q = "SELECT min(at)::text, max(at)::text, count(DISTINCT at::date)::int, count(*)::int FROM events";
    let row = client.query_one(q, &[]).await.unwrap();
    let (lo, hi, days): (String, String, i32) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(row.get::<_, i32>(3), 500, "rows = \"250 * :scale\" at scale 2");
    assert!(lo.as_str() >= "2024-02-28 00:00:00" && hi.as_str() <= "2024-03-01 12:00:00", "{lo} {hi}");
    assert_eq!(days, 3, "the 28th, the 29th (a leap year) and the 1st");
}

/// A table of every type a file may declare beyond the first ones, and checks that its values came
/// through each engine's bulk path as generated (no row breaks them).
const TYPED: &str = r#"name = "typed"

[[tables]]
name = "typed"
rows = 300
primary_key = ["id"]
indexes = [["big"]]
columns = [
  { name = "id", ty = "bigint", gen = "sequence" },
  { name = "big", ty = "bigint", gen = { uniform = { min = 5000000000, max = 6000000000 } } },
  { name = "ratio", ty = "float", gen = { uniform = { min = 2, max = 9 } } },
  { name = "flag", ty = "bool", gen = { constant = 1 } },
  { name = "note", ty = "text", gen = { text = { len = 300 } } },
]

[[transactions]]
name = "lookup"
weight = 1
statements = [{ sql = "SELECT big FROM typed WHERE id = $1", rows = 1, params = [{ uniform = { min = 1, rows_of = "typed" } }] }]

[[checks]]
name = "every big is past 32 bits, every ratio in 2 to 9"
sql = "SELECT CAST(id AS varchar(20)) AS k FROM typed WHERE big < 5000000000 OR big > 6000000000 OR ratio < 2 OR ratio > 9 OR ratio <> FLOOR(ratio)"
sql_mysql = "SELECT CAST(id AS CHAR) AS k FROM typed WHERE big < 5000000000 OR big > 6000000000 OR ratio < 2 OR ratio > 9 OR ratio <> FLOOR(ratio)"

[[checks]]
name = "every flag is true, every note 300 characters"
sql = "SELECT CAST(id AS varchar(20)) AS k FROM typed WHERE NOT flag OR length(note) <> 300"
sql_mysql = "SELECT CAST(id AS CHAR) AS k FROM typed WHERE flag = 0 OR CHAR_LENGTH(note) <> 300"
sql_mssql = "SELECT CAST(id AS varchar(20)) AS k FROM typed WHERE flag = 0 OR LEN(note) <> 300"
"#;

/// Loads, runs 2 s and checks the typed workload at `at`.
fn typed_cycle(at: &[&str], load: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typed.toml");
    std::fs::write(&file, TYPED).unwrap();
    let custom =
        |args: &[&str]| oltpgen(&[&["custom"][..], args, &["--file", file.to_str().unwrap()], at].concat());
    let loaded = custom(&[&["load", "-q"][..], load].concat());
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let ran = custom(&["run", "--users", "2", "--warmup", "0s", "--duration", "2s"]);
    assert_eq!(ran.code, 0, "{}", ran.all());
    let check = custom(&["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(check.stdout.contains("every flag is true"), "{}", check.stdout);
    let dropped = custom(&["drop"]);
    assert_eq!(dropped.code, 0, "{}", dropped.all());
}

#[test]
fn bigint_float_bool_and_text_load_on_postgresql() {
    let (_keep, root) = data_dir();
    typed_cycle(&["--data-dir", &root], &[]);
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn bigint_float_bool_and_text_load_on_mariadb() {
    let db = crate::mariadb_common::MariaDb::start();
    typed_cycle(&["--url", &db.url("typed")], &["--create-database"]);
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn bigint_float_bool_and_text_load_on_sql_server() {
    let url = crate::common::mssql_url();
    let _turn = crate::common::mssql_turn().await;
    let db = crate::common::MssqlDb::create(&url, "typed").await;
    let url = db.url.clone();
    tokio::task::spawn_blocking(move || typed_cycle(&["--url", &url], &[])).await.unwrap();
}
