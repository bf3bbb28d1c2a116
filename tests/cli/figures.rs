//! A result's figures checked against the counts they come from: TPS and NOPM/OPM from each step's
//! transaction counts and window, the client's CPU per transaction from its CPU times, and DS2's
//! `rt_tot_avg` from the operations its orders span.

use oltpgen_report::model::is_composite;
use serde_json::Value;

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("a count: {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a figure: {v}"))
}

/// Asserts `figure` is `exact` but for floating-point rounding.
#[track_caller]
fn assert_exact(figure: f64, exact: f64, what: &str) {
    assert!(
        (figure - exact).abs() <= 1e-9 * exact.abs().max(1.0),
        "{what}: {figure}, from the counts {exact}"
    );
}

/// Asserts a step's TPS and NOPM (TPC-C) or OPM (DS2) against its counts over its window.
#[track_caller]
pub fn assert_figures_from_counts(step: &Value) {
    let duration_s = f(&step["duration_s"]);
    assert_exact(duration_s, f(&step["window"]["end_s"]) - f(&step["window"]["start_s"]), "duration_s");
    let t = step["transactions"].as_object().expect("transactions");
    // DS2's composite entries (order, rt_tot) are not transactions of their own: their operations are counted.
    let completed: u64 = t.iter().filter(|(name, _)| !is_composite(name)).map(|(_, v)| u(&v["count"])).sum();
    assert!(completed > 0, "the step ran: {step}");
    assert_exact(f(&step["tps"]), completed as f64 / duration_s, "TPS");
    if let Some(new_order) = t.get("new_order") {
        // 5.4.2: every completed New-Order counts, the 1% that roll back included.
        assert!(u(&new_order["rollbacks"]) <= u(&new_order["count"]));
        assert_exact(f(&step["nopm"]), u(&new_order["count"]) as f64 * 60.0 / duration_s, "NOPM");
    }
    if let Some(order) = t.get("order") {
        // DS2's driver counts every completed order, rolled back for want of stock or not.
        assert_exact(f(&step["opm"]), u(&order["count"]) as f64 * 60.0 / duration_s, "OPM");
    }
}

/// Asserts the client's CPU figures against its CPU times and transaction count.
#[track_caller]
pub fn assert_client_cpu(result: &Value) {
    let c = &result["client"];
    let cpu_s = f(&c["cpu_user_s"]) + f(&c["cpu_sys_s"]);
    assert_exact(f(&c["cpu_s"]), cpu_s, "cpu_s");
    assert!(cpu_s > 0.0, "the client used CPU: {c}");
    assert_exact(
        f(&c["client_cpu_us_per_txn"]),
        cpu_s * 1e6 / u(&c["transactions"]) as f64,
        "CPU per transaction",
    );
    let measured: u64 = result["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["transactions"].as_object().unwrap())
        .filter(|(name, _)| !is_composite(name))
        .map(|(_, v)| u(&v["count"]))
        .sum();
    assert!(u(&c["transactions"]) >= measured, "the whole run holds the measured windows: {c}");
}

/// Asserts DS2's `rt_tot_avg` is DS2's: the mean over orders of the sum of each order's operations' times
/// (the `rt_tot` entry), so orders × `rt_tot_avg` is the operations' time in all, give or take the orders
/// that straddle the window's edges (at most one per user per edge) and a registration's earlier attempts
/// (which DS2 leaves out); and oltpgen's own order time, from its intended start (`order_rt_avg_ms`), is
/// never the shorter.
#[track_caller]
pub fn assert_rt_tot_avg_spans_operations(step: &Value) {
    let t = &step["transactions"];
    let (order, rt_tot) = (&t["order"], &t["rt_tot"]);
    assert_exact(f(&step["rt_tot_avg_ms"]), f(&rt_tot["avg_ms"]), "rt_tot_avg is the mean of rt_tot");
    assert_exact(f(&step["order_rt_avg_ms"]), f(&order["avg_ms"]), "order_rt_avg is the whole order's mean");
    assert_eq!(u(&rt_tot["count"]), u(&order["count"]), "every order is timed both ways");
    let sums_ms = u(&rt_tot["count"]) as f64 * f(&rt_tot["avg_ms"]);
    let ops_ms: f64 = t
        .as_object()
        .unwrap()
        .iter()
        .filter(|(name, _)| !is_composite(name))
        .map(|(_, v)| u(&v["count"]) as f64 * f(&v["avg_ms"]))
        .sum();
    let edges_ms = 2.0 * u(&step["users"]) as f64 * f(&rt_tot["max_ms"]);
    assert!(
        sums_ms >= ops_ms * 0.99 - edges_ms && sums_ms <= ops_ms * 1.01 + edges_ms,
        "rt_tot sums its order's operations: {sums_ms} ms of rt_tot, {ops_ms} ms of operations"
    );
    assert!(
        f(&order["avg_ms"]) >= f(&rt_tot["avg_ms"]) * 0.99,
        "an order from its intended start spans its operations: {order} against {rt_tot}"
    );
}
