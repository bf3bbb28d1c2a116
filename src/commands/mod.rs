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
    // An error about a URL from the environment names the variable, not a flag the user never gave.
    let from_env = |r: Result<ExitCode, Error>| match cli.db.env_url() {
        Some(_) => r.map_err(crate::cli::name_env_url),
        None => r,
    };
    // From here on SIGTERM and SIGHUP stop the work as Ctrl-C does, instead of killing oltpgen with
    // the built-in server left running.
    oltpgen_driver::stop::listen();
    match cli.command {
        Command::Tpcc(cmd) => from_env(tpcc::run(*cmd, &cli.db, cli.quiet).await),
        Command::Ds2(cmd) => from_env(ds2::run(*cmd, &cli.db, cli.quiet).await),
        Command::Local { action } => local::run(action, &cli.db).await,
        Command::Report { action } => report::run(action),
    }
}

/// Runs `work` until it ends or a stop signal (Ctrl-C, SIGTERM, SIGHUP): then `work` is dropped, which
/// stops what it started (the built-in server's guard, the load's connections), and the command exits
/// with 128 + the signal.
async fn interruptible<T>(what: &str, work: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    tokio::select! {
        r = work => r,
        () = oltpgen_driver::stop::requested() => Err(Error::Interrupted(format!("{what} did not finish"))),
    }
}
