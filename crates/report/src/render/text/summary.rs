//! `summary.txt`: a run's result as a person reads it at the end of a run: what ran, the step table
//! with each step's audit in a line and the headline, each step's figures and transactions, then the
//! whole audit of every step (a file to read, so it keeps every check), the client's cost and the
//! errors by kind.

use std::fmt::Write as _;

use crate::model::descriptor::{Descriptor, Rate};
use crate::model::{Figures, ORDER, RunResult, Step};
use crate::numfmt::fixed;
use crate::render::text::show;
use crate::render::text::transactions::transaction_table;

/// Renders the whole result: what ran, the step table, every step's figures and per-transaction
/// table, every step's full audit, then the client's own cost and the errors by kind.
pub fn render(r: &RunResult) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "{} {}: {} against {} ({} {})",
        r.tool.name,
        r.tool.version,
        r.descriptor().name,
        r.targets.join(", "),
        r.server.engine,
        r.server.version
    );
    let _ = writeln!(w, "started {}", r.started_at);
    if let Some(config) = r.config.as_object() {
        let _ = writeln!(w, "config: {}", config_line(config));
    }
    if r.interrupted {
        let _ = writeln!(w, "INTERRUPTED: the figures cover the part of the run that happened");
    }
    let _ = write!(w, "\n{}", show::steps_view(r, None));
    for step in &r.steps {
        render_step(w, r, step);
    }
    let audit = show::full_audit(r);
    if !audit.is_empty() {
        let _ = write!(w, "\n{}", audit.trim_end_matches('\n'));
        w.push('\n');
    }
    let c = &r.client;
    let per_txn = c.client_cpu_us_per_txn.map_or("n/a".to_string(), |us| format!("{us:.1} µs"));
    let work = &r.descriptor().work;
    let per_txn = match c.client_cpu_us_per_order {
        Some(us) => format!("{per_txn} CPU per {}, {us:.1} µs per order", work.one),
        None => format!("{per_txn} CPU per {}", work.one),
    };
    let _ = write!(
        w,
        "\nclient: {per_txn} ({:.2} s user, {:.2} s system, {} {}), peak memory {:.0} MB",
        c.cpu_user_s,
        c.cpu_sys_s,
        c.transactions,
        work.many,
        c.peak_rss_bytes as f64 / 1e6
    );
    if let (Some(p99), Some(max)) = (c.wake_late_p99_ms, c.wake_late_max_ms) {
        let _ = write!(w, ", wake-up lateness p99 {p99:.1} ms (max {max:.1} ms)");
    }
    let _ = writeln!(w);
    if !r.errors_by_kind.is_empty() {
        let kinds: Vec<String> = r.errors_by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(w, "errors by kind: {}", kinds.join(", "));
    }
    for line in r.failover_sentences() {
        let _ = writeln!(w, "{line}");
    }
    out
}

/// One step's heading (users, connections, its window), its figures line and its transactions.
fn render_step(w: &mut String, r: &RunResult, s: &Step) {
    let f = &s.figures;
    let _ = writeln!(
        w,
        "\nstep {} (run {}): {} users on {} connections, measured {:.1} s from {:.1} s",
        s.index + 1,
        s.run,
        s.users,
        s.connections,
        s.duration_s,
        s.window.start_s
    );
    let _ = writeln!(w, "{}", figures_line(r.descriptor(), f));
    if let Some(a) = &s.arrivals {
        let _ = writeln!(w, "arrivals: {}", a.line());
    }
    transaction_table(w, r.descriptor(), f, "");
}

/// A step's headline figures. TPC-C: TPS, NOPM, the mean and p95 of every transaction. DS2 speaks as
/// DS2 does: OPM and `rt_tot_avg` (the mean sum of an order's operations' times), with the whole
/// order's mean and p95 from its intended start beside it under its own name.
fn figures_line(workload: &Descriptor, f: &Figures) -> String {
    let tail = format!("errors {}   rollbacks {}   retries {}", f.errors, f.rollbacks, f.retries);
    let unit = &workload.unit;
    match workload.headline {
        // TPC-C's NOPM, or a workload file's transaction per minute under its own unit.
        Rate::Nopm | Rate::PerMinute => format!(
            "TPS {:.1}   {unit} {}   avg {:.1} ms   p95 {:.1} ms   {tail}",
            f.tps,
            fixed(f.per_minute(), 0),
            f.rt_avg_ms,
            f.rt_p95_ms
        ),
        Rate::Iops => {
            format!("{unit} {:.0}   avg {:.2} ms   p95 {:.2} ms   {tail}", f.tps, f.rt_avg_ms, f.rt_p95_ms)
        }
        Rate::Opm => {
            // No order completed: no order means (absent, not 0).
            let order = f.transactions.get(ORDER).filter(|o| o.count > 0);
            format!(
                "{unit} {}   rt_tot_avg {} ms   order avg {} ms   order p95 {} ms   {tail}",
                fixed(f.opm, 0),
                fixed(f.rt_tot_avg_ms, 1),
                fixed(order.map(|o| o.avg_ms), 1),
                fixed(order.map(|o| o.p95_ms), 1)
            )
        }
    }
}

/// The configuration as `config:` prints it: `key=value` for each value set, then the keys without
/// one named (`not set: window_s`), never printed as `null`.
fn config_line(config: &serde_json::Map<String, serde_json::Value>) -> String {
    let (unset, set): (Vec<_>, Vec<_>) = config.iter().partition(|(_, v)| v.is_null());
    let mut line: Vec<String> = set.iter().map(|(k, v)| format!("{k}={}", plain(v))).collect();
    if !unset.is_empty() {
        let names: Vec<&str> = unset.iter().map(|(k, _)| k.as_str()).collect();
        line.push(format!("(not set: {})", names.join(", ")));
    }
    line.join(" ")
}

/// A configuration value as `config:` prints it: a string without its quotes, anything else as JSON.
fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::{ds2_step, result, sweep, whole_lines};
    use crate::model::ClientCpu;
    use crate::model::Workload;
    use crate::stats::audit::{TpccAuditPlan, tpcc};
    use crate::stats::cap::Cap;

    #[test]
    fn a_tpcc_sweep_reads_top_down() {
        let mut r = sweep();
        r.config =
            serde_json::json!({"scale": 1, "keying_time": "spec", "think_time": "0", "window_s": null});
        r.server.engine = "postgres".into();
        r.server.version = "16.4".into();
        r.client = ClientCpu {
            peak_rss_bytes: 52_000_000,
            wake_late_p99_ms: Some(1.25),
            wake_late_max_ms: Some(7.5),
            ..ClientCpu::new(2.5, 0.75, 54_000)
        };
        r.errors_by_kind = BTreeMap::from([("serialization_failure".into(), 3), ("deadlock".into(), 1)]);
        r.steps[1].audit =
            Some(tpcc(&r.steps[1], BTreeMap::new(), TpccAuditPlan { paced: false, warehouses: 2 }));
        insta::assert_snapshot!(whole_lines(render(&r)));
    }

    #[test]
    fn a_setting_without_a_value_is_named_not_printed_as_null() {
        // Issue 39: summary.txt printed `connections=null … window_s=null`.
        let config = serde_json::json!({"connections": null, "scale": 10, "users": "8", "window_s": null});
        let line = config_line(config.as_object().unwrap());
        assert_eq!(line, "scale=10 users=8 (not set: connections, window_s)");
        assert!(!line.contains("null"), "{line}");
    }

    #[test]
    fn an_interrupted_ds2_run_speaks_ds2() {
        let cap = Cap::default_for(Workload::Ds2);
        let mut r = result(
            Workload::Ds2,
            vec![
                ds2_step(0, 16, 30_000, (400_000, 300_000), Some(&cap)),
                ds2_step(1, 32, 33_000, (1_200_000, 500_000), Some(&cap)),
            ],
        );
        r.interrupted = true;
        r.config = serde_json::json!({"db_size": "10GB", "n_threads": 16, "think_time_s": 0});
        r.server.engine = "sqlserver".into();
        r.server.version = "16.0".into();
        r.client = ClientCpu { client_cpu_us_per_order: Some(420.0), ..ClientCpu::new(1.0, 0.5, 63_000) };
        insta::assert_snapshot!(whole_lines(render(&r)));
    }

    #[test]
    fn an_empty_result_still_says_what_ran() {
        insta::assert_snapshot!(whole_lines(render(&result(Workload::Tpcc, Vec::new()))), @r"
            oltpgen 0.1.0: tpcc against db ( )
            started 2025-01-01T00:00:00Z
            config: 

            step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
            max NOPM within cap: none, the run stopped before a step was measured

            client: n/a CPU per transaction (0.00 s user, 0.00 s system, 0 transactions), peak memory 0 MB
            ");
    }
}
