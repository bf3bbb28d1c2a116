//! How a command is told to stop: Ctrl-C (SIGINT), SIGTERM (a timeout, systemd, a CI cancel) and SIGHUP
//! (a closed ssh session) all ask the work under way to stop cleanly, so that what ran is written and
//! what oltpgen started is stopped; a second signal ends the process at once. The command then exits
//! 128 + the signal's number (130, 143, 129), as shells expect of a command a signal ended.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

use tokio::sync::watch;

use crate::error::Error;

/// The first stop signal received (0: none yet).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Set once the signals are watched; holds whether one arrived.
static WATCH: OnceLock<watch::Receiver<bool>> = OnceLock::new();

/// SIGINT's number: the exit code of an interruption without a recorded signal is 128 + this.
const SIGINT: i32 = 2;

/// Resolves when a stop signal arrives (at once if one already did). The first call starts watching
/// the signals for the rest of the process, so a signal that arrives between two waits is not lost.
pub async fn requested() {
    let mut rx = WATCH.get_or_init(watch_signals).clone();
    let _ = rx.wait_for(|stop| *stop).await;
}

/// Whether a stop signal has arrived: for work that must tell a run ended as asked by Ctrl-C (one that
/// goes on until stopped) from the work after it, which that Ctrl-C does not cancel.
pub fn received() -> bool {
    RECEIVED.load(Ordering::SeqCst) != 0
}

/// Starts watching the stop signals, so that one arriving before anyone waits is remembered.
pub fn listen() {
    WATCH.get_or_init(watch_signals);
}

/// The exit code of a command a stop signal ended: 128 + its number (130 for Ctrl-C).
pub fn exit_code() -> u8 {
    let signal = match RECEIVED.load(Ordering::SeqCst) {
        0 => SIGINT,
        s => s,
    };
    (128 + signal) as u8
}

impl Error {
    /// The process exit code this error maps to (DESIGN.md: 1 run failed, 2 bad usage or configuration;
    /// an interrupted command 128 + the signal's number, [`exit_code`]): here beside the signals, so that
    /// the errors at the bottom of the crate know nothing of them.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) | Error::Environment(_) => 2,
            Error::Failed(_) => 1,
            Error::Interrupted(_) => exit_code(),
        }
    }
}

/// Watches the signals on a thread of its own, so that a second signal ends the process even while
/// the command's runtime is busy stopping cleanly (stopping the built-in server blocks it).
fn watch_signals() -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    let (ready_tx, ready) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("oltpgen-signals".into()).spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            let _ = ready_tx.send(());
            return;
        };
        runtime.block_on(async move {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
                signal(SignalKind::hangup()),
            );
            let _ = ready_tx.send(());
            // Without handlers the signals keep their default action: they end the process.
            let (Ok(mut int), Ok(mut term), Ok(mut hup)) = streams else { return };
            let mut next = async || -> i32 {
                let kind = tokio::select! {
                    _ = int.recv() => SignalKind::interrupt(),
                    _ = term.recv() => SignalKind::terminate(),
                    _ = hup.recv() => SignalKind::hangup(),
                };
                kind.as_raw_value()
            };
            let first = next().await;
            RECEIVED.store(first, Ordering::SeqCst);
            let _ = tx.send(true);
            // A second signal: the user does not want to wait for a clean stop.
            next().await;
            // The one direct write to standard error in a library crate (tests/no_print_macros.rs names
            // it): the process ends on the next line, and no command's console reaches this task,
            // which listens from before any command starts until the process ends.
            eprintln!("stopped at once (a second signal)");
            std::process::exit(i32::from(exit_code()));
        });
    });
    if spawned.is_ok() {
        let _ = ready.recv();
    }
    rx
}
