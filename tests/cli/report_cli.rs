//! `report show`, `compare` and `merge` through the built binary, on results written to files: each
//! prints exactly what the library renders from the results read back, merge writes a result that
//! matches the schema, and bad files and mismatched plans are refused in one line.

use std::path::{Path, PathBuf};

use oltpgen_report::model::RunResult;
use oltpgen_report::render::text::{compare as compare_text, show};
use oltpgen_report::stats::{compare, merge};

use crate::common::{Outcome, assert_matches_schema, assert_refused, oltpgen, result_json};
use crate::report_html::sweep;

/// Writes `result` as `dir/name/result.json` and returns that directory.
fn write(dir: &Path, name: &str, result: &RunResult) -> PathBuf {
    let at = dir.join(name);
    std::fs::create_dir(&at).unwrap();
    std::fs::write(at.join("result.json"), serde_json::to_string_pretty(result).unwrap()).unwrap();
    at
}

/// `oltpgen report merge a b --out out`.
fn merge_into(a: &Path, b: &Path, out: &Path) -> Outcome {
    let path = |p: &Path| p.to_str().unwrap().to_string();
    oltpgen(&["report", "merge", &path(a), &path(b), "--out", &path(out)])
}

#[test]
fn show_compare_and_merge_print_what_the_results_hold() {
    let dir = tempfile::tempdir().unwrap();
    let a = sweep();
    // The same plan run by a second machine against its own database.
    let mut b = sweep();
    b.targets = vec!["postgres://oltpgen@10.0.0.2:5432/<tpcc>".into()];
    let (a_dir, b_dir) = (write(dir.path(), "a", &a), write(dir.path(), "b", &b));
    let a_file = a_dir.join("result.json");

    for path in [&a_dir, &a_file] {
        let out = oltpgen(&["report", "show", path.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{}", out.all());
        assert_eq!(out.stdout, show::report(&a), "show prints what ran, the steps and the headline");
    }
    assert!(
        show::report(&a).contains("max NOPM within the cap: 40,500 at 16 users"),
        "the headline is shown"
    );

    let out = oltpgen(&["report", "compare", a_file.to_str().unwrap(), b_dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(out.stdout, compare_text::render(&compare::compare(&a, &b)));
    assert!(
        out.stdout.starts_with("max NOPM within cap 40,500 → 40,500, 1.00× (+0.0%); at 16 → 16 users\n"),
        "{}",
        out.stdout
    );

    let merged_dir = dir.path().join("merged");
    let out = merge_into(&a_dir, &b_dir, &merged_dir);
    assert_eq!(out.code, 0, "{}", out.all());
    let expected = merge::merge(&[a.clone(), b.clone()]).unwrap();
    assert_eq!(
        out.stdout,
        format!("merged 2 results into {}\n{}", merged_dir.display(), show::render(&expected))
    );
    let written = result_json(&merged_dir);
    assert_matches_schema(&written);
    assert_eq!(written, serde_json::to_value(&expected).unwrap(), "merge writes what the library merged");
    for (i, step) in written["steps"].as_array().unwrap().iter().enumerate() {
        let one = a.steps[i].figures.transactions["new_order"].count;
        assert_eq!(
            step["transactions"]["new_order"]["count"].as_u64(),
            Some(2 * one),
            "step {i}: both halves"
        );
        assert_eq!(step["users"].as_u64(), Some(2 * a.steps[i].users), "step {i}: both machines' users");
    }
    for file in ["summary.txt", "timeseries.csv", "report.html"] {
        assert!(merged_dir.join(file).exists(), "{file} is written beside the merged result");
    }

    // Another plan is refused, naming the result at fault.
    let mut short = sweep();
    short.steps.truncate(2);
    short.max_within_cap = oltpgen_report::stats::cap::max_within_cap(&short.steps);
    let short_dir = write(dir.path(), "short", &short);
    let out = merge_into(&a_dir, &short_dir, &dir.path().join("refused"));
    assert_refused(&out, "cannot merge these results: result 2 has 2 steps, result 1 has 3");
    assert!(!dir.path().join("refused").exists(), "nothing is written for a refused merge");
}

#[test]
fn report_commands_refuse_files_that_are_not_results() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.json");
    assert_refused(&oltpgen(&["report", "show", missing.to_str().unwrap()]), "cannot read");
    let not_a_result = dir.path().join("other.json");
    std::fs::write(&not_a_result, "{\"steps\": 3}").unwrap();
    assert_refused(&oltpgen(&["report", "show", not_a_result.to_str().unwrap()]), "is not an oltpgen result");
    let a = write(dir.path(), "a", &sweep());
    assert_refused(
        &oltpgen(&["report", "compare", a.to_str().unwrap(), not_a_result.to_str().unwrap()]),
        "is not an oltpgen result",
    );
}

/// `report compare --fail-if-slower PCT` is a CI gate: exit 0 when B's headline NOPM is within PCT of
/// A's (or above it), exit 1 when it is lower by more, with the verdict on stderr; a bad PCT is refused
/// (exit 2). `--json` prints the comparison for machines, the gate still deciding the exit code.
#[test]
fn compare_gates_on_the_headline_and_speaks_json() {
    let dir = tempfile::tempdir().unwrap();
    let a = sweep();
    let mut slower = sweep();
    for s in &mut slower.steps {
        s.figures.nopm = s.figures.nopm.map(|n| n * 0.9);
    }
    let a_dir = write(dir.path(), "a", &a);
    let slower_dir = write(dir.path(), "slower", &slower);
    let (a_path, slower_path) = (a_dir.to_str().unwrap(), slower_dir.to_str().unwrap());
    let compare =
        |extra: &[&str]| oltpgen(&[&["report", "compare", a_path, slower_path][..], extra].concat());

    let out = compare(&["--fail-if-slower", "5"]);
    assert_eq!(out.code, 1, "10% slower fails a 5% gate: {}", out.all());
    assert!(
        out.stderr.contains(
            "--fail-if-slower 5: FAIL: B is slower than A by more than 5%: NOPM 40,500 → 36,450 (-10.0%)"
        ),
        "{}",
        out.stderr
    );
    assert!(out.stdout.starts_with("max NOPM within cap 40,500 → 36,450"), "the comparison is still printed");
    let out = compare(&["--fail-if-slower", "10.5"]);
    assert_eq!(out.code, 0, "10% slower passes a 10.5% gate: {}", out.all());
    assert!(out.stderr.contains("--fail-if-slower 10.5: pass"), "{}", out.stderr);
    assert_eq!(compare(&[]).code, 0, "without the gate, a slower B is only reported");
    let reversed = oltpgen(&["report", "compare", slower_path, a_path, "--fail-if-slower", "0"]);
    assert_eq!(reversed.code, 0, "a faster B passes any gate: {}", reversed.all());

    let out = compare(&["--json", "--fail-if-slower", "5"]);
    assert_eq!(out.code, 1, "{}", out.all());
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("--json prints JSON");
    assert_eq!(json["headline"]["unit"], "NOPM");
    assert_eq!(json["headline"]["throughput"]["after"], 36_450.0);
    assert_eq!(json["steps"].as_array().map(Vec::len), Some(3), "every user load matched");

    for bad in ["-3", "abc", "101"] {
        let out = compare(&["--fail-if-slower", bad]);
        assert_eq!(out.code, 2, "--fail-if-slower {bad} is refused: {}", out.all());
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
    // A comparison page of several results needs to be told where to go.
    assert_refused(
        &oltpgen(&["report", "html", a_path, slower_path]),
        "--out: a comparison page of several results needs --out FILE|DIR",
    );
}
