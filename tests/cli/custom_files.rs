//! A bad workload file is refused in one line naming the file, the line and what to write instead,
//! exit 2, before any work (issue 41): an unknown generator or type, a parameter used but not defined,
//! SQL the server refuses when the run prepares it, a check the server cannot run.

use std::path::{Path, PathBuf};

use crate::common::{Outcome, assert_refused, data_dir, oltpgen};

/// A small workload, good as it stands; each test breaks one thing in it.
const GOOD: &str = r#"name = "ledger"

[[tables]]
name = "accounts"
rows = 100
primary_key = ["id"]
columns = [
  { name = "id", ty = "int", gen = "sequence" },
  { name = "balance", ty = "int", gen = { uniform = { min = 0, max = 100 } } },
]

[[transactions]]
name = "credit"
weight = 1
params = { id = { uniform = { min = 1, rows_of = "accounts" } } }
statements = [
  { sql = "UPDATE accounts SET balance = balance + 1 WHERE id = :id" },
]

[[checks]]
name = "no balance is negative"
sql = "SELECT CAST(id AS text) AS k FROM accounts WHERE balance < 0"
"#;

/// `GOOD` with `from` replaced by `to`, written as `ledger.toml` in `dir`.
fn broken(dir: &Path, from: &str, to: &str) -> PathBuf {
    assert!(GOOD.contains(from), "{from}");
    let path = dir.join("ledger.toml");
    std::fs::write(&path, GOOD.replace(from, to)).unwrap();
    path
}

/// `oltpgen custom SUBCOMMAND --file FILE` on the built-in server at `root`, with `more`.
fn custom(sub: &str, file: &Path, root: &str, more: &[&str]) -> Outcome {
    oltpgen(&[&["custom", sub, "--file", file.to_str().unwrap(), "--data-dir", root][..], more].concat())
}

#[test]
fn an_unknown_generator_is_refused_at_its_line() {
    let (keep, root) = data_dir();
    let file =
        broken(keep.path(), "{ uniform = { min = 0, max = 100 } }", "{ zipf = { min = 0, max = 100 } }");
    assert_refused(
        &custom("load", &file, &root, &[]),
        "ledger.toml: line 9: unknown variant `zipf`, expected one of",
    );
}

#[test]
fn an_unknown_type_is_refused_at_its_line() {
    let (keep, root) = data_dir();
    let file = broken(keep.path(), r#"ty = "int", gen = { uniform"#, r#"ty = "integr", gen = { uniform"#);
    assert_refused(
        &custom("load", &file, &root, &[]),
        "ledger.toml: line 9: type \"integr\" is not one oltpgen generates: use int",
    );
}

#[test]
fn a_parameter_used_but_not_defined_is_refused_at_its_statement() {
    let (keep, root) = data_dir();
    let file = broken(keep.path(), "WHERE id = :id", "WHERE id = :id AND balance > :floor");
    assert_refused(
        &custom("load", &file, &root, &[]),
        "ledger.toml:17: workload ledger: transaction credit, statement 1: parameter :floor is used but not defined: define it",
    );
}

#[test]
fn sql_the_server_refuses_is_refused_at_its_statement_before_the_run() {
    let (keep, root) = data_dir();
    let file = broken(keep.path(), "UPDATE accounts SET", "UPDATE acounts SET");
    let loaded = custom("load", &file, &root, &["-q"]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let out = keep.path().join("result");
    let run = custom("run", &file, &root, &["--duration", "2s", "--out", out.to_str().unwrap()]);
    assert_refused(&run, "ledger.toml:17: ");
    assert!(run.stderr.contains("transaction credit, statement 1 (UPDATE acounts SET"), "{}", run.stderr);
    assert!(
        run.stderr.contains("does not prepare: relation \"acounts\" does not exist: correct it"),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "nothing ran");
}

#[test]
fn a_check_the_server_cannot_run_is_refused_at_its_line() {
    let (keep, root) = data_dir();
    let file = broken(keep.path(), "WHERE balance < 0", "WHERE balance < 0 AND");
    let loaded = custom("load", &file, &root, &["-q"]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let check = custom("check", &file, &root, &[]);
    assert_refused(&check, "ledger.toml:20: ");
    assert!(check.stderr.contains("check 1 (no balance is negative): syntax error"), "{}", check.stderr);
    assert!(check.stderr.contains("correct its SQL"), "{}", check.stderr);
}

#[test]
fn a_run_with_a_changed_file_names_what_changed() {
    let (keep, root) = data_dir();
    let good = keep.path().join("good.toml");
    std::fs::write(&good, GOOD).unwrap();
    let loaded = custom("load", &good, &root, &["-q"]);
    assert_eq!(loaded.code, 0, "{}", loaded.all());
    let file = broken(keep.path(), "max = 100 }", "max = 99 }");
    let run = custom("run", &file, &root, &["--duration", "1s"]);
    assert_refused(&run, "loaded from another definition of it (table accounts changed): reload it");
}
