//! `oltpgen custom --file FILE [load|run|check|drop]`: a workload a user defined in a file, loaded,
//! driven, checked and dropped as TPC-C is (its load, check and drop are [`super::workload`]'s; its
//! run is here, with TPC-C's study flags and its own: the scale it expects, users, think time).

use std::time::Duration;

use oltpgen_report::model::users::UserLoad;
use oltpgen_report::render::text::live;

use super::cycle::StudyCycle;
use super::workload::{self, Opened};
use super::{Console, Databases, Exit, before_the_run, finish};
use crate::database::Database;
use crate::defined::{self, Defined, RunOptions};
use crate::run::{Pace, Progress, SeededPlan, StudyFlags, Users, arrivals, plan};
use crate::workload::Stored;
use crate::{Error, Target};
use oltpgen_vocab::claim::DirClaim;

/// A run of a defined workload as the flags ask for it.
#[derive(Clone, Debug)]
pub struct CustomRun {
    /// The workload, read from `--file`.
    pub workload: Defined,
    /// Bare `custom`: load an empty database at `scale` (default 1) first.
    pub load_if_empty: bool,
    /// `--scale`: the scale to load, and to expect.
    pub scale: Option<u64>,
    /// `--users` per database.
    pub users: UserLoad,
    /// `--connections`, or `None` for one per user.
    pub connections: Option<u32>,
    /// How users start, warm up and are measured.
    pub pace: Pace,
    /// `--think-time`: the mean think time after each transaction (0: none).
    pub think_mean: Duration,
    /// `--run-seed`.
    pub seed: Option<u64>,
    /// The cap, repetitions, cost, power and where the result goes.
    pub study: StudyFlags,
    /// `--quiet`: no live lines.
    pub quiet: bool,
}

/// A run of a defined workload checked, its databases open (and loaded, for bare `custom`): what
/// [`plan()`] returns and [`CustomPlan::run`] runs.
pub struct CustomPlan {
    /// The built-in server, while the plan lives, when it is the database.
    _database: Option<Database>,
    /// The databases driven side by side.
    targets: Vec<Target>,
    /// The request.
    req: CustomRun,
    /// The run's plan and options.
    options: RunOptions,
    /// Users per step, every database's together.
    counts: Vec<u64>,
    /// The hold on `--out`, until the result is written.
    _out: DirClaim,
}

/// `custom run`, and bare `custom`: [`plan()`], then [`CustomPlan::run`].
///
/// # Errors
/// As [`plan()`] and [`CustomPlan::run`].
pub async fn run(req: &CustomRun, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    before_the_run(plan(req, db, console).await)?.run(console).await
}

/// Checks every flag and path of `req` before anything starts, opens every database `db` names (or the
/// built-in PostgreSQL), loading each empty one for bare `custom`.
///
/// # Errors
/// Bad flags or paths, a server that cannot be reached, a load that fails, the interruption.
pub async fn plan(req: &CustomRun, db: &Databases, console: &mut dyn Console) -> Result<CustomPlan, Error> {
    let study = &req.study;
    arrivals::refuse_waits(req.pace.arrivals.as_ref(), "--think-time", !req.think_mean.is_zero())?;
    let w = &req.workload;
    let cap = study.cap(&w.profile().descriptor)?;
    study.check_paths(&[])?;
    console.notes("--users", req.users.notes());
    // Every database gets the same users; the built-in PostgreSQL is one.
    let n = db.targets()?.len().max(1) as u64;
    let users = study.user_counts(Some(&req.users), "--users", &req.pace)?.unwrap_or_default();
    let each = Users { each: &users, databases: n, flag: "--users" };
    let SeededPlan { plan, seed, counts } =
        study.seeded_plan(cap, each, req.connections, req.pace.clone(), req.seed)?;
    workload::refuse(w, study, db, req.load_if_empty)?;
    let out = study.claim_out()?;
    let most = users.iter().copied().max();
    let connections = plan::connections_to_open(most, req.connections);
    let size = req.load_if_empty.then(|| req.scale.unwrap_or(1));
    let Opened { database, targets } = workload::open(w, db, connections, size, req.quiet, console).await?;
    let options =
        RunOptions { seed, plan, think_mean: req.think_mean, scale: req.scale, study: study.options() };
    Ok(CustomPlan { _database: database, targets, req: req.clone(), options, counts, _out: out })
}

impl CustomPlan {
    /// Runs the plan with a live line per interval and writes the result (also after Ctrl-C, which then
    /// ends in [`Error::Interrupted`]).
    ///
    /// # Errors
    /// A database not ready for the run, a statement that does not prepare, a result that cannot be
    /// written, a server that went away for good, the interruption.
    pub async fn run(self, console: &mut dyn Console) -> Result<Exit, Error> {
        let (req, plan) = (&self.req, &self.options.plan);
        let think = humantime::format_duration(req.think_mean).to_string();
        let name = req.workload.name();
        let header = workload::header(name, &self.targets, &self.counts, plan, (&0, &think));
        let quiet = req.quiet;
        let mut cycle =
            StudyCycle::new(req.workload.clone(), &req.study, &self.targets, quiet, console.err_lines());
        let progress = per_second_progress(&mut *console, &header, plan.runs(), quiet);
        let studied = defined::run(&req.workload, &self.targets, &self.options, &mut cycle, progress).await?;
        finish::finish(studied, &req.study, "", &self.targets, console).await
    }
}

/// `custom drop` without `--file`: on each database, the file workload `name` names (or, with no
/// name, the only one it holds) as its load record keeps its definition, dropped as `--file` would.
///
/// # Errors
/// [`Error::Usage`] when a database holds no such workload, or several and no `--name` says which
/// (naming them); the built-in PostgreSQL without `--name` (its database is the workload's name); the
/// drop's errors.
pub async fn drop_loaded(
    name: Option<&str>,
    db: &Databases,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    if db.targets()?.is_empty() && name.is_none() {
        return Err(Error::usage(
            "custom drop on the built-in PostgreSQL: give --name NAME (the workload's database) or --file FILE",
        ));
    }
    for one in db.each()? {
        let database = one.open_one(2, name.unwrap_or_default()).await?;
        let target = &database.target;
        let loaded = defined::loaded(target).await?;
        let names: Vec<&str> = loaded.iter().map(|(n, _)| n.as_str()).collect();
        let def = match (name, loaded.as_slice()) {
            (Some(name), _) => loaded.iter().find(|(n, _)| n == name).map(|(_, d)| d.clone()).ok_or_else(|| {
                let held = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                Error::usage(format!(
                    "--name {name}: {target} holds no workload file's load by that name (it holds: {held}): \
                     give one of them, or --file"
                ))
            })?,
            (None, [(_, def)]) => def.clone(),
            (None, []) => {
                console.line(&format!("{target} holds no workload loaded from a file: nothing to drop"));
                continue;
            }
            (None, _) => {
                return Err(Error::usage(format!(
                    "custom drop: {target} holds several workloads loaded from files ({}): give --name NAME",
                    names.join(", ")
                )));
            }
        };
        drop(database);
        workload::drop(&Defined::new(def)?, &one, console).await?;
    }
    Ok(Exit::Success)
}

/// The live lines of a run of a workload counted per second (a defined workload's, pgbench's
/// scripts'): `header` when the study starts, a line per run, interval and step; only the steps' when
/// `quiet`.
pub(super) fn per_second_progress<'a>(
    console: &'a mut dyn Console,
    header: &'a str,
    runs: u32,
    quiet: bool,
) -> impl FnMut(Progress<'_>) + 'a {
    move |p| match p {
        Progress::Started(1) if !quiet => console.line(header),
        Progress::Started(run) if !quiet => console.line(&live::run_line(run, runs)),
        Progress::Interval(f) if !quiet => console.line(&format!(
            "{}{}{}",
            live::per_second_interval_line(f.elapsed_s, f.users, f.tps, f.avg_ms, f.p95_ms, f.errors),
            f.arrivals_note(),
            f.probe_note()
        )),
        Progress::Step(s) => console.line(&live::per_second_step_line(s)),
        Progress::Started(_) | Progress::Interval(_) => {}
    }
}
