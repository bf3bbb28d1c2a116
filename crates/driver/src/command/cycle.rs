//! The study cycle a command runs around each run of its sweep ([`Cycle`]): the workload's tables put
//! back to their loaded state (`--restore`), the `--before-run` hook, the database's starting size
//! counted; after the run, the `--after-run` hook; at the study's end, the restore's pristine copies
//! dropped.
//!
//! A restore is the generator's on the first run (the database may have drifted since its load); where
//! the engine offers a faster path on the database ([`engine::pristine`]: PostgreSQL's built-in
//! server), a pristine copy is made right after it and the later runs clone it back. Where the copy
//! cannot be made or cloned safely (another client connected), the study says so once and the
//! generator restores.

use std::time::Instant;

use futures_util::future::{join_all, try_join_all};
use oltpgen_report::model::cycle::Restored;

use super::{ErrLines, workers_or_cores};
use crate::engine::{self, Conn};
use crate::load::LoadOptions;
use crate::restore;
use crate::run::StudyFlags;
use crate::run::hooks::{HookEnv, Hooks, run_hook};
use crate::run::study::{Cycle, RunStart};
use crate::workload::Stored;
use crate::{Error, Target};

/// How a restore is recorded: the workload's rows generated again from the load's seed and size.
pub const FROM_THE_GENERATOR: &str = "generator";

/// How a restore is recorded: the database cloned from the pristine copy made after the first run's.
pub const FROM_THE_COPY: &str = "template clone";

/// The cycle of a study of workload `W` on `targets`.
pub struct StudyCycle<W> {
    targets: Vec<Target>,
    /// `--restore`: how the rows are loaded again; `None` leaves each run what the one before left.
    restore: Option<LoadOptions>,
    hooks: Hooks,
    /// Where the hooks run and log (`None` without hooks).
    hook_env: Option<HookEnv>,
    /// Per target, whether its pristine copy exists (made after the first run's restore).
    copied: Vec<bool>,
    /// Whether the fallback to the generator was said (once).
    said_fallback: bool,
    /// The command's standard error, for what the restores say (copies made, kept or left).
    said: ErrLines,
    workload: W,
}

impl<W: Stored> StudyCycle<W> {
    /// The cycle of `workload` that `study`'s flags ask for on `targets`: with `--restore`, every target restored at once,
    /// the cores shared among them (one connection and generating thread each), with a progress bar
    /// unless `quiet` or several bars would draw over one another; its hooks run in `--out`. What it
    /// says goes to `said`.
    pub fn new(workload: W, study: &StudyFlags, targets: &[Target], quiet: bool, said: ErrLines) -> Self {
        let restore = study.restore.then(|| LoadOptions {
            workers: (workers_or_cores(None) / targets.len().max(1)).max(1),
            replace: false,
            quiet: quiet || targets.len() > 1,
            resume: false,
            step: Default::default(),
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
            copied: vec![false; targets.len()],
            said_fallback: false,
            said,
            workload,
        }
    }

    async fn hook(&self, flag: &str, cmd: Option<&String>, run: u32) -> Result<(), Error> {
        match (cmd, &self.hook_env) {
            (Some(cmd), Some(env)) => run_hook(flag, cmd, run, self.hooks.timeout, env).await,
            _ => Ok(()),
        }
    }
}

impl<W: Stored> StudyCycle<W> {
    /// Puts every target back for run `run`: the first from the generator, each pristine copy made
    /// after it; later ones cloned from their copy, the generator where there is none or it declines.
    async fn restore(&mut self, run: u32, opts: &LoadOptions) -> Result<Restored, Error> {
        let started = Instant::now();
        let mut methods = Vec::new();
        let mut from_generator = Vec::new();
        for (i, target) in self.targets.iter().enumerate() {
            if run > 1 && self.copied[i] {
                match engine::pristine::put_back(target).await? {
                    Ok(()) => {
                        methods.push(FROM_THE_COPY);
                        continue;
                    }
                    Err(why) => say_once(&mut self.said_fallback, &self.said, target, &why),
                }
            }
            from_generator.push(target);
        }
        if !from_generator.is_empty() {
            try_join_all(from_generator.iter().map(|target| self.workload.restore(target, opts))).await?;
            methods.push(FROM_THE_GENERATOR);
        }
        if run == 1 {
            self.keep_copies().await?;
        }
        methods.dedup();
        Ok(Restored { method: methods.join(" and "), duration_s: started.elapsed().as_secs_f64() })
    }

    /// Makes each target's pristine copy where its engine offers one, saying its size (a second copy
    /// of the database on the server's disk), or once why the generator restores instead.
    async fn keep_copies(&mut self) -> Result<(), Error> {
        for (i, target) in self.targets.iter().enumerate() {
            if engine::pristine::unavailable(target).is_some() {
                continue;
            }
            let load = Conn::open(target).await?.read_meta(target, self.workload.name()).await?;
            let load = load.map_or_else(String::new, |row| row.params.to_string());
            match engine::pristine::keep(target, &load).await? {
                Ok(bytes) => {
                    self.copied[i] = true;
                    self.said.line(&format!(
                        "--restore: {}: a pristine copy ({:.0} MB more on the server's disk) is cloned back \
                         before the later runs, and dropped at the study's end",
                        target.key(),
                        bytes as f64 / 1e6
                    ));
                }
                Err(why) => say_once(&mut self.said_fallback, &self.said, target, &why),
            }
        }
        Ok(())
    }
}

/// Says once, to `said`, why a restore came from the generator rather than a clone.
fn say_once(said_it: &mut bool, said: &ErrLines, target: &Target, why: &str) {
    if !std::mem::replace(said_it, true) {
        said.line(&format!(
            "--restore: {}: restored from the generator rather than cloned: {why}",
            target.key()
        ));
    }
}

impl<W: Stored> Cycle for StudyCycle<W> {
    async fn before_run(&mut self, run: u32) -> Result<RunStart, Error> {
        let restored = match self.restore {
            Some(opts) => Some(self.restore(run, &opts).await?),
            None => None,
        };
        self.hook("--before-run", self.hooks.before_run.as_ref(), run).await?;
        let start_rows = restore::start_rows(&self.workload, &self.targets).await?;
        Ok(RunStart { restored, start_rows })
    }

    async fn after_run(&mut self, run: u32) -> Result<(), Error> {
        self.hook("--after-run", self.hooks.after_run.as_ref(), run).await
    }

    async fn finish(&mut self) {
        if self.restore.is_none() {
            return;
        }
        // Also a copy a cut-short first run was making (its name and its mark are oltpgen's).
        let cloned: Vec<&Target> =
            self.targets.iter().filter(|t| engine::pristine::unavailable(t).is_none()).collect();
        let dropped = join_all(cloned.iter().map(|t| engine::pristine::discard(t, &self.said))).await;
        for (target, dropped) in cloned.into_iter().zip(dropped) {
            if let Err(e) = dropped {
                self.said
                    .line(&format!("warning: --restore: {}: its pristine copy is left: {e}", target.key()));
            }
        }
    }
}
