//! A step's audit as `report show` and summary.txt print it ([`render_text`]): a header, then a line
//! per check with its clause, figure, observed value, the spec's bound and the verdict.

use std::fmt::Write as _;

use crate::model::Step;
use crate::model::audit::Audit;

/// The audit of step `step` as `report show` and summary.txt print it: a header, then a line per check.
pub fn render_text(step: &Step, audit: &Audit) -> String {
    let mut out =
        format!("audit of step {} run {} (FLAG: outside the spec's bound)\n", step.index + 1, step.run);
    for c in &audit.checks {
        let _ = writeln!(
            out,
            "  {:<10}{:<28}{:<28}{:<16}{}",
            c.clause,
            c.name,
            c.shown,
            c.bound,
            c.verdict.mark()
        );
    }
    for note in &audit.notes {
        let _ = writeln!(out, "  {note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::{sweep, whole_lines};
    use crate::stats::audit::{TpccAuditPlan, tpcc};

    #[test]
    fn a_line_per_check_then_the_notes() {
        let r = sweep();
        let audit = tpcc(&r.steps[1], BTreeMap::new(), TpccAuditPlan { paced: true, warehouses: 2 });
        insta::assert_snapshot!(whole_lines(render_text(&r.steps[1], &audit)), @r"
            audit of step 2 run 1 (FLAG: outside the spec's bound)
              5.2.3     New-Order share             50.00% (1200/2400)          the rest (45%)  pass
              5.2.3     Payment share               50.00% (1200/2400)          >= 43.0%        pass
              5.2.3     Order-Status share          0.00% (0/2400)              >= 4.0%         FLAG
              5.2.3     Delivery share              0.00% (0/2400)              >= 4.0%         FLAG
              5.2.3     Stock-Level share           0.00% (0/2400)              >= 4.0%         FLAG
              2.4.1.4   New-Order rollbacks         0.00% (0/1200)              0.90–1.10%      too few to judge
              2.4.1.5.2 remote order lines          0.00% (0/0)                 0.95–1.05%      too few to judge
              2.5.1.2   remote Payments             0.00% (0/1200)              14.25–15.75%    too few to judge
              2.5.1.2   Payments by last name       0.00% (0/1200)              57.00–63.00%    too few to judge
              2.6.1.2   Order-Status by last name   0.00% (0/0)                 57.00–63.00%    too few to judge
              5.4.5     skipped Delivery districts  0.00% (0/0)                 <= 1%           too few to judge
              5.2.5     keying and think times      on                          on (spec's)     pass
              4.2.2     users per warehouse         10.00                       10              pass
              4.2.2     warehouses with a user      100.00% (2/2)               100%            pass
              Delivery runs inline, not deferred (2.7.2 allows a queued Delivery): its response time is the whole transaction's, as HammerDB, BenchBase and go-tpc measure it
            ");
    }
}
