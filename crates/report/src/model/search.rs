//! A `--find-max` search in the result: the part each step played in it ([`ProbeRole`]), the rule that
//! picks its answer ([`best_passing`]: the most throughput among the passing probes, never at a load
//! where a probe failed), and how close the search came to the load where the cap fails
//! ([`SearchReached`]). A sweep's steps play no part: the rule is then the plain "most throughput
//! within the cap".

use serde::{Deserialize, Serialize};

use crate::model::Step;

/// The part a step played in a `--find-max` search, in the order a search plays them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeRole {
    /// The load grown geometrically from the range's start until the cap fails.
    Grow,
    /// Halfway between the last load that passed and the first that failed.
    Bisect,
    /// A load the search aimed at between the last pass and the first fail: where the failing probe's
    /// figures put the cap ([`Step::users_at_cap`]), then the resolution beyond it on the other side,
    /// which closes the bracket when the aim was right.
    Aim,
    /// A load beside the best passing probe, at the resolution's distance.
    Neighbour,
    /// The best passing probe measured again: one that fails is never the answer.
    Confirm,
}

impl ProbeRole {
    /// The role's name, as the result spells it.
    pub fn name(self) -> &'static str {
        match self {
            ProbeRole::Grow => "grow",
            ProbeRole::Bisect => "bisect",
            ProbeRole::Aim => "aim",
            ProbeRole::Neighbour => "neighbour",
            ProbeRole::Confirm => "confirm",
        }
    }
}

impl std::fmt::Display for ProbeRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a search's answer stands, in the headline: what the reader needs to trust it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchReached {
    /// The steps the search measured in the answer's run.
    pub probes: u32,
    /// The least load above the answer's whose probe failed the cap; `None` when none did (the cap
    /// held to the range's end, or the search was cut short).
    pub failed_at: Option<u64>,
    /// The most load below `failed_at` that passed (and was not ruled out by a failed confirmation):
    /// with it, where the cap starts to fail is known to lie.
    pub passed_at: Option<u64>,
    /// How far `failed_at` lies above `passed_at`, in percent of `passed_at`: the resolution the search
    /// reached; `None` without both.
    pub resolution_pct: Option<f64>,
}

impl SearchReached {
    /// How the search in `steps` (every step of the answer's run among them) stands, its answer
    /// `answer`; `None` when the run's steps are no search's.
    pub fn of(steps: &[Step], answer: &Step) -> Option<SearchReached> {
        let probes: Vec<&Step> = steps.iter().filter(|s| s.run == answer.run && s.probe.is_some()).collect();
        if probes.is_empty() {
            return None;
        }
        let passed = |s: &Step| s.cap.as_ref().is_some_and(|c| c.passed);
        let failed = |level: u64| probes.iter().any(|s| s.level() == level && !passed(s));
        let failed_at =
            probes.iter().filter(|s| s.level() > answer.level() && !passed(s)).map(|s| s.level()).min();
        let passed_at = probes
            .iter()
            .filter(|s| passed(s) && !failed(s.level()) && failed_at.is_none_or(|f| s.level() < f))
            .map(|s| s.level())
            .max();
        let resolution_pct = failed_at.zip(passed_at).map(|(f, p)| (f - p) as f64 * 100.0 / p.max(1) as f64);
        Some(SearchReached { probes: probes.len() as u32, failed_at, passed_at, resolution_pct })
    }
}

/// One probe as the answer's rule sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged<K> {
    /// The load it was measured at (with whatever else tells loads apart, e.g. the run); `None` for a
    /// step that is no probe (a sweep's), which a failure elsewhere never rules out.
    pub level: Option<K>,
    /// Whether it kept within the cap.
    pub passed: bool,
    /// Its throughput, as the headline counts it.
    pub rate: f64,
}

/// The answer among `probes` (in the order measured): the passing one with the most throughput (the
/// earlier on a tie), leaving out every load where any probe failed (a confirmation that failed rules
/// its load out). `None` when none passed.
pub fn best_passing<P, K: PartialEq>(probes: &[P], judge: impl Fn(&P) -> Judged<K>) -> Option<&P> {
    let judged: Vec<Judged<K>> = probes.iter().map(&judge).collect();
    let ruled_out = |j: &Judged<K>| {
        j.level.as_ref().is_some_and(|l| judged.iter().any(|o| !o.passed && o.level.as_ref() == Some(l)))
    };
    let mut best: Option<(usize, f64)> = None;
    for (i, j) in judged.iter().enumerate() {
        if j.passed && !ruled_out(j) && best.is_none_or(|(_, rate)| j.rate > rate) {
            best = Some((i, j.rate));
        }
    }
    best.map(|(i, _)| &probes[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(level: u32, passed: bool, rate: f64) -> Judged<u32> {
        Judged { level: Some(level), passed, rate }
    }

    #[test]
    fn the_answer_is_the_most_throughput_among_passing_probes_not_the_most_load() {
        let probes =
            [probe(4, true, 10.0), probe(8, true, 30.0), probe(16, true, 20.0), probe(32, false, 50.0)];
        assert_eq!(best_passing(&probes, |p| *p), Some(&probes[1]));
    }

    #[test]
    fn a_load_whose_confirmation_failed_is_never_the_answer() {
        let probes =
            [probe(4, true, 10.0), probe(8, true, 30.0), probe(16, false, 5.0), probe(8, false, 31.0)];
        assert_eq!(best_passing(&probes, |p| *p), Some(&probes[0]));
        assert_eq!(best_passing(&probes[2..3], |p| *p), None);
    }

    #[test]
    fn steps_that_are_no_probe_are_never_ruled_out_and_ties_go_to_the_earlier() {
        let steps = [
            Judged { level: None::<u32>, passed: true, rate: 9.0 },
            probe(8, true, 9.0),
            probe(8, false, 1.0),
        ];
        assert_eq!(best_passing(&steps, |p| *p), Some(&steps[0]));
        let steps = [
            Judged { level: None::<u32>, passed: false, rate: 9.0 },
            Judged { level: None, passed: true, rate: 2.0 },
        ];
        assert_eq!(best_passing(&steps, |p| *p), Some(&steps[1]));
    }
}
