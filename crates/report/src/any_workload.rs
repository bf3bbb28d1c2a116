//! A workload the report crate does not know (issue 38): a result of `kv` ([`crate::fixtures::kv`], a
//! key-value store's puts and gets, its headline per second) reads back and renders through every
//! renderer in its own words, as TPC-C's does, never in TPC-C's or DS2's; and a result naming such a
//! workload without its descriptor is refused when read.

use crate::fixtures::{kv, kv_descriptor, kv_study};
use crate::model::{RunResult, Workload, WorkloadName};
use crate::render::text::show::{self, AuditView};
use crate::render::{counters, csv, describe, html, prometheus, study, text};
use crate::stats::{compare, merge};

/// Words of the built-in workloads that a `kv` report must not say.
const NOT_KV: [&str; 7] = ["NOPM", "OPM", "New-Order", "new_order", "warehouse", "TPC-C", "DVD Store"];

/// Checks that `what`'s `text` names kv's transactions and its title (those of `names`), and says none
/// of the built-in workloads' words.
fn in_kv_words(what: &str, text: &str, names: &[&str]) {
    for word in names {
        assert!(text.contains(word), "{what} names {word}: {text}");
    }
    for word in NOT_KV {
        assert!(!text.contains(word), "{what} says {word}: {text}");
    }
}

/// kv's transactions and its title: what a report of the whole result names.
const KV: [&str; 3] = ["put", "get", "key-value"];

/// The result as it reads back from its JSON.
fn read_back(r: &RunResult) -> RunResult {
    serde_json::from_str(&serde_json::to_string_pretty(r).unwrap()).expect("a kv result reads back")
}

#[test]
fn a_result_of_a_workload_not_built_in_reads_back_as_written() {
    let r = kv();
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["workload"], "kv", "the workload's name, as result.json writes a built-in one's");
    assert_eq!(json["descriptor"]["name"], "kv");
    let back = read_back(&r);
    assert_eq!(back, r);
    assert_eq!(back.workload.builtin(), None);
    assert_eq!(back.descriptor(), &kv_descriptor());
    // A built-in workload's name is written as before.
    let tpcc = crate::fixtures::sweep();
    assert_eq!(serde_json::to_value(&tpcc).unwrap()["workload"], "tpcc");
    assert_eq!(read_back(&tpcc).workload.builtin(), Some(Workload::Tpcc));
}

#[test]
fn a_result_of_a_workload_not_built_in_without_its_descriptor_is_refused_when_read() {
    let mut json = serde_json::to_value(kv()).unwrap();
    json.as_object_mut().unwrap().remove("descriptor");
    let e = serde_json::from_value::<RunResult>(json).unwrap_err().to_string();
    assert!(e.starts_with("its workload kv is not built in and it carries no descriptor of it"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");

    let mut json = serde_json::to_value(kv()).unwrap();
    json["descriptor"]["name"] = "tpcc".into();
    let e = serde_json::from_value::<RunResult>(json).unwrap_err().to_string();
    assert_eq!(e, "its workload is kv but its descriptor describes tpcc");
}

#[test]
fn report_show_and_summary_say_kv_s_words() {
    let r = read_back(&kv());
    let shown = show::report(&r, AuditView::Lines { result: "kv/result.json" });
    in_kv_words("report show", &shown, &KV);
    assert!(shown.contains("max TPS within cap avg=1s: 800 at 16 clients (step 2)"), "{shown}");
    assert!(shown.contains("key-value 1000000 keys, "), "the size as the descriptor quotes it: {shown}");
    assert!(shown.contains("put avg ms"), "the descriptor's step columns: {shown}");
    assert!(shown.contains("clients"), "its load's name: {shown}");
    in_kv_words("report show --audit", &show::report(&r, AuditView::Full), &KV);
    in_kv_words("the run's last screen", &show::render(&r, "kv"), &KV[..2]);
    let summary = text::summary::render(&r);
    in_kv_words("summary.txt", &summary, &["put", "get", "kv against"]);
    assert!(summary.contains("per operation"), "the client's cost per unit of work: {summary}");
    assert!(!summary.contains("IOPS"), "kv's unit, not io's: {summary}");
}

#[test]
fn kv_has_no_audit_to_show() {
    let r = kv();
    for s in &r.steps {
        assert_eq!(text::audit::render_all(s), "", "no audit, nothing said of one");
    }
    assert_eq!(text::audit::notes(&r), "");
}

#[test]
fn the_study_s_lines_quote_kv_s_unit() {
    let r = read_back(&kv_study());
    let lines = study::lines(&r).join("\n");
    assert!(lines.starts_with("runs: 3 — TPS within the cap"), "{lines}");
    for word in NOT_KV {
        assert!(!lines.contains(word), "{lines}");
    }
    let shown = show::report(&r, AuditView::Full);
    in_kv_words("report show of a study", &shown, &KV);
    let power = study::power(&kv()).expect("power was measured");
    assert!(power.contains("TPS per watt"), "{power}");
    let cost = study::cost(&kv()).expect("a system cost was given");
    assert!(!cost.contains("NOPM"), "{cost}");
}

#[test]
fn the_counters_and_the_csv_files_are_kv_s() {
    let r = read_back(&kv());
    let charts = counters::charts(&r);
    assert_eq!(charts.len(), 1, "the client's CPU");
    let timeseries = csv::result::timeseries(&r);
    in_kv_words("timeseries.csv", &timeseries, &KV[..2]);
    assert!(
        timeseries.lines().nth(1).is_some_and(|l| l.contains(",put,") || l.contains(",get,")),
        "{timeseries}"
    );
    let counters = csv::result::counters(&r);
    assert!(counters.contains("cpu_pct"), "{counters}");
}

#[test]
fn report_html_is_kv_s() {
    let r = read_back(&kv());
    let page = html::result::render(&r);
    in_kv_words("report.html", &page, &KV);
    assert!(page.contains("TPS"), "{page}");
    assert_eq!(
        describe::title(&r),
        "key-value 1000000 keys, 8, 16, 32 users in 3 steps, PostgreSQL 15.18 on h"
    );
}

#[test]
fn compare_of_two_kv_results_is_in_kv_s_words_and_kv_against_tpcc_is_refused() {
    let a = read_back(&kv());
    let mut b = kv();
    for s in &mut b.steps {
        s.figures.tps *= 1.25;
    }
    let c = compare::compare(&a, &b).expect("two results of kv compare");
    let table = text::compare::render(&c);
    in_kv_words("report compare", &table, &[]);
    assert!(table.contains("TPS"), "{table}");
    let json = serde_json::to_string_pretty(&c).unwrap();
    for word in NOT_KV {
        assert!(!json.contains(word), "report compare --json says {word}: {json}");
    }
    let page = html::compare::render(&[("a".into(), a.clone()), ("b".into(), b)]).unwrap();
    // Each headline in kv's unit, per second: a's 800 TPS at 16 clients, b's a quarter more.
    assert!(page.contains("<td>800</td><td>16</td><td>1.00×</td>"), "{page}");
    assert!(page.contains("<td>1,000</td><td>16</td><td>1.25×</td>"), "{page}");
    in_kv_words("report html A B", &page, &KV[2..]);

    let tpcc = crate::fixtures::baseline();
    let refused = compare::compare(&a, &tpcc).expect_err("kv against TPC-C has no meaning");
    assert_eq!(
        refused.to_string(),
        "A ran kv and B ran tpcc: their throughputs (TPS and NOPM) count different work, so no change \
         between them means anything; compare results of one workload"
    );
    let e = merge::merge(&[a, tpcc]).unwrap_err();
    assert_eq!(e.to_string(), "result 2 ran tpcc, result 1 ran kv: only results of one plan merge");
}

#[test]
fn a_merge_of_two_kv_results_is_kv_s() {
    let a = kv();
    let mut b = kv();
    b.targets = vec!["postgres://u@g:5432/kv".into()];
    b.started_at = "2025-01-01T00:00:01Z".into();
    let merged = merge::merge(&[a, b]).expect("two runs of one kv plan merge");
    assert_eq!(merged.workload, WorkloadName::new("kv"));
    assert_eq!(merged.descriptor(), &kv_descriptor());
    let merged = read_back(&merged);
    in_kv_words("a merged kv result", &show::render(&merged, "merged"), &KV[..2]);
    in_kv_words("a merged kv result", &show::report(&merged, AuditView::Full), &KV);
}

#[test]
fn the_live_page_names_kv_s_transactions() {
    let mut live = prometheus::Live { elapsed_s: 70.0, users: 8, ..Default::default() };
    for (name, t) in &kv().steps[0].figures.transactions {
        live.txns.insert(
            name.clone(),
            prometheus::Txn { count: t.count, tps: t.count as f64 / 60.0, ..Default::default() },
        );
    }
    live.step(&kv().steps[0]);
    let page = prometheus::render(&live, &[]);
    for word in ["txn=\"put\"", "txn=\"get\""] {
        assert!(page.contains(word), "{page}");
    }
    for word in NOT_KV {
        assert!(!page.contains(word), "{page}");
    }
}

/// The CLI's tests read kv's result from `testdata/kv/result.json` (`tests/cli/any_workload.rs`): it is
/// this fixture, written. `OLTPGEN_WRITE_TESTDATA=1` writes it again after the fixture changed.
#[test]
fn the_testdata_kv_result_is_the_fixture() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/kv/result.json");
    let written = serde_json::to_string_pretty(&kv()).unwrap() + "\n";
    if std::env::var_os("OLTPGEN_WRITE_TESTDATA").is_some() {
        std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
        std::fs::write(path, &written).unwrap();
    }
    let file = std::fs::read_to_string(path).unwrap_or_default();
    assert!(file == written, "{path} is not kv's fixture: write it again with OLTPGEN_WRITE_TESTDATA=1");
}
