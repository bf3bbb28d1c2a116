//! A sweep as a study: `--runs` times over, each run readied by the study's [`Cycle`] (the database put
//! back, hooks), idle power before it, the run, then one result document with the plan's configuration,
//! the server, how each run began, power and cost. Workload-neutral: each workload adds its own settings
//! to the configuration and hands over its workload for each run's seed.

use oltpgen_vocab::console::ErrLines;
use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::files::result_dir::{ResultDir, write_result};
use oltpgen_datagen::Rng;
use oltpgen_report::model::cycle::{Restored, RunRecord};
use oltpgen_report::model::outage::{AckComparison, Outage};
use oltpgen_report::model::{ClientCpu, IntervalRow, RunResult, Server, Step};
use oltpgen_report::stats::power::Meter;

use super::fault::PlannedFault;
use super::hooks::HookLogMark;
use super::metrics::{Endpoint, Live};
use super::{
    Driven, EnergySample, IntervalFigures, Measured, Progress, Ramp, RunPlan, drive_stepped, energy_sample,
    result,
};
use crate::counters::{self, Sampler, Sources};
use crate::{Error, Target};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::Acks;

/// What a study measures around the run: cost, power, host and database counters, live metrics.
#[derive(Clone, Debug, Default)]
pub struct StudyOptions {
    /// What the system under test cost (USD).
    pub system_cost_usd: Option<f64>,
    /// External power meters' logs by label (`--power-log [LABEL=]FILE`), read when the study ends.
    pub power_logs: Vec<(String, PathBuf)>,
    /// Time to sit idle before the run, over which idle power is averaged.
    pub idle_sample: Option<Duration>,
    /// Where `result.json` is written after every judged step, so that a run killed part-way keeps
    /// what it judged (`None`: only the caller writes the result, at the end).
    pub result_dir: Option<ResultDir>,
    /// `--no-counters`: sample no host or database counters.
    pub no_counters: bool,
    /// `--node-exporter`: node_exporter URLs scraped every interval for the database hosts' counters.
    pub node_exporters: Vec<String>,
    /// `--metrics-listen`: where the live figures are served in Prometheus' text format.
    pub metrics_listen: Option<SocketAddr>,
    /// `--fault-at`, `--fault-cmd`: the fault to cause, once, on the study's clock.
    pub fault: Option<PlannedFault>,
}

impl RunPlan {
    /// The plan's settings as the result's configuration records them; workloads add their own.
    pub fn config(&self) -> serde_json::Map<String, serde_json::Value> {
        let timing = self.timing;
        let ramp = match timing.ramp {
            Ramp::Rate(r) => format!("{r}/s"),
            Ramp::Over(d) => humantime::format_duration(d).to_string(),
        };
        // The sweep once: every run repeats it.
        let levels: Vec<u32> = self.of_run(1).steps.iter().map(|s| s.users).collect();
        // An open loop's steps are its rates, over one population.
        let (users, rate) = match timing.arrivals {
            Some(a) => (vec![a.users], Some(levels)),
            None => (levels, None),
        };
        let serde_json::Value::Object(mut map) = serde_json::json!({
            "users": users,
            "runs": self.runs(),
            "connections": self.connections,
            "ramp": ramp,
            "warmup_s": timing.warmup.as_secs_f64(),
            "duration_s": timing.duration.as_secs_f64(),
            "window_s": timing.window.map(|(a, b)| [a.as_secs_f64(), b.as_secs_f64()]),
            "rt_cap": self.cap.to_string(),
            "stop_after_breach": self.stop_after_breach,
            "report_interval_s": self.report_interval.as_secs_f64(),
            "client_threads": self.client_threads_used(),
        }) else {
            unreachable!("an object literal")
        };
        // A search's range is its `users`, its resolution and confirmations these.
        if let Some(r) = self.search {
            let search = serde_json::json!({ "resolution_pct": r.resolution_pct, "confirm": r.confirm });
            map.insert("find_max".into(), search);
        }
        if let (Some(rate), Some(a)) = (rate, timing.arrivals) {
            map.insert("rate_per_s".into(), serde_json::json!(rate));
            map.insert("arrivals".into(), serde_json::json!(format!("{:?}", a.spread).to_lowercase()));
            map.insert("max_lag_s".into(), serde_json::json!(a.max_lag.map(|d| d.as_secs_f64())));
            map.insert("max_queue".into(), serde_json::json!(a.queue));
            map.insert("max_drop".into(), serde_json::json!(a.max_drop));
        }
        map
    }
}

/// A setting the result's configuration records once when every target has the same value, else
/// per target, keyed by `labels` (the targets' keys, in the order of `values`).
pub fn one_or_each<T: Into<serde_json::Value> + PartialEq + Copy>(
    labels: &[String],
    values: &[T],
) -> serde_json::Value {
    match values {
        [first, rest @ ..] if rest.iter().all(|v| v == first) => (*first).into(),
        _ => labels.iter().zip(values).map(|(l, v)| (l.clone(), (*v).into())).collect(),
    }
}

/// Names the databases a run drives in its `config`: `target`, the one's label, or `targets`, their
/// keys (`labels`).
pub fn name_targets(
    targets: &[Target],
    labels: &[String],
    config: &mut serde_json::Map<String, serde_json::Value>,
) {
    match targets {
        [one] => config.insert("target".into(), one.label().into()),
        _ => config.insert("targets".into(), labels.into()),
    };
}

/// What the study does around each run of the sweep, supplied by the command that knows the workload
/// and the flags: put the database back to its loaded state, run the user's hooks.
pub trait Cycle {
    /// Readies the database for run `run` (from 1), before its idle time: what it did and what the
    /// database held then, for the run's record.
    ///
    /// # Errors
    /// A restore or a hook that failed: the study stops there, keeping the runs before it.
    fn before_run(&mut self, run: u32) -> impl Future<Output = Result<RunStart, Error>>;

    /// Whatever follows run `run` (the `--after-run` hook).
    ///
    /// # Errors
    /// A hook that failed: the study stops there, keeping the runs so far.
    fn after_run(&mut self, run: u32) -> impl Future<Output = Result<(), Error>>;

    /// Once the study ended, however it ended (Ctrl-C, a failure): removes what the cycle made for it
    /// (a restore's pristine copy), saying on stderr what it could not.
    fn finish(&mut self) -> impl Future<Output = ()>;
}

/// Nothing around the runs: a study of a workload with no database to put back (`io`).
impl Cycle for () {
    async fn before_run(&mut self, _run: u32) -> Result<RunStart, Error> {
        Ok(RunStart::default())
    }

    async fn after_run(&mut self, _run: u32) -> Result<(), Error> {
        Ok(())
    }

    async fn finish(&mut self) {}
}

/// How a run began, as [`Cycle::before_run`] left it.
#[derive(Clone, Debug, Default)]
pub struct RunStart {
    /// How the database was put back, when it was.
    pub restored: Option<Restored>,
    /// Rows per growing table as the run started.
    pub start_rows: BTreeMap<String, u64>,
}

/// What the result says of a study besides its measurements: the server and the configuration (the
/// workload's settings; the plan's are added).
pub struct About {
    /// Who the workload is.
    pub profile: crate::workload::Profile,
    /// The server's engine, version and key settings.
    pub server: Server,
    /// The workload's own settings.
    pub config: serde_json::Map<String, serde_json::Value>,
}

/// A study's result, and what stopped it before its last run when something did (a restore or a hook
/// that failed): the result then holds the runs before it.
pub struct Studied {
    /// The result document.
    pub result: RunResult,
    /// Why the study stopped early, when a restore or a hook failed.
    pub stopped: Option<Error>,
    /// Every order the databases acknowledged, each tagged with its run (each run's were compared at
    /// its end, after lost connections), for `check --result` to compare later.
    pub acks: Acks,
    /// The hooks' log in `--out` as the study began, for a study that ends with nothing to keep to
    /// take back what its hooks wrote (`None` without `--out`).
    pub hook_log: Option<HookLogMark>,
}

/// Tags the later runs' seeds apart from every other stream derived from the first's.
const STUDY_RUN: u64 = 0x5255_4e53;

/// The seed of run `run` (from 1) of a study whose first run draws from `first`: the first keeps it (a
/// single run is what it always was), each later run draws its own, from its number, never from the
/// database (which a restore puts back).
pub fn run_seed(first: u64, run: u32) -> u64 {
    if run <= 1 { first } else { Rng::derive(first, &[STUDY_RUN, u64::from(run)]).next_u64() }
}

/// Runs `plan` as a study, its sweep `--runs` times over: before each run `cycle` readies the database
/// and the study sits idle (`--idle-sample`), then the run drives `workload(run)` (its seed and its
/// workload, drawing its own random streams). Every run's steps and intervals land on one clock, the
/// first run's start, so power, counters and windows line up; the result's headline comes from the
/// median run. Returns the result document also when Ctrl-C cut the study short (then `interrupted` is
/// set) or a restore or hook failed (then [`Studied::stopped`] says why). A power log that cannot be
/// read at the end is warned about, and the result has no power figures: the runs are never thrown away
/// for it. After a run in which connections were lost, its own acknowledged orders are compared with
/// `targets` before anything else touches them (`runs[].lost_commits`; the result's is their sum).
/// Host and database counters (of `targets`, over connections of their own) are sampled from
/// before the first idle time to the study's end, and the live figures are served while it goes on, as
/// `opts` asks.
///
/// # Errors
/// A usage error when `--metrics-listen`'s address cannot be listened on.
pub async fn study<W: Driven>(
    workload: impl Fn(u32) -> (u64, Arc<W>),
    cycle: &mut impl Cycle,
    targets: &[Target],
    plan: &RunPlan,
    opts: &StudyOptions,
    about: About,
    mut progress: impl FnMut(Progress<'_>),
) -> Result<Studied, Error> {
    let watch = Watch::start(targets, plan, opts).await?;
    let mut study = Study::new(context(about, plan, opts), targets, plan, opts, watch);
    'runs: for run in 1..=plan.runs() {
        for phase in PHASES {
            let flow = match phase {
                Phase::BeforeRun => study.before_run(cycle, run).await,
                Phase::Idle => study.idle().await,
                Phase::Drive => study.drive(&workload, run, &mut progress).await?,
                Phase::AfterRun => study.after_run(cycle, run).await,
            };
            if flow.is_break() {
                break 'runs;
            }
        }
    }
    // Whatever ended the study (Ctrl-C too): what the cycle made for it goes.
    cycle.finish().await;
    Ok(study.assemble().await)
}

/// The phases of each run of a study, in order: the cycle readies the database, the study sits idle,
/// the run drives the users, the cycle follows the run. A phase that stops the study (Ctrl-C, a
/// failure) skips the rest.
const PHASES: [Phase; 4] = [Phase::BeforeRun, Phase::Idle, Phase::Drive, Phase::AfterRun];

/// One phase of a study's run ([`PHASES`]).
#[derive(Clone, Copy, Debug)]
enum Phase {
    BeforeRun,
    Idle,
    Drive,
    AfterRun,
}

/// The result's context as the study begins: the workload's settings and the plan's, the server.
fn context(about: About, plan: &RunPlan, opts: &StudyOptions) -> result::Context {
    let mut config = about.config;
    if plan.agent.is_part() {
        config.insert("agent".into(), plan.agent.name().into());
    }
    config.extend(plan.config());
    result::Context {
        descriptor: about.profile.descriptor,
        server: about.server,
        config: serde_json::Value::Object(config),
        started_at: SystemTime::now(),
        plan: plan.clone(),
        system_cost_usd: opts.system_cost_usd,
        meters: Vec::new(),
        runs: Vec::new(),
    }
}

/// A study under way: what watches it, the result so far, and what its runs measured.
struct Study<'a> {
    targets: &'a [Target],
    plan: &'a RunPlan,
    opts: &'a StudyOptions,
    watch: Watch,
    checkpoint: Checkpoint,
    total: Total,
    /// What stopped the study early, when a restore or a hook failed.
    stopped: Option<Error>,
    /// The first run's clock, once it started.
    first_start: Option<Instant>,
    /// The fault, once armed on the study's clock.
    armed: Option<super::fault::Armed>,
    /// How the run under way began ([`Cycle::before_run`]), and its idle span.
    run_start: Option<RunStart>,
    idle_window_s: Option<[f64; 2]>,
    /// The hooks' log as the study began.
    hook_log: Option<HookLogMark>,
}

impl<'a> Study<'a> {
    fn new(
        context: result::Context,
        targets: &'a [Target],
        plan: &'a RunPlan,
        opts: &'a StudyOptions,
        watch: Watch,
    ) -> Self {
        Study {
            targets,
            plan,
            opts,
            watch,
            checkpoint: Checkpoint {
                context,
                targets: Vec::new(),
                steps: Vec::new(),
                timeseries: Vec::new(),
            },
            total: Total::default(),
            stopped: None,
            first_start: None,
            armed: None,
            run_start: None,
            idle_window_s: None,
            hook_log: match &opts.result_dir {
                Some(ResultDir::Given(out)) => Some(HookLogMark::take(out)),
                _ => None,
            },
        }
    }

    /// Whether a phase's outcome went through; `Break` when the study stops there, for a failure kept
    /// as why, or for Ctrl-C ([`until_stopped`]).
    fn went_through<T>(&mut self, outcome: Option<Result<T, Error>>) -> ControlFlow<(), T> {
        match went_through(outcome, &mut self.stopped, &mut self.total.interrupted) {
            Some(value) => ControlFlow::Continue(value),
            None => ControlFlow::Break(()),
        }
    }

    /// The cycle readies the database for run `run`. Ctrl-C during a restore, a hook or the idle time
    /// stops the study there, as during a run. The databases' counters are not read meanwhile (a clone
    /// needs no session on the database).
    async fn before_run(&mut self, cycle: &mut impl Cycle, run: u32) -> ControlFlow<()> {
        self.watch.pause_databases(true);
        let before = until_stopped(cycle.before_run(run)).await;
        self.watch.pause_databases(false);
        self.run_start = Some(self.went_through(before)?);
        ControlFlow::Continue(())
    }

    /// The study sits idle (`--idle-sample`), when asked, reading the host's energy.
    async fn idle(&mut self) -> ControlFlow<()> {
        self.idle_window_s = match self.opts.idle_sample {
            Some(idle) => {
                let idle = until_stopped(sit_idle(idle, &mut self.total.energy)).await.map(Ok);
                Some(self.went_through(idle)?)
            }
            None => None,
        };
        ControlFlow::Continue(())
    }

    /// Run `run` drives `workload(run)` on the study's clock, its result written after every judged
    /// step; its acknowledged orders are compared with the databases before the next run's restore
    /// puts them back and hands their ids out again.
    ///
    /// # Errors
    /// A usage error when this agent reached the common start later than the warmup allows.
    async fn drive<W: Driven>(
        &mut self,
        workload: &impl Fn(u32) -> (u64, Arc<W>),
        run: u32,
        progress: &mut impl FnMut(Progress<'_>),
    ) -> Result<ControlFlow<()>, Error> {
        let (seed, workload) = workload(run);
        self.checkpoint.targets = workload.targets().to_vec();
        let shift = self.begin_run(run, seed)?;
        let (watch, checkpoint, dir) = (&self.watch, &mut self.checkpoint, &self.opts.result_dir);
        let acknowledged = workload.clone();
        let plan = self.plan.of_run(run);
        let mut measured = drive_stepped(workload, &plan, &mut plan.stepper(), |p| {
            let p = shift.progress(p);
            watch.hear(&p.as_progress());
            if let Some(dir) = dir {
                checkpoint.record(&p.as_progress(), dir, watch.sampler.as_ref());
            }
            progress(p.as_progress());
        })
        .await;
        // `--runs` is at most 100: the run fits the byte each order keeps it in.
        let tag = u8::try_from(run).unwrap_or(u8::MAX);
        measured.acks.set_run(tag);
        if let Some(record) = self.checkpoint.context.runs.last_mut() {
            let lookup = acknowledged.acknowledged().ok_or_else(|| acknowledged.no_acknowledgement());
            record.lost_commits = lost_commits(self.targets, lookup, &measured).await;
        }
        let interrupted = measured.interrupted;
        self.total.add(shift.measured(measured));
        Ok(if interrupted { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
    }

    /// Run `run` (drawing from `seed`) begins: on the study's clock, which the first run starts (and
    /// the fault is armed on); its record is added to the result's context. Returns how to move its
    /// figures onto the study's clock.
    ///
    /// # Errors
    /// A usage error when this agent reached the common start later than the warmup allows.
    fn begin_run(&mut self, run: u32, seed: u64) -> Result<Shift, Error> {
        let now = Instant::now();
        if self.first_start.is_none() {
            let (at, clock) = common_start(self.plan, &mut self.checkpoint.context.config)?;
            self.checkpoint.context.started_at = at;
            self.first_start = Some(clock);
            self.armed = self.opts.fault.as_ref().map(|f| f.arm(clock, self.targets));
        }
        let offset_s = now.saturating_duration_since(self.first_start.unwrap_or(now)).as_secs_f64();
        let start = self.run_start.take().unwrap_or_default();
        self.checkpoint.context.runs.push(RunRecord {
            run,
            seed,
            start_s: offset_s,
            restored: start.restored,
            start_rows: start.start_rows,
            idle_window_s: self.idle_window_s.take(),
            // Worked out with the result, from the counters and the meters' logs read at the end.
            idle_counters: BTreeMap::new(),
            meters: BTreeMap::new(),
            power: None,
            lost_commits: None,
        });
        Ok(Shift { offset_s, first_step: self.checkpoint.steps.len() as u32 })
    }

    /// The cycle follows run `run`. A run that goes on until Ctrl-C ended as asked: its after-run hook
    /// still runs (a second signal ends the process), and the study ends with it, cut short only if
    /// runs were left.
    async fn after_run(&mut self, cycle: &mut impl Cycle, run: u32) -> ControlFlow<()> {
        if self.plan.timing.until_stopped() && oltpgen_vocab::stop::received() {
            if let Err(e) = cycle.after_run(run).await {
                self.stopped = Some(e);
            }
            self.total.interrupted |= run < self.plan.runs();
            return ControlFlow::Break(());
        }
        let after = until_stopped(cycle.after_run(run)).await;
        self.went_through(after)
    }

    /// The study's result, assembled from what its runs measured: power from the meters or the host's
    /// energy counters, the runs' lost commits added up, the fault, the counters and each run's
    /// counters at rest.
    async fn assemble(self) -> Studied {
        let Study { plan, opts, watch, checkpoint, total, stopped, armed, hook_log, .. } = self;
        let mut context = checkpoint.context;
        context.meters = meters(opts, &total);
        let t0 = unix_s(context.started_at);
        let mut measured = total.into_measured(checkpoint.targets, stopped.is_some());
        let acks = std::mem::take(&mut measured.acks);
        let mut result = result::build(context, measured);
        // The study's figure is its runs' added up.
        result.lost_commits = AckComparison::of_runs(&result.runs);
        if let Some(armed) = armed {
            result.fault = armed.finish().await;
        }
        let interval_s = plan.report_interval.as_secs_f64();
        watch.finish(&mut result, interval_s).await;
        // Each run's counters at rest: over its idle time, on the result's clock.
        for run in &mut result.runs {
            if let Some([a, b]) = run.idle_window_s {
                run.idle_counters = counters::window_averages(&result.counters, (a - t0, b - t0), interval_s);
            }
        }
        Studied { result, stopped, acks, hook_log }
    }
}

/// The study's meters: every `--power-log`'s readings, or, without one, the host's own energy
/// counters where it has them. A meter's log that cannot be read now costs the power figures, never
/// the runs' result.
fn meters(opts: &StudyOptions, total: &Total) -> Vec<Meter> {
    if opts.power_logs.is_empty() {
        let energy = oltpgen_report::stats::power::from_energy(&total.energy, &total.energy_max_uj);
        let name = RAPL_METER.to_string();
        return if total.measured_energy { vec![Meter { name, readings: energy }] } else { Vec::new() };
    }
    read_meters(&opts.power_logs).unwrap_or_else(|e| {
        ErrLines::current().line(&format!("warning: {e}: the result has no power figures"));
        Vec::new()
    })
}

/// A run's own acknowledged commits compared with the databases serving `targets` at its end, when
/// connections were lost during it (else `None`: nothing could have been lost); a comparison that
/// cannot be made is recorded as not measured, with why, and so is one of a workload that names no
/// acknowledgement (`workload`'s `Err`: why, when it says; nothing for a workload without commits).
async fn lost_commits(
    targets: &[Target],
    workload: Result<crate::workload::AckLookup, Option<String>>,
    run: &Measured,
) -> Option<AckComparison> {
    let lost = run.errors_by_kind.get(Fault::ConnectionLost.name()).copied().unwrap_or(0);
    if lost == 0 {
        return None;
    }
    match workload {
        Ok(_) if run.acks.is_empty() => None,
        Ok(lookup) => Some(crate::lost_commits::compare(targets, &lookup, &run.acks).await),
        Err(why) => why.map(|not_measured| AckComparison::NotMeasured { not_measured }),
    }
}

/// The study's start: on one clock with other agents, the common start (`--start-at`), with how late
/// this agent reached it recorded in `config` (refused past the warmup, before any user starts); else
/// now. Also the instant the first run's clock starts from.
///
/// # Errors
/// A usage error when this agent reached the common start later than the warmup allows.
fn common_start(plan: &RunPlan, config: &mut serde_json::Value) -> Result<(SystemTime, Instant), Error> {
    let Some(at) = plan.start_at else { return Ok((SystemTime::now(), Instant::now())) };
    let late = super::agent::lateness(at, plan.timing.warmup)?;
    if let Some(config) = config.as_object_mut() {
        config.insert("start_at".into(), humantime::format_rfc3339_millis(at).to_string().into());
        config.insert("start_late_ms".into(), (late.as_secs_f64() * 1e3).into());
    }
    Ok((at, super::clock_start(Some(at)).into_std()))
}

/// `work`'s outcome, or `None` when a stop signal (Ctrl-C, SIGTERM, SIGHUP) came first: `work` is then
/// dropped (a hook's shell with it).
async fn until_stopped<T>(work: impl Future<Output = T>) -> Option<T> {
    tokio::select! {
        out = work => Some(out),
        () = oltpgen_vocab::stop::requested() => None,
    }
}

/// The outcome of a step around the runs (a restore, a hook, the idle time) that went through, or
/// `None` when the study stops there: for a failure kept in `stopped`, for Ctrl-C (`outcome` is `None`,
/// [`until_stopped`]) with `interrupted` set.
fn went_through<T>(
    outcome: Option<Result<T, Error>>,
    stopped: &mut Option<Error>,
    interrupted: &mut bool,
) -> Option<T> {
    match outcome {
        Some(Ok(value)) => Some(value),
        Some(Err(e)) => {
            *stopped = Some(e);
            None
        }
        None => {
            *interrupted = true;
            None
        }
    }
}

/// Sits idle for `idle`, reading the host's energy counters into `energy` at both ends where it has
/// them; returns the idle span in Unix seconds.
async fn sit_idle(idle: Duration, energy: &mut Vec<EnergySample>) -> [f64; 2] {
    let from = unix_s(SystemTime::now());
    energy.extend(energy_sample().map(|(sample, _)| sample));
    tokio::time::sleep(idle).await;
    energy.extend(energy_sample().map(|(sample, _)| sample));
    [from, unix_s(SystemTime::now())]
}

/// Puts one run's figures on the study's clock: its times moved by the run's start, its steps numbered
/// after the runs before it.
struct Shift {
    /// The run's start on the study's clock, seconds.
    offset_s: f64,
    /// How many steps the runs before it measured.
    first_step: u32,
}

/// A [`Progress`] moved onto the study's clock, owning what it moved.
enum Shifted {
    Started(u32),
    // Boxed, each: a step and an interval's figures are hundreds of bytes apart.
    Interval(Box<IntervalFigures>),
    Step(Box<Step>),
}

impl Shifted {
    fn as_progress(&self) -> Progress<'_> {
        match self {
            Shifted::Started(run) => Progress::Started(*run),
            Shifted::Interval(f) => Progress::Interval(f),
            Shifted::Step(s) => Progress::Step(s),
        }
    }
}

impl Shift {
    fn step(&self, mut step: Step) -> Step {
        step.index += self.first_step;
        step.window.start_s += self.offset_s;
        step.window.end_s += self.offset_s;
        step
    }

    fn rows(&self, rows: &mut [IntervalRow]) {
        rows.iter_mut().for_each(|r| r.elapsed_s += self.offset_s);
    }

    fn progress(&self, p: Progress<'_>) -> Shifted {
        match p {
            Progress::Started(run) => Shifted::Started(run),
            Progress::Interval(f) => {
                let mut f = f.clone();
                f.elapsed_s += self.offset_s;
                // A new run resets DS2's running statistics: its reset falls at its start.
                f.since_reset.reset_at_s += self.offset_s;
                self.rows(&mut f.rows);
                Shifted::Interval(Box::new(f))
            }
            Progress::Step(s) => Shifted::Step(Box::new(self.step(s.clone()))),
        }
    }

    fn measured(&self, mut m: Measured) -> Measured {
        m.steps = m.steps.into_iter().map(|s| self.step(s)).collect();
        self.rows(&mut m.timeseries);
        for o in &mut m.outages {
            o.lost_s += self.offset_s;
            o.committed_again_s = o.committed_again_s.map(|t| t + self.offset_s);
            o.recovered_s = o.recovered_s.map(|t| t + self.offset_s);
            o.per_second.iter_mut().for_each(|p| p[0] += self.offset_s);
        }
        m
    }
}

/// What every run of a study measured, added up.
#[derive(Default)]
struct Total {
    steps: Vec<Step>,
    timeseries: Vec<IntervalRow>,
    errors_by_kind: BTreeMap<String, u64>,
    clients: Vec<ClientCpu>,
    interrupted: bool,
    /// The host's energy counters, idle times' and runs' alike.
    energy: Vec<EnergySample>,
    energy_max_uj: Vec<u64>,
    /// Whether any run read the host's energy counters.
    measured_energy: bool,
    outages: Vec<Outage>,
    acks: Acks,
}

impl Total {
    fn add(&mut self, m: Measured) {
        self.steps.extend(m.steps);
        self.timeseries.extend(m.timeseries);
        for (kind, n) in m.errors_by_kind {
            *self.errors_by_kind.entry(kind).or_default() += n;
        }
        self.clients.push(m.client);
        self.interrupted |= m.interrupted;
        self.outages.extend(m.outages);
        self.acks.append(m.acks);
        self.measured_energy |= !m.energy.is_empty();
        self.energy.extend(m.energy);
        if !m.energy_max_uj.is_empty() {
            self.energy_max_uj = m.energy_max_uj;
        }
    }

    /// The study as one measurement of `targets`; `stopped` early by a restore or a hook that failed.
    fn into_measured(self, targets: Vec<String>, stopped: bool) -> Measured {
        Measured {
            steps: self.steps,
            targets,
            timeseries: self.timeseries,
            errors_by_kind: self.errors_by_kind,
            client: oltpgen_report::stats::merge::merge_clients(&self.clients),
            interrupted: self.interrupted || stopped,
            energy: self.energy,
            energy_max_uj: self.energy_max_uj,
            outages: self.outages,
            acks: self.acks,
        }
    }
}

/// What watches a study besides its users, each on its own task: the counters' sampler and the live
/// metrics' endpoint (served until the study ends).
struct Watch {
    sampler: Option<Sampler>,
    live: Arc<Mutex<Live>>,
    _endpoint: Option<Endpoint>,
}

impl Watch {
    /// Starts sampling what `opts` asks for (this machine and `targets` unless `--no-counters`, every
    /// `--node-exporter`) and listens on `--metrics-listen`.
    async fn start(targets: &[Target], plan: &RunPlan, opts: &StudyOptions) -> Result<Watch, Error> {
        let sources = Sources {
            client: !opts.no_counters,
            targets: if opts.no_counters { Vec::new() } else { targets.to_vec() },
            node_exporters: opts.node_exporters.clone(),
        };
        let sampler =
            if sources.is_empty() { None } else { Some(Sampler::start(sources, plan.report_interval).await) };
        let live = Arc::new(Mutex::new(Live::of(plan.agent)));
        let endpoint = match opts.metrics_listen {
            Some(addr) => {
                Some(Endpoint::listen(addr, live.clone(), sampler.as_ref().map(Sampler::reader)).await?)
            }
            None => None,
        };
        Ok(Watch { sampler, live, _endpoint: endpoint })
    }

    /// Takes in what a run reports: its start (the first run's is the counters' clock's zero),
    /// intervals and steps.
    fn hear(&self, p: &Progress<'_>) {
        let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match p {
            Progress::Started(1) => self.sampler.iter().for_each(Sampler::run_started),
            Progress::Started(_) => {}
            Progress::Interval(f) => {
                live.interval(f);
                self.sampler.iter().for_each(Sampler::read_now);
            }
            Progress::Step(s) => live.step(s),
        }
    }

    /// Pauses or resumes reading the databases' counters ([`Sampler::pause_databases`]).
    fn pause_databases(&self, paused: bool) {
        self.sampler.iter().for_each(|s| s.pause_databases(paused));
    }

    /// Stops sampling and puts the counters into `result` (points `interval_s` apart).
    async fn finish(self, result: &mut RunResult, interval_s: f64) {
        if let Some(sampler) = self.sampler {
            result.served_by = sampler.served();
            let (series, notes) = sampler.finish().await;
            counters::attach(result, series, notes, interval_s);
        }
    }
}

/// The label of the host's own energy counters (RAPL) as a meter, when no `--power-log` is given.
const RAPL_METER: &str = "rapl";

/// Every meter's readings, or one line saying which log cannot be read and why.
fn read_meters(logs: &[(String, PathBuf)]) -> Result<Vec<Meter>, String> {
    logs.iter()
        .map(|(name, path)| {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--power-log {name}={}: cannot read it: {e}", path.display()))?;
            let readings = oltpgen_report::stats::power::parse(&text)
                .map_err(|e| format!("--power-log {name}={}: {e}", path.display()))?;
            Ok(Meter { name: name.clone(), readings })
        })
        .collect()
}

/// The result as judged so far, written after every judged step.
struct Checkpoint {
    /// The study's context, its runs' records added as they begin.
    context: result::Context,
    targets: Vec<String>,
    steps: Vec<Step>,
    timeseries: Vec<IntervalRow>,
}

impl Checkpoint {
    /// Takes in what `p` reports; after a judged step, writes the result so far into `dir`, with the
    /// counters `sampler` sampled so far (a write that fails is said once on stderr: the run goes on,
    /// and its end writes the result again).
    fn record(&mut self, p: &Progress<'_>, dir: &ResultDir, sampler: Option<&Sampler>) {
        match p {
            Progress::Interval(f) => self.timeseries.extend(f.rows.iter().cloned()),
            Progress::Step(s) => {
                self.steps.push((*s).clone());
                let mut doc = result::document(
                    &self.context,
                    self.steps.clone(),
                    self.targets.clone(),
                    self.timeseries.clone(),
                );
                if let Some(sampler) = sampler {
                    let interval_s = self.context.plan.report_interval.as_secs_f64();
                    counters::attach(&mut doc, sampler.series(), sampler.notes(), interval_s);
                    doc.served_by = sampler.served();
                }
                if let Err(e) = write_result(&dir.path(&doc), &doc) {
                    ErrLines::current().line(&format!(
                        "warning: cannot write the result so far into {}: {e}",
                        dir.path(&doc).display()
                    ));
                }
            }
            Progress::Started(_) => {}
        }
    }
}

fn unix_s(t: SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}
