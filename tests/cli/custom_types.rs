//! A workload file's indexes (built after the data) and timestamp generator (issue 41), on PostgreSQL.

use crate::common::{data_dir, oltpgen, sql, start_server};

const FILE: &str = r#"name = "events"

[[tables]]
name = "events"
rows = 500
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
    let loaded = oltpgen(&["custom", "load", "-q", "--file", file.to_str().unwrap(), "--data-dir", &root]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());

    let server = start_server(&root);
    let client = sql(&server.target("events")).await;
    let q = "SELECT indexname || ':' || indexdef FROM pg_indexes WHERE tablename = 'events' ORDER BY 1";
    let indexes: Vec<String> = client.query(q, &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(indexes.len(), 3, "the key and two indexes: {indexes:?}");
    assert!(indexes[0].starts_with("events_i1:") && indexes[0].ends_with("(at)"), "{indexes:?}");
    assert!(indexes[1].starts_with("events_i2:") && indexes[1].ends_with("(kind, at)"), "{indexes:?}");
    let q = "SELECT min(at)::text, max(at)::text, count(DISTINCT at::date)::int FROM events";
    let row = client.query_one(q, &[]).await.unwrap();
    let (lo, hi, days): (String, String, i32) = (row.get(0), row.get(1), row.get(2));
    assert!(lo.as_str() >= "2024-02-28 00:00:00" && hi.as_str() <= "2024-03-01 12:00:00", "{lo} {hi}");
    assert_eq!(days, 3, "the 28th, the 29th (a leap year) and the 1st");
}
