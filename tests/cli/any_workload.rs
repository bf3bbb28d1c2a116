//! A workload the binary does not know (issue 38): a result of `kv` (the report crate's fixture, a
//! key-value store's puts and gets counted per second, written to `testdata/kv/result.json`) reads, and
//! every report command renders it in its own words — `report show` (and `--audit`), `report html` of it
//! and of two, `report compare` (table and `--json`), `report merge` with the files it writes — never
//! in TPC-C's or DS2's; a kv result without its descriptor, and kv against TPC-C, are refused in one line.

use std::path::{Path, PathBuf};

use oltpgen_report::model::RunResult;

use crate::common::{assert_matches_schema, assert_refused, oltpgen};
use crate::report_cli::write;

/// The report crate's kv result.
fn kv() -> RunResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/report/testdata/kv/result.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("kv's result reads")
}

/// Words of the built-in workloads that a kv report must not say.
const NOT_KV: [&str; 7] = ["NOPM", "OPM", "New-Order", "new_order", "warehouse", "TPC-C", "DVD Store"];

/// Checks that `what` exited 0 and `text` names each of `words` and none of [`NOT_KV`].
fn says(what: &str, code: i32, text: &str, words: &[&str]) {
    assert_eq!(code, 0, "{what}: {text}");
    for word in words {
        assert!(text.contains(word), "{what} names {word}: {text}");
    }
    for word in NOT_KV {
        assert!(!text.contains(word), "{what} says {word}: {text}");
    }
}

/// `oltpgen report …` with paths.
fn report(args: &[&str], paths: &[&Path]) -> crate::common::Outcome {
    let mut all: Vec<String> = ["report"].iter().chain(args).map(|s| s.to_string()).collect();
    all.extend(paths.iter().map(|p| p.to_str().unwrap().to_string()));
    oltpgen(&all.iter().map(String::as_str).collect::<Vec<_>>())
}

/// kv's result as `a`, and the same plan run by a second machine on its own store as `b`.
fn two(dir: &Path) -> (PathBuf, PathBuf) {
    let mut b = kv();
    b.targets = vec!["postgres://u@g:5432/kv".into()];
    b.started_at = "2025-01-01T00:00:01Z".into();
    (write(dir, "a", &kv()), write(dir, "b", &b))
}

#[test]
fn every_report_renders_a_workload_the_binary_does_not_know() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two(dir.path());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("result.json")).unwrap()).unwrap();
    assert_eq!(json["workload"], "kv");
    assert_matches_schema(&json);

    let show = report(&["show"], &[&a]);
    says(
        "report show",
        show.code,
        &show.all(),
        &["put", "get", "key-value", "max TPS within cap avg=1s: 800"],
    );
    let audit = report(&["show", "--audit"], &[&a]);
    says("report show --audit", audit.code, &audit.all(), &["put", "get", "key-value"]);

    let html = report(&["html"], &[&a]);
    assert_eq!(html.code, 0, "{}", html.all());
    let page = std::fs::read_to_string(a.join("report.html")).unwrap();
    says("report html", 0, &page, &["put", "get", "key-value", "TPS"]);

    let compare = report(&["compare"], &[&a, &b]);
    says("report compare", compare.code, &compare.all(), &["max TPS within cap 800 → 800"]);
    let json = report(&["compare", "--json"], &[&a, &b]);
    says("report compare --json", json.code, &json.all(), &["\"unit\": \"TPS\""]);
    serde_json::from_str::<serde_json::Value>(&json.stdout).expect("--json prints JSON");

    let page_of_two = dir.path().join("two.html");
    let both = report(&["html", "--out", page_of_two.to_str().unwrap()], &[&a, &b]);
    assert_eq!(both.code, 0, "{}", both.all());
    let page = std::fs::read_to_string(&page_of_two).unwrap();
    says("report html A B", 0, &page, &["key-value", "max TPS within cap", "<td>800</td>"]);

    let merged = dir.path().join("merged");
    let merge = report(&["merge", "--out", merged.to_str().unwrap()], &[&a, &b]);
    says("report merge", merge.code, &merge.all(), &["put", "get", "max TPS within cap avg=1s: 1,600"]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("result.json")).unwrap()).unwrap();
    assert_eq!((&json["workload"], &json["descriptor"]["title"]), (&"kv".into(), &"key-value".into()));
    assert_matches_schema(&json);
    let file = |name: &str| std::fs::read_to_string(merged.join(name)).unwrap();
    says("the merge's summary.txt", 0, &file("summary.txt"), &["kv against", "put", "get"]);
    says("the merge's timeseries.csv", 0, &file("timeseries.csv"), &[",put,", ",get,"]);
    says("the merge's report.html", 0, &file("report.html"), &["key-value", "put", "get"]);
    assert!(file("counters.csv").contains("cpu_pct"), "{}", file("counters.csv"));
}

#[test]
fn a_workload_not_built_in_without_its_descriptor_and_kv_against_tpcc_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut json = serde_json::to_value(kv()).unwrap();
    json.as_object_mut().unwrap().remove("descriptor");
    let bare = dir.path().join("bare.json");
    std::fs::write(&bare, serde_json::to_string(&json).unwrap()).unwrap();
    for args in [&["show"][..], &["html"]] {
        let out = report(args, &[&bare]);
        assert_refused(&out, "its workload kv is not built in and it carries no descriptor of it");
    }

    let a = write(dir.path(), "a", &kv());
    let tpcc = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/report/testdata/schema3/tpcc/result.json");
    assert_refused(&report(&["compare"], &[&a, &tpcc]), "A ran kv and B ran tpcc");
    let out = dir.path().join("m");
    assert_refused(&report(&["merge", "--out", out.to_str().unwrap()], &[&a, &tpcc]), "result 2 ran tpcc");
}
