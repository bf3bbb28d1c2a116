//! Host and database counters on the run's clock: a [`Sampler`] on its own task reads, every report
//! interval, this machine's `/proc` ([`host`]), each target's own statistics over a connection of its
//! own (through [`Conn::counters`], one arm per engine), and each `--node-exporter` ([`node_exporter`], or
//! a Windows host's [`windows_exporter`]);
//! it turns two readings into the figures the studies quote and keeps them as series
//! ([`CounterSeries`]): source `client`, `db:<target label>` or `node:<exporter URL>`, and names with
//! their unit (`cpu_pct`, `disk_vda_transfers_per_s`, `commits_per_s`, …).
//!
//! Off the users' hot path: the users never see the sampler, which only reads files and runs a few
//! queries once an interval. What cannot be read (a view the login may not read, an unreachable
//! exporter, a device that went away) is said once on stderr, kept as a note for the result, and left
//! out of the series: the run goes on.

pub mod exposition;
pub mod host;
pub mod node_exporter;
pub mod windows_exporter;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oltpgen_report::model::outage::ServedBy;
use oltpgen_report::model::{CounterSeries, RunResult, Step};
use tokio::time::Instant;

use crate::Target;
use crate::engine::Conn;
use host::HostTotals;
use oltpgen_vocab::console::ErrLines;
use oltpgen_vocab::counters::{DbState, DbTotals};

/// The database figures between two readings `dt_s` seconds apart: every total as a rate, the buffer
/// hit % from blocks hit and read, a `<name>_stall_ms` total as the average ms per `<name>` operation
/// (`<name>_avg_ms`: SQL Server's file stalls), and the gauges as read.
pub fn db_figures(before: &DbTotals, after: &DbTotals, dt_s: f64) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    if dt_s <= 0.0 {
        return out;
    }
    let delta = |name: &str| Some(after.totals.get(name)? - before.totals.get(name)?);
    for name in after.totals.keys() {
        let Some(d) = delta(name) else { continue };
        match name.strip_suffix("_stall_ms") {
            Some(ops) => {
                if let Some(n) = delta(ops).filter(|n| *n > 0.0)
                    && d >= 0.0
                {
                    out.push((format!("{ops}_avg_ms"), d / n));
                }
            }
            None => push_rate(&mut out, format!("{name}_per_s"), d, dt_s),
        }
    }
    if let (Some(hit), Some(read)) = (delta("blocks_hit"), delta("blocks_read"))
        && hit >= 0.0
        && read >= 0.0
        && hit + read > 0.0
    {
        out.push(("buffer_hit_pct".into(), 100.0 * hit / (hit + read)));
    }
    out.extend(after.gauges.iter().map(|(n, v)| ((*n).to_string(), *v)));
    out
}

/// Pushes `delta / dt_s` as `name`, unless the counter went backwards (a reset): then the figure is
/// missing for the interval rather than wrong.
pub(crate) fn push_rate(out: &mut Vec<(String, f64)>, name: String, delta: f64, dt_s: f64) {
    if delta >= 0.0 {
        out.push((name, delta / dt_s));
    }
}

/// Where counters are read from.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// This machine (`client`).
    pub client: bool,
    /// The targets, each over a connection of the sampler's own (`db:<label>`).
    pub targets: Vec<Target>,
    /// node_exporter URLs (`node:<url>`).
    pub node_exporters: Vec<String>,
}

impl Sources {
    /// Whether there is anything to sample.
    pub fn is_empty(&self) -> bool {
        !self.client && self.targets.is_empty() && self.node_exporters.is_empty()
    }
}

/// One series as the sampler keeps it: points on the monotonic clock, turned into the run's clock
/// when the run's start is known.
struct Kept {
    source: String,
    name: String,
    points: Vec<(Instant, f64)>,
}

/// Everything sampled so far, shared between the sampler's task and its readers (the result, the
/// metrics endpoint).
#[derive(Default)]
struct Store {
    series: Vec<Kept>,
    index: HashMap<(String, String), usize>,
    notes: Vec<String>,
    /// The run's start (its clock's zero), once it began.
    zero: Option<Instant>,
    /// Each database's server, and from when on, as its readings found it.
    served: Vec<ServedBy>,
    /// The databases are not read (their connections closed) while the study puts them back.
    dbs_paused: bool,
    /// How many pauses there were: a reading that sees a new one closes the connections it holds,
    /// even when the pause ended before it.
    dbs_pauses: u64,
    /// Where each new note is said: the standard error of the command whose study started the
    /// sampler (the handle it scoped, taken at the start, as the sampler's task runs apart from it).
    said: Option<ErrLines>,
}

impl Store {
    fn push(&mut self, source: &str, at: Instant, figures: Vec<(String, f64)>) {
        for (name, value) in figures {
            if !value.is_finite() {
                continue;
            }
            let key = (source.to_string(), name);
            let i = *self.index.entry(key.clone()).or_insert_with(|| {
                self.series.push(Kept { source: key.0, name: key.1, points: Vec::new() });
                self.series.len() - 1
            });
            self.series[i].points.push((at, value));
        }
    }

    /// Makes `reading` the source's latest; with `emit`, first pushes the `figures` between the
    /// previous reading and it.
    fn advance<T>(
        &mut self,
        source: &str,
        prev: &mut Option<(Instant, T)>,
        reading: (Instant, T),
        emit: bool,
        figures: fn(&T, &T, f64) -> Vec<(String, f64)>,
    ) {
        if let (true, Some((at, before))) = (emit, &*prev) {
            self.push(source, reading.0, figures(before, &reading.1, (reading.0 - *at).as_secs_f64()));
        }
        *prev = Some(reading);
    }

    /// A source that did not answer: said when it goes `down` (not again until it answered), and its
    /// previous reading dropped, so that the next figures come from two readings after it is back.
    fn missing<T>(&mut self, source: &str, down: &mut bool, prev: &mut Option<T>, why: &str) {
        if !*down {
            self.note(source, &format!("{why}; its counters are missing until it answers"));
        }
        *down = true;
        *prev = None;
    }

    /// Records the server `source` read `at` when it differs from the last one recorded for it (the
    /// first one recorded served from the run's start).
    fn served(&mut self, source: &str, at: Instant, server: &str) {
        let last = self.served.iter().rev().find(|s| s.target == source);
        if last.is_none_or(|s| s.server != server) {
            // The first server found served from the start; a change, from the reading that found it.
            let zero = self.zero.filter(|_| last.is_some());
            let from_s = zero.map_or(0.0, |zero| seconds_since(zero, at).max(0.0));
            self.served.push(ServedBy { target: source.to_string(), from_s, server: server.to_string() });
        }
    }

    /// Says `note` on the command's standard error and keeps it for the result, once however often it
    /// comes.
    fn note(&mut self, source: &str, note: &str) {
        let line = format!("{source}: {note}");
        if !self.notes.contains(&line) {
            if let Some(said) = &self.said {
                said.line(&format!("warning: counters: {line}"));
            }
            self.notes.push(line);
        }
    }
}

/// Samples [`Sources`] every interval on its own task until [`Sampler::finish`].
pub struct Sampler {
    store: Arc<Mutex<Store>>,
    /// Asks the task for a reading now ([`Sampler::read_now`]).
    now: Arc<tokio::sync::Notify>,
    started: Mutex<Option<tokio::sync::oneshot::Sender<Instant>>>,
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Sampler {
    /// Starts sampling every `interval`, each target over a connection of the sampler's own (one that
    /// cannot be opened, or is lost, is said once, its counters are missing, and it is opened again at
    /// the next reading). Readings before [`Sampler::run_started`]
    /// lie before the run's clock's zero (an `--idle-sample`'s).
    pub async fn start(sources: Sources, interval: Duration) -> Sampler {
        let store = Arc::new(Mutex::new(Store { said: Some(ErrLines::current()), ..Store::default() }));
        let dbs = sources
            .targets
            .iter()
            .map(|target| DbSource {
                source: format!("db:{}", target.key()),
                target: target.clone(),
                conn: None,
                state: DbState::default(),
                prev: None,
                down: false,
            })
            .collect();
        let nodes = sources
            .node_exporters
            .iter()
            .map(|url| NodeSource {
                source: format!("node:{url}"),
                url: url.clone(),
                prev: None,
                down: false,
            })
            .collect();
        let client =
            sources.client.then(|| HostSource { source: "client".into(), prev: None, gone: BTreeSet::new() });
        let (started, zero) = tokio::sync::oneshot::channel();
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let now = Arc::new(tokio::sync::Notify::new());
        let task = Task { store: store.clone(), client, dbs, nodes, interval, dbs_pauses: 0 };
        let task = tokio::spawn(task.run(zero, now.clone(), stopped));
        Sampler { store, now, started: Mutex::new(Some(started)), stop, task }
    }

    /// Reads every source now, as the run reads its own figures (every interval, and at each step
    /// window's edges): while a run goes on the readings follow its, so a step shorter than the interval
    /// has its counters too. The sampler's own interval takes over again when no run asks (an idle
    /// sample, a restore between runs).
    pub fn read_now(&self) {
        self.now.notify_one();
    }

    /// Marks the run's start: the clock's zero, where the intervals align with the run's own.
    pub fn run_started(&self) {
        let now = Instant::now();
        lock(&self.store).zero = Some(now);
        let started = self.started.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(started) = started {
            let _ = started.send(now);
        }
    }

    /// The series so far on the run's clock (none before the run started).
    pub fn series(&self) -> Vec<CounterSeries> {
        let store = lock(&self.store);
        let Some(zero) = store.zero else { return Vec::new() };
        store
            .series
            .iter()
            .map(|k| CounterSeries {
                source: k.source.clone(),
                name: k.name.clone(),
                points: k.points.iter().map(|(at, v)| [seconds_since(zero, *at), *v]).collect(),
            })
            .collect()
    }

    /// Stops reading the databases and closes the sampler's connections to them at its next reading
    /// (`paused`), or reads them again, each from a new baseline: a database put back by a clone,
    /// which no session may be connected to, is a new database whose counters start again from zero.
    pub fn pause_databases(&self, paused: bool) {
        let mut store = lock(&self.store);
        store.dbs_paused = paused;
        store.dbs_pauses += u64::from(paused);
    }

    /// A handle the live metrics read the latest values through while the sampler runs.
    pub fn reader(&self) -> SamplerReader {
        SamplerReader { store: self.store.clone() }
    }

    /// Each database's server, and from when on the run's clock, as the readings so far found it.
    pub fn served(&self) -> Vec<ServedBy> {
        lock(&self.store).served.clone()
    }

    /// The notes so far of what was unavailable.
    pub fn notes(&self) -> Vec<String> {
        lock(&self.store).notes.clone()
    }

    /// Stops sampling; returns the series on the run's clock and the notes of what was unavailable.
    pub async fn finish(mut self) -> (Vec<CounterSeries>, Vec<String>) {
        let _ = self.stop.send(true);
        let _ = (&mut self.task).await;
        (self.series(), self.notes())
    }
}

/// Reads a running [`Sampler`]'s latest values from elsewhere (the metrics endpoint's task).
#[derive(Clone)]
pub struct SamplerReader {
    store: Arc<Mutex<Store>>,
}

impl SamplerReader {
    /// Each series' latest value: `(source, name, value)`.
    pub fn latest(&self) -> Vec<(String, String, f64)> {
        let store = lock(&self.store);
        store
            .series
            .iter()
            .filter_map(|k| Some((k.source.clone(), k.name.clone(), k.points.last()?.1)))
            .collect()
    }
}

fn lock(store: &Mutex<Store>) -> std::sync::MutexGuard<'_, Store> {
    store.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Seconds from `zero` to `at`, negative before it.
fn seconds_since(zero: Instant, at: Instant) -> f64 {
    if at >= zero { (at - zero).as_secs_f64() } else { -(zero - at).as_secs_f64() }
}

/// Puts `series` into `result` with each step's averages ([`step_averages`], the points `interval_s`
/// apart), and `notes` (what was unavailable) into its configuration as `counters_unavailable`.
pub fn attach(result: &mut RunResult, series: Vec<CounterSeries>, notes: Vec<String>, interval_s: f64) {
    step_averages(&series, &mut result.steps, interval_s);
    result.counters = series;
    if let (false, Some(config)) = (notes.is_empty(), result.config.as_object_mut()) {
        config.insert("counters_unavailable".into(), notes.into());
    }
}

/// Each counter's average over every step's window, keyed `<source>/<name>` ([`window_averages`]).
pub fn step_averages(series: &[CounterSeries], steps: &mut [Step], interval_s: f64) {
    for step in steps {
        step.counters.extend(window_averages(series, (step.window.start_s, step.window.end_s), interval_s));
    }
}

/// Each counter's average over `(start, end)` (seconds on the run's clock), keyed `<source>/<name>`:
/// the mean of the points whose span's middle lies within the window, each weighed by its span. A
/// point's span runs from the series' previous point, but no further back than `interval_s` (the
/// readings' period; a step's edges are read too, so spans may be shorter). A counter with no such
/// point is left out.
pub fn window_averages(
    series: &[CounterSeries],
    (start, end): (f64, f64),
    interval_s: f64,
) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for s in series {
        let (mut sum, mut span_sum) = (0.0, 0.0);
        let mut prev: Option<f64> = None;
        for &[t, v] in &s.points {
            let from = prev.map_or(t - interval_s, |p| p.max(t - interval_s));
            prev = Some(t);
            let span = t - from;
            if span > 0.0 && (start..=end).contains(&(t - span / 2.0)) {
                sum += v * span;
                span_sum += span;
            }
        }
        if span_sum > 0.0 {
            out.insert(format!("{}/{}", s.source, s.name), sum / span_sum);
        }
    }
    out
}

/// This machine, from `/proc`.
struct HostSource {
    source: String,
    prev: Option<(Instant, HostTotals)>,
    /// Devices said to have gone.
    gone: BTreeSet<String>,
}

/// A target over the sampler's own connection.
struct DbSource {
    source: String,
    target: Target,
    conn: Option<Conn>,
    state: DbState,
    prev: Option<(Instant, DbTotals)>,
    /// Said to be unreachable, and not yet back.
    down: bool,
}

impl DbSource {
    /// Reads the counters, first opening a connection when there is none (waiting at most `timeout`
    /// for it).
    async fn read(&mut self, timeout: Duration) -> Result<DbTotals, String> {
        let conn = match self.conn.take() {
            Some(conn) => conn,
            None => {
                let opened = tokio::time::timeout(timeout, Conn::open(&self.target)).await;
                // A new connection is named, and the server's version and name learnt, again.
                self.state.version = 0;
                self.state.server = None;
                match opened {
                    Ok(Ok(conn)) => conn,
                    Ok(Err(e)) => return Err(e.to_string()),
                    Err(_) => return Err(format!("no connection within {} s", timeout.as_secs_f64())),
                }
            }
        };
        let totals = conn.counters(&mut self.state).await;
        if totals.connection_lost {
            return Err("the connection was lost".into());
        }
        self.conn = Some(conn);
        Ok(totals)
    }
}

/// A node_exporter.
struct NodeSource {
    source: String,
    url: String,
    prev: Option<(Instant, HostTotals)>,
    /// Said to be unreachable, and not yet back.
    down: bool,
}

/// The sampler's task.
struct Task {
    store: Arc<Mutex<Store>>,
    client: Option<HostSource>,
    dbs: Vec<DbSource>,
    nodes: Vec<NodeSource>,
    interval: Duration,
    /// The pauses of the databases' readings seen so far.
    dbs_pauses: u64,
}

impl Task {
    /// Reads every source now, then each interval; when the run starts, once more at its start (unless
    /// the last reading was moments ago: then that reading is replaced) and from then on aligned with
    /// the run's intervals.
    async fn run(
        mut self,
        zero: tokio::sync::oneshot::Receiver<Instant>,
        now: Arc<tokio::sync::Notify>,
        mut stopped: tokio::sync::watch::Receiver<bool>,
    ) {
        let mut ticks = tokio::time::interval(self.interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // A run reads every interval: after it asked, the sampler's own tick waits half an interval
        // more, so it only comes when no run asks.
        let standby = self.interval + self.interval / 2;
        tokio::pin!(zero);
        let mut waiting = true;
        loop {
            tokio::select! {
                _ = ticks.tick() => self.read_all(true).await,
                () = now.notified() => {
                    // A reading moments ago (the sampler's own tick, on the run's grid) is the run's.
                    if self.last_read().is_none_or(|last| last.elapsed() >= self.interval / 10) {
                        self.read_all(true).await;
                        ticks.reset_at(Instant::now() + standby);
                    }
                }
                at = &mut zero, if waiting => {
                    waiting = false;
                    let Ok(at) = at else { continue };
                    let recent = self.last_read().is_some_and(|last| at.saturating_duration_since(last) < self.interval / 2);
                    self.read_all(!recent).await;
                    ticks.reset_at(at + self.interval);
                }
                _ = stopped.changed() => break,
            }
        }
    }

    /// When the sources were last read.
    fn last_read(&self) -> Option<Instant> {
        self.client
            .as_ref()
            .and_then(|c| c.prev.as_ref().map(|p| p.0))
            .or_else(|| self.dbs.iter().find_map(|d| d.prev.as_ref().map(|p| p.0)))
            .or_else(|| self.nodes.iter().find_map(|n| n.prev.as_ref().map(|p| p.0)))
    }

    /// Reads every source; with `emit`, the figures since each source's last reading go into the store.
    async fn read_all(&mut self, emit: bool) {
        // This machine first, then the others concurrently: each reading keeps the moment it was taken.
        let client = self.client.is_some().then(|| (Instant::now(), host::read_proc()));
        let timeout = self.interval.min(Duration::from_secs(5));
        let scrapes = futures_util::future::join_all(self.nodes.iter().map(|n| async {
            let scraped = node_exporter::scrape(n.url.clone(), timeout).await;
            (Instant::now(), scraped)
        }));
        // Paused: the connections closed, and the next reading after the pause a new baseline.
        let (paused, pauses) = {
            let store = lock(&self.store);
            (store.dbs_paused, store.dbs_pauses)
        };
        if pauses != self.dbs_pauses {
            self.dbs_pauses = pauses;
            for db in &mut self.dbs {
                db.conn = None;
                db.prev = None;
            }
        }
        let reads = futures_util::future::join_all(self.dbs.iter_mut().filter(|_| !paused).map(|d| async {
            let read = d.read(timeout).await;
            (Instant::now(), read)
        }));
        let (scraped, read) = tokio::join!(scrapes, reads);
        let mut store = lock(&self.store);
        if let (Some(source), Some((at, totals))) = (&mut self.client, client) {
            for dev in gone_devices(source.prev.as_ref().map(|p| &p.1), &totals, &mut source.gone) {
                store.note(&source.source, &format!("disk {dev} went away: its series stop"));
            }
            store.advance(&source.source, &mut source.prev, (at, totals), emit, host::figures);
        }
        for (db, (at, read)) in self.dbs.iter_mut().zip(read) {
            match read {
                Ok(totals) => {
                    db.down = false;
                    for why in &totals.unavailable {
                        store.note(&db.source, &format!("{why} (unavailable)"));
                    }
                    if let Some(server) = &db.state.server {
                        store.served(&db.source, at, server);
                    }
                    store.advance(&db.source, &mut db.prev, (at, totals), emit, db_figures);
                }
                Err(e) => store.missing(
                    &db.source,
                    &mut db.down,
                    &mut db.prev,
                    &format!("cannot read its counters: {e}"),
                ),
            }
        }
        for (node, (at, scraped)) in self.nodes.iter_mut().zip(scraped) {
            match scraped {
                Ok(totals) => {
                    node.down = false;
                    store.advance(&node.source, &mut node.prev, (at, totals), emit, host::figures);
                }
                Err(e) => store.missing(
                    &node.source,
                    &mut node.down,
                    &mut node.prev,
                    &format!("cannot scrape it: {e}"),
                ),
            }
        }
    }
}

/// Devices in `before` that are not in `after`, not already in `said` (which they are added to).
fn gone_devices(before: Option<&HostTotals>, after: &HostTotals, said: &mut BTreeSet<String>) -> Vec<String> {
    let Some(before) = before else { return Vec::new() };
    before
        .disks
        .keys()
        .filter(|d| !after.disks.contains_key(*d) && said.insert((*d).clone()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use oltpgen_report::model::step::StepPlan;
    use oltpgen_report::model::{Window, Workload};

    fn db(totals: &[(&'static str, f64)], gauges: &[(&'static str, f64)]) -> DbTotals {
        DbTotals {
            totals: totals.iter().copied().collect(),
            gauges: gauges.iter().copied().collect(),
            ..DbTotals::default()
        }
    }

    #[test]
    fn database_totals_become_rates_and_a_hit_ratio() {
        let a =
            db(&[("commits", 100.0), ("blocks_hit", 900.0), ("blocks_read", 100.0), ("wal_bytes", 5.0)], &[]);
        let b = db(
            &[("commits", 300.0), ("blocks_hit", 1280.0), ("blocks_read", 120.0), ("wal_bytes", 1.0)],
            &[("active_backends", 4.0)],
        );
        let f: BTreeMap<String, f64> = db_figures(&a, &b, 2.0).into_iter().collect();
        assert_eq!(f["commits_per_s"], 100.0);
        assert_eq!(f["buffer_hit_pct"], 95.0);
        assert_eq!(f["blocks_read_per_s"], 10.0);
        assert_eq!(f["active_backends"], 4.0);
        assert!(!f.contains_key("wal_bytes_per_s"), "a reset leaves the interval out");
    }

    #[test]
    fn a_stall_total_becomes_the_average_ms_per_operation() {
        let a = db(
            &[("data_file_reads", 10.0), ("data_file_reads_stall_ms", 50.0), ("log_file_writes", 4.0)],
            &[],
        );
        let b = db(
            &[("data_file_reads", 30.0), ("data_file_reads_stall_ms", 150.0), ("log_file_writes", 4.0)],
            &[("buffer_hit_pct", 99.5)],
        );
        let f: BTreeMap<String, f64> = db_figures(&a, &b, 2.0).into_iter().collect();
        assert_eq!(f["data_file_reads_per_s"], 10.0);
        assert_eq!(f["data_file_reads_avg_ms"], 5.0, "100 ms of stall over 20 reads");
        assert!(!f.contains_key("data_file_reads_stall_ms_per_s"), "a stall is an average, not a rate");
        assert_eq!(f["log_file_writes_per_s"], 0.0);
        assert_eq!(f["buffer_hit_pct"], 99.5, "a hit ratio the engine reads as a value is kept");
    }

    #[test]
    fn a_step_averages_the_points_whose_interval_lies_in_its_window() {
        let series = vec![CounterSeries {
            source: "client".into(),
            name: "cpu_pct".into(),
            points: vec![[-1.0, 1.0], [1.01, 10.0], [2.02, 20.0], [3.01, 30.0], [4.0, 90.0]],
        }];
        let plan = StepPlan {
            index: 0,
            run: 1,
            users: 1,
            connections: 1,
            ramp_up_s: 0.0,
            duration_s: 2.0,
            window: Window { start_s: 1.0, end_s: 3.0 },
        };
        let mut steps = vec![Step::new(Workload::Tpcc, plan, BTreeMap::new())];
        step_averages(&series, &mut steps, 1.0);
        // 20 over 1 s, 30 over 0.99 s.
        let expected = (20.0 + 30.0 * 0.99) / 1.99;
        assert!((steps[0].counters["client/cpu_pct"] - expected).abs() < 1e-9, "{:?}", steps[0].counters);
    }

    #[test]
    fn a_step_shorter_than_the_interval_averages_its_edge_readings() {
        // Issue 35: a 5 s step (1 s to 6 s) at a 10 s interval, read at its edges and on the grid.
        let series = vec![CounterSeries {
            source: "client".into(),
            name: "cpu_pct".into(),
            points: vec![[0.0, 5.0], [1.0, 7.0], [6.0, 40.0], [10.0, 3.0]],
        }];
        let averages = window_averages(&series, (1.0, 6.0), 10.0);
        assert_eq!(averages["client/cpu_pct"], 40.0, "the reading over the window alone: {averages:?}");
        // Read only on the grid, a run that ended at 6 s has no reading of the step: left out, not 0.
        let grid = vec![CounterSeries { points: vec![[0.0, 5.0]], ..series[0].clone() }];
        assert!(window_averages(&grid, (1.0, 6.0), 10.0).is_empty());
    }

    #[tokio::test]
    async fn the_sampler_reads_this_machine_on_the_run_s_clock_from_before_its_start() {
        let sources = Sources { client: true, ..Sources::default() };
        let sampler = Sampler::start(sources, Duration::from_millis(300)).await;
        tokio::time::sleep(Duration::from_millis(750)).await;
        assert!(sampler.series().is_empty(), "no clock before the run starts");
        sampler.run_started();
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let (series, notes) = sampler.finish().await;
        assert!(notes.is_empty(), "{notes:?}");
        let cpu = series.iter().find(|s| s.source == "client" && s.name == "cpu_pct").expect("cpu_pct");
        let times: Vec<f64> = cpu.points.iter().map(|p| p[0]).collect();
        assert!(times.first().is_some_and(|t| *t < 0.0), "sampled before the run started: {times:?}");
        // From the start, on multiples of the interval as the run's own lines are (a busy machine
        // wakes the sampler late, never early).
        let after: Vec<f64> = times.iter().copied().filter(|t| *t >= 0.0).collect();
        assert!(after.len() >= 2, "{times:?}");
        assert!(after.iter().all(|t| t - 0.3 * (t / 0.3).floor() < 0.15), "{times:?}");
        assert!(cpu.points.iter().all(|p| (0.0..=100.0).contains(&p[1])), "{:?}", cpu.points);
        assert!(series.iter().any(|s| s.name == "mem_used_bytes"));
    }

    #[tokio::test]
    async fn the_sampler_reads_when_the_run_asks() {
        let sources = Sources { client: true, ..Sources::default() };
        let sampler = Sampler::start(sources, Duration::from_secs(10)).await;
        sampler.run_started();
        for _ in 0..2 {
            tokio::time::sleep(Duration::from_millis(1_200)).await;
            sampler.read_now();
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (series, _) = sampler.finish().await;
        let cpu = series.iter().find(|s| s.name == "cpu_pct").expect("cpu_pct");
        let times: Vec<f64> = cpu.points.iter().map(|p| p[0]).collect();
        assert_eq!(times.len(), 2, "a reading each time the run asked, none of its own: {times:?}");
        assert!((times[0] - 1.2).abs() < 0.2 && (times[1] - 2.4).abs() < 0.3, "{times:?}");
    }

    #[test]
    fn a_device_that_goes_away_is_said_once() {
        let mut before = HostTotals::default();
        before.disks.insert("sdb".into(), host::DiskTotals::default());
        let mut said = BTreeSet::new();
        assert_eq!(gone_devices(Some(&before), &HostTotals::default(), &mut said), ["sdb"]);
        assert!(gone_devices(Some(&before), &HostTotals::default(), &mut said).is_empty());
    }
}
