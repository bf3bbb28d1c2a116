//! Whether a result measured anything at all: a run whose every step failed to measure is a failed
//! run (exit 1), not a result with an empty headline that exits 0 as if the work were done.

use super::RunResult;

impl RunResult {
    /// Why nothing was measured, in one phrase, when nothing was: no step completed a transaction, or
    /// every step is INVALID (too many errors, connections lost in its window: its `cap.invalid`). A
    /// step that merely broke the cap was measured; so was every step of a run without a cap verdict,
    /// and of a run with a planned fault (`--fault-at`): there the lost connections are what the study
    /// measures (the outage, its recovery, lost commits), not a failure to measure.
    /// `None` when at least one step measured something.
    pub fn nothing_measured(&self) -> Option<String> {
        let Some(first) = self.steps.first() else { return Some("no step began measuring".into()) };
        if !self.steps.iter().any(|s| s.figures.transactions.values().any(|t| t.count > 0)) {
            let failed: u64 = self.steps.iter().map(|s| s.figures.errors).sum();
            return Some(format!("no step completed a transaction ({failed} failed)"));
        }
        if self.fault.is_some() {
            return None;
        }
        let invalid = self.steps.iter().all(|s| s.cap.as_ref().is_some_and(|v| v.invalid.is_some()));
        let why = first.cap.as_ref().and_then(|v| v.invalid.as_deref()).filter(|_| invalid)?;
        let steps = if self.steps.len() == 1 {
            "the step is".to_string()
        } else {
            format!("all {} steps are", self.steps.len())
        };
        Some(format!("{steps} INVALID (step 1: {why})"))
    }
}

#[cfg(test)]
mod tests {
    use crate::fixtures::{result, tpcc_step};
    use crate::model::Workload;
    use crate::stats::cap::Cap;

    #[test]
    fn a_run_is_measured_unless_no_step_completed_anything_or_every_step_is_invalid() {
        let cap = Cap::default_for(Workload::Tpcc);
        let step = |i, n| tpcc_step(i, 10, (n, n), 1_000, Some(&cap));
        let invalid = |i| {
            let mut s = step(i, 100);
            s.cap.as_mut().unwrap().invalidate("the server was unreachable for part of the window".into());
            s
        };
        // Measured: one valid step is enough, and a step that broke the cap was measured.
        assert_eq!(result(Workload::Tpcc, vec![invalid(0), step(1, 100)]).nothing_measured(), None);
        let slow = tpcc_step(0, 10, (100, 100), 10_000_000, Some(&cap));
        assert!(!slow.cap.as_ref().unwrap().passed, "over the cap");
        assert_eq!(result(Workload::Tpcc, vec![slow]).nothing_measured(), None);
        assert_eq!(
            result(Workload::Tpcc, vec![tpcc_step(0, 10, (5, 5), 1_000, None)]).nothing_measured(),
            None
        );
        // A planned fault's lost connections are the study's measurement (the outage), not a failure.
        let mut failover = result(Workload::Tpcc, vec![invalid(0)]);
        failover.fault = Some(crate::model::outage::FaultCommand { at_s: 15.0, ended_s: 15.2, failed: None });
        assert_eq!(failover.nothing_measured(), None);
        // Not measured: every step INVALID, or nothing completed, or no step at all.
        assert_eq!(
            result(Workload::Tpcc, vec![invalid(0), invalid(1)]).nothing_measured().as_deref(),
            Some("all 2 steps are INVALID (step 1: the server was unreachable for part of the window)")
        );
        let mut failed = step(0, 0);
        failed.figures.errors = 96;
        assert_eq!(
            result(Workload::Tpcc, vec![failed]).nothing_measured().as_deref(),
            Some("no step completed a transaction (96 failed)")
        );
        assert_eq!(
            result(Workload::Tpcc, Vec::new()).nothing_measured().as_deref(),
            Some("no step began measuring")
        );
    }
}
