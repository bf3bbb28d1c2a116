//! `oltpgen tpcc run` as the driver runs it (its load, check and drop are [`super::workload`]'s): the run's request checked into a
//! plan, the databases opened (and loaded when empty, for bare `tpcc`), the run with its live lines,
//! the result written. Several `--url`s drive several databases side by side, as `ds2` does.

use oltpgen_datagen::tpcc::mix::{KeyingTime, Pacing, ThinkTime};
use oltpgen_report::model::users::UserLoad;
use oltpgen_report::render::text::live;

use super::cycle::StudyCycle;
use super::workload::{self, Opened};
use super::{Console, Databases, Exit, before_the_run, finish};
use crate::database::Database;
use crate::engine::Conn;
use crate::inventory;
use crate::run::{Pace, Progress, SeededPlan, StudyFlags, Users, arrivals, plan};
use crate::tpcc::{self, RunOptions, Tpcc};
use crate::workload::Stored;
use crate::{Error, Target};
use oltpgen_vocab::claim::DirClaim;
use oltpgen_vocab::tpcc::Transactions;

/// A TPC-C run as the flags ask for it.
#[derive(Clone, Debug)]
pub struct TpccRun {
    /// Bare `tpcc`: load an empty database at `scale` (default 1) first.
    pub load_if_empty: bool,
    /// `--scale`: the warehouses to load, and to expect.
    pub scale: Option<u32>,
    /// `--users` per database, or `None` for the spec's 10 per warehouse loaded.
    pub users: Option<UserLoad>,
    /// `--connections`, or `None` for one per user.
    pub connections: Option<u32>,
    /// How users start, warm up and are measured.
    pub pace: Pace,
    /// Keying and think times.
    pub pacing: Pacing,
    /// `--transactions`, or `None` for the engine's default.
    pub transactions: Option<Transactions>,
    /// `--run-seed`.
    pub seed: Option<u64>,
    /// The cap, repetitions, cost, power and where the result goes.
    pub study: StudyFlags,
    /// `--quiet`: no live lines.
    pub quiet: bool,
}

/// A TPC-C run checked, its databases open (and loaded, for bare `tpcc`), its users sized: what
/// [`plan()`] returns and [`TpccPlan::run`] runs.
pub struct TpccPlan {
    /// The built-in server, while the plan lives, when it is the database.
    _database: Option<Database>,
    /// The databases driven side by side.
    targets: Vec<Target>,
    /// The run's plan and options.
    options: RunOptions,
    /// Users per step, every database's together.
    counts: Vec<u64>,
    /// Where the result goes.
    study: StudyFlags,
    /// `--quiet`.
    quiet: bool,
    /// The hold on `--out`, until the result is written: a second command writing there is refused at
    /// its start.
    _out: DirClaim,
}

/// `tpcc run`, and bare `tpcc` ([`TpccRun::load_if_empty`]): [`plan()`], then [`TpccPlan::run`].
///
/// # Errors
/// As [`plan()`] and [`TpccPlan::run`].
pub async fn run(req: &TpccRun, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    before_the_run(plan(req, db, console).await)?.run(console).await
}

/// Checks every flag and path of `req` before anything starts, opens every database `db` names (or the
/// built-in PostgreSQL; loading each empty one, for bare `tpcc`), and sizes the users by what they
/// hold: `--users` (or its default) for each database.
///
/// # Errors
/// Bad flags or paths, an unloaded or wrongly loaded database, a server that cannot be reached, the
/// interruption.
pub async fn plan(req: &TpccRun, db: &Databases, console: &mut dyn Console) -> Result<TpccPlan, Error> {
    let study = &req.study;
    let off = (req.pacing.keying == KeyingTime::Off, req.pacing.think == ThinkTime::Off);
    arrivals::refuse_waits(req.pace.arrivals.as_ref(), "--keying-time/--think-time", off != (true, true))?;
    let cap = study.cap(&tpcc::PROFILE.descriptor)?;
    study.check_paths(&[])?;
    // Every database gets the same users; the built-in PostgreSQL is one.
    let n = db.targets()?.len().max(1) as u64;
    let users = study.user_counts(req.users.as_ref(), "--users", &req.pace)?;
    let users = users.as_deref();
    if let Some(counts) = users {
        // The plan is checked before anything starts when the users are known without the database.
        let users = Users { each: counts, databases: n, flag: "--users" };
        study.seeded_plan(cap.clone(), users, req.connections, req.pace.clone(), req.seed)?;
        console.notes("--users", req.users.as_ref().map_or(&[], |u| u.notes()));
        if let Some(scale) = req.scale {
            console.notes("--users", plan::terminals_note(counts, scale).as_slice());
        }
    }
    workload::refuse(&Tpcc, study, db, req.load_if_empty)?;
    let out = study.claim_out()?;
    // The built-in server is sized for the run's connections.
    let most_users = users.and_then(|u| u.iter().max().copied());
    let connections = plan::connections_to_open(most_users, req.connections);
    let size = req.load_if_empty.then(|| req.scale.unwrap_or(1));
    let Opened { database, targets } =
        workload::open(&Tpcc, db, connections, size, req.quiet, console).await?;
    // Every database holds one scale (the run's checks refuse it otherwise): the first's sizes the users.
    let first = &targets[0];
    let loaded_scale = inventory::loaded(&Tpcc, &Conn::open(first).await?, first).await?.scale;
    let counts = plan::tpcc_users(users, loaded_scale);
    if req.scale.is_none() {
        console.notes("--users", plan::terminals_note(&counts, loaded_scale).as_slice());
    }
    let users = Users { each: &counts, databases: n, flag: "--users" };
    let SeededPlan { plan, seed, counts } =
        study.seeded_plan(cap, users, req.connections, req.pace.clone(), req.seed)?;
    let options = RunOptions {
        seed,
        plan,
        pacing: req.pacing,
        scale: req.scale,
        transactions: req.transactions,
        study: study.options(),
    };
    Ok(TpccPlan {
        _database: database,
        targets,
        options,
        counts,
        study: study.clone(),
        quiet: req.quiet,
        _out: out,
    })
}

impl TpccPlan {
    /// Runs the plan with a live line per interval and writes the result (also after Ctrl-C, which then
    /// ends in [`Error::Interrupted`]).
    ///
    /// # Errors
    /// A database not ready for the run, a result that cannot be written, a server that went away for
    /// good, the interruption.
    pub async fn run(self, console: &mut dyn Console) -> Result<Exit, Error> {
        let plan = &self.options.plan;
        let pacing = (&self.options.pacing.keying as _, &self.options.pacing.think as _);
        let header = workload::header(Tpcc.name(), &self.targets, &self.counts, plan, pacing);
        let quiet = self.quiet;
        let mut cycle = StudyCycle::new(Tpcc, &self.study, &self.targets, quiet, console.err_lines());
        let studied = tpcc::run(&self.targets, &self.options, &mut cycle, |p| match p {
            Progress::Started(1) if !quiet => console.line(&header),
            Progress::Started(run) if !quiet => console.line(&live::run_line(run, plan.runs())),
            Progress::Interval(f) if !quiet => console.line(&format!(
                "{}{}{}",
                live::interval_line(f.elapsed_s, f.users, f.tps, f.per_minute, f.avg_ms, f.p95_ms, f.errors),
                f.arrivals_note(),
                f.probe_note()
            )),
            Progress::Step(s) => console.line(&live::step_line(s, "NOPM")),
            Progress::Started(_) | Progress::Interval(_) => {}
        })
        .await?;
        finish::finish(studied, &self.study, "", &self.targets, console).await
    }
}
