//! Steady state, measured: a step's throughput trend across its window, from the time series' intervals,
//! and whether it is more than their noise. The studies chose their steady window (1,000 to 1,200 s) by
//! eye; this says for every step whether its throughput still climbed or sagged while it was measured.
//!
//! ```
//! use oltpgen_report::stats::steady::slope_test;
//! // Ten intervals climbing 1 TPS a 10 s interval around 100 TPS: 6 TPS a minute, 6% a minute.
//! let points: Vec<(f64, f64)> = (0..10).map(|i| (10.0 * i as f64, 95.5 + i as f64 + if i % 2 == 0 { 0.3 } else { -0.3 })).collect();
//! let t = slope_test(&points).unwrap();
//! assert!((t.pct_per_min - 6.0).abs() < 0.2 && t.significant);
//! ```

use std::collections::BTreeMap;

use crate::model::descriptor::Descriptor;
use crate::model::{IntervalRow, Trend, Window};
use crate::stats::significance::{ALPHA, two_sided_p};

/// The trend of the throughput (every business transaction's, per interval: `workload`'s composite
/// entries left out) over the intervals of `timeseries` lying within `window` (their `interval_s` spans
/// ending inside it, the first starting no earlier than its start). `None` with fewer than three such
/// intervals.
pub fn trend(
    workload: &Descriptor,
    timeseries: &[IntervalRow],
    window: Window,
    interval_s: f64,
) -> Option<Trend> {
    // A hundredth of an interval of slack for the clock's rounding.
    let slack = interval_s / 100.0;
    let mut per_interval: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for row in timeseries.iter().filter(|r| !workload.is_composite(&r.txn)) {
        let inside =
            row.elapsed_s - interval_s >= window.start_s - slack && row.elapsed_s <= window.end_s + slack;
        if inside {
            let key = (row.elapsed_s * 1_000.0).round() as u64;
            per_interval.entry(key).or_insert((row.elapsed_s, 0.0)).1 += row.tps;
        }
    }
    let points: Vec<(f64, f64)> = per_interval.into_values().collect();
    slope_test(&points)
}

/// The least-squares slope of `points` (seconds, throughput) in percent of their mean per minute, and
/// its two-sided p-value by Student's t with n − 2 degrees of freedom. `None` with fewer than three
/// points, no spread in time or a mean of zero.
pub fn slope_test(points: &[(f64, f64)]) -> Option<Trend> {
    let n = points.len();
    if n < 3 {
        return None;
    }
    let nf = n as f64;
    let (mx, my) =
        (points.iter().map(|p| p.0).sum::<f64>() / nf, points.iter().map(|p| p.1).sum::<f64>() / nf);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 || my <= 0.0 {
        return None;
    }
    let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx;
    let residual: f64 = points.iter().map(|p| (p.1 - my - slope * (p.0 - mx)).powi(2)).sum();
    let se = (residual / (nf - 2.0) / sxx).sqrt();
    let p_value = if se > 0.0 {
        two_sided_p(slope / se, nf - 2.0)
    } else if slope == 0.0 {
        1.0
    } else {
        0.0
    };
    Some(Trend {
        pct_per_min: slope * 60.0 / my * 100.0,
        p_value,
        intervals: n as u32,
        significant: p_value < ALPHA,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::interval_row;
    use crate::model::Workload;

    #[test]
    fn a_flat_noisy_step_is_steady_and_a_sagging_one_is_not() {
        let noise = [3.0, -2.0, 1.0, -4.0, 2.0, 0.0, -1.0, 3.0, -3.0, 1.0];
        let flat: Vec<(f64, f64)> =
            noise.iter().enumerate().map(|(i, e)| (10.0 * i as f64, 200.0 + e)).collect();
        let t = slope_test(&flat).unwrap();
        assert!(!t.significant && t.pct_per_min.abs() < 1.0, "{t:?}");
        let sagging: Vec<(f64, f64)> =
            noise.iter().enumerate().map(|(i, e)| (10.0 * i as f64, 200.0 - 4.0 * i as f64 + e)).collect();
        let t = slope_test(&sagging).unwrap();
        assert!(
            t.significant && (t.pct_per_min + 13.2).abs() < 0.3,
            "-24 TPS a minute on a mean of 182: {t:?}"
        );
        assert_eq!(slope_test(&flat[..2]), None, "two intervals say nothing");
    }

    #[test]
    fn the_trend_reads_the_window_s_intervals_summing_transactions_and_leaving_composites_out() {
        let mut rows = Vec::new();
        for (i, tps) in [50.0, 100.0, 110.0, 120.0, 130.0, 10.0].into_iter().enumerate() {
            let at = 10.0 * (i + 1) as f64;
            rows.push(IntervalRow { tps: tps / 2.0, ..interval_row(at, "new_order", 0, 1.0, 1.0) });
            rows.push(IntervalRow { tps: tps / 2.0, ..interval_row(at, "payment", 0, 1.0, 1.0) });
            rows.push(IntervalRow { tps: 1e6, ..interval_row(at, "order", 0, 1.0, 1.0) });
        }
        // The window 10..50 s holds the intervals ending at 20, 30, 40 and 50 s: 100, 110, 120, 130 TPS.
        let window = Window { start_s: 10.0, end_s: 50.0 };
        let t = trend(Workload::Ds2.descriptor(), &rows, window, 10.0).unwrap();
        assert_eq!(t.intervals, 4);
        assert!((t.pct_per_min - 60.0 / 115.0 * 100.0).abs() < 1e-9, "{t:?}");
        assert_eq!(t.p_value, 0.0, "a straight line: no noise at all");
        // A workload whose `order` is a transaction of its own (no composite): it counts, and swamps the rest.
        let mut own = crate::fixtures::kv_descriptor();
        own.transactions.push("order".into());
        let t = trend(&own, &rows, window, 10.0).unwrap();
        assert!(t.pct_per_min.abs() < 0.01, "{t:?}");
    }
}
