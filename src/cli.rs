//! The command line: flags, their defaults and their `--help` lines.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use oltpgen_driver::Target;
use oltpgen_driver::local::Placement;

/// oltpgen: a load generator for OLTP database performance studies.
///
/// Without --url, oltpgen runs its own PostgreSQL from the binaries installed on this machine.
#[derive(Debug, Parser)]
#[command(name = "oltpgen", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Where the work happens.
    #[command(flatten)]
    pub db: DbArgs,
    /// No progress bars or live lines; only results and errors.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The database a command drives.
#[derive(Debug, Args)]
pub struct DbArgs {
    /// The database to drive, e.g. postgres://user:password@host:5432/tpcc [default: the built-in PostgreSQL]
    // Kept as text here and parsed by the driver: clap's own errors would echo the value, password and all.
    #[arg(long, global = true, env = "OLTPGEN_URL", hide_env_values = true)]
    pub url: Option<String>,
    /// The built-in PostgreSQL's directory [default: $OLTPGEN_DATA_DIR, else ~/.local/share/oltpgen/postgres]
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "url")]
    pub data_dir: Option<PathBuf>,
    /// Use a throwaway built-in PostgreSQL, removed when the command ends
    #[arg(long, global = true, conflicts_with_all = ["url", "data_dir"])]
    pub temp_db: bool,
}

impl DbArgs {
    /// The `--url` target, parsed.
    ///
    /// # Errors
    /// One line naming the URL's fault, without the URL.
    pub fn target(&self) -> Result<Option<Target>, oltpgen_driver::Error> {
        self.url.as_deref().map(str::parse).transpose()
    }

    /// Where the built-in PostgreSQL lives for this command.
    pub fn placement(&self) -> Placement {
        match (&self.data_dir, self.temp_db) {
            (_, true) => Placement::Temp,
            (Some(d), false) => Placement::Dir(d.clone()),
            (None, false) => Placement::Dir(oltpgen_driver::local::default_dir()),
        }
    }
}

/// oltpgen's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The TPC-C-style workload
    Tpcc(TpccCmd),
    /// The built-in PostgreSQL: see where it is, start, stop or remove it, print its URL
    Local {
        /// What to do with it.
        #[command(subcommand)]
        action: LocalAction,
    },
}

/// `oltpgen tpcc …`
#[derive(Debug, Args)]
pub struct TpccCmd {
    /// What to do.
    #[command(subcommand)]
    pub action: TpccAction,
}

/// The TPC-C commands.
#[derive(Debug, Subcommand)]
pub enum TpccAction {
    /// Create the tables and load them (binary COPY over several connections), then build keys and ANALYZE
    Load(LoadArgs),
    /// Check the 12 consistency conditions of TPC-C clause 3.3.2; exit 1 when one fails
    Check(WorkersArg),
    /// Drop the TPC-C tables
    Drop,
}

/// How big, and how fast, a load is.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Warehouses (about 100 MB each)
    #[arg(long, short, value_name = "WAREHOUSES", value_parser = parse_scale, default_value = "1")]
    pub scale: u32,
    /// The data's seed: the same seed and scale give the same rows on any machine
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Drop and reload a database that already holds TPC-C
    #[arg(long)]
    pub replace: bool,
    /// Write the rows as CSV files into DIR (one per table) instead of loading a database
    #[arg(long, value_name = "DIR", conflicts_with_all = ["url", "temp_db", "data_dir"])]
    pub csv: Option<PathBuf>,
    /// Connections and generator threads
    #[command(flatten)]
    pub workers: WorkersArg,
}

/// Parallelism of loads and checks.
#[derive(Debug, Args)]
pub struct WorkersArg {
    /// Connections working at once [default: the number of cores]
    #[arg(long = "load-workers", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: Option<u32>,
}

impl WorkersArg {
    /// The number asked for, or the machine's cores.
    pub fn get(&self) -> usize {
        self.workers
            .map(|n| n as usize)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
    }
}

/// `oltpgen local …`
#[derive(Debug, Subcommand)]
pub enum LocalAction {
    /// Where the built-in PostgreSQL lives, whether it runs, how big it is
    Status,
    /// Start it and leave it running (until `oltpgen local stop`)
    Start,
    /// Stop it if it runs
    Stop,
    /// Print its URL for psql and other tools (starts it and leaves it running)
    Url,
    /// Stop it and delete its directory, with every database in it
    Rm,
}

fn parse_scale(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("the scale is a number of warehouses, at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a number of warehouses (write e.g. --scale 10)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn scale_must_be_a_positive_number() {
        assert!(parse_scale("0").unwrap_err().contains("at least 1"));
        assert!(parse_scale("ten").unwrap_err().contains("not a number"));
        assert_eq!(parse_scale("10"), Ok(10));
    }
}
