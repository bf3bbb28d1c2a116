//! `oltpgen custom --file FILE …`: the flags of a workload a user defined in a file.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use oltpgen_driver::Error;
use oltpgen_driver::command::custom::CustomRun;
use oltpgen_driver::command::script::ScriptRun;
use oltpgen_driver::command::values::parse_duration;
use oltpgen_driver::defined::Defined;
use oltpgen_driver::script::Scripts;
use oltpgen_report::model::users::UserLoad;
use oltpgen_report::stats::cap::{Cap, DEFAULT_CAP};

use super::{CheckArgs, Common, DbStudyArgs, LoadCommon, PaceArgs, url_help};

/// `oltpgen custom …`: without a subcommand, load when the database is empty, then run.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, mut_arg("url", |a| a.help(url_help("DBNAME"))))]
pub struct CustomCmd {
    /// Where the work happens, and how much it says.
    #[command(flatten)]
    pub common: Common,
    /// The workload's definition, a TOML file: its name, its tables (columns, rows per unit of scale,
    /// how each column is generated), its weighted transactions (SQL with $1.. parameters drawn as
    /// given) and its checks; see the README
    #[arg(long, global = true, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub action: Option<CustomAction>,
    /// The scale to load when the database is empty (each table's rows times it), and to expect when
    /// it is not [default: 1, or what is loaded]
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub scale: Option<u64>,
    /// How to run.
    #[command(flatten)]
    pub run: CustomRunArgs,
}

/// The commands of a defined workload.
#[derive(Debug, Subcommand)]
pub enum CustomAction {
    /// Create the workload's tables and load their generated rows, then build keys and ANALYZE
    Load(CustomLoadArgs),
    /// Drive the loaded database with virtual users drawing the workload's transactions by weight (or
    /// pgbench's scripts: --pgbench-script, --pgbench-builtin)
    Run(Box<CustomRunCmd>),
    /// Run the workload's own checks (each a query of the rows that break it); exit 1 when one fails
    Check(CheckArgs),
    /// Drop the tables the workload's load made, as its load record names them (the file may have
    /// changed since: --file gives the workload's name; without it, --name or the one file workload
    /// the database holds)
    Drop(CustomDropArgs),
}

/// Which loaded workload `custom drop` drops, when `--file` does not say.
#[derive(Debug, Args)]
pub struct CustomDropArgs {
    /// The loaded workload's name (its file's `name`), when no --file is given: its load record keeps
    /// its definition [default: the one file workload the database holds]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// How big, and how fast, a load of a defined workload is.
#[derive(Debug, Args)]
pub struct CustomLoadArgs {
    /// The scale: each table's rows times it
    #[arg(long, short, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u64).range(1..))]
    pub scale: u64,
    /// Seed, replacement, CSV and parallelism.
    #[command(flatten)]
    pub load: LoadCommon,
}

/// `custom run`: the run's flags and the scale it expects (for pgbench's scripts: `:scale`).
#[derive(Debug, Args)]
pub struct CustomRunCmd {
    /// The run.
    #[command(flatten)]
    pub run: CustomRunArgs,
    /// The scale the database holds (checked), or for pgbench's scripts the value of :scale [default:
    /// 1, or pgbench_branches' rows for a built-in script]
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub scale: Option<u64>,
}

/// pgbench's scripts in place of a defined workload (`custom run --pgbench-script FILE`).
#[derive(Debug, Args)]
pub struct PgbenchArgs {
    /// A pgbench script (SQL and \set, \sleep, \gset, \aset, \if as pgbench 15 reads them), with
    /// its weight after @ (default 1); repeatable. Runs on PostgreSQL, its queries prepared
    #[arg(long = "pgbench-script", value_name = "FILE[@WEIGHT]")]
    pub scripts: Vec<String>,
    /// One of pgbench 15's built-in scripts (tpcb-like, simple-update, select-only), with its weight
    /// after @; repeatable
    #[arg(long = "pgbench-builtin", value_name = "NAME[@WEIGHT]")]
    pub builtins: Vec<String>,
    /// A variable every client starts with, as pgbench's -D; repeatable
    #[arg(long = "define", short = 'D', value_name = "NAME=VALUE")]
    pub defines: Vec<String>,
    /// Tries of a script that meets a serialization failure or deadlock (pgbench's --max-tries; its
    /// default 1: no retry)
    #[arg(long, value_name = "N", default_value_t = oltpgen_driver::script::DEFAULT_MAX_TRIES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tries: u32,
}

impl PgbenchArgs {
    /// Whether a script was named (the run is pgbench's, not a defined workload's).
    pub fn given(&self) -> bool {
        !self.scripts.is_empty() || !self.builtins.is_empty()
    }
}

/// Users, pacing and the study of a run of a defined workload.
#[derive(Debug, Args)]
pub struct CustomRunArgs {
    /// Virtual users per database: a number, a list (8,16,32) or a range (8..64:8), one step each; users
    /// carry over from step to step
    #[arg(long, short, value_name = "N|LIST|A..B:STEP", default_value = "1")]
    pub users: UserLoad,
    /// Connections, ramp, warmup, duration and the live line's period.
    #[command(flatten)]
    pub pace: PaceArgs,
    /// Mean think time after each transaction (negative exponential), e.g. 100ms; 0 for none
    #[arg(long, value_name = "MEAN", default_value = "0", value_parser = parse_duration)]
    pub think_time: Duration,
    /// The response-time cap each step is judged by: rules joined by commas, e.g. avg=1s, p95=50ms, or
    /// NAME.p90=5s for the definition's transaction NAME
    #[arg(long, value_name = "RULES", default_value = DEFAULT_CAP)]
    pub rt_cap: Cap,
    /// The cap, repetitions, cost, power and where the result goes.
    #[command(flatten)]
    pub study: DbStudyArgs,
    /// pgbench's scripts, in place of --file.
    #[command(flatten)]
    pub pgbench: PgbenchArgs,
}

impl CustomCmd {
    /// The workload `--file` defines, read and checked before anything starts.
    ///
    /// # Errors
    /// [`Error::Usage`] when `--file` is missing, unreadable or not a valid definition.
    pub fn workload(&self) -> Result<Defined, Error> {
        let path = self.file.as_deref().ok_or_else(|| {
            Error::usage("oltpgen custom needs the workload's definition: give --file FILE (a TOML file)")
        })?;
        Defined::read(path)
    }
}

impl CustomRunArgs {
    /// The run these flags ask for, of `workload` (`scale` and `load_if_empty` from bare `custom`).
    pub fn request(
        &self,
        workload: Defined,
        scale: Option<u64>,
        load_if_empty: bool,
        quiet: bool,
    ) -> CustomRun {
        CustomRun {
            workload,
            load_if_empty,
            scale,
            users: self.users.clone(),
            connections: self.pace.connections,
            pace: self.pace.pace(),
            think_mean: self.think_time,
            seed: self.study.seed,
            study: self.study.flags(self.rt_cap.clone()),
            quiet,
        }
    }

    /// The run of pgbench's scripts these flags ask for, `:scale` from `scale` (`--scale`).
    ///
    /// # Errors
    /// [`Error::Usage`] for a script that cannot be read or is refused (naming its file and line).
    pub fn script_request(&self, scale: Option<u64>, quiet: bool) -> Result<ScriptRun, Error> {
        let p = &self.pgbench;
        Ok(ScriptRun {
            scripts: Scripts::read(&p.scripts, &p.builtins, &p.defines)?,
            scale,
            max_tries: p.max_tries,
            users: self.users.clone(),
            connections: self.pace.connections,
            pace: self.pace.pace(),
            seed: self.study.seed,
            study: self.study.flags(self.rt_cap.clone()),
            quiet,
        })
    }
}
