//! `oltpgen io` as a workload of the run machinery: each user is one I/O in flight (a worker's
//! outstanding I/O, as Iometer counts them), its "transactions" the reads and writes of its
//! [`Picker`], its session the file opened for direct I/O with a buffer of its own. So steps,
//! sweeps, caps, runs, histograms (timed from each I/O's intended start), counters and results are the
//! database workloads' own.
//!
//! The I/Os go one of two ways ([`IoEngine`], fio's names). Through io_uring: a client thread per
//! worker ([`IoWorkload::threads`]), its outstanding I/Os pushed onto the thread's ring
//! ([`Ring`]) and awaited, as Iometer's workers keep theirs outstanding. Or positional and synchronous
//! (`pread`/`pwrite`, fio's `psync`): each I/O in flight has a client thread of its own, so a transfer
//! that waits on the disk holds only its own thread; every so many transfers the user yields (tokio's
//! cooperative budget), so the thread's runtime (the first one's is the run's own) keeps its timers and
//! the run's requests going.

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::sync::LazyLock;

use oltpgen_report::model::{IO_TRANSACTIONS, Workload as Kind};

use super::file::{AlignedBuf, HEAD_BYTES, TestFile, fill_random};
use super::spec::{AccessSpec, Picker, Transfer};
use super::uring::{Ring, Tier};
use crate::run::{Driven, Next, Ops};
use crate::workload::{Kinds, Profile};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Done, TxnError};

/// `io` as the run counts it and its results say it: reads and writes (reads in the per-minute place,
/// which no `io` line shows), no audit.
pub static PROFILE: LazyLock<Profile> =
    LazyLock::new(|| Profile::new(Kind::Io.descriptor().clone(), Kinds::plain(&IO_TRANSACTIONS)));

/// How the I/Os are issued, by fio's names for its engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoEngine {
    /// A ring per worker (`io_uring`): the worker's outstanding I/Os submitted and reaped together.
    IoUring,
    /// A thread per I/O in flight, each doing positional reads and writes (`psync`).
    Psync,
}

impl IoEngine {
    /// Its name, as `--ioengine` and results give it.
    pub fn name(self) -> &'static str {
        match self {
            IoEngine::IoUring => "io_uring",
            IoEngine::Psync => "psync",
        }
    }
}

/// The I/O workload on one prepared file.
pub struct IoWorkload {
    spec: AccessSpec,
    /// The rings' setup with io_uring; `None`: psync.
    uring: Option<Tier>,
    direct: bool,
    seed: u64,
    /// The file, as results name it.
    targets: Vec<String>,
    path: std::path::PathBuf,
    /// Sessions opened so far: each one's writes are generated from its number.
    sessions: AtomicU64,
    /// `--iops`: each user's interval between intended starts.
    pace: Option<Duration>,
}

/// One user's handle on the file and its buffer.
pub struct Session {
    file: Arc<File>,
    /// The transfer's buffer (away while a ring's I/O holds it) and the writes made from it.
    buf: Mutex<(Option<AlignedBuf>, u64)>,
    /// The run's seed and this session's number: with the write's own, what each write's data is
    /// generated from.
    stream: (u64, u64),
    /// Its thread's ring, with `io_uring`.
    ring: Option<Arc<Ring>>,
}

impl IoWorkload {
    /// The workload of `spec` on `file` through io_uring with rings of `uring`'s tier (psync when
    /// `None`), direct I/O unless `direct` is false, its users' streams from `seed`.
    pub fn new(
        spec: AccessSpec,
        (file, uring): (&TestFile, Option<Tier>),
        direct: bool,
        seed: u64,
        pace: Option<Duration>,
    ) -> Self {
        IoWorkload {
            spec,
            uring,
            direct,
            seed,
            targets: vec![file.path().display().to_string()],
            path: file.path().to_path_buf(),
            sessions: AtomicU64::new(0),
            pace,
        }
    }

    /// The client threads a run of `workers` workers with at most `in_flight` I/Os in all needs through
    /// `engine`: a ring's thread per worker, or with `psync` one per I/O, so none waits for another.
    pub fn threads(engine: IoEngine, workers: u32, in_flight: u32) -> u32 {
        match engine {
            IoEngine::IoUring => workers.min(in_flight),
            IoEngine::Psync => in_flight,
        }
    }
}

impl Session {
    /// The buffer for the next transfer (a new one if a dropped I/O kept the last), filled for `t` when
    /// it writes with data of its own: generated afresh for each write from the run's seed, the session
    /// and the write's number, so that no block written repeats another, nor is near one (no
    /// deduplicating or compressing storage finds anything to fold), and no buffer is written as it came.
    fn take_buf(&self, t: &Transfer, len: usize) -> AlignedBuf {
        let mut guard = self.buf.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (buf, writes) = &mut *guard;
        let mut buf = buf.take().unwrap_or_else(|| AlignedBuf::new(len));
        if t.write {
            *writes += 1;
            let (seed, id) = self.stream;
            fill_random(buf.bytes_mut(), &mut oltpgen_datagen::Rng::derive(seed, &[id, *writes]));
        }
        buf
    }

    /// Runs `t` (a read into the buffer, or a write of it) on the session's ring, else on this thread.
    async fn transfer(&self, t: &Transfer, len: usize) -> std::io::Result<()> {
        let mut buf = self.take_buf(t, len);
        let at = HEAD_BYTES + t.offset;
        let done = match &self.ring {
            Some(ring) => {
                let (back, done) = ring.transfer(&self.file, buf, t.write, at).await;
                buf = back;
                done
            }
            None if t.write => self.file.write_all_at(buf.bytes_mut(), at),
            None => self.file.read_exact_at(buf.bytes_mut(), at),
        };
        self.buf.lock().unwrap_or_else(std::sync::PoisonError::into_inner).0 = Some(buf);
        done
    }
}

impl Driven for IoWorkload {
    type User = Picker;
    type Session = Session;
    type Input = Transfer;

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn pace(&self) -> Option<Duration> {
        self.pace
    }

    fn targets(&self) -> &[String] {
        &self.targets
    }

    fn user(&self, index: u32) -> Picker {
        Picker::new(&self.spec, self.seed, index)
    }

    fn next(&self, user: &mut Picker) -> Next<Transfer> {
        // Iometer's workers issue the next I/O as the last completes: no keying or think time.
        let t = user.next(&self.spec);
        Next { kind: usize::from(t.write), input: t, keying: Duration::ZERO, think: Duration::ZERO }
    }

    async fn connect(&self, _target: usize) -> Result<Session, TxnError> {
        let id = self.sessions.fetch_add(1, Ordering::Relaxed) ^ self.seed.rotate_left(24);
        let fatal = |_| TxnError { fault: Fault::Fatal };
        let file = super::file::open(&self.path, self.direct).map_err(fatal)?;
        let ring = self.uring.map(Ring::here).transpose().map_err(fatal)?;
        let buf = AlignedBuf::new(self.spec.block_bytes as usize);
        Ok(Session { file: Arc::new(file), buf: Mutex::new((Some(buf), 0)), stream: (self.seed, id), ring })
    }

    async fn execute<'a>(
        &'a self,
        session: &'a Session,
        input: &'a Transfer,
        _ops: &'a mut Ops,
    ) -> Result<Done, TxnError> {
        let done = session.transfer(input, self.spec.block_bytes as usize).await;
        if session.ring.is_none() {
            // The transfer held the thread: once the task's cooperative budget is spent (every 128 or so
            // transfers), its runtime gets a turn, for its timers and the run's requests.
            tokio::task::coop::consume_budget().await;
        }
        done.map(|()| Done::default()).map_err(|_| TxnError { fault: Fault::Fatal })
    }
}
