//! `--find-max`: the most throughput within the cap, found by a search instead of a sweep laid out in
//! advance (Benchmark Factory's goal tests, CockroachDB's tpccbench). The search is plain logic over a
//! load level (a `u32`: users here, an offered rate elsewhere), fed each probe's verdict and
//! throughput ([`FindMax::next`]): it grows the level geometrically from the range's start until the cap
//! fails, bisects between the last pass and the first fail until they are within the resolution, probes
//! the two levels beside the best passing probe (the least failing level above it, when nearer, is
//! taken from its probe), then measures the best passing probe again
//! (`--confirm`): one whose confirmation fails is never the answer, and the next best is confirmed in
//! its place. Throughput need not rise with the load: the answer is the passing probe with the most
//! throughput ([`best_passing`]). No load is probed twice but to confirm it: a neighbour that the grow
//! or bisect phase measured is taken from there ([`FindMax::taken`]). [`UserSearch`] is the search as
//! a run's [`Stepper`].
//!
//! Where the first failing probe's figures say where the cap lies (a closed loop's, by Little's law:
//! [`Step::users_at_cap`]), the bracket's first probe is aimed there instead of halfway, and the one
//! after it at the resolution's distance on the other side: a good aim closes the bracket in two
//! probes where halving takes four or five; a bad one costs those two, and halving goes on from the
//! bracket they left. This is what brings a search to a third of a sweep's time (BENCHMARKS.md).

use oltpgen_report::model::Step;
use oltpgen_report::model::search::{Judged, ProbeRole, best_passing};

use super::stepper::Stepper;

/// `--resolution`'s default, percent: the search stops bisecting when the last pass and the first fail
/// are this close (or one level apart).
pub const DEFAULT_RESOLUTION_PCT: f64 = 5.0;

/// `--resolution`'s most, percent: coarser than this is no search.
pub const MAX_RESOLUTION_PCT: f64 = 50.0;

/// `--confirm`'s default: the best passing probe measured once more.
pub const DEFAULT_CONFIRM: u32 = 1;

/// How closely a search bisects and how often it confirms: `--resolution` and `--confirm`, as a run
/// plan carries them (its range is its steps').
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resolve {
    /// `--resolution`, percent.
    pub resolution_pct: f64,
    /// `--confirm`.
    pub confirm: u32,
}

/// What a search is asked: its range of levels, how close it bisects, how often it confirms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchPlan {
    /// The range's first level, where growing starts.
    pub from: u32,
    /// The range's last level: never probed beyond.
    pub to: u32,
    /// The resolution as a fraction of the lower level (0.05 for 5%).
    pub resolution: f64,
    /// How many times the best passing probe is measured again.
    pub confirm: u32,
}

/// One probe's outcome, as the search reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// The level it ran at.
    pub level: u32,
    /// Whether it kept within the cap.
    pub passed: bool,
    /// Its throughput, as the headline counts it.
    pub rate: f64,
    /// Where its figures put the cap, when they can say ([`Step::users_at_cap`]): a failing probe's
    /// aims the bracket's first probe.
    pub aim: Option<f64>,
}

/// Where a search stands between probes (`Aim`: the aimed probe asked for, between a pass at `lo` and
/// a fail at `hi`).
#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Grow,
    Aim { lo: u32, hi: u32 },
    Bisect { lo: u32, hi: u32 },
    Neighbours(Vec<u32>),
    Confirm,
    Done,
}

/// A search under way: its plan, its phase, and the role of every probe it asked for.
#[derive(Clone, Debug)]
pub struct FindMax {
    plan: SearchPlan,
    phase: Phase,
    roles: Vec<ProbeRole>,
    /// The probes taken as neighbours without measuring their loads again, by index.
    taken: Vec<usize>,
}

impl FindMax {
    /// A search of `plan`, before its first probe.
    pub fn new(plan: SearchPlan) -> FindMax {
        FindMax { plan, phase: Phase::Grow, roles: Vec::new(), taken: Vec::new() }
    }

    /// The role of every probe asked for so far, in order.
    pub fn roles(&self) -> &[ProbeRole] {
        &self.roles
    }

    /// The probes (by index) the search took as neighbours of the best passing probe without measuring
    /// their loads again: the grow or bisect phase had.
    pub fn taken(&self) -> &[usize] {
        &self.taken
    }

    /// The next probe's level and role, from the outcomes of every probe asked for so far (in order),
    /// or `None` when the search is over.
    pub fn next(&mut self, outcomes: &[Outcome]) -> Option<(u32, ProbeRole)> {
        loop {
            let (phase, ask) = self.step(outcomes);
            if matches!(phase, Phase::Neighbours(_)) && !matches!(self.phase, Phase::Neighbours(_)) {
                let at = |level| outcomes.iter().position(|o: &Outcome| o.level == level);
                self.taken = self.beside(outcomes).into_iter().filter_map(at).collect();
            }
            self.phase = phase;
            if let Some((level, role)) = ask {
                self.roles.push(role);
                return Some((level, role));
            }
            if self.phase == Phase::Done {
                return None;
            }
        }
    }

    /// One move of the search: its next phase, and the probe it asks for (`None` to move on at once).
    fn step(&self, outcomes: &[Outcome]) -> (Phase, Option<(u32, ProbeRole)>) {
        let plan = self.plan;
        let last = outcomes.last().filter(|_| outcomes.len() == self.roles.len());
        match (&self.phase, last) {
            (Phase::Done, _) => (Phase::Done, None),
            (Phase::Grow, None) if outcomes.is_empty() => (Phase::Grow, Some((plan.from, ProbeRole::Grow))),
            // A probe asked for and not judged (the run ended it): nothing more is decided.
            (_, None) => (Phase::Done, None),
            (Phase::Grow, Some(last)) if last.passed && last.level < plan.to => {
                let up = last.level.saturating_mul(2).clamp(last.level + 1, plan.to);
                (Phase::Grow, Some((up, ProbeRole::Grow)))
            }
            (Phase::Grow, Some(last)) if last.passed => (self.neighbours(outcomes), None),
            (Phase::Grow, Some(last)) => match outcomes.iter().rev().nth(1) {
                Some(pass) => self.aim(pass.level, last, outcomes),
                // The range's first level already fails: no load keeps within the cap.
                None => (Phase::Done, None),
            },
            (Phase::Aim { lo, hi }, Some(last)) => {
                // The resolution beyond the aim, on the side it did not fall: its verdict closes the
                // bracket when the aim was right.
                let (lo, hi, across) = if last.passed {
                    (last.level, *hi, last.level.saturating_add(self.above(last.level)))
                } else {
                    (*lo, last.level, last.level - self.below(last.level))
                };
                match self.bisect(lo, hi) {
                    Some(_) if lo < across && across < hi => {
                        (Phase::Bisect { lo, hi }, Some((across, ProbeRole::Aim)))
                    }
                    Some(ask) => (Phase::Bisect { lo, hi }, Some(ask)),
                    None => (self.neighbours(outcomes), None),
                }
            }
            (Phase::Bisect { lo, hi }, Some(last)) => {
                let (lo, hi) = match self.roles.last() {
                    Some(ProbeRole::Bisect | ProbeRole::Aim) if last.passed => (last.level, *hi),
                    Some(ProbeRole::Bisect | ProbeRole::Aim) => (*lo, last.level),
                    _ => (*lo, *hi),
                };
                match self.bisect(lo, hi) {
                    Some(ask) => (Phase::Bisect { lo, hi }, Some(ask)),
                    None => (self.neighbours(outcomes), None),
                }
            }
            (Phase::Neighbours(left), Some(_)) => match left.split_first() {
                Some((&level, rest)) => {
                    (Phase::Neighbours(rest.to_vec()), Some((level, ProbeRole::Neighbour)))
                }
                None => (Phase::Confirm, None),
            },
            (Phase::Confirm, Some(_)) => match self.confirm(outcomes) {
                Some(ask) => (Phase::Confirm, Some(ask)),
                None => (Phase::Done, None),
            },
        }
    }

    /// The bisection's next level between `lo` (passed) and `hi` (failed), or `None` once they are
    /// within the resolution.
    fn bisect(&self, lo: u32, hi: u32) -> Option<(u32, ProbeRole)> {
        let close = f64::from(hi - lo) <= (self.plan.resolution * f64::from(lo)).max(1.0);
        (!close).then(|| (lo + (hi - lo) / 2, ProbeRole::Bisect))
    }

    /// The bracket's first probe between a pass at `lo` and `failed`: where `failed`'s figures put the
    /// cap when they say, else halfway.
    fn aim(&self, lo: u32, failed: &Outcome, outcomes: &[Outcome]) -> (Phase, Option<(u32, ProbeRole)>) {
        let hi = failed.level;
        match (self.bisect(lo, hi), failed.aim) {
            (None, _) => (self.neighbours(outcomes), None),
            (Some(_), Some(at)) if at.is_finite() => {
                let at = at.round().clamp(f64::from(lo + 1), f64::from(hi - 1)) as u32;
                (Phase::Aim { lo, hi }, Some((at, ProbeRole::Aim)))
            }
            (Some(ask), _) => (Phase::Bisect { lo, hi }, Some(ask)),
        }
    }

    /// How far above a passing `lo` a failing level lies within the resolution: the most.
    fn above(&self, lo: u32) -> u32 {
        ((self.plan.resolution * f64::from(lo)) as u32).max(1)
    }

    /// How far below a failing `hi` a passing level lies within the resolution (of the passing
    /// level): the most.
    fn below(&self, hi: u32) -> u32 {
        let r = self.plan.resolution;
        ((r * f64::from(hi) / (1.0 + r)) as u32).max(1)
    }

    /// The levels beside the best passing probe, the resolution's distance away (at least one), within
    /// the range; above it, the least failing level instead when that is nearer (its probe has said).
    fn beside(&self, outcomes: &[Outcome]) -> Vec<u32> {
        let Some(best) = best(outcomes) else { return Vec::new() };
        let d = self.above(best);
        let failed_above = outcomes.iter().filter(|o| !o.passed && o.level > best).map(|o| o.level).min();
        let ceiling = failed_above.unwrap_or(self.plan.to);
        let beside = [best.saturating_sub(d).max(self.plan.from), best.saturating_add(d).min(ceiling)];
        let mut levels: Vec<u32> = beside.into_iter().filter(|&l| l != best).collect();
        levels.dedup();
        levels
    }

    /// The neighbours to probe: those [`beside`](Self::beside) the best passing probe not yet probed
    /// (the others are taken from the probe that measured them).
    fn neighbours(&self, outcomes: &[Outcome]) -> Phase {
        let probed = |level: &u32| outcomes.iter().any(|o| o.level == *level);
        Phase::Neighbours(self.beside(outcomes).into_iter().filter(|l| !probed(l)).collect())
    }

    /// The best passing level measured again, until it has passed `confirm` confirmations; a level
    /// whose confirmation failed is ruled out, and the next best is confirmed. `None` when the answer
    /// stands (or none is left).
    fn confirm(&self, outcomes: &[Outcome]) -> Option<(u32, ProbeRole)> {
        let level = best(outcomes)?;
        let confirmed = outcomes
            .iter()
            .zip(&self.roles)
            .filter(|(o, role)| **role == ProbeRole::Confirm && o.level == level && o.passed)
            .count();
        (confirmed < self.plan.confirm as usize).then_some((level, ProbeRole::Confirm))
    }
}

/// The level of the best passing probe among `outcomes` ([`best_passing`]).
fn best(outcomes: &[Outcome]) -> Option<u32> {
    best_passing(outcomes, |o| Judged { level: Some(o.level), passed: o.passed, rate: o.rate })
        .map(|o| o.level)
}

/// A search over a run's users (every database's together, as a sweep's steps count them), each probe
/// a full step (ramp, warmup, duration), its role recorded on the step.
#[derive(Clone, Debug)]
pub struct UserSearch(FindMax);

impl UserSearch {
    /// A search of `plan`'s levels, each a number of users.
    pub fn new(plan: SearchPlan) -> UserSearch {
        UserSearch(FindMax::new(plan))
    }
}

impl Stepper for UserSearch {
    fn next(&mut self, judged: &[Step]) -> Option<u32> {
        let outcomes: Vec<Outcome> = judged
            .iter()
            .map(|s| Outcome {
                level: u32::try_from(s.level()).unwrap_or(u32::MAX),
                passed: s.cap.as_ref().is_some_and(|c| c.passed),
                rate: s.figures.headline_figure(),
                aim: s.users_at_cap(),
            })
            .collect();
        self.0.next(&outcomes).map(|(level, _)| level)
    }

    fn role(&self) -> Option<ProbeRole> {
        self.0.roles().last().copied()
    }

    fn taken(&self) -> Vec<(usize, ProbeRole)> {
        self.0.taken().iter().map(|&i| (i, ProbeRole::Neighbour)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProbeRole::*;

    fn plan(from: u32, to: u32) -> SearchPlan {
        SearchPlan { from, to, resolution: 0.05, confirm: 1 }
    }

    /// Runs the search against a system whose verdict and throughput at each level `system` gives,
    /// confirmations by `confirm` (the level and how many times it was measured before); returns each
    /// probe's level and role, and the answer.
    fn search(
        plan: SearchPlan,
        system: impl Fn(u32) -> (bool, f64),
        confirm: impl Fn(u32, usize) -> (bool, f64),
    ) -> (Vec<(u32, ProbeRole)>, Option<u32>) {
        search_aimed(plan, |l| (system(l), None), confirm)
    }

    /// [`search`], the system also saying where each probe's figures put the cap.
    fn search_aimed(
        plan: SearchPlan,
        system: impl Fn(u32) -> ((bool, f64), Option<f64>),
        confirm: impl Fn(u32, usize) -> (bool, f64),
    ) -> (Vec<(u32, ProbeRole)>, Option<u32>) {
        let mut s = FindMax::new(plan);
        let (mut outcomes, mut asked) = (Vec::new(), Vec::new());
        while let Some((level, role)) = s.next(&outcomes) {
            assert!(asked.len() < 100, "the search ends: {asked:?}");
            let before = outcomes.iter().filter(|o: &&Outcome| o.level == level).count();
            let ((passed, rate), aim) =
                if role == Confirm { (confirm(level, before), None) } else { system(level) };
            asked.push((level, role));
            outcomes.push(Outcome { level, passed, rate, aim });
        }
        (asked, best(&outcomes))
    }

    /// Throughput rises with the level up to a capacity, the cap fails from `fails` on.
    fn capped(fails: u32) -> impl Fn(u32) -> (bool, f64) {
        move |level| (level < fails, f64::from(level.min(100)))
    }

    #[test]
    fn grows_geometrically_bisects_to_the_resolution_then_neighbours_and_confirms() {
        let (asked, answer) = search(plan(8, 4096), capped(300), |l, _| capped(300)(l));
        let levels: Vec<u32> = asked.iter().map(|a| a.0).collect();
        assert_eq!(
            &asked[..7],
            &[(8, Grow), (16, Grow), (32, Grow), (64, Grow), (128, Grow), (256, Grow), (512, Grow)]
        );
        assert_eq!(asked[7], (384, Bisect));
        // Bisection ends within 5% of the last pass, the one below 300 and the one at or above.
        let bisects: Vec<u32> = asked.iter().filter(|a| a.1 == Bisect).map(|a| a.0).collect();
        let lo = bisects.iter().chain(&[256]).filter(|&&l| l < 300).max().copied().unwrap();
        let hi = bisects.iter().chain(&[512]).filter(|&&l| l >= 300).min().copied().unwrap();
        assert!(f64::from(hi - lo) <= 0.05 * f64::from(lo), "{lo}..{hi}: {levels:?}");
        assert!(asked.iter().any(|a| a.1 == Neighbour), "{asked:?}");
        assert_eq!(asked.last().unwrap().1, Confirm);
        // Throughput is flat from 100 on: the earliest level that reached it is the answer.
        assert_eq!(answer, Some(128));
        assert!(asked.len() < 20, "{} probes: {asked:?}", asked.len());
    }

    #[test]
    fn the_answer_is_the_most_throughput_among_passing_probes_when_throughput_falls_with_load() {
        // Throughput peaks at 40 and falls after; the cap fails from 200.
        let system = |l: u32| (l < 200, 1000.0 - f64::from(l.abs_diff(40)));
        let (asked, answer) = search(plan(10, 1000), system, |l, _| system(l));
        assert_eq!(answer, Some(40));
        assert!(asked.contains(&(40, Confirm)), "{asked:?}");
        // The neighbours of the best passing probe (40, growing from 10) were probed: 38 and 42.
        assert!(asked.contains(&(38, Neighbour)) && asked.contains(&(42, Neighbour)), "{asked:?}");
    }

    #[test]
    fn a_failed_confirmation_moves_the_answer_down_to_the_next_best() {
        // The best passing probe's rerun fails; the next best is confirmed and is the answer.
        // Halving 32..64 ends at 58 (passed) and 60 (failed): 58's neighbours, 56 and 60, are measured.
        let (asked, answer) = search(plan(8, 64), capped(60), |l, _| (l != 58, f64::from(l)));
        let confirms: Vec<(u32, ProbeRole)> = asked.iter().copied().filter(|a| a.1 == Confirm).collect();
        assert_eq!(confirms.first(), Some(&(58, Confirm)), "{asked:?}");
        assert_eq!(confirms.len(), 2, "{asked:?}");
        assert!(answer.unwrap() < 58, "{asked:?}");
        assert_eq!(Some(confirms[1].0), answer);
    }

    #[test]
    fn several_confirmations_must_all_pass() {
        let plan = SearchPlan { confirm: 3, ..plan(8, 16) };
        let (asked, answer) = search(plan, capped(100), |l, n| (l != 16 || n < 3, f64::from(l)));
        // 16 passes its first two confirmations, fails the third: 15 (its neighbour) is confirmed thrice.
        assert_eq!(asked.iter().filter(|a| **a == (16, Confirm)).count(), 3, "{asked:?}");
        assert_eq!(answer, Some(15), "{asked:?}");
        assert_eq!(asked.iter().filter(|a| **a == (15, Confirm)).count(), 3, "{asked:?}");
    }

    #[test]
    fn a_range_whose_start_fails_has_no_answer_and_one_that_never_fails_ends_at_its_top() {
        assert_eq!(search(plan(8, 64), |_| (false, 1.0), |_, _| (false, 1.0)), (vec![(8, Grow)], None));
        let (asked, answer) = search(plan(8, 50), |l| (true, f64::from(l)), |l, _| (true, f64::from(l)));
        assert_eq!(answer, Some(50));
        assert_eq!(asked[..4], [(8, Grow), (16, Grow), (32, Grow), (50, Grow)]);
        assert_eq!(asked[4..], [(48, Neighbour), (50, Confirm)]);
    }

    #[test]
    fn a_neighbour_the_search_measured_already_is_taken_from_there_not_probed_again() {
        // Throughput peaks at 16; the cap fails from 40. At a 50% resolution 16's neighbours are 8,
        // which growing measured, and 24.
        let plan = SearchPlan { resolution: 0.5, ..plan(8, 64) };
        let system = |l: u32| (l < 40, 100.0 - f64::from(l.abs_diff(16)));
        let mut s = FindMax::new(plan);
        let mut outcomes = Vec::new();
        while let Some((level, _)) = s.next(&outcomes) {
            let (passed, rate) = system(level);
            outcomes.push(Outcome { level, passed, rate, aim: None });
        }
        let asked: Vec<(u32, ProbeRole)> = outcomes.iter().map(|o| o.level).zip(s.roles().to_vec()).collect();
        // Only the confirmation measures a load again.
        assert_eq!(
            asked,
            [(8, Grow), (16, Grow), (32, Grow), (64, Grow), (48, Bisect), (24, Neighbour), (16, Confirm)]
        );
        assert_eq!(s.taken(), [0], "8, measured by growing, is the other neighbour");
    }

    #[test]
    fn a_failing_probe_s_aim_closes_the_bracket_in_two_probes_and_the_fail_is_the_upper_neighbour() {
        // Throughput rises to the cap, which fails from 300; each failing probe puts it at 299.
        let system = |l: u32| ((l < 300, f64::from(l)), (l >= 300).then_some(299.4));
        let (asked, answer) = search_aimed(plan(8, 4096), system, |l, _| system(l).0);
        let after_growing: Vec<(u32, ProbeRole)> = asked.iter().copied().skip(7).collect();
        // 299 passes; 299 + 5% (14) fails: within the resolution. 299's neighbours: 285, and 313, the
        // fail, taken from its probe.
        assert_eq!(after_growing, [(299, Aim), (313, Aim), (285, Neighbour), (299, Confirm)]);
        assert_eq!(answer, Some(299));
        // Halving the same bracket takes twice as many probes.
        let (halved, _) = search(plan(8, 4096), |l| system(l).0, |l, _| system(l).0);
        assert!(halved.len() >= asked.len() + 2, "{halved:?} against {asked:?}");
    }

    #[test]
    fn an_aim_too_high_or_too_low_costs_two_probes_and_halving_goes_on_from_its_bracket() {
        let fails = 300;
        for aim in [260.0, 340.0, 257.0, 511.0, 1e9, f64::NAN] {
            let system = |l: u32| ((l < fails, f64::from(l)), (l >= fails).then_some(aim));
            let (asked, answer) = search_aimed(plan(8, 4096), system, |l, _| system(l).0);
            let levels: Vec<u32> = asked.iter().map(|a| a.0).collect();
            let bracket: Vec<(u32, bool)> =
                asked.iter().filter(|a| a.1 != Confirm).map(|a| (a.0, a.0 < fails)).collect();
            let lo = bracket.iter().filter(|b| b.1).map(|b| b.0).max().unwrap();
            let hi = bracket.iter().filter(|b| !b.1).map(|b| b.0).min().unwrap();
            assert!(f64::from(hi - lo) <= 0.05 * f64::from(lo), "aim {aim}: {lo}..{hi}: {levels:?}");
            assert_eq!(answer, Some(lo), "aim {aim}: {levels:?}");
            assert!(asked.len() <= 16, "aim {aim}: {asked:?}");
            assert!(levels.iter().all(|&l| (8..=4096).contains(&l)), "{levels:?}");
        }
    }

    #[test]
    fn bisection_stops_one_level_apart_at_low_levels() {
        let (asked, answer) = search(plan(1, 8), capped(3), |l, _| capped(3)(l));
        assert_eq!(asked, [(1, Grow), (2, Grow), (4, Grow), (3, Bisect), (2, Confirm)]);
        assert_eq!(answer, Some(2));
    }

    #[test]
    fn the_user_search_asks_for_users_and_names_each_role() {
        let mut s = UserSearch::new(plan(4, 8));
        assert_eq!(s.next(&[]), Some(4));
        assert_eq!(s.role(), Some(Grow));
        assert!(s.reads_verdicts());
    }
}
