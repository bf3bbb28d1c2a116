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
