//! One virtual user: a tokio task bound to one target that deals its next transaction, waits its keying
//! time, runs it on its connection, records completion − intended start (and, for a composite
//! transaction, each of its operations), and waits its think time, until told to stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::pool::Pool;
use super::sample::{AuditSample, Recorder, Sample, Status};
use super::workload::{MAX_RETRIES, Ops, Workload};
use crate::error::Fault;
use crate::vocab::outcome::{Done, TxnError};

/// Waits at least this long hand the user's samples to the collector first, so live figures stay fresh.
const FLUSH_BEFORE_WAIT: Duration = Duration::from_millis(50);
/// The first and the longest wait before reconnecting after a lost connection.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));

/// Where users get connections.
pub enum Connections<S> {
    /// Each user opens and keeps its own.
    Own,
    /// Users borrow from their target's pool (one per target) for each transaction.
    Shared(Arc<Vec<Pool<S>>>),
}

impl<S> Clone for Connections<S> {
    fn clone(&self) -> Self {
        match self {
            Connections::Own => Connections::Own,
            Connections::Shared(p) => Connections::Shared(p.clone()),
        }
    }
}

/// What every user shares.
pub struct Crew<W: Workload> {
    /// The workload.
    pub workload: Arc<W>,
    /// The connection mode.
    pub connections: Connections<W::Session>,
    /// The run's time zero.
    pub start: Instant,
    /// Flips to true when users must stop.
    pub stop: watch::Receiver<bool>,
    /// Users running now (changed when a user starts or stops, never per transaction).
    pub running: Arc<AtomicU64>,
}

impl<W: Workload> Clone for Crew<W> {
    fn clone(&self) -> Self {
        Crew {
            workload: self.workload.clone(),
            connections: self.connections.clone(),
            start: self.start,
            stop: self.stop.clone(),
            running: self.running.clone(),
        }
    }
}

/// Runs user `index`, starting `begin_after` into the run, until the crew is told to stop. Each turn:
/// deal the next transaction, wait its keying time, run it, record it, wait its think time.
pub async fn run<W: Workload>(mut crew: Crew<W>, index: u32, begin_after: Duration, mut recorder: Recorder) {
    let mut intended = crew.start + begin_after;
    if !wait_until(&mut crew.stop, intended).await {
        return;
    }
    crew.running.fetch_add(1, Ordering::Relaxed);
    let w = crew.workload.clone();
    let target = index as usize % w.targets().len();
    let mut me = w.user(index);
    let mut own: Option<W::Session> = None;
    if matches!(crew.connections, Connections::Own) {
        // A user's own connection opens before its first transaction's clock starts, as DS2's driver
        // connects every user before it starts: connecting is not part of a response time (reconnecting
        // after a lost connection is, as the user waits for it). A failure here is met again, and
        // counted, by the first transaction.
        own = w.connect(target).await.ok();
        intended = intended.max(Instant::now());
    }
    let mut ops = Ops::default();
    let mut backoff = Duration::ZERO;
    loop {
        let next = w.next(&mut me);
        intended += next.keying;
        let Some(late_us) = wait_turn(&mut crew.stop, &mut recorder, intended).await else { break };
        let (outcome, retries, connected) = match &crew.connections {
            Connections::Own => {
                let (outcome, retries) = attempt(&*w, target, &mut own, &next.input, &mut ops).await;
                (outcome, retries, own.is_some())
            }
            Connections::Shared(pools) => {
                let mut lease = pools[target].acquire().await;
                let (outcome, retries) =
                    attempt(&*w, target, &mut lease.session, &next.input, &mut ops).await;
                (outcome, retries, lease.session.is_some())
            }
        };
        let done = Instant::now();
        let status = match outcome {
            Ok(Done { rolled_back: false }) => Status::Committed,
            Ok(Done { rolled_back: true }) => Status::RolledBack,
            Err(e) => Status::Failed(e.fault),
        };
        let turn =
            Turn { kind: next.kind as u8, target: target as u8, retries, status, intended, late_us, done };
        record::<W>(&mut recorder, crew.start, &mut ops, &turn);
        intended = if !connected {
            // No connection (the server is away, or a new one failed to open or prepare): try again
            // later, a little later each time.
            backoff = (backoff * 2).clamp(BACKOFF.0, BACKOFF.1);
            done + backoff
        } else {
            backoff = Duration::ZERO;
            done + next.think
        };
        if *crew.stop.borrow() {
            break;
        }
    }
    recorder.flush();
    crew.running.fetch_sub(1, Ordering::Relaxed);
}

/// Waits for a transaction's intended start (handing the samples over first when the wait is long);
/// returns how late the user woke (µs, 0 when it did not wait), or `None` when told to stop first.
async fn wait_turn(
    stop: &mut watch::Receiver<bool>,
    recorder: &mut Recorder,
    intended: Instant,
) -> Option<u32> {
    if intended <= Instant::now() {
        return Some(0);
    }
    if intended - Instant::now() >= FLUSH_BEFORE_WAIT {
        recorder.flush();
    }
    if !wait_until(stop, intended).await {
        return None;
    }
    Some(micros(Instant::now().saturating_duration_since(intended)))
}

/// One transaction a user ran, as it is recorded.
#[derive(Clone, Copy)]
struct Turn {
    /// Index into the workload's kinds.
    kind: u8,
    /// Index into the workload's targets.
    target: u8,
    /// Retries of the whole transaction.
    retries: u8,
    /// How it ended.
    status: Status,
    /// Its intended start.
    intended: Instant,
    /// How late the user woke for it, µs.
    late_us: u32,
    /// When it completed.
    done: Instant,
}

/// Records `turn`: its composite sum (when the workload has one), the operations it ran, its audit
/// counts, and the transaction itself.
fn record<W: Workload>(recorder: &mut Recorder, start: Instant, ops: &mut Ops, turn: &Turn) {
    let Turn { kind, target: target_id, retries, status, intended, late_us, done } = *turn;
    let done_ms = |at: Instant| (at - start).as_millis().min(u128::from(u32::MAX)) as u32;
    // The order again as DS2's driver times it, when it completed (DS2 counts no failed order).
    if let Some(kind) = W::SUM_KIND.filter(|_| !ops.is_empty() && !matches!(status, Status::Failed(_))) {
        recorder.record(Sample {
            kind: kind as u8,
            target: target_id,
            retries: 0,
            status,
            latency_us: micros(ops.counted_sum()),
            late_us: 0,
            done_ms: done_ms(done),
        });
    }
    for op in ops.drain() {
        recorder.record(Sample {
            kind: op.kind as u8,
            target: target_id,
            retries: op.retries,
            status: op.status,
            latency_us: micros(op.ended - op.started),
            late_us: 0,
            done_ms: done_ms(op.ended),
        });
    }
    let counts = ops.take_audit();
    if !matches!(status, Status::Failed(_)) {
        recorder.record_audit(AuditSample { target: target_id, done_ms: done_ms(done), counts });
    }
    recorder.record(Sample {
        kind,
        target: target_id,
        retries,
        status,
        latency_us: micros(done - intended),
        late_us,
        done_ms: done_ms(done),
    });
}

/// Runs one transaction on `slot`'s session to `target` (connecting first when it has none), retrying
/// conflicts; a composite transaction that recorded operations retried each itself and is not run again
/// whole (DS2 would register a customer twice). A lost connection empties the slot, so the next
/// transaction reconnects.
async fn attempt<W: Workload>(
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
    let mut retries = 0;
    loop {
        match w.execute(session, input, ops).await {
            Err(e) if e.fault == Fault::Retryable && retries < MAX_RETRIES && ops.is_empty() => retries += 1,
            Err(e) => {
                if e.fault == Fault::ConnectionLost {
                    *slot = None;
                }
                return (Err(e), retries);
            }
            ok => return (ok, retries),
        }
    }
}

/// Sleeps until `at`; false when told to stop first.
async fn wait_until(stop: &mut watch::Receiver<bool>, at: Instant) -> bool {
    if *stop.borrow() {
        return false;
    }
    tokio::select! {
        _ = tokio::time::sleep_until(at) => true,
        _ = stop.changed() => false,
    }
}

fn micros(d: Duration) -> u32 {
    d.as_micros().min(u128::from(u32::MAX)) as u32
}
