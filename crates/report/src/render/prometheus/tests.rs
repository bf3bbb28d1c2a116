//! The page byte for byte, against pages the driver's renderer wrote before it moved here
//! (`page.txt`, `page_agent.txt`): a scraper and promtool see exactly what they saw.

use super::*;

/// Two transaction types (one with a quote in its name), an error kind, two judged steps.
fn fixture(agent: Option<String>) -> Live {
    let mut live = Live { users: 8, elapsed_s: 12.300000000001, agent, ..Live::default() };
    let at_or_below = [0, 0, 0, 10, 30, 39, 40, 40, 40, 40, 40, 40, 40];
    live.txns.insert(
        "new_order".into(),
        Txn { count: 40, errors: 1, tps: 20.0, avg_ms: 12.5, p95_ms: 30.0, at_or_below, latency_sum_s: 0.5 },
    );
    live.txns.insert("pay\"ment".into(), Txn { count: 4, tps: 1.0 / 3.0, ..Txn::default() });
    live.errors_by_kind.insert("connection_lost".into(), 1);
    live.steps.push(JudgedStep { index: 0, run: 1, users: 8, tps: 42.5, cap_passed: true });
    live.steps.push(JudgedStep { index: 1, run: 1, users: 16, tps: 40.25, cap_passed: false });
    live
}

#[test]
fn the_page_is_the_one_the_endpoint_served() {
    let counters = vec![("db:postgres://u@h/\"q\"".to_string(), "commits_per_s".to_string(), 99.0)];
    assert_eq!(render(&fixture(None), &counters), include_str!("page.txt"));
    assert_eq!(render(&fixture(Some("2".into())), &[]), include_str!("page_agent.txt"));
}

#[test]
fn every_family_has_its_help_and_type() {
    let page = render(&fixture(None), &[]);
    let families = page.lines().filter(|l| l.starts_with("# TYPE")).count();
    assert_eq!(families, 13);
    assert_eq!(page.lines().filter(|l| l.starts_with("# HELP")).count(), families);
}

#[test]
fn values_print_without_float_noise() {
    assert_eq!(sample_value(1204.3999999999999), "1204.4");
    assert_eq!(sample_value(40.0), "40");
    assert_eq!(sample_value(0.0125), "0.0125");
    assert_eq!(sample_value(-0.0000001), "0");
    assert_eq!(sample_value(f64::NAN), "NaN");
}

#[test]
fn a_judged_step_is_taken_in_with_its_cap_verdict() {
    let mut live = Live::default();
    let cap = crate::stats::cap::Cap::default();
    let judged = crate::fixtures::tpcc_step(2, 32, (600, 600), 5_000, Some(&cap));
    live.step(&judged);
    live.step(&crate::fixtures::tpcc_step(3, 64, (600, 600), 5_000, None));
    let passed = judged.cap.as_ref().is_some_and(|c| c.passed);
    assert!(passed, "5 ms is within the default cap");
    let want = |index, users, cap_passed| JudgedStep { index, run: 1, users, tps: 20.0, cap_passed };
    assert_eq!(live.steps, [want(2, 32, true), want(3, 64, false)], "no cap, not passed");
}
