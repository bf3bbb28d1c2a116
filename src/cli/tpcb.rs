//! `oltpgen tpcb load|run|check|drop`: pgbench's TPC-B database and its `tpcb-like` script.

use clap::{Args, Subcommand};

use super::custom::{CustomLoadArgs, CustomRunArgs};
use super::{CheckArgs, Common, url_help};

/// `oltpgen tpcb …`
#[derive(Debug, Args)]
#[command(mut_arg("url", |a| a.help(url_help("DBNAME"))))]
pub struct TpcbCmd {
    /// Where the work happens, and how much it says.
    #[command(flatten)]
    pub common: Common,
    /// What to do.
    #[command(subcommand)]
    pub action: TpcbAction,
}

/// The TPC-B commands.
#[derive(Debug, Subcommand)]
pub enum TpcbAction {
    /// Create pgbench's tables and load the rows `pgbench -i --scale N` makes (binary COPY), then keys
    Load(CustomLoadArgs),
    /// Drive the database (`pgbench -i`'s or `tpcb load`'s) with pgbench's tpcb-like script (or the
    /// scripts --pgbench-builtin/--pgbench-script name)
    Run(Box<TpcbRunCmd>),
    /// Check TPC-B's invariant: the sums of the accounts', tellers', branches' balances and of the history's
    /// deltas are equal; exit 1 when not
    Check(CheckArgs),
    /// Drop pgbench's tables
    Drop,
}

/// `tpcb run`: the run's flags.
#[derive(Debug, Args)]
pub struct TpcbRunCmd {
    /// The run.
    #[command(flatten)]
    pub run: CustomRunArgs,
}
