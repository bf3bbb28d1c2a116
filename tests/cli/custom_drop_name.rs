//! `custom drop` without the workload's file (issue 41): the load record keeps the definition, so
//! `--name` (or, when the database holds one file workload, nothing) finds what to drop; `--file` and
//! `--name` that disagree, several workloads and no name, and the built-in server without a name are
//! refused in one line.

use std::path::Path;

use crate::common::{Outcome, assert_refused, data_dir, oltpgen, sql, start_server};

/// A workload of one table named `name`, in a file `NAME.toml` written into `dir`.
fn file(dir: &Path, name: &str) -> std::path::PathBuf {
    let text = format!(
        r#"name = "{name}"

[[tables]]
name = "{name}_rows"
rows = 10
primary_key = ["id"]
columns = [{{ name = "id", ty = "int", gen = "sequence" }}]

[[transactions]]
name = "touch"
weight = 1
statements = [{{ sql = "SELECT count(*) FROM {name}_rows" }}]
"#
    );
    crate::common::file(dir, &format!("{name}.toml"), &text)
}

/// `oltpgen custom drop` with `more`.
fn drop(more: &[&str]) -> Outcome {
    oltpgen(&[&["custom", "drop"][..], more].concat())
}

/// Loads the workload `file` with `db`, asserting it succeeds.
fn load(file: &Path, db: &[&str]) {
    let out = oltpgen(&[&["custom", "load", "-q", "--file", file.to_str().unwrap()][..], db].concat());
    assert_eq!(out.code, 0, "{}", out.all());
}

#[test]
fn a_file_and_a_name_that_disagree_are_refused() {
    let (keep, root) = data_dir();
    let books = file(keep.path(), "books");
    let out = drop(&["--file", books.to_str().unwrap(), "--name", "ledger", "--data-dir", &root]);
    assert_refused(&out, "defines workload books, and --name says ledger: give one of them, or the same");
}

#[test]
fn the_built_in_server_without_a_name_is_refused() {
    let (_keep, root) = data_dir();
    assert_refused(&drop(&["--data-dir", &root]), "custom drop on the built-in PostgreSQL: give --name NAME");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loaded_workload_is_dropped_by_its_name_without_its_file_on_postgresql() {
    let (keep, root) = data_dir();
    let books = file(keep.path(), "books");
    load(&books, &["--data-dir", &root]);
    std::fs::remove_file(&books).unwrap();
    let out = tokio::task::block_in_place(|| drop(&["--name", "books", "--data-dir", &root]));
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("dropped the books tables"), "{}", out.stdout);

    // Two file workloads in one database: no name is refused naming both; a name drops that one
    // alone; then the one left needs no name.
    let server = start_server(&root);
    let client = sql(&server.target("postgres")).await;
    client.batch_execute("CREATE DATABASE shared").await.unwrap();
    let url = server.url("shared");
    let (books, ledger) = (file(keep.path(), "books"), file(keep.path(), "ledger"));
    let at = ["--url", url.as_str()];
    tokio::task::block_in_place(|| {
        load(&books, &at);
        load(&ledger, &at);
        let out = drop(&at);
        assert_refused(&out, "holds several workloads loaded from files (");
        assert!(out.stderr.contains("books") && out.stderr.contains("ledger"), "{}", out.stderr);
        assert!(out.stderr.contains("give --name NAME"), "{}", out.stderr);
        let out = drop(&[&at[..], &["--name", "ledger"]].concat());
        assert_eq!(out.code, 0, "{}", out.all());
        assert!(out.stdout.contains("dropped the ledger tables"), "{}", out.stdout);
    });
    let shared = sql(&server.target("shared")).await;
    let q = "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public' \
             AND tablename NOT LIKE 'oltpgen%'";
    let tables: String = shared.query_one(q, &[]).await.unwrap().get(0);
    assert_eq!(tables, "books_rows", "ledger's table went, books' stayed");
    tokio::task::block_in_place(|| {
        let out = drop(&at);
        assert_eq!(out.code, 0, "{}", out.all());
        assert!(out.stdout.contains("dropped the books tables"), "{}", out.stdout);
        let out = drop(&at);
        assert_eq!(out.code, 0, "{}", out.all());
        assert!(
            out.stdout.contains("holds no workload loaded from a file: nothing to drop"),
            "{}",
            out.stdout
        );
        assert_refused(&drop(&[&at[..], &["--name", "books"]].concat()), "--name books: ");
    });
}
