//! The commands every stored workload has, written once over [`Stored`]: `W load` ([`load`], in
//! [`super::load`]), `W check` ([`check`]: the workload's own checks and their verdict, the run's
//! acknowledged orders compared) and `W drop` ([`drop`]). A workload's `run` has flags of its own
//! (TPC-C's `--scale`, DS2's driver's), so each has its plan; they share the study's machinery.

use oltpgen_report::model::checks::{self as clauses, Clause};
use oltpgen_report::render::text::checks;

use super::{CheckRequest, Console, Databases, Exit, interruptible, workers_or_cores};
use crate::files::acks;
use crate::workload::Stored;

pub use super::load::{LoadRequest, load};

use super::{agent, load::load_when_empty};
use crate::database::Database;
use std::fmt::Display;

use oltpgen_report::render::text::live;

use crate::run::{RunPlan, StudyFlags};
use crate::{Error, Target};

/// Says one line per check; a failed check fails the command, in one line saying which.
///
/// # Errors
/// [`Error::Failed`] naming the checks that failed.
pub(super) fn verdict(target: &Target, clauses: &[Clause], console: &mut dyn Console) -> Result<Exit, Error> {
    for c in clauses {
        console.line(&checks::line(c));
    }
    let failed = clauses::failed(clauses);
    if failed.is_empty() {
        console.line(&checks::consistent_line(&target.to_string()));
        Ok(Exit::Success)
    } else {
        Err(Error::failed(checks::failed_line(&failed, clauses.len(), &target.to_string())))
    }
}

/// `W check`: `check` (the workload's checks of one target over `workers` connections) on every
/// database `db` names, or the built-in one, a line per check (under the database's name when there are
/// several); every database is checked, and the first that fails fails the command. Given a run's
/// result directory (`--result`), the orders that run saw acknowledged are then compared with the
/// databases, as the run's end compares them after a failover: one line, a loss failing the command.
/// Only the orders the databases can still hold are compared (those since the last `--restore`), and a
/// line says so when a restore took some away.
///
/// # Errors
/// A result directory without a `W` run's acknowledged orders, an unloaded database, a query that
/// fails, a check that fails, an acknowledged commit lost, the interruption.
pub async fn check<W: Stored>(
    w: &W,
    req: &CheckRequest,
    db: &Databases,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    // A wrong directory is said before any database is opened.
    let acks = req.result.as_deref().map(|dir| acks::read(dir, w.name())).transpose()?;
    interruptible("the check", async {
        db.refuse_empty_instance(w.name(), "check")?;
        let workers = workers_or_cores(req.workers);
        let (_database, targets) = db.open_all(workers as u32, w.name()).await?;
        let mut outcome = Ok(Exit::Success);
        for target in &targets {
            let (clauses, said) = match req.sample {
                Some((k, seed)) => w.check_sampled(target, workers, k, seed).await?,
                None => (w.check(target, workers).await?, Vec::new()),
            };
            if targets.len() > 1 {
                console.line(&format!("{target}:"));
            }
            for line in &said {
                console.line(line);
            }
            let verdict = verdict(target, &clauses, console);
            if outcome.is_ok() {
                outcome = verdict;
            }
        }
        if let Some(held) = &acks {
            if let Some(which) = &held.which {
                console.line(which);
            }
            let Some(lookup) = w.acknowledged() else {
                return Err(Error::usage(format!("{} acknowledges no orders to compare", w.name())));
            };
            let lost =
                crate::lost_commits::check(&targets, &lookup, &held.acks, std::time::Duration::ZERO).await?;
            if lost.lost > 0 {
                return Err(Error::failed(lost.sentence()));
            }
            console.line(&lost.sentence());
        }
        outcome
    })
    .await
}

/// `W drop`: drops what `W`'s load created from every database `db` names, one after another, and says
/// what it did in each.
///
/// # Errors
/// A bad URL, a server that cannot start, a drop refused or failed, the interruption.
pub async fn drop<W: Stored>(w: &W, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    interruptible("the drop", async {
        for one in db.each()? {
            let database = one.open_one(2, w.name()).await?;
            let target = &database.target;
            if crate::load::drop_all(w, target).await? {
                console.line(&format!("dropped the {} tables from {target}", w.name()));
            } else {
                console.line(&format!("{target} holds no {} tables: nothing to drop", w.name()));
            }
        }
        Ok(Exit::Success)
    })
    .await
}

/// The databases a run of a workload drives, open: held by the run's plan until its result is written.
pub struct Opened {
    /// The built-in server, while the run lives, when it is the database.
    pub database: Option<Database>,
    /// The databases driven side by side.
    pub targets: Vec<Target>,
}

/// Opens, for a run of `w` with `connections` per database, every database `db` names (or the built-in
/// PostgreSQL), and loads each empty one at `load_if_empty` (bare `tpcc`, `ds2`), saying so. What
/// [`refuse`] refuses and the run's claims (`--out`) come before it.
///
/// # Errors
/// The refusals; a server that cannot be reached; a load that fails; the interruption.
pub async fn open<W: Stored>(
    w: &W,
    db: &Databases,
    connections: u32,
    load_if_empty: Option<W::Size>,
    quiet: bool,
    console: &mut dyn Console,
) -> Result<Opened, Error> {
    let (database, targets) = interruptible("starting", db.open_all(connections, w.name())).await?;
    if let Some(size) = load_if_empty {
        let room = database.is_some().then_some(db);
        for target in &targets {
            load_when_empty(w, size, target, room, quiet, console).await?;
        }
    }
    Ok(Opened { database, targets })
}

/// Refuses, before anything starts, a run of `w` that cannot go on: on a database an agent of several
/// does not share, or on a built-in instance never loaded (unless the run loads it, `loads`).
///
/// # Errors
/// [`Error::Usage`] saying which, and what to do.
pub fn refuse<W: Stored>(w: &W, study: &StudyFlags, db: &Databases, loads: bool) -> Result<(), Error> {
    agent::refuse_unshared(study, db, w.name(), loads)?;
    if !loads {
        db.refuse_empty_instance(w.name(), "run")?;
    }
    Ok(())
}

/// The line a run of workload `name` starts with, on `targets` with `counts` users per step (every
/// database's together): its steps, connections, timing, pacing (`keying`, `think`) and cap.
pub fn header(
    name: &str,
    targets: &[Target],
    counts: &[u64],
    plan: &RunPlan,
    (keying, think): (&dyn Display, &dyn Display),
) -> String {
    let n = targets.len() as u32;
    let names = targets.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
    live::run_header(
        name,
        &live::TpccHeader {
            target: &names,
            users: counts,
            steps: plan.of_run(1).steps.len(),
            runs: plan.runs(),
            // Each database has its own users and connections.
            connections: plan.connections_for(plan.max_users() / n) * n,
            warmup_s: plan.timing.warmup.as_secs_f64(),
            duration_s: plan.timing.duration.as_secs_f64(),
            window_s: plan.timing.window.map(|(a, b)| (a.as_secs_f64(), b.as_secs_f64())),
            keying,
            think,
            cap: &plan.cap,
        },
    )
}
