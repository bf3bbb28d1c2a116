//! The statistics the published studies derive from raw figures (`spec/reports-we-reproduce.md`):
//! ratios and changes between configurations ([`ratio`], [`percent_change`]), spread across clients
//! ([`variability`]), the median of repeated runs ([`median_index`], [`median_run`]), throughput per
//! watt ([`Power::new`]) and cost per unit of throughput ([`Cost::new`]).
//!
//! Each returns `None` rather than a NaN or an infinity when its inputs leave it undefined (a zero
//! baseline, no values), so a report prints "n/a" instead of a nonsense number.
//!
//! Its modules judge and combine results: the response-time cap and the headline
//! ([`cap::max_within_cap`]), TPC-C's audit ([`audit::tpcc`]), Welch's t-test over repeated runs
//! ([`significance::welch`]), two results compared ([`compare::compare`]), several merged into one
//! ([`merge::merge`]), a disk's storage model from its counters ([`io_model::Model`]), the power
//! meters' logs ([`power`]), and whether a step was steady ([`steady`]).
//!
//! ```
//! use oltpgen_report::stats::{percent_change, ratio};
//! assert_eq!(ratio(689.0, 205.0).map(|r| format!("{r:.2}")), Some("3.36".into()));
//! assert_eq!(percent_change(146_931.0, 281_741.0).map(|p| format!("{p:.1}")), Some("91.8".into()));
//! ```

pub mod agents;
pub mod audit;
pub mod cap;
pub mod compare;
pub mod io_model;
pub mod merge;
pub mod merge_kept;
pub mod power;
pub mod significance;
pub mod steady;

use std::collections::BTreeMap;

use crate::model::{Cost, Figures, Power, Step};

/// `numerator / denominator`: a speed-up (3.36× = 689 / 205), a rate per watt, a cost per unit.
/// `None` when the denominator is zero or the quotient is not finite.
pub fn ratio(numerator: f64, denominator: f64) -> Option<f64> {
    let r = numerator / denominator;
    (denominator != 0.0 && r.is_finite()).then_some(r)
}

/// The change from `before` to `after` in percent (+91.8% = 281,741 against 146,931 OPM).
/// `None` when `before` is zero.
pub fn percent_change(before: f64, after: f64) -> Option<f64> {
    ratio(after, before).map(|r| (r - 1.0) * 100.0)
}

/// How unevenly clients fared: `(max − min) / max` over their throughputs, as a fraction
/// (0.291 for 29.1%). `None` without values or when the largest is not above zero.
pub fn variability(values: &[f64]) -> Option<f64> {
    let max = values.iter().copied().reduce(f64::max)?;
    let min = values.iter().copied().reduce(f64::min)?;
    (max > 0.0).then(|| (max - min) / max)
}

/// The position of the median of `values`. With an even count it is the lower of the two middle
/// values: a median that is one of the runs, never an average of two, so its run can be shown
/// whole. Equal values keep their order. `None` when empty.
pub fn median_index(values: &[f64]) -> Option<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    order.get(values.len().checked_sub(1)? / 2).copied()
}

/// The run (`Step::run`) to report when `--runs` repeated the sweep: the one with the median headline,
/// as the studies report "the median of 3 runs" by their published figure. A run's headline is its
/// best step within the cap ([`cap::best_step_within_cap`]) in NOPM (TPC-C) or OPM (DS2), TPS when the
/// workload has neither; a run with no step within the cap counts as zero. For an even number of runs
/// the lower-middle one is chosen ([`median_index`]). `None` when there are no steps.
pub fn median_run(steps: &[Step]) -> Option<u32> {
    let mut runs: BTreeMap<u32, Vec<Step>> = BTreeMap::new();
    for s in steps {
        runs.entry(s.run).or_default().push(s.clone());
    }
    let headlines: Vec<f64> = runs.values().map(|run| run_headline(run).unwrap_or(0.0)).collect();
    runs.keys().nth(median_index(&headlines)?).copied()
}

/// The headline figure of one run's `steps`: its best step within the cap, in NOPM or OPM (TPS when the
/// workload has neither); `None` when no step kept within the cap.
pub fn run_headline(steps: &[Step]) -> Option<f64> {
    cap::best_step_within_cap(steps).map(|s| headline_rate(&s.figures))
}

/// The throughput a per-watt or per-dollar figure is quoted in: NOPM or OPM when the workload
/// has one, else TPS.
fn headline_rate(basis: &Figures) -> f64 {
    basis.per_minute().unwrap_or(basis.tps)
}

impl Power {
    /// Power figures for a run whose `basis` figures (the headline step's) were achieved at
    /// `active_w` mean watts: `per_watt` = NOPM/W or OPM/W (TPS/W when neither applies).
    /// `None` when `active_w` is not above zero.
    pub fn new(idle_w: Option<f64>, active_w: f64, basis: &Figures) -> Option<Power> {
        let per_watt = ratio(headline_rate(basis), active_w).filter(|_| active_w > 0.0)?;
        Some(Power { idle_w, active_w, per_watt })
    }
}

impl Cost {
    /// Cost figures for a system that cost `system_cost_usd`: dollars per TPS and per NOPM/OPM of
    /// the `basis` figures (the headline step's). Without a basis, or with zero throughput, the
    /// per-unit figures are `None`.
    pub fn new(system_cost_usd: f64, basis: Option<&Figures>) -> Cost {
        Cost {
            system_cost_usd,
            per_tps_usd: basis.and_then(|f| ratio(system_cost_usd, f.tps)),
            per_minute_unit_usd: basis.and_then(|f| ratio(system_cost_usd, f.per_minute()?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::tpcc_step;
    use crate::model::Workload;
    use crate::model::step::Transactions;
    use crate::model::step::tests::txn;

    /// Figures of a DS2 step with `opm` orders per minute (a one-minute window).
    fn ds2(opm: u64) -> Figures {
        let t = Transactions::from([("order".to_string(), txn(opm, 1_000, 0))]);
        Figures::from_transactions(Workload::Ds2.descriptor(), t, 60.0)
    }

    fn pct(v: Option<f64>) -> String {
        format!("{:.1}", v.unwrap())
    }

    // ---- Study 1: DVD Store 2.1, eight databases, SSD against HDD ----

    #[test]
    fn study1_medians_and_the_91_8_percent_gain() {
        let hdd = [146_413.0, 149_141.0, 146_931.0];
        let ssd = [283_211.0, 281_741.0, 280_464.0];
        let hdd_median = hdd[median_index(&hdd).unwrap()];
        let ssd_median = ssd[median_index(&ssd).unwrap()];
        assert_eq!((hdd_median, ssd_median), (146_931.0, 281_741.0));
        assert_eq!(format!("+{}%", pct(percent_change(hdd_median, ssd_median))), "+91.8%");
    }

    #[test]
    fn study1_opm_per_watt_gain_of_184_percent() {
        let hdd = Power::new(None, 483.8, &ds2(146_931)).unwrap();
        let ssd = Power::new(None, 326.4, &ds2(281_741)).unwrap();
        assert_eq!(format!("{:.1} {:.1}", hdd.per_watt, ssd.per_watt), "303.7 863.2");
        assert_eq!(format!("{:+.0}%", percent_change(hdd.per_watt, ssd.per_watt).unwrap()), "+184%");
    }

    // ---- Study 2: DVD Store 2, one 20 GB database ----

    #[test]
    fn study2_median_of_three_runs() {
        let runs = [64_973.7, 67_356.7, 64_203.0];
        assert_eq!(runs[median_index(&runs).unwrap()], 64_973.7);
    }

    // ---- Study 3: DVD Store 2.1, 4 to 24 databases, variability and cost ----

    #[test]
    fn study3_variability_across_clients() {
        assert_eq!(pct(variability(&[5_567.0, 6_055.0, 4_823.0, 4_291.0]).map(|v| v * 100.0)), "29.1");
        assert_eq!(pct(variability(&[4_719.0, 7_376.0, 7_628.0, 4_362.0]).map(|v| v * 100.0)), "42.8");
        assert_eq!(pct(variability(&[46_627.0, 46_597.0, 46_819.0, 46_561.0]).map(|v| v * 100.0)), "0.6");
    }

    #[test]
    fn study3_cost_per_opm() {
        let small = Cost::new(10_994.88, Some(&ds2(24_433)));
        let large = Cost::new(32_013.19, Some(&ds2(246_255)));
        assert_eq!(format!("${:.2}", small.per_minute_unit_usd.unwrap()), "$0.45");
        assert_eq!(format!("${:.2}", large.per_minute_unit_usd.unwrap()), "$0.13");
        // The fixture holds only DS2's composite `order`, which TPS leaves out: no per-TPS figure.
        assert_eq!(small.per_tps_usd, None);
    }

    // ---- Study 4: TPC-C-style user-load steps with a response-time cap ----

    #[test]
    fn study4_speedups() {
        assert_eq!(format!("{:.2}×", ratio(689.0, 205.0).unwrap()), "3.36×");
        assert_eq!(format!("{:.2}×", ratio(2_586.0, 516.0).unwrap()), "5.01×");
    }

    // ---- the helpers' edges ----

    #[test]
    fn undefined_inputs_give_none() {
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(ratio(0.0, 0.0), None);
        assert_eq!(percent_change(0.0, 5.0), None);
        assert_eq!(percent_change(200.0, 100.0), Some(-50.0));
        assert_eq!(variability(&[]), None);
        assert_eq!(variability(&[0.0, 0.0]), None);
        assert_eq!(variability(&[7.0]), Some(0.0));
        assert_eq!(median_index(&[]), None);
        assert_eq!(Power::new(Some(100.0), 0.0, &ds2(100)), None);
        assert_eq!(
            Cost::new(1_000.0, None),
            Cost { system_cost_usd: 1_000.0, per_tps_usd: None, per_minute_unit_usd: None }
        );
    }

    #[test]
    fn cost_and_power_of_a_tpcc_step_use_nopm_and_tps() {
        let t = Transactions::from([
            ("new_order".to_string(), txn(600, 1_000, 0)),
            ("payment".to_string(), txn(600, 1_000, 0)),
        ]);
        let f = Figures::from_transactions(Workload::Tpcc.descriptor(), t, 60.0);
        let cost = Cost::new(2_000.0, Some(&f));
        assert_eq!((cost.per_tps_usd, cost.per_minute_unit_usd), (Some(100.0), Some(2_000.0 / 600.0)));
        assert_eq!(Power::new(Some(50.0), 200.0, &f).map(|p| p.per_watt), Some(3.0));
    }

    #[test]
    fn an_even_number_of_values_takes_the_lower_middle() {
        assert_eq!(median_index(&[4.0, 1.0, 3.0, 2.0]), Some(3));
        assert_eq!(median_index(&[5.0, 5.0]), Some(0));
    }

    #[test]
    fn median_run_is_the_run_with_the_median_headline_not_the_median_mean() {
        let cap = crate::stats::cap::Cap::default_for(Workload::Tpcc);
        let step = |run: u32, index: u32, new_orders: u64| {
            let mut s = tpcc_step(index, 10, (new_orders, new_orders), 1_000, Some(&cap));
            s.run = run;
            s
        };
        let steps = [step(1, 0, 1_000), step(2, 0, 100), step(2, 1, 1_300), step(3, 0, 1_200)];
        // By the mean over its steps run 1 (1,000 NOPM; run 2 700, run 3 1,200) would be the median; by the
        // headline (1,000 / 1,300 / 1,200), run 3 is.
        assert_eq!(median_run(&steps), Some(3));
        // Two runs: the lower one; a run with no step within the cap counts as zero.
        assert_eq!(median_run(&steps[..3]), Some(1));
        let mut over = step(3, 0, 5_000);
        over.cap.as_mut().unwrap().passed = false;
        assert_eq!(median_run(&[step(1, 0, 1_000), step(2, 0, 1_300), over]), Some(1));
        assert_eq!(median_run(&[]), None);
    }
}
