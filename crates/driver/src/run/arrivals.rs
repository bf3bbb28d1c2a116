//! The open loop (`--rate`): transactions arrive at a rate whatever the server does, as pgbench's `-R`,
//! wrk2 and k6's arrival-rate executors offer them, so a server that slows down is not offered less work
//! and a stall shows in the latencies of every arrival it held up (no coordinated omission).
//!
//! Arrivals are dealt to the run's users round-robin, each user keeping its own state (TPC-C's home
//! warehouse and deck): with `--arrivals fixed`, arrival `k` of a step comes `k / R` after the step's
//! start and goes to user `k mod N`, so user `i`'s `j`th is at `(i + j·N) / R`, computed from the step's
//! start in integer ns each time (no timer grain accumulates). With `--arrivals poisson`, each user's
//! arrivals are a Poisson stream of rate `R / N` of its own, seeded from the run seed and its index: the
//! `N` streams together are exactly a Poisson stream of rate `R`. A user runs its arrivals one after the
//! other, on its own connection or one of `--connections` shared ones (which caps the transactions in
//! flight); an arrival that waits (behind the user's last, or in line for a connection) is queued, and
//! its response time runs from its scheduled arrival, the wait (its *lag*) measured apart. The queue is
//! bounded: a user holds at most `queue` arrivals due and not started, the oldest beyond that dropped
//! (an *overflow*); with `--max-lag D`, an arrival that cannot start within `D` of its arrival is dropped
//! (pgbench's `-L`, a *lag drop*). Both are counted apart.
//!
//! Agents need nothing of their own: user indices are the run's, so each agent's users offer its share
//! of the rate, phased by their indices between the other agents'.

use std::time::Duration;

use oltpgen_report::model::arrivals::StepArrivals;

use super::collector::ArrivalTally;

/// How arrivals are spread in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Evenly, `1 / R` apart.
    Fixed,
    /// A Poisson process (exponential gaps), seeded.
    Poisson,
}

/// The open loop's settings, as the flags gave them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrivals {
    /// Arrivals per second over the whole run (every agent's users together) in its first step; at
    /// least 1. Each step's own is its [`Scheduled::rate`](super::Scheduled::rate).
    pub rate: u32,
    /// The users arrivals are dealt to (`--users`, one number), in every step.
    pub users: u32,
    /// `--max-drop`: a step that dropped more arrivals did not sustain its rate.
    pub max_drop: u64,
    /// How they are spread.
    pub spread: Spread,
    /// The seed of the Poisson streams (the run seed, or 0).
    pub seed: u64,
    /// `--max-lag`: an arrival that cannot start within this of its arrival is dropped.
    pub max_lag: Option<Duration>,
    /// `--max-queue`: arrivals one user holds due and not started, at most.
    pub queue: u32,
}

impl Arrivals {
    /// `--max-queue`'s default: arrivals one user holds due and not started.
    pub const QUEUE: u32 = 1000;
}

/// The users an open loop deals its arrivals to: `counts` (from `flag`) must be one number.
///
/// # Errors
/// A usage error naming `flag` for a sweep of users.
pub fn population(counts: &[u64], flag: &str) -> Result<u32, crate::Error> {
    match counts {
        [n] => u32::try_from(*n)
            .map_err(|_| crate::Error::usage(format!("{flag} {n} is more than oltpgen can run"))),
        _ => Err(crate::Error::usage(format!(
            "{flag} with --rate is the population arrivals are dealt to: give one number (sweep the rate instead, \
             --rate 500..4000:500)"
        ))),
    }
}

/// Refuses keying or think time (`waits`, named by `flags`) with an open loop: its transactions start
/// when they arrive.
///
/// # Errors
/// A usage error naming the flags.
pub fn refuse_waits(arrivals: Option<&Arrivals>, flags: &str, waits: bool) -> Result<(), crate::Error> {
    match arrivals {
        Some(a) if waits => Err(crate::Error::usage(format!(
            "{flags} with --rate {}: an open loop's transactions start when they arrive, with no keying or \
             think time: give 0 or drop --rate",
            a.rate
        ))),
        _ => Ok(()),
    }
}

impl super::RunPlan {
    /// Seeds the open loop's Poisson arrivals from the run seed (`seed`, [`run_seed`](Self::run_seed)).
    pub fn seed_arrivals(&mut self, seed: Option<u64>) {
        if let Some(a) = self.timing.arrivals.as_mut() {
            a.seed = seed.unwrap_or(0);
        }
    }
}

/// The arrivals of step `step` of `plan` for its result, from what its window took in (`tally`) over
/// `window_s` seconds, with whether some due in it were still `owed` (neither served nor dropped) when
/// it was judged: `None` in a closed loop. An agent offers its users' share of the rate.
pub fn step_arrivals(
    plan: &super::RunPlan,
    step: &super::Scheduled,
    tally: Option<&ArrivalTally>,
    window_s: f64,
    owed: bool,
) -> Option<StepArrivals> {
    let a = plan.timing.arrivals?;
    let users = step.spec.users.max(1);
    let rate = step.rate.unwrap_or(a.rate);
    let offered = f64::from(rate) * f64::from(plan.agent.users_of(users)) / f64::from(users);
    let tally = tally.cloned().unwrap_or_default();
    let mut out = StepArrivals::new(offered, window_s, tally.lag, tally.service);
    (out.dropped_lag, out.dropped_overflow) = (tally.dropped_lag, tally.dropped_overflow);
    (out.failed, out.owed_at_verdict) = (tally.failed, owed);
    out.judge(a.max_drop);
    Some(out)
}

/// One user's arrivals in the current step: where the step began, who the user is among how many, and
/// its next arrival. Plain bytes, as a user is.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// The step's start, ns after the run's start.
    step_ns: u64,
    /// Arrivals per second.
    rate: u32,
    /// The user's index in the run, and the users arrivals are dealt to.
    index: u32,
    users: u32,
    /// The next arrival's number among the user's (fixed).
    next: u64,
    /// The next arrival, seconds after the step's start (Poisson: the sum of the gaps drawn so far).
    at_s: f64,
    /// The Poisson stream's state; `None` for fixed arrivals.
    rng: Option<u64>,
}

impl Clock {
    /// User `index`'s arrivals among `users`, in a step at `rate` that began `step_ns` after the run's
    /// start: its first is the first at or after `from_ns` (a user that begins late misses none it could
    /// not have run).
    pub fn new(a: &Arrivals, rate: u32, index: u32, users: u32, step_ns: u64, from_ns: u64) -> Clock {
        let rng = (a.spread == Spread::Poisson).then(|| mix(a.seed ^ mix(u64::from(index) + 1)));
        let mut c = Clock { step_ns, rate: rate.max(1), index, users: users.max(1), next: 0, at_s: 0.0, rng };
        if c.rng.is_some() {
            c.at_s = c.gap();
        }
        if c.rng.is_none() && from_ns > step_ns {
            // The first j with (index + j·users) / rate ≥ from - step.
            let k = u128::from(from_ns - step_ns) * u128::from(c.rate);
            let k = k.div_ceil(1_000_000_000) as u64;
            c.next = k.saturating_sub(u64::from(index)).div_ceil(u64::from(c.users));
        }
        while c.at_ns() < from_ns {
            c.advance();
        }
        c
    }

    /// The next arrival, ns after the run's start: exact from the step's start.
    pub fn at_ns(&self) -> u64 {
        match self.rng {
            None => {
                let k = u128::from(self.index) + u128::from(self.next) * u128::from(self.users);
                let ns = k * 1_000_000_000 / u128::from(self.rate);
                self.step_ns.saturating_add(ns.min(u128::from(u64::MAX)) as u64)
            }
            Some(_) => self.step_ns.saturating_add((self.at_s * 1e9) as u64),
        }
    }

    /// Moves to the arrival after the next.
    pub fn advance(&mut self) {
        self.next += 1;
        if self.rng.is_some() {
            self.at_s += self.gap();
        }
    }

    /// How many arrivals are due by `now_ns` from the next on (0 when the next is still to come), up to
    /// `most + 1`.
    pub fn due(&self, now_ns: u64, most: u32) -> u32 {
        if self.rng.is_none() {
            // Fixed: arrival k is due when k·1e9 / rate (floored) ≤ now - step, i.e. k ≤ kmax.
            let Some(t) = now_ns.checked_sub(self.step_ns) else { return 0 };
            let kmax = ((u128::from(t) + 1) * u128::from(self.rate) - 1) / 1_000_000_000;
            let Some(past) = kmax.checked_sub(u128::from(self.index)) else { return 0 };
            let last = past / u128::from(self.users);
            let n = (last + 1).saturating_sub(u128::from(self.next));
            return n.min(u128::from(most) + 1) as u32;
        }
        let mut c = *self;
        let mut n = 0;
        while n <= most && c.at_ns() <= now_ns {
            n += 1;
            c.advance();
        }
        n
    }

    /// An exponential gap of mean `users / rate` seconds, from the stream.
    fn gap(&mut self) -> f64 {
        let state = self.rng.get_or_insert(0);
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        // A uniform in (0, 1]: never 0, whose logarithm is infinite.
        let u = ((mix(*state) >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        -u.ln() * f64::from(self.users) / f64::from(self.rate)
    }
}

/// SplitMix64's finalizer: a well-mixed 64-bit value from any, for the Poisson streams' seeds and draws.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrivals(spread: Spread) -> Arrivals {
        Arrivals { rate: 3, users: 2, max_drop: 0, spread, seed: 7, max_lag: None, queue: Arrivals::QUEUE }
    }

    #[test]
    fn fixed_arrivals_are_dealt_round_robin_exactly_from_the_step_start() {
        let a = arrivals(Spread::Fixed);
        // 3/s over 2 users: arrival k at k/3 s, user k mod 2.
        let mut times: Vec<(u64, u32)> = Vec::new();
        for user in 0..2 {
            let mut c = Clock::new(&a, 3, user, 2, 5, 0);
            for _ in 0..3_000_000 {
                times.push((c.at_ns(), user));
                c.advance();
            }
        }
        times.sort_unstable();
        for (k, &(at, user)) in times.iter().enumerate().take(7) {
            assert_eq!((at, user), (5 + k as u64 * 1_000_000_000 / 3, k as u32 % 2));
        }
        let (last, _) = times[times.len() - 1];
        let c = Clock::new(&a, 3, 1, 2, 5, 0);
        assert_eq!(c.due(last, u32::MAX - 1), 3_000_000, "counted in one step, as many as there are");
        assert_eq!(last, 5 + 5_999_999 * 1_000_000_000 / 3, "no grain accumulates over 6 million arrivals");
    }

    #[test]
    fn a_user_that_begins_late_starts_at_its_first_arrival_from_then() {
        let a = arrivals(Spread::Fixed);
        let c = Clock::new(&a, 3, 1, 2, 0, 2_000_000_000);
        // User 1's arrivals: 1/3, 1, 5/3, 7/3 s.
        assert_eq!(c.at_ns(), 7 * 1_000_000_000 / 3);
        assert_eq!(c.due(4_000_000_000, 10), 3, "7/3, 3 and 11/3 s");
        assert_eq!(c.due(3_000_000_000, 10), 2, "3 s is due at 3 s");
        assert_eq!(c.due(2_000_000_000, 10), 0);
        assert_eq!(c.due(4_000_000_000, 0), 1, "counted up to most + 1");
    }

    #[test]
    fn poisson_streams_add_up_to_the_rate_and_repeat_with_the_seed() {
        let a = Arrivals { rate: 1000, ..arrivals(Spread::Poisson) };
        let horizon = 100_000_000_000; // 100 s
        let count = |seed| {
            let a = Arrivals { seed, ..a };
            (0..10).map(|u| Clock::new(&a, 1000, u, 10, 0, 0).due(horizon, u32::MAX - 1)).sum::<u32>()
        };
        let n = count(7);
        assert!((99_000..=101_000).contains(&n), "about 100 000 in 100 s at 1000/s: {n}");
        assert_eq!(n, count(7), "the same seed, the same arrivals");
        assert_ne!(n, count(8));
    }
}
