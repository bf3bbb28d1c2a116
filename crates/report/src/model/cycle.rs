//! The study cycle around each run of a repeated sweep (`--runs`): how the run began — its seed, whether
//! and how the database was put back to its loaded state, how large it was when the run started, the idle
//! time before it and the hooks that ran — so that a reader sees what each run started from, and drift
//! where a run was not restored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Power;
use super::outage::AckComparison;

/// One run of the sweep as the study cycle began it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run's number (from 1), as the steps' `run` name it.
    pub run: u32,
    /// The seed of the run's random streams (each run its own, derived from the run's number).
    pub seed: u64,
    /// When the run's users started, in seconds on the result's clock (the first run starts at 0).
    pub start_s: f64,
    /// How the database was put back to its loaded state before the run (`--restore`); `None` when it
    /// was not, and the run started from what the runs before it left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<Restored>,
    /// The database's size as the run started, in rows per table that grows (TPC-C's `orders` and
    /// `order_line`, DS2's `orders`), summed over the targets.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub start_rows: BTreeMap<String, u64>,
    /// `--idle-sample`: the Unix-seconds span before the run over which it sat idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_window_s: Option<[f64; 2]>,
    /// Each host and database counter's average while the run sat idle, keyed `<source>/<name>` as a
    /// step's counters are: the system at rest, beside the same counters under load.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub idle_counters: BTreeMap<String, f64>,
    /// Each power meter's idle and active watts over this run (`--power-log LABEL=FILE`), by its label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub meters: BTreeMap<String, MeterWatts>,
    /// The run's power on every meter's total, active over its headline step's window; its throughput
    /// per watt is that step's. `None` without meters, or when one read nothing over the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<Power>,
    /// The run's own acknowledged orders compared with the database at the run's end, before a restore
    /// could put the database back (after a run in which connections were lost); `None` when not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_commits: Option<AckComparison>,
}

/// One meter's mean watts over a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeterWatts {
    /// Over the idle time before the run (`--idle-sample`); `None` without one, or without readings in it.
    pub idle_w: Option<f64>,
    /// Over the run's headline step's window; `None` without readings in it.
    pub active_w: Option<f64>,
}

/// How a run's database was put back to its loaded state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restored {
    /// How: `generator` (the workload's tables emptied and their rows generated again from the load's
    /// seed and size), `template clone` (PostgreSQL's built-in server: the database cloned from a
    /// pristine copy made after the first run's restore), or both joined by `and` when a study's
    /// databases went different ways.
    pub method: String,
    /// How long it took, in seconds (every target, side by side).
    pub duration_s: f64,
}

impl AckComparison {
    /// A study's comparison: its runs', each made at its run's end (before the next restore could
    /// take the run's orders away), added up; a run's reason for not measuring names the run when
    /// there were several. `None` when no run compared.
    pub fn of_runs(runs: &[RunRecord]) -> Option<AckComparison> {
        let several = runs.len() > 1;
        runs.iter()
            .filter_map(|r| match r.lost_commits.clone()? {
                AckComparison::NotMeasured { not_measured } if several => Some(AckComparison::NotMeasured {
                    not_measured: format!("run {}: {not_measured}", r.run),
                }),
                AckComparison::Compared(mut lost) if several => {
                    lost.all.iter_mut().for_each(|l| *l = format!("run {}: {l}", r.run));
                    Some(AckComparison::Compared(lost))
                }
                compared => Some(compared),
            })
            .reduce(AckComparison::plus)
    }
}

/// The runs of agents' `parts` of one study (by the first part's records), each run's lost commits
/// those of every part's same run added up: each agent compared its own orders at the run's end.
pub fn runs_of_parts(parts: &[crate::model::RunResult]) -> Vec<RunRecord> {
    let mut runs = parts.first().map(|p| p.runs.clone()).unwrap_or_default();
    for record in &mut runs {
        record.lost_commits = parts
            .iter()
            .filter_map(|p| p.runs.iter().find(|r| r.run == record.run)?.lost_commits.clone())
            .reduce(AckComparison::plus);
    }
    runs
}
