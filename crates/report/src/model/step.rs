//! Turning histograms and counters into figures: [`TxnStats::new`], [`Figures::from_transactions`],
//! [`Step::new`]. Every figure in a result is derived here, once, the same way.
//!
//! Choices, so that readers of a result know what a number means:
//! - **TPS** counts completed business transactions, committed or rolled back (a rollback is
//!   an expected outcome that did the work), over the measured window. DS2's composite
//!   entries ([`ORDER`], [`RT_TOT`]) are left out: their operations are already counted.
//! - **NOPM** counts completed New-Orders per minute, the 1% that roll back by design (2.4.1.4)
//!   included, as 5.4.2 counts them (HammerDB's NOPM, from `d_next_o_id`, leaves them out). **OPM** counts every
//!   completed DS2 order, as DS2's driver does, including those whose purchase rolled back for
//!   want of stock ([`Workload::per_minute_count`]).
//! - **Errors** are failed business transactions; for DS2, failed orders (each counts once, whether
//!   an operation of it failed or it failed before any ran, e.g. on a connection that would not open).
//! - Overall response times (`rt_avg_ms`, `rt_p95_ms`) come from the exact merge of every
//!   transaction's histogram (again without the composites), so they weigh each transaction once.
//! - DS2's **`rt_tot_avg`** is DS2's own figure, the mean of [`RT_TOT`] (the sum of an order's
//!   operations' times); the whole order's time from its intended start is `order_rt_avg_ms`.

use std::collections::BTreeMap;

use crate::model::descriptor::{Descriptor, Rate};
use crate::model::histogram::LatencyHistogram;
use crate::model::{
    Figures, ORDER, RT_TOT, RuleVerdict, Step, TxnCounters, TxnStats, Window, Workload, is_composite,
};

fn us_to_ms(us: f64) -> f64 {
    us / 1000.0
}

impl TxnStats {
    /// Statistics of one transaction type from its histogram (every completed transaction,
    /// committed or rolled back) and its counters.
    pub fn new(histogram: LatencyHistogram, counters: TxnCounters) -> Self {
        let h = &histogram;
        Self {
            count: h.count(),
            rollbacks: counters.rollbacks,
            errors: counters.errors,
            retries: counters.retries,
            avg_ms: us_to_ms(h.mean_us()),
            p50_ms: us_to_ms(h.percentile_us(50.0) as f64),
            p90_ms: us_to_ms(h.percentile_us(90.0) as f64),
            p95_ms: us_to_ms(h.percentile_us(95.0) as f64),
            p99_ms: us_to_ms(h.percentile_us(99.0) as f64),
            max_ms: us_to_ms(h.max_us() as f64),
            histogram,
        }
    }

    /// The counters this entry was built from.
    pub fn counters(&self) -> TxnCounters {
        TxnCounters { rollbacks: self.rollbacks, errors: self.errors, retries: self.retries }
    }

    /// Adds `other` exactly: histograms merged, counters summed, statistics recomputed.
    pub fn merge(&mut self, other: &TxnStats) {
        let mut histogram = std::mem::take(&mut self.histogram);
        histogram.add(&other.histogram);
        let c = self.counters();
        *self = TxnStats::new(
            histogram,
            TxnCounters {
                rollbacks: c.rollbacks + other.rollbacks,
                errors: c.errors + other.errors,
                retries: c.retries + other.retries,
            },
        );
    }

    /// Completed minus rolled back.
    pub fn committed(&self) -> u64 {
        self.count.saturating_sub(self.rollbacks)
    }
}

/// Per-transaction statistics by name, as a step or target holds them.
pub type Transactions = BTreeMap<String, TxnStats>;

/// Merges `from` into `into`, transaction by transaction.
pub fn merge_transactions(into: &mut Transactions, from: &Transactions) {
    for (name, stats) in from {
        match into.get_mut(name) {
            Some(existing) => existing.merge(stats),
            None => {
                into.insert(name.clone(), stats.clone());
            }
        }
    }
}

fn per_s(count: u64, duration_s: f64) -> f64 {
    if duration_s > 0.0 { count as f64 / duration_s } else { 0.0 }
}

impl Figures {
    /// Derives throughput and response-time figures from per-transaction statistics measured
    /// over `duration_s` seconds (a zero duration gives zero rates, never NaN).
    pub fn from_transactions(workload: &Descriptor, transactions: Transactions, duration_s: f64) -> Self {
        let business = || transactions.iter().filter(|(name, _)| !workload.is_composite(name));
        let mut all = LatencyHistogram::new();
        let (mut count, mut errors, mut rollbacks, mut retries) = (0, 0, 0, 0);
        for (_, t) in business() {
            all.add(&t.histogram);
            count += t.count;
            errors += t.errors;
            rollbacks += t.rollbacks;
            retries += t.retries;
        }
        // A type the step holds no statistics of was not measured: its figures are absent, not 0.
        let per_minute = transactions
            .get(&workload.per_minute_transaction)
            // Every completed one counts, rolled back or not ([`Workload::per_minute_count`]).
            .map(|t| 60.0 * per_s(t.count, duration_s));
        // A mean of no transactions is no figure.
        let mean = |name| transactions.get(name).filter(|t| t.count > 0).map(|t: &TxnStats| t.avg_ms);
        let (nopm, opm, rt_tot_avg_ms, order_rt_avg_ms) = match workload.headline {
            Rate::Nopm => (per_minute, None, None, None),
            // I/Os are counted per second (IOPS: `tps`), as storage is measured.
            Rate::Iops | Rate::PerMinute => (None, None, None, None),
            Rate::Opm => (None, per_minute, mean(RT_TOT), mean(ORDER)),
        };
        let txn_per_minute = per_minute.filter(|_| workload.headline == Rate::PerMinute);
        // A composite transaction's failures are the errors: a failed DS2 order counts once, whether an
        // operation of it failed or it failed before any ran.
        let errors = transactions.get(ORDER).map_or(errors, |o| o.errors);
        Self {
            tps: per_s(count, duration_s),
            nopm,
            opm,
            txn_per_minute,
            rt_avg_ms: us_to_ms(all.mean_us()),
            rt_p95_ms: us_to_ms(all.percentile_us(95.0) as f64),
            rt_tot_avg_ms,
            order_rt_avg_ms,
            errors,
            rollbacks,
            retries,
            connections_lost: 0,
            transactions,
        }
    }

    /// The per-minute throughput (NOPM, OPM, or a defined workload's transaction per minute),
    /// whichever the workload has.
    pub fn per_minute(&self) -> Option<f64> {
        self.nopm.or(self.opm).or(self.txn_per_minute)
    }

    /// The workload's headline figure: TPC-C's NOPM, DS2's OPM, or `io`'s IOPS (its TPS; `io` counts
    /// nothing per minute).
    pub fn headline_figure(&self) -> f64 {
        self.per_minute().unwrap_or(self.tps)
    }

    /// One histogram of every business transaction (without DS2's composite `order`).
    pub fn overall_histogram(&self) -> LatencyHistogram {
        let mut all = LatencyHistogram::new();
        for (_, t) in self.transactions.iter().filter(|(n, _)| !is_composite(n)) {
            all.add(&t.histogram);
        }
        all
    }
}

/// What a step was meant to be: everything about it except what it measured.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepPlan {
    /// Position in the schedule, from 0.
    pub index: u32,
    /// Repetition number, from 1.
    pub run: u32,
    /// Users running in the measured window.
    pub users: u64,
    /// Connections they shared.
    pub connections: u64,
    /// Ramp-up before measuring, seconds.
    pub ramp_up_s: f64,
    /// Measured seconds (the divisor of every rate).
    pub duration_s: f64,
    /// The measured window relative to the run's start.
    pub window: Window,
}

/// How many times its slowest figure a step's window must last for [`Step::users_at_cap`] to read
/// Little's law from it: a tenth of a window still running at its end is as much as the estimate can
/// lose.
pub const LITTLE_WINDOWS: f64 = 10.0;

impl Step {
    /// The load the step ran at, what a sweep or a `--find-max` search steps over: in an open loop
    /// (`--rate`) the arrivals per second it offered, rounded; else its users.
    pub fn level(&self) -> u64 {
        self.arrivals.as_ref().map_or(self.users, |a| a.offered_per_s.round() as u64)
    }

    /// The users at which this closed loop's figures put its cap, by Little's law: each user is in a
    /// transaction or between two (keying, thinking, the client's own time), so `N = X·(R + Z)` at
    /// throughput `X`, mean response time `R` and time between transactions `Z`. Where throughput no
    /// longer rises with users (as past a load that fails the cap), a response time of the rule's
    /// limit comes at `N·(limit + Z)/(observed + Z)`; the tightest rule decides. An estimate a
    /// `--find-max` search aims at and then checks; `None` for an open loop, a step without a cap or
    /// one that measured nothing, and a step whose window is under [`LITTLE_WINDOWS`] times its
    /// slowest figure: a window counts the transactions that end in it, so those still running at its
    /// end are missing from it, and the law holds only when they are few.
    pub fn users_at_cap(&self) -> Option<f64> {
        let cap = self.cap.as_ref().filter(|_| self.arrivals.is_none())?;
        let (n, x, r) = (self.users as f64, self.figures.tps, self.figures.rt_avg_ms / 1e3);
        let slowest = cap.rules.iter().filter_map(|r| r.observed_ms).fold(r * 1e3, f64::max) / 1e3;
        if n <= 0.0 || x <= 0.0 || slowest * LITTLE_WINDOWS > self.duration_s {
            return None;
        }
        let z = (n / x - r).max(0.0);
        let at = |r: &RuleVerdict| {
            let observed = r.observed_ms.filter(|&o| o > 0.0)? / 1e3;
            Some(n * (r.limit_ms / 1e3 + z) / (observed + z))
        };
        cap.rules.iter().filter_map(at).min_by(f64::total_cmp)
    }

    /// Fails the cap verdict of an open loop's step that did not sustain its rate (it achieved under
    /// 99% of what it offered, or dropped more than `--max-drop`): a rate sweep's step passes only when
    /// it sustained its rate and its cap held.
    pub fn judge_arrivals(&mut self) {
        if let (Some(a), Some(cap)) = (&self.arrivals, self.cap.as_mut())
            && !a.sustained
        {
            cap.passed = false;
        }
    }

    /// A step from its plan and its transactions, per target. With one target the totals are
    /// that target's and `targets` stays empty; with several, the totals are the exact merge
    /// and each target keeps its own figures. The cap verdict is left to [`crate::stats::cap`].
    pub fn new(workload: Workload, plan: StepPlan, per_target: BTreeMap<String, Transactions>) -> Self {
        Self::described(workload.descriptor(), plan, per_target)
    }

    /// [`Step::new`] for a workload known by its descriptor (a merge's, read from its parts).
    pub fn described(
        workload: &Descriptor,
        plan: StepPlan,
        per_target: BTreeMap<String, Transactions>,
    ) -> Self {
        let mut total = Transactions::new();
        for transactions in per_target.values() {
            merge_transactions(&mut total, transactions);
        }
        let targets = if per_target.len() > 1 {
            per_target
                .into_iter()
                .map(|(label, t)| (label, Figures::from_transactions(workload, t, plan.duration_s)))
                .collect()
        } else {
            BTreeMap::new()
        };
        Self {
            index: plan.index,
            run: plan.run,
            users: plan.users,
            connections: plan.connections,
            ramp_up_s: plan.ramp_up_s,
            duration_s: plan.duration_s,
            window: plan.window,
            figures: Figures::from_transactions(workload, total, plan.duration_s),
            targets,
            cap: None,
            target_caps: BTreeMap::new(),
            target_connections: BTreeMap::new(),
            audit: None,
            target_audits: BTreeMap::new(),
            counters: BTreeMap::new(),
            trend: None,
            probe: None,
            probe_too: None,
            arrivals: None,
        }
    }

    /// Records the transactions that lost their connection in the window, per target (labelled as
    /// [`Step::new`]'s `per_target`): each target's figures get their own, the step's figures the sum.
    /// With one target, the step's are that target's.
    pub fn count_connections_lost(&mut self, per_target: impl IntoIterator<Item = (String, u64)>) {
        let mut total = 0;
        for (label, lost) in per_target {
            total += lost;
            if let Some(f) = self.targets.get_mut(&label) {
                f.connections_lost = lost;
            }
        }
        self.figures.connections_lost = total;
    }

    /// Each target's figures (labelled `single` when the step drove one target, whose figures are the
    /// step's own).
    pub fn target_figures<'s>(&'s self, single: &str) -> Vec<(String, &'s Figures)> {
        if self.targets.is_empty() {
            vec![(single.to_string(), &self.figures)]
        } else {
            self.targets.iter().map(|(label, f)| (label.clone(), f)).collect()
        }
    }

    /// The plan this step was run from.
    pub fn plan(&self) -> StepPlan {
        StepPlan {
            index: self.index,
            run: self.run,
            users: self.users,
            connections: self.connections,
            ramp_up_s: self.ramp_up_s,
            duration_s: self.duration_s,
            window: self.window,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `n` transactions of `latency_us` each, with `rollbacks` of them rolled back.
    pub(crate) fn txn(n: u64, latency_us: u64, rollbacks: u64) -> TxnStats {
        let mut h = LatencyHistogram::new();
        h.record_n_us(latency_us, n);
        TxnStats::new(h, TxnCounters { rollbacks, errors: 0, retries: 0 })
    }

    fn plan(duration_s: f64) -> StepPlan {
        StepPlan { index: 0, run: 1, users: 10, connections: 10, duration_s, ..StepPlan::default() }
    }

    #[test]
    fn little_s_law_puts_the_cap_where_the_measured_throughput_meets_its_limit() {
        // 1,000 transactions of 200 ms in 10 s: X = 100/s. With 20 users, each is always in one (no time
        // between): an average of 100 ms comes at 100/s × 100 ms = 10 users.
        let step = |users: u64, cap: &str| {
            let t = Transactions::from([("payment".into(), txn(1000, 200_000, 0))]);
            let plan = StepPlan { users, ..plan(10.0) };
            let mut step = Step::new(Workload::Tpcc, plan, BTreeMap::from([("db".into(), t)]));
            step.cap = Some(cap.parse::<crate::stats::cap::Cap>().unwrap().evaluate(&step.figures));
            step
        };
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 0.05);
        assert!(
            close(step(20, "avg=100ms").users_at_cap(), 10.0),
            "{:?}",
            step(20, "avg=100ms").users_at_cap()
        );
        // 40 users: each spends 200 ms between transactions too; X·(100 ms + 200 ms) = 30 users.
        assert!(close(step(40, "avg=100ms").users_at_cap(), 30.0));
        // The tightest rule decides; a rule the step keeps puts the cap above its users.
        assert!(close(step(20, "avg=100ms,payment.p90=1s").users_at_cap(), 10.0));
        assert!(close(step(20, "avg=400ms").users_at_cap(), 40.0));
        // An open loop's step has no users to aim at, nor a step without a cap.
        let mut open = step(20, "avg=100ms");
        open.arrivals = Some(crate::model::arrivals::StepArrivals::default());
        assert_eq!(open.users_at_cap(), None);
        assert_eq!(Step { cap: None, ..step(20, "avg=1s") }.users_at_cap(), None);
        // Nor a window under ten times its slowest figure: a mean of 200 ms wants 2 s, the window is 1.
        let short = Step { duration_s: 1.0, ..step(20, "avg=100ms") };
        assert_eq!(short.users_at_cap(), None);
        assert!(Step { duration_s: 2.0, ..short }.users_at_cap().is_some());
    }

    #[test]
    fn tpcc_tps_and_nopm_count_rollbacks() {
        let t = Transactions::from([
            ("new_order".into(), txn(450, 10_000, 5)),
            ("payment".into(), txn(430, 5_000, 0)),
            ("order_status".into(), txn(40, 2_000, 0)),
            ("delivery".into(), txn(40, 50_000, 0)),
            ("stock_level".into(), txn(40, 20_000, 0)),
        ]);
        let step = Step::new(Workload::Tpcc, plan(60.0), BTreeMap::from([("db".into(), t)]));
        let f = &step.figures;
        assert!((f.tps - 1000.0 / 60.0).abs() < 1e-9);
        assert_eq!(f.nopm, Some(450.0), "5.4.2: the 5 rolled-back New-Orders count");
        assert_eq!(f.opm, None);
        assert_eq!(f.rollbacks, 5);
        assert!(step.targets.is_empty());
        // 3 significant digits: within 0.1% of the exact mean.
        let exact_ms = (450.0 * 10.0 + 430.0 * 5.0 + 40.0 * 2.0 + 40.0 * 50.0 + 40.0 * 20.0) / 1000.0;
        assert!((f.rt_avg_ms - exact_ms).abs() / exact_ms < 1e-3, "{} vs {exact_ms}", f.rt_avg_ms);
    }

    #[test]
    fn a_figure_of_a_type_not_measured_is_absent_not_zero() {
        // A TPC-C step holding no New-Order statistics has no NOPM; one whose New-Orders were 0 has 0.
        let payments = Transactions::from([("payment".into(), txn(10, 1_000, 0))]);
        let step = Step::new(Workload::Tpcc, plan(60.0), BTreeMap::from([("db".into(), payments.clone())]));
        assert_eq!(step.figures.nopm, None);
        let mut none_done = payments;
        none_done.insert("new_order".into(), txn(0, 1_000, 0));
        let step = Step::new(Workload::Tpcc, plan(60.0), BTreeMap::from([("db".into(), none_done)]));
        assert_eq!(step.figures.nopm, Some(0.0), "counted, none: 0");
        // A DS2 step in which no order completed has no order means.
        let t = Transactions::from([(ORDER.into(), txn(0, 1, 0)), (RT_TOT.into(), txn(0, 1, 0))]);
        let step = Step::new(Workload::Ds2, plan(60.0), BTreeMap::from([("db".into(), t)]));
        assert_eq!(
            (step.figures.opm, step.figures.rt_tot_avg_ms, step.figures.order_rt_avg_ms),
            (Some(0.0), None, None)
        );
        let line = crate::render::text::ds2::step_line(&step);
        assert!(line.contains("OPM 0  rt_tot_avg - ms  order avg - ms  order p95 - ms"), "{line}");
    }

    #[test]
    fn ds2_order_is_opm_and_rt_tot_but_not_tps() {
        let t = Transactions::from([
            ("login".into(), txn(100, 1_000, 0)),
            ("purchase".into(), txn(100, 3_000, 2)),
            ("order".into(), txn(100, 9_000, 2)),
            ("rt_tot".into(), txn(100, 4_000, 2)),
        ]);
        let a = Step::new(Workload::Ds2, plan(30.0), BTreeMap::from([("a".into(), t.clone())]));
        assert!((a.figures.tps - 200.0 / 30.0).abs() < 1e-9, "neither composite is a transaction");
        assert_eq!(a.figures.opm, Some(200.0), "rolled-back orders count, as DS2 counts them");
        assert_eq!(a.figures.nopm, None);
        assert_eq!(a.figures.rollbacks, 2, "the purchase's rollbacks, counted once");
        let tot = a.figures.rt_tot_avg_ms.unwrap();
        assert!((tot - 4.0).abs() < 0.01, "DS2's rt_tot_avg is the operations' sum: {tot}");
        let order = a.figures.order_rt_avg_ms.unwrap();
        assert!((order - 9.0).abs() < 0.01, "the whole order, from its intended start: {order}");
        assert!((a.figures.rt_avg_ms - 2.0).abs() < 0.01, "{}", a.figures.rt_avg_ms);

        let two =
            Step::new(Workload::Ds2, plan(30.0), BTreeMap::from([("a".into(), t.clone()), ("b".into(), t)]));
        assert_eq!(two.targets.len(), 2);
        assert_eq!(two.figures.opm, Some(400.0));
        assert_eq!(two.targets["b"].opm, Some(200.0));
    }

    #[test]
    fn zero_duration_gives_zero_rates() {
        let t = Transactions::from([("new_order".into(), txn(5, 1_000, 0))]);
        let step = Step::new(Workload::Tpcc, plan(0.0), BTreeMap::from([("db".into(), t)]));
        assert_eq!((step.figures.tps, step.figures.nopm), (0.0, Some(0.0)));
    }
}
