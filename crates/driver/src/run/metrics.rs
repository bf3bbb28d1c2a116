//! `--metrics-listen`: oltpgen's live figures in the Prometheus text format at `http://ADDR/metrics`,
//! so that a running study shows up in Prometheus and Grafana as HammerDB's and BenchBase's users ask
//! (HammerDB #145, #918; BenchBase #80). [`Live`] keeps what the run reported (every interval, every
//! judged step), the report crate's [`prometheus::render`] writes it with the sampler's latest
//! counters, and an [`Endpoint`] serves it on its own task, off the users' hot path, until it is
//! dropped.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use oltpgen_report::model::Step;
use oltpgen_report::render::prometheus;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::IntervalFigures;
use crate::Error;
use crate::counters::SamplerReader;

/// What the run has reported so far, as the endpoint serves it: the page's figures, taken in from the
/// run's own.
#[derive(Clone, Debug, Default)]
pub struct Live(prometheus::Live);

impl Live {
    /// The live figures of `agent`'s share of a run (labelled when it is one part of several).
    pub fn of(agent: super::Agent) -> Live {
        Live(prometheus::Live {
            agent: agent.is_part().then(|| agent.index.to_string()),
            ..prometheus::Live::default()
        })
    }

    /// Takes in an interval's figures: totals grow, the last interval's rates and latencies replace
    /// the previous ones.
    pub fn interval(&mut self, f: &IntervalFigures) {
        let live = &mut self.0;
        live.elapsed_s = f.elapsed_s;
        live.users = f.users;
        // The rows are the kinds' figures, in the same order.
        for (row, kind) in f.rows.iter().zip(&f.kinds) {
            let t = live.txns.entry(row.txn.clone()).or_default();
            t.count += row.count;
            t.errors += row.errors;
            t.tps = row.tps;
            t.avg_ms = row.avg_ms;
            t.p95_ms = row.p95_ms;
            t.at_or_below.iter_mut().zip(&kind.at_or_below).for_each(|(total, n)| *total += n);
            t.latency_sum_s += kind.avg_ms * kind.count as f64 / 1e3;
        }
        live.errors_by_kind.clone_from(&f.errors_by_kind);
    }

    /// Takes in a judged step: its throughput and cap verdict.
    pub fn step(&mut self, s: &Step) {
        self.0.step(s);
    }
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
                    let live = live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    prometheus::render(&live.0, &latest)
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
    fn an_agents_series_are_labelled_with_its_index() {
        let mut live = Live::of(super::super::Agent { index: 1, count: 3 });
        live.0.users = 8;
        live.0.txns.insert("payment".into(), prometheus::Txn { count: 4, ..prometheus::Txn::default() });
        let page = prometheus::render(&live.0, &[]);
        assert!(page.contains("\noltpgen_users{agent=\"1\"} 8\n"), "{page}");
        assert!(page.contains("\noltpgen_transactions_total{agent=\"1\",txn=\"payment\"} 4\n"), "{page}");
        let mut whole = Live::of(super::super::Agent::WHOLE);
        whole.0.users = 8;
        let whole = prometheus::render(&whole.0, &[]);
        assert!(whole.contains("\noltpgen_users 8\n"), "one process's series carry no agent: {whole}");
    }

    #[test]
    fn the_page_reads_back_in_the_text_format() {
        let mut live = Live::default();
        live.0.users = 8;
        let at_or_below = [0, 0, 0, 10, 30, 39, 40, 40, 40, 40, 40, 40, 40];
        let txn =
            prometheus::Txn { count: 40, errors: 1, p95_ms: 30.0, at_or_below, ..prometheus::Txn::default() };
        live.0.txns.insert("new_order".into(), txn);
        live.0.errors_by_kind.insert("connection_lost".into(), 1);
        let counters = vec![("db:postgres://u@h/\"q\"".to_string(), "commits_per_s".to_string(), 99.0)];
        let page = prometheus::render(&live.0, &counters);
        let samples = exposition::parse(&page);
        let get = |name: &str| samples.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(get("oltpgen_users").value, 8.0);
        assert_eq!(get("oltpgen_transactions_total").label("txn"), Some("new_order"));
        assert_eq!(get("oltpgen_transactions_total").value, 40.0);
        assert_eq!(get("oltpgen_latency_p95_seconds").value, 0.03);
        assert_eq!(get("oltpgen_errors_total").label("kind"), Some("connection_lost"));
        assert_eq!(get("oltpgen_sampled").label("source"), Some("db:postgres://u@h/\"q\""));
        assert_eq!(get("oltpgen_latency_seconds_bucket").label("le"), Some("0.001"));
    }
}
