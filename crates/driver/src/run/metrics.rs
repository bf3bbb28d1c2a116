//! `--metrics-listen`: oltpgen's live figures in the Prometheus text format (version 0.0.4) at
//! `http://ADDR/metrics`, so that a running study shows up in Prometheus and Grafana as HammerDB's and
//! BenchBase's users ask (HammerDB #145, #918; BenchBase #80). [`Live`] keeps what the run reported
//! (every interval, every judged step); [`render`] writes it with the sampler's latest counters; an
//! [`Endpoint`] serves it on its own task, off the users' hot path, until it is dropped.
//!
//! Names follow Prometheus' conventions (base units, `_total` on counters, a HELP and TYPE line each),
//! which `promtool check metrics` holds them to.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use oltpgen_report::model::Step;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::IntervalFigures;
use super::collector::LATENCY_BUCKETS_US;
use crate::Error;
use crate::counters::SamplerReader;

/// One transaction type's live figures.
#[derive(Clone, Debug, Default, PartialEq)]
struct Txn {
    count: u64,
    errors: u64,
    tps: f64,
    avg_ms: f64,
    p95_ms: f64,
    /// Since the run began: transactions at or below each of [`LATENCY_BUCKETS_US`], and the sum
    /// of their response times, seconds (the histogram's buckets and `_sum`; `count` is its `_count`).
    at_or_below: [u64; LATENCY_BUCKETS_US.len()],
    latency_sum_s: f64,
}

/// What the run has reported so far, as the endpoint serves it.
#[derive(Clone, Debug, Default)]
pub struct Live {
    elapsed_s: f64,
    users: u64,
    txns: BTreeMap<String, Txn>,
    errors_by_kind: BTreeMap<String, u64>,
    steps: Vec<(u32, u32, u64, f64, bool)>,
    /// The agent's index when this process is one agent of several: every series is labelled
    /// `agent="I"`, so Prometheus sums throughput across agents.
    agent: Option<String>,
}

impl Live {
    /// The live figures of `agent`'s share of a run (labelled when it is one part of several).
    pub fn of(agent: super::Agent) -> Live {
        Live { agent: agent.is_part().then(|| agent.index.to_string()), ..Live::default() }
    }

    /// Takes in an interval's figures: totals grow, the last interval's rates and latencies replace
    /// the previous ones.
    pub fn interval(&mut self, f: &IntervalFigures) {
        self.elapsed_s = f.elapsed_s;
        self.users = f.users;
        // The rows are the kinds' figures, in the same order.
        for (row, kind) in f.rows.iter().zip(&f.kinds) {
            let t = self.txns.entry(row.txn.clone()).or_default();
            t.count += row.count;
            t.errors += row.errors;
            t.tps = row.tps;
            t.avg_ms = row.avg_ms;
            t.p95_ms = row.p95_ms;
            t.at_or_below.iter_mut().zip(&kind.at_or_below).for_each(|(total, n)| *total += n);
            t.latency_sum_s += kind.avg_ms * kind.count as f64 / 1e3;
        }
        self.errors_by_kind.clone_from(&f.errors_by_kind);
    }

    /// Takes in a judged step: its throughput and cap verdict.
    pub fn step(&mut self, s: &Step) {
        let passed = s.cap.as_ref().is_some_and(|c| c.passed);
        self.steps.push((s.index, s.run, s.users, s.figures.tps, passed));
    }
}

/// The text format's page: `live`'s figures and `counters` (`(source, name, value)`, the sampler's
/// latest values).
pub fn render(live: &Live, counters: &[(String, String, f64)]) -> String {
    let mut out = String::new();
    let agent = live.agent.as_deref().map(|i| labels(&[("agent", i)]));
    let mut family =
        |name: &str, kind: &str, help: &str, samples: &mut dyn Iterator<Item = (String, f64)>| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (labels, value) in samples {
                let labels = with_agent(labels, agent.as_deref());
                let _ = writeln!(out, "{name}{labels} {}", sample_value(value));
            }
        };
    family(
        "oltpgen_elapsed_seconds",
        "gauge",
        "Seconds since the run began.",
        &mut [(String::new(), live.elapsed_s)].into_iter(),
    );
    family(
        "oltpgen_users",
        "gauge",
        "Virtual users running.",
        &mut [(String::new(), live.users as f64)].into_iter(),
    );
    let txn = |f: fn(&Txn) -> f64| live.txns.iter().map(move |(n, t)| (labels(&[("txn", n)]), f(t)));
    family(
        "oltpgen_transactions_total",
        "counter",
        "Transactions completed, by type.",
        &mut txn(|t| t.count as f64),
    );
    family(
        "oltpgen_transaction_errors_total",
        "counter",
        "Transactions failed, by type.",
        &mut txn(|t| t.errors as f64),
    );
    family(
        "oltpgen_throughput",
        "gauge",
        "Transactions per second over the last interval, by type.",
        &mut txn(|t| t.tps),
    );
    family(
        "oltpgen_latency_avg_seconds",
        "gauge",
        "Mean response time over the last interval, by type.",
        &mut txn(|t| t.avg_ms / 1e3),
    );
    family(
        "oltpgen_latency_p95_seconds",
        "gauge",
        "95th percentile response time over the last interval, by type.",
        &mut txn(|t| t.p95_ms / 1e3),
    );
    family(
        "oltpgen_errors_total",
        "counter",
        "Failures since the run began, by kind.",
        &mut live.errors_by_kind.iter().map(|(k, n)| (labels(&[("kind", k)]), *n as f64)),
    );
    family(
        "oltpgen_steps_judged",
        "gauge",
        "Steps whose window closed and was judged.",
        &mut [(String::new(), live.steps.len() as f64)].into_iter(),
    );
    let step = |f: fn(&(u32, u32, u64, f64, bool)) -> f64| {
        live.steps.iter().map(move |s| {
            // Steps counted from 1, as the live lines and the step table count them.
            let (index, run, users) = ((s.0 + 1).to_string(), s.1.to_string(), s.2.to_string());
            (labels(&[("step", &index), ("run", &run), ("users", &users)]), f(s))
        })
    };
    family(
        "oltpgen_step_throughput",
        "gauge",
        "A judged step's transactions per second.",
        &mut step(|s| s.3),
    );
    family(
        "oltpgen_step_cap_passed",
        "gauge",
        "1 when a judged step kept within the response-time cap, else 0.",
        &mut step(|s| f64::from(u8::from(s.4))),
    );
    family(
        "oltpgen_sampled",
        "gauge",
        "Host and database figures over the last interval, named as result.json names them.",
        &mut counters.iter().map(|(source, name, v)| (labels(&[("source", source), ("name", name)]), *v)),
    );
    latency_histogram(&mut out, live, agent.as_deref());
    out
}

/// `oltpgen_latency_seconds`, a histogram per transaction type since the run began: Prometheus sums
/// its buckets across agents (`sum without (agent) (rate(oltpgen_latency_seconds_bucket[1m]))`) and
/// takes percentiles of the whole with `histogram_quantile`, which the gauges of one process's mean
/// and p95 cannot give.
fn latency_histogram(out: &mut String, live: &Live, agent: Option<&str>) {
    let name = "oltpgen_latency_seconds";
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

/// The listening endpoint; it stops serving when dropped.
pub struct Endpoint {
    /// Where it listens (the port filled in when `:0` was asked for).
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Endpoint {
    /// Listens on `addr` and serves `live` (with `counters`' latest values) to every request for
    /// `/metrics`, on its own task.
    ///
    /// # Errors
    /// A usage error naming `--metrics-listen` when the address cannot be listened on.
    pub async fn listen(
        addr: SocketAddr,
        live: Arc<Mutex<Live>>,
        counters: Option<SamplerReader>,
    ) -> Result<Endpoint, Error> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::usage(format!("--metrics-listen {addr}: cannot listen there: {e}")))?;
        let addr = listener.local_addr().unwrap_or(addr);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let page = {
                    let latest = counters.as_ref().map(SamplerReader::latest).unwrap_or_default();
                    render(&live.lock().unwrap_or_else(std::sync::PoisonError::into_inner), &latest)
                };
                tokio::spawn(answer(stream, page));
            }
        });
        Ok(Endpoint { addr, task })
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads one request's head and answers it: the page for `GET /metrics`, 404 for any other path.
async fn answer(mut stream: tokio::net::TcpStream, page: String) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
    };
    if tokio::time::timeout(std::time::Duration::from_secs(5), read).await.is_err() {
        return;
    }
    let line = String::from_utf8_lossy(&head);
    let path = line.split_whitespace().nth(1).unwrap_or("");
    let (status, body) = if path == "/metrics" || path.starts_with("/metrics?") {
        ("200 OK", page)
    } else {
        ("404 Not Found", "oltpgen serves its metrics at /metrics\n".to_string())
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::exposition;

    #[test]
    fn values_print_without_float_noise() {
        assert_eq!(sample_value(1204.3999999999999), "1204.4");
        assert_eq!(sample_value(40.0), "40");
        assert_eq!(sample_value(0.0125), "0.0125");
        assert_eq!(sample_value(-0.0000001), "0");
        assert_eq!(sample_value(f64::NAN), "NaN");
    }

    #[test]
    fn an_agents_series_are_labelled_with_its_index() {
        let mut live = Live { users: 8, ..Live::of(super::super::Agent { index: 1, count: 3 }) };
        live.txns.insert("payment".into(), Txn { count: 4, ..Txn::default() });
        let page = render(&live, &[]);
        assert!(page.contains("\noltpgen_users{agent=\"1\"} 8\n"), "{page}");
        assert!(page.contains("\noltpgen_transactions_total{agent=\"1\",txn=\"payment\"} 4\n"), "{page}");
        assert!(
            page.contains("\noltpgen_latency_seconds_bucket{agent=\"1\",txn=\"payment\",le=\"+Inf\"} 4\n"),
            "{page}"
        );
        let whole = render(&Live { users: 8, ..Live::of(super::super::Agent::WHOLE) }, &[]);
        assert!(whole.contains("\noltpgen_users 8\n"), "one process's series carry no agent: {whole}");
    }

    #[test]
    fn the_page_reads_back_in_the_text_format() {
        let mut live = Live { users: 8, ..Live::default() };
        let at_or_below = [0, 0, 0, 10, 30, 39, 40, 40, 40, 40, 40, 40, 40];
        let txn = Txn {
            count: 40,
            errors: 1,
            tps: 20.0,
            avg_ms: 12.5,
            p95_ms: 30.0,
            at_or_below,
            latency_sum_s: 0.5,
        };
        live.txns.insert("new_order".into(), txn);
        live.errors_by_kind.insert("connection_lost".into(), 1);
        live.steps.push((0, 1, 8, 42.5, true));
        let counters = vec![("db:postgres://u@h/\"q\"".to_string(), "commits_per_s".to_string(), 99.0)];
        let page = render(&live, &counters);
        let samples = exposition::parse(&page);
        let get = |name: &str| samples.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(get("oltpgen_users").value, 8.0);
        assert_eq!(get("oltpgen_transactions_total").label("txn"), Some("new_order"));
        assert_eq!(get("oltpgen_transactions_total").value, 40.0);
        assert_eq!(get("oltpgen_latency_p95_seconds").value, 0.03);
        assert_eq!(get("oltpgen_errors_total").label("kind"), Some("connection_lost"));
        assert_eq!(get("oltpgen_step_cap_passed").value, 1.0);
        assert_eq!(get("oltpgen_step_throughput").label("users"), Some("8"));
        assert_eq!(get("oltpgen_step_throughput").label("step"), Some("1"), "steps count from 1");
        assert!(page.contains("oltpgen_step_throughput{step=\"1\",run=\"1\",users=\"8\"} 42.5\n"), "{page}");
        assert_eq!(get("oltpgen_sampled").label("source"), Some("db:postgres://u@h/\"q\""));
        assert!(
            page.contains("\noltpgen_latency_seconds_bucket{txn=\"new_order\",le=\"0.01\"} 10\n"),
            "{page}"
        );
        assert!(
            page.contains("\noltpgen_latency_seconds_bucket{txn=\"new_order\",le=\"+Inf\"} 40\n"),
            "{page}"
        );
        assert!(page.contains("\noltpgen_latency_seconds_sum{txn=\"new_order\"} 0.5\n"), "{page}");
        assert!(page.contains("\noltpgen_latency_seconds_count{txn=\"new_order\"} 40\n"), "{page}");
        let families = page.lines().filter(|l| l.starts_with("# TYPE")).count();
        assert_eq!(page.lines().filter(|l| l.starts_with("# HELP")).count(), families);
    }
}
