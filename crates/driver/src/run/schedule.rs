//! The run's timeline, laid one step at a time as each is decided ([`Timing::place`]): when the step
//! begins, how long its new users take to start, and which window it measures. A sweep is a list of
//! steps laid at once ([`Timing::schedule`]); users carry over from step to step, so a step only starts
//! the users it adds, and one with fewer users stops the surplus at its start.

use std::time::Duration;

/// How users start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ramp {
    /// This many users per second.
    Rate(f64),
    /// Each step's new users started evenly over this time.
    Over(Duration),
}

/// One step as asked for: its user count and, with `--runs`, which repetition it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepSpec {
    /// Users running during the step.
    pub users: u32,
    /// Repetition number, from 1.
    pub run: u32,
}

/// The timing rules every step follows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// How new users start.
    pub ramp: Ramp,
    /// Unmeasured time after a step's last new user started.
    pub warmup: Duration,
    /// The measured time.
    pub duration: Duration,
    /// `--window A..B`: measure only this part of each step, counted from the step's start (replaces
    /// ramp + warmup + duration as the step's shape).
    pub window: Option<(Duration, Duration)>,
    /// `--rate`: transactions arrive at a rate (an open loop, [`arrivals`](super::arrivals)); `None`:
    /// each user's follows its last's end (a closed loop).
    pub arrivals: Option<super::arrivals::Arrivals>,
}

/// One step placed on the run's clock (all times from the run's start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scheduled {
    /// What was asked.
    pub spec: StepSpec,
    /// When the step begins (the previous step's end).
    pub start: Duration,
    /// How long its new users take to start.
    pub ramp: Duration,
    /// The measured window.
    pub window: (Duration, Duration),
    /// An open loop's arrivals per second in the step; `None` in a closed loop.
    pub rate: Option<u32>,
}

impl Timing {
    /// The measured time of a run that goes on until it is stopped (DS2's `--run-time 0`): the schedule
    /// needs an end, and this one is never reached, so Ctrl-C is the run's normal end.
    pub const UNTIL_STOPPED: Duration = Duration::from_secs(30 * 24 * 3600);

    /// Whether the run goes on until it is stopped ([`Timing::UNTIL_STOPPED`]).
    pub fn until_stopped(&self) -> bool {
        self.duration >= Self::UNTIL_STOPPED
    }

    /// The time to start `new` users.
    pub fn ramp_for(&self, new: u32) -> Duration {
        match self.ramp {
            _ if new == 0 => Duration::ZERO,
            Ramp::Rate(r) => Duration::from_secs_f64(f64::from(new - 1) / r),
            Ramp::Over(d) => d,
        }
    }

    /// When the `k`th (0-based) of `new` users starts, after its step began.
    pub fn start_of(&self, k: u32, new: u32) -> Duration {
        match self.ramp {
            Ramp::Rate(r) => Duration::from_secs_f64(f64::from(k) / r),
            Ramp::Over(d) => d.mul_f64(f64::from(k) / f64::from(new.max(1))),
        }
    }

    /// Places `steps` on the clock, each at the end of the one before.
    pub fn schedule(&self, steps: &[StepSpec]) -> Vec<Scheduled> {
        let mut out: Vec<Scheduled> = Vec::with_capacity(steps.len());
        for &spec in steps {
            out.push(self.place(spec, out.last(), Duration::ZERO));
        }
        out
    }

    /// Places `spec` after `before` (the run's step before it, if any), no earlier than `decided` (when
    /// it was decided, from the run's start): a step decided from the verdict on the one before begins
    /// once that verdict is in. It ramps only the users it adds to `before`'s.
    pub fn place(&self, spec: StepSpec, before: Option<&Scheduled>, decided: Duration) -> Scheduled {
        // An open loop's step asks for a rate (its `users`), offered to the run's population.
        let (spec, rate) = match self.arrivals {
            Some(a) => (StepSpec { users: a.users, ..spec }, Some(spec.users)),
            None => (spec, None),
        };
        let (end, running) = before.map_or((Duration::ZERO, 0), |b| (b.window.1, b.spec.users));
        let at = end.max(decided);
        let ramp = self.ramp_for(spec.users.saturating_sub(running));
        let window = match self.window {
            Some((a, b)) => (at + a, at + b),
            None => (at + ramp + self.warmup, at + ramp + self.warmup + self.duration),
        };
        Scheduled { spec, start: at, ramp, window, rate }
    }
}

impl Scheduled {
    /// When user `index` begins in this step, which follows a step of `before` users: at its place in
    /// the step's ramp, when the step adds it (`None` when the user ran before it or does not run in it).
    pub fn begins(&self, timing: &Timing, before: u32, index: u32) -> Option<Duration> {
        (before..self.spec.users)
            .contains(&index)
            .then(|| self.start + timing.start_of(index - before, self.spec.users - before))
    }
}

/// When user `index` first starts: in the first step that needs it, at its place in that step's ramp.
pub fn user_start(timing: &Timing, schedule: &[Scheduled], index: u32) -> Option<Duration> {
    let mut before = 0;
    for s in schedule {
        if let Some(at) = s.begins(timing, before, index) {
            return Some(at);
        }
        before = s.spec.users;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn timing(ramp: Ramp) -> Timing {
        Timing { ramp, warmup: secs(5), duration: secs(60), window: None, arrivals: None }
    }

    fn steps(users: &[u32]) -> Vec<StepSpec> {
        users.iter().map(|&users| StepSpec { users, run: 1 }).collect()
    }

    #[test]
    fn a_step_ramps_only_its_new_users_then_warms_up_and_measures() {
        let t = timing(Ramp::Rate(10.0));
        let s = t.schedule(&steps(&[11, 31, 31]));
        assert_eq!(s[0].window, (secs(6), secs(66)));
        assert_eq!((s[1].start, s[1].ramp), (secs(66), Duration::from_secs_f64(1.9)));
        assert_eq!(s[2].ramp, Duration::ZERO, "same users: nothing to start");
        assert_eq!(s[2].window, (s[1].window.1 + secs(5), s[1].window.1 + secs(65)));
        assert_eq!(user_start(&t, &s, 0), Some(Duration::ZERO));
        assert_eq!(user_start(&t, &s, 10), Some(secs(1)));
        assert_eq!(user_start(&t, &s, 11), Some(secs(66)));
        assert_eq!(user_start(&t, &s, 31), None);
    }

    #[test]
    fn a_window_replaces_warmup_and_duration() {
        let mut t = timing(Ramp::Over(secs(20)));
        t.window = Some((secs(100), secs(120)));
        let s = t.schedule(&steps(&[4, 8]));
        assert_eq!(s[0].window, (secs(100), secs(120)));
        assert_eq!(s[1].start, secs(120));
        assert_eq!(s[1].window, (secs(220), secs(240)));
        assert_eq!(user_start(&t, &s, 6), Some(secs(130)), "halfway through the second step's 20 s ramp");
    }

    #[test]
    fn a_smaller_step_starts_nobody_and_a_larger_one_after_it_starts_users_again_from_there() {
        let t = timing(Ramp::Rate(10.0));
        let s = t.schedule(&steps(&[16, 8, 12]));
        assert_eq!(s[1].ramp, Duration::ZERO, "going down, nothing to start");
        assert_eq!(s[2].ramp, Duration::from_secs_f64(0.3), "users 8-11 start again");
        assert_eq!(s[2].begins(&t, 8, 9), Some(s[2].start + Duration::from_secs_f64(0.1)));
        assert_eq!(s[2].begins(&t, 8, 7), None, "user 7 ran on");
        assert_eq!(
            user_start(&t, &s, 9),
            Some(Duration::from_secs_f64(0.9)),
            "first started in the first step"
        );
        let decided = s[2].window.1 + secs(2);
        let next = t.place(StepSpec { users: 4, run: 1 }, Some(&s[2]), decided);
        assert_eq!(next.start, decided, "a step decided on the verdict begins once it is in");
        assert_eq!(next.window, (decided + secs(5), decided + secs(65)));
    }
}
