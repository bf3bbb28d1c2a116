//! A shard's users as data: each user is its state between turns ([`User`]), a deadline in one heap for
//! all of them while it keys or thinks, and a number in its target's line while it waits for a pooled
//! connection. A user costs those bytes whatever it is doing; only a user whose turn is running holds a
//! future (a [`Job`], run by its shard's loop), so a shard's memory follows its users' state, not the
//! engines' futures. The crowd is plain data on its shard's thread: no lock, no timer and no task per
//! user.
//!
//! The crowd decides, the shard's loop runs: [`Crowd::due`] plays the steps the run decided
//! ([`Crowd::decide`]: at a step's start its new users begin over its ramp, or, when it has fewer users
//! than the step before, the surplus stop) and wakes the users whose deadline has come,
//! [`Crowd::finish`] takes a turn back, and both leave the turns to run in [`Crowd::ready`].

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::arrivals::Clock;
use super::collector::{Collector, Dropped};
use super::pool::{Connections, Pool};
use super::schedule::{Scheduled, Timing};
use super::user::{Job, User, nanos};
use super::workload::Driven;

/// The most users [`Crowd::due`] begins, and the most it wakes, at once: when the shard's loop falls
/// behind (a stall, a burst), it takes back the turns that ended before it starts many more, so the
/// turns in flight (each a future as large as its engine's) do not pile up.
const AT_ONCE: usize = 256;

/// A shard's users, their clock and their connections.
pub struct Crowd<W: Driven> {
    workload: Arc<W>,
    targets: usize,
    /// The run's time zero: every time here is ns after it.
    start: Instant,
    /// The users begun at least once, by their places in the shard.
    users: Vec<User<W>>,
    /// The shard's users' indices in the run, ascending: a user's place is its position here (users
    /// first begin in that order); `users.len()` of them have begun.
    places: Vec<u32>,
    /// The steps decided and not yet played through, each with the users of the step before it.
    steps: VecDeque<(Scheduled, u32)>,
    /// The users of the last step decided.
    last_users: u32,
    /// Whether the first of `steps` has begun (its edge played); then `cursor` is the place of the
    /// next user it begins.
    entered: bool,
    cursor: usize,
    /// When the next edge or begin of `steps` is due (`None` when none is, or the run is stopping).
    next_step_ns: Option<u64>,
    /// Users of the run below this index run; the others, once their turn in flight ends, stop.
    wanted: u32,
    /// The shard's users running now: begun, and below `wanted`.
    running: u64,
    timing: Timing,
    /// Users keying or thinking: (intended start, place), the soonest on top.
    deadlines: BinaryHeap<Reverse<(u64, u32)>>,
    connections: Connections<W::Session>,
    /// Ended turns' boxes, for the next turns.
    spare: Vec<Box<Job<W>>>,
    /// Turns to run, for the shard's loop to take.
    ready: Vec<Box<Job<W>>>,
    stopping: bool,
    /// The open loop's arrivals dropped since the collector last took them: (scheduled, ms after the
    /// run's start; why).
    drops: Vec<(u32, Dropped)>,
}

impl<W: Driven> Crowd<W> {
    /// The crowd of users `users` (indices in the run) of `workload`, beginning as `timing` places them
    /// in the steps [`decide`](Self::decide) gives, after `start`, on connections `pooled` (this
    /// shard's share of each target's pool) or their own.
    pub fn new(
        workload: Arc<W>,
        start: Instant,
        mut users: Vec<u32>,
        timing: Timing,
        pooled: Option<Vec<u32>>,
    ) -> Self {
        users.sort_unstable();
        let connections = match pooled {
            Some(sizes) => Connections::Shared(sizes.into_iter().map(Pool::new).collect()),
            None => Connections::Own(Vec::new()),
        };
        Crowd {
            targets: workload.targets().len().max(1),
            workload,
            start,
            users: Vec::with_capacity(users.len()),
            places: users,
            steps: VecDeque::new(),
            last_users: 0,
            entered: false,
            cursor: 0,
            next_step_ns: None,
            wanted: 0,
            running: 0,
            timing,
            deadlines: BinaryHeap::new(),
            connections,
            spare: Vec::new(),
            ready: Vec::new(),
            stopping: false,
            drops: Vec::new(),
        }
    }

    /// The workload the users run.
    pub fn workload(&self) -> &Arc<W> {
        &self.workload
    }

    /// The shard's users running now.
    pub fn running(&self) -> u64 {
        self.running
    }

    /// Adds the next step the run decided, `step`: at its start, the users it adds begin over its ramp,
    /// or those it drops stop.
    pub fn decide(&mut self, step: Scheduled) {
        if self.stopping {
            return;
        }
        self.steps.push_back((step, self.last_users));
        self.last_users = step.spec.users;
        self.plan_next();
    }

    /// ns from the run's start to `at`.
    fn ns(&self, at: Instant) -> u64 {
        nanos(at.saturating_duration_since(self.start))
    }

    /// The next moment something is due (a step begins, a user begins or wakes); `None` when nothing
    /// ever is.
    pub fn next_due(&self) -> Option<Instant> {
        let wake = self.deadlines.peek().map(|Reverse((at, _))| *at);
        let at = match (self.next_step_ns, wake) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(self.start + Duration::from_nanos(at))
    }

    /// Plays what the steps have due by `now` (a step's edge, where its surplus users stop; its new
    /// users, who begin) and wakes the users whose intended start has come (how late each woke goes to
    /// `collector`), a few hundred of each at most (the rest are still due: see
    /// [`next_due`](Self::next_due)); their turns go to [`ready`](Self::ready).
    pub fn due(&mut self, now: Instant, collector: &mut Collector) {
        let now_ns = self.ns(now);
        for _ in 0..AT_ONCE {
            let Some(at) = self.next_step_ns.filter(|&at| at <= now_ns) else { break };
            self.play(at, now_ns);
        }
        let now_ms = (now_ns / 1_000_000).min(u64::from(u32::MAX)) as u32;
        for _ in 0..AT_ONCE {
            let Some(&Reverse((at, place))) = self.deadlines.peek().filter(|Reverse((at, _))| *at <= now_ns)
            else {
                break;
            };
            self.deadlines.pop();
            collector.record_late(now_ms, ((now_ns - at) / 1_000).min(u64::from(u32::MAX)) as u32);
            if self.lagged(place, now_ns) {
                // The client woke too late for it (`--max-lag`): its next arrival is dealt instead.
                self.drops.push((ms(at), Dropped::Lag));
                self.deal(place, now_ns, now_ns);
            } else {
                self.dispatch(place);
            }
        }
        self.flush_drops(collector);
    }

    /// Hands the arrivals dropped since the last call to `collector`.
    fn flush_drops(&mut self, collector: &mut Collector) {
        for (at_ms, why) in self.drops.drain(..) {
            collector.record_drop(at_ms, why);
        }
    }

    /// Whether the arrival the user at `place` was dealt can no longer start by `now_ns` (`--max-lag`).
    fn lagged(&self, place: u32, now_ns: u64) -> bool {
        let lag = self.timing.arrivals.and_then(|a| a.max_lag).map(nanos);
        lag.is_some_and(|lag| self.users[place as usize].intended_ns().saturating_add(lag) < now_ns)
    }

    /// Works out when the steps next have something due: the first step's edge, or the begin of its
    /// next new user; a step whose new users have all begun is played through.
    fn plan_next(&mut self) {
        self.next_step_ns = loop {
            let Some(&(step, before)) = self.steps.front() else { break None };
            if !self.entered {
                break Some(nanos(step.start));
            }
            match self.places.get(self.cursor).and_then(|&i| step.begins(&self.timing, before, i)) {
                Some(at) => break Some(nanos(at)),
                None => {
                    self.steps.pop_front();
                    self.entered = false;
                }
            }
        };
    }

    /// An open loop's step at `rate` begins at `step_ns` with `users` users: the users running take their
    /// arrivals from its start at its rate; those waiting for one are dealt it afresh (a user in a turn
    /// or in line for a connection takes its next from the new rate).
    fn reclock(&mut self, a: &super::arrivals::Arrivals, rate: u32, users: u32, step_ns: u64, now_ns: u64) {
        for (place, user) in self.users.iter_mut().enumerate() {
            if !user.parked() {
                user.set_clock(Clock::new(a, rate, self.places[place], users, step_ns, step_ns));
            }
        }
        let waiting: Vec<u32> =
            std::mem::take(&mut self.deadlines).into_iter().map(|Reverse((_, p))| p).collect();
        for place in waiting {
            self.deal(place, now_ns, now_ns);
        }
    }

    /// Plays the steps' next event, due at `at_ns`: the first step's edge (its surplus users stop, and
    /// its new users are the next to begin), or the begin of its next new user.
    fn play(&mut self, at_ns: u64, now_ns: u64) {
        let Some(&(step, before)) = self.steps.front() else { return };
        if self.entered {
            let place = self.cursor;
            self.cursor += 1;
            self.wanted = self.wanted.max(self.places[place] + 1);
            self.begin(place, at_ns, now_ns);
        } else {
            self.entered = true;
            self.cursor = self.places.partition_point(|&i| i < before);
            if step.spec.users < before {
                self.stop_from(step.spec.users);
            }
            if let (Some(a), Some(rate)) = (self.timing.arrivals, step.rate) {
                self.reclock(&a, rate, step.spec.users, nanos(step.start), now_ns);
            }
        }
        self.running = self.places[..self.users.len()].partition_point(|&i| i < self.wanted) as u64;
        self.plan_next();
    }

    /// Begins the user at `place`, due at `at_ns`: a new one, or one a smaller step stopped (one whose
    /// turn is still in flight goes on when it ends). Its own connection opens first (connecting is not
    /// part of a response time, as DS2's driver connects every user before it starts), or it deals its
    /// first transaction.
    fn begin(&mut self, place: usize, at_ns: u64, now_ns: u64) {
        if place == self.users.len() {
            self.users.push(User::new(&*self.workload, self.places[place], at_ns));
            if let Connections::Own(sessions) = &mut self.connections {
                sessions.push(None);
            }
        } else if self.users[place].parked() {
            self.users[place].unpark(at_ns);
        } else {
            return;
        }
        if let (Some(a), Some(&(step, _))) = (self.timing.arrivals, self.steps.front()) {
            let (index, users) = (self.places[place], step.spec.users);
            let rate = step.rate.unwrap_or(a.rate);
            self.users[place].set_clock(Clock::new(&a, rate, index, users, nanos(step.start), at_ns));
        }
        match &mut self.connections {
            Connections::Own(_) => {
                let mut job = self.spare.pop().unwrap_or_else(Job::new);
                job.connect(place as u32, self.places[place] as usize % self.targets);
                self.ready.push(job);
            }
            Connections::Shared(_) => self.deal(place as u32, at_ns, now_ns),
        }
    }

    /// A step of `users` users begins: the shard's users from that index on stop. Those keying, thinking
    /// or in line stop now; those in a turn stop when it ends ([`finish`](Self::finish)).
    fn stop_from(&mut self, users: u32) {
        self.wanted = users;
        let first = self.places.partition_point(|&i| i < users);
        self.deadlines.retain(|Reverse((_, place))| (*place as usize) < first);
        if let Connections::Shared(pools) = &mut self.connections {
            pools.iter_mut().for_each(|p| p.leave_from(first as u32));
        }
        for place in first..self.users.len() {
            if self.users[place].waiting() {
                self.park(place);
            }
        }
    }

    /// Stops the user at `place` between its turns, closing its own connection.
    fn park(&mut self, place: usize) {
        self.users[place].park();
        if let Connections::Own(sessions) = &mut self.connections {
            sessions[place] = None;
        }
    }

    /// Deals the user at `place` its next transaction, its keying time after `from_ns`: it waits for it,
    /// or, when its intended start has come, goes at once (it did not wait, so it was not late).
    fn deal(&mut self, place: u32, from_ns: u64, now_ns: u64) {
        let at = match self.timing.arrivals {
            Some(_) => self.arrive(place, now_ns),
            None => self.users[place as usize].deal(&*self.workload, from_ns),
        };
        if at <= now_ns {
            self.dispatch(place);
        } else {
            self.deadlines.push(Reverse((at, place)));
        }
    }

    /// Deals the user at `place` its next arrival (of an open loop): those that can no longer start by
    /// `now_ns` (`--max-lag`) are dropped, then the oldest of those due beyond its queue's bound; returns
    /// the arrival dealt.
    fn arrive(&mut self, place: u32, now_ns: u64) -> u64 {
        let Some(a) = self.timing.arrivals else { return now_ns };
        let user = &mut self.users[place as usize];
        let Some(clock) = user.clock() else { return now_ns };
        if let Some(lag) = a.max_lag.map(nanos) {
            while clock.at_ns().saturating_add(lag) < now_ns {
                self.drops.push((ms(clock.at_ns()), Dropped::Lag));
                clock.advance();
            }
        }
        for _ in a.queue..clock.due(now_ns, u32::MAX - 1) {
            self.drops.push((ms(clock.at_ns()), Dropped::Overflow));
            clock.advance();
        }
        let at = clock.at_ns();
        clock.advance();
        user.deal_at(&*self.workload, at);
        at
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
        let mut redeal = Vec::new();
        let from_ns = if job.ran() {
            job.record(user, self.start, collector, self.workload.profile().kinds.sum);
            user.rested_ns(&job, done_ns, self.workload.pace())
        } else {
            // Its own connection opened (or failed to: its first transaction meets that again, and counts
            // it); its first transaction's clock starts now.
            user.intended_ns().max(done_ns)
        };
        match &mut self.connections {
            Connections::Own(sessions) => sessions[place as usize] = job.session.take(),
            Connections::Shared(pools) => {
                let max_lag = self.timing.arrivals.and_then(|a| a.max_lag).map(nanos);
                let mut slot = job.session.take();
                while let Some((next, session)) = pools[job.target].give_back(slot) {
                    let user = &mut self.users[next as usize];
                    if max_lag.is_some_and(|lag| user.intended_ns().saturating_add(lag) < done_ns) {
                        // Its arrival waited in line past `--max-lag`: dropped, the slot goes on.
                        self.drops.push((ms(user.intended_ns()), Dropped::Lag));
                        redeal.push(next);
                        slot = session;
                        continue;
                    }
                    let mut next_job = self.spare.pop().unwrap_or_else(Job::new);
                    next_job.run(next, user, job.target, session);
                    self.ready.push(next_job);
                    break;
                }
            }
        }
        self.spare.push(job);
        if self.stopping {
            self.drops.clear();
            return;
        }
        for other in redeal {
            self.deal(other, done_ns, done_ns);
        }
        if self.users[place as usize].index() < self.wanted {
            // The turn's end stands for now: a next transaction intended before it goes at once, a later
            // one waits (and, if its time passed meanwhile, wakes on the loop's next round, late).
            self.deal(place, from_ns, done_ns);
        } else {
            // A smaller step began during the turn: the user stops.
            self.park(place as usize);
        }
        self.flush_drops(collector);
    }

    /// Whether an open loop's arrival scheduled before `end` may still be recorded, dated then (a drop
    /// is dated at its arrival, however late it is dropped): a user waits for one (keying, or in line
    /// for a connection), or its clock has one not yet dealt. Never in a closed loop, whose samples are
    /// dated when their turn ends.
    pub fn owes_before(&mut self, end: Instant) -> bool {
        if self.timing.arrivals.is_none() {
            return false;
        }
        let end_ns = self.ns(end);
        self.deadlines.peek().is_some_and(|Reverse((at, _))| *at < end_ns)
            || self.users.iter_mut().any(|u| {
                !u.parked()
                    && ((u.waiting() && u.intended_ns() < end_ns)
                        || u.clock().is_some_and(|c| c.at_ns() < end_ns))
            })
    }

    /// The turns to run now.
    pub fn ready(&mut self) -> std::vec::Drain<'_, Box<Job<W>>> {
        self.ready.drain(..)
    }

    /// Stops the crowd: no user begins, wakes or deals again; those waiting in line leave it (none has a
    /// transaction in flight). Returns how many users were running (they no longer are).
    pub fn stop(&mut self) -> u64 {
        self.stopping = true;
        self.next_step_ns = None;
        self.steps.clear();
        self.deadlines = BinaryHeap::new();
        if let Connections::Shared(pools) = &mut self.connections {
            pools.iter_mut().for_each(Pool::close_line);
        }
        std::mem::take(&mut self.running)
    }
}

/// `ns` after the run's start in whole ms, as samples count their times (saturating).
fn ms(ns: u64) -> u32 {
    (ns / 1_000_000).min(u64::from(u32::MAX)) as u32
}
