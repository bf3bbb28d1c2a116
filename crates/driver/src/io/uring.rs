//! io_uring for `oltpgen io run`: one ring per client thread (so per Iometer worker, as fio's io_uring
//! engine keeps one per job), its reads and writes pushed by the I/Os' futures and submitted by them or
//! by the ring's reaper task, which also takes their completions back and wakes them. A worker's
//! outstanding I/Os then cost one thread, not one blocked thread each.
//!
//! The reaper waits as fio does: once the I/Os it woke have run (and pushed their successors), it
//! submits what is still unsubmitted and waits for the next completion in the same `io_uring_enter`,
//! the thread asleep in the kernel. An I/O pushed while others are in flight is submitted at once, as
//! fio submits each of its I/Os: the device has it without waiting for the turns around it. Where the
//! kernel has it (6.1), it keeps a ring's completions for the thread's next call
//! (`IORING_SETUP_DEFER_TASKRUN`): the thread is not interrupted per completion; older kernels get the
//! next [`Tier`] they take (5.19's cooperative task running, else a plain ring, 5.6). No eventfd, epoll
//! round or timer is paid per I/O. The thread's
//! other tasks (the run's own, on the first client thread) get their turn between batches, at most one
//! I/O's latency late, as a `psync` thread's do.
//!
//! The unsafe code of the crate is here, and only here: the kernel reads and writes an I/O's buffer
//! until its completion is reaped, so the ring owns the buffer (and the file) of every I/O in flight —
//! an I/O's future gets them back from its completion, a dropped future leaves them to the ring until
//! the kernel is done, and a ring is never closed with I/Os in flight.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::fs::File;
use std::future::Future;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use io_uring::{IoUring, Probe, opcode, types};
use tokio::sync::Notify;

use super::file::AlignedBuf;

/// Submission queue entries of a ring: as many as a run keeps in flight at most, so a push never finds
/// the queue full (the completion queue is twice that).
const ENTRIES: u32 = super::spec::MAX_IN_FLIGHT as u32;

/// How a ring is set up, fastest first: what the kernel takes decides ([`probe`]). A ring of a faster
/// tier makes its thread take its completions only when it asks for them (its next submission or wait),
/// not interrupted per completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// `SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG` (Linux 6.1): completions run only when the ring's one
    /// thread enters the kernel.
    DeferTaskrun,
    /// `COOP_TASKRUN|TASKRUN_FLAG` (Linux 5.19): completions run at the thread's next kernel entry, no
    /// interrupt to post them.
    CoopTaskrun,
    /// No setup flag (the opcodes used, `READ` and `WRITE`, need Linux 5.6): the kernel interrupts the
    /// thread to post each completion.
    Plain,
}

impl Tier {
    /// Every tier, fastest first: the order [`probe`] tries them in.
    pub const ALL: [Tier; 3] = [Tier::DeferTaskrun, Tier::CoopTaskrun, Tier::Plain];

    /// The tier's name, as the run's header and result give it.
    pub fn name(self) -> &'static str {
        match self {
            Tier::DeferTaskrun => "defer taskrun",
            Tier::CoopTaskrun => "coop taskrun",
            Tier::Plain => "plain ring",
        }
    }

    /// Its setup flags, by the kernel's names.
    pub fn flags(self) -> &'static str {
        match self {
            Tier::DeferTaskrun => "SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG",
            Tier::CoopTaskrun => "COOP_TASKRUN|TASKRUN_FLAG",
            Tier::Plain => "none",
        }
    }

    /// A ring of this tier, as the run's threads make theirs (and the probe its own); a tier the test
    /// variable [`REFUSE_VAR`] refuses fails as the kernel would.
    fn build(self, refused: Refusal) -> std::io::Result<IoUring> {
        if let Some(errno) = refused.of(self) {
            return Err(std::io::Error::from_raw_os_error(errno));
        }
        let mut builder = IoUring::builder();
        match self {
            Tier::DeferTaskrun => builder.setup_single_issuer().setup_defer_taskrun().setup_taskrun_flag(),
            Tier::CoopTaskrun => builder.setup_coop_taskrun().setup_taskrun_flag(),
            Tier::Plain => &mut builder,
        };
        builder.build(ENTRIES)
    }
}

/// For tests only: `OLTPGEN_IO_URING_REFUSE` makes the probe meet the refusals of an older or locked-down
/// system on this one. `defer`: setup with `DEFER_TASKRUN` fails with EINVAL, as on Linux 5.19 to 6.0;
/// `coop`: `COOP_TASKRUN` too, as before 5.19; `opcodes`: the plain ring lacks `READ` and `WRITE`, as
/// before 5.6; `all`: io_uring_setup fails with EPERM, as with the `io_uring_disabled` sysctl or a
/// seccomp filter.
pub const REFUSE_VAR: &str = "OLTPGEN_IO_URING_REFUSE";

/// What [`REFUSE_VAR`] asks the probe to meet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Refusal {
    /// Whatever this system does.
    #[default]
    None,
    /// `DEFER_TASKRUN` unknown (Linux 5.19 to 6.0).
    Defer,
    /// `COOP_TASKRUN` unknown too (before 5.19).
    Coop,
    /// No `READ` nor `WRITE` (before 5.6).
    Opcodes,
    /// io_uring refused to the process (EPERM).
    All,
}

/// EINVAL: a setup flag this kernel does not know.
const EINVAL: i32 = 22;
/// EPERM: io_uring refused to this process.
const EPERM: i32 = 1;

impl Refusal {
    fn from_env() -> Result<Refusal, String> {
        match std::env::var(REFUSE_VAR).as_deref() {
            Err(_) | Ok("") => Ok(Refusal::None),
            Ok("defer") => Ok(Refusal::Defer),
            Ok("coop") => Ok(Refusal::Coop),
            Ok("opcodes") => Ok(Refusal::Opcodes),
            Ok("all") => Ok(Refusal::All),
            Ok(other) => {
                Err(format!("{REFUSE_VAR}={other}: give defer, coop, opcodes or all (for tests only)"))
            }
        }
    }

    /// The errno a ring of `tier` fails with under this refusal.
    fn of(self, tier: Tier) -> Option<i32> {
        match (self, tier) {
            (Refusal::All, _) => Some(EPERM),
            (Refusal::Defer, Tier::DeferTaskrun)
            | (Refusal::Coop, Tier::DeferTaskrun | Tier::CoopTaskrun) => Some(EINVAL),
            _ => None,
        }
    }
}

/// What the probe found: the fastest tier this system runs, and why the faster ones were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probed {
    /// The tier the run's rings are made in.
    pub tier: Tier,
    /// The faster tiers' refusals, one phrase (`the kernel refused defer taskrun: EINVAL`), if any.
    pub fell_back: Option<String>,
}

/// The fastest ring this kernel (and the process's seccomp filter, which may refuse io_uring's system
/// calls) runs the I/Os through: each tier in turn made as the run makes its rings, until one is taken
/// (a tier refused with EINVAL, a flag this kernel does not know, leads to the next); the kernel's
/// opcode table checked for the `READ` and `WRITE` the I/Os use; one no-op submitted and reaped.
///
/// # Errors
/// The system's refusal of io_uring, as a phrase: EPERM or ENOSYS from its setup (the `io_uring_disabled`
/// sysctl, a seccomp filter, a kernel without it), every tier refused, or a kernel without the opcodes.
pub fn probe() -> Result<Probed, String> {
    let refused = Refusal::from_env()?;
    let mut fell_back = Vec::new();
    for tier in Tier::ALL {
        match tier.build(refused) {
            Ok(uring) => {
                try_ring(uring, refused)?;
                let fell_back = (!fell_back.is_empty()).then(|| fell_back.join("; "));
                return Ok(Probed { tier, fell_back });
            }
            Err(e) if e.raw_os_error() == Some(EINVAL) => {
                fell_back.push(format!(
                    "the kernel refused {} ({}): {}",
                    tier.name(),
                    tier.flags(),
                    errno(&e)
                ));
            }
            Err(e) => return Err(format!("io_uring_setup: {}", errno(&e))),
        }
    }
    Err(format!("io_uring_setup refused every setup: {}", fell_back.join("; ")))
}

/// Checks that `uring` has the opcodes the I/Os use and runs a no-op through it.
fn try_ring(mut uring: IoUring, refused: Refusal) -> Result<(), String> {
    let mut probe = Probe::new();
    // Before 5.6 the kernel has no opcode table to register, nor READ and WRITE.
    let registered = uring.submitter().register_probe(&mut probe);
    let missing: Vec<&str> = [("READ", opcode::Read::CODE), ("WRITE", opcode::Write::CODE)]
        .into_iter()
        .filter(|(_, code)| registered.is_err() || refused == Refusal::Opcodes || !probe.is_supported(*code))
        .map(|(name, _)| name)
        .collect();
    if !missing.is_empty() {
        return Err(format!("io_uring lacks the opcodes {} (Linux 5.6 has them)", missing.join(" and ")));
    }
    let nop = opcode::Nop::new().build();
    // SAFETY: a no-op refers to no memory.
    unsafe { uring.submission().push(&nop) }.map_err(|e| format!("io_uring: {e}"))?;
    uring.submit_and_wait(1).map_err(|e| format!("io_uring_enter: {}", errno(&e)))?;
    match uring.completion().next() {
        Some(c) if c.result() >= 0 => Ok(()),
        Some(c) => Err(format!("io_uring: {}", errno(&std::io::Error::from_raw_os_error(-c.result())))),
        None => Err("io_uring: the no-op did not complete".into()),
    }
}

/// An error as its errno's name and the system's words: `EINVAL (Invalid argument)`.
fn errno(e: &std::io::Error) -> String {
    let name = match e.raw_os_error() {
        Some(1) => "EPERM",
        Some(12) => "ENOMEM",
        Some(22) => "EINVAL",
        Some(24) => "EMFILE",
        Some(38) => "ENOSYS",
        _ => return e.to_string(),
    };
    let words = e.to_string();
    let words = words.split(" (os error").next().unwrap_or(&words);
    format!("{name} ({words})")
}

/// One thread's ring: its I/Os in flight, and the reaper that submits and completes them.
pub struct Ring {
    state: Mutex<State>,
    /// Tells the reaper that I/Os wait to be submitted, or that the I/Os it woke have all run.
    pushed: Notify,
    /// Whether the reaper task still runs (it ends with its runtime): a thread whose ring lost its reaper
    /// makes a new one.
    reaping: AtomicBool,
    /// How its ring was set up.
    tier: Tier,
}

/// The ring and what it owns for each I/O in flight.
struct State {
    uring: IoUring,
    /// Indexed by each I/O's `user_data`.
    slots: Vec<Slot>,
    /// Slots free for the next I/O.
    free: Vec<usize>,
    /// I/Os pushed but not yet submitted.
    unsubmitted: usize,
    /// I/Os submitted whose completion is not reaped yet.
    submitted: usize,
    /// I/Os completed and woken whose futures have not taken their outcome yet.
    woken: usize,
}

/// What an I/O in flight holds, and how it ended.
#[derive(Default)]
struct Slot {
    /// The file and buffer the kernel uses until the completion is reaped.
    held: Option<(Arc<File>, AlignedBuf)>,
    /// The I/O's future, to wake with its completion.
    waker: Option<Waker>,
    /// The completion's result (bytes moved, or a negated errno).
    result: Option<i32>,
    /// Its future was dropped: the completion only frees the slot.
    abandoned: bool,
}

thread_local! {
    /// This thread's ring.
    static HERE: RefCell<Option<Arc<Ring>>> = const { RefCell::new(None) };
}

impl Ring {
    /// This thread's ring, made with its reaper task on the current tokio runtime the first time (or
    /// again after the runtime that reaped the last one ended).
    ///
    /// # Errors
    /// The kernel refused a ring of `tier` (the one [`probe`] found it takes).
    pub fn here(tier: Tier) -> std::io::Result<Arc<Ring>> {
        HERE.with(|here| {
            let mut here = here.borrow_mut();
            if let Some(ring) = here.as_ref().filter(|r| r.tier == tier && r.reaping.load(Ordering::Acquire))
            {
                return Ok(ring.clone());
            }
            let uring = tier.build(Refusal::None)?;
            let state =
                State { uring, slots: Vec::new(), free: Vec::new(), unsubmitted: 0, submitted: 0, woken: 0 };
            let ring = Arc::new(Ring {
                state: Mutex::new(state),
                pushed: Notify::new(),
                reaping: AtomicBool::new(true),
                tier,
            });
            tokio::spawn(reap(ring.clone()));
            *here = Some(ring.clone());
            Ok(ring)
        })
    }

    /// Reads `buf` from `file` at `at` (or writes it there, when `write`); the buffer comes back with the
    /// outcome. The I/O is submitted now when others are in flight, else by the reaper with its wait.
    pub fn transfer(
        self: &Arc<Self>,
        file: &Arc<File>,
        mut buf: AlignedBuf,
        write: bool,
        at: u64,
    ) -> InFlight {
        let mut state = self.lock();
        let slot = state.free.pop().unwrap_or_else(|| {
            state.slots.push(Slot::default());
            state.slots.len() - 1
        });
        let fd = types::Fd(file.as_raw_fd());
        let bytes = buf.bytes_mut();
        let len = u32::try_from(bytes.len()).expect("a transfer is at most 4 GiB");
        let entry = if write {
            opcode::Write::new(fd, bytes.as_ptr(), len).offset(at).build()
        } else {
            opcode::Read::new(fd, bytes.as_mut_ptr(), len).offset(at).build()
        };
        // SAFETY: the buffer (a heap allocation: moving its owner moves no byte) and the file the entry
        // names are moved into the slot below and stay there until the entry's completion is reaped
        // (`complete`), and the ring is not closed before every completion is (`State`'s drop).
        let pushed = unsafe { state.uring.submission().push(&entry.user_data(slot as u64)) };
        pushed.expect("the submission queue holds every I/O a run keeps in flight");
        state.slots[slot].held = Some((file.clone(), buf));
        state.unsubmitted += 1;
        if state.submitted > 0 {
            // Others are in flight: this one goes to the device now, not after the turns around it
            // (with none in flight, the reaper submits it with its wait, in one system call).
            state.submit_and_complete(false);
        }
        drop(state);
        self.pushed.notify_one();
        InFlight { ring: self.clone(), slot, expect: len, done: false }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl State {
    /// Whether the reaper should wait in the kernel for the next completion: I/Os are in flight, and
    /// those it woke have all run (so they pushed their successors, submitted with the wait).
    fn should_wait(&self) -> bool {
        self.woken == 0 && self.submitted + self.unsubmitted > 0
    }

    /// Submits what was pushed (waiting for a completion first when `wait`) and takes every completion
    /// in, waking the I/Os they end.
    fn submit_and_complete(&mut self, wait: bool) {
        if wait || self.unsubmitted > 0 || self.uring.submission().taskrun() {
            // Also runs the completions' deferred work (the crate asks for it when the ring says some waits).
            match self.uring.submitter().submit_and_wait(usize::from(wait)) {
                Ok(n) => {
                    self.unsubmitted -= n.min(self.unsubmitted);
                    self.submitted += n;
                }
                // The kernel is short of memory for now, or was interrupted: the next turn submits them.
                Err(e) if e.raw_os_error().is_some_and(is_transient) => {}
                Err(e) => panic!("io_uring_enter refused a submission to a working ring: {e}"),
            }
        }
        // The ring's fields apart, so its completions are taken one by one, with nothing gathered first.
        let State { uring, slots, free, submitted, woken, .. } = self;
        for c in uring.completion() {
            let slot = c.user_data() as usize;
            *submitted -= 1;
            let s = &mut slots[slot];
            if s.abandoned {
                *s = Slot::default();
                free.push(slot);
            } else {
                s.result = Some(c.result());
                *woken += 1;
                if let Some(w) = s.waker.take() {
                    w.wake();
                }
            }
        }
    }

    /// One woken I/O took its outcome: when it was the last, the reaper may wait in the kernel again.
    fn ran_woken(&mut self, ring: &Ring) {
        self.woken -= 1;
        if self.woken == 0 {
            ring.pushed.notify_one();
        }
    }
}

/// EINTR, EAGAIN or EBUSY: io_uring_enter's "not now".
fn is_transient(errno: i32) -> bool {
    matches!(errno, 4 | 11 | 16)
}

impl Drop for State {
    /// Waits for the I/Os still in the kernel before the ring and their buffers go; if the ring cannot
    /// wait, their buffers are leaked rather than freed under the kernel.
    fn drop(&mut self) {
        let mut waiting = self.submitted + self.unsubmitted;
        while waiting > 0 {
            if self.uring.submit_and_wait(1).is_err() {
                std::mem::forget(std::mem::take(&mut self.slots));
                return;
            }
            waiting = waiting.saturating_sub(self.uring.completion().count());
        }
    }
}

/// An I/O in flight on a ring: resolves to its buffer and outcome.
pub struct InFlight {
    ring: Arc<Ring>,
    slot: usize,
    /// Bytes a whole transfer moves.
    expect: u32,
    done: bool,
}

impl Future for InFlight {
    type Output = (AlignedBuf, std::io::Result<()>);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let ring = self.ring.clone();
        let mut state = ring.lock();
        let slot = &mut state.slots[self.slot];
        let Some(result) = slot.result.take() else {
            slot.waker = Some(cx.waker().clone());
            return Poll::Pending;
        };
        let (_, buf) = slot.held.take().expect("an I/O in flight holds its buffer");
        *slot = Slot::default();
        state.free.push(self.slot);
        state.ran_woken(&ring);
        self.done = true;
        let outcome = match u32::try_from(result) {
            Ok(n) if n == self.expect => Ok(()),
            Ok(n) => Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("moved {n} of {} bytes", self.expect),
            )),
            Err(_) => Err(std::io::Error::from_raw_os_error(-result)),
        };
        Poll::Ready((buf, outcome))
    }
}

impl Drop for InFlight {
    /// A dropped I/O leaves its file and buffer to the ring until the kernel is done with them.
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut state = self.ring.lock();
        let slot = &mut state.slots[self.slot];
        if slot.result.is_some() {
            *slot = Slot::default();
            state.free.push(self.slot);
            state.ran_woken(&self.ring);
        } else {
            slot.abandoned = true;
            slot.waker = None;
        }
    }
}

/// Clears the ring's `reaping` when the reaper task ends (its runtime shut down).
struct Reaping(Arc<Ring>);

impl Drop for Reaping {
    fn drop(&mut self) {
        self.0.reaping.store(false, Ordering::Release);
    }
}

/// The reaper, until its runtime ends: submits what the I/Os pushed and, while I/Os are in flight and
/// those it woke have run, waits in the kernel for the next completion; it takes the completions in and
/// wakes their I/Os, then lets them run until they all have, or more are pushed.
async fn reap(ring: Arc<Ring>) {
    let ring = Reaping(ring);
    loop {
        {
            let mut state = ring.0.lock();
            let wait = state.should_wait();
            state.submit_and_complete(wait);
            if state.should_wait() {
                // A completion that woke nothing (its I/O was dropped): wait again at once.
                continue;
            }
        }
        ring.0.pushed.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt as _;

    #[tokio::test]
    async fn reads_and_writes_go_through_the_ring_and_bring_their_buffers_back() {
        let probed = probe().expect("this machine (and CI's, the same kind) runs io_uring");
        assert_eq!(probed, Probed { tier: Tier::DeferTaskrun, fell_back: None }, "a kernel of 6.1 or later");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; 64 << 10]).unwrap();
        let file = Arc::new(File::options().read(true).write(true).open(&path).unwrap());
        let ring = Ring::here(probed.tier).unwrap();
        assert!(Arc::ptr_eq(&ring, &Ring::here(probed.tier).unwrap()), "one ring per thread");
        // Eight writes in flight at once, each of its own byte, then read back.
        let writes: Vec<InFlight> = (0..8u8)
            .map(|i| {
                let mut buf = AlignedBuf::new(4096);
                buf.bytes_mut().fill(i + 1);
                ring.transfer(&file, buf, true, u64::from(i) * 4096)
            })
            .collect();
        for w in futures_util::future::join_all(writes).await {
            w.1.unwrap();
        }
        let mut plain = vec![0u8; 4096];
        file.read_exact_at(&mut plain, 5 * 4096).unwrap();
        assert!(plain.iter().all(|&b| b == 6), "the write landed where it was sent");
        let (mut buf, read) = ring.transfer(&file, AlignedBuf::new(4096), false, 3 * 4096).await;
        read.unwrap();
        assert!(buf.bytes_mut().iter().all(|&b| b == 4));
        // Past the end: a short read is an error, not a silent half transfer.
        let (_, short) = ring.transfer(&file, AlignedBuf::new(4096), false, 62 << 10).await;
        assert!(short.unwrap_err().to_string().contains("moved 2048 of 4096 bytes"));
        // A dropped I/O leaves its slot to the ring, which frees it on completion.
        drop(ring.transfer(&file, AlignedBuf::new(4096), false, 0));
        let (_, again) = ring.transfer(&file, AlignedBuf::new(4096), false, 0).await;
        again.unwrap();
    }
}
