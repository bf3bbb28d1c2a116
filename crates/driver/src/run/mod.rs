//! Driving load: virtual users in shards over the client threads ([`shard`]), each user plain data in
//! its shard's [`crowd`] (its state, a deadline, a place in a connection's line) and a future only
//! while its transaction runs ([`user`]); a collector that turns their samples into figures, live lines
//! every interval, and the measured window's statistics at the end. Each step is laid as a [`Stepper`]
//! decides it (a sweep walks its list; a search reads the verdict on the step before). Workload-neutral:
//! a workload plugs in through [`Driven`].

#![warn(clippy::too_many_lines)]

pub mod agent;
pub mod arrivals;
pub mod collector;
pub mod cpu;
pub mod crowd;
pub mod fault;
pub mod find_max;
pub mod hooks;
pub mod metrics;
pub mod outage;
pub mod plan;
pub mod pool;
pub mod result;
pub mod sample;
pub mod schedule;
pub mod shard;
pub mod since_reset;
pub mod stepper;
pub mod study;
pub mod ticks;
pub mod user;
pub mod workload;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use oltpgen_report::model::outage::Outage;
use oltpgen_report::model::search::ProbeRole;
use oltpgen_report::model::step::{StepPlan, Transactions};
use oltpgen_report::model::{ClientCpu, IntervalRow, Step, Window};
use oltpgen_report::stats::cap::Cap;
use oltpgen_vocab::outcome::Acks;
use tokio::time::Instant;

pub use agent::Agent;
use collector::Collector;
pub use collector::IntervalFigures;
pub use plan::{Pace, SeededPlan, StudyFlags, Users};
pub use sample::{AuditCounts, MAX_AUDIT};
pub use schedule::{Ramp, Scheduled, StepSpec, Timing};
use shard::Shards;
pub use stepper::{Stepper, Sweep};
pub use study::{StudyOptions, one_or_each, study};
pub use workload::{Driven, Next, Op, Ops};

/// The shape of one run: its steps (a sweep when there are several), connections, timing, and the
/// response-time cap each step is judged by.
#[derive(Clone, Debug)]
pub struct RunPlan {
    /// The steps, in order, as [`Sweep`] walks them (users carry over, and a step with fewer stops the
    /// surplus); their most users bound any stepper's.
    pub steps: Vec<StepSpec>,
    /// Shared connections per target; `None` gives each user its own.
    pub connections: Option<u32>,
    /// Ramp, warmup, measured time, window.
    pub timing: Timing,
    /// The live line's period.
    pub report_interval: Duration,
    /// The cap every step is judged by.
    pub cap: Cap,
    /// End the sweep after this many steps in a row broke the cap.
    pub stop_after_breach: Option<u32>,
    /// Client threads to spread the users over (`--client-threads`), each with its own runtime.
    pub client_threads: u32,
    /// The share of the plan this process runs (`--agent`): its users and connections.
    pub agent: Agent,
    /// The instant the run's clock starts from (`--start-at`), the same on every agent; `None` starts
    /// it when the users are about to.
    pub start_at: Option<SystemTime>,
    /// `--find-max`: each run searches the users between its steps' least and most, at this
    /// resolution and with these confirmations, instead of walking its steps.
    pub search: Option<find_max::Resolve>,
}

impl RunPlan {
    /// The stepper that decides each run's steps: the search (`--find-max`) over the run's range of
    /// users, or the sweep of its list.
    pub fn stepper(&self) -> Box<dyn Stepper + Send> {
        let users = self.steps.iter().map(|s| s.users);
        match (self.search, users.clone().min()) {
            (Some(r), Some(from)) => Box::new(find_max::UserSearch::new(find_max::SearchPlan {
                from,
                // A search over rates (an open loop) ends at its range's top, not at its population.
                to: users.clone().max().unwrap_or(from),
                resolution: r.resolution_pct / 100.0,
                confirm: r.confirm,
            })),
            _ => Box::new(Sweep::of(&self.steps)),
        }
    }

    /// The most users any step runs (an open loop's steps all run its population).
    pub fn max_users(&self) -> u32 {
        match self.timing.arrivals {
            Some(a) => a.users,
            None => self.steps.iter().map(|s| s.users).max().unwrap_or(0),
        }
    }

    /// How many times the sweep runs (`--runs`): its steps' largest run number.
    pub fn runs(&self) -> u32 {
        self.steps.iter().map(|s| s.run).max().unwrap_or(1)
    }

    /// The plan of run `run` alone: its steps of the sweep, in order.
    pub fn of_run(&self, run: u32) -> RunPlan {
        // Only the first run starts on the common clock (`--start-at`): a later one starts when the
        // run before it ended.
        let steps = self.steps.iter().filter(|s| s.run == run).copied().collect();
        RunPlan { steps, start_at: self.start_at.filter(|_| run <= 1), ..self.clone() }
    }

    /// Connections the run opens at most.
    pub fn connections_needed(&self) -> u32 {
        self.connections.map_or(self.max_users(), |c| c.min(self.max_users()))
    }

    /// Connections `users` users of one target run on.
    pub fn connections_for(&self, users: u32) -> u32 {
        self.connections.map_or(users, |c| c.min(users))
    }

    /// This agent's shared connections on each of `targets` targets, when `--connections` is fewer
    /// than the users: its share of each target's ([`Agent::connections_on`]; none of a target it runs
    /// no user on).
    pub fn pooled(&self, targets: usize) -> Option<Vec<u32>> {
        let (c, users) = (self.connections.filter(|&c| c < self.max_users())?, self.max_users());
        Some((0..targets.max(1)).map(|t| self.agent.connections_on(c, users, t, targets)).collect())
    }

    /// The client threads the run uses: `client_threads`, but no more than this agent's users, nor than
    /// its least share of a target's shared connections (each thread gets at least one of each
    /// target's it runs users on). An agent's share of a target it runs users on is at least the
    /// connections over the agents.
    pub fn client_threads_used(&self) -> u32 {
        let most = self.client_threads.clamp(1, self.agent.users_of(self.max_users()).max(1));
        let least_share = self.connections.filter(|&c| c < self.max_users()).map(|c| c / self.agent.count);
        least_share.map_or(most, |c| most.min(c.max(1)))
    }

    /// The connections this agent's share of a step of `users` users opens on each of `targets`
    /// targets: each target's users, or its share of the target's shared connections when fewer.
    pub fn connections_per_target(&self, users: u32, targets: usize) -> Vec<u32> {
        let pooled = self.pooled(targets);
        (0..targets.max(1))
            .map(|t| {
                let on = self.agent.users_on(users, t, targets);
                pooled.as_ref().map_or(on, |p| p[t].min(on))
            })
            .collect()
    }
}

/// What a run measured.
pub struct Measured {
    /// The steps that began measuring, each built and judged once: as [`Progress::Step`] reported it.
    pub steps: Vec<Step>,
    /// The targets' labels, in the order of each step's `transactions`.
    pub targets: Vec<String>,
    /// Every interval's figures per transaction type.
    pub timeseries: Vec<IntervalRow>,
    /// Failures of the whole run by kind.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// The client's CPU over the whole run per completed transaction, its memory, its wake-up lateness.
    pub client: ClientCpu,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
    /// The host's energy counters (RAPL) at the start and at every interval, where it has them.
    pub energy: Vec<EnergySample>,
    /// Where each energy counter wraps.
    pub energy_max_uj: Vec<u64>,
    /// Each outage (connections lost), on the run's clock.
    pub outages: Vec<Outage>,
    /// Every order the database acknowledged.
    pub acks: Acks,
}

/// Energy counters (µJ, one per CPU package) read at a moment (Unix seconds).
pub type EnergySample = (f64, Vec<u64>);

/// The host's energy counters now, and where each wraps.
pub fn energy_sample() -> Option<(EnergySample, Vec<u64>)> {
    let (energy, max) = cpu::rapl_energy_uj()?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64();
    Some(((now, energy), max))
}

/// What the caller hears while a run goes on.
pub enum Progress<'a> {
    /// A run of the study begins (its number, from 1: a live header for the first, a separator line
    /// for the others): every check passed, users are about to start.
    Started(u32),
    /// A reporting interval ended.
    Interval(&'a IntervalFigures),
    /// A step's window closed (and its late samples came in): its figures and cap verdict.
    Step(&'a Step),
}

/// The most a step's verdict waits after its window closed for samples dated in it still to come: a
/// composite turn's operations are recorded when the whole turn ends, an open loop's dropped arrival is
/// dated when it was due. It waits only while a shard still owes some ([`Shards::settled`]: a turn
/// that began before the window's end is still in flight, or an arrival due before it is not yet
/// served or dropped), asking again every [`SETTLE_POLL`]; past this, what comes later is not the
/// step's.
const GRACE: Duration = Duration::from_secs(2);

/// How often a verdict waiting for its window's late samples asks the shards again.
const SETTLE_POLL: Duration = Duration::from_millis(10);

/// When a step whose window closed at `end` is judged, asked at `now` (both on the run's clock), with
/// whether every shard has recorded everything dated in it: now when they have or the grace is over,
/// else at the next poll (never beyond the grace).
fn judge_when(end: Duration, now: Duration, settled: bool) -> Option<Duration> {
    let last = end + GRACE;
    (!settled && now < last).then(|| (now + SETTLE_POLL).min(last))
}

/// Runs `plan` against `workload`, its steps the plan's list ([`Sweep`]), telling `progress` about every
/// interval and every finished step.
pub async fn drive<W: Driven>(
    workload: Arc<W>,
    plan: &RunPlan,
    progress: impl FnMut(Progress<'_>),
) -> Measured {
    drive_stepped(workload, plan, &mut Sweep::of(&plan.steps), progress).await
}

/// Runs `plan` against `workload`, each step as `stepper` decides it (at most [`RunPlan::max_users`]
/// users), telling `progress` about every interval and every finished step. Its phases: decide the first
/// steps and spawn the users, watch them (live lines, steps judged as their windows close and the next
/// decided), stop and drain them, then judge the steps the run ended in and take the client's own cost.
pub async fn drive_stepped<W: Driven>(
    workload: Arc<W>,
    plan: &RunPlan,
    stepper: &mut impl Stepper,
    mut progress: impl FnMut(Progress<'_>),
) -> Measured {
    progress(Progress::Started(plan.steps.first().map_or(1, |s| s.run)));
    let mut run = Run::start(workload, plan, stepper);
    let interrupted = run.watch(&mut progress).await;
    run.end(interrupted, &mut progress).await
}

/// A run under way: its users, its collector, its steps as decided and judged, what it read so far.
struct Run<'a, W: Driven, S> {
    plan: &'a RunPlan,
    /// The run's time zero.
    start: Instant,
    cpu_before: (f64, f64),
    collector: Collector,
    shards: Shards,
    /// Users running now, over every shard.
    running: Arc<AtomicU64>,
    steps: Steps<'a, W, S>,
    timeseries: Vec<IntervalRow>,
    energy: Vec<EnergySample>,
    energy_max_uj: Vec<u64>,
    /// Every interval, and at each window's edges: a step shorter than the interval is read too.
    ticks: ticks::Ticks,
    /// Steps in a row that broke the cap.
    breaches: u32,
    /// The steps reported: a sweep stopped for breaching the cap ends with the step that breached it
    /// (the next one may have begun during the grace, and is not reported); `None`: every step laid.
    reported: Option<usize>,
}

/// What a run does once a step is judged.
enum AfterVerdict {
    /// Goes on (its next step, when one was decided, laid from the given index on).
    Goes(usize),
    /// Ends now.
    Ends,
}

impl<'a, W: Driven, S: Stepper> Run<'a, W, S> {
    /// Decides the steps that can be decided before the run (the whole list of a sweep; a stepper that
    /// reads verdicts, its first) and spawns the users.
    fn start(workload: Arc<W>, plan: &'a RunPlan, stepper: &'a mut S) -> Self {
        let start = clock_start(plan.start_at);
        let cpu_before = cpu::process_cpu_s();
        let mut steps = Steps::new(workload.clone(), plan, stepper);
        steps.decide(Duration::ZERO);
        let windows: Vec<_> = steps.laid.iter().map(|s| ms(s.window.0)..ms(s.window.1)).collect();
        let collector = Collector::new(workload.profile().kinds, steps.targets.len(), &windows);
        let running = Arc::new(AtomicU64::new(0));
        let shards = Shards::spawn(&workload, plan, &steps.laid, (start, running.clone()), &collector);
        let (energy, energy_max_uj): (Vec<_>, Vec<u64>) =
            energy_sample().map_or((Vec::new(), Vec::new()), |(sample, max)| (vec![sample], max));
        let ticks = ticks::Ticks::new(plan.report_interval, &steps.laid);
        Run {
            plan,
            start,
            cpu_before,
            collector,
            shards,
            running,
            steps,
            timeseries: Vec::new(),
            energy,
            energy_max_uj,
            ticks,
            breaches: 0,
            reported: None,
        }
    }

    /// Watches the users until the last step's window closes, a verdict ends the run, or a stop signal
    /// comes (then returns `true`): reads the figures at every tick, judges each step as its window
    /// closes, and lays the next steps as they are decided.
    async fn watch(&mut self, progress: &mut impl FnMut(Progress<'_>)) -> bool {
        let start = self.start;
        let tick_at = tokio::time::sleep_until(start + self.ticks.due());
        tokio::pin!(tick_at);
        let finish = tokio::time::sleep_until(start + self.steps.last_end());
        tokio::pin!(finish);
        let judge_at = tokio::time::sleep_until(start + self.steps.next_verdict_at());
        tokio::pin!(judge_at);
        let stop_signal = oltpgen_vocab::stop::requested();
        tokio::pin!(stop_signal);
        loop {
            tokio::select! {
                // First: the reading at the last window's end comes before the run ends there.
                biased;
                () = &mut tick_at => {
                    self.ticks.pass();
                    tick_at.as_mut().reset(start + self.ticks.due());
                    self.read(progress).await;
                }
                _ = &mut judge_at, if self.steps.judged() < self.steps.laid.len() => {
                    if let Some(again) = self.owed().await {
                        judge_at.as_mut().reset(start + again);
                        continue;
                    }
                    let AfterVerdict::Goes(first) = self.after_verdict(progress).await else { break false };
                    if first < self.steps.laid.len() {
                        tick_at.as_mut().reset(start + self.ticks.due());
                        finish.as_mut().reset(start + self.steps.last_end());
                    }
                    judge_at.as_mut().reset(start + self.steps.next_verdict_at());
                }
                _ = &mut finish, if self.steps.ended
                    && self.steps.judged() + self.judged_as_users_drain() >= self.steps.laid.len() => {
                    break false;
                }
                () = &mut stop_signal => break true,
            }
        }
    }

    /// How many steps are judged as the users drain when the run ends as planned: a closed loop's last
    /// (what its turns still running record comes after its window); none of an open loop's, whose last
    /// step, as every step, waits for the arrivals due in its window that are still running.
    fn judged_as_users_drain(&self) -> usize {
        usize::from(self.plan.timing.arrivals.is_none())
    }

    /// Reads the interval's figures from every shard and tells `progress`.
    async fn read(&mut self, progress: &mut impl FnMut(Progress<'_>)) {
        self.shards.gather(&mut self.collector).await;
        let users = self.running.load(Ordering::Relaxed);
        let now = self.start.elapsed();
        let mut figures = self.collector.tick(now.as_secs_f64(), users);
        figures.probe = self.steps.probing(now);
        progress(Progress::Interval(&figures));
        self.timeseries.extend(figures.rows);
        if !self.energy.is_empty() {
            self.energy.extend(energy_sample().map(|(sample, _)| sample));
        }
    }

    /// When to ask again whether the next step to judge has all its samples (`None`: it has, or the
    /// grace is over: judge it now).
    async fn owed(&self) -> Option<Duration> {
        let end = self.steps.laid[self.steps.judged()].window.1;
        let settled = self.shards.settled(self.start + end).await;
        judge_when(end, self.start.elapsed(), settled.all())
    }

    /// Judges the next step, whose window closed and whose late samples are in (or its grace is over);
    /// then ends the run after too many
    /// breaches in a row, or asks for the next step and lays it.
    async fn after_verdict(&mut self, progress: &mut impl FnMut(Progress<'_>)) -> AfterVerdict {
        // Asked before the gathering: what was recorded by then is in it. An arrival still running now
        // (its transaction longer than the grace) is left out of the step's count; one not yet started
        // is a backlog, and fails it.
        let end = self.steps.laid[self.steps.judged()].window.1;
        let owed = !self.shards.settled(self.start + end).await.arrivals_dealt;
        self.shards.gather(&mut self.collector).await;
        let passed = self.steps.judge_step(&self.collector, None, owed, progress);
        self.breaches = if passed { 0 } else { self.breaches + 1 };
        let more = self.steps.judged() < self.steps.laid.len() || !self.steps.ended;
        if self.plan.stop_after_breach.is_some_and(|k| self.breaches >= k) && more {
            self.reported = Some(self.steps.judged());
            return AfterVerdict::Ends;
        }
        let first = self.steps.decide(self.start.elapsed());
        for &step in &self.steps.laid[first..] {
            self.shards.step(step, &mut self.collector);
            self.ticks.add(step.window);
        }
        if self.steps.judged() == self.steps.laid.len() {
            // The stepper ended the run.
            return AfterVerdict::Ends;
        }
        AfterVerdict::Goes(first)
    }

    /// Stops the users (`interrupted` by a stop signal or not), lets them drain, judges the steps the
    /// run ended in, and takes the client's own cost.
    async fn end(mut self, interrupted: bool, progress: &mut impl FnMut(Progress<'_>)) -> Measured {
        let stopped_at = self.start.elapsed();
        // A run that goes on until it is stopped ends as it should when it is.
        let interrupted = interrupted && !self.plan.timing.until_stopped();
        // An open loop's arrivals due by now and not yet dealt are never served: the steps judged below
        // owe them. (The turns in flight finish as the users drain.)
        let owed = !self.shards.settled(self.start + stopped_at).await.arrivals_dealt;
        // Users stop; they finish the transaction in flight (it completes after the window and is not
        // measured).
        self.shards.drain(&mut self.collector).await;
        // The steps still unjudged when the run ended (the last, or the one Ctrl-C cut short), over the
        // part of their window that ran; one cut short was not measured as asked, and does not pass.
        let (steps, collector) = (&mut self.steps, &self.collector);
        let reported = self.reported.unwrap_or(steps.laid.len());
        while steps.judged() < reported && steps.laid[steps.judged()].window.0 < stopped_at {
            steps.judge_step(collector, Some((stopped_at, interrupted)), owed, progress);
        }
        Measured {
            steps: self.steps.judged,
            client: client_cpu(&self.collector, self.cpu_before),
            errors_by_kind: self.collector.errors_by_kind().clone(),
            targets: self.steps.targets,
            timeseries: self.timeseries,
            interrupted,
            energy: self.energy,
            energy_max_uj: self.energy_max_uj,
            outages: self.collector.outages(self.plan.report_interval, stopped_at),
            acks: self.collector.take_acks(),
        }
    }
}

/// The instant the run's clock starts from: `start_at` (ahead, or already past: every agent lays its
/// steps on the one clock), or now.
fn clock_start(start_at: Option<SystemTime>) -> Instant {
    let now = Instant::now();
    match start_at.map(|at| at.duration_since(SystemTime::now())) {
        Some(Ok(ahead)) => now + ahead,
        Some(Err(late)) => now.checked_sub(late.duration()).unwrap_or(now),
        None => now,
    }
}

/// Milliseconds from the run's start, as samples and windows count them.
pub(crate) fn ms(d: Duration) -> u32 {
    d.as_millis().min(u128::from(u32::MAX)) as u32
}

/// A run's steps: decided by its stepper, laid on the run's clock, judged in order.
struct Steps<'a, W, S> {
    workload: Arc<W>,
    plan: &'a RunPlan,
    stepper: &'a mut S,
    /// The targets' labels.
    targets: Vec<String>,
    /// The steps decided, on the run's clock.
    laid: Vec<Scheduled>,
    /// The steps judged, in order.
    judged: Vec<Step>,
    /// Each laid step's part in a search, as the stepper named it.
    roles: Vec<Option<ProbeRole>>,
    /// Whether the stepper ended the run (no step comes after those laid).
    ended: bool,
}

impl<'a, W: Driven, S: Stepper> Steps<'a, W, S> {
    fn new(workload: Arc<W>, plan: &'a RunPlan, stepper: &'a mut S) -> Self {
        let targets = workload.targets().to_vec();
        let (laid, judged, roles) = (Vec::new(), Vec::new(), Vec::new());
        Steps { workload, plan, stepper, targets, laid, judged, roles, ended: false }
    }

    /// How many steps are judged.
    fn judged(&self) -> usize {
        self.judged.len()
    }

    /// Asks the stepper for the steps it can decide `now` (on the run's clock): every one of a stepper
    /// that reads no verdict; the next one, once every step laid is judged, of one that does. Lays them
    /// and returns the index of the first laid now.
    fn decide(&mut self, now: Duration) -> usize {
        let first = self.laid.len();
        let (run, most) = (self.plan.steps.first().map_or(1, |s| s.run), self.plan.max_users());
        while !self.ended && (self.laid.len() == self.judged.len() || !self.stepper.reads_verdicts()) {
            match self.stepper.next(&self.judged) {
                Some(level) => {
                    // An open loop's level is its rate, per second (Timing::place gives it its users).
                    let users = if self.plan.timing.arrivals.is_some() { level } else { level.min(most) };
                    let spec = StepSpec { users, run };
                    self.laid.push(self.plan.timing.place(spec, self.laid.last(), now));
                    self.roles.push(self.stepper.role());
                }
                None => self.ended = true,
            }
        }
        for (i, part) in self.stepper.taken() {
            if let Some(step) = self.judged.get_mut(i) {
                step.probe_too = Some(part);
            }
        }
        first
    }

    /// The search's probe under way at `now` (the last step laid that began by then), as the live line
    /// names it: its role and load (`grow 32 users`, `bisect 300/s`); `None` in a sweep.
    fn probing(&self, now: Duration) -> Option<String> {
        let i = self.laid.iter().rposition(|s| s.start <= now)?;
        let (role, s) = (self.roles[i]?, &self.laid[i]);
        Some(match s.rate {
            Some(rate) => format!("{role} {rate}/s"),
            None => format!("{role} {} users", s.spec.users),
        })
    }

    /// Where the last step laid ends, on the run's clock.
    fn last_end(&self) -> Duration {
        self.laid.last().map_or(Duration::ZERO, |s| s.window.1)
    }

    /// When the next step to judge may be judged: when its window closes (then once its late samples
    /// are in, [`judge_when`]).
    fn next_verdict_at(&self) -> Duration {
        self.laid.get(self.judged()).map_or(Duration::ZERO, |s| s.window.1)
    }

    /// Builds the next step from what `collector` holds for its window (cut at the time the run ended,
    /// `stopped`, with whether it was stopped early: a window that cuts short was not measured as asked,
    /// and does not pass), with whether an open loop's arrivals due in it were still `owed`, tells
    /// `progress`, and returns whether it passed its cap.
    fn judge_step(
        &mut self,
        collector: &Collector,
        stopped: Option<(Duration, bool)>,
        owed: bool,
        progress: &mut impl FnMut(Progress<'_>),
    ) -> bool {
        let i = self.judged();
        let s = &self.laid[i];
        let stopped_at = stopped.map(|(at, _)| at);
        let end = stopped_at.map_or(s.window.1, |at| s.window.1.min(at));
        let window_s = (s.window.0.as_secs_f64(), end.as_secs_f64());
        let measured = (collector.window_transactions(i), collector.window_connections_lost(i).to_vec());
        let descriptor = &self.workload.profile().descriptor;
        let mut step = step_result(descriptor, self.plan, s, i, &self.targets, measured, window_s);
        self.workload.audit(&mut step, collector.window_audit(i));
        step.probe = self.roles[i];
        step.arrivals =
            arrivals::step_arrivals(self.plan, s, collector.window_arrivals(i), step.duration_s, owed);
        step.judge_arrivals();
        if stopped.is_some_and(|(at, early)| early && at < s.window.1) {
            let verdicts = step.cap.iter_mut().chain(step.target_caps.values_mut());
            for cap in verdicts.filter(|c| c.invalid.is_none()) {
                cap.invalidate("the run was stopped during the step".into());
            }
        }
        progress(Progress::Step(&step));
        let passed = step.cap.as_ref().is_some_and(|c| c.passed);
        self.judged.push(step);
        passed
    }
}

/// The client's CPU over the whole run per completed transaction (and per order), its memory, and how
/// late users woke.
fn client_cpu(collector: &Collector, cpu_before: (f64, f64)) -> ClientCpu {
    let cpu_after = cpu::process_cpu_s();
    let cpu_s = (cpu_after.0 - cpu_before.0, cpu_after.1 - cpu_before.1);
    let mut client = ClientCpu::new(cpu_s.0, cpu_s.1, collector.completed());
    client.client_cpu_us_per_order =
        (collector.orders() > 0).then(|| (cpu_s.0 + cpu_s.1) * 1e6 / collector.orders() as f64);
    client.peak_rss_bytes = cpu::peak_rss_bytes();
    let late = collector.lateness();
    if !late.is_empty() {
        client.wake_late_p99_ms = Some(late.percentile_us(99.0) as f64 / 1e3);
        client.wake_late_max_ms = Some(late.max_us() as f64 / 1e3);
    }
    client
}

/// A step's result: figures from its transactions per target (labelled by `targets`) and the
/// transactions that lost their connection in its window per target (`measured`), judged by the plan's
/// cap (a step or target not measured as it should have been does not pass).
pub fn step_result(
    workload: &oltpgen_report::model::descriptor::Descriptor,
    plan: &RunPlan,
    scheduled: &Scheduled,
    index: usize,
    targets: &[String],
    measured: (Vec<Transactions>, Vec<u64>),
    window_s: (f64, f64),
) -> Step {
    let (transactions, connections_lost) = measured;
    let (start_s, end_s) = window_s;
    // This agent's users; each target has its own users and its share of the shared connections.
    let users = plan.agent.users_of(scheduled.spec.users);
    let per_target = plan.connections_per_target(scheduled.spec.users, targets.len());
    let step_plan = StepPlan {
        index: index as u32,
        run: scheduled.spec.run,
        users: u64::from(users),
        connections: per_target.iter().map(|&c| u64::from(c)).sum(),
        ramp_up_s: scheduled.ramp.as_secs_f64(),
        duration_s: end_s - start_s,
        window: Window { start_s, end_s },
    };
    // With one target, Step::new keeps only the totals, and the step's connections are the target's.
    let connections: Vec<u64> = per_target.iter().map(|&c| u64::from(c)).collect();
    let mut step = Step::described(workload, step_plan, targets.iter().cloned().zip(transactions).collect());
    if targets.len() > 1 {
        step.target_connections = targets.iter().cloned().zip(connections).collect();
    }
    step.count_connections_lost(targets.iter().cloned().zip(connections_lost));
    plan.cap.judge_step(&mut step);
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(users: &[u32], connections: Option<u32>) -> RunPlan {
        RunPlan {
            steps: users.iter().map(|&users| StepSpec { users, run: 1 }).collect(),
            connections,
            timing: Timing {
                ramp: Ramp::Rate(10.0),
                warmup: Duration::ZERO,
                duration: Duration::from_secs(1),
                window: None,
                arrivals: None,
            },
            report_interval: Duration::from_secs(1),
            cap: Cap::default(),
            stop_after_breach: None,
            client_threads: 2,
            agent: Agent::WHOLE,
            start_at: None,
            search: None,
        }
    }

    #[test]
    fn a_verdict_waits_for_late_samples_only_while_they_are_owed_and_never_past_the_grace() {
        let (end, ms) = (Duration::from_secs(10), Duration::from_millis);
        assert_eq!(judge_when(end, end + ms(1), true), None, "all in: judged at once");
        assert_eq!(judge_when(end, end + ms(1), false), Some(end + ms(11)), "asked again shortly");
        assert_eq!(judge_when(end, end + ms(1995), false), Some(end + GRACE), "never past the grace");
        assert_eq!(judge_when(end, end + GRACE, false), None, "the grace is over");
    }

    #[test]
    fn a_pool_never_opens_more_than_the_users_need() {
        assert_eq!(plan(&[4, 10], None).connections_needed(), 10);
        assert_eq!(plan(&[4, 10], Some(6)).connections_needed(), 6);
        assert_eq!(plan(&[4, 10], Some(6)).connections_for(4), 4);
        assert_eq!(plan(&[4, 10], Some(40)).connections_needed(), 10);
    }

    #[test]
    fn threads_are_never_more_than_the_users_or_the_shared_connections() {
        let threads = |users: &[u32], connections, threads| {
            RunPlan { client_threads: threads, ..plan(users, connections) }.client_threads_used()
        };
        assert_eq!(threads(&[4, 10], None, 2), 2);
        assert_eq!(threads(&[1], None, 8), 1, "one user runs on one thread");
        assert_eq!(threads(&[10], Some(1), 4), 1, "one shared connection is not split");
        assert_eq!(threads(&[10], Some(3), 4), 3);
        assert_eq!(threads(&[10], Some(10), 4), 4, "as many connections as users: each its own");
        assert_eq!(threads(&[10], None, 0), 1);
    }
}
