//! The collector: the one place samples are turned into histograms, off the users' hot path.
//!
//! It keeps one histogram per target and transaction type for each step's measured window, one per
//! target and type for the current reporting interval (reset at every tick), and one of wake-up
//! lateness: a handful of histograms however many users run.
//!
//! With several client threads each shard of users has a collector of its own on its own thread; the
//! run's collector takes each shard's share ([`Collector::take`]) once per interval and before a step is
//! judged, and adds it in ([`Collector::merge`]): histograms and counts merge exactly, so the figures are
//! the same as one collector's that took in every sample.

use std::collections::BTreeMap;
use std::ops::Range;

use oltpgen_report::model::histogram::LatencyHistogram;

use oltpgen_report::model::outage::Outage;
use oltpgen_report::model::step::Transactions;
use oltpgen_report::model::{IntervalRow, TxnCounters, TxnStats};

use crate::workload::Kinds;

use super::outage::Timeline;
use super::sample::{AuditSample, Sample, Status};
use super::since_reset::{SinceReset, Totals};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Ack, Acks};

#[derive(Default)]
struct Tally {
    histogram: LatencyHistogram,
    counters: TxnCounters,
}

impl Tally {
    fn add(&mut self, s: &Sample) {
        self.counters.retries += u64::from(s.retries);
        match s.status {
            Status::Committed => self.histogram.record_us(u64::from(s.latency_us)),
            Status::RolledBack => {
                self.histogram.record_us(u64::from(s.latency_us));
                self.counters.rollbacks += 1;
            }
            Status::Failed(_) => self.counters.errors += 1,
        }
    }

    fn merge(&mut self, other: &Tally) {
        self.histogram.add(&other.histogram);
        self.counters.rollbacks += other.counters.rollbacks;
        self.counters.errors += other.counters.errors;
        self.counters.retries += other.counters.retries;
    }

    fn figures(&self) -> KindInterval {
        let h = &self.histogram;
        KindInterval {
            count: h.count(),
            rollbacks: self.counters.rollbacks,
            errors: self.counters.errors,
            avg_ms: h.mean_us() / 1e3,
            p95_ms: h.percentile_us(95.0) as f64 / 1e3,
            max_ms: h.max_us() as f64 / 1e3,
            at_or_below: h.counts_at_or_below(&LATENCY_BUCKETS_US),
        }
    }
}

/// The response-time bounds, µs, that each interval counts transactions at or below: the live
/// metrics' histogram buckets, which the page's renderer defines.
pub use oltpgen_report::render::prometheus::LATENCY_BUCKETS_US;

/// One transaction type in one reporting interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KindInterval {
    /// Completed (committed or rolled back).
    pub count: u64,
    /// Of `count`, rolled back as expected.
    pub rollbacks: u64,
    /// Failed.
    pub errors: u64,
    /// Mean response time, ms.
    pub avg_ms: f64,
    /// 95th percentile response time, ms.
    pub p95_ms: f64,
    /// Largest response time, ms.
    pub max_ms: f64,
    /// Of `count`, how many took at most each of [`LATENCY_BUCKETS_US`].
    pub at_or_below: [u64; LATENCY_BUCKETS_US.len()],
}

/// The figures of one reporting interval, for the live line and the time series.
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalFigures {
    /// Seconds since the run began, at the interval's end.
    pub elapsed_s: f64,
    /// The interval's length, seconds.
    pub span_s: f64,
    /// Users running.
    pub users: u64,
    /// Completed business transactions per second (DS2's composite order left out).
    pub tps: f64,
    /// The per-minute type (New-Order, DS2's order) per minute, counted as the workload counts it.
    pub per_minute: f64,
    /// Average response time of business transactions, ms.
    pub avg_ms: f64,
    /// 95th percentile response time of business transactions, ms.
    pub p95_ms: f64,
    /// Failed transactions.
    pub errors: u64,
    /// Per transaction type, over every target, in the workload's order.
    pub kinds: Vec<KindInterval>,
    /// Per target, per transaction type (empty with one target).
    pub targets: Vec<Vec<KindInterval>>,
    /// The same per transaction type, as the result's time series holds them.
    pub rows: Vec<IntervalRow>,
    /// Running totals since the statistics were last reset (DS2's progress line), over every target.
    pub since_reset: SinceReset,
    /// The same per target (empty with one target).
    pub targets_since_reset: Vec<SinceReset>,
    /// Failures since the run began by kind (the live metrics' `oltpgen_errors_total`).
    pub errors_by_kind: BTreeMap<String, u64>,
    /// An open loop's arrivals in the interval (`None` in a closed loop): the live line's lag and drops.
    pub arrivals: Option<ArrivalTally>,
    /// The `--find-max` probe under way at the interval's end, as the live line names it (its role and
    /// load: `grow 32 users`, `bisect 300/s`); `None` in a sweep.
    pub probe: Option<String>,
}

/// One step's measured window and what completed within it, per target and type.
struct Window {
    ms: Range<u32>,
    /// Per target × type; empty until a sample lands in the window (a shard's share of an interval
    /// mostly touches no window, and a histogram is large).
    tallies: Vec<Tally>,
    /// Made when the first late wake lands in the window.
    lateness: Option<LatencyHistogram>,
    /// The workload's audit counters per target × counter.
    audit: Vec<u64>,
    /// Transactions (or operations) that lost their connection within the window, per target.
    connections_lost: Vec<u64>,
    /// The arrivals of an open loop (`--rate`) in the window, made when the first lands in it.
    arrivals: Option<Box<ArrivalTally>>,
}

/// Why an arrival was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// It could not start within `--max-lag` of its arrival.
    Lag,
    /// Its user's queue was full.
    Overflow,
}

/// What an open loop's arrivals did within a window or an interval: how late they started after they
/// came (their lag), how long they then ran, how many completed, how many were dropped and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArrivalTally {
    /// From each completed arrival's scheduled arrival to its start, µs.
    pub lag: LatencyHistogram,
    /// From each completed arrival's start to its end, µs.
    pub service: LatencyHistogram,
    /// Arrivals that completed.
    pub completed: u64,
    /// Arrivals whose transaction failed.
    pub failed: u64,
    /// Arrivals dropped for `--max-lag`.
    pub dropped_lag: u64,
    /// Arrivals dropped because their user's queue was full.
    pub dropped_overflow: u64,
}

impl IntervalFigures {
    /// What the interval's live line adds during a `--find-max` probe: the probe's role and load, so the
    /// search can be followed as it goes (nothing in a sweep).
    pub fn probe_note(&self) -> String {
        self.probe.as_ref().map_or(String::new(), |p| format!("  {p}"))
    }

    /// What the interval's live line adds for an open loop: its lag and drops (nothing in a closed one).
    pub fn arrivals_note(&self) -> String {
        let Some(a) = &self.arrivals else { return String::new() };
        let lag = (!a.lag.is_empty())
            .then(|| (a.lag.percentile_us(99.0) as f64 / 1e3, a.lag.max_us() as f64 / 1e3));
        oltpgen_report::render::text::live::arrivals_note(lag, Some(a.dropped_lag + a.dropped_overflow))
    }
}

impl ArrivalTally {
    /// Adds `other` in, exactly.
    pub fn merge(&mut self, other: &ArrivalTally) {
        self.lag.add(&other.lag);
        self.service.add(&other.service);
        self.completed += other.completed;
        self.failed += other.failed;
        self.dropped_lag += other.dropped_lag;
        self.dropped_overflow += other.dropped_overflow;
    }

    /// Takes in one arrival that was served: it completed, or (`failed`) its transaction failed.
    fn arrived(&mut self, lag_us: u32, service_us: u32, failed: bool) {
        if failed {
            self.failed += 1;
            return;
        }
        self.lag.record_us(u64::from(lag_us));
        self.service.record_us(u64::from(service_us));
        self.completed += 1;
    }

    /// Takes in one arrival dropped for `why`.
    fn dropped(&mut self, why: Dropped) {
        match why {
            Dropped::Lag => self.dropped_lag += 1,
            Dropped::Overflow => self.dropped_overflow += 1,
        }
    }
}

impl Window {
    /// The window `ms`, nothing in it yet, with `audit` audit counters and `targets` targets.
    fn new(ms: Range<u32>, audit: usize, targets: usize) -> Window {
        Window {
            ms,
            tallies: Vec::new(),
            lateness: None,
            audit: vec![0; audit],
            connections_lost: vec![0; targets],
            arrivals: None,
        }
    }
}

/// Sorts samples into the measured windows' and the current interval's tallies.
pub struct Collector {
    kinds: &'static [&'static str],
    /// The composite type (DS2's order), whose failures are the errors: each failed order counts once,
    /// whether an operation of it failed or it failed before any (a connection that would not open).
    composite: Option<usize>,
    /// The type that times the composite again as the sum of its operations (DS2's `rt_tot`).
    sum: Option<usize>,
    per_minute_kind: usize,
    targets: usize,
    audit: &'static [&'static str],
    windows: Vec<Window>,
    interval: Vec<Tally>,
    interval_start_s: f64,
    /// Since the last reset (a window's edge).
    totals: Totals,
    errors_by_kind: BTreeMap<String, u64>,
    completed: u64,
    orders: u64,
    /// Completions and failures per tenth of a second, where outages are found.
    timeline: Timeline,
    /// Every order the database acknowledged, to find those a failover lost.
    acks: Acks,
    /// The open loop's arrivals in the current interval.
    interval_arrivals: Option<ArrivalTally>,
}

fn tallies(n: usize) -> Vec<Tally> {
    (0..n).map(|_| Tally::default()).collect()
}

/// `cells`, made `n` empty tallies first if it has none yet.
fn made(cells: &mut Vec<Tally>, n: usize) -> &mut Vec<Tally> {
    if cells.is_empty() {
        *cells = tallies(n);
    }
    cells
}

/// Adds `other`'s tallies to `mine`, cell by cell (nothing when `other` has none).
fn merge_cells(mine: &mut Vec<Tally>, other: &[Tally]) {
    if !other.is_empty() {
        for (m, o) in made(mine, other.len()).iter_mut().zip(other) {
            m.merge(o);
        }
    }
}

impl Collector {
    /// A collector of a workload's transaction types `kinds` on `targets` targets, counting
    /// the per-minute type per minute, summing the audit counters, and measuring, per step, the samples that complete within its
    /// window (ms since the run began; the windows do not overlap).
    pub fn new(kinds: Kinds, targets: usize, windows_ms: &[Range<u32>]) -> Self {
        let (names, audit) = (kinds.names, kinds.audit);
        let cells = names.len() * targets.max(1);
        let audit_cells = audit.len() * targets.max(1);
        Collector {
            kinds: names,
            composite: kinds.composite,
            sum: kinds.sum,
            per_minute_kind: kinds.per_minute,
            targets: targets.max(1),
            audit,
            windows: windows_ms
                .iter()
                .map(|ms| Window::new(ms.clone(), audit_cells, targets.max(1)))
                .collect(),
            interval: tallies(cells),
            interval_start_s: 0.0,
            totals: Totals::new(names.len(), targets, windows_ms),
            errors_by_kind: BTreeMap::new(),
            completed: 0,
            orders: 0,
            timeline: Timeline::default(),
            acks: Acks::default(),
            interval_arrivals: None,
        }
    }

    /// Measures one more step, whose window `ms` comes after every other's: a step the run decided
    /// after it began.
    pub fn add_window(&mut self, ms: Range<u32>) {
        self.totals.add_resets(&ms);
        self.windows.push(Window::new(ms, self.audit.len() * self.targets, self.targets));
    }

    /// Takes in a batch's audit increments, each into the window its transaction completed in, under
    /// its target.
    pub fn absorb_audit(&mut self, batch: &[AuditSample]) {
        let names = self.audit.len();
        for a in batch {
            if let Some(w) = self.windows.iter_mut().find(|w| w.ms.contains(&a.done_ms)) {
                let at = usize::from(a.target) * names;
                for (sum, n) in w.audit[at..at + names].iter_mut().zip(a.counts) {
                    *sum += u64::from(n);
                }
            }
        }
    }

    /// Step `step`'s audit counters per target (in the workload's target order), by name: each
    /// database is audited on its own warehouses.
    pub fn window_audit(&self, step: usize) -> Vec<BTreeMap<String, u64>> {
        let names = self.audit.len().max(1);
        self.windows[step]
            .audit
            .chunks(names)
            .map(|counts| self.audit.iter().map(|n| n.to_string()).zip(counts.iter().copied()).collect())
            .collect()
    }

    /// Tallies per target × type.
    fn cells(&self) -> usize {
        self.kinds.len() * self.targets
    }

    /// An empty collector of the same workload, targets and windows, its interval starting where this
    /// one's does: what a shard starts from, and records into after handing over its share.
    pub fn fresh(&self) -> Collector {
        Collector {
            kinds: self.kinds,
            composite: self.composite,
            sum: self.sum,
            per_minute_kind: self.per_minute_kind,
            targets: self.targets,
            audit: self.audit,
            windows: self
                .windows
                .iter()
                .map(|w| Window::new(w.ms.clone(), w.audit.len(), self.targets))
                .collect(),
            interval: Vec::new(),
            interval_start_s: self.interval_start_s,
            totals: self.totals.fresh(),
            errors_by_kind: BTreeMap::new(),
            completed: 0,
            orders: 0,
            timeline: Timeline::default(),
            acks: Acks::default(),
            interval_arrivals: None,
        }
    }

    /// Hands over everything taken in since the last take, leaving this collector empty: a shard's
    /// share, which the run's collector adds in with [`merge`](Self::merge).
    pub fn take(&mut self) -> Collector {
        let fresh = self.fresh();
        std::mem::replace(self, fresh)
    }

    /// Adds in `share`, which another collector of the same workload, targets and windows took in (a
    /// shard's, from [`take`](Self::take)): histograms, counters, audit sums and running totals add
    /// exactly, so the figures are those of one collector that took in both's samples.
    pub fn merge(&mut self, share: &Collector) {
        merge_cells(&mut self.interval, &share.interval);
        for (mine, theirs) in self.windows.iter_mut().zip(&share.windows) {
            merge_cells(&mut mine.tallies, &theirs.tallies);
            if let Some(late) = &theirs.lateness {
                mine.lateness.get_or_insert_with(LatencyHistogram::new).add(late);
            }
            for (sum, n) in mine.audit.iter_mut().zip(&theirs.audit) {
                *sum += n;
            }
            for (sum, n) in mine.connections_lost.iter_mut().zip(&theirs.connections_lost) {
                *sum += n;
            }
            if let Some(a) = &theirs.arrivals {
                mine.arrivals.get_or_insert_default().merge(a);
            }
        }
        if let Some(a) = &share.interval_arrivals {
            self.interval_arrivals.get_or_insert_default().merge(a);
        }
        self.totals.merge(&share.totals);
        for (kind, n) in &share.errors_by_kind {
            *self.errors_by_kind.entry(kind.clone()).or_default() += n;
        }
        self.completed += share.completed;
        self.orders += share.orders;
        self.timeline.merge(&share.timeline);
        self.acks.extend(&share.acks);
    }

    /// Takes in a batch of samples.
    pub fn absorb(&mut self, batch: &[Sample]) {
        for s in batch {
            self.record(s);
        }
    }

    /// Takes in one transaction's sample, as a user's turn ends on its shard.
    #[inline]
    pub fn record(&mut self, s: &Sample) {
        let cells = self.cells();
        let cell = usize::from(s.target) * self.kinds.len() + usize::from(s.kind);
        made(&mut self.interval, cells)[cell].add(s);
        self.totals.add(s);
        let whole = self.composite.is_none_or(|c| c == usize::from(s.kind));
        match s.status {
            Status::Failed(fault) if whole => {
                *self.errors_by_kind.entry(fault.name().to_string()).or_default() += 1;
                self.timeline.failed(usize::from(s.kind), s.done_ms, fault == Fault::ConnectionLost);
            }
            Status::Failed(_) => {}
            _ if self.composite == Some(usize::from(s.kind)) => self.orders += 1,
            // DS2's rt_tot is the same order again, timed as DS2 times it.
            _ if self.sum == Some(usize::from(s.kind)) => {}
            _ => {
                self.completed += 1;
                self.timeline.completed(s.done_ms);
            }
        }
        if let Some(w) = self.windows.iter_mut().find(|w| w.ms.contains(&s.done_ms)) {
            made(&mut w.tallies, cells)[cell].add(s);
            if s.status == Status::Failed(Fault::ConnectionLost) {
                w.connections_lost[usize::from(s.target)] += 1;
            }
        }
    }

    /// Takes in how late a user woke (µs) from a keying or think time that ended at `at_ms` (ms since
    /// the run began): measured when the user wakes, whether or not its transaction then completes (a
    /// user waiting for a busy pool's connection may not), in the window it woke in. An on-time wake
    /// (0) is not a late one.
    pub fn record_late(&mut self, at_ms: u32, late_us: u32) {
        if late_us == 0 {
            return;
        }
        if let Some(w) = self.windows.iter_mut().find(|w| w.ms.contains(&at_ms)) {
            w.lateness.get_or_insert_with(LatencyHistogram::new).record_us(u64::from(late_us));
        }
    }

    /// Takes in an open loop's arrival, due at `due_ms` (ms since the run began), that was served:
    /// `lag_us` after it came it started, `service_us` later it completed (or, `failed`, its transaction
    /// failed). It counts in the window it was due in, as a drop does, wherever it ended: a window's
    /// arrivals are those it offered (the live line's are those that ended in the interval).
    pub fn record_arrival(&mut self, due_ms: u32, lag_us: u32, service_us: u32, failed: bool) {
        self.interval_arrivals.get_or_insert_default().arrived(lag_us, service_us, failed);
        if let Some(w) = self.windows.iter_mut().find(|w| w.ms.contains(&due_ms)) {
            w.arrivals.get_or_insert_default().arrived(lag_us, service_us, failed);
        }
    }

    /// Takes in an open loop's arrival, scheduled at `at_ms`, dropped for `why`.
    pub fn record_drop(&mut self, at_ms: u32, why: Dropped) {
        self.interval_arrivals.get_or_insert_default().dropped(why);
        if let Some(w) = self.windows.iter_mut().find(|w| w.ms.contains(&at_ms)) {
            w.arrivals.get_or_insert_default().dropped(why);
        }
    }

    /// Step `step`'s arrivals, when it ran an open loop (`None` in a closed one).
    pub fn window_arrivals(&self, step: usize) -> Option<&ArrivalTally> {
        self.windows[step].arrivals.as_deref()
    }

    /// Per-type tallies summed over the targets.
    fn totals(&self, cells: &[Tally]) -> Vec<Tally> {
        let mut total = tallies(self.kinds.len());
        for (i, t) in cells.iter().enumerate() {
            total[i % self.kinds.len()].merge(t);
        }
        total
    }

    /// Closes the current interval at `elapsed_s` with `users` running, and starts the next.
    pub fn tick(&mut self, elapsed_s: f64, users: u64) -> IntervalFigures {
        let span_s = (elapsed_s - self.interval_start_s).max(1e-9);
        self.interval_start_s = elapsed_s;
        let cells = self.cells();
        made(&mut self.interval, cells);
        let total = self.totals(&self.interval);
        let mut all = LatencyHistogram::new();
        let mut errors = 0;
        let mut rows = Vec::with_capacity(self.kinds.len());
        let mut kinds = Vec::with_capacity(self.kinds.len());
        for (i, (name, t)) in self.kinds.iter().zip(&total).enumerate() {
            // DS2's order (and its rt_tot) is made of the other operations: its time is counted once,
            // through them; its failures are the errors (a failed order counts once, however it failed).
            if self.composite != Some(i) && self.sum != Some(i) {
                all.add(&t.histogram);
            }
            if self.composite.is_none_or(|c| c == i) {
                errors += t.counters.errors;
            }
            let k = t.figures();
            rows.push(IntervalRow {
                elapsed_s,
                users,
                txn: (*name).to_string(),
                count: k.count,
                tps: k.count as f64 / span_s,
                avg_ms: k.avg_ms,
                p95_ms: k.p95_ms,
                errors: k.errors,
            });
            kinds.push(k);
        }
        let pm = &kinds[self.per_minute_kind];
        // Every completed one counts, rolled back or not (New-Orders rolled back by the spec's 1%, DS2's
        // orders short of stock).
        let per_minute = pm.count as f64 * 60.0 / span_s;
        let targets = if self.targets > 1 {
            self.interval.chunks(self.kinds.len()).map(|ts| ts.iter().map(Tally::figures).collect()).collect()
        } else {
            Vec::new()
        };
        self.interval = tallies(self.interval.len());
        let (since_reset, targets_since_reset) = self.totals.at(elapsed_s);
        IntervalFigures {
            elapsed_s,
            span_s,
            users,
            tps: all.count() as f64 / span_s,
            per_minute,
            avg_ms: all.mean_us() / 1e3,
            p95_ms: all.percentile_us(95.0) as f64 / 1e3,
            errors,
            kinds,
            targets,
            rows,
            since_reset,
            targets_since_reset,
            errors_by_kind: self.errors_by_kind.clone(),
            arrivals: self.interval_arrivals.take(),
            probe: None,
        }
    }

    /// Step `step`'s statistics per target (in the workload's target order) and transaction type.
    pub fn window_transactions(&self, step: usize) -> Vec<Transactions> {
        let none = tallies(if self.windows[step].tallies.is_empty() { self.cells() } else { 0 });
        let cells = if none.is_empty() { &self.windows[step].tallies } else { &none };
        cells
            .chunks(self.kinds.len())
            .map(|ts| {
                self.kinds
                    .iter()
                    .zip(ts)
                    .map(|(name, t)| ((*name).to_string(), TxnStats::new(t.histogram.clone(), t.counters)))
                    .collect()
            })
            .collect()
    }

    /// How many transactions (or operations) of step `step` lost their connection in its window, per
    /// target (in the workload's target order): that target's server was unreachable for part of it.
    pub fn window_connections_lost(&self, step: usize) -> &[u64] {
        &self.windows[step].connections_lost
    }

    /// How late users woke from keying and think times within the measured windows.
    pub fn lateness(&self) -> LatencyHistogram {
        let mut all = LatencyHistogram::new();
        for late in self.windows.iter().filter_map(|w| w.lateness.as_ref()) {
            all.add(late);
        }
        all
    }

    /// Failed transactions of the whole run by kind of failure.
    pub fn errors_by_kind(&self) -> &BTreeMap<String, u64> {
        &self.errors_by_kind
    }

    /// Completed business transactions of the whole run (for the client's CPU per transaction); DS2's
    /// composite orders are counted apart, in [`orders`](Self::orders).
    pub fn completed(&self) -> u64 {
        self.completed
    }

    /// The run's outages (it ended at `end`), each with its throughput before taken over the reporting
    /// interval `before` it.
    pub fn outages(&self, before: std::time::Duration, end: std::time::Duration) -> Vec<Outage> {
        self.timeline.outages(self.kinds, before, end)
    }

    /// Keeps an order the database acknowledged.
    pub fn acknowledged(&mut self, ack: Ack) {
        self.acks.push(ack);
    }

    /// Every order the database acknowledged, handed over.
    pub fn take_acks(&mut self) -> Acks {
        std::mem::take(&mut self.acks)
    }

    /// Completed composite orders (DS2) of the whole run, for the client's CPU per order.
    pub fn orders(&self) -> u64 {
        self.orders
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oltpgen_report::model::{ORDER, RT_TOT};

    const KINDS: &[&str] = &["a", "b"];

    fn s(kind: u8, status: Status, latency_us: u32, done_ms: u32) -> Sample {
        on(0, kind, status, latency_us, done_ms)
    }

    fn on(target: u8, kind: u8, status: Status, latency_us: u32, done_ms: u32) -> Sample {
        Sample { kind, target, retries: 1, status, latency_us, done_ms }
    }

    #[test]
    fn only_the_window_is_measured_and_errors_stay_out_of_histograms() {
        let mut c =
            Collector::new(Kinds { per_minute: 0, ..Kinds::plain(KINDS) }, 1, &[1000..2000, 3000..4000]);
        c.absorb(&[
            s(0, Status::Committed, 100, 500),
            s(0, Status::Committed, 200, 1500),
            s(0, Status::RolledBack, 300, 1600),
            s(1, Status::Failed(Fault::ConnectionLost), 9, 1700),
        ]);
        c.absorb(&[s(1, Status::Committed, 50, 3500)]);
        let w = &c.window_transactions(0)[0];
        assert_eq!((w["a"].count, w["a"].rollbacks, w["a"].retries), (2, 1, 2));
        assert_eq!(c.window_transactions(1)[0]["b"].count, 1, "each step keeps its own window");
        assert_eq!((w["b"].count, w["b"].errors), (0, 1));
        assert_eq!(c.errors_by_kind()["connection_lost"], 1);
        assert_eq!((c.window_connections_lost(0), c.window_connections_lost(1)), (&[1][..], &[0][..]));
        assert_eq!(c.completed(), 4);
        let live = c.tick(2.0, 4);
        assert_eq!(live.tps, 2.0);
        assert_eq!(live.per_minute, 90.0, "3 of kind a in 2 s, the rolled-back one included (5.4.2)");
        assert_eq!(live.errors, 1);
        assert!(live.targets.is_empty(), "one target: totals only");
        assert_eq!(c.tick(4.0, 4).tps, 0.0, "the interval starts afresh");
    }

    #[test]
    fn an_arrival_counts_in_the_window_it_was_due_in_wherever_it_ended() {
        let mut c = Collector::new(Kinds::plain(KINDS), 1, &[1000..2000, 2000..3000]);
        // Due at 1990 ms, it ends after the first window: still the first's.
        c.record_arrival(1990, 5_000, 300_000, false);
        c.record_arrival(1500, 0, 1_000, true);
        c.record_arrival(2500, 0, 1_000, false);
        c.record_drop(2600, Dropped::Lag);
        let first = c.window_arrivals(0).unwrap();
        assert_eq!(
            (first.completed, first.failed, first.service.count()),
            (1, 1, 1),
            "a failure has no times"
        );
        let second = c.window_arrivals(1).unwrap();
        assert_eq!((second.completed, second.dropped_lag), (1, 1));
    }

    #[test]
    fn targets_are_kept_apart_and_ds2_orders_count_rollbacks_but_not_as_transactions() {
        const DS2: &[&str] = &["purchase", ORDER];
        let mut c = Collector::new(
            Kinds { composite: Some(1), per_minute: 1, ..Kinds::plain(DS2) },
            2,
            &[0..5_000, 5_000..10_000],
        );
        c.absorb(&[
            on(0, 0, Status::Committed, 1_000, 100),
            on(0, 1, Status::Committed, 3_000, 100),
            on(1, 0, Status::RolledBack, 2_000, 200),
            on(1, 1, Status::RolledBack, 5_000, 200),
        ]);
        let w = c.window_transactions(0);
        assert_eq!(w.len(), 2);
        assert_eq!((w[0][ORDER].count, w[1][ORDER].count, w[1][ORDER].rollbacks), (1, 1, 1));
        assert_eq!((c.completed(), c.orders()), (2, 2), "orders are not transactions");
        let live = c.tick(1.0, 2);
        assert_eq!(live.per_minute, 120.0, "a rolled-back order still counts in OPM");
        assert_eq!(live.tps, 2.0, "the composite order is not counted twice");
        assert!((live.avg_ms - 1.5).abs() < 0.01, "{}", live.avg_ms);
        assert_eq!(live.targets.len(), 2);
        assert_eq!((live.targets[1][1].count, live.targets[1][1].rollbacks), (1, 1));
        assert!((live.kinds[1].max_ms - 5.0).abs() < 0.01);

        // DS2's rt_tot is the same orders again: neither a transaction nor an order of its own.
        let kinds = Kinds {
            composite: Some(1),
            sum: Some(2),
            per_minute: 1,
            ..Kinds::plain(&["purchase", ORDER, RT_TOT])
        };
        let mut d = Collector::new(kinds, 1, std::slice::from_ref(&(0..5_000)));
        d.absorb(&[
            on(0, 0, Status::Committed, 1_000, 100),
            on(0, 1, Status::Committed, 3_000, 100),
            on(0, 2, Status::Committed, 1_000, 100),
        ]);
        assert_eq!((d.completed(), d.orders()), (1, 1));
        let live = d.tick(1.0, 1);
        assert_eq!((live.tps, live.per_minute), (1.0, 60.0));
        assert!((live.avg_ms - 1.0).abs() < 0.01, "{}", live.avg_ms);
        let since = &live.since_reset;
        assert_eq!((since.kinds[1].count, since.kinds[2].count), (1, 1));
        assert!((since.kinds[1].avg_ms - 3.0).abs() < 0.01 && (since.kinds[2].avg_ms - 1.0).abs() < 0.01);
        assert_eq!(d.tick(2.0, 1).since_reset.kinds[2].count, 1, "running totals outlive the interval");

        // A failed order counts once, whether an operation of it failed or none ran.
        let lost = Status::Failed(Fault::ConnectionLost);
        c.absorb(&[on(0, 0, lost, 10, 300), on(0, 1, lost, 10, 300), on(1, 1, lost, 10, 400)]);
        assert_eq!(c.errors_by_kind()["connection_lost"], 2);
        assert_eq!(c.tick(2.0, 2).errors, 2);
    }

    /// Samples of every sort: two targets, each type, every status, in and out of both windows, with
    /// audit increments, and late wakes (ms, µs), one beside every fifth sample.
    fn assorted() -> (Vec<Sample>, Vec<AuditSample>, Vec<(u32, u32)>) {
        let statuses = [Status::Committed, Status::RolledBack, Status::Failed(Fault::ConnectionLost)];
        let samples = (0..600u32)
            .map(|i| Sample {
                kind: (i % 3) as u8,
                target: (i % 2) as u8,
                retries: (i % 4 == 0) as u8,
                status: statuses[(i / 7 % 3) as usize],
                latency_us: 100 + i * 37 % 9_000,
                done_ms: i * 10,
            })
            .collect();
        let late = (0..600u32).map(|i| (i * 10, if i % 5 == 0 { i * 11 } else { 0 })).collect();
        let audit = (0..60u32).map(|i| AuditSample {
            target: 0,
            done_ms: i * 100,
            counts: [1, (i % 3) as u8, 0, 0, 0, 0, 0, 0],
        });
        (samples, audit.collect(), late)
    }

    fn ds2_collector() -> Collector {
        const KINDS3: &[&str] = &["purchase", "browse", ORDER];
        Collector::new(
            Kinds { composite: Some(2), audit: &["x", "y"], per_minute: 2, ..Kinds::plain(KINDS3) },
            2,
            &[1000..2500, 2500..5000],
        )
    }

    #[test]
    fn shards_shares_merge_into_exactly_what_one_collector_measures() {
        let (samples, audit, late) = assorted();
        let mut one = ds2_collector();
        let mut run = ds2_collector();
        let mut shards = [ds2_collector(), ds2_collector(), ds2_collector()];
        let mut ticks = Vec::new();
        // Three intervals; in each, the samples go to the shards in turn, in batches of uneven sizes,
        // and the run takes each shard's share at the tick.
        for (n, ((interval, counted), woke)) in
            samples.chunks(200).zip(audit.chunks(20)).zip(late.chunks(200)).enumerate()
        {
            one.absorb(interval);
            one.absorb_audit(counted);
            for (i, batch) in interval.chunks(13).enumerate() {
                shards[i % 3].absorb(batch);
            }
            for (i, &(at_ms, late_us)) in woke.iter().enumerate() {
                one.record_late(at_ms, late_us);
                shards[i % 3].record_late(at_ms, late_us);
            }
            for (i, batch) in counted.chunks(3).enumerate() {
                shards[i % 3].absorb_audit(batch);
            }
            for shard in &mut shards {
                run.merge(&shard.take());
            }
            let at = 2.0 * (n + 1) as f64;
            ticks.push((one.tick(at, 4), run.tick(at, 4)));
        }
        for (alone, merged) in &ticks {
            assert_eq!(alone, merged, "the interval's figures, its running totals and per target");
            assert!(alone.kinds[0].count > 0, "every interval measured something");
        }
        for step in 0..2 {
            assert_eq!(one.window_transactions(step), run.window_transactions(step), "histograms and counts");
            assert_eq!(one.window_audit(step), run.window_audit(step));
            assert_eq!(one.window_connections_lost(step), run.window_connections_lost(step));
        }
        assert!(one.window_transactions(0)[1]["browse"].count > 0);
        assert_eq!(one.lateness(), run.lateness());
        assert!(!one.lateness().is_empty());
        assert_eq!(one.errors_by_kind(), run.errors_by_kind());
        assert_eq!((one.completed(), one.orders()), (run.completed(), run.orders()));
        assert!(one.orders() > 0 && one.completed() > 0);
        // A share taken leaves its shard empty.
        assert_eq!(shards[0].take().completed(), 0);
        assert_eq!(
            shards[0].window_transactions(0)[0]["purchase"].count,
            0,
            "an untouched window reads empty"
        );
    }

    #[test]
    fn audit_counters_sum_per_window() {
        let mut c = Collector::new(
            Kinds { audit: &["x", "y"], per_minute: 0, ..Kinds::plain(KINDS) },
            1,
            &[1000..2000, 3000..4000],
        );
        let at = |done_ms, counts| AuditSample { target: 0, done_ms, counts };
        c.absorb_audit(&[
            at(500, [9, 9, 0, 0, 0, 0, 0, 0]),
            at(1500, [2, 1, 0, 0, 0, 0, 0, 0]),
            at(1999, [3, 0, 0, 0, 0, 0, 0, 0]),
            at(3000, [0, 4, 0, 0, 0, 0, 0, 0]),
        ]);
        assert_eq!(c.window_audit(0), [BTreeMap::from([("x".to_string(), 5), ("y".to_string(), 1)])]);
        assert_eq!(c.window_audit(1), [BTreeMap::from([("x".to_string(), 0), ("y".to_string(), 4)])]);
    }

    #[test]
    fn audit_counters_and_lost_connections_are_kept_per_target() {
        let mut c = Collector::new(
            Kinds { audit: &["x", "y"], per_minute: 0, ..Kinds::plain(KINDS) },
            2,
            std::slice::from_ref(&(0..1000)),
        );
        c.absorb_audit(&[
            AuditSample { target: 0, done_ms: 100, counts: [2, 1, 0, 0, 0, 0, 0, 0] },
            AuditSample { target: 1, done_ms: 200, counts: [3, 0, 0, 0, 0, 0, 0, 0] },
        ]);
        let lost = Status::Failed(Fault::ConnectionLost);
        c.absorb(&[on(1, 0, lost, 10, 300), on(1, 1, lost, 10, 400), on(0, 0, Status::Committed, 10, 500)]);
        let audit = c.window_audit(0);
        assert_eq!(audit[0], BTreeMap::from([("x".to_string(), 2), ("y".to_string(), 1)]));
        assert_eq!(audit[1], BTreeMap::from([("x".to_string(), 3), ("y".to_string(), 0)]));
        assert_eq!(c.window_connections_lost(0), [0, 2], "only the second target lost its connections");
        let mut run = Collector::new(
            Kinds { audit: &["x", "y"], per_minute: 0, ..Kinds::plain(KINDS) },
            2,
            std::slice::from_ref(&(0..1000)),
        );
        run.merge(&c.take());
        assert_eq!((run.window_audit(0), run.window_connections_lost(0)), (audit, &[0, 2][..]), "merged");
    }
}
