//! Outages on the run's clock. Every collector keeps a [`Timeline`]: the business transactions completed
//! in each tenth of a second, and, in the rare tenths that had them, the failures by transaction type
//! with the first that lost its connection. Four bytes a tenth (144 kB for an hour), added up across
//! shards like the histograms; at the run's end [`Timeline::outages`] finds in it each outage — the first
//! transaction that failed for a lost connection, the first commit after it, the moment throughput was
//! back to 90% of the interval before — with the failures during it and each second's rate around it,
//! whatever the reporting interval.

use std::collections::BTreeMap;
use std::time::Duration;

use oltpgen_report::model::outage::{Outage, RECOVERED};

/// The timeline's resolution, ms.
const TICK_MS: u32 = 100;
/// Ticks in a second.
const PER_S: u32 = 1_000 / TICK_MS;
/// Seconds of per-second figures kept before an outage and after its recovery.
const AROUND_S: u32 = 5;
/// Seconds after the first lost connection within which the outage's stretch without commits begins.
const ONSET_S: u32 = 10;
/// Seconds of per-second figures kept after an outage that never recovered.
const UNRECOVERED_S: u32 = 60;
/// Transactions a recovery window expects at the rate before the outage: a window of one second at a
/// high rate, longer at a low one (few users, think times), so that chance does not decide when
/// throughput is back.
const WINDOW_TXNS: f64 = 20.0;

/// The failures of one tick.
#[derive(Clone, Debug, Default, PartialEq)]
struct Failures {
    /// When the first of them that lost its connection completed, ms on the run's clock.
    first_lost_ms: Option<u32>,
    /// Failed transactions by type.
    by_kind: Vec<u32>,
}

/// Completions and failures per tenth of a second since the run began.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// The tick `completed[0]` counts.
    base: u32,
    /// Business transactions completed per tick from `base` on.
    completed: Vec<u32>,
    /// The ticks that had failures.
    failures: BTreeMap<u32, Failures>,
}

impl Timeline {
    /// A business transaction completed at `done_ms`.
    #[inline]
    pub fn completed(&mut self, done_ms: u32) {
        let i = self.slot(done_ms / TICK_MS);
        self.completed[i] += 1;
    }

    /// Where tick `tick` is counted in `completed`, made room for first.
    fn slot(&mut self, tick: u32) -> usize {
        if self.completed.is_empty() {
            self.base = tick;
        } else if tick < self.base {
            // A sample late from an earlier tick than this share's first: rare, and shares are short.
            let early = (self.base - tick) as usize;
            self.completed.splice(0..0, std::iter::repeat_n(0, early));
            self.base = tick;
        }
        let i = (tick - self.base) as usize;
        if i >= self.completed.len() {
            self.completed.resize(i + 1, 0);
        }
        i
    }

    /// A transaction of type `kind` failed at `done_ms`; `lost` when it lost its connection.
    pub fn failed(&mut self, kind: usize, done_ms: u32, lost: bool) {
        let f = self.failures.entry(done_ms / TICK_MS).or_default();
        if f.by_kind.len() <= kind {
            f.by_kind.resize(kind + 1, 0);
        }
        f.by_kind[kind] += 1;
        if lost {
            f.first_lost_ms = Some(f.first_lost_ms.map_or(done_ms, |at| at.min(done_ms)));
        }
    }

    /// Adds in `other`'s counts.
    pub fn merge(&mut self, other: &Timeline) {
        for (i, &n) in other.completed.iter().enumerate().filter(|(_, n)| **n > 0) {
            let j = self.slot(other.base + i as u32);
            self.completed[j] += n;
        }
        for (tick, f) in &other.failures {
            let mine = self.failures.entry(*tick).or_default();
            if mine.by_kind.len() < f.by_kind.len() {
                mine.by_kind.resize(f.by_kind.len(), 0);
            }
            for (m, n) in mine.by_kind.iter_mut().zip(&f.by_kind) {
                *m += n;
            }
            mine.first_lost_ms = match (mine.first_lost_ms, f.first_lost_ms) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }

    /// Completed in tick `tick`.
    fn at(&self, tick: u32) -> u32 {
        tick.checked_sub(self.base).and_then(|i| self.completed.get(i as usize)).copied().unwrap_or(0)
    }

    /// Completed in ticks `from..to`.
    fn sum(&self, from: u32, to: u32) -> u64 {
        (from..to).map(|t| u64::from(self.at(t))).sum()
    }

    /// Each outage of a run that ended at `end` (types named by `kinds`), its rate before taken over
    /// the reporting interval `before` it. An outage begins at a transaction that lost its connection
    /// and lasts until throughput is back; connections found lost meanwhile (users back from a think
    /// time to a dead connection) belong to it.
    pub fn outages(&self, kinds: &[&str], before: Duration, end: Duration) -> Vec<Outage> {
        let end_tick = (end.as_millis() as u64 / u64::from(TICK_MS)).min(u64::from(u32::MAX)) as u32;
        let before_ticks = ((before.as_millis() as u64 / u64::from(TICK_MS)) as u32).max(PER_S);
        let mut outages = Vec::new();
        let mut covered_to = 0;
        for (&tick, f) in &self.failures {
            let Some(lost_ms) = f.first_lost_ms.filter(|_| tick >= covered_to) else { continue };
            let from = tick.saturating_sub(before_ticks);
            let before_tps = if tick > from {
                self.sum(from, tick) as f64 * f64::from(PER_S) / f64::from(tick - from)
            } else {
                0.0
            };
            let again = self.gap_end(tick, end_tick);
            let recovered = again.and_then(|again| self.recovered(again, before_tps, end_tick));
            let last = recovered.or(again).unwrap_or(end_tick).max(tick);
            let mut failed = BTreeMap::new();
            for g in self.failures.range(tick..=last).map(|(_, g)| g) {
                for (kind, &n) in g.by_kind.iter().enumerate().filter(|(_, n)| **n > 0) {
                    *failed.entry(kinds.get(kind).unwrap_or(&"?").to_string()).or_insert(0) += u64::from(n);
                }
            }
            let shown_to =
                recovered.map_or(tick + UNRECOVERED_S * PER_S, |r| r + AROUND_S * PER_S).min(end_tick);
            outages.push(Outage {
                lost_s: f64::from(lost_ms) / 1e3,
                committed_again_s: again.map(seconds),
                recovered_s: recovered.map(seconds),
                before_tps,
                failed,
                per_second: self.per_second(tick.saturating_sub(AROUND_S * PER_S), shown_to),
            });
            covered_to = last + 1;
        }
        outages
    }

    /// Where the outage that began in tick `lost` committed again: the end of the longest run of tenths
    /// without a commit that begins within [`ONSET_S`] of it (commits still landing meanwhile, from users
    /// whose connections were not yet found lost, do not end it); the first tenth with a commit when no
    /// tenth went without one (other users committed while those cut off reconnected), after the loss's
    /// own; `None` when that
    /// run lasts until `end_tick`.
    fn gap_end(&self, lost: u32, end_tick: u32) -> Option<u32> {
        let mut longest: Option<(u32, u32)> = None;
        let mut t = lost;
        while t < end_tick && t < lost + ONSET_S * PER_S {
            if self.at(t) > 0 {
                t += 1;
                continue;
            }
            let end = (t..end_tick).find(|&u| self.at(u) > 0).unwrap_or(end_tick);
            if longest.is_none_or(|(a, b)| end - t > b - a) {
                longest = Some((t, end));
            }
            t = end;
        }
        match longest {
            Some((_, end)) => (end < end_tick).then_some(end),
            // Not the loss's own tenth: its commits may have come before the loss.
            None => (lost + 1..end_tick).find(|&u| self.at(u) > 0),
        }
    }

    /// The tick by whose end throughput, from tick `again` on, was back to [`RECOVERED`] of
    /// `before_tps` over a window of [`WINDOW_TXNS`] transactions at that rate (one second at least);
    /// `None` when not before `end_tick`.
    fn recovered(&self, again: u32, before_tps: f64, end_tick: u32) -> Option<u32> {
        if before_tps <= 0.0 {
            return Some(again);
        }
        let window = ((WINDOW_TXNS / before_tps * f64::from(PER_S)).ceil() as u32).max(PER_S);
        let wanted = RECOVERED * before_tps * f64::from(window) / f64::from(PER_S);
        (again..end_tick.saturating_sub(window) + 1)
            .find(|&t| self.sum(t, t + window) as f64 >= wanted)
            .map(|t| t + window)
    }

    /// `[elapsed_s, per second]` for each whole second from tick `from` to tick `to`.
    fn per_second(&self, from: u32, to: u32) -> Vec<[f64; 2]> {
        let first = from / PER_S * PER_S;
        (first..to)
            .step_by(PER_S as usize)
            .map(|t| [seconds(t + PER_S), self.sum(t, t + PER_S) as f64])
            .collect()
    }
}

/// Tick `tick`'s start, seconds on the run's clock.
fn seconds(tick: u32) -> f64 {
    f64::from(tick * TICK_MS) / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run at 100 tps (one every 10 ms) for 60 s, its server gone from 20.0 s to 24.0 s (12
    /// transactions failed, the first at 20.05 s), back at half rate for 2 s, then at full rate.
    fn failover() -> Timeline {
        let mut t = Timeline::default();
        for ms in (0..60_000).step_by(10) {
            match ms {
                20_000..24_000 => {}
                24_000..26_000 if ms % 20 == 0 => {}
                _ => t.completed(ms),
            }
        }
        for (i, ms) in (20_050..20_170).step_by(10).enumerate() {
            t.failed(i % 2, ms, true);
        }
        // A user back from its think time to a dead connection, after commits resumed: the same outage.
        t.failed(0, 25_000, true);
        // A commit on its way when the server went, after the first lost connection: not the end of it.
        t.completed(20_250);
        t
    }

    #[test]
    fn an_outage_runs_from_the_first_lost_connection_to_recovered_throughput() {
        let outages = failover().outages(&["a", "b"], Duration::from_secs(10), Duration::from_secs(60));
        assert_eq!(outages.len(), 1, "{outages:?}");
        let o = &outages[0];
        assert_eq!(o.lost_s, 20.05);
        assert_eq!(o.committed_again_s, Some(24.0));
        assert_eq!(o.before_tps, 100.0);
        // Half rate until 26 s: the first one-second window at 90% (25.8 to 26.8 s: 10 + 80) ends at 26.8 s.
        assert_eq!(o.recovered_s, Some(26.8));
        assert_eq!(o.failed, [("a".to_string(), 7), ("b".to_string(), 6)].into());
        assert_eq!(o.per_second.first(), Some(&[16.0, 100.0]));
        assert_eq!(o.per_second[5], [21.0, 1.0], "the straggler");
        assert_eq!(o.per_second[9], [25.0, 50.0]);
        assert_eq!(o.per_second.last(), Some(&[32.0, 100.0]));
    }

    #[test]
    fn shares_merge_into_the_same_timeline() {
        let whole = failover();
        let (mut a, mut b) = (Timeline::default(), Timeline::default());
        for ms in (30_000..40_000).step_by(10) {
            if ms % 30 == 0 { a.completed(ms) } else { b.completed(ms) }
        }
        // Out of order: a late sample before the share's first.
        b.completed(29_990);
        let mut merged = Timeline::default();
        merged.merge(&a);
        merged.merge(&b);
        assert_eq!(merged.sum(300, 400), 1_000);
        assert_eq!(merged.at(299), 1);
        let mut twice = whole.clone();
        twice.merge(&whole);
        assert_eq!(twice.sum(0, 600), 2 * whole.sum(0, 600));
        assert_eq!(twice.failures[&200].by_kind, vec![6, 4]);
    }

    #[test]
    fn an_outage_during_which_others_kept_committing_committed_again_at_once() {
        let mut t = Timeline::default();
        (0..30_000).step_by(10).for_each(|ms| t.completed(ms));
        t.failed(0, 10_003, true);
        let o = &t.outages(&["a"], Duration::from_secs(5), Duration::from_secs(30))[0];
        // The first tenth after the loss's own (whose commits came before it, at 10.000 s): never before
        // the loss.
        assert_eq!((o.committed_again_s, o.recovered_s), (Some(10.1), Some(11.1)));
        assert!(o.committed_again_s.unwrap() > o.lost_s);
    }

    #[test]
    fn a_server_that_never_came_back_is_an_outage_without_an_end() {
        let mut t = Timeline::default();
        (0..10_000).step_by(10).for_each(|ms| t.completed(ms));
        t.failed(1, 10_003, true);
        let o = &t.outages(&["a", "b"], Duration::from_secs(5), Duration::from_secs(30))[0];
        assert_eq!((o.committed_again_s, o.recovered_s), (None, None));
        assert_eq!(
            o.sentence(),
            "failover at 10.0 s: no commit again before the run ended, throughput never back to 90% before the run ended, 1 transactions failed"
        );
        assert!(
            Timeline::default().outages(&["a"], Duration::from_secs(5), Duration::from_secs(30)).is_empty()
        );
    }
}
