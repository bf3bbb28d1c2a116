//! A step's audit as the result holds it ([`Audit`]): the checks a TPC-C auditor makes before trusting
//! a throughput figure, each an [`AuditCheck`] with its [`Verdict`], and the names of the counters the
//! driver keeps for them ([`TPCC_COUNTERS`]). How the checks are made is
//! [`crate::stats::audit`]'s; how they are printed, the renderers'.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The counters TPC-C's user loop keeps per transaction, by name (the driver's workload declares the
/// same names, in this order).
pub const TPCC_COUNTERS: [&str; 6] = [
    ORDER_LINES,
    REMOTE_ORDER_LINES,
    REMOTE_PAYMENTS,
    BY_NAME_PAYMENTS,
    BY_NAME_ORDER_STATUS,
    SKIPPED_DISTRICTS,
];
/// Lines of completed New-Orders.
pub const ORDER_LINES: &str = "order_lines";
/// Of those, lines supplied by another warehouse (2.4.1.5.2).
pub const REMOTE_ORDER_LINES: &str = "remote_order_lines";
/// Completed Payments for a customer of another warehouse (2.5.1.2).
pub const REMOTE_PAYMENTS: &str = "remote_payments";
/// Completed Payments that chose the customer by last name (2.5.1.2).
pub const BY_NAME_PAYMENTS: &str = "by_name_payments";
/// Completed Order-Status transactions that chose the customer by last name (2.6.1.2).
pub const BY_NAME_ORDER_STATUS: &str = "by_name_order_status";
/// Districts completed Deliveries skipped for want of a new order (2.7.4.2).
pub const SKIPPED_DISTRICTS: &str = "skipped_districts";

/// The check of keying and think times (5.2.5): it flags a step run without the spec's pacing.
pub const PACING_CHECK: &str = "keying and think times";
/// The check of ten users per warehouse (4.2.2): the spec's terminals, each paced. A user without
/// keying and think times does the work of several such terminals, so an unpaced run is sized by its
/// throughput, not by this ratio.
pub const USERS_PER_WAREHOUSE_CHECK: &str = "users per warehouse";
/// The check of a user on every warehouse (4.2.2): the spec's ten terminals per warehouse give each one
/// a user. A run sized by its throughput rather than by this ratio leaves warehouses without one at
/// any step below one user per warehouse (a sweep from 8 users on 10 warehouses), by design.
pub const WAREHOUSES_WITH_A_USER_CHECK: &str = "warehouses with a user";
/// The checks a run without the spec's pacing is expected to flag: the pacing itself, and the users
/// per warehouse and warehouses with a user that its sizing by throughput goes with. The other checks
/// judge the generator whatever the pacing.
const PACING_SHAPED: [&str; 3] = [PACING_CHECK, USERS_PER_WAREHOUSE_CHECK, WAREHOUSES_WITH_A_USER_CHECK];

/// What a check concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within the spec's bound.
    Pass,
    /// Outside it: the step's figures are not those of a run that keeps the rule.
    Flag,
    /// Too few transactions for the share to tell the bound from chance: no verdict.
    TooFew,
    /// The rule cannot apply to this run: a remote share (2.4.1.5.2, 2.5.1.2) at one warehouse, where
    /// there is no other warehouse to supply an order line or to pay at. The only such case of TPC-C's
    /// audit, so the mark names it.
    NotApplicable,
}

impl Verdict {
    /// The mark the text and HTML reports print.
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Flag => "FLAG",
            Verdict::TooFew => "too few to judge",
            Verdict::NotApplicable => "not applicable at one warehouse",
        }
    }
}

/// One audited figure of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditCheck {
    /// The spec clause that sets the bound.
    pub clause: String,
    /// What is measured, e.g. `remote order lines`.
    pub name: String,
    /// The observed value (a percentage, a count per warehouse, or 1/0 for on/off).
    pub value: f64,
    /// The value as the reports print it, e.g. `1.02%`, `on`.
    pub shown: String,
    /// The spec's bound as the reports print it, e.g. `0.95–1.05%`.
    pub bound: String,
    /// What chance alone spreads this share by over this many transactions (3 σ), in percentage
    /// points: the allowance the verdict made beyond `bound`, so a reader sees why 3.93% passes
    /// `>= 4.0%` (±0.22). Absent where the verdict allows nothing for chance (on/off, counts, limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
}

/// A step's audit: the counters it was computed from and the checks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Audit {
    /// The workload's audit counters over the step's window, by name.
    pub counters: BTreeMap<String, u64>,
    /// The checks, in the spec's order.
    pub checks: Vec<AuditCheck>,
    /// What a reader must know to compare the step with others (e.g. that Delivery ran inline).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Audit {
    /// Checks that flagged.
    pub fn flagged(&self) -> impl Iterator<Item = &AuditCheck> {
        self.checks.iter().filter(|c| c.verdict == Verdict::Flag)
    }

    /// Whether the step ran without the spec's keying and think times, as its pacing check recorded.
    pub fn unpaced(&self) -> bool {
        self.checks.iter().any(|c| c.name == PACING_CHECK && c.verdict == Verdict::Flag)
    }

    /// Whether flagged check `c` is what a run without the spec's pacing is expected to flag (the
    /// pacing, the users per warehouse, the warehouses with a user), rather than a sign that the load departed from the spec's
    /// rules: a flat-out run, such as the README's first command, flags these by design.
    pub fn expected_unpaced(&self, c: &AuditCheck) -> bool {
        c.verdict == Verdict::Flag && PACING_SHAPED.contains(&c.name.as_str()) && self.unpaced()
    }
}
