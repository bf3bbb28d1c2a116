//! What ran, in words a person reads: the title (workload, scale or size, users or steps, engine and
//! host), the pacing and transaction mode, and the run's settings with units and without `null`s.
//! `report show` and report.html both start with these.
//!
//! ```
//! use oltpgen_report::render::describe::setting;
//! assert_eq!(setting("warmup_s", &serde_json::json!(5.0)).unwrap(), ("warmup".to_string(), "5 s".to_string()));
//! assert_eq!(setting("window_s", &serde_json::Value::Null), None);
//! ```

use serde_json::Value;

use crate::model::RunResult;
use crate::numfmt::thousands;

/// The settings shown first, in this order; the others follow alphabetically.
const FIRST: [&str; 12] = [
    "target",
    "scale",
    "db_size",
    "users",
    "runs",
    "transactions",
    "client_threads",
    "warmup_s",
    "duration_s",
    "ramp",
    "keying_time",
    "think_time",
];

/// The engine's name as its makers write it.
pub fn engine(r: &RunResult) -> String {
    match r.server.engine.as_str() {
        "postgres" | "postgresql" => "PostgreSQL".into(),
        "sqlserver" | "mssql" => "SQL Server".into(),
        "" => "an unknown engine".into(),
        other => other.into(),
    }
}

/// The server's version, its first word (`15.18` of `15.18 (Debian 15.18-0+deb12u1)`).
fn short_version(r: &RunResult) -> &str {
    r.server.version.split_whitespace().next().unwrap_or("")
}

/// The host of a target label (`postgres://u@host:5432/db` → `host`), without its port.
fn host(label: &str) -> String {
    let rest = label.split_once("://").map_or(label, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or(rest);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    match host_port.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h.to_string(),
        _ => host_port.to_string(),
    }
}

/// The user loads run, in words: `8 users`, `4–8 users in 2 steps`, `8, 16, 32 users in 3 steps`.
pub fn users(r: &RunResult) -> String {
    let mut loads: Vec<u64> = r.steps.iter().map(|s| s.users).collect();
    let steps = r.steps.iter().map(|s| s.index).max().map_or(0, |i| i + 1);
    loads.sort_unstable();
    loads.dedup();
    let n = |u: u64| thousands(u as f64, 0);
    match loads.as_slice() {
        [] => "no steps".into(),
        [one] if steps <= 1 => format!("{} users", n(*one)),
        [one] => format!("{} users in {steps} steps", n(*one)),
        [lo, hi] => format!("{}–{} users in {steps} steps", n(*lo), n(*hi)),
        many => {
            format!("{} users in {steps} steps", many.iter().map(|u| n(*u)).collect::<Vec<_>>().join(", "))
        }
    }
}

/// Scale (TPC-C's warehouses) or size (DS2's database), as configured.
pub fn size(r: &RunResult) -> Option<String> {
    let size = r.descriptor().size.as_ref()?;
    r.config.get(&size.key).map(|s| format!("{}{}{}", size.before, plain(s), size.after))
}

/// The page's and the text's title: what ran, how big, with how many users, on what.
pub fn title(r: &RunResult) -> String {
    let workload = &r.descriptor().title;
    let mut hosts: Vec<String> = r.targets.iter().map(|t| host(t)).collect();
    hosts.dedup();
    let on = match r.targets.len() {
        0 | 1 => format!("on {}", hosts.join(", ")),
        n => format!("on {n} targets ({})", hosts.join(", ")),
    };
    let size = size(r).map_or(String::new(), |s| format!(" {s}"));
    let engine = format!("{} {}", engine(r), short_version(r));
    format!("{workload}{size}, {}, {} {on}", users(r), engine.trim_end())
}

/// Keying and think times, as configured: `keying off, think off`.
pub fn pacing(r: &RunResult) -> Option<String> {
    let parts: Vec<String> = [("keying_time", "keying"), ("think_time", "think"), ("think_time_s", "think")]
        .into_iter()
        .filter_map(|(key, word)| Some(format!("{word} {}", with_unit(key, r.config.get(key)?)?)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Where the transactions' logic ran: `server-side (procedures)` or `client-side (statements)`.
pub fn mode(r: &RunResult) -> Option<&'static str> {
    match r.config.get("transactions")?.as_str()? {
        "server" => Some("server-side (procedures)"),
        "client" => Some("client-side (statements)"),
        _ => None,
    }
}

/// A configuration value as text, strings without their quotes, lists joined with commas.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        Value::Bool(b) => (if *b { "yes" } else { "no" }).into(),
        // 5.0 s reads as 5 s; a seed keeps every digit.
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A value with the unit its key's suffix names; `None` for `null`.
fn with_unit(key: &str, v: &Value) -> Option<String> {
    if v.is_null() {
        return None;
    }
    let text = plain(v);
    Some(if key.ends_with("_s") && (v.is_number() || v.is_array()) { format!("{text} s") } else { text })
}

/// One setting as a person reads it: its name in words (units moved to the value), its value with its
/// unit. `None` for a `null` (a setting left unset shows nothing).
pub fn setting(key: &str, v: &Value) -> Option<(String, String)> {
    let value = with_unit(key, v)?;
    let name = key.strip_suffix("_s").unwrap_or(key).replace('_', " ");
    Some((name, value))
}

/// Every setting of the run's configuration that is set, the important ones first.
pub fn settings(r: &RunResult) -> Vec<(String, String)> {
    let Some(config) = r.config.as_object() else { return Vec::new() };
    let first = FIRST.iter().filter_map(|k| Some((*k, config.get(*k)?)));
    let rest = config.iter().filter(|(k, _)| !FIRST.contains(&k.as_str())).map(|(k, v)| (k.as_str(), v));
    first.chain(rest).filter_map(|(k, v)| setting(k, v)).collect()
}

/// The client's own cost in one line: CPU per transaction (per I/O for `io`: the workload's unit of
/// work) and per order, and peak memory.
pub fn client(r: &RunResult) -> String {
    let c = &r.client;
    let work = &r.descriptor().work;
    let mut out = match c.client_cpu_us_per_txn {
        Some(us) => format!("{} µs CPU per {}", thousands(us, 1), work.one),
        None => return format!("no {} completed", work.one),
    };
    if let Some(us) = c.client_cpu_us_per_order {
        out.push_str(&format!(", {} µs per order", thousands(us, 1)));
    }
    out.push_str(&format!(
        " ({} s CPU over {} {})",
        thousands(c.cpu_s, 2),
        thousands(c.transactions as f64, 0),
        work.many
    ));
    if c.peak_rss_bytes > 0 {
        out.push_str(&format!(", peak memory {} MB", thousands(c.peak_rss_bytes as f64 / 1e6, 0)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::{Step, Workload};

    #[test]
    fn the_title_says_what_ran_not_a_port() {
        let mut r = result(
            Workload::Tpcc,
            vec![tpcc_step(0, 4, (1, 1), 1_000, None), tpcc_step(1, 8, (1, 1), 1_000, None)],
        );
        r.config = serde_json::json!({"scale": 2, "keying_time": "off", "think_time": "off", "transactions": "server", "window_s": null});
        r.server.engine = "postgres".into();
        r.server.version = "15.18 (Debian 15.18-0+deb12u1)".into();
        r.targets = vec!["postgres://oltpgen@127.0.0.1:40747/tpcc".into()];
        assert_eq!(title(&r), "TPC-C scale 2, 4–8 users in 2 steps, PostgreSQL 15.18 on 127.0.0.1");
        assert_eq!(pacing(&r).as_deref(), Some("keying off, think off"));
        assert_eq!(mode(&r), Some("server-side (procedures)"));
        let names: Vec<String> = settings(&r).into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(names, ["scale=2", "transactions=server", "keying time=off", "think time=off"]);
    }

    #[test]
    fn the_headline_line_is_the_results_headline_the_median_run_with_runs() {
        let cap = crate::stats::cap::Cap::default_for(Workload::Tpcc);
        // Three runs of one load: the fastest (run 3) is not the median (run 2).
        let mut steps: Vec<Step> = [(600, 1), (900, 2), (1_200, 3)]
            .into_iter()
            .map(|(new_orders, run)| {
                let mut s = tpcc_step(run - 1, 2, (new_orders, new_orders), 1_000, Some(&cap));
                s.run = run;
                s
            })
            .collect();
        let median: Vec<Step> = steps.iter().filter(|s| s.run == 2).cloned().collect();
        let mut r = result(Workload::Tpcc, std::mem::take(&mut steps));
        r.max_within_cap = crate::stats::cap::max_within_cap(&median);
        let line = crate::render::steps::headline(&r);
        assert_eq!(line, "max NOPM within cap avg=1s: 900 at 2 users (step 2), 30.0 TPS, avg 1.0 ms");
        let marked: Vec<(String, String)> = crate::render::steps::table_rows(&r)
            .into_iter()
            .filter(|(_, best)| *best)
            .map(|(cells, _)| (cells[0].clone(), cells[1].clone()))
            .collect();
        assert_eq!(marked, [("2".to_string(), "2".to_string())], "step 2 of the median run, marked once");
    }

    #[test]
    fn a_run_stopped_before_its_first_step_ended_says_so_not_that_no_cap_was_set() {
        let r = result(Workload::Tpcc, Vec::new());
        assert_eq!(
            crate::render::steps::headline(&r),
            "max NOPM within cap: none, the run stopped before a step was measured"
        );
    }
}
