//! DS2's progress in its driver's terms: a tick's running totals since the statistics were last reset
//! ([`Ds2Progress`]), the interval that just ended ([`Ds2Interval`]) and the operations' counts
//! ([`OpCounts`]). The driver computes them as a run goes; DS2's progress line
//! ([`crate::render::text::ds2`]) and `--csv-output` ([`crate::render::csv::ds2`]) print them.

/// Counts of DS2's operations (the three browses together, as DS2 counts them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Logins.
    pub logins: u64,
    /// Registrations.
    pub new_customers: u64,
    /// Browses of any kind.
    pub browses: u64,
    /// Purchases.
    pub purchases: u64,
}

/// One progress interval of DS2 orders, for every database together or one of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ds2Interval {
    /// The interval's length, seconds.
    pub span_s: f64,
    /// Orders completed in it (rolled back or not).
    pub orders: u64,
    /// Of them, rolled back for want of stock.
    pub rollbacks: u64,
    /// Orders failed in it.
    pub errors: u64,
    /// DS2's `rt_tot_sampled`: the mean `rt_tot` of the interval's orders, ms.
    pub rt_tot_avg_ms: f64,
    /// The largest `rt_tot` of the interval, ms.
    pub rt_tot_max_ms: f64,
    /// The mean whole order from its intended start, ms (oltpgen's figure).
    pub order_avg_ms: f64,
    /// The largest whole order from its intended start, ms.
    pub order_max_ms: f64,
    /// The operations completed in it.
    pub ops: OpCounts,
}

/// A progress tick in DS2's terms: running totals since the statistics were last reset, as DS2's
/// driver prints them, and the interval that just ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ds2Progress {
    /// Seconds since the run began.
    pub run_s: f64,
    /// Seconds since the statistics were last reset (DS2's `et`).
    pub et_s: f64,
    /// Users running.
    pub users: u64,
    /// Orders completed since the reset (DS2's `n_overall`).
    pub n_overall: u64,
    /// Of them, rolled back (DS2's `n_rollbacks_overall`).
    pub rollbacks: u64,
    /// Orders failed since the reset (DS2 has none: its threads exit).
    pub errors: u64,
    /// DS2's `rt_tot_avg`: the mean `rt_tot` since the reset, ms.
    pub rt_tot_avg_ms: f64,
    /// DS2's `rt_tot_lastn_max`: the largest `rt_tot` of the last 100 orders since the reset, ms.
    pub rt_tot_lastn_max_ms: f64,
    /// The mean whole order from its intended start since the reset, ms (oltpgen's figure).
    pub order_rt_avg_ms: f64,
    /// The operations completed since the reset.
    pub ops: OpCounts,
    /// The interval that just ended.
    pub interval: Ds2Interval,
}

impl Ds2Progress {
    /// DS2's `opm`: orders per minute since the reset, as its driver rounds it (down).
    pub fn opm(&self) -> u64 {
        if self.et_s > 0.0 { (60.0 * self.n_overall as f64 / self.et_s).floor() as u64 } else { 0 }
    }
}
