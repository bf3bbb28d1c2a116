//! What the study's and the agents' tests share with the combination matrix (`tests/matrix`): two
//! power meters' logs, and agents started with only the orchestrators' variables a test gives.

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Two meters' logs in `dir`, each a reading every second from 10 s ago to 10 minutes ahead: `server`
/// steady at 300 W, `storage` climbing a watt a second, so that every run's active watts differ and the
/// result's power can only be the median run's own.
pub fn meters(dir: &Path) -> [String; 2] {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let log = |watts: &dyn Fn(u64) -> u64| -> String {
        let lines: String = (now - 10..now + 600).map(|t| format!("{t},{}\n", watts(t))).collect();
        format!("timestamp,watts\n{lines}")
    };
    let (server, storage) = (dir.join("server.csv"), dir.join("storage.csv"));
    std::fs::write(&server, log(&|_| 300)).unwrap();
    std::fs::write(&storage, log(&|t| 50 + t - (now - 10))).unwrap();
    [format!("server={}", server.display()), format!("storage={}", storage.display())]
}

/// The orchestrators' variables, cleared for every agent so that only what a test gives counts.
const ORCHESTRATOR: [&str; 7] = [
    "OLTPGEN_AGENT",
    "OLTPGEN_AGENTS",
    "OLTPGEN_START_AT",
    "JOB_COMPLETION_INDEX",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "OLTPGEN_URL",
];

/// `oltpgen args…` started with `env` (and none of the orchestrators' other variables).
pub fn spawn_env<S: AsRef<std::ffi::OsStr>>(args: &[S], env: &[(&str, &str)]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oltpgen"));
    for var in ORCHESTRATOR {
        cmd.env_remove(var);
    }
    cmd.args(args).envs(env.iter().copied()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().expect("oltpgen starts")
}
