//! A workload defined at run time (issue 38): a test writes its definition — two tables, two
//! transactions and a check — and `oltpgen custom --file FILE` loads it into the built-in
//! PostgreSQL, runs a sweep of two steps, checks it, and every report renders its result in its own
//! words; a bad or missing definition, and a database loaded from another definition, are refused in one
//! line before anything starts.

use std::path::Path;

use crate::common::{assert_matches_schema, assert_refused, data_dir, file, oltpgen, result_json};

/// The definition of `bank` in TOML: accounts (1,000 per unit of scale) and the transfers its deposits
/// write, a deposit (weight 3: two statements) and a balance look-up (weight 1), and one check.
/// `deposit` is the largest amount a deposit adds.
pub(crate) fn bank(deposit: u32) -> String {
    format!(
        r#"
name = "bank"

[[tables]]
name = "accounts"
rows = 1000
primary_key = ["id"]
columns = [
  {{ name = "id", ty = "int", gen = "sequence" }},
  {{ name = "balance", ty = "int", gen = {{ uniform = {{ min = 0, max = 1000 }} }} }},
]

[[tables]]
name = "transfers"
rows = 0
columns = [
  {{ name = "account", ty = "int", gen = "sequence" }},
  {{ name = "amount", ty = "int", gen = {{ constant = 0 }} }},
]

[[transactions]]
name = "deposit"
weight = 3
statements = [
  {{ sql = "UPDATE accounts SET balance = balance + $2 WHERE id = $1", params = [{{ uniform = {{ min = 1, rows_of = "accounts" }} }}, {{ uniform = {{ min = 1, max = {deposit} }} }}] }},
  {{ sql = "INSERT INTO transfers (account, amount) VALUES ($1, $2)", params = [{{ uniform = {{ min = 1, rows_of = "accounts" }} }}, {{ uniform = {{ min = 1, max = {deposit} }} }}] }},
]

[[transactions]]
name = "balance"
weight = 1
statements = [
  {{ sql = "SELECT balance FROM accounts WHERE id = $1", params = [{{ uniform = {{ min = 1, rows_of = "accounts" }} }}] }},
]

[[checks]]
name = "no account balance is negative"
sql = "SELECT CAST(id AS text) FROM accounts WHERE balance < 0"
"#
    )
}

/// `oltpgen custom` with `args` (its subcommand first) on the built-in instance at `root`, the
/// workload `--file FILE`.
pub(crate) fn custom(workload: &Path, root: &str, args: &[&str]) -> crate::common::Outcome {
    let w = workload.to_str().unwrap();
    oltpgen(&[&["custom"][..], args, &["--file", w, "--data-dir", root]].concat())
}

/// Words of the built-in workloads that a report of `bank` must not say.
const NOT_BANK: [&str; 5] = ["NOPM", "New-Order", "new_order", "warehouse", "TPC-C"];

#[test]
fn a_workload_defined_at_run_time_loads_runs_a_sweep_checks_reports_and_drops() {
    let (keep, root) = data_dir();
    let bank = file(keep.path(), "bank.toml", &bank(100));

    let load = custom(&bank, &root, &["load", "--scale", "2", "-q"]);
    assert_eq!(load.code, 0, "{}", load.all());
    assert!(load.stdout.contains("loaded bank scale 2"), "{}", load.stdout);

    let out = keep.path().join("result");
    let run = custom(
        &bank,
        &root,
        &["run", "--users", "1,2", "--warmup", "1s", "--duration", "3s", "--out", out.to_str().unwrap()],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("running bank on"), "{}", run.stdout);
    assert!(run.stdout.contains("step 2 (run 1): 2 users"), "{}", run.stdout);
    assert!(run.stdout.contains("max TPS within cap"), "{}", run.stdout);
    for word in NOT_BANK {
        assert!(!run.all().contains(word), "the run says {word}: {}", run.all());
    }

    let result = result_json(&out);
    assert_matches_schema(&result);
    assert_eq!(result["workload"], "bank");
    assert_eq!(result["descriptor"]["transactions"], serde_json::json!(["deposit", "balance"]));
    assert_eq!(result["config"]["scale"], 2);
    let steps = result["steps"].as_array().unwrap();
    assert_eq!(steps.iter().map(|s| s["users"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2]);
    for step in steps {
        let count = |t: &str| step["transactions"][t]["count"].as_u64().unwrap_or(0);
        assert!(count("deposit") > 0 && count("balance") > 0, "both transactions ran: {step}");
        // Drawn by weight, 3 to 1.
        let share = count("deposit") as f64 / (count("deposit") + count("balance")) as f64;
        assert!((0.6..0.9).contains(&share), "deposits are 3 in 4: {share}");
        assert_eq!(step["errors"], 0, "{step}");
    }

    let check = custom(&bank, &root, &["check"]);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(check.stdout.contains("no account balance is negative"), "{}", check.stdout);

    // Every report, in bank's words.
    let o = out.to_str().unwrap();
    let html = keep.path().join("report.html");
    for args in [
        vec!["report", "show", o],
        vec!["report", "show", "--audit", o],
        vec!["report", "compare", o, o],
        vec!["report", "html", o, "--out", html.to_str().unwrap()],
    ] {
        let shown = oltpgen(&args);
        assert_eq!(shown.code, 0, "{args:?}: {}", shown.all());
        for word in NOT_BANK {
            assert!(!shown.stdout.contains(word), "{args:?} says {word}: {}", shown.stdout);
        }
    }
    let shown = oltpgen(&["report", "show", o]);
    assert!(shown.stdout.contains("deposit") && shown.stdout.contains("balance"), "{}", shown.stdout);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("deposit") && !page.contains("NOPM"), "the HTML page is bank's");
    for name in ["summary.txt", "timeseries.csv", "report.html"] {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        assert!(!text.contains("NOPM"), "{name} says NOPM");
    }

    let dropped = custom(&bank, &root, &["drop"]);
    assert_eq!(dropped.code, 0, "{}", dropped.all());
    assert!(dropped.stdout.contains("dropped the bank tables"), "{}", dropped.stdout);
}

#[test]
fn a_missing_bad_or_other_definition_is_refused_before_anything_starts() {
    let (keep, root) = data_dir();
    let missing = oltpgen(&["custom", "run", "--data-dir", &root]);
    assert_refused(&missing, "give --file FILE");

    let nowhere = custom(&keep.path().join("nowhere.toml"), &root, &["load"]);
    assert_refused(&nowhere, "--file: cannot read");

    let garbled = file(keep.path(), "garbled.toml", "name = \"bank\"\ntables = 3\n");
    assert_refused(&custom(&garbled, &root, &["load"]), "garbled.toml: line 2");

    let no_txn = file(keep.path(), "empty.toml", "name = \"bank\"\ntables = []\ntransactions = []\n");
    assert_refused(&custom(&no_txn, &root, &["load"]), "no tables");

    // Loaded from one definition, run with another of the same name.
    let loaded = file(keep.path(), "bank.toml", &bank(100));
    let load = custom(&loaded, &root, &["load", "-q"]);
    assert_eq!(load.code, 0, "{}", load.all());
    let other = file(keep.path(), "other.toml", &bank(7));
    assert_refused(&custom(&other, &root, &["run", "--duration", "1s"]), "another definition");
}
