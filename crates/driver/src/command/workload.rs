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
            let clauses = w.check(target, workers).await?;
            if targets.len() > 1 {
                console.line(&format!("{target}:"));
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
            let Some(acknowledged) = w.acknowledged() else {
                return Err(Error::usage(format!("{} acknowledges no orders to compare", w.name())));
            };
            let lost =
                crate::lost_commits::check(&targets, acknowledged, &held.acks, std::time::Duration::ZERO)
                    .await?;
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
