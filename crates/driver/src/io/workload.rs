//! `oltpgen io` as a workload of the run machinery: each user is one I/O in flight (a worker's
//! outstanding I/O, as Iometer counts them), its "transactions" the reads and writes of its
//! [`Picker`], its session the file opened for direct I/O with a buffer of its own. So steps,
//! sweeps, caps, runs, histograms (timed from each I/O's intended start), counters and results are the
//! database workloads' own.
//!
//! The I/O is positional and synchronous (`pread`/`pwrite`, fio's `psync`): each user has a client
//! thread of its own ([`IoWorkload::threads`]), so a transfer that waits on the disk holds only its own
//! thread; every so many transfers the user yields (tokio's cooperative budget), so the thread's runtime
//! (the first one's is the run's own) keeps its timers and the run's requests going.

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use oltpgen_report::model::{IO_TRANSACTIONS, Workload as Kind};

use super::file::{AlignedBuf, HEAD_BYTES, TestFile, fill_random, stamp};
use super::spec::{AccessSpec, Picker, Transfer};
use crate::error::Fault;
use crate::run::{Next, Ops, Workload};
use crate::vocab::outcome::{Done, TxnError};

/// The I/O workload on one prepared file.
pub struct IoWorkload {
    spec: AccessSpec,
    direct: bool,
    seed: u64,
    /// The file, as results name it.
    targets: Vec<String>,
    path: std::path::PathBuf,
    /// Sessions opened so far: each one's writes are stamped with its number.
    sessions: AtomicU64,
    /// `--iops`: each user's interval between intended starts.
    pace: Option<Duration>,
}

/// One user's handle on the file and its buffer.
pub struct Session {
    file: File,
    /// The transfer's buffer and the writes made from it.
    buf: Mutex<(AlignedBuf, u64)>,
    /// This session's number, in every sector it writes.
    id: u64,
}

impl IoWorkload {
    /// The workload of `spec` on `file` (direct I/O unless `direct` is false), its users' streams from `seed`.
    pub fn new(spec: AccessSpec, file: &TestFile, direct: bool, seed: u64, pace: Option<Duration>) -> Self {
        IoWorkload {
            spec,
            direct,
            seed,
            targets: vec![file.path().display().to_string()],
            path: file.path().to_path_buf(),
            sessions: AtomicU64::new(0),
            pace,
        }
    }

    /// The client threads a run of at most `in_flight` I/Os needs: one per I/O, so none waits for another.
    pub fn threads(in_flight: u32) -> u32 {
        in_flight
    }
}

impl Session {
    /// Runs `t`: a read into the buffer, or a write of the buffer stamped with this write's own id.
    fn transfer(&self, t: &Transfer) -> std::io::Result<()> {
        let mut guard = self.buf.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (buf, writes) = &mut *guard;
        let at = HEAD_BYTES + t.offset;
        if t.write {
            *writes += 1;
            stamp(buf.bytes_mut(), self.id << 40 | *writes);
            self.file.write_all_at(buf.bytes_mut(), at)
        } else {
            self.file.read_exact_at(buf.bytes_mut(), at)
        }
    }
}

impl Workload for IoWorkload {
    const REPORT: Kind = Kind::Io;
    const KINDS: &'static [&'static str] = &IO_TRANSACTIONS;
    /// Reads: the live per-minute figure is not shown for `io`.
    const PER_MINUTE_KIND: usize = 0;
    type User = Picker;
    type Session = Session;
    type Input = Transfer;

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
        let file =
            super::file::open(&self.path, self.direct).map_err(|_| TxnError { fault: Fault::Fatal })?;
        let mut buf = AlignedBuf::new(self.spec.block_bytes as usize);
        fill_random(buf.bytes_mut(), &mut oltpgen_datagen::Rng::derive(self.seed, &[id]));
        Ok(Session { file, buf: Mutex::new((buf, 0)), id })
    }

    async fn execute<'a>(
        &'a self,
        session: &'a Session,
        input: &'a Transfer,
        _ops: &'a mut Ops,
    ) -> Result<Done, TxnError> {
        let done = session.transfer(input);
        // The transfer held the thread: once the task's cooperative budget is spent (every 128 or so
        // transfers), its runtime gets a turn, for its timers and the run's requests.
        tokio::task::coop::consume_budget().await;
        done.map(|()| Done::default()).map_err(|_| TxnError { fault: Fault::Fatal })
    }
}
