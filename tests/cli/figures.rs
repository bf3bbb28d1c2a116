//! A result's figures checked against the counts they come from: TPS and NOPM/OPM from each step's
//! transaction counts and window, the client's CPU per transaction from its CPU times, and DS2's
//! `rt_tot_avg` from the operations its orders span.

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
    // DS2's composite order is not a transaction of its own: its operations are counted.
    let completed: u64 =
        t.iter().filter(|(name, _)| name.as_str() != "order").map(|(_, v)| u(&v["count"])).sum();
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
        .filter(|(name, _)| name.as_str() != "order")
        .map(|(_, v)| u(&v["count"]))
        .sum();
    assert!(u(&c["transactions"]) >= measured, "the whole run holds the measured windows: {c}");
}

/// Asserts DS2's `rt_tot_avg` is the mean of whole orders, each spanning its operations: orders × mean
/// order time is the operations' time in all, plus the client's gaps between them (small), give or take
/// the orders that straddle the window's edges (at most one per user per edge).
#[track_caller]
pub fn assert_rt_tot_avg_spans_operations(step: &Value) {
    let t = &step["transactions"];
    let order = &t["order"];
    assert_exact(f(&step["rt_tot_avg_ms"]), f(&order["avg_ms"]), "rt_tot_avg is the whole order's mean");
    let orders_ms = u(&order["count"]) as f64 * f(&order["avg_ms"]);
    let ops_ms: f64 = t
        .as_object()
        .unwrap()
        .iter()
        .filter(|(name, _)| name.as_str() != "order")
        .map(|(_, v)| u(&v["count"]) as f64 * f(&v["avg_ms"]))
        .sum();
    let edges_ms = u(&step["users"]) as f64 * f(&order["max_ms"]);
    assert!(
        orders_ms >= ops_ms * 0.995 - edges_ms,
        "an order's time holds its operations': {orders_ms} ms of orders, {ops_ms} ms of operations"
    );
    assert!(
        orders_ms <= ops_ms * 1.25 + edges_ms,
        "an order's time is its operations' and little else: {orders_ms} ms of orders, {ops_ms} ms of operations"
    );
}
