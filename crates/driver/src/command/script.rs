//! `oltpgen custom run --pgbench-script FILE[@W] --pgbench-builtin NAME[@W]` and `oltpgen tpcb run`:
//! pgbench's scripts driven with every study flag of `custom run` (sweeps, caps by script name,
//! `--runs`, `--restore` on a database `oltpgen tpcb load` made, hooks, agents, counters).

use oltpgen_report::model::users::UserLoad;

use super::custom::per_second_progress;
use super::cycle::StudyCycle;
use super::workload::{self, Opened};
use super::{Console, Databases, Exit, before_the_run, finish};
use crate::database::Database;
use crate::run::{Pace, SeededPlan, StudyFlags, Users, plan};
use crate::script::{self, ScriptRunOptions, Scripts};
use crate::tpcb::Tpcb;
use crate::{Error, Target};
use oltpgen_vocab::claim::DirClaim;

/// A run of pgbench's scripts as the flags ask for it.
#[derive(Clone, Debug)]
pub struct ScriptRun {
    /// The scripts, their weights and `-D`'s variables.
    pub scripts: Scripts,
    /// `--scale`: `:scale` for a user's scripts.
    pub scale: Option<u64>,
    /// `--max-tries`.
    pub max_tries: u32,
    /// `--users` per database.
    pub users: UserLoad,
    /// `--connections`, or `None` for one per user.
    pub connections: Option<u32>,
    /// How users start, warm up and are measured.
    pub pace: Pace,
    /// `--run-seed`.
    pub seed: Option<u64>,
    /// The cap, repetitions, cost, power and where the result goes.
    pub study: StudyFlags,
    /// `--quiet`: no live lines.
    pub quiet: bool,
}

/// Checks every flag of `req`, opens every database `db` names, then runs the scripts and writes the
/// result (also after Ctrl-C, which then ends in [`Error::Interrupted`]).
///
/// # Errors
/// Bad flags, a server that cannot be reached, a database not ready, a statement that does not prepare,
/// a result that cannot be written, the interruption.
pub async fn run(req: &ScriptRun, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let (database, targets, options, counts, out) = before_the_run(plan(req, db, console).await)?;
    let _keep: (Option<Database>, DirClaim) = (database, out);
    let plan = &options.plan;
    let w = Tpcb::for_scripts(&req.scripts);
    let header = workload::header("pgbench", &targets, &counts, plan, (&0, &0));
    let quiet = req.quiet;
    let mut cycle = StudyCycle::new(w, &req.study, &targets, quiet, console.err_lines());
    let progress = per_second_progress(&mut *console, &header, plan.runs(), quiet);
    let studied = script::run(&req.scripts, &targets, &options, &mut cycle, progress).await?;
    finish::finish(studied, &req.study, "", &targets, console).await
}

type Planned = (Option<Database>, Vec<Target>, ScriptRunOptions, Vec<u64>, DirClaim);

async fn plan(req: &ScriptRun, db: &Databases, console: &mut dyn Console) -> Result<Planned, Error> {
    let study = &req.study;
    let w = Tpcb::for_scripts(&req.scripts);
    let cap = study.cap(&req.scripts.profile().descriptor)?;
    study.check_paths(&[])?;
    console.notes("--users", req.users.notes());
    let n = db.targets()?.len().max(1) as u64;
    let users = study.user_counts(Some(&req.users), "--users", &req.pace)?.unwrap_or_default();
    let each = Users { each: &users, databases: n, flag: "--users" };
    let SeededPlan { plan: run_plan, seed, counts } =
        study.seeded_plan(cap, each, req.connections, req.pace.clone(), req.seed)?;
    workload::refuse(&w, study, db, false)?;
    let out = study.claim_out()?;
    let most = users.iter().copied().max();
    let connections = plan::connections_to_open(most, req.connections);
    let Opened { database, targets } = workload::open(&w, db, connections, None, req.quiet, console).await?;
    let options = ScriptRunOptions {
        seed,
        plan: run_plan,
        scale: req.scale,
        max_tries: req.max_tries,
        study: study.options(),
    };
    Ok((database, targets, options, counts, out))
}
