//! A run's time series summed per report interval over the transaction types a chart keeps
//! ([`intervals_of`]): what the charts over time of both pages draw.

use std::collections::BTreeMap;

use crate::model::RunResult;

/// One report interval over all transaction types.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Interval {
    /// Completed transactions.
    pub(crate) count: u64,
    /// Total transactions per second.
    pub(crate) tps: f64,
    /// Sum of each type's mean times its count, ms: the count-weighted mean's numerator.
    pub(crate) weighted_ms: f64,
    /// The highest p95 of any type, ms: an upper bound of the interval's p95.
    pub(crate) p95_max_ms: f64,
}

/// The report intervals of the transaction types `txn` keeps, keyed by their end in ms.
pub(crate) fn intervals_of(r: &RunResult, txn: impl Fn(&str) -> bool) -> BTreeMap<u64, Interval> {
    let mut at: BTreeMap<u64, Interval> = BTreeMap::new();
    for row in r.timeseries.iter().filter(|row| txn(&row.txn)) {
        let e = at.entry((row.elapsed_s * 1e3).round() as u64).or_default();
        e.count += row.count;
        e.tps += row.tps;
        e.weighted_ms += row.avg_ms * row.count as f64;
        e.p95_max_ms = e.p95_max_ms.max(row.p95_ms);
    }
    at
}
