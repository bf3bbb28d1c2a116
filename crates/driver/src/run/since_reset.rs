//! Running totals since the statistics were last reset, as DS2's driver keeps them for its progress
//! line (ds2xdriver.cs: `n_overall`, `rt_tot_overall`, `rt_tot_lastn`, zeroed when the warmup ends):
//! counts and mean response times since the reset, and the largest response time among the last
//! [`LAST_N`] completions.
//!
//! oltpgen resets where its measured windows begin and end, so a line during a step's window covers
//! that window so far, and a line during a ramp or warmup covers that stretch alone. Each sample is
//! filed by its completion time, so samples that arrive late (a shard hands its share over once an
//! interval) still count where they belong.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::sample::{Sample, Status};

/// How many of the latest completions the largest recent response time is taken over (ds2xdriver.cs,
/// `GlobalConstants.LAST_N`).
pub const LAST_N: usize = 100;

/// One transaction type's totals since a reset.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KindTotal {
    /// Completed (committed or rolled back).
    pub count: u64,
    /// Of `count`, rolled back as expected.
    pub rollbacks: u64,
    /// Failed.
    pub errors: u64,
    /// Mean response time of the completed ones, ms (0 without any).
    pub avg_ms: f64,
    /// The largest response time among the last [`LAST_N`] completions, ms.
    pub last_n_max_ms: f64,
}

/// What completed since the last reset: per transaction type, in the workload's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SinceReset {
    /// When the statistics were last reset, seconds since the run began.
    pub reset_at_s: f64,
    /// Seconds since then (DS2's `et`).
    pub elapsed_s: f64,
    /// Per transaction type.
    pub kinds: Vec<KindTotal>,
}

/// One transaction type's running sums between two resets.
#[derive(Clone, Default)]
struct Running {
    count: u64,
    rollbacks: u64,
    errors: u64,
    sum_us: u64,
    /// The latest completions as (completion ms, response time µs), the oldest on top.
    last_n: BinaryHeap<Reverse<(u32, u32)>>,
}

impl Running {
    fn add(&mut self, s: &Sample) {
        match s.status {
            Status::Failed(_) => {
                self.errors += 1;
                return;
            }
            Status::RolledBack => self.rollbacks += 1,
            Status::Committed => {}
        }
        self.count += 1;
        self.sum_us += u64::from(s.latency_us);
        self.keep(Reverse((s.done_ms, s.latency_us)));
    }

    /// Keeps `entry` if it is among the last [`LAST_N`] completions seen.
    fn keep(&mut self, entry: Reverse<(u32, u32)>) {
        if self.last_n.len() < LAST_N {
            self.last_n.push(entry);
        } else if self.last_n.peek().is_some_and(|oldest| entry < *oldest) {
            // `Reverse`: a later completion compares smaller than the oldest kept.
            self.last_n.pop();
            self.last_n.push(entry);
        }
    }

    fn merge(&mut self, other: &Running) {
        self.count += other.count;
        self.rollbacks += other.rollbacks;
        self.errors += other.errors;
        self.sum_us += other.sum_us;
        for entry in &other.last_n {
            self.keep(*entry);
        }
    }

    fn total(&self) -> KindTotal {
        let last_n_max_us = self.last_n.iter().map(|Reverse((_, us))| *us).max().unwrap_or(0);
        KindTotal {
            count: self.count,
            rollbacks: self.rollbacks,
            errors: self.errors,
            avg_ms: if self.count > 0 { self.sum_us as f64 / self.count as f64 / 1e3 } else { 0.0 },
            last_n_max_ms: f64::from(last_n_max_us) / 1e3,
        }
    }
}

/// The running sums of every stretch between resets, per target and transaction type.
pub struct Totals {
    /// Where the statistics reset, ms since the run began, ascending.
    resets_ms: Vec<u32>,
    kinds: usize,
    targets: usize,
    /// Per stretch (before the first reset, then after each), per target × kind.
    stretches: Vec<Vec<Running>>,
}

impl Totals {
    /// Totals of `kinds` types on `targets` targets, reset at every edge of `windows_ms`.
    pub fn new(kinds: usize, targets: usize, windows_ms: &[std::ops::Range<u32>]) -> Self {
        let mut resets_ms: Vec<u32> = windows_ms.iter().flat_map(|w| [w.start, w.end]).collect();
        resets_ms.sort_unstable();
        resets_ms.dedup();
        let cells = kinds * targets.max(1);
        Totals {
            stretches: vec![vec![Running::default(); cells]; resets_ms.len() + 1],
            resets_ms,
            kinds,
            targets: targets.max(1),
        }
    }

    /// Resets the statistics at `window`'s edges too, a window after every other's (a step decided
    /// during the run).
    pub fn add_resets(&mut self, window: &std::ops::Range<u32>) {
        for edge in [window.start, window.end] {
            if self.resets_ms.last().is_none_or(|&last| last < edge) {
                self.resets_ms.push(edge);
                self.stretches.push(vec![Running::default(); self.kinds * self.targets]);
            }
        }
    }

    /// Empty totals with the same resets, types and targets: a shard's next share.
    pub fn fresh(&self) -> Self {
        Totals {
            stretches: vec![vec![Running::default(); self.kinds * self.targets]; self.stretches.len()],
            resets_ms: self.resets_ms.clone(),
            kinds: self.kinds,
            targets: self.targets,
        }
    }

    /// Adds `other`'s sums (totals of the same shape, kept by another shard) to these: counts and sums
    /// add, and the last [`LAST_N`] completions of both are the last of the union, so the merge is exact.
    pub fn merge(&mut self, other: &Totals) {
        for (mine, theirs) in self.stretches.iter_mut().zip(&other.stretches) {
            for (m, t) in mine.iter_mut().zip(theirs) {
                m.merge(t);
            }
        }
    }

    fn stretch(&self, ms: u32) -> usize {
        self.resets_ms.partition_point(|r| *r <= ms)
    }

    /// Files `s` in the stretch it completed in.
    pub fn add(&mut self, s: &Sample) {
        let stretch = self.stretch(s.done_ms);
        self.stretches[stretch][usize::from(s.target) * self.kinds + usize::from(s.kind)].add(s);
    }

    /// The totals since the last reset before `elapsed_s`: over every target, then per target (empty
    /// with one target).
    pub fn at(&self, elapsed_s: f64) -> (SinceReset, Vec<SinceReset>) {
        let ms = (elapsed_s * 1e3).clamp(0.0, f64::from(u32::MAX)) as u32;
        let stretch = self.stretch(ms);
        let reset_at_s = stretch.checked_sub(1).map_or(0.0, |i| f64::from(self.resets_ms[i]) / 1e3);
        let cells = &self.stretches[stretch];
        let since =
            |kinds: Vec<KindTotal>| SinceReset { reset_at_s, elapsed_s: elapsed_s - reset_at_s, kinds };
        let mut all: Vec<Running> = vec![Running::default(); self.kinds];
        for (i, r) in cells.iter().enumerate() {
            all[i % self.kinds].merge(r);
        }
        let total = since(all.iter().map(Running::total).collect());
        let per_target = if self.targets > 1 {
            cells.chunks(self.kinds).map(|ts| since(ts.iter().map(Running::total).collect())).collect()
        } else {
            Vec::new()
        };
        (total, per_target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oltpgen_vocab::error::Fault;

    fn s(target: u8, status: Status, latency_us: u32, done_ms: u32) -> Sample {
        Sample { kind: 0, target, retries: 0, status, latency_us, done_ms }
    }

    #[test]
    fn totals_restart_at_every_edge_of_a_window() {
        let mut t = Totals::new(1, 1, std::slice::from_ref(&(10_000..20_000)));
        t.add(&s(0, Status::Committed, 9_000, 5_000));
        t.add(&s(0, Status::Committed, 1_000, 12_000));
        t.add(&s(0, Status::RolledBack, 3_000, 13_000));
        t.add(&s(0, Status::Failed(Fault::ConnectionLost), 50, 14_000));
        t.add(&s(0, Status::Committed, 7_000, 25_000));
        let (warmup, _) = t.at(8.0);
        assert_eq!((warmup.reset_at_s, warmup.elapsed_s, warmup.kinds[0].count), (0.0, 8.0, 1));
        let (window, per_target) = t.at(15.0);
        assert!(per_target.is_empty(), "one target: totals only");
        assert_eq!((window.reset_at_s, window.elapsed_s), (10.0, 5.0));
        let k = window.kinds[0];
        assert_eq!((k.count, k.rollbacks, k.errors), (2, 1, 1), "the warmup's order is not counted");
        assert_eq!((k.avg_ms, k.last_n_max_ms), (2.0, 3.0));
        assert_eq!(t.at(30.0).0.kinds[0].count, 1, "after the window, a new stretch");
    }

    #[test]
    fn the_largest_recent_time_is_over_the_last_hundred_completions_by_completion_time() {
        let mut t = Totals::new(1, 2, &[]);
        // A slow order completes first; then 100 fast ones on the other target, handed over before it.
        for i in 0..LAST_N as u32 {
            t.add(&s(1, Status::Committed, 1_000, 2_000 + i));
        }
        t.add(&s(0, Status::Committed, 500_000, 1_000));
        let (all, per_target) = t.at(5.0);
        assert_eq!(all.kinds[0].count, 101);
        assert_eq!(all.kinds[0].last_n_max_ms, 1.0, "the slow one is not among the last 100");
        assert_eq!(per_target[0].kinds[0].last_n_max_ms, 500.0, "but it is its target's latest");
        t.add(&s(0, Status::Committed, 30_000, 9_000));
        assert_eq!(t.at(10.0).0.kinds[0].last_n_max_ms, 30.0);
    }
}
