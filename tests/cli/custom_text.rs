//! A workload file's text parameters (issue 41): an a-string, an n-string, a choice of texts and a
//! timestamp, drawn from the run's seed, bound as text on PostgreSQL, MariaDB and SQL Server (Babelfish),
//! inserted and read back as the generators draw them; a text parameter where the server expects an
//! integer is refused at its line before the run.

use std::path::Path;

use crate::common::{Outcome, assert_refused, data_dir, oltpgen, sql, start_server};

/// Authors loaded, notes written by the run with every kind of text parameter, and checks that name
/// any note whose values no generator could have drawn.
const FILE: &str = r#"name = "notes"

[[tables]]
name = "authors"
rows = 20
primary_key = ["id"]
columns = [
  { name = "id", ty = "int", gen = "sequence" },
  { name = "name", ty = "varchar(20)", gen = { text = { len = 12 } } },
]

[[tables]]
name = "notes"
rows = 0
columns = [
  { name = "author", ty = "int", gen = { key_of = "authors" } },
  { name = "body", ty = "varchar(40)", gen = { text = { len = 40 } } },
  { name = "code", ty = "char(6)", gen = { digits = { len = 6 } } },
  { name = "state", ty = "varchar(8)", gen = { constant = "new" } },
  { name = "made", ty = "timestamp", gen = { timestamp = { from = "2024-01-01", to = "2024-01-02" } } },
]

[[transactions]]
name = "write"
weight = 3
params = { author = { uniform = { min = 1, rows_of = "authors" } }, body = { text = { len = 40, min_len = 8 } }, code = { digits = { len = 6 } }, state = { choice = ["new", "paid", "sent"] }, made = { timestamp = { from = "2024-02-28", to = "2024-03-01 23:59:59" } } }
statements = [
  { sql = "INSERT INTO notes VALUES (:author, :body, :code, :state, :made)", rows = 1 },
]

[[transactions]]
name = "find"
weight = 1
params = { name = { text = { len = 12 } } }
statements = [
  { sql = "SELECT count(*) FROM authors WHERE name = :name", rows = 1 },
]

[[checks]]
name = "every body is 8 to 40 letters and digits"
sql = "SELECT body AS k FROM notes WHERE length(body) NOT BETWEEN 8 AND 40 OR body !~ '^[A-Za-z0-9]+$'"
sql_mysql = "SELECT body AS k FROM notes WHERE CHAR_LENGTH(body) NOT BETWEEN 8 AND 40 OR body NOT REGEXP '^[A-Za-z0-9]+$'"
sql_mssql = "SELECT body AS k FROM notes WHERE LEN(body) NOT BETWEEN 8 AND 40 OR body LIKE '%[^A-Za-z0-9]%'"

[[checks]]
name = "every code is 6 digits, every state one of the choice, every instant in its range"
sql = "SELECT code AS k FROM notes WHERE code !~ '^[0-9]{6}$' OR state NOT IN ('new', 'paid', 'sent') OR made < '2024-02-28' OR made > '2024-03-01 23:59:59'"
sql_mysql = "SELECT code AS k FROM notes WHERE code NOT REGEXP '^[0-9]{6}$' OR state NOT IN ('new', 'paid', 'sent') OR made < '2024-02-28' OR made > '2024-03-01 23:59:59'"
sql_mssql = "SELECT code AS k FROM notes WHERE LEN(code) <> 6 OR code LIKE '%[^0-9]%' OR state NOT IN ('new', 'paid', 'sent') OR made < '2024-02-28' OR made > '2024-03-01 23:59:59'"

[[checks]]
name = "the run wrote notes"
sql = "SELECT 'none' AS k WHERE NOT EXISTS (SELECT 1 FROM notes)"
sql_mysql = "SELECT 'none' AS k FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM notes)"
"#;

/// `oltpgen custom` with `args` (its subcommand first) on `file`, at `at` (the database's flags).
fn custom(file: &Path, at: &[&str], args: &[&str]) -> Outcome {
    oltpgen(&[&["custom"][..], args, &["--file", file.to_str().unwrap()], at].concat())
}

/// Loads the notes workload at `at`, runs it 2 s with two users and passes its checks.
fn write_and_check(at: &[&str], load: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.toml");
    std::fs::write(&file, FILE).unwrap();
    let loaded = custom(&file, at, &[&["load", "-q"][..], load].concat());
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let ran = custom(&file, at, &["run", "--users", "2", "--warmup", "0s", "--duration", "2s"]);
    assert_eq!(ran.code, 0, "{}", ran.all());
    let check = custom(&file, at, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(check.stdout.contains("the run wrote notes"), "{}", check.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn text_parameters_are_bound_as_text_and_read_back_on_postgresql() {
    let (_keep, root) = data_dir();
    let at = ["--data-dir", root.as_str()];
    tokio::task::block_in_place(|| write_and_check(&at, &[]));

    let server = start_server(&root);
    let client = sql(&server.target("notes")).await;
    let q = "SELECT count(*)::int, count(DISTINCT length(body))::int, count(DISTINCT state)::int, \
             count(DISTINCT made::date)::int, min(length(code))::int, max(length(code))::int FROM notes";
    let row = client.query_one(q, &[]).await.unwrap();
    let (notes, lengths, states, days) =
        (row.get::<_, i32>(0), row.get::<_, i32>(1), row.get::<_, i32>(2), row.get::<_, i32>(3));
    assert!(notes > 30, "{notes} notes in 2 s");
    assert!(lengths > 10, "body lengths 8 to 40 drawn: {lengths} distinct");
    assert_eq!((states, days), (3, 3), "every choice, and the 28th, 29th and 1st");
    assert_eq!((row.get::<_, i32>(4), row.get::<_, i32>(5)), (6, 6));
    // The checks are not vacuous: a note no generator draws breaks them, named.
    client
        .batch_execute("INSERT INTO notes VALUES (1, 'not-an-a-string', '12345x', 'new', '2024-02-28')")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.toml");
    std::fs::write(&file, FILE).unwrap();
    let url = server.url("notes");
    let check = tokio::task::block_in_place(|| custom(&file, &["--url", &url], &["check"]));
    assert_ne!(check.code, 0, "{}", check.all());
    assert!(check.all().contains("not-an-a-string") && check.all().contains("12345x"), "{}", check.all());
}

#[cfg_attr(
    not(oltpgen_test_mariadb),
    ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client"
)]
#[test]
fn text_parameters_are_bound_as_text_and_read_back_on_mariadb() {
    let db = crate::mariadb_common::MariaDb::start();
    write_and_check(&["--url", &db.url("notes")], &["--create-database"]);
    let lengths = db.int("notes", "SELECT count(DISTINCT CHAR_LENGTH(body)) FROM notes");
    let states = db.int("notes", "SELECT count(DISTINCT state) FROM notes");
    assert!(lengths > 10 && states == 3, "{lengths} lengths, {states} states");
}

#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn text_parameters_are_bound_as_text_and_read_back_on_sql_server() {
    let url = crate::common::mssql_url();
    let _turn = crate::common::mssql_turn().await;
    let db = crate::common::MssqlDb::create(&url, "notes").await;
    let url = db.url.clone();
    tokio::task::spawn_blocking(move || write_and_check(&["--url", &url], &[])).await.unwrap();
}

#[test]
fn a_text_parameter_where_the_server_expects_an_integer_is_refused_at_its_line() {
    let (keep, root) = data_dir();
    let file = keep.path().join("notes.toml");
    std::fs::write(&file, FILE.replace("WHERE name = :name", "WHERE id = :name")).unwrap();
    let at = ["--data-dir", root.as_str()];
    let loaded = custom(&file, &at, &["load", "-q"]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let run = custom(&file, &at, &["run", "--duration", "2s"]);
    assert_refused(&run, "notes.toml:36: ");
    assert!(
        run.stderr.contains("transaction find, statement 1 (SELECT count(*) FROM authors WHERE id = $1): $1 is int4, and its parameter draws text: cast it in the SQL, as $1::text"),
        "{}",
        run.stderr
    );
}
