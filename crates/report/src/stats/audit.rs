//! A step's audit figures: the shares a TPC-C auditor checks before trusting a throughput figure
//! (observed mix, rollbacks, remote lines and Payments, by-name selections, skipped Deliveries, pacing,
//! users per warehouse), each beside the spec's bound with a verdict ([`tpcc`], [`judge_range`],
//! [`judge_minimum`]), making the [`Audit`] a step holds.
//!
//! The driver counts what it needs per step (workload-neutral counters named by the workload); the
//! shares, bounds and verdicts are computed here, from the counters and the step's transactions.
//!
//! ```
//! use std::collections::BTreeMap;
//! use oltpgen_report::model::audit::Verdict;
//! use oltpgen_report::stats::audit::judge_range;
//! // 1,000 rollbacks in 100,000 New-Orders: within 2.4.1.4's audited 0.90–1.10%.
//! assert_eq!(judge_range(1_000, 100_000, (0.90, 1.10)), Verdict::Pass);
//! // 10 in 1,000 cannot tell 1% from 0.8%: too few to judge.
//! assert_eq!(judge_range(10, 1_000, (0.90, 1.10)), Verdict::TooFew);
//! ```

use std::collections::BTreeMap;

use crate::model::audit::{
    Audit, AuditCheck, BY_NAME_ORDER_STATUS, BY_NAME_PAYMENTS, ORDER_LINES, REMOTE_ORDER_LINES,
    REMOTE_PAYMENTS, SKIPPED_DISTRICTS, Verdict,
};
use crate::model::{Step, TPCC_TRANSACTIONS, TxnStats};

/// What a TPC-C audit needs to know of the run beyond the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TpccAuditPlan {
    /// Keying and think times as the spec sets them (both on).
    pub paced: bool,
    /// Warehouses loaded.
    pub warehouses: u32,
}

/// How many standard deviations of chance a share's audited range must hold before it is judged.
const SIGMAS: f64 = 3.0;

/// Judges `hits` of `n` (a binomial share) against the audited range `(lo, hi)` in percent: too few
/// when chance alone (3 σ at the range's middle) would spread wider than the range, else pass or flag.
pub fn judge_range(hits: u64, n: u64, (lo, hi): (f64, f64)) -> Verdict {
    let p = (lo + hi) / 200.0;
    let half = (hi - lo) / 200.0;
    if n == 0 || (n as f64) < SIGMAS * SIGMAS * p * (1.0 - p) / (half * half) {
        return Verdict::TooFew;
    }
    let share = percent(hits, n);
    if (lo..=hi).contains(&share) { Verdict::Pass } else { Verdict::Flag }
}

/// Judges the share `hits` of `n` against a minimum percentage (5.2.3's mix): too few under 1,000
/// transactions; a flag only when the shortfall is beyond chance (3 σ), as a mix dealt from exact decks
/// over a window that cuts decks part-way sits on either side of its minimum by a little.
pub fn judge_minimum(hits: u64, n: u64, min: f64) -> Verdict {
    const ENOUGH: u64 = 1_000;
    if n < ENOUGH {
        return Verdict::TooFew;
    }
    let p = min / 100.0;
    let slack = 100.0 * SIGMAS * (p * (1.0 - p) / n as f64).sqrt();
    if percent(hits, n) >= min - slack { Verdict::Pass } else { Verdict::Flag }
}

fn percent(hits: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { 100.0 * hits as f64 / n as f64 }
}

fn share_check(clause: &str, name: &str, hits: u64, n: u64, bound: &str, verdict: Verdict) -> AuditCheck {
    let value = percent(hits, n);
    AuditCheck {
        clause: clause.into(),
        name: name.into(),
        value,
        shown: format!("{value:.2}% ({hits}/{n})"),
        bound: bound.into(),
        verdict,
    }
}

/// 5.2.3: the minimum share of each transaction type but New-Order (which takes the rest), in the order
/// of [`TPCC_TRANSACTIONS`].
const MIX_MINIMUMS: [(&str, f64); 5] = [
    ("New-Order share", 0.0),
    ("Payment share", 43.0),
    ("Order-Status share", 4.0),
    ("Delivery share", 4.0),
    ("Stock-Level share", 4.0),
];

/// TPC-C's audit of `step`, from the workload's `counters` over the step's window: the mix, the
/// audited ranges, skipped Deliveries, then the load's pacing and spread over the warehouses.
pub fn tpcc(step: &Step, counters: BTreeMap<String, u64>, plan: TpccAuditPlan) -> Audit {
    let count = |name: &str| step.figures.transactions.get(name).map_or(0, |t: &TxnStats| t.count);
    let counter = |name: &str| counters.get(name).copied().unwrap_or(0);
    let mut checks = mix_checks(&count);
    checks.extend(range_checks(step, &count, &counter));
    checks.push(delivery_check(count("delivery"), counter(SKIPPED_DISTRICTS)));
    checks.extend(load_checks(step.users, plan));
    let notes = vec![DELIVERY_INLINE.to_string()];
    Audit { counters, checks, notes }
}

/// 5.2.3: each transaction type's share of the mix against its minimum, from each type's `count`.
fn mix_checks(count: &dyn Fn(&str) -> u64) -> Vec<AuditCheck> {
    let total: u64 = TPCC_TRANSACTIONS.iter().map(|name| count(name)).sum();
    let mut checks = Vec::new();
    for (txn, (title, min)) in TPCC_TRANSACTIONS.into_iter().zip(MIX_MINIMUMS) {
        let (hits, verdict) = (count(txn), judge_minimum(count(txn), total, min));
        let bound = if min > 0.0 { format!(">= {min:.1}%") } else { "the rest (45%)".into() };
        checks.push(share_check("5.2.3", title, hits, total, &bound, verdict));
    }
    checks
}

/// The audited ranges of the spec's result summary (rollbacks, remote lines and Payments, by-name
/// selections), from the step's transactions and the workload's counters (`counter`).
fn range_checks(step: &Step, count: &dyn Fn(&str) -> u64, counter: &dyn Fn(&str) -> u64) -> Vec<AuditCheck> {
    let txns = &step.figures.transactions;
    let new_orders = txns.get(TPCC_TRANSACTIONS[0]).map_or((0, 0), |t| (t.count, t.rollbacks));
    // The audited ranges of the spec's result summary; the clause is the rule each follows from.
    // (clause, name, hits, of, audited range %)
    type Range<'a> = (&'a str, &'a str, u64, u64, (f64, f64));
    let ranges: [Range; 5] = [
        ("2.4.1.4", "New-Order rollbacks", new_orders.1, new_orders.0, (0.90, 1.10)),
        ("2.4.1.5.2", "remote order lines", counter(REMOTE_ORDER_LINES), counter(ORDER_LINES), (0.95, 1.05)),
        ("2.5.1.2", "remote Payments", counter(REMOTE_PAYMENTS), count("payment"), (14.25, 15.75)),
        ("2.5.1.2", "Payments by last name", counter(BY_NAME_PAYMENTS), count("payment"), (57.0, 63.0)),
        (
            "2.6.1.2",
            "Order-Status by last name",
            counter(BY_NAME_ORDER_STATUS),
            count("order_status"),
            (57.0, 63.0),
        ),
    ];
    ranges
        .into_iter()
        .map(|(clause, name, hits, n, range)| {
            let bound = format!("{:.2}–{:.2}%", range.0, range.1);
            share_check(clause, name, hits, n, &bound, judge_range(hits, n, range))
        })
        .collect()
}

/// 5.4.5: at most 1% of the districts of `deliveries` completed Deliveries skipped (`skipped`).
fn delivery_check(deliveries: u64, skipped: u64) -> AuditCheck {
    let districts = 10 * deliveries;
    let verdict = match districts {
        0 => Verdict::TooFew,
        _ if percent(skipped, districts) <= 1.0 => Verdict::Pass,
        _ => Verdict::Flag,
    };
    share_check("5.4.5", "skipped Delivery districts", skipped, districts, "<= 1%", verdict)
}

/// The load as the spec sets it: keying and think times on (5.2.5), ten users per warehouse and
/// every warehouse with a user (4.2.2).
fn load_checks(users: u64, plan: TpccAuditPlan) -> [AuditCheck; 3] {
    let pacing = AuditCheck {
        clause: "5.2.5".into(),
        name: "keying and think times".into(),
        value: f64::from(u8::from(plan.paced)),
        shown: if plan.paced { "on" } else { "off" }.into(),
        bound: "on (spec's)".into(),
        verdict: if plan.paced { Verdict::Pass } else { Verdict::Flag },
    };
    let warehouses = u64::from(plan.warehouses.max(1));
    let per_warehouse = users as f64 / warehouses as f64;
    let per = AuditCheck {
        clause: "4.2.2".into(),
        name: "users per warehouse".into(),
        value: per_warehouse,
        shown: format!("{per_warehouse:.2}"),
        bound: "10".into(),
        verdict: if users == 10 * warehouses { Verdict::Pass } else { Verdict::Flag },
    };
    // User i's home is warehouse i mod W + 1: the first min(users, W) warehouses have a user.
    let touched = users.min(warehouses);
    let mut used = share_check("4.2.2", "warehouses with a user", touched, warehouses, "100%", Verdict::Pass);
    if touched < warehouses {
        used.verdict = Verdict::Flag;
    }
    [pacing, per, used]
}

/// How TPC-C's Delivery runs, for every report of a TPC-C step.
pub const DELIVERY_INLINE: &str = "Delivery runs inline, not deferred (2.7.2 allows a queued Delivery): \
     its response time is the whole transaction's, as HammerDB, BenchBase and go-tpc measure it";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Workload;
    use crate::model::audit::TPCC_COUNTERS;
    use crate::model::step::tests::txn;
    use crate::model::step::{StepPlan, Transactions};
    use crate::render::text::audit::render_text;

    #[test]
    fn a_share_is_judged_only_when_chance_cannot_cover_its_range() {
        assert_eq!(judge_range(0, 0, (57.0, 63.0)), Verdict::TooFew);
        assert_eq!(judge_range(60, 100, (57.0, 63.0)), Verdict::TooFew, "±15 points at 3 σ");
        assert_eq!(judge_range(1_500, 2_500, (57.0, 63.0)), Verdict::Pass);
        assert_eq!(judge_range(1_250, 2_500, (57.0, 63.0)), Verdict::Flag);
        assert_eq!(judge_range(2_000, 100_000, (0.90, 1.10)), Verdict::Flag);
        assert_eq!(judge_range(999, 100_000, (0.90, 1.10)), Verdict::Pass);
    }

    #[test]
    fn a_minimum_allows_a_shortfall_within_chance_only() {
        assert_eq!(judge_minimum(40, 99, 4.0), Verdict::TooFew);
        assert_eq!(judge_minimum(4_290, 10_000, 43.0), Verdict::Pass, "42.9% of an exact deck cut part-way");
        assert_eq!(judge_minimum(4_000, 10_000, 43.0), Verdict::Flag, "3 points short is no accident");
        assert_eq!(judge_minimum(300, 10_000, 4.0), Verdict::Flag);
    }

    fn step(users: u64, new_orders: (u64, u64), others: [u64; 4]) -> Step {
        let names = ["payment", "order_status", "delivery", "stock_level"];
        let mut t = Transactions::from([("new_order".to_string(), txn(new_orders.0, 1_000, new_orders.1))]);
        for (name, n) in names.into_iter().zip(others) {
            t.insert(name.to_string(), txn(n, 1_000, 0));
        }
        let plan = StepPlan { run: 1, users, connections: users, duration_s: 60.0, ..StepPlan::default() };
        Step::new(Workload::Tpcc, plan, BTreeMap::from([("db".to_string(), t)]))
    }

    fn counters(values: [u64; 6]) -> BTreeMap<String, u64> {
        TPCC_COUNTERS.iter().map(|n| n.to_string()).zip(values).collect()
    }

    fn verdict(audit: &Audit, name: &str) -> Verdict {
        audit.checks.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}")).verdict
    }

    #[test]
    fn a_spec_shaped_step_passes_every_check() {
        // A million transactions dealt 45/43/4/4/4 by 100 users on 10 warehouses, paced.
        let s = step(100, (450_000, 4_500), [430_000, 40_000, 40_000, 40_000]);
        let c = counters([4_500_000, 45_000, 64_500, 258_000, 24_000, 0]);
        let audit = tpcc(&s, c.clone(), TpccAuditPlan { paced: true, warehouses: 10 });
        assert_eq!(audit.flagged().map(|c| c.name.as_str()).collect::<Vec<_>>(), Vec::<&str>::new());
        assert_eq!(audit.counters, c);
        assert_eq!(audit.checks.len(), 14);
        assert!(audit.checks.iter().all(|c| c.verdict == Verdict::Pass), "{:?}", audit.checks);
        let skipped = audit.checks.iter().find(|c| c.name == "skipped Delivery districts").unwrap();
        assert_eq!(skipped.shown, "0.00% (0/400000)");
        let text = render_text(&s, &audit);
        assert!(text.starts_with("audit of step 1 run 1 (FLAG: outside the spec's bound)\n"), "{text}");
        assert!(
            text.contains(
                "  5.4.5     skipped Delivery districts  0.00% (0/400000)            <= 1%           pass\n"
            ),
            "{text}"
        );
        assert!(text.contains("Delivery runs inline, not deferred"), "{text}");
    }

    #[test]
    fn a_saturation_step_is_flagged_for_what_it_bends() {
        // 5 users flat out on half of 10 warehouses; Deliveries ran dry in 2% of districts.
        let s = step(5, (450_000, 20_000), [430_000, 40_000, 40_000, 30_000]);
        let c = counters([4_500_000, 45_000, 64_500, 258_000, 24_000, 8_000]);
        let audit = tpcc(&s, c, TpccAuditPlan { paced: false, warehouses: 10 });
        for name in [
            "New-Order rollbacks",
            "skipped Delivery districts",
            "keying and think times",
            "users per warehouse",
            "warehouses with a user",
        ] {
            assert_eq!(verdict(&audit, name), Verdict::Flag, "{name}");
        }
        assert_eq!(verdict(&audit, "Stock-Level share"), Verdict::Flag, "3.1% < 4%");
        assert_eq!(verdict(&audit, "remote order lines"), Verdict::Pass);
        let used = audit.checks.iter().find(|c| c.name == "warehouses with a user").unwrap();
        assert_eq!(used.value, 50.0);
    }

    #[test]
    fn a_paced_step_with_few_transactions_gives_no_verdict_on_shares() {
        let s = step(10, (45, 0), [43, 4, 4, 4]);
        let audit = tpcc(&s, counters([450, 5, 6, 26, 2, 0]), TpccAuditPlan { paced: true, warehouses: 1 });
        for name in ["Payment share", "New-Order rollbacks", "remote Payments", "Payments by last name"] {
            assert_eq!(verdict(&audit, name), Verdict::TooFew, "{name}");
        }
        assert_eq!(verdict(&audit, "users per warehouse"), Verdict::Pass);
        assert_eq!(verdict(&audit, "skipped Delivery districts"), Verdict::Pass);
    }
}
