//! `oltpgen io run` as the driver runs it: the access specification and the study's flags checked, the
//! file made (or reused), filled and preconditioned, the run with its live lines, the result written,
//! and the file removed unless kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use oltpgen_report::model::endurance::Endurance;
use oltpgen_report::model::{IO_WRITE, RunResult, Server};
use oltpgen_report::render::text::{io as lines, live};
use oltpgen_report::stats::io_model::Model;

use super::{Console, ErrLines, Exit, finish};
use crate::Error;
use crate::files::result_dir::read_result;
use crate::io::file::{self, FileOptions, TestFile};
use crate::io::spec::MAX_IN_FLIGHT;
use crate::io::spec::{AccessSpec, bytes_phrase};
use crate::io::uring::{self, Tier};
use crate::io::workload::{IoEngine, IoWorkload};
use crate::run::study::{About, Studied, run_seed};
use crate::run::{Pace, Progress, Ramp, RunPlan, StudyFlags, study};

/// An `io run` as the flags ask for it.
#[derive(Clone, Debug)]
pub struct IoRun {
    /// `--file`.
    pub file: PathBuf,
    /// `--size`, `--block`, `--read`, `--random`: the access specification's values as given.
    pub size_bytes: u64,
    /// `--block`.
    pub block_bytes: u64,
    /// `--read`.
    pub read_pct: u32,
    /// `--random`.
    pub random_pct: u32,
    /// `--workers`.
    pub workers: u32,
    /// `--outstanding`: I/Os in flight per worker, one step each.
    pub outstanding: Vec<u64>,
    /// `--ramp` (Iometer's ramp-up time: I/O runs, unmeasured), `--duration`, `--report-interval`.
    pub ramp: Duration,
    /// `--duration`.
    pub duration: Duration,
    /// `--report-interval`.
    pub report_interval: Duration,
    /// `--buffered`: through the page cache (else direct I/O).
    pub buffered: bool,
    /// `--ioengine`: how the I/Os are issued; `None`: io_uring where the system runs it, else psync.
    pub ioengine: Option<IoEngine>,
    /// `--precondition`.
    pub precondition: u32,
    /// `--keep-file`.
    pub keep_file: bool,
    /// `--run-seed`.
    pub seed: Option<u64>,
    /// `--rated-endurance` (bytes) and `--write-amplification`: project the drive's life.
    pub endurance: Option<(f64, f64)>,
    /// `--iops`: I/Os paced at this total rate from their intended starts (one step only).
    pub iops: Option<f64>,
    /// `--validate RESULT` and `--disk`: replay that result's disk model and compare.
    pub validate: Option<(PathBuf, Option<String>)>,
    /// The cap, repetitions, counters and where the result goes.
    pub study: StudyFlags,
    /// `--quiet`.
    pub quiet: bool,
}

impl IoRun {
    /// The access specification, checked.
    ///
    /// # Errors
    /// A usage error naming the flag at fault.
    pub fn spec(&self) -> Result<AccessSpec, Error> {
        AccessSpec::new(self.size_bytes, self.block_bytes, self.read_pct, self.random_pct)
            .map_err(Error::usage)
    }

    /// How the I/Os are issued: `--ioengine`, else io_uring where this system runs it, its rings of the
    /// fastest tier the kernel takes (else psync, with the system's refusal, which the result records).
    ///
    /// # Errors
    /// A usage error for `--ioengine io_uring` on a system that refuses it.
    pub fn engine(&self) -> Result<Issuing, Error> {
        if self.ioengine == Some(IoEngine::Psync) {
            return Ok(Issuing { engine: IoEngine::Psync, tier: None, why: None });
        }
        match (self.ioengine, uring::probe()) {
            (_, Ok(p)) => Ok(Issuing { engine: IoEngine::IoUring, tier: Some(p.tier), why: p.fell_back }),
            (Some(IoEngine::IoUring), Err(why)) => Err(Error::usage(format!(
                "--ioengine io_uring: this system refuses it ({why}); give --ioengine psync"
            ))),
            (_, Err(why)) => Ok(Issuing { engine: IoEngine::Psync, tier: None, why: Some(why) }),
        }
    }

    /// The run's plan through `engine`: a step per `--outstanding` value of `--workers` × it I/Os in
    /// flight, all started at once, `--ramp` unmeasured, then `--duration` measured; a client thread per
    /// worker (io_uring) or per I/O in flight (psync).
    ///
    /// # Errors
    /// A usage error for a sweep that decreases, too many I/Os in flight, or the study's own flags.
    pub fn plan(&self, engine: IoEngine) -> Result<RunPlan, Error> {
        if self.study.client_threads.is_some() {
            return Err(Error::usage(
                "--client-threads: io runs each I/O in flight on a thread of its own; leave it out",
            ));
        }
        let counts: Vec<u64> = self.outstanding.iter().map(|o| o * u64::from(self.workers)).collect();
        let most = counts.iter().copied().max().unwrap_or(0);
        if most > MAX_IN_FLIGHT {
            return Err(Error::usage(format!(
                "--workers {} × --outstanding {} is {most} I/Os in flight; oltpgen io keeps at most {MAX_IN_FLIGHT}",
                self.workers,
                most / u64::from(self.workers.max(1))
            )));
        }
        if self.iops.is_some() && counts.len() > 1 {
            return Err(Error::usage("--iops paces one step: give one --outstanding value, not a sweep"));
        }
        let threads = IoWorkload::threads(engine, self.workers, most as u32);
        let flags = StudyFlags { client_threads: Some(threads), ..self.study.clone() };
        let cap = flags.cap(&crate::io::workload::PROFILE.descriptor)?;
        // Paced users start spread over one interval, so that their I/Os arrive evenly.
        let pace = Pace {
            ramp: Ramp::Over(self.interval(most).unwrap_or(Duration::ZERO)),
            warmup: self.ramp,
            duration: self.duration,
            report_interval: self.report_interval,
            arrivals: None,
            rates: None,
        };
        flags.plan(cap, &counts, "--outstanding", None, pace)
    }

    /// Each user's interval between intended starts at `--iops` with `users` users.
    fn interval(&self, users: u64) -> Option<Duration> {
        self.iops.map(|iops| Duration::from_secs_f64(users as f64 / iops))
    }

    /// The request with `--validate`'s model in place of the spec's flags: its block, read share,
    /// outstanding I/Os on one worker, 100% random, paced at its captured rate; and the model.
    ///
    /// # Errors
    /// A result that cannot be read or modelled.
    pub fn validated(&self) -> Result<(IoRun, Option<Model>), Error> {
        let Some((result, disk)) = &self.validate else { return Ok((self.clone(), None)) };
        let r = read_result(result)?;
        let m = Model::of(&r, disk.as_deref())
            .map_err(|e| Error::usage(format!("--validate {}: {e}", result.display())))?;
        let run = IoRun {
            block_bytes: m.block_bytes(),
            read_pct: m.read_pct.round() as u32,
            random_pct: 100,
            workers: 1,
            outstanding: vec![m.outstanding()],
            iops: Some(m.iops),
            ..self.clone()
        };
        Ok((run, Some(m)))
    }

    /// The run's own settings, as the result records them.
    fn config(
        &self,
        spec: &AccessSpec,
        seed: u64,
        issuing: &Issuing,
    ) -> serde_json::Map<String, serde_json::Value> {
        let serde_json::Value::Object(map) = serde_json::json!({
            "access": spec.describe(),
            "file": self.file.display().to_string(),
            "size_bytes": spec.size_bytes,
            "block_bytes": spec.block_bytes,
            "read_pct": spec.read_pct,
            "random_pct": spec.random_pct,
            "workers": self.workers,
            "outstanding": self.outstanding,
            "direct_io": !self.buffered,
            "precondition": self.precondition,
            "seed": seed,
            "iops": self.iops,
            "ioengine": issuing.engine.name(),
            "io_uring_setup": issuing.tier.map(|t| format!("{} ({})", t.name(), t.flags())),
            "io_uring_refused": issuing.why,
        }) else {
            unreachable!("an object literal")
        };
        map
    }
}

/// How a run issues its I/Os, as chosen for this system ([`IoRun::engine`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issuing {
    /// The engine.
    pub engine: IoEngine,
    /// With io_uring, how its rings are set up.
    pub tier: Option<Tier>,
    /// Why a faster way was not taken: io_uring's refusal (psync ran), or its faster tiers' refusals.
    pub why: Option<String>,
}

impl Issuing {
    /// The run's header's phrase: `io_uring, defer taskrun`; `io_uring, coop taskrun: the kernel refused
    /// defer taskrun (…): EINVAL (…)`; `psync, io_uring refused here: …`.
    fn method(&self) -> String {
        match (self.tier, &self.why) {
            (None, None) => self.engine.name().to_string(),
            (None, Some(why)) => format!("psync, io_uring refused here: {why}"),
            (Some(tier), None) => format!("{}, {}", self.engine.name(), tier.name()),
            (Some(tier), Some(why)) => format!("{}, {}: {why}", self.engine.name(), tier.name()),
        }
    }
}

/// `io run`: checks every flag and path, prepares the file, runs the plan with a live line per interval,
/// writes the result (also after Ctrl-C, which then ends in [`Error::Interrupted`]) and removes the file
/// unless `--keep-file`.
///
/// # Errors
/// Bad flags or paths, a file that cannot be made or written, a result that cannot be written, the
/// interruption.
pub async fn run(req: &IoRun, console: &mut dyn Console) -> Result<Exit, Error> {
    let (req, model) = req.validated()?;
    let req = &req;
    let spec = req.spec()?;
    let issuing = req.engine()?;
    let plan = req.plan(issuing.engine)?;
    req.study.check_paths(&[])?;
    let _out = req.study.claim_out()?;
    let file = prepare(req, &spec).await?;
    let seed = req.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let pace = req.interval(plan.max_users().into());
    let workload = |run| {
        let seed = run_seed(seed, run);
        (seed, Arc::new(IoWorkload::new(spec, (&file, issuing.tier), !req.buffered, seed, pace)))
    };
    let (server, config) = (server(req, &file), req.config(&spec, seed, &issuing));
    let about = About { profile: crate::io::workload::PROFILE.clone(), server, config };
    let method = issuing.method();
    let quiet = req.quiet;
    let block = spec.block_bytes;
    let studied = study(workload, &mut (), &[], &plan, &req.study.options(), about, |p| match p {
        Progress::Started(run) if run > 1 && !quiet => console.line(&live::run_line(run, plan.runs())),
        Progress::Started(_) if !quiet => console.line(&lines::header(
            &spec.describe(),
            &file.path().display().to_string(),
            req.workers,
            &req.outstanding,
            &method,
            plan.timing.warmup.as_secs_f64(),
            plan.timing.duration.as_secs_f64(),
        )),
        Progress::Interval(f) if !quiet => {
            let kind = |i: usize| f.kinds.get(i).filter(|k| k.count > 0).map(|k| (k.avg_ms, k.max_ms));
            console.line(&lines::interval_line(
                f.elapsed_s,
                f.users,
                (f.tps, lines::mb_per_s(f.tps, block)),
                (kind(0), kind(1)),
                f.errors,
            ));
        }
        Progress::Step(s) => console.line(&lines::step_line(s, block)),
        Progress::Started(_) | Progress::Interval(_) => {}
    })
    .await?;
    let mut result = studied.result;
    result.endurance = req.endurance.and_then(|(rated, wa)| project(&result, block, rated, wa));
    let mut extra =
        result.endurance.as_ref().map_or(String::new(), |e| format!("{}\n", lines::endurance_line(e)));
    if let (Some(m), Some(step)) = (&model, result.steps.last()) {
        extra.push_str(&lines::validate_line(
            (m.iops, step.figures.tps),
            (m.ms_per_transfer, step.figures.rt_avg_ms),
            (m.queue_length, step.figures.tps * step.figures.rt_avg_ms / 1e3),
        ));
    }
    if req.keep_file {
        extra.push_str(&format!(
            "the file {} is kept for the next run (--keep-file)\n",
            file.path().display()
        ));
    }
    finish::finish(
        Studied { result, stopped: studied.stopped, acks: Default::default(), hook_log: studied.hook_log },
        &req.study,
        &extra,
        &[],
        console,
    )
    .await
}

/// The drive's life at the headline step's write rate (`block_bytes` a write), rated `rated` bytes with
/// write amplification `wa`; `None` without a headline or without writes.
fn project(result: &RunResult, block_bytes: u64, rated: f64, wa: f64) -> Option<Endurance> {
    let h = result.max_within_cap.as_ref()?;
    let step = result.steps.iter().find(|s| s.index == h.step_index)?;
    let writes = step.figures.transactions.get(IO_WRITE).map_or(0, |t| t.count);
    Endurance::project(rated, wa, writes as f64 / step.duration_s * block_bytes as f64)
}

/// `io model`: the storage model of `disk` (by default the biggest writer) in the result at `result`,
/// and the `io run` command that replays it on `file`.
///
/// # Errors
/// A result that cannot be read, or that lacks what a model needs (a usage error saying what).
pub fn model(
    result: &Path,
    disk: Option<&str>,
    file: &Path,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    let r = read_result(result)?;
    let m = Model::of(&r, disk).map_err(|e| Error::usage(format!("{}: {e}", result.display())))?;
    console.out(&lines::model_lines(&m, &m.command(&file.display().to_string())));
    Ok(Exit::Success)
}

/// Makes (or reuses) and fills the file on a thread of its own, stopped by Ctrl-C or SIGTERM.
async fn prepare(req: &IoRun, spec: &AccessSpec) -> Result<TestFile, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    let opts = FileOptions {
        direct: !req.buffered,
        precondition: req.precondition,
        keep: req.keep_file,
        quiet: req.quiet,
    };
    let (path, spec) = (req.file.clone(), *spec);
    let flag = stop.clone();
    // The fill's progress lines, on its own thread, go to this command's standard error.
    let said = ErrLines::current();
    let work =
        tokio::task::spawn_blocking(move || said.sync_scope(|| file::prepare(&path, &spec, opts, &flag)));
    tokio::pin!(work);
    tokio::select! {
        done = &mut work => done.map_err(|e| Error::failed(format!("the file's preparation failed: {e}")))?,
        () = oltpgen_vocab::stop::requested() => {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            work.await.map_err(|e| Error::failed(format!("the file's preparation failed: {e}")))?
        }
    }
}

/// What the result says was driven: the file's filesystem and how it was read.
fn server(req: &IoRun, file: &TestFile) -> Server {
    let settings = [
        ("direct_io", (!req.buffered).to_string()),
        ("file_bytes", (file::HEAD_BYTES + req.size_bytes).to_string()),
        ("whole_writes", file.passes.to_string()),
        ("size", bytes_phrase(req.size_bytes)),
    ];
    Server {
        engine: "file".into(),
        version: file::filesystem_of(file.path()).unwrap_or_else(|| "unknown filesystem".into()),
        settings: settings.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}
