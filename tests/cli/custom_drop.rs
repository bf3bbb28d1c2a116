//! `custom drop` removes exactly what the load made, as its load record names it (issue 41): after the
//! file changed (a table renamed in it), the loaded tables and their indexes go, not the new file's,
//! and a table made by hand in the same database stays; on PostgreSQL and MariaDB. A `load --replace`
//! with the changed file clears the loaded tables the same way.

use std::path::{Path, PathBuf};

use crate::common::{Outcome, data_dir, oltpgen, sql, start_server};
use crate::mariadb_common::MariaDb;

/// Two small tables, one with an index beside its key.
const BOOKS: &str = r#"name = "books"

[[tables]]
name = "ledger"
rows = 20
primary_key = ["id"]
indexes = [["amount"]]
columns = [
  { name = "id", ty = "int", gen = "sequence" },
  { name = "amount", ty = "int", gen = { uniform = { min = 0, max = 100 } } },
]

[[tables]]
name = "notes"
rows = 5
primary_key = ["id"]
columns = [{ name = "id", ty = "int", gen = "sequence" }]

[[transactions]]
name = "post"
weight = 1
params = { id = { uniform = { min = 1, rows_of = "ledger" } } }
statements = [{ sql = "UPDATE ledger SET amount = amount + 1 WHERE id = :id" }]
"#;

/// Writes `BOOKS` as loaded, and as changed since (`ledger` renamed `journal`), into `dir`.
fn files(dir: &Path) -> (PathBuf, PathBuf) {
    let (loaded, changed) = (dir.join("books.toml"), dir.join("changed.toml"));
    std::fs::write(&loaded, BOOKS).unwrap();
    std::fs::write(&changed, BOOKS.replace("ledger", "journal")).unwrap();
    (loaded, changed)
}

/// `oltpgen custom SUBCOMMAND --file FILE` with `db` (where the database is).
fn custom(sub: &str, file: &Path, db: &[&str]) -> Outcome {
    oltpgen(&[&["custom", sub, "-q", "--file", file.to_str().unwrap()][..], db].concat())
}

/// Loads `loaded`'s workload with `db`, asserting it succeeds.
fn load(loaded: &Path, db: &[&str]) {
    let out = custom("load", loaded, db);
    assert_eq!(out.code, 0, "{}", out.all());
}

/// Drops with the `changed` file, asserting it says so.
fn drop_changed(changed: &Path, db: &[&str]) {
    let out = oltpgen(&[&["custom", "drop", "--file", changed.to_str().unwrap()][..], db].concat());
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("dropped the books tables"), "{}", out.stdout);
}

/// `BOOKS` loaded into a built-in server: its directory's guard, its data directory and the changed
/// file (in that directory).
fn loaded_on_postgresql() -> (tempfile::TempDir, String, PathBuf) {
    let (keep, root) = data_dir();
    let (loaded, changed) = files(keep.path());
    load(&loaded, &["--data-dir", root.as_str()]);
    (keep, root, changed)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_changed_file_drops_the_loaded_objects_on_postgresql() {
    let (_keep, root, changed) = loaded_on_postgresql();
    let db = ["--data-dir", root.as_str()];
    let relations = "SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_class c \
                     JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 'S', 'v', 'm')";
    {
        let server = start_server(&root);
        let client = sql(&server.target("books")).await;
        let made: String = client.query_one(relations, &[]).await.unwrap().get(0);
        for object in ["ledger", "ledger_pkey", "notes", "notes_pkey"] {
            assert!(made.split(',').any(|r| r == object), "{object} in {made}");
        }
        assert!(made.split(',').any(|r| r.starts_with("ledger_i")), "the index on amount: {made}");
        client.batch_execute("CREATE TABLE by_hand (x int)").await.unwrap();
    }
    drop_changed(&changed, &db);
    let server = start_server(&root);
    let client = sql(&server.target("books")).await;
    let left: Option<String> = client.query_one(relations, &[]).await.unwrap().get(0);
    assert_eq!(left.as_deref(), Some("by_hand"), "only the table made by hand is left");
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn a_changed_file_drops_the_loaded_objects_on_mariadb() {
    let server = MariaDb::start();
    let dir = tempfile::tempdir().unwrap();
    let (loaded, changed) = files(dir.path());
    let url = server.url("books");
    load(&loaded, &["--url", &url, "--create-database"]);
    let tables = "SELECT GROUP_CONCAT(table_name ORDER BY table_name) FROM information_schema.tables \
                  WHERE table_schema = 'books'";
    let indexes = "SELECT GROUP_CONCAT(DISTINCT CONCAT(table_name, '.', index_name) ORDER BY 1) \
                   FROM information_schema.statistics WHERE table_schema = 'books'";
    let made = server.sql("", tables);
    assert!(made.contains("ledger") && made.contains("notes"), "{made}");
    assert!(server.sql("", indexes).contains("ledger."), "the loaded indexes");
    server.sql("books", "CREATE TABLE by_hand (x int)");
    drop_changed(&changed, &["--url", &url]);
    assert_eq!(server.sql("", tables).trim(), "by_hand", "only the table made by hand is left");
    assert_eq!(server.sql("", indexes).trim(), "NULL", "no index of the load is left");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replace_load_of_a_changed_file_drops_the_loaded_tables_first() {
    let (_keep, root, changed) = loaded_on_postgresql();
    let db = ["--data-dir", root.as_str()];
    let replaced = custom("load", &changed, &[&db[..], &["--replace"]].concat());
    assert_eq!(replaced.code, 0, "{}", replaced.all());
    let server = start_server(&root);
    let client = sql(&server.target("books")).await;
    let q = "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public' \
             AND tablename NOT LIKE 'oltpgen%'";
    let tables: String = client.query_one(q, &[]).await.unwrap().get(0);
    assert_eq!(tables, "journal,notes", "the loaded ledger went with the replace");
}
