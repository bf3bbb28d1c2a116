//! The command line: flags, their defaults and their `--help` lines.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use oltpgen_datagen::ds2::size::DbSize;
use oltpgen_datagen::tpcc::mix::{KeyingTime, ThinkTime};
use oltpgen_datagen::tpcc::rows::MAX_WAREHOUSES;
use oltpgen_driver::Target;
use oltpgen_driver::local::Placement;
use oltpgen_driver::run::StudyFlags;
use oltpgen_driver::vocab::tpcc::Transactions;
use oltpgen_report::cap::Cap;
use oltpgen_report::users::UserLoad;

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
    /// The database to drive, e.g. postgres://user@host:5432/tpcc, sqlserver://user@host:1433/tpcc or an
    /// ADO.NET string [env: OLTPGEN_URL; default: the built-in PostgreSQL]; ds2 takes it several times to
    /// drive several databases side by side. The password comes from PGPASSWORD or ~/.pgpass as for psql,
    /// SQLCMDPASSWORD as for sqlcmd (a password in --url shows in `ps`)
    // Kept as text here and parsed by the driver: clap's own errors would echo the value, password and all.
    // OLTPGEN_URL is read in `urls`, not by clap, so that --data-dir and --temp-db win over it.
    #[arg(long, global = true, value_name = "URL")]
    pub url: Vec<String>,
    /// The built-in PostgreSQL's directory [default: $OLTPGEN_DATA_DIR, else ~/.local/share/oltpgen/postgres]
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "url")]
    pub data_dir: Option<PathBuf>,
    /// Use a throwaway built-in PostgreSQL, removed when the command ends
    #[arg(long, global = true, conflicts_with_all = ["url", "data_dir"])]
    pub temp_db: bool,
}

impl DbArgs {
    /// The `--url` target, parsed, for commands that work on one database.
    ///
    /// # Errors
    /// One line naming the URL's fault, without the URL; a usage error for several URLs.
    pub fn target(&self) -> Result<Option<Target>, oltpgen_driver::Error> {
        // Counted before `targets`' checks, whose words are ds2's (a URL named twice).
        match self.parsed()?.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one.clone())),
            _ => Err(oltpgen_driver::Error::usage(
                "this command works on one database: give one --url (ds2 drives several side by side)",
            )),
        }
    }

    /// Every `--url` target, parsed, in the order given.
    ///
    /// # Errors
    /// One line naming the URL's fault, without the URL; a usage error when one database is named twice.
    pub fn targets(&self) -> Result<Vec<Target>, oltpgen_driver::Error> {
        let targets = self.parsed()?;
        oltpgen_driver::run::plan::check_targets(&targets)?;
        Ok(targets)
    }

    /// `OLTPGEN_URL`, else every `--url`, parsed.
    fn parsed(&self) -> Result<Vec<Target>, oltpgen_driver::Error> {
        match self.env_url() {
            Some(url) => Ok(vec![url.parse()?]),
            None => self.url.iter().map(|u| u.parse()).collect(),
        }
    }

    /// `OLTPGEN_URL`, when it names the database: it is set and not empty, and neither `--url`,
    /// `--data-dir` nor `--temp-db` was given (explicit flags win over the environment).
    pub fn env_url(&self) -> Option<String> {
        if !self.url.is_empty() || self.data_dir.is_some() || self.temp_db {
            return None;
        }
        std::env::var(URL_VAR).ok().filter(|u| !u.trim().is_empty())
    }

    /// Refuses a built-in PostgreSQL that cannot hold a loaded database for `oltpgen WORKLOAD COMMAND`
    /// (run, check): `--temp-db`, whose throwaway instance starts empty, and a `--data-dir` (or the
    /// default one) where no instance was ever made. Either would create a server only to say "load it
    /// first", and the second would leave it behind.
    ///
    /// # Errors
    /// A usage error saying how to load first (or, for `--temp-db`, pointing at the bare command,
    /// which loads and runs in one).
    pub fn refuse_empty_instance(&self, workload: &str, command: &str) -> Result<(), oltpgen_driver::Error> {
        if self.temp_db {
            return Err(oltpgen_driver::Error::usage(format!(
                "--temp-db starts an empty database, which `{workload} {command}` has nothing to work on: \
                 `oltpgen {workload} --temp-db …` loads and runs in one command (or load into a lasting \
                 --data-dir or --url first)"
            )));
        }
        match self.placement() {
            // A directory holding someone's files is refused later, in its own words.
            Placement::Dir(root)
                if self.url.is_empty()
                    && self.env_url().is_none()
                    && !oltpgen_driver::local::instance::is_instance(&root)
                    && std::fs::read_dir(&root).map_or(true, |mut entries| entries.next().is_none()) =>
            {
                let dir = self
                    .data_dir
                    .as_ref()
                    .map_or_else(String::new, |d| format!(" --data-dir {}", d.display()));
                Err(oltpgen_driver::Error::usage(format!(
                    "there is no built-in PostgreSQL in {} yet, so `{workload} {command}` has nothing to work on: \
                     load it first (oltpgen {workload} load{dir}), or pass --url",
                    root.display()
                )))
            }
            _ => Ok(()),
        }
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

/// The environment variable that stands for `--url`.
pub const URL_VAR: &str = "OLTPGEN_URL";

/// `err` about a URL that came from [`URL_VAR`]: it names the variable where it named `--url`.
pub fn name_env_url(err: oltpgen_driver::Error) -> oltpgen_driver::Error {
    use oltpgen_driver::Error;
    let rename = |m: String| m.replace("--url", URL_VAR);
    match err {
        Error::Usage(m) => Error::Usage(rename(m)),
        Error::Environment(m) => Error::Environment(rename(m)),
        Error::Failed(m) => Error::Failed(rename(m)),
        Error::Interrupted(m) => Error::Interrupted(m),
    }
}

/// oltpgen's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The TPC-C-style workload
    Tpcc(Box<TpccCmd>),
    /// DVD Store 2: orders per minute from customers who log in, browse and buy
    Ds2(Box<Ds2Cmd>),
    /// Read results: show one, compare two, merge several (no database needed)
    Report {
        /// What to do.
        #[command(subcommand)]
        action: ReportAction,
    },
    /// The built-in PostgreSQL: see where it is, start, stop or remove it, print its URL
    Local {
        /// What to do with it.
        #[command(subcommand)]
        action: LocalAction,
    },
}

/// `oltpgen tpcc …`: without a subcommand, load when the database is empty, then run.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TpccCmd {
    /// What to do.
    #[command(subcommand)]
    pub action: Option<TpccAction>,
    /// Warehouses to load when the database is empty, and to expect when it is not [default: 1, or what is loaded]
    #[arg(long, short, value_name = "WAREHOUSES", value_parser = parse_scale)]
    pub scale: Option<u32>,
    /// How to run.
    #[command(flatten)]
    pub run: RunArgs,
}

/// The TPC-C commands.
#[derive(Debug, Subcommand)]
pub enum TpccAction {
    /// Create the tables and load them (binary COPY over several connections), then build keys and ANALYZE
    Load(LoadArgs),
    /// Drive the loaded database with virtual users and write the result
    Run(Box<RunArgs>),
    /// Check the 12 consistency conditions of TPC-C clause 3.3.2; exit 1 when one fails
    Check(WorkersArg),
    /// Drop the TPC-C tables
    Drop,
}

/// Users, connections, timing and pacing of a TPC-C run.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Virtual users: a number, a list (4000,8000,14000) or a range (1000..14000:1000), one step each;
    /// users carry over from step to step [default: 10 per warehouse, as the spec has it]
    #[arg(long, short, value_name = "N|LIST|A..B:STEP")]
    pub users: Option<UserLoad>,
    /// Connections shared by the users [default: one per user]; waits for one count in response times
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub connections: Option<u32>,
    /// Users started per second
    #[arg(long, value_name = "USERS_PER_S", default_value = "100", value_parser = parse_rate)]
    pub ramp_rate: f64,
    /// Start all users evenly over this time instead of --ramp-rate (e.g. 1m)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "ramp_rate")]
    pub ramp_up: Option<Duration>,
    /// Unmeasured time after the last user started
    // --window measures its own part of each step and replaces it (run/schedule.rs).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration,
          conflicts_with = "window")]
    pub warmup: Duration,
    /// The measured time
    #[arg(long, short, value_name = "DURATION", default_value = "1m", value_parser = parse_positive_duration,
          conflicts_with = "window")]
    pub duration: Duration,
    /// Think time after each transaction: spec (negative exponential, the spec's means), 0, or a mean (e.g. 2s)
    #[arg(long, value_name = "spec|0|MEAN", default_value = "spec", value_parser = parse_think)]
    pub think_time: ThinkTime,
    /// Keying time before each transaction: spec (the spec's fixed times), 0, or a fixed time
    #[arg(long, value_name = "spec|0|TIME", default_value = "spec", value_parser = parse_keying)]
    pub keying_time: KeyingTime,
    /// Period of the live line and of the result's time series
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_report_interval)]
    pub report_interval: Duration,
    /// Where each transaction runs, on PostgreSQL and SQL Server: server (one call of a function or
    /// stored procedure created at load, what HammerDB calls "stored procedures") or client (the client
    /// sends its statements; needs no right to create procedures) [default: server]
    #[arg(long, value_name = "server|client", value_parser = parse_transactions)]
    pub transactions: Option<Transactions>,
    /// The cap, repetitions, cost, power and where the result goes.
    #[command(flatten)]
    pub study: StudyArgs,
}

/// What every workload's run is judged by and records: the cap, repetitions, cost, power, the window,
/// the result's directory and the run's seed.
#[derive(Debug, Args)]
pub struct StudyArgs {
    /// Repeat every step this many times; the headline comes from the median run
    #[arg(long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub runs: u32,
    /// The response-time cap each step is judged by: avg=1s, p90=5s, new_order.p90=5s, p90=tpcc,
    /// order.avg=1s, joined by commas [default: avg=1s; ds2: order.avg=1s, a whole order's mean]
    #[arg(long, value_name = "RULES")]
    pub rt_cap: Option<Cap>,
    /// End a sweep after this many steps in a row broke the cap
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub stop_after_breach: Option<u32>,
    /// What the system under test cost, in USD: the result gives cost per TPS and per NOPM/OPM
    #[arg(long, value_name = "USD", value_parser = parse_cost)]
    pub system_cost: Option<f64>,
    /// An external power meter's log (CSV: timestamp,watts) for throughput per watt [default: the host's
    /// RAPL energy counters, where it has them]
    #[arg(long, value_name = "FILE")]
    pub power_log: Option<PathBuf>,
    /// Sit idle this long before the run and average the meter's idle power over it
    #[arg(long, value_name = "DURATION", value_parser = parse_positive_duration)]
    pub idle_sample: Option<Duration>,
    /// Measure only this part of each step, from the step's start (e.g. 1000s..1200s), instead of
    /// warming up and measuring for a time
    #[arg(long, value_name = "A..B", value_parser = parse_window)]
    pub window: Option<(Duration, Duration)>,
    /// Where to write result.json, summary.txt, timeseries.csv and report.html [default:
    /// results/TIME-WORKLOAD, TIME in UTC]
    #[arg(long, short, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write over the result already in --out (without it, such an --out is refused)
    #[arg(long)]
    pub replace: bool,
    /// The run's seed [default: derived from the load's seed and the run's number]
    #[arg(long = "run-seed", value_name = "N")]
    pub seed: Option<u64>,
    /// Client threads the users are spread over, each running its share of them and their connections
    /// [default: the number of cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub client_threads: Option<u32>,
    /// Scrape a database host's Prometheus node_exporter every interval for its CPU, disks and network,
    /// e.g. http://db1:9100/metrics (repeatable: one per server)
    #[arg(long = "node-exporter", value_name = "URL")]
    pub node_exporter: Vec<String>,
    /// Serve the live figures for Prometheus at http://ADDR/metrics while the run goes on, e.g.
    /// 127.0.0.1:9187
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Sample no host or database counters [default: this machine's CPU, memory, network and disks,
    /// and each database's own statistics, every report interval]
    #[arg(long, conflicts_with = "node_exporter")]
    pub no_counters: bool,
}

impl StudyArgs {
    /// The study's flags as the driver's plan takes them.
    pub fn flags(&self) -> StudyFlags {
        StudyFlags {
            runs: self.runs,
            rt_cap: self.rt_cap.clone(),
            stop_after_breach: self.stop_after_breach,
            system_cost_usd: self.system_cost,
            power_log: self.power_log.clone(),
            idle_sample: self.idle_sample,
            window: self.window,
            out: self.out.clone(),
            replace: self.replace,
            client_threads: self.client_threads,
            no_counters: self.no_counters,
            node_exporters: self.node_exporter.clone(),
            metrics_listen: self.metrics_listen,
        }
    }
}

/// How big, and how fast, a TPC-C load is.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Warehouses (about 100 MB each)
    #[arg(long, short, value_name = "WAREHOUSES", value_parser = parse_scale, default_value = "1")]
    pub scale: u32,
    /// Seed, replacement, CSV and parallelism.
    #[command(flatten)]
    pub load: LoadCommon,
}

/// What every workload's load takes besides its size.
#[derive(Debug, Args)]
pub struct LoadCommon {
    /// The data's seed: the same seed and size give the same rows on any machine
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Drop and reload a database that already holds the workload
    #[arg(long)]
    pub replace: bool,
    /// Write the rows as CSV files into DIR (one per table) instead of loading a database
    #[arg(long, value_name = "DIR", conflicts_with_all = ["url", "temp_db", "data_dir"])]
    pub csv: Option<PathBuf>,
    /// Connections and generator threads
    #[command(flatten)]
    pub workers: WorkersArg,
}

/// `oltpgen ds2 …`: without a subcommand, load when the database is empty, then run. The flags are
/// DS2 driver's, with its defaults and meanings.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Ds2Cmd {
    /// What to do.
    #[command(subcommand)]
    pub action: Option<Ds2Action>,
    /// How to run.
    #[command(flatten)]
    pub run: Ds2RunArgs,
}

/// The DS2 commands.
#[derive(Debug, Subcommand)]
pub enum Ds2Action {
    /// Create the tables and load them (binary COPY over several connections), then build keys,
    /// full-text indexes, the reorder trigger and the five operations, and ANALYZE
    Load(Ds2LoadArgs),
    /// Drive the loaded database(s) with DS2's customers and write the result
    Run(Box<Ds2RunArgs>),
    /// Check DS2's integrity (order lines, customer history, inventory, order totals); exit 1 on a failure
    Check(WorkersArg),
    /// Drop the DS2 tables
    Drop,
}

/// How big, and how fast, a DS2 load is.
#[derive(Debug, Args)]
pub struct Ds2LoadArgs {
    /// S (10 MB), M (1 GB), L (100 GB) or any size such as 500MB, 10GB, 40GB: rows scale as DS2's do
    #[arg(long, value_name = "SIZE", default_value = "S")]
    pub db_size: DbSize,
    /// Seed, replacement, CSV and parallelism.
    #[command(flatten)]
    pub load: LoadCommon,
}

/// DS2 driver's flags (ds2xdriver), with its defaults and meanings, and the study's.
#[derive(Debug, Args)]
pub struct Ds2RunArgs {
    /// Users per database, each with its own connection: a number, a list (8,16,32) or a range
    /// (8..64:8) for a sweep, users carrying over from step to step
    #[arg(long, value_name = "N|LIST|A..B:STEP", default_value = "1")]
    pub n_threads: UserLoad,
    /// Connections per database shared by its users [default: one per user, as DS2 has it]; waits for
    /// one count in response times
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub connections: Option<u32>,
    /// Users started per second
    #[arg(long, value_name = "USERS_PER_S", default_value = "10", value_parser = parse_rate)]
    pub ramp_rate: f64,
    /// Measured time per step: minutes as in DS2 (30), or a duration (90s); 0 runs until Ctrl-C
    // --window measures its own part of each step and replaces it and --warmup-time (run/schedule.rs).
    #[arg(long, value_name = "MINUTES", default_value = "0", value_parser = parse_minutes,
          conflicts_with = "window")]
    pub run_time: Duration,
    /// Time before statistics start, after the users started: minutes (1) or a duration (30s)
    #[arg(long, value_name = "MINUTES", default_value = "1", value_parser = parse_minutes,
          conflicts_with = "window")]
    pub warmup_time: Duration,
    /// Mean think time between a user's orders: seconds (0.5) or a duration (500ms); uniform in [0, 2 × mean)
    #[arg(long, value_name = "SECONDS", default_value = "0", value_parser = parse_seconds)]
    pub think_time: Duration,
    /// Percent of orders that come from new customers (who register first)
    #[arg(long, value_name = "PCT", default_value = "20", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub pct_newcustomers: u32,
    /// Mean browses per order (uniform in 1..2n-1)
    #[arg(long, value_name = "N", default_value = "3", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub n_searches: u32,
    /// Mean products each browse returns at most (uniform in 1..2n-1)
    #[arg(long, value_name = "N", default_value = "5", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub search_batch_size: u32,
    /// Mean items per purchase (uniform in 1..2n-1, then at most 10, as DS2 caps a cart)
    #[arg(long, value_name = "N", default_value = "5", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub n_line_items: u32,
    /// The size every database must hold (S, M, L, 10GB, …); bare `ds2` loads an empty database at it
    /// [default: what is loaded, S for an empty database]
    #[arg(long, value_name = "SIZE")]
    pub db_size: Option<DbSize>,
    /// Seconds between progress lines (and the time series' resolution)
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_report_rate)]
    pub report_rate: Duration,
    /// Also write every progress interval as a CSV row to FILE (per database with several), as it happens
    #[arg(long, value_name = "FILE")]
    pub csv_output: Option<PathBuf>,
    /// Per-operation counts and response times at the end, and per database in progress lines
    #[arg(long)]
    pub detailed_view: bool,
    /// The cap, repetitions, cost, power and where the result goes.
    #[command(flatten)]
    pub study: StudyArgs,
}

/// Parallelism of loads and checks.
#[derive(Debug, Default, Args)]
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

/// `oltpgen report …`
#[derive(Debug, Subcommand)]
pub enum ReportAction {
    /// The step table and the headline of a result
    Show {
        /// A result.json (or the directory holding it)
        result: PathBuf,
    },
    /// Per step and for the headlines, B against A: ratios, changes in percent and, with --runs, whether
    /// the change is more than the runs' noise (Welch's t-test)
    Compare {
        /// The baseline result.json (or its directory)
        a: PathBuf,
        /// The result.json to compare with it (or its directory)
        b: PathBuf,
        /// Exit 1 when B's headline (NOPM, OPM) is below A's by more than PCT percent: a CI gate
        #[arg(long, value_name = "PCT", value_parser = parse_percent)]
        fail_if_slower: Option<f64>,
        /// Print the comparison as JSON, for machines
        #[arg(long)]
        json: bool,
    },
    /// One self-contained report.html with charts (written beside the result unless --out says where);
    /// several results make one comparison page (--out required)
    Html {
        /// A result.json (or the directory holding it); several for a comparison page, the first the baseline
        #[arg(required = true, num_args = 1..)]
        results: Vec<PathBuf>,
        /// The HTML file to write, or a directory to write report.html into
        #[arg(long, short, value_name = "FILE|DIR")]
        out: Option<PathBuf>,
    },
    /// Several results of the same plan (several machines or targets) merged exactly, histograms and all
    Merge {
        /// The result.json files (or their directories)
        #[arg(required = true, num_args = 2..)]
        results: Vec<PathBuf>,
        /// Where to write the merged result
        #[arg(long, short, value_name = "DIR")]
        out: PathBuf,
        /// Write over the result already in --out (without it, such an --out is refused)
        #[arg(long)]
        replace: bool,
    },
}

/// A percentage for `--fail-if-slower`: a finite number from 0 to 100.
fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a percentage from 0 to 100")),
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

/// Warehouses, from 1 to [`MAX_WAREHOUSES`] (what a client can list the chunks of; 125 TB of data).
fn parse_scale(s: &str) -> Result<u32, String> {
    let too_many = || format!("at most {MAX_WAREHOUSES} warehouses (about 125 TB) are generated, not {s}");
    match s.trim().parse::<u64>() {
        Ok(0) => Err("the scale is a number of warehouses, at least 1".into()),
        Ok(n) => u32::try_from(n).ok().filter(|&n| n <= MAX_WAREHOUSES).ok_or_else(too_many),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(too_many()),
        Err(_) => Err(format!("'{s}' is not a number of warehouses (write e.g. --scale 10)")),
    }
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    if s.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("'{s}' is not a duration ({e}); write e.g. 90s, 3m, 1h"))
}

/// A number in `unit_s` seconds (DS2 counts run and warmup times in minutes, think time in seconds), or
/// a duration with its unit.
fn parse_in_units(s: &str, unit_s: f64, unit: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(Duration::from_secs_f64(n * unit_s)),
        Ok(_) => Err(format!("'{s}' is not a number of {unit}")),
        Err(_) => parse_duration(s),
    }
}

fn parse_minutes(s: &str) -> Result<Duration, String> {
    parse_in_units(s, 60.0, "minutes")
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    parse_in_units(s, 1.0, "seconds")
}

/// The shortest report interval: each one merges every user's histograms, samples the host's and each
/// database's counters (a query per database) and writes a time-series row and a live line, so a 1 ns
/// interval spun the collector and buried the run under its own bookkeeping; 100 ms is already ten rows
/// and ten counter samples a second.
const MIN_REPORT_INTERVAL: Duration = Duration::from_millis(100);

/// `d` as a report interval: at least [`MIN_REPORT_INTERVAL`].
fn report_interval(d: Duration) -> Result<Duration, String> {
    if d < MIN_REPORT_INTERVAL {
        return Err(format!(
            "must be at least {} (each interval merges the histograms and samples the counters)",
            humantime::format_duration(MIN_REPORT_INTERVAL)
        ));
    }
    Ok(d)
}

/// tpcc's `--report-interval`: a duration.
fn parse_report_interval(s: &str) -> Result<Duration, String> {
    report_interval(parse_duration(s)?)
}

/// ds2's `--report-rate`: seconds, as DS2 has it, or a duration.
fn parse_report_rate(s: &str) -> Result<Duration, String> {
    report_interval(parse_seconds(s)?)
}

fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err("must be longer than 0".into()),
        d => Ok(d),
    }
}

fn parse_window(s: &str) -> Result<(Duration, Duration), String> {
    let (a, b) =
        s.split_once("..").ok_or_else(|| format!("'{s}' is not a window: write it as 1000s..1200s"))?;
    let (a, b) = (parse_duration(a)?, parse_duration(b)?);
    if a >= b {
        return Err(format!("the window {s} ends before it starts"));
    }
    Ok((a, b))
}

fn parse_cost(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').replace(',', "").parse::<f64>() {
        Ok(c) if c.is_finite() && c > 0.0 => Ok(c),
        _ => Err(format!("'{s}' is not a cost in USD (write e.g. 250000)")),
    }
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("'{s}' is not a positive number of users per second")),
    }
}

fn parse_think(s: &str) -> Result<ThinkTime, String> {
    match s.trim() {
        "spec" => Ok(ThinkTime::Spec),
        "off" => Ok(ThinkTime::Off),
        other => parse_duration(other).map(|d| if d.is_zero() { ThinkTime::Off } else { ThinkTime::Mean(d) }),
    }
}

fn parse_transactions(s: &str) -> Result<Transactions, String> {
    match s {
        "server" => Ok(Transactions::Server),
        "client" => Ok(Transactions::Client),
        _ => Err(format!("'{s}' is neither server nor client")),
    }
}

fn parse_keying(s: &str) -> Result<KeyingTime, String> {
    match s.trim() {
        "spec" => Ok(KeyingTime::Spec),
        "off" => Ok(KeyingTime::Off),
        other => {
            parse_duration(other).map(|d| if d.is_zero() { KeyingTime::Off } else { KeyingTime::Fixed(d) })
        }
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
        assert_eq!(parse_scale("1000000"), Ok(MAX_WAREHOUSES));
        for huge in ["1000001", "2147483648", "100000000", "99999999999999999999999"] {
            assert!(parse_scale(huge).unwrap_err().contains("at most 1000000 warehouses"), "{huge}");
        }
    }

    #[test]
    fn pacing_and_durations_read_like_people_write_them() {
        assert_eq!(parse_think("0"), Ok(ThinkTime::Off));
        assert_eq!(parse_think("spec"), Ok(ThinkTime::Spec));
        assert_eq!(parse_think("2s"), Ok(ThinkTime::Mean(Duration::from_secs(2))));
        assert_eq!(parse_keying("0"), Ok(KeyingTime::Off));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("soon").unwrap_err().contains("not a duration"));
        assert!(parse_positive_duration("0").is_err());
        assert!(parse_rate("0").is_err());
        assert_eq!(parse_report_interval("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_report_rate("0.5"), Ok(Duration::from_millis(500)));
        for tiny in ["0", "1ns", "99ms"] {
            assert!(parse_report_interval(tiny).unwrap_err().contains("must be at least 100ms"), "{tiny}");
        }
        assert!(parse_report_rate("0.01").unwrap_err().contains("must be at least 100ms"));
        assert_eq!(parse_window("10s..1m"), Ok((Duration::from_secs(10), Duration::from_secs(60))));
        assert!(parse_window("1m..10s").unwrap_err().contains("ends before it starts"));
    }

    #[test]
    fn bare_tpcc_takes_run_flags_and_subcommands_take_their_own() {
        let cli =
            Cli::try_parse_from(["oltpgen", "tpcc", "--scale", "10", "--users", "32", "--think-time", "0"])
                .unwrap();
        let Command::Tpcc(t) = cli.command else { panic!("tpcc") };
        assert!(t.action.is_none());
        assert_eq!(t.scale, Some(10));
        assert_eq!(t.run.users.unwrap().counts(), [32]);
        assert!(Cli::try_parse_from(["oltpgen", "tpcc", "--users", "3", "load"]).is_err());
    }

    #[test]
    fn transactions_run_server_or_client_side_on_run_and_bare_tpcc() {
        let cli = Cli::try_parse_from(["oltpgen", "tpcc", "--transactions", "client"]).unwrap();
        let Command::Tpcc(t) = cli.command else { panic!("tpcc") };
        assert_eq!(t.run.transactions, Some(Transactions::Client));
        let cli = Cli::try_parse_from(["oltpgen", "tpcc", "run", "--transactions", "server"]).unwrap();
        let Command::Tpcc(t) = cli.command else { panic!("tpcc") };
        let Some(TpccAction::Run(run)) = t.action else { panic!("run") };
        assert_eq!(run.transactions, Some(Transactions::Server));
        assert!(parse_transactions("procedures").unwrap_err().contains("neither server nor client"));
    }

    #[test]
    fn ds2_reads_its_driver_flags_with_their_units() {
        let cli = Cli::try_parse_from([
            "oltpgen",
            "ds2",
            "--n-threads",
            "32",
            "--ramp-rate",
            "10",
            "--run-time",
            "30",
            "--warmup-time",
            "1",
            "--think-time",
            "0.5",
            "--pct-newcustomers",
            "20",
            "--db-size",
            "10GB",
            "--url",
            "postgres://a/x",
            "--url",
            "postgres://b/y",
        ])
        .unwrap();
        let Command::Ds2(d) = cli.command else { panic!("ds2") };
        assert_eq!(d.run.n_threads.counts(), [32]);
        assert_eq!(d.run.run_time, Duration::from_secs(1800), "bare numbers are minutes, as in DS2");
        assert_eq!(d.run.warmup_time, Duration::from_secs(60));
        assert_eq!(d.run.think_time, Duration::from_millis(500), "think time is in seconds");
        assert_eq!(d.run.db_size.unwrap().to_string(), "10GB");
        assert_eq!(cli.db.url.len(), 2);
        assert_eq!(parse_minutes("90s"), Ok(Duration::from_secs(90)), "durations work too");
        assert!(parse_minutes("-1").is_err());
        assert!(Cli::try_parse_from(["oltpgen", "ds2", "--n-line-items", "0"]).is_err(), "at least one item");
        let many: Vec<String> =
            (0..256).flat_map(|i| ["--url".to_string(), format!("postgres://h/db{i}")]).collect();
        let cli = Cli::try_parse_from(["oltpgen", "ds2"].into_iter().map(String::from).chain(many)).unwrap();
        assert!(cli.db.targets().unwrap_err().to_string().contains("at most 255"));
        let twice =
            Cli::try_parse_from(["oltpgen", "ds2", "--url", "postgres://a/x", "--url", "postgres://a/x"]);
        assert!(twice.unwrap().db.targets().unwrap_err().to_string().contains("twice"));
    }
}
