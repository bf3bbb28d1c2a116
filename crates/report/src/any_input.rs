//! No panic on any input (issue 36): property tests of this crate's value parsers (user loads, caps
//! and their rules) and of the files it reads back (result.json, its histograms, power logs, the parts
//! a merge checks), 10,000 cases a property: a value or a clear error, never a panic, and nothing
//! allocated by the size a file claims.

use std::sync::LazyLock;

use base64::Engine as _;
use proptest::prelude::*;

use crate::fixtures::{ds2_step, result, tpcc_step};
use crate::model::histogram::LatencyHistogram;
use crate::model::users::UserLoad;
use crate::model::{RunResult, Workload};
use crate::stats::agents;
use crate::stats::cap::{Cap, CapRule};
use crate::stats::power;

/// Text shaped like a user load or a cap (numbers, ranges, lists, rule names, units), or anything.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "([0-9]{0,21}(\\.\\.[0-9]{0,21}(:[0-9]{0,21})?)?,?){0,4}",
        "((p[0-9]{0,3}(\\.[0-9]{0,3})?|avg|max|rt_tot_avg|[a-z_€]{0,10})(=|<|:)?([0-9.]{0,12}(ns|us|µs|ms|s|m|h)?|tpcc|ds2)?,?){0,4}",
    ]
}

/// One result's JSON (of a TPC-C or a DS2 fixture), a histogram of it replaced by `histogram`, then
/// cut at `cut` (a fraction of its length) or with byte `at` replaced by `byte`.
fn result_json(ds2: bool, histogram: Option<String>, edit: (u8, f64, u8)) -> Vec<u8> {
    static RESULTS: LazyLock<[serde_json::Value; 2]> = LazyLock::new(|| {
        let cap: Cap = "p90=5s".parse().unwrap();
        let tpcc = result(Workload::Tpcc, vec![tpcc_step(1, 4, (100, 90), 2_000, Some(&cap))]);
        let ds2 = result(Workload::Ds2, vec![ds2_step(1, 4, 100, (2_000, 3_000), Some(&cap))]);
        [serde_json::to_value(&tpcc).unwrap(), serde_json::to_value(&ds2).unwrap()]
    });
    let mut json = RESULTS[usize::from(ds2)].clone();
    if let Some(h) = histogram {
        replace_histograms(&mut json, &h);
    }
    let mut bytes = serde_json::to_vec(&json).unwrap();
    let (how, at, byte) = edit;
    let at = ((bytes.len() as f64) * at) as usize % bytes.len();
    match how % 3 {
        0 => bytes.truncate(at),
        1 => bytes[at] = byte,
        _ => {}
    }
    bytes
}

/// Every histogram in `json` (a field named `histogram` or ending in `_histogram`) replaced by `h`.
fn replace_histograms(json: &mut serde_json::Value, h: &str) {
    match json {
        serde_json::Value::Object(fields) => {
            for (name, value) in fields.iter_mut() {
                if name.ends_with("histogram") && value.is_string() {
                    *value = h.into();
                } else {
                    replace_histograms(value, h);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| replace_histograms(v, h)),
        _ => {}
    }
}

/// Bytes shaped like a V2 histogram (its cookies, oltpgen's bounds or others, any payload length) or
/// anything, as base64.
fn histogram() -> impl Strategy<Value = String> {
    let header = (
        prop_oneof![Just(0x1c84_9313u32), Just(0x1c84_9314u32), any::<u32>()],
        any::<u32>(),
        prop_oneof![Just(3u32), any::<u32>()],
        prop_oneof![Just(3_600_000_000u64), any::<u64>()],
        prop::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(cookie, payload, digits, high, body)| {
            let mut b = Vec::new();
            for w in [cookie, payload, 0, digits] {
                b.extend_from_slice(&w.to_be_bytes());
            }
            for w in [1u64, high, 1f64.to_bits()] {
                b.extend_from_slice(&w.to_be_bytes());
            }
            b.extend_from_slice(&body);
            b
        });
    prop_oneof![header, prop::collection::vec(any::<u8>(), 0..80)]
        .prop_map(|b| base64::engine::general_purpose::STANDARD.encode(b))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// `--users`/`--n_threads`, `--rt-cap` and a cap's rule: a value, or a one-line error.
    #[test]
    fn any_user_load_or_cap_is_a_value_or_one_line(s in value()) {
        if let Err(e) = s.parse::<UserLoad>() {
            prop_assert!(!e.to_string().contains('\n'), "{}", e);
        }
        for e in [s.parse::<Cap>().err(), s.parse::<CapRule>().err()].into_iter().flatten() {
            prop_assert!(!e.to_string().contains('\n'), "{}", e);
        }
    }

    /// A power log (`timestamp,watts`): readings, or the line at fault.
    #[test]
    fn any_power_log_is_readings_or_its_bad_line(
        lines in prop::collection::vec(prop_oneof![
            any::<String>(),
            "(timestamp|#.{0,5}|[+-]?[0-9]{0,12}(\\.[0-9]{0,4})?(e[0-9]{1,3})?|NaN|inf|[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})?)?,?[ +-]?([0-9]{0,8}(\\.[0-9]{0,3})?|NaN|inf|€)",
        ], 0..8)
    ) {
        match power::parse(&lines.join("\n")) {
            Ok(readings) => {
                prop_assert!(readings.iter().all(|r| r.watts.is_finite() && r.at_s.is_finite()));
                let _ = power::mean_watts(&readings, 0.0, f64::MAX);
            }
            Err(e) => prop_assert!(e.line >= 1 && e.line <= lines.len()),
        }
    }

    /// A histogram as result.json holds it: decoded, or refused, never sized by its header.
    #[test]
    fn any_histogram_is_decoded_or_refused(text in histogram()) {
        if let Ok(h) = LatencyHistogram::from_base64(&text) {
            let _ = (h.count(), h.mean_us(), h.percentile_us(99.0), h.max_us(), h.saturated());
        }
    }

    /// result.json cut short, with a byte changed or a histogram made up: a result that every text
    /// renderer shows, or a JSON error.
    #[test]
    fn any_result_json_is_a_result_or_a_json_error(
        ds2 in any::<bool>(),
        h in prop::option::of(histogram()),
        edit in (any::<u8>(), 0.0..1.0f64, any::<u8>()),
    ) {
        let bytes = result_json(ds2, h, edit);
        if let Ok(r) = serde_json::from_slice::<RunResult>(&bytes) {
            let _ = crate::render::text::show::render(&r, "result.json");
        }
    }

    /// The parts a merge is given: whatever agents they name (`0/4294967295`), checked without a slot
    /// per agent named.
    #[test]
    fn any_agents_of_the_parts_are_checked_without_a_slot_per_agent(
        names in prop::collection::vec(prop_oneof![
            (0..4u32, 1..5u32).prop_map(|(i, n)| format!("{i}/{n}")),
            (any::<u32>(), any::<u32>()).prop_map(|(i, n)| format!("{i}/{n}")),
            any::<String>(),
        ], 1..5)
    ) {
        let parts: Vec<RunResult> = names
            .iter()
            .map(|agent| {
                let mut r = result(Workload::Tpcc, Vec::new());
                r.config = serde_json::json!({ "agent": agent, "start_at": "2026-11-26T23:00:00Z" });
                r
            })
            .collect();
        match agents::check(&parts) {
            Ok(count) => prop_assert_eq!(count, Some(parts.len() as u32)),
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "{}", e),
        }
    }
}

/// Issue 36's case: one part claiming 4294967295 agents made `report merge` allocate a slot for each.
#[test]
fn a_part_of_four_billion_agents_is_one_missing_part_not_four_billion_slots() {
    let mut r = result(Workload::Tpcc, Vec::new());
    r.config = serde_json::json!({ "agent": "0/4294967295", "start_at": "2026-11-26T23:00:00Z" });
    let e = agents::check(&[r]).unwrap_err().to_string();
    assert!(e.starts_with("agent 1/4294967295's part is missing"), "{e}");
}
