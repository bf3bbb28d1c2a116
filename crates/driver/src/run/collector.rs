//! The collector: the one place samples are turned into histograms, off the users' hot path.
//!
//! It keeps one histogram per transaction type for the measured window, one per type for the current
//! reporting interval (reset at every tick), and one of wake-up lateness: a handful of histograms however
//! many users run.

use std::collections::BTreeMap;
use std::ops::Range;

use oltpgen_report::histogram::LatencyHistogram;
use oltpgen_report::model::{IntervalRow, TxnCounters, TxnStats};
use oltpgen_report::step::Transactions;

use super::sample::{Sample, Status};

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
}

/// The figures of one reporting interval, for the live line and the time series.
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalFigures {
    /// Seconds since the run began, at the interval's end.
    pub elapsed_s: f64,
    /// Users running.
    pub users: u64,
    /// Completed transactions per second.
    pub tps: f64,
    /// Committed transactions of the per-minute type (New-Order) per minute.
    pub per_minute: f64,
    /// Average response time, ms.
    pub avg_ms: f64,
    /// 95th percentile response time, ms.
    pub p95_ms: f64,
    /// Failed transactions.
    pub errors: u64,
    /// The same per transaction type, as the result's time series holds them.
    pub rows: Vec<IntervalRow>,
}

/// One step's measured window and what completed within it.
struct Window {
    ms: Range<u32>,
    tallies: Vec<Tally>,
    lateness: LatencyHistogram,
}

/// Sorts samples into the measured windows' and the current interval's tallies.
pub struct Collector {
    kinds: &'static [&'static str],
    per_minute_kind: usize,
    windows: Vec<Window>,
    interval: Vec<Tally>,
    interval_start_s: f64,
    errors_by_kind: BTreeMap<String, u64>,
    completed: u64,
}

impl Collector {
    /// A collector for transaction types `kinds`, counting `kinds[per_minute_kind]` per minute, and
    /// measuring, per step, the samples that complete within its window (ms since the run began; the
    /// windows do not overlap).
    pub fn new(kinds: &'static [&'static str], per_minute_kind: usize, windows_ms: &[Range<u32>]) -> Self {
        let tallies = || kinds.iter().map(|_| Tally::default()).collect::<Vec<_>>();
        Collector {
            kinds,
            per_minute_kind,
            windows: windows_ms
                .iter()
                .map(|ms| Window { ms: ms.clone(), tallies: tallies(), lateness: LatencyHistogram::new() })
                .collect(),
            interval: tallies(),
            interval_start_s: 0.0,
            errors_by_kind: BTreeMap::new(),
            completed: 0,
        }
    }

    /// Takes in a batch of samples.
    pub fn absorb(&mut self, batch: &[Sample]) {
        for s in batch {
            let kind = usize::from(s.kind);
            self.interval[kind].add(s);
            if let Status::Failed(fault) = s.status {
                *self.errors_by_kind.entry(fault.name().to_string()).or_default() += 1;
            } else {
                self.completed += 1;
            }
            if let Some(w) = self.windows.iter_mut().find(|w| w.ms.contains(&s.done_ms)) {
                w.tallies[kind].add(s);
                if s.late_us > 0 {
                    w.lateness.record_us(u64::from(s.late_us));
                }
            }
        }
    }

    /// Closes the current interval at `elapsed_s` with `users` running, and starts the next.
    pub fn tick(&mut self, elapsed_s: f64, users: u64) -> IntervalFigures {
        let span_s = (elapsed_s - self.interval_start_s).max(1e-9);
        self.interval_start_s = elapsed_s;
        let mut all = LatencyHistogram::new();
        let mut errors = 0;
        let mut rows = Vec::with_capacity(self.kinds.len());
        for (name, t) in self.kinds.iter().zip(&mut self.interval) {
            all.add(&t.histogram);
            errors += t.counters.errors;
            rows.push(IntervalRow {
                elapsed_s,
                users,
                txn: (*name).to_string(),
                count: t.histogram.count(),
                tps: t.histogram.count() as f64 / span_s,
                avg_ms: t.histogram.mean_us() / 1e3,
                p95_ms: t.histogram.percentile_us(95.0) as f64 / 1e3,
                errors: t.counters.errors,
            });
        }
        let pm = &self.interval[self.per_minute_kind];
        let per_minute = (pm.histogram.count() - pm.counters.rollbacks) as f64 * 60.0 / span_s;
        for t in &mut self.interval {
            *t = Tally::default();
        }
        IntervalFigures {
            elapsed_s,
            users,
            tps: all.count() as f64 / span_s,
            per_minute,
            avg_ms: all.mean_us() / 1e3,
            p95_ms: all.percentile_us(95.0) as f64 / 1e3,
            errors,
            rows,
        }
    }

    /// Step `step`'s statistics per transaction type.
    pub fn window_transactions(&self, step: usize) -> Transactions {
        self.kinds
            .iter()
            .zip(&self.windows[step].tallies)
            .map(|(name, t)| ((*name).to_string(), TxnStats::new(t.histogram.clone(), t.counters)))
            .collect()
    }

    /// How late users woke from keying and think times within the measured windows.
    pub fn lateness(&self) -> LatencyHistogram {
        let mut all = LatencyHistogram::new();
        for w in &self.windows {
            all.add(&w.lateness);
        }
        all
    }

    /// Failed transactions of the whole run by kind of failure.
    pub fn errors_by_kind(&self) -> &BTreeMap<String, u64> {
        &self.errors_by_kind
    }

    /// Completed transactions of the whole run (for the client's CPU per transaction).
    pub fn completed(&self) -> u64 {
        self.completed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Fault;

    const KINDS: &[&str] = &["a", "b"];

    fn s(kind: u8, status: Status, latency_us: u32, done_ms: u32) -> Sample {
        Sample { kind, retries: 1, status, latency_us, late_us: 0, done_ms }
    }

    #[test]
    fn only_the_window_is_measured_and_errors_stay_out_of_histograms() {
        let mut c = Collector::new(KINDS, 0, &[1000..2000, 3000..4000]);
        c.absorb(&[
            s(0, Status::Committed, 100, 500),
            s(0, Status::Committed, 200, 1500),
            s(0, Status::RolledBack, 300, 1600),
            s(1, Status::Failed(Fault::ConnectionLost), 9, 1700),
        ]);
        c.absorb(&[s(1, Status::Committed, 50, 3500)]);
        let w = c.window_transactions(0);
        assert_eq!((w["a"].count, w["a"].rollbacks, w["a"].retries), (2, 1, 2));
        assert_eq!(c.window_transactions(1)["b"].count, 1, "each step keeps its own window");
        assert_eq!((w["b"].count, w["b"].errors), (0, 1));
        assert_eq!(c.errors_by_kind()["connection_lost"], 1);
        assert_eq!(c.completed(), 4);
        let live = c.tick(2.0, 4);
        assert_eq!(live.tps, 2.0);
        assert_eq!(live.per_minute, 60.0, "2 committed of kind a in 2 s");
        assert_eq!(live.errors, 1);
        assert_eq!(c.tick(4.0, 4).tps, 0.0, "the interval starts afresh");
    }
}
