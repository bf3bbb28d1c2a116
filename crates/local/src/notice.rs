//! Saying what the built-in server is doing when a person would otherwise wait in silence.
//!
//! Creating an instance is said once, always (it tells where the data will live). Starting and stopping
//! are said only when they take more than a moment and stderr is a terminal: a person is waiting then,
//! while logs and scripts want their stderr to hold only what went wrong.

use std::io::IsTerminal as _;
use std::sync::mpsc;
use std::time::Duration;

use oltpgen_vocab::console::ErrLines;

/// How long a step may take before it is announced.
const A_MOMENT: Duration = Duration::from_secs(1);

/// Runs `work`, saying `what…` to `said` if it is still running after a moment and a person watches.
pub fn when_slow<T>(said: &ErrLines, what: &str, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    announce_after(said, A_MOMENT, what, work).0
}

/// Runs `work`, saying `what…` to `said` once `after` has passed without it ending; also says
/// whether it did.
fn announce_after<T>(said: &ErrLines, after: Duration, what: &str, work: impl FnOnce() -> T) -> (T, bool) {
    let (done, finished) = mpsc::channel::<()>();
    let what = what.to_string();
    let said = said.clone();
    let watcher = std::thread::spawn(move || {
        let slow = matches!(finished.recv_timeout(after), Err(mpsc::RecvTimeoutError::Timeout));
        if slow {
            said.line(&format!("{what}…"));
        }
        slow
    });
    let value = work();
    drop(done);
    (value, watcher.join().unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_slow_step_is_announced() {
        let (handle, lines) = ErrLines::kept();
        let (v, said) = announce_after(&handle, Duration::from_secs(5), "quick", || 7);
        assert_eq!((v, said), (7, false));
        let (v, said) = announce_after(&handle, Duration::from_millis(10), "slow", || {
            std::thread::sleep(Duration::from_millis(200))
        });
        assert_eq!((v, said), ((), true));
        assert_eq!(*lines.lock().unwrap(), ["slow…"], "said through the command's console");
    }
}
