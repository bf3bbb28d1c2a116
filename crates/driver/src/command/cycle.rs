//! The study cycle a command runs around each run of its sweep ([`Cycle`]): the workload's tables put
//! back to their loaded state (`--restore`), the `--before-run` hook, the database's starting size
//! counted; after the run, the `--after-run` hook.

use std::marker::PhantomData;
use std::time::Instant;

use futures_util::future::try_join_all;
use oltpgen_report::model::cycle::Restored;

use super::workers_or_cores;
use crate::load::LoadOptions;
use crate::restore::{self, Restorable};
use crate::run::StudyFlags;
use crate::run::hooks::{HookEnv, Hooks, run_hook};
use crate::run::study::{Cycle, RunStart};
use crate::{Error, Target};

/// How a restore is recorded: the workload's rows generated again from the load's seed and size.
pub const FROM_THE_GENERATOR: &str = "generator";

/// The cycle of a study of workload `W` on `targets`.
pub struct StudyCycle<W> {
    targets: Vec<Target>,
    /// `--restore`: how the rows are loaded again; `None` leaves each run what the one before left.
    restore: Option<LoadOptions>,
    hooks: Hooks,
    /// Where the hooks run and log (`None` without hooks).
    hook_env: Option<HookEnv>,
    workload: PhantomData<W>,
}

impl<W: Restorable> StudyCycle<W> {
    /// The cycle `study`'s flags ask for on `targets`: with `--restore`, every target restored at once,
    /// the cores shared among them (one connection and generating thread each), with a progress bar
    /// unless `quiet` or several bars would draw over one another; its hooks run in `--out`.
    pub fn new(study: &StudyFlags, targets: &[Target], quiet: bool) -> Self {
        let restore = study.restore.then(|| LoadOptions {
            workers: (workers_or_cores(None) / targets.len().max(1)).max(1),
            replace: false,
            quiet: quiet || targets.len() > 1,
        });
        let hook_env = match (&study.out, study.hooks.any()) {
            (Some(out), true) => {
                Some(HookEnv { out: out.clone(), targets: targets.iter().map(Target::key).collect() })
            }
            _ => None,
        };
        StudyCycle {
            targets: targets.to_vec(),
            restore,
            hooks: study.hooks.clone(),
            hook_env,
            workload: PhantomData,
        }
    }

    async fn hook(&self, flag: &str, cmd: Option<&String>, run: u32) -> Result<(), Error> {
        match (cmd, &self.hook_env) {
            (Some(cmd), Some(env)) => run_hook(flag, cmd, run, self.hooks.timeout, env).await,
            _ => Ok(()),
        }
    }
}

impl<W: Restorable> Cycle for StudyCycle<W> {
    async fn before_run(&mut self, run: u32) -> Result<RunStart, Error> {
        let restored = match &self.restore {
            Some(opts) => {
                let started = Instant::now();
                try_join_all(self.targets.iter().map(|target| W::restore(target, opts))).await?;
                Some(Restored {
                    method: FROM_THE_GENERATOR.into(),
                    duration_s: started.elapsed().as_secs_f64(),
                })
            }
            None => None,
        };
        self.hook("--before-run", self.hooks.before_run.as_ref(), run).await?;
        let start_rows = restore::start_rows::<W>(&self.targets).await?;
        Ok(RunStart { restored, start_rows })
    }

    async fn after_run(&mut self, run: u32) -> Result<(), Error> {
        self.hook("--after-run", self.hooks.after_run.as_ref(), run).await
    }
}
