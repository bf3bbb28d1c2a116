//! What `check` and `drop` share across workloads: the lines a check prints and its verdict, and the
//! drop of what a load created, said the same way for every workload.

use oltpgen_report::model::checks::{self as clauses, Clause};
use oltpgen_report::render::text::checks;

use super::{Console, Databases, Exit, interruptible};
use crate::inventory::Definition;
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

/// `W drop`: drops what `W`'s load created from the database `db` names, and says what it did.
///
/// # Errors
/// A bad URL, a server that cannot start, a drop refused or failed, the interruption.
pub(super) async fn drop<W: Definition>(db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    interruptible("the drop", async {
        let database = db.open_one(2, W::NAME).await?;
        let target = &database.target;
        if crate::load::drop_all::<W>(target).await? {
            console.line(&format!("dropped the {} tables from {target}", W::NAME));
        } else {
            console.line(&format!("{target} holds no {} tables: nothing to drop", W::NAME));
        }
        Ok(Exit::Success)
    })
    .await
}
