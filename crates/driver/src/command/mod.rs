//! The commands as the driver runs them (ripgrep's low-level arguments turned into high-level ones):
//! the binary parses its flags into the requests here ([`Databases`], [`tpcc::TpccRun`],
//! [`ds2::Ds2Run`], [`load::LoadRequest`]) and calls one function per command; that function checks
//! every cross-flag and path rule, opens the databases, reads what they hold, loads an empty one when
//! asked, sizes users and connections, runs, writes the result and returns the exit verdict. What a
//! command says goes to a [`Console`], in lines the report crate renders, so the binary only parses,
//! calls and prints.

mod agent;

pub mod custom;
pub mod cycle;
pub mod databases;
pub mod ds2;
mod finish;
#[cfg(feature = "io")]
pub mod io;
pub mod load;
#[cfg(feature = "local")]
pub mod local;
pub mod report;
pub mod script;
pub mod tpcc;
pub mod values;
pub mod workload;

use std::future::Future;

pub use databases::Databases;
/// Where a command's words go, and the handle on its standard error for tasks and threads: defined at
/// the bottom of the floors, so that the engines and the built-in server are handed them too.
pub use oltpgen_vocab::console::{Console, ErrLines};

use crate::Error;

/// The one line a build made without Cargo feature `feature` gives for `what` needs it: the user
/// rebuilds with it (or with the default features, which hold every one), exit 2.
pub fn not_built(what: &str, feature: &str) -> Error {
    Error::usage(format!(
        "{what}: this oltpgen was built without the `{feature}` feature: build it with `cargo build --release \
         --features {feature}` (or the default features)"
    ))
}

/// How a command that did not fail with an [`Error`] ended: the exit code's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It did what it was asked (exit 0).
    Success,
    /// It did its work and found what the user asked to be told by a failure, e.g. a comparison slower
    /// than `--fail-if-slower` allows (exit 1; it has said why).
    Failure,
}

/// Runs `work` until it ends or a stop signal (Ctrl-C, SIGTERM, SIGHUP): then says at once that it
/// stops and what it waits for, drops `work`, which stops what it started (its statements cancelled on
/// the server, the built-in server's guard, the load's connections), and the command ends with
/// [`Error::Interrupted`] (exit 128 + the signal); `what` names the work in its messages.
///
/// # Errors
/// `work`'s own error, or [`Error::Interrupted`].
pub async fn interruptible<T>(what: &str, work: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    interruptible_waiting(
        what,
        "the server to cancel its statements (and the built-in server to stop, when oltpgen started it)",
        work,
    )
    .await
}

/// How long a stopped command lets the runtime drop the tasks its work spawned (aborted with it), so
/// that their connections' statements are cancelled before the command goes on to its end.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

/// [`interruptible`] for work whose stop waits on `waits_for`, said when the signal comes.
///
/// # Errors
/// `work`'s own error, or [`Error::Interrupted`].
pub async fn interruptible_waiting<T>(
    what: &str,
    waits_for: &str,
    work: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    let mut work = Box::pin(work);
    tokio::select! {
        r = &mut work => return r,
        () = oltpgen_vocab::stop::requested() => {}
    }
    ErrLines::current().line(&format!(
        "stopping: {what} is cancelled; waiting for {waits_for}; a second Ctrl-C ends at once"
    ));
    drop(work);
    tokio::time::sleep(SETTLE).await;
    Err(Error::Interrupted(format!("{what} did not finish")))
}

/// `W check`'s request: its parallelism, and the run whose acknowledged orders to compare with the
/// databases (`--result`).
#[derive(Clone, Debug, Default)]
pub struct CheckRequest {
    /// Connections checking at once (`--load-workers`; the machine's cores when not given).
    pub workers: Option<u32>,
    /// A run's result directory: its acknowledged orders are compared too.
    pub result: Option<std::path::PathBuf>,
    /// `--sample K` with `--sample-seed S`: the checks on K units drawn from S (TPC-C's warehouses).
    pub sample: Option<(u32, u64)>,
}

/// `plan`'s error, an interruption said to have come before the run began: nothing was measured and no
/// result written, so the user does not look for one (a run that began always writes its result).
fn before_the_run<T>(plan: Result<T, Error>) -> Result<T, Error> {
    plan.map_err(|e| match e {
        Error::Interrupted(why) => Error::Interrupted(format!(
            "{why}; the run had not begun: nothing was measured and no result was written"
        )),
        other => other,
    })
}

/// The connections and generator threads a load or check uses: `asked`, or the machine's cores.
pub fn workers_or_cores(asked: Option<u32>) -> usize {
    asked.map(|n| n as usize).unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}
