//! The user loop's clock, without a database: a scripted workload whose transactions answer after set
//! delays drives the real user loop, schedule and collector ([`run::drive`]) with keying and think times
//! on, on tokio's paused clock, so every time is exact. The workload logs when each transaction really
//! began and ended; the tests compare that log with what the collector measured. Conflicts (the
//! retryable faults) are scripted too, to count retries.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::sync::LazyLock;

use oltpgen_driver::run::sample::Status;
use oltpgen_driver::run::workload::MAX_RETRIES;
use oltpgen_driver::run::{self, Agent, Driven, Next, Op, Ops, Ramp, RunPlan, StepSpec, Timing};
use oltpgen_driver::workload::{Kinds, Profile};
use oltpgen_report::model::TxnStats;
use oltpgen_report::stats::cap::Cap;
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Done, TxnError};
use tokio::time::Instant;

/// One transaction as the workload saw it run.
#[derive(Clone, Copy, Debug)]
struct Ran {
    user: u32,
    seq: u32,
    started: Instant,
    ended: Instant,
}

/// User `i`'s waits and the delays its transactions answer after.
struct Scripted {
    targets: Vec<String>,
    /// Per user: (keying, think).
    waits: Vec<(Duration, Duration)>,
    /// (user, seq) → a delay other than [`Scripted::ANSWER`].
    stalls: BTreeMap<(u32, u32), Duration>,
    /// (user, seq) → how many of its attempts fail with a conflict (serialization failure, deadlock)
    /// before one succeeds.
    conflicts: BTreeMap<(u32, u32), u8>,
    /// Attempts so far per (user, seq).
    attempts: Mutex<BTreeMap<(u32, u32), u8>>,
    /// `Some(n)`: it tries each transaction `n` times itself ([`Driven::retries_itself`]), as a pgbench
    /// script's `--max-tries` says.
    tries_itself: Option<u8>,
    log: Mutex<Vec<Ran>>,
}

impl Scripted {
    const ANSWER: Duration = Duration::from_millis(10);

    fn new(waits: Vec<(Duration, Duration)>, stalls: BTreeMap<(u32, u32), Duration>) -> Self {
        Scripted {
            targets: vec!["scripted".into()],
            waits,
            stalls,
            conflicts: BTreeMap::new(),
            attempts: Mutex::default(),
            tries_itself: None,
            log: Mutex::default(),
        }
    }

    /// Each user's transactions, in order.
    fn by_user(&self) -> Vec<Vec<Ran>> {
        let log = self.log.lock().unwrap();
        (0..self.waits.len() as u32).map(|u| log.iter().filter(|r| r.user == u).copied().collect()).collect()
    }
}

// One kind per user, so each user's response times come out apart.
static PROFILE: LazyLock<Profile> = LazyLock::new(|| {
    Profile::new(
        oltpgen_report::model::Workload::Tpcc.descriptor().clone(),
        Kinds::plain(&["user0", "user1"]),
    )
});

impl Driven for Scripted {
    type User = (u32, u32);
    type Session = ();
    type Input = (u32, u32);

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn targets(&self) -> &[String] {
        &self.targets
    }

    fn user(&self, index: u32) -> Self::User {
        (index, 0)
    }

    fn next(&self, user: &mut Self::User) -> Next<Self::Input> {
        let (keying, think) = self.waits[user.0 as usize];
        let input = *user;
        user.1 += 1;
        Next { kind: input.0 as usize, input, keying, think }
    }

    async fn connect(&self, _target: usize) -> Result<(), TxnError> {
        Ok(())
    }

    fn retries_itself(&self) -> bool {
        self.tries_itself.is_some()
    }

    async fn execute<'a>(
        &'a self,
        _session: &'a (),
        input: &'a (u32, u32),
        ops: &'a mut Ops,
    ) -> Result<Done, TxnError> {
        let mut tries = 1;
        loop {
            match self.try_once(input).await {
                Err(_) if self.tries_itself.is_some_and(|n| tries < n) => {
                    tries += 1;
                    ops.retried();
                }
                done => return done,
            }
        }
    }
}

impl Scripted {
    /// One try of transaction `input`.
    async fn try_once(&self, input: &(u32, u32)) -> Result<Done, TxnError> {
        let started = Instant::now();
        tokio::time::sleep(self.stalls.get(input).copied().unwrap_or(Self::ANSWER)).await;
        let attempt = {
            let mut attempts = self.attempts.lock().unwrap();
            let n = attempts.entry(*input).or_default();
            *n += 1;
            *n
        };
        if attempt <= self.conflicts.get(input).copied().unwrap_or(0) {
            return Err(TxnError { fault: Fault::Retryable });
        }
        let (user, seq) = *input;
        self.log.lock().unwrap().push(Ran { user, seq, started, ended: Instant::now() });
        Ok(Done::default())
    }
}

/// One step of `users` users, started `ramp_rate` per second, measured from 0 to `window`.
fn plan(users: u32, connections: Option<u32>, ramp_rate: f64, window: Duration) -> RunPlan {
    RunPlan {
        steps: vec![StepSpec { users, run: 1 }],
        connections,
        timing: Timing {
            ramp: Ramp::Rate(ramp_rate),
            warmup: Duration::ZERO,
            duration: window,
            window: Some((Duration::ZERO, window)),
            arrivals: None,
        },
        report_interval: Duration::from_secs(1),
        cap: Cap::default(),
        stop_after_breach: None,
        // The paused clock is the caller's runtime's: one client thread runs on it.
        client_threads: 1,
        agent: Agent::WHOLE,
        start_at: None,
        search: None,
    }
}

/// Each user's intended start of each transaction: its first at its ramp slot plus its keying time,
/// every later one at the previous one's end plus think plus keying time.
fn intended(w: &Scripted, t0: Instant, ramp_rate: f64) -> Vec<Vec<Instant>> {
    w.by_user()
        .iter()
        .enumerate()
        .map(|(u, ran)| {
            let (keying, think) = w.waits[u];
            let first = t0 + Duration::from_secs_f64(u as f64 / ramp_rate) + keying;
            std::iter::once(first)
                .chain(ran.iter().map(|r| r.ended + think + keying))
                .take(ran.len())
                .collect()
        })
        .collect()
}

/// The response times the collector should have: completion − intended start, for transactions that
/// completed inside the window.
fn expected_latencies(w: &Scripted, t0: Instant, ramp_rate: f64, window: Duration) -> Vec<Vec<Duration>> {
    let intended = intended(w, t0, ramp_rate);
    w.by_user()
        .iter()
        .zip(&intended)
        .map(|(ran, at)| {
            ran.iter().zip(at).filter(|(r, _)| r.ended - t0 < window).map(|(r, i)| r.ended - *i).collect()
        })
        .collect()
}

/// Asserts that a figure in ms is `exact` to the histogram's precision (3 significant digits).
#[track_caller]
fn assert_close(measured_ms: f64, exact: Duration) {
    let exact_ms = exact.as_secs_f64() * 1e3;
    assert!(
        (measured_ms - exact_ms).abs() <= exact_ms * 2e-3,
        "measured {measured_ms} ms, exactly {exact_ms} ms"
    );
}

/// Asserts that `stats` holds exactly `latencies` (to the histogram's 3 significant digits).
#[track_caller]
fn assert_holds(stats: &TxnStats, latencies: &[Duration]) {
    assert_eq!(stats.count, latencies.len() as u64, "every transaction completed in the window, once");
    assert_close(stats.max_ms, *latencies.iter().max().unwrap());
    let mean = latencies.iter().sum::<Duration>() / latencies.len() as u32;
    assert_close(stats.avg_ms, mean);
}

#[tokio::test(start_paused = true)]
async fn response_times_run_from_the_intended_start_and_leave_keying_and_think_out() {
    const RAMP: f64 = 1.0;
    let window = Duration::from_secs(8);
    let (ms, s) = (Duration::from_millis, Duration::from_secs);
    // User 0 every 410 ms (keying 100, think 300, answer 10), its fifth transaction stalls 2 s; user 1
    // starts a second later, every 910 ms.
    let w = Arc::new(Scripted::new(
        vec![(ms(100), ms(300)), (ms(200), ms(700))],
        BTreeMap::from([((0, 4), s(2))]),
    ));
    let t0 = Instant::now();
    // The runtime stalls for 200 ms at 1.25 s, while user 0 waits for its start at 1.33 s: it wakes
    // 120 ms late.
    let stall = tokio::spawn(async move {
        tokio::time::sleep_until(t0 + ms(1250)).await;
        tokio::time::advance(ms(200)).await;
    });
    let measured = run::drive(w.clone(), &plan(2, None, RAMP, window), |_| {}).await;
    stall.await.unwrap();

    let ran = w.by_user();
    let intended = intended(&w, t0, RAMP);
    for (u, (ran, intended)) in ran.iter().zip(&intended).enumerate() {
        assert!(ran.len() >= 5, "user {u} ran: {ran:?}");
        for (n, (r, at)) in ran.iter().zip(intended).enumerate() {
            assert_eq!(r.seq as usize, n, "user {u}'s transactions run one after another");
            // Each user's transactions are spaced by its keying + think times, to the microsecond.
            if (u, n) == (0, 3) {
                assert_eq!(r.started - *at, ms(120), "the late wake, as the runtime stalled");
            } else {
                assert_eq!(r.started, *at, "user {u} transaction {n} began at its intended start");
            }
        }
    }
    assert_eq!(ran[0][4].ended - ran[0][4].started, s(2), "the scripted stall");

    let latencies = expected_latencies(&w, t0, RAMP, window);
    // Keying and think times are left out: every transaction but the late and the stalled one measures
    // its 10 ms answer; the late one measures from its intended start.
    assert_eq!(latencies[0][3], ms(130), "a late wake counts in the response time");
    assert_eq!(latencies[0][4], s(2));
    assert!(
        latencies.iter().flatten().filter(|l| **l != Scripted::ANSWER).count() == 2,
        "only the late and the stalled transaction differ: {latencies:?}"
    );
    let step = &measured.steps[0].figures.transactions;
    assert_holds(&step["user0"], &latencies[0]);
    assert_holds(&step["user1"], &latencies[1]);
    assert!(step["user1"].max_ms < 11.0, "user 1's keying and think times are not in its response times");

    // Wake lateness is recorded: one late wake of 120 ms.
    assert_close(measured.client.wake_late_max_ms.expect("lateness recorded"), ms(120));
    assert_close(measured.client.wake_late_p99_ms.expect("lateness recorded"), ms(120));
    assert!(measured.errors_by_kind.is_empty());
}

#[tokio::test(start_paused = true)]
async fn the_wait_for_a_pooled_connection_counts_and_a_stall_delays_those_queued_behind_it() {
    const RAMP: f64 = 1000.0;
    let window = Duration::from_secs(6);
    let (ms, s) = (Duration::from_millis, Duration::from_secs);
    // Two users on one connection: user 0's first transaction (intended at 100 ms) holds it for 2 s,
    // user 1's first (intended at 101 ms) waits for it.
    let waits = vec![(ms(100), ms(300)); 2];
    let w = Arc::new(Scripted::new(waits, BTreeMap::from([((0, 0), s(2))])));
    let t0 = Instant::now();
    let measured = run::drive(w.clone(), &plan(2, Some(1), RAMP, window), |_| {}).await;

    let ran = w.by_user();
    let intended = intended(&w, t0, RAMP);
    assert_eq!(intended[1][0], t0 + ms(101));
    assert_eq!(ran[1][0].started, ran[0][0].ended, "user 1 got the connection when user 0 let it go");
    assert_eq!(ran[1][0].started - intended[1][0], ms(1999), "the wait for a pooled connection");

    let latencies = expected_latencies(&w, t0, RAMP, window);
    assert_eq!(latencies[0][0], s(2));
    assert_eq!(
        latencies[1][0],
        ms(2009),
        "queued behind the stall: the wait counts, from the intended start"
    );
    let step = &measured.steps[0].figures.transactions;
    assert_holds(&step["user0"], &latencies[0]);
    assert_holds(&step["user1"], &latencies[1]);
    assert!(step["user1"].max_ms >= 2000.0, "a 2 s stall shows as 2 s or more behind it");
    assert!(!measured.errors_by_kind.contains_key(Fault::Fatal.name()));
}

#[tokio::test(start_paused = true)]
async fn a_workload_that_retries_itself_is_not_retried_again_and_its_retries_are_counted() {
    let ms = Duration::from_millis;
    // User 0's second transaction conflicts twice, its third every time; the workload tries each twice.
    let w = Arc::new(Scripted {
        conflicts: BTreeMap::from([((0, 1), 1), ((0, 2), u8::MAX)]),
        tries_itself: Some(2),
        ..Scripted::new(vec![(ms(100), ms(300))], BTreeMap::new())
    });
    let measured = run::drive(w.clone(), &plan(1, None, 1.0, Duration::from_secs(3)), |_| {}).await;
    let attempts = w.attempts.lock().unwrap().clone();
    assert_eq!(attempts[&(0, 1)], 2, "one conflict, then the commit, on its own second try");
    assert_eq!(attempts[&(0, 2)], 2, "its two tries, and no more from the user loop");
    let user0 = &measured.steps[0].figures.transactions["user0"];
    assert_eq!((user0.retries, user0.errors), (2, 1), "each retry counted; the one that never got through");
}

#[tokio::test(start_paused = true)]
async fn conflicts_are_retried_up_to_max_retries_and_every_retry_is_counted() {
    let window = Duration::from_secs(3);
    let ms = Duration::from_millis;
    // User 0's second transaction conflicts twice and then commits; its third conflicts every time.
    let w = Arc::new(Scripted {
        conflicts: BTreeMap::from([((0, 1), 2), ((0, 2), u8::MAX)]),
        ..Scripted::new(vec![(ms(100), ms(300))], BTreeMap::new())
    });
    let t0 = Instant::now();
    let measured = run::drive(w.clone(), &plan(1, None, 1.0, window), |_| {}).await;

    let attempts = w.attempts.lock().unwrap().clone();
    assert_eq!(attempts[&(0, 1)], 3, "two conflicts, then the commit");
    assert_eq!(
        attempts[&(0, 2)],
        MAX_RETRIES + 1,
        "the first try and MAX_RETRIES retries, then it counts as failed"
    );
    let user0 = &measured.steps[0].figures.transactions["user0"];
    assert_eq!(user0.retries, 2 + u64::from(MAX_RETRIES), "every retry is counted");
    assert_eq!(user0.errors, 1, "the transaction that never got through");
    assert_eq!(measured.errors_by_kind.get(Fault::Retryable.name()), Some(&1));
    let committed = w.by_user()[0].iter().filter(|r| r.ended - t0 < window).count() as u64;
    assert_eq!(user0.count, committed, "a failed transaction has no response time");
    // The retried transaction's response time holds its three tries.
    let latencies = &expected_latencies(&w, t0, 1.0, window)[0];
    assert_eq!(latencies[1], 3 * Scripted::ANSWER, "the retries' time is part of the response time");
}

/// A composite transaction's operation retries itself alone, and records how often.
#[tokio::test(start_paused = true)]
async fn an_operation_retries_itself_and_records_its_retries() {
    let mut ops = Ops::default();
    let tries = std::sync::atomic::AtomicU8::new(0);
    let fail_first = |n: u8| {
        let tries = &tries;
        move || async move {
            tokio::time::sleep(Scripted::ANSWER).await;
            let t = tries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if t < n { Err(TxnError { fault: Fault::Retryable }) } else { Ok(t) }
        }
    };
    assert_eq!(ops.run(0, fail_first(3), |_| false).await, Ok(3));
    tries.store(0, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(ops.run(1, fail_first(u8::MAX), |_| false).await, Err(TxnError { fault: Fault::Retryable }));
    let done: Vec<Op> = ops.drain().collect();
    assert_eq!(done.iter().map(|o| (o.kind, o.retries)).collect::<Vec<_>>(), [(0, 3), (1, MAX_RETRIES)]);
    assert_eq!(done[0].status, Status::Committed);
    assert_eq!(done[1].status, Status::Failed(Fault::Retryable));
    assert_eq!(done[0].ended - done[0].started, 4 * Scripted::ANSWER, "its time holds every try");
}

/// An open loop of 2 users over the rates `rates` (one step each, 4 s measured, fixed arrivals, at most
/// `max_lag` late), user 0's third transaction answering after 1 s.
fn open_loop(rates: &[u32], max_lag: Option<Duration>) -> (Arc<Scripted>, RunPlan) {
    use oltpgen_driver::run::arrivals::{Arrivals, Spread};
    let stall = BTreeMap::from([((0, 2), Duration::from_secs(1))]);
    let w = Arc::new(Scripted::new(vec![(Duration::ZERO, Duration::ZERO); 2], stall));
    let mut p = plan(2, None, 1.0, Duration::from_secs(4));
    // An open loop's steps ask for their rates.
    p.steps = rates.iter().map(|&users| StepSpec { users, run: 1 }).collect();
    p.timing.ramp = Ramp::Over(Duration::ZERO);
    let spread = Spread::Fixed;
    p.timing.arrivals =
        Some(Arrivals { rate: rates[0], users: 2, max_drop: 0, spread, seed: 0, max_lag, queue: 100 });
    (w, p)
}

#[tokio::test(start_paused = true)]
async fn arrivals_start_at_their_exact_times_and_a_stall_counts_from_each_arrival() {
    let ms = Duration::from_millis;
    // 10 arrivals a second dealt to 2 users: user i's jth at (i + 2j) / 10 s. User 0's third (at
    // 0.4 s) answers after 1 s, so its next ones wait behind it.
    let (w, p) = open_loop(&[10], None);
    let t0 = Instant::now();
    let measured = run::drive(w.clone(), &p, |_| {}).await;

    let ran = w.by_user();
    for (n, r) in ran[1].iter().enumerate() {
        assert_eq!(r.started - t0, ms(100 + 200 * n as u64), "user 1's arrival {n} began when it came");
    }
    let behind: Vec<Duration> = ran[0][3..6].iter().map(|r| r.started - t0).collect();
    assert_eq!(behind, [ms(1400), ms(1410), ms(1420)], "user 0's queued arrivals ran one after the other");
    assert_eq!(ran[0][8].started - t0, ms(1600), "then on time again");
    let step = &measured.steps[0];
    let a = step.arrivals.as_ref().expect("an open loop's step has arrivals");
    assert_eq!((a.offered_per_s, a.completed), (10.0, 40), "every arrival of the 4 s window, measured");
    assert!(a.sustained, "{a:?}");
    // Arrival 3 of user 0 came at 0.6 s and started at 1.4 s: the longest lag; the stalled one's
    // response time is the longest.
    assert_close(a.lag_max_ms.unwrap(), ms(800));
    assert_close(step.figures.transactions["user0"].max_ms, ms(1000));
    assert_close(step.figures.transactions["user1"].max_ms, ms(10));
}

#[tokio::test(start_paused = true)]
async fn a_rate_sweep_offers_each_step_its_rate_and_max_lag_drops_what_waited_too_long() {
    let (ms, s) = (Duration::from_millis, Duration::from_secs);
    // As above, with --max-lag 300ms: user 0's arrivals at 0.6, 0.8 and 1.0 s cannot start by then
    // when its stalled one ends at 1.4 s; the one at 1.2 s can. Then a step at 20/s.
    let (w, p) = open_loop(&[10, 20], Some(ms(300)));
    let t0 = Instant::now();
    let measured = run::drive(w.clone(), &p, |_| {}).await;

    let user0: Vec<Duration> = w.by_user()[0][3..5].iter().map(|r| r.started - t0).collect();
    assert_eq!(user0, [ms(1400), ms(1410)], "the arrivals of 1.2 and 1.4 s, after the three dropped");
    let a = |i: usize| measured.steps[i].arrivals.clone().expect("arrivals");
    assert_eq!((a(0).completed, a(0).dropped_lag, a(0).dropped_overflow), (37, 3, 0));
    assert!(!a(0).sustained, "3 dropped, --max-drop 0");
    assert_close(a(0).lag_max_ms.unwrap(), ms(200));
    assert_eq!((a(1).offered_per_s, a(1).completed, a(1).dropped()), (20.0, 80, 0), "{:?}", a(1));
    assert!(a(1).sustained);
    assert_eq!(measured.steps[1].users, 2, "the same users offer the second rate");
    let second: Vec<Duration> =
        w.by_user()[1].iter().map(|r| r.started - t0).filter(|&t| t >= s(4)).take(3).collect();
    assert_eq!(second, [ms(4050), ms(4150), ms(4250)], "user 1's arrivals at 20/s from the step's start");
}
