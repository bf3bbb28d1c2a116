//! Who decides a run's steps: the run asks a [`Stepper`] for its next step's users, and the stepper
//! answers from the steps judged so far, so that a search (the most users within a cap, say) can go up
//! or down on the evidence of each step. A sweep (`--users 4,8,16`) is the stepper that walks its
//! fixed list ([`Sweep`]); `--find-max`'s search is [`UserSearch`](super::find_max::UserSearch), each
//! step it decides named by its part in the search ([`Stepper::role`]).

use oltpgen_report::model::Step;
use oltpgen_report::model::search::ProbeRole;

use super::StepSpec;

/// Decides a run's steps one at a time.
///
/// The run lays each step it is given after the one before; a step with fewer users than the one
/// before stops the surplus users at its start (their transactions in flight finish, and count where
/// they complete). A stepper may ask for at most the plan's most users
/// ([`RunPlan::max_users`](super::RunPlan::max_users)): the run deals users and sizes connections for
/// that many, and lays no step beyond it.
pub trait Stepper {
    /// The next step's users, from the steps of this run judged so far (in order; empty before the
    /// first), or `None` to end the run.
    fn next(&mut self, judged: &[Step]) -> Option<u32>;

    /// Whether [`next`](Self::next) reads the verdicts. When it does, the run asks for a step once the
    /// step before it is judged (its window closed and every sample dated in it is in: the turns
    /// that began before its end finished, 2 s at most), and the step begins then, the users running on
    /// meanwhile; when it does not (a fixed list), the run asks for every step at its start and lays
    /// each at the end of the one before.
    fn reads_verdicts(&self) -> bool {
        true
    }

    /// The part the step [`next`](Self::next) last decided plays in a search, recorded on the step
    /// (`None`: a sweep's step).
    fn role(&self) -> Option<ProbeRole> {
        None
    }

    /// The steps judged so far (by index) that a search took for another part without measuring their
    /// load again (a neighbour it had measured already), each with that part: named so in the path.
    fn taken(&self) -> Vec<(usize, ProbeRole)> {
        Vec::new()
    }
}

/// A boxed stepper decides as the one inside: a run's stepper is chosen by its flags.
impl<S: Stepper + ?Sized> Stepper for Box<S> {
    fn next(&mut self, judged: &[Step]) -> Option<u32> {
        (**self).next(judged)
    }

    fn reads_verdicts(&self) -> bool {
        (**self).reads_verdicts()
    }

    fn role(&self) -> Option<ProbeRole> {
        (**self).role()
    }

    fn taken(&self) -> Vec<(usize, ProbeRole)> {
        (**self).taken()
    }
}

/// The steps of a fixed list, in order, whatever their verdicts: a sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    users: Vec<u32>,
    at: usize,
}

impl Sweep {
    /// The sweep over `steps`' users, in their order.
    pub fn of(steps: &[StepSpec]) -> Sweep {
        Sweep { users: steps.iter().map(|s| s.users).collect(), at: 0 }
    }
}

impl Stepper for Sweep {
    fn next(&mut self, _judged: &[Step]) -> Option<u32> {
        let users = self.users.get(self.at).copied()?;
        self.at += 1;
        Some(users)
    }

    fn reads_verdicts(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_walks_its_list_then_ends() {
        let mut sweep = Sweep::of(&[StepSpec { users: 4, run: 1 }, StepSpec { users: 2, run: 1 }]);
        assert!(!sweep.reads_verdicts());
        assert_eq!((sweep.next(&[]), sweep.next(&[]), sweep.next(&[])), (Some(4), Some(2), None));
    }
}
