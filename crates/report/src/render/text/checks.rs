//! The lines of `tpcc check` and `ds2 check`: one per check, and the verdict over all of them.

use crate::model::checks::{Clause, ClauseOutcome};

/// The line a check's outcome prints as.
pub fn line(c: &Clause) -> String {
    match &c.outcome {
        ClauseOutcome::Pass => format!("{:<9} pass  {}", c.number, c.title),
        ClauseOutcome::NotApplicable(why) => format!("{:<9} n/a   {} ({why})", c.number, c.title),
        ClauseOutcome::Fail { count, examples } => {
            format!("{:<9} FAIL  {}: {count} offending, e.g. {}", c.number, c.title, examples.join("; "))
        }
    }
}

/// The line after every check held, on `target`.
pub fn consistent_line(target: &str) -> String {
    format!("consistent: every condition that applies holds ({target})")
}

/// The verdict when `failed` of the `total` checks failed, on `target`.
pub fn failed_line(failed: &[&str], total: usize, target: &str) -> String {
    format!("{} of {total} consistency conditions fail: {} ({target})", failed.len(), failed.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::checks::failed;

    #[test]
    fn each_outcome_is_one_line_and_the_verdict_names_the_failures() {
        let clause = |number: &str, outcome| Clause { number: number.into(), title: "a title", outcome };
        let clauses = [
            clause("3.3.2.1", ClauseOutcome::Pass),
            clause("3.3.2.11", ClauseOutcome::NotApplicable("holds only before the first run")),
            clause("3.3.2.2", ClauseOutcome::of(2, vec!["w_id=1 d_id=3".into(), "w_id=2 d_id=1".into()])),
        ];
        let lines: Vec<String> = clauses.iter().map(line).collect();
        insta::assert_snapshot!(lines.join("\n"), @r"
        3.3.2.1   pass  a title
        3.3.2.11  n/a   a title (holds only before the first run)
        3.3.2.2   FAIL  a title: 2 offending, e.g. w_id=1 d_id=3; w_id=2 d_id=1
        ");
        assert_eq!(failed(&clauses), ["3.3.2.2"]);
        assert_eq!(
            failed_line(&failed(&clauses), 3, "db"),
            "1 of 3 consistency conditions fail: 3.3.2.2 (db)"
        );
        assert_eq!(consistent_line("db"), "consistent: every condition that applies holds (db)");
    }
}
