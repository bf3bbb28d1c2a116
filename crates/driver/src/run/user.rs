//! One virtual user: its state between transactions ([`User`]: the workload's state for it, the
//! transaction it was dealt, its intended start), and a turn ([`turn`]): the dealt transaction run on a
//! session (connecting first when it has none), conflicts retried, then recorded as completion −
//! intended start (and, for a composite transaction, each of its operations). When and on which session
//! a user takes its turns is its shard's ([`crowd`](super::crowd)): a user holds no future, no timer and
//! no buffer of its own, only the bytes of its state.

use std::time::Duration;

use tokio::time::Instant;

use super::arrivals::Clock;
use super::collector::Collector;
use super::sample::{AuditCounts, AuditSample, Sample, Status};
use super::workload::{Driven, MAX_RETRIES, Next, Ops};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Ack, Done, TxnError};

/// The first and the longest wait before reconnecting after a lost connection, ms.
const BACKOFF_MS: (u32, u32) = (100, 5_000);

/// The intended start of a user that a step with fewer users stopped ([`User::park`]): it has no
/// transaction dealt, waiting or in flight until a later step begins it again.
const PARKED: u64 = u64::MAX;

/// A user between its turns: what it must remember, and nothing more.
pub struct User<W: Driven> {
    /// The workload's state for the user: its random stream, its deck, its home.
    state: W::User,
    /// The transaction dealt for its next turn, with its keying and think times; taken while it runs.
    card: Option<Next<W::Input>>,
    /// The user's index in the run (it drives target `index % targets`).
    index: u32,
    /// The intended start of its next (or running) transaction, ns after the run's start.
    intended_ns: u64,
    /// The wait before reconnecting after a turn that found no connection, ms (0 while connected).
    backoff_ms: u32,
    /// Its arrivals in the current step, when they come at a rate (`--rate`); `None` in a closed loop.
    clock: Option<Clock>,
}

impl<W: Driven> User<W> {
    /// User `index` of `w`, beginning `begin_ns` after the run's start, no transaction dealt yet.
    pub fn new(w: &W, index: u32, begin_ns: u64) -> Self {
        User { state: w.user(index), card: None, index, intended_ns: begin_ns, backoff_ms: 0, clock: None }
    }

    /// The user's index in the run.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The intended start of its next (or running) transaction, ns after the run's start.
    pub fn intended_ns(&self) -> u64 {
        self.intended_ns
    }

    /// Stops the user between its turns: its dealt transaction, if any, is dropped (a waiting user has
    /// none in flight) and it takes no turn until [`unpark`](Self::unpark).
    pub fn park(&mut self) {
        (self.card, self.intended_ns) = (None, PARKED);
    }

    /// Whether the user is stopped between its turns ([`park`](Self::park)).
    pub fn parked(&self) -> bool {
        self.intended_ns == PARKED
    }

    /// Begins a stopped user again, `begin_ns` after the run's start, as a new user begins.
    pub fn unpark(&mut self, begin_ns: u64) {
        (self.intended_ns, self.backoff_ms) = (begin_ns, 0);
    }

    /// Whether the user waits for its dealt transaction (keying, or in line for a connection): neither
    /// parked nor in a turn.
    pub fn waiting(&self) -> bool {
        self.card.is_some()
    }

    /// Deals the next transaction, intended its keying time after `from_ns`; returns that intended start.
    pub fn deal(&mut self, w: &W, from_ns: u64) -> u64 {
        let card = w.next(&mut self.state);
        self.intended_ns = from_ns.saturating_add(nanos(card.keying));
        self.card = Some(card);
        self.intended_ns
    }

    /// The user's arrivals, when they come at a rate.
    pub fn clock(&mut self) -> Option<&mut Clock> {
        self.clock.as_mut()
    }

    /// Sets the user's arrivals (a rate step began for it).
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = Some(clock);
    }

    /// Deals the next transaction to its arrival at `at_ns` (no keying: an arrival starts when it comes).
    pub fn deal_at(&mut self, w: &W, at_ns: u64) {
        self.card = Some(w.next(&mut self.state));
        self.intended_ns = at_ns;
    }

    /// Where the user's next keying time starts, once the turn `job` (that ran the user's card) ended
    /// at `done_ns`: after its think time, or, for a paced workload ([`Driven::pace`]), one interval
    /// after the turn's intended start however long it took (so a slow server shows as latency, not as a
    /// lower rate); or, when it found no connection (the server is away, or a new one failed to open or
    /// prepare), after a wait a little longer each time.
    pub fn rested_ns(&mut self, job: &Job<W>, done_ns: u64, pace: Option<Duration>) -> u64 {
        let think = job.card.as_ref().map_or(Duration::ZERO, |c| c.think);
        if job.session.is_some() {
            self.backoff_ms = 0;
            match pace {
                Some(interval) => self.intended_ns.saturating_add(nanos(interval)),
                None => done_ns.saturating_add(nanos(think)),
            }
        } else {
            self.backoff_ms = self.backoff_ms.saturating_mul(2).clamp(BACKOFF_MS.0, BACKOFF_MS.1);
            done_ns.saturating_add(u64::from(self.backoff_ms) * 1_000_000)
        }
    }
}

/// A turn: the user at place `place` of its shard running its card on `session`, and, once [`turn`]
/// ran it, how it went. A shard keeps the boxes of ended turns for the next ones (with their operations'
/// buffers), so a turn moves a pointer, allocates nothing, and copies only the card it runs.
pub struct Job<W: Driven> {
    /// The user's place in its shard.
    pub place: u32,
    /// The target it runs against.
    pub target: usize,
    /// The session it runs on; `None` to connect first (and after the turn, when the connection was
    /// lost or would not open).
    pub session: Option<W::Session>,
    /// The transaction; `None` for the turn that opens a user's own connection before its first.
    card: Option<Next<W::Input>>,
    /// The composite transaction's operations and the audit increments it recorded.
    ops: Ops,
    /// How the transaction ended, and its retries (set by [`turn`]).
    outcome: Option<(Result<Done, TxnError>, u8)>,
    /// When the turn began to run (set by [`turn`]): an arrival's lag ends and its service begins.
    started: Option<Instant>,
    /// When the turn ended (set by [`turn`]).
    done: Option<Instant>,
}

impl<W: Driven> Job<W> {
    /// A turn of nobody yet, to be filled by [`run`](Self::run) or [`connect`](Self::connect).
    pub fn new() -> Box<Self> {
        Box::new(Job {
            place: 0,
            target: 0,
            session: None,
            card: None,
            ops: Ops::default(),
            outcome: None,
            started: None,
            done: None,
        })
    }

    /// Makes this the turn of `user` (at place `place`, its card dealt) on `session`.
    pub fn run(&mut self, place: u32, user: &mut User<W>, target: usize, session: Option<W::Session>) {
        (self.place, self.target, self.session, self.card) = (place, target, session, user.card.take());
        (self.outcome, self.started, self.done) = (None, None, None);
    }

    /// Makes this the turn that only opens the own connection of the user at place `place`.
    pub fn connect(&mut self, place: u32, target: usize) {
        (self.place, self.target, self.session, self.card) = (place, target, None, None);
        (self.outcome, self.started, self.done) = (None, None, None);
    }

    /// Whether the turn ran a transaction (not only opened a connection).
    pub fn ran(&self) -> bool {
        self.card.is_some()
    }

    /// When the turn ended.
    pub fn done(&self) -> Instant {
        self.done.expect("a turn ends before it is finished")
    }

    /// Records the turn of `user` into `collector` (`start` the run's time zero): its composite sum (when
    /// the workload has one: `sum`, [`Kinds::sum`](crate::workload::Kinds::sum)), the operations it ran,
    /// its audit counts, and the transaction itself.
    pub fn record(&mut self, user: &User<W>, start: Instant, collector: &mut Collector, sum: Option<usize>) {
        let (Some(card), Some((outcome, retries)), Some(done)) = (&self.card, &self.outcome, self.done)
        else {
            return;
        };
        let status = match outcome {
            Ok(Done { rolled_back: false }) => Status::Committed,
            Ok(Done { rolled_back: true }) => Status::RolledBack,
            Err(e) => Status::Failed(e.fault),
        };
        let target = self.target as u8;
        let ops = &mut self.ops;
        let done_ms = |at: Instant| (at - start).as_millis().min(u128::from(u32::MAX)) as u32;
        // The order again as DS2's driver times it, when it completed (DS2 counts no failed order).
        if let Some(kind) = sum.filter(|_| !ops.is_empty() && !matches!(status, Status::Failed(_))) {
            collector.record(&Sample {
                kind: kind as u8,
                target,
                retries: 0,
                status,
                latency_us: micros(ops.counted_sum()),
                done_ms: done_ms(done),
            });
        }
        for op in ops.drain() {
            collector.record(&Sample {
                kind: op.kind as u8,
                target,
                retries: op.retries,
                status: op.status,
                latency_us: micros(op.ended - op.started),
                done_ms: done_ms(op.ended),
            });
        }
        if let Some(ack) = ops.take_ack().filter(|_| status == Status::Committed) {
            collector.acknowledged(Ack { target, ..ack });
        }
        let counts = ops.take_audit();
        if !matches!(status, Status::Failed(_)) && counts != AuditCounts::default() {
            collector.absorb_audit(&[AuditSample { target, done_ms: done_ms(done), counts }]);
        }
        let intended = start + Duration::from_nanos(user.intended_ns);
        if user.clock.is_some() {
            // An arrival: how long it waited after it came, and how long it then ran, apart.
            let began = self.started.unwrap_or(done).max(intended);
            let failed = matches!(status, Status::Failed(_));
            collector.record_arrival(
                done_ms(intended),
                micros(began - intended),
                micros(done - began),
                failed,
            );
        }
        collector.record(&Sample {
            kind: card.kind as u8,
            target,
            retries: *retries,
            status,
            latency_us: micros(done.saturating_duration_since(intended)),
            done_ms: done_ms(done),
        });
    }
}

/// Runs `job` on `w`: opens the user's own connection, or runs its transaction on the job's session
/// (connecting first when it has none), retrying conflicts; a composite transaction that recorded
/// operations retried each itself and is not run again whole (DS2 would register a customer twice). A
/// lost connection empties the session, so the next turn on it reconnects.
pub async fn turn<W: Driven>(w: &W, mut job: Box<Job<W>>) -> Box<Job<W>> {
    job.started = Some(Instant::now());
    let Job { target, session, card, ops, outcome, .. } = &mut *job;
    match card {
        None => *session = w.connect(*target).await.ok(),
        Some(card) => *outcome = Some(attempt(w, *target, session, &card.input, ops).await),
    }
    job.done = Some(Instant::now());
    job
}

/// Runs one transaction on `slot`'s session to `target` (connecting first when it has none), retrying
/// conflicts.
async fn attempt<W: Driven>(
    w: &W,
    target: usize,
    slot: &mut Option<W::Session>,
    input: &W::Input,
    ops: &mut Ops,
) -> (Result<Done, TxnError>, u8) {
    if slot.is_none() {
        match w.connect(target).await {
            Ok(s) => *slot = Some(s),
            Err(e) => return (Err(e), 0),
        }
    }
    let session = slot.as_ref().expect("connected above");
    let most = if w.retries_itself() { 0 } else { MAX_RETRIES };
    let mut retries = 0;
    let outcome = loop {
        match w.execute(session, input, ops).await {
            Err(e) if e.fault == Fault::Retryable && retries < most && ops.is_empty() => retries += 1,
            Err(e) => {
                if e.fault == Fault::ConnectionLost {
                    *slot = None;
                }
                break Err(e);
            }
            ok => break ok,
        }
    };
    (outcome, retries.saturating_add(ops.take_retried()))
}

/// `d` in whole µs, saturating at `u32::MAX` (about 71 minutes).
fn micros(d: Duration) -> u32 {
    d.as_micros().min(u128::from(u32::MAX)) as u32
}

/// `d` in ns, saturating (at 584 years).
pub(crate) fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u128::from(u64::MAX)) as u64
}
