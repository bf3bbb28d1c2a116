//! What a command refuses to do as one agent of several (`--agent I/N`, issue 25): an agent drives
//! databases already loaded on servers of their own, named by `--url`; a load when empty (bare `tpcc`,
//! `ds2`) or the built-in PostgreSQL (each machine's own) would give every agent another database.

use super::Databases;
use crate::Error;
use crate::run::StudyFlags;

/// Refuses, in one line, what agents cannot share, for `oltpgen WORKLOAD` (bare when `load_if_empty`).
///
/// # Errors
/// A usage error naming what to do instead; the agent's own refusals ([`StudyFlags::agent`]).
pub(super) fn refuse_unshared(
    study: &StudyFlags,
    db: &Databases,
    workload: &str,
    load_if_empty: bool,
) -> Result<(), Error> {
    let agent = study.agent()?;
    if !agent.is_part() {
        return Ok(());
    }
    let name = agent.name();
    if load_if_empty {
        return Err(Error::usage(format!(
            "--agent {name}: agents drive databases already loaded: load them first (oltpgen {workload} \
             load --url …), then run `oltpgen {workload} run --agent …`"
        )));
    }
    if db.targets()?.is_empty() {
        return Err(Error::usage(format!(
            "--agent {name}: agents drive the same databases from several machines, named by --url (or \
             OLTPGEN_URL); the built-in PostgreSQL is each machine's own"
        )));
    }
    Ok(())
}
