//! Client threads: a run's users split into shards, one per thread, each on a current-thread tokio
//! runtime of its own, as one thread ran them all before. A shard owns its users (a [`Crowd`]), their
//! connections (a connection's I/O task runs on the runtime that opened it) and, with `--connections`,
//! its share of each target's pool, so a user never crosses threads and no transaction is handed between
//! threads. Each shard has its own [`Collector`], into which its users' turns are recorded as they end;
//! the run's collector takes each shard's share once per reporting interval and before judging a step
//! ([`Shards::gather`]), off the users' hot path.
//!
//! A shard is one task: its loop sleeps until the next user begins or wakes, runs the users' turns side
//! by side (only those in flight hold a future), and answers the run's requests.
//!
//! The first shard runs on the caller's runtime (so one client thread is the one-thread client of
//! before, and tests on tokio's paused clock still drive it); the others on threads of their own.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::collector::Collector;
use super::crowd::Crowd;
use super::schedule::Scheduled;
use super::user;
use super::{Driven, RunPlan};

/// Users still running this long after being told to stop are aborted.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// `users` (indices in the run, ascending) dealt over `shards` shards: each target's users (user `i`
/// drives target `i % targets`) round-robin, so every step's users, and each target's, are spread
/// evenly, whichever of the run's users are this agent's. Also returns how many users of each target
/// were dealt.
pub fn deal(users: impl Iterator<Item = u32>, targets: usize, shards: usize) -> (Vec<Vec<u32>>, Vec<usize>) {
    let (mut dealt, mut per_target) = (vec![Vec::new(); shards.max(1)], vec![0; targets.max(1)]);
    for user in users {
        let k = &mut per_target[user as usize % targets.max(1)];
        dealt[*k % shards.max(1)].push(user);
        *k += 1;
    }
    (dealt, per_target)
}

/// Holder `holder`'s share of `connections`, dealt round-robin over `holders` holders (shards, or
/// agents) as a target's users are: with at least as many connections as holders, every holder gets
/// one; none to one that is not a holder (`holder >= holders`: it has no user of the target).
pub fn connections_of(connections: u32, holder: usize, holders: usize) -> u32 {
    if holder >= holders {
        return 0;
    }
    let holders = holders as u32;
    connections / holders + u32::from((holder as u32) < connections % holders)
}

/// What the run asks of a shard.
enum Request {
    /// Hand over what the shard's collector took in since the last request.
    Share(oneshot::Sender<Collector>),
    /// Stop the users, wait for the transactions in flight to finish, then hand over the rest, and end.
    Drain(oneshot::Sender<Collector>),
    /// The run decided its next step: play it, and measure its window.
    Step(Scheduled),
    /// What is still owed of everything dated before this instant (a window's end).
    Settled(Instant, oneshot::Sender<Settlement>),
}

/// What the shards still owe a window that ended at some instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settlement {
    /// No turn that began before its end is still running.
    pub turns_done: bool,
    /// Every open-loop arrival due before its end was served or dropped, or is running (always, in a
    /// closed loop).
    pub arrivals_dealt: bool,
}

impl Settlement {
    /// What a shard whose turns in flight began as `begun` says and whose users are `crowd` owes of what
    /// is dated before `end`.
    fn of<W: Driven>(begun: &Begun, crowd: &mut Crowd<W>, end: Instant) -> Self {
        Settlement { turns_done: begun.all_from(end), arrivals_dealt: !crowd.owes_before(end) }
    }

    /// Everything dated before the end is recorded: a gathering holds the window's every sample.
    pub fn all(self) -> bool {
        self.turns_done && self.arrivals_dealt
    }
}

/// When each of a shard's turns in flight began (when the shard set it running, at or before its
/// transaction's start): every sample a turn records is dated at or after it, so once none that began
/// before a window's end is left, the window has all its samples.
#[derive(Debug, Default)]
struct Begun(BTreeMap<Instant, u32>);

impl Begun {
    /// A turn began at `at`.
    fn add(&mut self, at: Instant) {
        *self.0.entry(at).or_default() += 1;
    }

    /// A turn that began at `at` ended.
    fn remove(&mut self, at: Instant) {
        if let Some(n) = self.0.get_mut(&at) {
            *n -= 1;
            if *n == 0 {
                self.0.remove(&at);
            }
        }
    }

    /// Whether every turn still in flight began at or after `end`.
    fn all_from(&self, end: Instant) -> bool {
        self.0.first_key_value().is_none_or(|(&at, _)| at >= end)
    }
}

/// The run's shards, as the run's own task sees them.
pub struct Shards {
    requests: Vec<mpsc::UnboundedSender<Request>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// What one shard runs: its users, what it tells, and its collector.
struct Shard<W: Driven> {
    crowd: Crowd<W>,
    /// Users running now, over every shard (changed when users begin or stop, never per transaction).
    running: Arc<AtomicU64>,
    collector: Collector,
}

impl Shards {
    /// Starts `plan`'s users in [`RunPlan::client_threads_used`] shards, each waiting for its start in
    /// `schedule` (the steps decided so far; [`step`](Self::step) adds the later ones) after `start`,
    /// telling `running` when users start or end, until [`drain`](Self::drain) stops them; each shard's
    /// collector is shaped like `collector`.
    pub fn spawn<W: Driven>(
        workload: &Arc<W>,
        plan: &RunPlan,
        schedule: &[Scheduled],
        (start, running): (Instant, Arc<AtomicU64>),
        collector: &Collector,
    ) -> Shards {
        let n = plan.client_threads_used() as usize;
        let targets = workload.targets().len();
        // This agent's users, each with the index (and so the identity) it has in one process.
        let (users, per_target) = deal((0..plan.max_users()).filter(|&i| plan.agent.runs(i)), targets, n);
        // Each target's share of this agent dealt over the shards that run users on it, as they are.
        let shares = plan.pooled(targets);
        let mut shards = Shards { requests: Vec::with_capacity(n), threads: Vec::new() };
        for (s, users) in users.into_iter().enumerate() {
            let pooled = shares.as_ref().map(|shares| {
                shares.iter().zip(&per_target).map(|(&c, &u)| connections_of(c, s, u.min(n))).collect()
            });
            let mut crowd = Crowd::new(workload.clone(), start, users, plan.timing, pooled);
            schedule.iter().for_each(|&step| crowd.decide(step));
            let shard = Shard { crowd, running: running.clone(), collector: collector.fresh() };
            let (tx, rx) = mpsc::unbounded_channel();
            shards.requests.push(tx);
            if s == 0 {
                tokio::spawn(shard.run(rx));
            } else {
                shards.start_thread(s, shard, rx);
            }
        }
        shards
    }

    /// Runs `shard` on a thread of its own with a current-thread runtime; where the thread or its
    /// runtime cannot be made, on the caller's runtime instead (the run goes on, on fewer threads).
    fn start_thread<W: Driven>(&mut self, s: usize, shard: Shard<W>, rx: mpsc::UnboundedReceiver<Request>) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
        let (hand, take) = std::sync::mpsc::channel::<(tokio::runtime::Runtime, Shard<W>, _)>();
        let thread = runtime.as_ref().ok().and_then(|_| {
            std::thread::Builder::new()
                .name(format!("oltpgen-client-{s}"))
                .spawn(move || {
                    if let Ok((runtime, shard, rx)) = take.recv() {
                        runtime.block_on(shard.run(rx));
                        // Connections' I/O tasks end with the runtime; the users are done.
                        runtime.shutdown_timeout(Duration::from_secs(5));
                    }
                })
                .ok()
        });
        match (runtime, thread) {
            (Ok(runtime), Some(thread)) => {
                let _ = hand.send((runtime, shard, rx));
                self.threads.push(thread);
            }
            _ => drop(tokio::spawn(shard.run(rx))),
        }
    }

    /// Tells every shard the run's next step, `step`, which `collector` measures too.
    pub fn step(&self, step: Scheduled, collector: &mut Collector) {
        collector.add_window(super::ms(step.window.0)..super::ms(step.window.1));
        for shard in &self.requests {
            let _ = shard.send(Request::Step(step));
        }
    }

    /// What the shards still owe of everything dated before `end` (a window's end, on the run's clock).
    pub async fn settled(&self, end: Instant) -> Settlement {
        let answers: Vec<_> = self
            .requests
            .iter()
            .map(|shard| {
                let (reply, answer) = oneshot::channel();
                let _ = shard.send(Request::Settled(end, reply));
                answer
            })
            .collect();
        let mut all = Settlement { turns_done: true, arrivals_dealt: true };
        for answer in answers {
            // A shard that is gone (it panicked) owes nothing more.
            if let Ok(owes) = answer.await {
                all.turns_done &= owes.turns_done;
                all.arrivals_dealt &= owes.arrivals_dealt;
            }
        }
        all
    }

    /// Adds every shard's share since the last gathering into `collector`.
    pub async fn gather(&self, collector: &mut Collector) {
        self.ask(collector, Request::Share).await;
    }

    /// Stops every shard's users, lets the transactions in flight finish, adds what they still recorded
    /// into `collector`, and waits for the shards' threads to end.
    pub async fn drain(self, collector: &mut Collector) {
        self.ask(collector, Request::Drain).await;
        for thread in self.threads {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
    }

    /// Sends every shard the request `make` makes, then adds each answer into `collector`.
    async fn ask(&self, collector: &mut Collector, make: fn(oneshot::Sender<Collector>) -> Request) {
        let answers: Vec<_> = self
            .requests
            .iter()
            .map(|shard| {
                let (reply, answer) = oneshot::channel();
                let _ = shard.send(make(reply));
                answer
            })
            .collect();
        for answer in answers {
            // A shard that is gone (it panicked) has nothing more to give.
            if let Ok(share) = answer.await {
                collector.merge(&share);
            }
        }
    }
}

impl<W: Driven> Shard<W> {
    /// Begins and wakes the shard's users as their times come, runs their turns, records them, and
    /// answers the run's requests until it asks the shard to drain (or is gone: then the turns in
    /// flight are dropped).
    async fn run(self, mut requests: mpsc::UnboundedReceiver<Request>) {
        let Shard { mut crowd, running, mut collector } = self;
        let workload = crowd.workload().clone();
        let mut in_flight = FuturesUnordered::new();
        let mut begun = Begun::default();
        let alarm = tokio::time::sleep(Duration::ZERO);
        tokio::pin!(alarm);
        let mut armed = None;
        // The shard's users running, as `running` last heard.
        let mut told = 0;
        loop {
            crowd.due(Instant::now(), &mut collector);
            if crowd.running() != told {
                running.fetch_add(crowd.running().wrapping_sub(told), Ordering::Relaxed);
                told = crowd.running();
            }
            let now = Instant::now();
            for job in crowd.ready() {
                begun.add(now);
                in_flight.push(user::turn(&*workload, job).map(move |job| (now, job)));
            }
            let next = crowd.next_due();
            if next != armed {
                if let Some(at) = next {
                    alarm.as_mut().reset(at);
                }
                armed = next;
            }
            // In this order: the run's rare requests are never kept waiting by a stream of turns ending, and
            // turns that ended are taken back before more users begin or wake.
            tokio::select! {
                biased;
                request = requests.recv() => match request {
                    Some(Request::Share(reply)) => {
                        let _ = reply.send(collector.take());
                    }
                    Some(Request::Settled(end, reply)) => {
                        let _ = reply.send(Settlement::of(&begun, &mut crowd, end));
                    }
                    Some(Request::Step(step)) => {
                        crowd.decide(step);
                        collector.add_window(super::ms(step.window.0)..super::ms(step.window.1));
                    }
                    Some(Request::Drain(reply)) => {
                        running.fetch_sub(crowd.stop(), Ordering::Relaxed);
                        drain(&mut crowd, &mut in_flight, &mut collector).await;
                        let _ = reply.send(collector.take());
                        return;
                    }
                    None => return,
                },
                Some((at, job)) = in_flight.next(), if !in_flight.is_empty() => {
                    begun.remove(at);
                    crowd.finish(job, &mut collector);
                    // And every other turn that has ended by now, before the loop comes round again.
                    while let Some(Some((at, job))) = in_flight.next().now_or_never() {
                        begun.remove(at);
                        crowd.finish(job, &mut collector);
                    }
                }
                () = &mut alarm, if armed.is_some() => armed = None,
            }
        }
    }
}

/// Lets the turns in flight end and records them (each transaction completes after the window and is
/// not measured); those not done within [`DRAIN_TIMEOUT`] are dropped.
async fn drain<W: Driven, F: Future<Output = (Instant, Box<user::Job<W>>)>>(
    crowd: &mut Crowd<W>,
    in_flight: &mut FuturesUnordered<F>,
    collector: &mut Collector,
) {
    let drain = async {
        while let Some((_, job)) = in_flight.next().await {
            crowd.finish(job, collector);
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, drain).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_and_each_target_s_users_spread_evenly_over_the_shards() {
        let on = |users: &mut dyn Iterator<Item = u32>, targets: usize, shards: usize| {
            let mut per = vec![vec![0u32; targets]; shards];
            for (s, users) in deal(users, targets, shards).0.iter().enumerate() {
                users.iter().for_each(|&i| per[s][i as usize % targets] += 1);
            }
            per
        };
        assert_eq!(on(&mut (0..16), 1, 2), [[8], [8]]);
        assert_eq!(on(&mut (0..5), 1, 2), [[3], [2]], "a step of any size: the first users alternate");
        assert_eq!(on(&mut (0..8), 2, 2), [[2, 2], [2, 2]], "each DS2 target's users on both threads");
        assert_eq!(on(&mut (0..7), 2, 3), [[2, 1], [1, 1], [1, 1]]);
        assert_eq!(on(&mut (0..4), 3, 1), [[2, 1, 1]]);
        // Agent 0 of 2 on two targets runs users 0, 2, 4…, all of target 0: still on both threads.
        assert_eq!(on(&mut (0..16).step_by(2), 2, 2), [[4, 0], [4, 0]]);
    }

    #[test]
    fn a_window_is_settled_once_no_turn_that_began_before_its_end_is_in_flight() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut begun = Begun::default();
        assert!(begun.all_from(at(100)), "no turn in flight");
        begun.add(at(90));
        begun.add(at(90));
        begun.add(at(120));
        assert!(!begun.all_from(at(100)), "two turns from before the end still run");
        begun.remove(at(90));
        assert!(!begun.all_from(at(100)), "one still runs");
        begun.remove(at(90));
        assert!(begun.all_from(at(100)), "only the turn begun after the end runs");
        assert!(!begun.all_from(at(121)));
        begun.remove(at(120));
        assert!(begun.all_from(at(121)));
    }

    #[test]
    fn shared_connections_are_dealt_as_the_users_are() {
        let shares = |c, n| (0..n).map(|s| connections_of(c, s, n)).collect::<Vec<_>>();
        assert_eq!(shares(5, 2), [3, 2], "as five users would be");
        assert_eq!(shares(2, 2), [1, 1]);
        assert_eq!(shares(7, 1), [7]);
        assert_eq!(connections_of(3, 2, 2), 0, "none to a shard without a user of the target");
        for (c, n) in [(3, 2), (16, 3), (4, 4)] {
            assert_eq!(shares(c, n).iter().sum::<u32>(), c, "every connection once");
            assert!(shares(c, n).iter().all(|&k| k >= 1), "no shard without a connection");
        }
    }
}
