//! A step's audit as text, in two lengths: [`line()`], the one line per step that ends a run and `report
//! show` (its FLAGs named, or `all pass`; the FLAGs a run without the spec's pacing is expected to raise
//! said to be expected; the checks that gave no verdict named), and [`render_text`], the full audit of `report show --audit` and summary.txt: a
//! line per check with its clause, figure, observed value, the spec's bound, the allowance for chance
//! the verdict made, and the verdict. The notes every audited step shares are said once ([`notes`]).

use std::fmt::Write as _;

use crate::model::audit::{Audit, Verdict};
use crate::model::{RunResult, Step};

/// The command that prints every check of a result, `RESULT` standing for its path.
pub const FULL_AUDIT: &str = "oltpgen report show --audit";

/// The audit of step `step` as `report show --audit` and summary.txt print it: a header, the column
/// titles, then a line per check.
pub fn render_text(step: &Step, audit: &Audit) -> String {
    render_titled(&title(step, None), audit)
}

/// What an audit is of: step `step`, or its database `target` alone.
pub fn title(step: &Step, target: Option<&str>) -> String {
    let on = target.map_or(String::new(), |t| format!(" on {t} alone"));
    format!("audit of step {} run {}{on}", step.index + 1, step.run)
}

/// Every audit of `step` with its title: the step's, then each database's own when it drove several.
pub fn audits(step: &Step) -> Vec<(String, &Audit)> {
    let total = step.audit.iter().map(|a| (title(step, None), a));
    total.chain(step.target_audits.iter().map(|(key, a)| (title(step, Some(key)), a))).collect()
}

/// An audit under its `title`: the header, the column titles, then a line per check.
fn render_titled(title: &str, audit: &Audit) -> String {
    let mut out = format!(
        "{title} (±: what chance alone spreads a share by, 3 σ; FLAG: outside the spec's bound by more \
         than that)\n"
    );
    let row = |out: &mut String, cells: [&str; 6]| {
        let [clause, name, shown, bound, chance, verdict] = cells;
        let _ = writeln!(out, "  {clause:<10}{name:<28}{shown:<26}{bound:<16}{chance:<9}{verdict}");
    };
    row(&mut out, ["clause", "check", "observed", "spec's bound", "±", "verdict"]);
    for c in &audit.checks {
        let chance = c.tolerance.map_or(String::new(), |t| format!("±{t:.2}"));
        row(&mut out, [&c.clause, &c.name, &c.shown, &c.bound, &chance, c.verdict.mark()]);
    }
    out
}

/// Every audit of `step` ([`audits`]) as [`render_text`] prints one, each followed by a blank line.
pub fn render_all(step: &Step) -> String {
    let mut out = String::new();
    for (title, audit) in audits(step) {
        out.push_str(&render_titled(&title, audit));
        out.push('\n');
    }
    out
}

/// Step `step`'s audit in one line: the FLAGs named (those a run without the spec's pacing is expected
/// to raise said to be expected), or `all pass`; then the checks that gave no verdict, named.
pub fn line(step: &Step, audit: &Audit) -> String {
    format!("step {} run {} audit: {}", step.index + 1, step.run, verdicts(audit))
}

/// An audit's verdicts in a few words: what [`line()`] says after its step.
pub fn verdicts(audit: &Audit) -> String {
    let names = |expected: bool| -> Vec<&str> {
        audit.flagged().filter(|c| audit.expected_unpaced(c) == expected).map(|c| c.name.as_str()).collect()
    };
    let (flags, expected) = (names(false), names(true));
    let mut parts = Vec::new();
    if !flags.is_empty() {
        parts.push(format!("FLAG {}", flags.join(", ")));
    }
    if !expected.is_empty() {
        parts
            .push(format!("FLAG {} (expected of a run without keying and think times)", expected.join(", ")));
    }
    if parts.is_empty() {
        parts.push("all pass".into());
    }
    // The checks that gave no verdict, named: a reader wants to know which.
    for (v, what) in
        [(Verdict::TooFew, "too few to judge"), (Verdict::NotApplicable, "not applicable at one warehouse")]
    {
        let names: Vec<&str> =
            audit.checks.iter().filter(|c| c.verdict == v).map(|c| c.name.as_str()).collect();
        if !names.is_empty() {
            parts.push(format!("{what}: {}", names.join(", ")));
        }
    }
    parts.join("; ")
}

/// The notes of `r`'s audits (e.g. that Delivery ran inline), each once however many steps share it,
/// a line each.
pub fn notes(r: &RunResult) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for note in r.steps.iter().filter_map(|s| s.audit.as_ref()).flat_map(|a| &a.notes) {
        if !seen.contains(&note.as_str()) {
            seen.push(note);
        }
    }
    seen.into_iter().map(|n| format!("{n}\n")).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::{sweep, whole_lines};
    use crate::model::Workload;
    use crate::model::audit::TPCC_COUNTERS;
    use crate::model::step::tests::txn;
    use crate::model::step::{StepPlan, Transactions};
    use crate::stats::audit::{TpccAuditPlan, tpcc};

    /// Issue 24's step: 74,419 transactions dealt as the spec's mix by `users` users, on `warehouses`.
    fn spec_mix(users: u64, paced: bool, warehouses: u32) -> (Step, Audit) {
        let counts = [("new_order", 33_490, 335), ("payment", 32_000, 0), ("order_status", 2_925, 0)];
        let mut t: Transactions = counts
            .into_iter()
            .map(|(name, n, rollbacks)| (name.to_string(), txn(n, 1_000, rollbacks)))
            .collect();
        t.insert("delivery".into(), txn(3_002, 1_000, 0));
        t.insert("stock_level".into(), txn(3_002, 1_000, 0));
        let plan = StepPlan { run: 1, users, connections: users, duration_s: 60.0, ..StepPlan::default() };
        let step = Step::new(Workload::Tpcc, plan, BTreeMap::from([("db".to_string(), t)]));
        let remote = if warehouses > 1 { [3_350, 4_800] } else { [0, 0] };
        let counters = TPCC_COUNTERS
            .iter()
            .map(|n| n.to_string())
            .zip([335_000, remote[0], remote[1], 19_200, 1_755, 0])
            .collect();
        let audit = tpcc(&step, counters, TpccAuditPlan { paced, warehouses });
        (step, audit)
    }

    #[test]
    fn a_line_per_check_with_what_chance_allows() {
        let (step, audit) = spec_mix(10, true, 1);
        insta::assert_snapshot!(whole_lines(render_text(&step, &audit)), @r"
            audit of step 1 run 1 (±: what chance alone spreads a share by, 3 σ; FLAG: outside the spec's bound by more than that)
              clause    check                       observed                  spec's bound    ±        verdict
              5.2.3     New-Order share             45.00% (33490/74419)      the rest (45%)           pass
              5.2.3     Payment share               43.00% (32000/74419)      >= 43.0%        ±0.54    pass
              5.2.3     Order-Status share          3.93% (2925/74419)        >= 4.0%         ±0.22    pass
              5.2.3     Delivery share              4.03% (3002/74419)        >= 4.0%         ±0.22    pass
              5.2.3     Stock-Level share           4.03% (3002/74419)        >= 4.0%         ±0.22    pass
              2.4.1.4   New-Order rollbacks         1.00% (335/33490)         0.90–1.10%      ±0.16    pass
              2.4.1.5.2 remote order lines          0.00% (0/335000)          0.95–1.05%               not applicable at one warehouse
              2.5.1.2   remote Payments             0.00% (0/32000)           14.25–15.75%             not applicable at one warehouse
              2.5.1.2   Payments by last name       60.00% (19200/32000)      57.00–63.00%    ±0.82    pass
              2.6.1.2   Order-Status by last name   60.00% (1755/2925)        57.00–63.00%    ±2.72    pass
              5.4.5     skipped Delivery districts  0.00% (0/30020)           <= 1%                    pass
              5.2.5     keying and think times      on                        on (spec's)              pass
              4.2.2     users per warehouse         10.00                     10                       pass
              4.2.2     warehouses with a user      100.00% (1/1)             100%                     pass
        ");
    }

    #[test]
    fn one_line_names_the_flags_and_says_which_the_pacing_explains() {
        let (step, paced) = spec_mix(100, true, 10);
        assert_eq!(line(&step, &paced), "step 1 run 1 audit: all pass");
        // The README's first command: 32 users flat out on 10 warehouses.
        let (step, unpaced) = spec_mix(32, false, 10);
        assert_eq!(
            line(&step, &unpaced),
            "step 1 run 1 audit: FLAG keying and think times, users per warehouse (expected of a run without \
             keying and think times)"
        );
        let (step, one) = spec_mix(10, true, 1);
        assert_eq!(
            line(&step, &one),
            "step 1 run 1 audit: all pass; not applicable at one warehouse: remote order lines, remote Payments"
        );
        // Paced, the users per warehouse are not explained by the pacing: a plain FLAG.
        let (step, few) = spec_mix(32, true, 10);
        assert_eq!(line(&step, &few), "step 1 run 1 audit: FLAG users per warehouse");
        let r = sweep();
        let bent = tpcc(&r.steps[1], BTreeMap::new(), TpccAuditPlan { paced: false, warehouses: 2 });
        assert_eq!(
            line(&r.steps[1], &bent),
            "step 2 run 1 audit: FLAG Order-Status share, Delivery share, Stock-Level share, remote Payments, \
             Payments by last name; FLAG keying and think times (expected of a run without keying and \
             think times); too few to judge: New-Order rollbacks, remote order lines, Order-Status by last name, \
             skipped Delivery districts"
        );
    }

    #[test]
    fn a_sweep_below_a_user_per_warehouse_flags_its_unused_warehouses_as_expected() {
        // Issue 39: 8 users flat out on 10 warehouses leave two without a user, as any sweep that
        // starts below one user per warehouse does: expected, not an alarm.
        let (step, unpaced) = spec_mix(8, false, 10);
        assert_eq!(
            line(&step, &unpaced),
            "step 1 run 1 audit: FLAG keying and think times, users per warehouse, warehouses with a user \
             (expected of a run without keying and think times)"
        );
        // Paced, the spec's ten terminals per warehouse would have used every one: a plain FLAG.
        let (step, paced) = spec_mix(8, true, 10);
        assert_eq!(
            line(&step, &paced),
            "step 1 run 1 audit: FLAG users per warehouse, warehouses with a user"
        );
    }

    #[test]
    fn the_notes_are_said_once() {
        let mut r = sweep();
        for s in &mut r.steps {
            s.audit = Some(tpcc(s, BTreeMap::new(), TpccAuditPlan { paced: true, warehouses: 1 }));
        }
        assert_eq!(notes(&r).matches("Delivery runs inline").count(), 1, "{}", notes(&r));
        assert!(notes(&r).ends_with("go-tpc measure it\n"));
    }
}
