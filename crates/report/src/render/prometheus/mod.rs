//! The live figures of a running study in the Prometheus text format (version 0.0.4), as
//! `--metrics-listen` serves them at `/metrics`: a renderer like the others, from plain data
//! ([`Live`], what the run has reported so far, and the sampler's latest counters), so that the driver
//! keeps only the HTTP endpoint. Names follow Prometheus' conventions (base units, `_total` on
//! counters, a HELP and TYPE line each), which `promtool check metrics` holds them to.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::Step;

/// The response-time bounds, µs, that each interval counts transactions at or below: the histogram's
/// buckets (`le`, in seconds on the page), 1 ms to 10 s.
pub const LATENCY_BUCKETS_US: [u64; 13] = [
    1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000,
    10_000_000,
];

/// One transaction type's live figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Txn {
    /// Completed since the run began.
    pub count: u64,
    /// Failed since the run began.
    pub errors: u64,
    /// Transactions per second over the last interval.
    pub tps: f64,
    /// Mean response time over the last interval, ms.
    pub avg_ms: f64,
    /// 95th percentile response time over the last interval, ms.
    pub p95_ms: f64,
    /// Since the run began: transactions at or below each of [`LATENCY_BUCKETS_US`] (the histogram's
    /// buckets; `count` is its `_count`).
    pub at_or_below: [u64; LATENCY_BUCKETS_US.len()],
    /// The sum of their response times, seconds (the histogram's `_sum`).
    pub latency_sum_s: f64,
}

/// A judged step as the page shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JudgedStep {
    /// The step's index, from 0 (the page counts from 1, as the live lines do).
    pub index: u32,
    /// The run it belongs to.
    pub run: u32,
    /// Its users.
    pub users: u64,
    /// Its transactions per second.
    pub tps: f64,
    /// Whether it kept within the response-time cap.
    pub cap_passed: bool,
}

/// What the run has reported so far, as the page shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Live {
    /// Seconds since the run began.
    pub elapsed_s: f64,
    /// Virtual users running.
    pub users: u64,
    /// Each transaction type's figures, by name.
    pub txns: BTreeMap<String, Txn>,
    /// Failures since the run began, by kind.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// The steps judged so far.
    pub steps: Vec<JudgedStep>,
    /// The agent's index when this process is one agent of several: every series is labelled
    /// `agent="I"`, so Prometheus sums throughput across agents.
    pub agent: Option<String>,
}

impl Live {
    /// Takes in a judged step: its throughput and cap verdict.
    pub fn step(&mut self, s: &Step) {
        let cap_passed = s.cap.as_ref().is_some_and(|c| c.passed);
        self.steps.push(JudgedStep {
            index: s.index,
            run: s.run,
            users: s.users,
            tps: s.figures.tps,
            cap_passed,
        });
    }
}

/// The text format's page: `live`'s figures and `counters` (`(source, name, value)`, the sampler's
/// latest values).
pub fn render(live: &Live, counters: &[(String, String, f64)]) -> String {
    let mut page = Page { out: String::new(), agent: live.agent.as_deref().map(|i| labels(&[("agent", i)])) };
    page.gauge("oltpgen_elapsed_seconds", "Seconds since the run began.", live.elapsed_s);
    page.gauge("oltpgen_users", "Virtual users running.", live.users as f64);
    transactions(&mut page, live);
    page.family(
        "oltpgen_errors_total",
        "counter",
        "Failures since the run began, by kind.",
        live.errors_by_kind.iter().map(|(k, n)| (labels(&[("kind", k)]), *n as f64)),
    );
    steps(&mut page, live);
    page.family(
        "oltpgen_sampled",
        "gauge",
        "Host and database figures over the last interval, named as result.json names them.",
        counters.iter().map(|(source, name, v)| (labels(&[("source", source), ("name", name)]), *v)),
    );
    latency_histogram(&mut page, live);
    page.out
}

/// The page being written, and the agent's label every series carries (when there is one).
struct Page {
    out: String,
    agent: Option<String>,
}

impl Page {
    /// One family: its HELP and TYPE lines, then a line per `(labels, value)` sample.
    fn family(&mut self, name: &str, kind: &str, help: &str, samples: impl Iterator<Item = (String, f64)>) {
        let _ = writeln!(self.out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, value) in samples {
            let labels = with_agent(labels, self.agent.as_deref());
            let _ = writeln!(self.out, "{name}{labels} {}", sample_value(value));
        }
    }

    /// A gauge of one unlabelled sample.
    fn gauge(&mut self, name: &str, help: &str, value: f64) {
        self.family(name, "gauge", help, [(String::new(), value)].into_iter());
    }
}

/// A family by transaction type: its name, type, help, and each type's value.
type TxnFamily = (&'static str, &'static str, &'static str, fn(&Txn) -> f64);

/// The families by transaction type: counts, errors, and the last interval's rate and latencies.
fn transactions(page: &mut Page, live: &Live) {
    let txn = |f: fn(&Txn) -> f64| live.txns.iter().map(move |(n, t)| (labels(&[("txn", n)]), f(t)));
    let families: [TxnFamily; 5] = [
        ("oltpgen_transactions_total", "counter", "Transactions completed, by type.", |t| t.count as f64),
        ("oltpgen_transaction_errors_total", "counter", "Transactions failed, by type.", |t| t.errors as f64),
        ("oltpgen_throughput", "gauge", "Transactions per second over the last interval, by type.", |t| {
            t.tps
        }),
        (
            "oltpgen_latency_avg_seconds",
            "gauge",
            "Mean response time over the last interval, by type.",
            |t| t.avg_ms / 1e3,
        ),
        (
            "oltpgen_latency_p95_seconds",
            "gauge",
            "95th percentile response time over the last interval, by type.",
            |t| t.p95_ms / 1e3,
        ),
    ];
    for (name, kind, help, value) in families {
        page.family(name, kind, help, txn(value));
    }
}

/// The families of the judged steps: how many, and each one's throughput and cap verdict.
fn steps(page: &mut Page, live: &Live) {
    page.gauge("oltpgen_steps_judged", "Steps whose window closed and was judged.", live.steps.len() as f64);
    let step = |f: fn(&JudgedStep) -> f64| {
        live.steps.iter().map(move |s| {
            // Steps counted from 1, as the live lines and the step table count them.
            let (index, run, users) = ((s.index + 1).to_string(), s.run.to_string(), s.users.to_string());
            (labels(&[("step", &index), ("run", &run), ("users", &users)]), f(s))
        })
    };
    page.family(
        "oltpgen_step_throughput",
        "gauge",
        "A judged step's transactions per second.",
        step(|s| s.tps),
    );
    page.family(
        "oltpgen_step_cap_passed",
        "gauge",
        "1 when a judged step kept within the response-time cap, else 0.",
        step(|s| f64::from(u8::from(s.cap_passed))),
    );
}

/// `oltpgen_latency_seconds`, a histogram per transaction type since the run began: Prometheus sums
/// its buckets across agents (`sum without (agent) (rate(oltpgen_latency_seconds_bucket[1m]))`) and
/// takes percentiles of the whole with `histogram_quantile`, which the gauges of one process's mean
/// and p95 cannot give.
fn latency_histogram(page: &mut Page, live: &Live) {
    let (name, agent, out) = ("oltpgen_latency_seconds", page.agent.as_deref(), &mut page.out);
    let _ =
        writeln!(out, "# HELP {name} Response times since the run began, by type.\n# TYPE {name} histogram");
    for (txn, t) in &live.txns {
        let bounds = LATENCY_BUCKETS_US.iter().map(|us| sample_value(*us as f64 / 1e6));
        let buckets = bounds.zip(t.at_or_below).chain([("+Inf".to_string(), t.count)]);
        for (le, n) in buckets {
            let labels = with_agent(labels(&[("txn", txn), ("le", &le)]), agent);
            let _ = writeln!(out, "{name}_bucket{labels} {n}");
        }
        let labels = with_agent(labels(&[("txn", txn)]), agent);
        let _ = writeln!(out, "{name}_sum{labels} {}", sample_value(t.latency_sum_s));
        let _ = writeln!(out, "{name}_count{labels} {}", t.count);
    }
}

/// A sample's value as people read it: to the microsecond or millionth at most, without the binary
/// noise of a computed float (`1204.4`, not `1204.3999999999999`).
fn sample_value(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let fixed = format!("{v:.6}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    if trimmed == "-0" { "0".into() } else { trimmed.into() }
}

/// `labels` with the agent's label (`{agent="I"}`) first, when there is one.
fn with_agent(labels: String, agent: Option<&str>) -> String {
    match (agent, labels.strip_prefix('{')) {
        (None, _) => labels,
        (Some(agent), None) => agent.to_string(),
        (Some(agent), Some(rest)) => format!("{},{rest}", agent.trim_end_matches('}')),
    }
}

/// `{k="v",…}` with the values escaped as the text format wants.
fn labels(pairs: &[(&str, &str)]) -> String {
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| {
            format!("{k}=\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"))
        })
        .collect();
    format!("{{{}}}", inner.join(","))
}

#[cfg(test)]
mod tests;
