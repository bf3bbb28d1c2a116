//! What an open loop's step (`--rate`) offered and achieved: its arrivals per second, how late they
//! started after they came (their *lag*, kept as a histogram so agents' parts merge exactly), how long
//! they then ran, and how many were dropped and why. A closed loop's step has none.

use serde::{Deserialize, Serialize};

use super::histogram::LatencyHistogram;

/// A step's arrivals, as result.json holds them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StepArrivals {
    /// Arrivals per second the plan offered (this part's share, for an agent's).
    pub offered_per_s: f64,
    /// Arrivals due in the window that completed, per second of it.
    pub achieved_per_s: f64,
    /// Arrivals due in the window that completed (by the step's verdict, which waits up to 2 s after
    /// the window for those still running).
    pub completed: u64,
    /// Arrivals due in the window whose transaction failed: neither achieved nor dropped.
    #[serde(default)]
    pub failed: u64,
    /// Whether some arrivals due in the window had still not started (nor been dropped) when the step
    /// was judged, at most 2 s after its window: a backlog, and the step did not sustain its rate. (One
    /// still running then, its transaction longer than that, is left out of the counts.)
    #[serde(default)]
    pub owed_at_verdict: bool,
    /// From each completed arrival's scheduled arrival to its start: 50th percentile, ms.
    pub lag_p50_ms: Option<f64>,
    /// The same, 99th percentile, ms.
    pub lag_p99_ms: Option<f64>,
    /// The same, the longest, ms.
    pub lag_max_ms: Option<f64>,
    /// From each completed arrival's start to its end (its service time): 50th percentile, ms.
    pub service_p50_ms: Option<f64>,
    /// The same, 99th percentile, ms.
    pub service_p99_ms: Option<f64>,
    /// Arrivals dropped because they could not start within `--max-lag`.
    pub dropped_lag: u64,
    /// Arrivals dropped because their user's queue was full (`--max-queue`).
    pub dropped_overflow: u64,
    /// The lags, µs: what the percentiles come from, and what a merge adds.
    pub lag: LatencyHistogram,
    /// The service times, µs.
    pub service: LatencyHistogram,
    /// `--max-drop`: the arrivals the step may drop and still sustain its rate.
    #[serde(default)]
    pub max_drop: u64,
    /// Whether the step sustained its rate: of the arrivals due in its window, at least 99% completed
    /// (none owed at the verdict) and at most `max_drop` were dropped (a rate sweep's step passes only
    /// when it did, and its cap held).
    #[serde(default)]
    pub sustained: bool,
}

impl StepArrivals {
    /// The figures of `completed` arrivals over `window_s` seconds, `offered_per_s` offered, from
    /// their lag and service histograms and the drops.
    pub fn new(offered_per_s: f64, window_s: f64, lag: LatencyHistogram, service: LatencyHistogram) -> Self {
        let mut a = StepArrivals { offered_per_s, lag, service, ..Self::default() };
        a.derive(window_s);
        a
    }

    /// Derives the rates and percentiles from the histograms, over `window_s` seconds.
    fn derive(&mut self, window_s: f64) {
        let ms = |h: &LatencyHistogram, p: f64| (!h.is_empty()).then(|| h.percentile_us(p) as f64 / 1e3);
        self.completed = self.service.count();
        self.achieved_per_s = if window_s > 0.0 { self.completed as f64 / window_s } else { 0.0 };
        (self.lag_p50_ms, self.lag_p99_ms) = (ms(&self.lag, 50.0), ms(&self.lag, 99.0));
        self.lag_max_ms = (!self.lag.is_empty()).then(|| self.lag.max_us() as f64 / 1e3);
        (self.service_p50_ms, self.service_p99_ms) = (ms(&self.service, 50.0), ms(&self.service, 99.0));
    }

    /// Arrivals dropped, for either reason.
    pub fn dropped(&self) -> u64 {
        self.dropped_lag + self.dropped_overflow
    }

    /// Agents' parts of one step merged, over `window_s` seconds: offered rates and drops add, lags and
    /// service times merge exactly; `None` when no part ran an open loop.
    pub fn merge<'a>(parts: impl IntoIterator<Item = &'a StepArrivals>, window_s: f64) -> Option<Self> {
        let mut all: Option<StepArrivals> = None;
        for p in parts {
            let a = all.get_or_insert_with(StepArrivals::default);
            a.max_drop = p.max_drop;
            a.offered_per_s += p.offered_per_s;
            a.lag.add(&p.lag);
            a.service.add(&p.service);
            a.dropped_lag += p.dropped_lag;
            a.dropped_overflow += p.dropped_overflow;
            a.failed += p.failed;
            a.owed_at_verdict |= p.owed_at_verdict;
        }
        let mut a = all?;
        a.derive(window_s);
        a.judge(a.max_drop);
        Some(a)
    }

    /// The arrivals due in the window that were counted: completed, failed or dropped.
    pub fn due(&self) -> u64 {
        self.completed + self.failed + self.dropped()
    }

    /// Judges whether the step sustained its rate ([`sustained`](Self::sustained)), allowed `max_drop`
    /// drops. It counts the arrivals due in the window, not those that completed in it: a window's end
    /// then costs nothing (an arrival still running at it counts when it completes), and a Poisson
    /// stream, whose count in a window varies by its square root, is judged on the arrivals it brought.
    pub fn judge(&mut self, max_drop: u64) {
        self.max_drop = max_drop;
        let due = self.due();
        self.sustained = !self.owed_at_verdict
            && due > 0
            && self.completed as f64 >= 0.99 * due as f64
            && self.dropped() <= max_drop;
    }

    /// The live and summary text: offered and achieved, lag, drops.
    pub fn line(&self) -> String {
        let ms = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"));
        format!(
            "{}offered {:.1}/s achieved {:.1}/s lag p50 {} p99 {} max {} ms, service p99 {} ms, dropped {} (lag {}, overflow {}){}{}",
            if self.sustained { "" } else { "NOT SUSTAINED: " },
            self.offered_per_s,
            self.achieved_per_s,
            ms(self.lag_p50_ms),
            ms(self.lag_p99_ms),
            ms(self.lag_max_ms),
            ms(self.service_p99_ms),
            self.dropped(),
            self.dropped_lag,
            self.dropped_overflow,
            if self.failed > 0 { format!(", failed {}", self.failed) } else { String::new() },
            if self.owed_at_verdict { ", some not started 2 s after the window" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(offered: f64, lags: &[u64], dropped_lag: u64) -> StepArrivals {
        let (mut lag, mut service) = (LatencyHistogram::new(), LatencyHistogram::new());
        for &l in lags {
            lag.record_us(l);
            service.record_us(1_000);
        }
        StepArrivals { dropped_lag, ..StepArrivals::new(offered, 10.0, lag, service) }
    }

    #[test]
    fn parts_merge_by_adding_rates_and_drops_and_merging_lags() {
        let (a, b) = (part(50.0, &[1_000; 500], 2), part(50.0, &[3_000_000; 10], 1));
        let m = StepArrivals::merge([&a, &b], 10.0).unwrap();
        assert_eq!((m.offered_per_s, m.achieved_per_s, m.completed), (100.0, 51.0, 510));
        assert_eq!(m.dropped_lag, 3);
        assert!((m.lag_max_ms.unwrap() - 3000.0).abs() < 3.0, "{:?}", m.lag_max_ms);
        assert!(m.lag_p99_ms.unwrap() > 2900.0, "the 10 late of 510 are past the 99th: {:?}", m.lag_p99_ms);
        assert!(!m.sustained, "3 dropped, --max-drop 0");
        let whole = StepArrivals::merge([&part(50.0, &[1_000; 500], 0), &part(50.0, &[1_000; 500], 0)], 10.0);
        assert!(whole.unwrap().sustained, "100 of 100 per second, none dropped");
        assert_eq!(StepArrivals::merge([], 10.0), None);
    }

    #[test]
    fn a_step_is_judged_on_the_arrivals_due_in_its_window() {
        let judged = |completed: usize, failed: u64, owed: bool| {
            let mut a = part(100.0, &vec![1_000; completed], 0);
            (a.failed, a.owed_at_verdict) = (failed, owed);
            a.judge(0);
            a.sustained
        };
        assert!(judged(990, 10, false), "99% of the 1,000 due completed");
        assert!(!judged(989, 11, false), "11 of 1,000 failed");
        assert!(!judged(1_000, 0, true), "some had not started at the verdict");
        // A Poisson stream of 100/s brought 968 in 10 s: judged on those, though under 99% of the rate.
        assert!(judged(968, 0, false), "every arrival that came due completed");
        assert!(!judged(0, 0, false), "nothing came due: nothing was measured");
    }

    #[test]
    fn a_result_without_arrivals_reads_and_a_round_trip_keeps_them() {
        let a = part(100.0, &[500, 700], 0);
        let back: StepArrivals = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }
}
