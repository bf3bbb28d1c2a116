//! One module per command family; each turns parsed flags into driver calls and prints what happened.

mod checks;
mod ds2;
mod loading;
mod local;
mod report;
mod study;
mod tpcc;

use std::future::Future;
use std::process::ExitCode;

use oltpgen_driver::Error;

use crate::cli::{Cli, Command};

/// Runs the command `cli` names.
pub async fn dispatch(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Tpcc(cmd) => tpcc::run(*cmd, &cli.db, cli.quiet).await,
        Command::Ds2(cmd) => ds2::run(*cmd, &cli.db, cli.quiet).await,
        Command::Local { action } => local::run(action, &cli.db).await,
        Command::Report { action } => report::run(action),
    }
}

/// Runs `work` until it ends or Ctrl-C: then `work` is dropped, which stops what it started (the
/// built-in server's guard, the load's connections), and the command exits with 130.
async fn interruptible<T>(what: &str, work: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    tokio::select! {
        r = work => r,
        _ = tokio::signal::ctrl_c() => Err(Error::Interrupted(format!("{what} did not finish"))),
    }
}
