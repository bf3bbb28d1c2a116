//! `oltpgen ycsb load|run|check|drop --workload a..f --records N`: YCSB's core workloads, shipped in
//! the binary as a workload file and run as a defined workload is (every flag of `custom run`).

use clap::{Args, Subcommand};
use oltpgen_driver::Error;
use oltpgen_driver::defined::Defined;

use super::custom::CustomRunArgs;
use super::{CheckArgs, Common, LoadCommon, url_help};

/// `oltpgen ycsb …`.
#[derive(Debug, Args)]
#[command(mut_arg("url", |a| a.help(url_help("DBNAME"))))]
pub struct YcsbCmd {
    /// Where the work happens, and how much it says.
    #[command(flatten)]
    pub common: Common,
    /// YCSB's core workload: a (50% read, 50% update), b (95/5 read/update), c (read only), d (95%
    /// read of the latest, 5% insert), e (95% short scans, 5% insert), f (50% read, 50%
    /// read-modify-write)
    #[arg(long, global = true, value_name = "a..f", default_value = "a")]
    pub workload: char,
    /// The records usertable holds: what load writes, and what run expects [default: 1000 for load,
    /// what is loaded for run]
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub records: Option<u64>,
    /// What to do.
    #[command(subcommand)]
    pub action: YcsbAction,
}

/// The commands of YCSB.
#[derive(Debug, Subcommand)]
pub enum YcsbAction {
    /// Create usertable and load its records, then build its key and ANALYZE
    Load(YcsbLoadArgs),
    /// Drive the loaded usertable with the workload's operations in its proportions
    Run(Box<CustomRunArgs>),
    /// Run the workload's check (every key is YCSB's); exit 1 when it fails
    Check(CheckArgs),
    /// Drop usertable
    Drop,
}

/// How a YCSB load runs.
#[derive(Debug, Args)]
pub struct YcsbLoadArgs {
    /// Seed, replacement, CSV and parallelism.
    #[command(flatten)]
    pub load: LoadCommon,
}

/// The records a load writes when `--records` is not given: YCSB's own `recordcount` default.
pub const DEFAULT_RECORDS: u64 = 1000;

impl YcsbCmd {
    /// The core workload `--workload` names.
    ///
    /// # Errors
    /// [`Error::Usage`] for a letter that is not a to f.
    pub fn workload(&self) -> Result<Defined, Error> {
        Defined::ycsb(self.workload)
    }
}
