//! The planned fault (`--fault-at 60s --fault-cmd CMD`): the user's failover command (`pg_ctl promote`,
//! a cloud CLI, `ALTER AVAILABILITY GROUP … FAILOVER`) run once at its moment of the study's clock, on
//! a task of its own beside the users, as a hook runs ([`super::hooks::run_logged`]: `sh -c`, its own
//! process group, its output in `hooks.log`). The result puts it on the timeline
//! ([`FaultCommand`]); what it caused is measured as any outage is ([`super::outage`]).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use oltpgen_report::model::outage::FaultCommand;

use oltpgen_vocab::console::ErrLines;

use super::hooks::{HookEnv, run_logged};
use crate::Target;

/// The fault the flags plan.
#[derive(Clone, Debug)]
pub struct PlannedFault {
    /// `--fault-at`: when, from the study's start.
    pub at: Duration,
    /// `--fault-cmd`.
    pub cmd: String,
    /// `--hook-timeout`: how long it may take.
    pub timeout: Duration,
    /// The result's directory, where its output is logged.
    pub out: PathBuf,
}

/// The fault waiting for its moment, or running, on its own task; and where what became of it is said.
pub struct Armed(tokio::task::JoinHandle<FaultCommand>, ErrLines);

impl PlannedFault {
    /// Waits on a task of its own until `at` after `zero` (the study's clock), then runs the command
    /// against `targets` (`OLTPGEN_TARGETS`). What became of it will be said on the standard error of
    /// the command whose study arms it (the handle it scoped).
    pub fn arm(&self, zero: Instant, targets: &[Target]) -> Armed {
        let env = HookEnv { out: self.out.clone(), targets: targets.iter().map(Target::key).collect() };
        let fault = self.clone();
        Armed(
            tokio::spawn(async move {
                tokio::time::sleep_until((zero + fault.at).into()).await;
                let at_s = zero.elapsed().as_secs_f64();
                let outcome = run_logged("--fault-cmd", &fault.cmd, 1, fault.timeout, &env).await;
                FaultCommand { at_s, ended_s: zero.elapsed().as_secs_f64(), failed: outcome.err() }
            }),
            ErrLines::current(),
        )
    }
}

impl Armed {
    /// The fault as it ran, once the study ended: `None`, said on the command's standard error, when the study ended before
    /// its moment (it is then not run); a command still running is killed with its process group.
    pub async fn finish(self) -> Option<FaultCommand> {
        if !self.0.is_finished() {
            self.0.abort();
            self.1.line("warning: --fault-at: the study ended before the fault's command ran to its end");
            return None;
        }
        let fault = self.0.await.ok()?;
        if let Some(why) = &fault.failed {
            self.1.line(&format!("warning: --fault-cmd {why}"));
        }
        Some(fault)
    }
}
