//! The user's hooks around each run of a study (`--before-run`, `--after-run`): a cache flush, a server
//! restart, a perfmon start. Each runs as `sh -c CMD` in a process group of its own, with
//! `OLTPGEN_RUN` (the run's number), `OLTPGEN_OUT` (the result's directory) and `OLTPGEN_TARGETS` (the
//! databases' keys, space-separated; never a password oltpgen holds — the hook inherits oltpgen's own
//! environment, as any child does), its output appended to `hooks.log` in the result's directory; past
//! its time limit its whole group is killed. A hook that fails stops the study. The study's cycle
//! ([`crate::command::cycle`]) runs them. The planned fault (`--fault-at`, `--fault-cmd`: a failover, a
//! crash) runs the same way, once, at its moment of the study's clock ([`crate::run::fault`]).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::Error;

/// The log the hooks' output is appended to, in the result's directory.
pub const HOOK_LOG: &str = "hooks.log";

/// The hooks of a study, as the flags gave them.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    /// `--before-run`: run before each run, after its restore and before its idle time.
    pub before_run: Option<String>,
    /// `--after-run`: run after each run.
    pub after_run: Option<String>,
    /// `--hook-timeout`: how long a hook may take before its process group is killed.
    pub timeout: Duration,
    /// `--fault-at` and `--fault-cmd`: the command that causes the fault (a failover) and when, on the
    /// study's clock.
    pub fault: Option<(Duration, String)>,
}

/// Where and with what a hook runs.
pub struct HookEnv {
    /// The result's directory (`OLTPGEN_OUT`, and where `hooks.log` goes).
    pub out: PathBuf,
    /// The databases' keys (`OLTPGEN_TARGETS`).
    pub targets: Vec<String>,
}

impl Hooks {
    /// Whether a hook around runs is given (the planned fault is not one: it runs within a run).
    pub fn any(&self) -> bool {
        self.before_run.is_some() || self.after_run.is_some()
    }

    /// The first flag given whose command logs into the result's directory.
    pub fn logging_flag(&self) -> Option<&'static str> {
        [
            (self.before_run.is_some(), "--before-run"),
            (self.after_run.is_some(), "--after-run"),
            (self.fault.is_some(), "--fault-cmd"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// Runs hook `flag` (`--before-run` or `--after-run`), `cmd`, for run `run` in `env`.
///
/// # Errors
/// [`Error::Failed`] naming the hook and its exit status, its time limit, or why it could not start.
pub async fn run_hook(
    flag: &str,
    cmd: &str,
    run: u32,
    timeout: Duration,
    env: &HookEnv,
) -> Result<(), Error> {
    run_logged(flag, cmd, run, timeout, env)
        .await
        .map_err(|why| Error::failed(format!("{flag} `{cmd}` for run {run} {why}; the study stopped there")))
}

/// Runs `cmd` as `flag` says (a hook, or the planned fault) during run `run` in `env`, its output
/// appended to the hooks' log, its process group killed past `timeout` or when the future is dropped.
///
/// # Errors
/// Why it did not end well: its exit status, its time limit, or why it could not start or be logged.
pub async fn run_logged(
    flag: &str,
    cmd: &str,
    run: u32,
    timeout: Duration,
    env: &HookEnv,
) -> Result<(), String> {
    let log_path = env.out.join(HOOK_LOG);
    let mut log = open_log(&log_path).map_err(|e| format!("cannot log to {}: {e}", log_path.display()))?;
    use std::io::Write as _;
    let _ = writeln!(log, "--- run {run}: {flag} {cmd}");
    let err_log = log.try_clone().map_err(|e| format!("cannot log: {e}"))?;
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .env("OLTPGEN_RUN", run.to_string())
        .env("OLTPGEN_OUT", &env.out)
        .env("OLTPGEN_TARGETS", env.targets.join(" "))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err_log)
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("could not start: {e}"))?;
    // Until it ends, its whole group is killed with it: past its time limit, or when the study stops
    // (Ctrl-C drops this future).
    let mut group = GroupGuard(child.id());
    let outcome = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(Ok(status)) if status.success() => Ok(()),
        Ok(Ok(status)) => Err(format!("failed ({status}; {})", output_is_in(&env.out))),
        Ok(Err(e)) => Err(format!("could not be waited for: {e}")),
        Err(_) => Err(format!(
            "ran past its time limit of {} (--hook-timeout) and was killed",
            humantime::format_duration(timeout)
        )),
    };
    if outcome.is_ok() {
        // The shell ended well: what it left running in the background is the user's to keep.
        group.0 = None;
    }
    outcome
}

/// Where a failed command's output is said to be: `hooks.log` in the result's directory `out`.
pub fn output_is_in(out: &Path) -> String {
    format!("its output is in {}", out.join(HOOK_LOG).display())
}

/// The hooks' log as it was when a command began (its length, or that there was none): a command
/// that ends with no result takes back what its hooks appended, so that a directory it made goes and
/// one that was there is left as it was.
#[derive(Debug)]
pub struct HookLogMark {
    path: PathBuf,
    len: Option<u64>,
}

impl HookLogMark {
    /// Marks `hooks.log` in the result's directory `out` as it is now.
    pub fn take(out: &Path) -> HookLogMark {
        let path = out.join(HOOK_LOG);
        let len = std::fs::metadata(&path).ok().map(|m| m.len());
        HookLogMark { path, len }
    }

    /// The hooks' output since the mark (empty when they wrote none), the log put back as it was:
    /// cut to its old length, or removed when there was none.
    pub fn take_back(&self) -> String {
        use std::io::{Read as _, Seek as _};
        let Ok(mut file) = std::fs::File::options().read(true).write(true).open(&self.path) else {
            return String::new();
        };
        let from = self.len.unwrap_or(0);
        let mut appended = Vec::new();
        if file.seek(std::io::SeekFrom::Start(from)).is_ok() {
            let _ = file.read_to_end(&mut appended);
        }
        let _ = match self.len {
            Some(len) => file.set_len(len),
            None => std::fs::remove_file(&self.path),
        };
        String::from_utf8_lossy(&appended).into_owned()
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Kills the process group it names (a hook's shell and everything it started) when dropped.
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Opens `path` for appending, creating it (and its directory) when missing.
fn open_log(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new().create(true).append(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(dir: &std::path::Path) -> HookEnv {
        HookEnv { out: dir.to_path_buf(), targets: vec!["built-in/tpcc".into(), "db2:5432/x".into()] }
    }

    #[tokio::test]
    async fn a_hook_sees_its_run_out_and_targets_and_logs_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let cmd = "echo run=$OLTPGEN_RUN out=$OLTPGEN_OUT targets=$OLTPGEN_TARGETS; echo oops >&2";
        run_hook("--before-run", cmd, 2, Duration::from_secs(10), &env(dir.path())).await.unwrap();
        let log = std::fs::read_to_string(dir.path().join(HOOK_LOG)).unwrap();
        let want = format!("run=2 out={} targets=built-in/tpcc db2:5432/x", dir.path().display());
        assert!(
            log.contains(&want) && log.contains("oops") && log.contains("--- run 2: --before-run"),
            "{log}"
        );
    }

    #[test]
    fn a_mark_takes_back_what_the_hooks_appended_and_only_that() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(HOOK_LOG);
        let mark = HookLogMark::take(dir.path());
        std::fs::write(&log, "new\n").unwrap();
        assert_eq!(mark.take_back(), "new\n");
        assert!(!log.exists(), "a log the command made goes");
        std::fs::write(&log, "old\n").unwrap();
        let mark = HookLogMark::take(dir.path());
        std::fs::write(&log, "old\nnew\n").unwrap();
        assert_eq!(mark.take_back(), "new\n");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "old\n", "a log that was there is as it was");
    }

    #[tokio::test]
    async fn a_failing_hook_names_itself_and_its_status() {
        let dir = tempfile::tempdir().unwrap();
        let e = run_hook("--after-run", "exit 3", 1, Duration::from_secs(10), &env(dir.path()))
            .await
            .unwrap_err();
        let e = e.to_string();
        assert!(e.contains("--after-run `exit 3` for run 1 failed (exit status: 3"), "{e}");
    }

    #[tokio::test]
    async fn a_hook_past_its_time_limit_is_killed_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("child-lived");
        let cmd = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let started = std::time::Instant::now();
        let e = run_hook("--before-run", &cmd, 1, Duration::from_millis(300), &env(dir.path()))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("past its time limit of 300ms (--hook-timeout)"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert!(!marker.exists(), "the hook's background child was killed with its group");
    }
}
