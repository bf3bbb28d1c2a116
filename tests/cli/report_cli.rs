//! `report show`, `compare` and `merge` through the built binary, on results written to files: each
//! prints exactly what the library renders from the results read back, merge writes a result that
//! matches the schema, and bad files, mismatched plans and results of different workloads are refused in
//! one line.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use oltpgen_report::model::{RunResult, Workload};
use oltpgen_report::render::text::compare as compare_text;
use oltpgen_report::render::text::show::{self, AuditView};
use oltpgen_report::stats::audit::{TpccAuditPlan, tpcc};
use oltpgen_report::stats::cap::Cap;
use oltpgen_report::stats::{compare, merge};

use crate::common::{Outcome, assert_matches_schema, assert_refused, oltpgen, result_json};
use crate::report_html::{run_of, sweep};

/// Writes `result` as `dir/name/result.json` and returns that directory.
pub(crate) fn write(dir: &Path, name: &str, result: &RunResult) -> PathBuf {
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
        let given = AuditView::Lines { result: path.to_str().unwrap() };
        assert_eq!(out.stdout, show::report(&a, given), "show prints what ran, the steps and the headline");
    }
    assert!(
        out_of_show(&a_dir).contains("max NOPM within cap avg=20ms: 40,500 at 16 users"),
        "the headline is shown"
    );

    let out = oltpgen(&["report", "compare", a_file.to_str().unwrap(), b_dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(out.stdout, compare_text::render(&compare::compare(&a, &b).unwrap()));
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
        format!(
            "merged 2 results into {}\n{}",
            merged_dir.display(),
            show::render(&expected, &merged_dir.display().to_string())
        )
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

/// `oltpgen report show DIR`'s output.
fn out_of_show(dir: &Path) -> String {
    let out = oltpgen(&["report", "show", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.all());
    out.stdout
}

/// `report show` ends with the step table, an audit line per step and the headline, naming the command
/// that prints the whole audit; `report show --audit` prints every check of every step, the notes once.
#[test]
fn show_ends_with_the_answer_and_prints_the_whole_audit_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = sweep();
    for s in &mut a.steps {
        // Flat out, as the README's first command runs: keying and think times off.
        s.audit = Some(tpcc(s, BTreeMap::new(), TpccAuditPlan { paced: false, warehouses: 10 }));
    }
    let a_dir = write(dir.path(), "a", &a);
    let mut one = a.clone();
    for s in &mut one.steps {
        s.audit = Some(tpcc(s, BTreeMap::new(), TpccAuditPlan { paced: true, warehouses: 1 }));
    }
    // Each check's allowance for chance, and a remote share not applicable at one warehouse, are the schema's.
    assert_matches_schema(&serde_json::to_value(&one).unwrap());
    let shown = out_of_show(&a_dir);
    let mut last = shown.lines().rev();
    assert!(
        last.next().unwrap().starts_with("max NOPM within cap avg=20ms: 40,500 at 16 users"),
        "the headline last:\n{shown}"
    );
    assert_eq!(
        last.next(),
        Some(format!("every check of the audit: oltpgen report show --audit {}", a_dir.display()).as_str()),
        "{shown}"
    );
    let audit_line = last.next().unwrap();
    assert!(audit_line.starts_with("step 3 run 1 audit: FLAG "), "{shown}");
    assert!(
        audit_line.contains(
            "FLAG keying and think times, users per warehouse (expected of a run without keying and \
             think times)"
        ),
        "{audit_line}"
    );
    assert!(!shown.contains("audit of step"), "no check by check audit without --audit:\n{shown}");

    let out = oltpgen(&["report", "show", "--audit", a_dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(out.stdout, show::report(&a, AuditView::Full));
    assert_eq!(out.stdout.matches("\naudit of step ").count(), 3, "every step's checks:\n{}", out.stdout);
    assert_eq!(out.stdout.matches("Delivery runs inline").count(), 1, "the note once");
    assert!(out.stdout.contains("  5.2.5     keying and think times      off"), "{}", out.stdout);
}

/// Comparing a TPC-C result with a DS2 one is refused (exit 2), as a table, as JSON and as a page;
/// results judged by different caps are compared, the caps said in one line above the table and in the
/// JSON.
#[test]
fn compare_refuses_another_workload_and_says_different_caps() {
    let dir = tempfile::tempdir().unwrap();
    let tpcc_dir = write(dir.path(), "tpcc", &sweep());
    let ds2 =
        run_of(Workload::Ds2, &[(8, 30.0, 1.0), (16, 45.0, 1.5)], &["db"], &Cap::default_for(Workload::Ds2));
    let ds2_dir = write(dir.path(), "ds2", &ds2);
    let (a, b) = (tpcc_dir.to_str().unwrap(), ds2_dir.to_str().unwrap());
    let why = "cannot compare these results: A ran tpcc and B ran ds2: their throughputs (NOPM and OPM) count \
               different work";
    assert_refused(&oltpgen(&["report", "compare", a, b]), why);
    assert_refused(&oltpgen(&["report", "compare", a, b, "--json", "--fail-if-slower", "5"]), why);
    let page = dir.path().join("both.html");
    assert_refused(&oltpgen(&["report", "html", a, b, "--out", page.to_str().unwrap()]), why);
    assert!(!page.exists(), "no page for a refused comparison");

    let mut strict = sweep();
    let cap: Cap = "p90=40ms".parse().unwrap();
    for s in &mut strict.steps {
        s.cap = Some(cap.evaluate(&s.figures));
    }
    strict.max_within_cap = oltpgen_report::stats::cap::max_within_cap(&strict.steps);
    let strict_dir = write(dir.path(), "strict", &strict);
    let out = oltpgen(&["report", "compare", a, strict_dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        out.stdout.starts_with(
            "the caps differ: A avg=20ms, B p90=40ms: each headline is the best step within its own cap\n"
        ),
        "{}",
        out.stdout
    );
    let out = oltpgen(&["report", "compare", a, strict_dir.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("--json prints JSON");
    assert_eq!(json["caps"], serde_json::json!({"a": "avg=20ms", "b": "p90=40ms"}));
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
