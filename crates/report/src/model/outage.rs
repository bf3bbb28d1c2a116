//! An outage on the run's clock: connections lost (a failover, a crash, a restart), how long no
//! transaction committed, and how long until throughput was back — what a study of a highly available
//! database measures a failover by.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One outage: from the first transaction that failed for a lost connection until throughput was back
/// to 90% of what it was in the reporting interval before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outage {
    /// When the first transaction failed for a lost connection, seconds on the run's clock.
    pub lost_s: f64,
    /// When the first transaction committed again after it; `None` when none did before the run ended.
    pub committed_again_s: Option<f64>,
    /// When throughput was back to [`RECOVERED`] of `before_tps`; `None` when it never was.
    pub recovered_s: Option<f64>,
    /// Business transactions per second in the reporting interval before the outage.
    pub before_tps: f64,
    /// Transactions that failed during it (any reason), by transaction type.
    pub failed: BTreeMap<String, u64>,
    /// `[elapsed_s, transactions per second]` each second around it, from a few seconds before until a
    /// few after it recovered, whatever the run's reporting interval.
    pub per_second: Vec<[f64; 2]>,
}

/// Acknowledged commits lost: orders the database acknowledged that the database serving at the end of
/// the run no longer holds (or holds as another order: its id handed out again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LostCommits {
    /// Acknowledged orders compared.
    pub checked: u64,
    /// Of them, missing (or another order under the same id).
    pub lost: u64,
    /// The first ten lost, each as its keys.
    pub first: Vec<String>,
    /// Every one lost, each as its keys, in memory only (not in `result.json`, which a million would
    /// swell): the run writes them beside its result, so that a count that disagrees with the
    /// database can be checked key by key.
    #[serde(skip)]
    pub all: Vec<String>,
}

impl LostCommits {
    /// In one line: how many were lost of how many checked, and the first of them.
    pub fn sentence(&self) -> String {
        match self.first.first() {
            None => format!("acknowledged commits lost: 0 of {} orders acknowledged", self.checked),
            Some(first) => format!(
                "acknowledged commits lost: {} of {} orders acknowledged are not in the database now serving (first: {first})",
                self.lost, self.checked
            ),
        }
    }
}

/// The comparison of the acknowledged orders with the database: its figures, or why it could not be
/// made. Not made is named (`{"not_measured": "…"}`), never a 0 that would read as "nothing lost".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AckComparison {
    /// Compared: how many orders, how many lost.
    Compared(LostCommits),
    /// Not compared.
    NotMeasured {
        /// Why the comparison could not be made (the database's error, in one line).
        not_measured: String,
    },
}

impl AckComparison {
    /// In one line: the figures, or that they were not measured and why.
    pub fn sentence(&self) -> String {
        match self {
            AckComparison::Compared(lost) => lost.sentence(),
            AckComparison::NotMeasured { not_measured } => {
                format!("acknowledged commits lost: not measured: {not_measured}")
            }
        }
    }

    /// The orders lost, when the comparison was made.
    pub fn lost(&self) -> Option<u64> {
        match self {
            AckComparison::Compared(lost) => Some(lost.lost),
            AckComparison::NotMeasured { .. } => None,
        }
    }

    /// Two comparisons of different orders (two runs', two agents') as one: their counts added, the
    /// first ten lost of both; not measured when either was not (the figure would be short).
    pub fn plus(self, other: AckComparison) -> AckComparison {
        match (self, other) {
            (AckComparison::Compared(mut all), AckComparison::Compared(one)) => {
                all.checked += one.checked;
                all.lost += one.lost;
                all.first.extend(one.first);
                all.first.truncate(LISTED);
                all.all.extend(one.all);
                AckComparison::Compared(all)
            }
            (not @ AckComparison::NotMeasured { .. }, _) | (_, not @ AckComparison::NotMeasured { .. }) => {
                not
            }
        }
    }
}

/// How many lost commits a comparison lists.
pub const LISTED: usize = 10;

/// The server that answered for a database from a moment of the run on: the host its connections
/// reached (a URL naming several hosts reaches whichever is the primary now).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServedBy {
    /// The database, as the counters name it (`db:<target>`).
    pub target: String,
    /// From when, seconds on the run's clock (0: from the start).
    pub from_s: f64,
    /// The server, as `host:port` (or how the engine names itself).
    pub server: String,
}

impl ServedBy {
    /// A change of server in one line.
    pub fn sentence(&self) -> String {
        format!("{} served by {} from {:.1} s", self.target, self.server, self.from_s)
    }
}

/// The planned fault's command (`--fault-cmd`) on the run's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultCommand {
    /// When it started, seconds on the run's clock (`--fault-at`, as the clock kept it).
    pub at_s: f64,
    /// When it ended.
    pub ended_s: f64,
    /// Why it did not end well (its exit status, its time limit); `None` when it did.
    pub failed: Option<String>,
}

impl FaultCommand {
    /// The command on the timeline in one line.
    pub fn sentence(&self) -> String {
        let how = self.failed.as_deref().unwrap_or("ended well");
        format!("fault command (--fault-cmd) at {:.1} s, done at {:.1} s: {how}", self.at_s, self.ended_s)
    }
}

impl crate::model::RunResult {
    /// The planned fault and each outage, a sentence each, in the order they happened: what every
    /// report says of a failover.
    pub fn failover_sentences(&self) -> Vec<String> {
        self.fault
            .iter()
            .map(FaultCommand::sentence)
            .chain(self.outages.iter().map(Outage::sentence))
            .chain(self.server_changes().map(ServedBy::sentence))
            .chain(self.lost_commits_sentences())
            .collect()
    }

    /// The acknowledged orders' comparison in a sentence; in a study of several runs, each run's that
    /// compared (`run 1: …`), then their sum when more than one did.
    fn lost_commits_sentences(&self) -> Vec<String> {
        let Some(study) = &self.lost_commits else { return Vec::new() };
        if self.runs.len() <= 1 {
            return vec![study.sentence()];
        }
        let mut said: Vec<String> = self
            .runs
            .iter()
            .filter_map(|r| Some(format!("run {}: {}", r.run, r.lost_commits.as_ref()?.sentence())))
            .collect();
        match said.len() {
            // A result whose runs kept no comparison of their own (an older one): the study's.
            0 => vec![study.sentence()],
            1 => said,
            _ => {
                said.push(format!("the runs added up: {}", study.sentence()));
                said
            }
        }
    }

    /// Each time a database's server changed during the run (a failover's new primary): every
    /// [`ServedBy`] but each database's first.
    fn server_changes(&self) -> impl Iterator<Item = &ServedBy> {
        self.served_by
            .iter()
            .enumerate()
            .filter(|(i, s)| self.served_by[..*i].iter().any(|before| before.target == s.target))
            .map(|(_, s)| s)
    }
}

/// The share of the throughput before an outage that counts as recovered.
pub const RECOVERED: f64 = 0.9;

impl Outage {
    /// Seconds without a commit: from the first lost connection to the first commit after it.
    pub fn without_commit_s(&self) -> Option<f64> {
        self.committed_again_s.map(|t| t - self.lost_s)
    }

    /// Seconds from the first lost connection until throughput was back to 90%.
    pub fn to_recovered_s(&self) -> Option<f64> {
        self.recovered_s.map(|t| t - self.lost_s)
    }

    /// Failed transactions during the outage, all types.
    pub fn failed_total(&self) -> u64 {
        self.failed.values().sum()
    }

    /// The outage in one sentence: "failover at 61.2 s: 4.8 s without a commit, 12.0 s to 90% of
    /// throughput, 37 transactions failed".
    pub fn sentence(&self) -> String {
        let secs = |s: Option<f64>, what: &str, never: &str| match s {
            Some(s) => format!("{s:.1} s {what}"),
            None => never.to_string(),
        };
        format!(
            "failover at {:.1} s: {}, {}, {} transactions failed",
            self.lost_s,
            secs(self.without_commit_s(), "without a commit", "no commit again before the run ended"),
            secs(
                self.to_recovered_s(),
                "to 90% of throughput",
                "throughput never back to 90% before the run ended"
            ),
            self.failed_total()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_change_of_server_is_said() {
        let mut r = crate::fixtures::result(crate::model::Workload::Tpcc, Vec::new());
        let by = |target: &str, from_s, server: &str| ServedBy {
            target: target.into(),
            from_s,
            server: server.into(),
        };
        r.served_by =
            vec![by("db:a", 0.0, "h1:5432"), by("db:b", 0.0, "h9:5432"), by("db:a", 61.24, "h2:5433")];
        assert_eq!(r.failover_sentences(), ["db:a served by h2:5433 from 61.2 s"]);
    }

    #[test]
    fn an_outage_says_itself_in_one_sentence() {
        let mut o = Outage {
            lost_s: 61.23,
            committed_again_s: Some(66.03),
            recovered_s: Some(73.23),
            before_tps: 100.0,
            failed: [("new_order".to_string(), 20), ("payment".to_string(), 17)].into(),
            per_second: Vec::new(),
        };
        assert_eq!(
            o.sentence(),
            "failover at 61.2 s: 4.8 s without a commit, 12.0 s to 90% of throughput, 37 transactions failed"
        );
        o.recovered_s = None;
        o.committed_again_s = None;
        assert!(o.sentence().contains("no commit again before the run ended"), "{}", o.sentence());
        assert!(o.sentence().contains("never back to 90%"), "{}", o.sentence());
    }
}
