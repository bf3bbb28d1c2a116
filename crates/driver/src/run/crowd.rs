//! A shard's users as data: each user is its state between turns ([`User`]), a deadline in one heap for
//! all of them while it keys or thinks, and a number in its target's line while it waits for a pooled
//! connection. A user costs those bytes whatever it is doing; only a user whose turn is running holds a
//! future (a [`Job`], run by its shard's loop), so a shard's memory follows its users' state, not the
//! engines' futures. The crowd is plain data on its shard's thread: no lock, no timer and no task per
//! user.
//!
//! The crowd decides, the shard's loop runs: [`Crowd::due`] begins the users whose start has come and
//! wakes those whose deadline has, [`Crowd::finish`] takes a turn back, and both leave the turns to run
//! in [`Crowd::ready`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::collector::Collector;
use super::pool::{Connections, Pool};
use super::schedule::{self, Scheduled, Timing};
use super::user::{Job, User, nanos};
use super::workload::Workload;

/// The most users [`Crowd::due`] begins, and the most it wakes, at once: when the shard's loop falls
/// behind (a stall, a burst), it takes back the turns that ended before it starts many more, so the
/// turns in flight (each a future as large as its engine's) do not pile up.
const AT_ONCE: usize = 256;

/// A shard's users, their clock and their connections.
pub struct Crowd<W: Workload> {
    workload: Arc<W>,
    targets: usize,
    /// The run's time zero: every time here is ns after it.
    start: Instant,
    /// The users begun so far, by their places in the shard.
    users: Vec<User<W>>,
    /// The shard's users, in the order they begin; `users.len()` of them have.
    to_begin: Vec<u32>,
    /// When the next of `to_begin` begins (`None` when all have, or the run is stopping).
    next_begin_ns: Option<u64>,
    timing: Timing,
    schedule: Vec<Scheduled>,
    /// Users keying or thinking: (intended start, place), the soonest on top.
    deadlines: BinaryHeap<Reverse<(u64, u32)>>,
    connections: Connections<W::Session>,
    /// Ended turns' boxes, for the next turns.
    spare: Vec<Box<Job<W>>>,
    /// Turns to run, for the shard's loop to take.
    ready: Vec<Box<Job<W>>>,
    stopping: bool,
}

impl<W: Workload> Crowd<W> {
    /// The crowd of users `users` (indices in the run) of `workload`, beginning as `timing` and
    /// `schedule` place them after `start`, on connections `pooled` (this shard's share of each target's
    /// pool) or their own.
    pub fn new(
        workload: Arc<W>,
        start: Instant,
        mut users: Vec<u32>,
        (timing, schedule): (Timing, Vec<Scheduled>),
        pooled: Option<Vec<u32>>,
    ) -> Self {
        let begin = |i: u32| schedule::user_start(&timing, &schedule, i).map_or(u64::MAX, nanos);
        // A step's users begin in order, and a later step's after; sorted, whatever `--window` does.
        users.sort_by_key(|&i| (begin(i), i));
        let next_begin_ns = users.first().map(|&i| begin(i));
        let connections = match pooled {
            Some(sizes) => Connections::Shared(sizes.into_iter().map(Pool::new).collect()),
            None => Connections::Own(Vec::new()),
        };
        Crowd {
            targets: workload.targets().len().max(1),
            workload,
            start,
            users: Vec::with_capacity(users.len()),
            to_begin: users,
            next_begin_ns,
            timing,
            schedule,
            deadlines: BinaryHeap::new(),
            connections,
            spare: Vec::new(),
            ready: Vec::new(),
            stopping: false,
        }
    }

    /// The workload the users run.
    pub fn workload(&self) -> &Arc<W> {
        &self.workload
    }

    /// ns from the run's start to `at`.
    fn ns(&self, at: Instant) -> u64 {
        nanos(at.saturating_duration_since(self.start))
    }

    /// The next moment something is due (a user begins or wakes); `None` when nothing ever is.
    pub fn next_due(&self) -> Option<Instant> {
        let wake = self.deadlines.peek().map(|Reverse((at, _))| *at);
        let at = match (self.next_begin_ns, wake) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(self.start + Duration::from_nanos(at))
    }

    /// Begins the users whose start has come by `now` and wakes those whose intended start has (how late
    /// each woke goes to `collector`), a few hundred of each at most (the rest are still due: see
    /// [`next_due`](Self::next_due)); their turns go to [`ready`](Self::ready). Returns how many users
    /// began.
    pub fn due(&mut self, now: Instant, collector: &mut Collector) -> u64 {
        let now_ns = self.ns(now);
        let mut begun = 0;
        while let Some(at) = self.next_begin_ns.filter(|&at| at <= now_ns && begun < AT_ONCE as u64) {
            self.begin(at, now_ns);
            begun += 1;
            let next = self.to_begin.get(self.users.len());
            self.next_begin_ns =
                next.and_then(|&i| schedule::user_start(&self.timing, &self.schedule, i)).map(nanos);
        }
        let now_ms = (now_ns / 1_000_000).min(u64::from(u32::MAX)) as u32;
        for _ in 0..AT_ONCE {
            let Some(&Reverse((at, place))) = self.deadlines.peek().filter(|Reverse((at, _))| *at <= now_ns)
            else {
                break;
            };
            self.deadlines.pop();
            collector.record_late(now_ms, ((now_ns - at) / 1_000).min(u64::from(u32::MAX)) as u32);
            self.dispatch(place);
        }
        begun
    }

    /// Begins the next user, due at `at_ns`: its own connection opens first (connecting is not part of
    /// a response time, as DS2's driver connects every user before it starts), or it deals its first
    /// transaction.
    fn begin(&mut self, at_ns: u64, now_ns: u64) {
        let place = self.users.len() as u32;
        let index = self.to_begin[place as usize];
        self.users.push(User::new(&*self.workload, index, at_ns));
        match &mut self.connections {
            Connections::Own(sessions) => {
                sessions.push(None);
                let mut job = self.spare.pop().unwrap_or_else(Job::new);
                job.connect(place, index as usize % self.targets);
                self.ready.push(job);
            }
            Connections::Shared(_) => self.deal(place, at_ns, now_ns),
        }
    }

    /// Deals the user at `place` its next transaction, its keying time after `from_ns`: it waits for it,
    /// or, when its intended start has come, goes at once (it did not wait, so it was not late).
    fn deal(&mut self, place: u32, from_ns: u64, now_ns: u64) {
        let at = self.users[place as usize].deal(&*self.workload, from_ns);
        if at <= now_ns {
            self.dispatch(place);
        } else {
            self.deadlines.push(Reverse((at, place)));
        }
    }

    /// The user at `place` takes its turn: on its own connection, or on a slot of its target's pool, or
    /// it waits in line for one.
    fn dispatch(&mut self, place: u32) {
        let user = &mut self.users[place as usize];
        let target = user.index() as usize % self.targets;
        let session = match &mut self.connections {
            Connections::Own(sessions) => sessions[place as usize].take(),
            Connections::Shared(pools) => match pools[target].lend(place) {
                Some(session) => session,
                None => return,
            },
        };
        let mut job = self.spare.pop().unwrap_or_else(Job::new);
        job.run(place, user, target, session);
        self.ready.push(job);
    }

    /// Takes back a turn that ran: records it into `collector`, hands its session back (to the user's
    /// own slot, or to the first user in line for it), and deals the user its next transaction, unless
    /// the run is stopping.
    pub fn finish(&mut self, mut job: Box<Job<W>>, collector: &mut Collector) {
        let place = job.place;
        let user = &mut self.users[place as usize];
        let done_ns = nanos(job.done().saturating_duration_since(self.start));
        let from_ns = if job.ran() {
            job.record(user, self.start, collector);
            user.rested_ns(&job, done_ns, self.workload.pace())
        } else {
            // Its own connection opened (or failed to: its first transaction meets that again, and counts
            // it); its first transaction's clock starts now.
            user.intended_ns().max(done_ns)
        };
        match &mut self.connections {
            Connections::Own(sessions) => sessions[place as usize] = job.session.take(),
            Connections::Shared(pools) => {
                if let Some((next, session)) = pools[job.target].give_back(job.session.take()) {
                    let mut next_job = self.spare.pop().unwrap_or_else(Job::new);
                    next_job.run(next, &mut self.users[next as usize], job.target, session);
                    self.ready.push(next_job);
                }
            }
        }
        self.spare.push(job);
        if !self.stopping {
            // The turn's end stands for now: a next transaction intended before it goes at once, a later
            // one waits (and, if its time passed meanwhile, wakes on the loop's next round, late).
            self.deal(place, from_ns, done_ns);
        }
    }

    /// The turns to run now.
    pub fn ready(&mut self) -> std::vec::Drain<'_, Box<Job<W>>> {
        self.ready.drain(..)
    }

    /// Stops the crowd: no user begins, wakes or deals again; those waiting in line leave it (none has a
    /// transaction in flight). Returns how many users had begun (they are no longer running).
    pub fn stop(&mut self) -> u64 {
        self.stopping = true;
        self.next_begin_ns = None;
        self.deadlines = BinaryHeap::new();
        if let Connections::Shared(pools) = &mut self.connections {
            pools.iter_mut().for_each(Pool::close_line);
        }
        self.users.len() as u64
    }
}
