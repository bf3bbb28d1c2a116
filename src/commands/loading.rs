//! What every workload's load command shares: options from the flags, the CSV alternative, and the
//! lines printed when a load ends or is interrupted.

use std::future::Future;
use std::process::ExitCode;
use std::time::Instant;

use oltpgen_driver::engine::Conn;
use oltpgen_driver::inventory::{self, Definition, Holding};
use oltpgen_driver::load::{LoadOptions, LoadSummary};
use oltpgen_driver::local::{Placement, room};
use oltpgen_driver::{Error, Target};

use super::interruptible;
use crate::cli::{LoadCommon, WorkersArg};

/// The load's options from its flags.
pub fn options(common: &LoadCommon, quiet: bool) -> LoadOptions {
    LoadOptions { workers: common.workers.get(), replace: common.replace, quiet }
}

/// The options of a load that a run starts on an empty database: every core, nothing to replace.
pub fn default_options(quiet: bool) -> LoadOptions {
    LoadOptions { workers: WorkersArg::default().get(), replace: false, quiet }
}

/// Loads `target` with `load` when it holds none of `W`'s tables (the bare `tpcc` and `ds2` commands) and
/// says what was loaded (`what`, e.g. "tpcc scale 10"). On the built-in server (`room`: its placement and
/// the data's size) the disk is checked first, as `load` checks it.
///
/// # Errors
/// A database that cannot be read, a disk too small, or the load's own error.
pub async fn load_when_empty<W: Definition, F>(
    target: &Target,
    what: &str,
    room: Option<(&Placement, u64)>,
    load: impl FnOnce() -> F,
) -> Result<(), Error>
where
    F: Future<Output = Result<LoadSummary, Error>>,
{
    let conn = Conn::open(target).await?;
    if !matches!(inventory::holding::<W>(&conn, target).await?, Holding::Empty) {
        return Ok(());
    }
    drop(conn);
    if let Some((placement, bytes)) = room {
        room::check(placement, bytes)?;
    }
    let summary = interruptible("the load", load()).await?;
    println!("{}", self::summary(what, target, &summary));
    Ok(())
}

/// Writes the CSV files `write` makes (`what`, e.g. "tpcc scale 10") and says where.
pub async fn csv(
    what: &str,
    dir: &std::path::Path,
    write: impl Future<Output = Result<u64, Error>>,
) -> Result<ExitCode, Error> {
    let started = Instant::now();
    let rows = interruptible("writing the CSV files", write).await?;
    println!(
        "wrote {rows} rows of {what} as CSV into {} in {:.1} s",
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `load` until it ends or Ctrl-C, and prints how it went (`what`, e.g. "tpcc scale 10"). An
/// interrupted load says how to recover.
pub async fn run<T: std::fmt::Display>(
    what: &str,
    load: impl Future<Output = Result<(T, LoadSummary), Error>>,
) -> Result<ExitCode, Error> {
    let (target, s) = interruptible("the load", load).await.map_err(|e| match e {
        Error::Interrupted(why) => Error::Interrupted(format!(
            "{why}; the database is marked half-loaded: run the load again with --replace"
        )),
        other => other,
    })?;
    println!("{}", summary(what, &target, &s));
    Ok(ExitCode::SUCCESS)
}

/// One line on a finished load.
pub fn summary(what: &str, target: &dyn std::fmt::Display, s: &LoadSummary) -> String {
    oltpgen_report::render::text::live::load_line(what, target, s.rows, s.total, s.copy, s.indexes)
}
