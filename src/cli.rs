//! The command line: flags, their defaults and their `--help` lines.

mod custom;
mod tpcb;
mod ycsb;

pub use custom::{CustomAction, CustomCmd};
pub use tpcb::{TpcbAction, TpcbCmd};
pub use ycsb::{DEFAULT_RECORDS, YcsbAction, YcsbCmd};

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use oltpgen_datagen::ds2::input::OrderParams;
use oltpgen_datagen::ds2::size::DbSize;
use oltpgen_datagen::tpcc::mix::{KeyingTime, Pacing, ThinkTime};
use oltpgen_driver::command::Databases;
use oltpgen_driver::command::ds2::Ds2Run;
#[cfg(feature = "io")]
use oltpgen_driver::command::io::IoRun;
use oltpgen_driver::command::load::LoadRequest;
use oltpgen_driver::command::tpcc::TpccRun;
use oltpgen_driver::command::values::*;
#[cfg(feature = "io")]
use oltpgen_driver::io::spec::{parse_bytes, parse_pct, parse_rating};
#[cfg(feature = "io")]
use oltpgen_driver::io::workload::IoEngine;

use oltpgen_driver::run::arrivals::{Arrivals, Spread};
use oltpgen_driver::run::hooks::Hooks;
use oltpgen_driver::run::{self, Pace, Ramp, StudyFlags};
use oltpgen_report::model::users::UserLoad;
#[cfg(feature = "io")]
use oltpgen_report::stats::cap::IO_DEFAULT_CAP;
use oltpgen_report::stats::cap::{Cap, DEFAULT_CAP, DS2_DEFAULT_CAP};
use oltpgen_vocab::tpcc::Transactions;

/// The values people write as times (`-5s`, `-1`): a flag taking one takes a value that starts with a
/// hyphen, so that its parser refuses a negative time in its own words instead of clap reading `-5` as
/// an unknown flag.
const TIMES: [&str; 6] = ["DURATION", "MINUTES", "SECONDS", "A..B", "spec|0|MEAN", "spec|0|TIME"];
/// The values that are numbers (counts, rates, costs, shares): a flag taking one takes a negative
/// number (`-5`), which its parser refuses in its own words.
const NUMBERS: [&str; 10] =
    ["N", "N|LIST|A..B:STEP", "USERS_PER_S", "USD", "WAREHOUSES", "K", "PCT", "SIZE", "TB|PB", "WA"];

/// `cmd` and its subcommands with every flag that takes a time or a number given its negative
/// values ([`TIMES`], [`NUMBERS`]): `--duration -5s` is refused as a negative duration, not as an
/// unexpected argument `-5`.
fn signed_values(cmd: clap::Command) -> clap::Command {
    let named = |a: &clap::Arg, names: &[&str]| {
        a.get_value_names().and_then(|v| v.first()).is_some_and(|n| names.contains(&n.as_str()))
    };
    // Set, never unset: a flag that takes any value already (a hook's command) keeps it.
    cmd.mut_args(|a| match (named(&a, &TIMES), named(&a, &NUMBERS)) {
        (true, _) => a.allow_hyphen_values(true),
        (_, true) => a.allow_negative_numbers(true),
        _ => a,
    })
    .mut_subcommands(signed_values)
}

impl Cli {
    /// The command line of this process, read as [`signed_values`] has it; what
    /// [`clap::Parser::try_parse`] would give otherwise.
    ///
    /// # Errors
    /// clap's error: a bad flag or value, or the help or version asked for.
    pub fn try_parse() -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::env::args_os())
    }

    /// The command line `args`, read as [`signed_values`] has it.
    ///
    /// # Errors
    /// clap's error: a bad flag or value, or the help or version asked for.
    pub fn try_parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{CommandFactory, FromArgMatches};
        let mut matches = signed_values(Cli::command()).try_get_matches_from(args)?;
        Cli::from_arg_matches_mut(&mut matches)
    }
}

/// oltpgen: a load generator for OLTP database performance studies.
///
/// Without --url, oltpgen runs its own PostgreSQL from the binaries installed on this machine.
#[derive(Debug, Parser)]
#[command(name = "oltpgen", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// What every workload command takes: where the work happens, and how much it says.
#[derive(Debug, Args)]
pub struct Common {
    /// Where the work happens.
    #[command(flatten)]
    pub db: DbArgs,
    /// No progress bars or live lines; only results and errors.
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

/// The database a command drives. Its `Debug` is [`Databases`]' (no URL shown: one may hold a password).
#[derive(Args)]
pub struct DbArgs {
    /// The database to drive ([`url_help`] says how, naming the workload's own database).
    // Kept as text here and parsed by the driver: clap's own errors would echo the value, password and all.
    // OLTPGEN_URL is read in `urls`, not by clap, so that --data-dir and --temp-db win over it.
    #[arg(long, global = true, value_name = "URL", help = url_help("tpcc"), conflicts_with = "data_dir")]
    pub url: Vec<String>,
    /// Where the built-in PostgreSQL lives.
    #[command(flatten)]
    pub local: DataDirArg,
    /// Use a throwaway built-in PostgreSQL, removed when the command ends
    #[arg(long, global = true, conflicts_with_all = ["url", "data_dir"])]
    pub temp_db: bool,
}

/// `--url`'s help, its examples naming `database` (each workload's own: DS2's is `ds2`), and where each
/// engine's password comes from.
pub(crate) fn url_help(database: &str) -> String {
    format!(
        "The database to drive, e.g. postgres://user@host:5432/{database}, \
         mysql://user@host:3306/{database} (or mariadb://), sqlserver://user@host:1433/{database} or an \
         ADO.NET string [env: OLTPGEN_URL; default: the built-in PostgreSQL]; give it several times to \
         load, drive, check or drop several databases side by side (any mix of engines, all at one size). \
         The password comes from PGPASSWORD or ~/.pgpass as for psql, ~/.my.cnf or MYSQL_PWD as for \
         mysql, SQLCMDPASSWORD as for sqlcmd (a password in --url shows in `ps`)"
    )
}

/// The built-in PostgreSQL's directory: all that `oltpgen local` takes, and a workload's alternative to
/// `--url`.
#[derive(Debug, Args)]
pub struct DataDirArg {
    /// The built-in PostgreSQL's directory [default: $OLTPGEN_DATA_DIR, else ~/.local/share/oltpgen/postgres;
    /// as root /var/lib/oltpgen/postgres]
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

impl std::fmt::Debug for DbArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.databases().fmt(f)
    }
}

impl DbArgs {
    /// The databases as the driver takes them.
    pub fn databases(&self) -> Databases {
        Databases { urls: self.url.clone(), data_dir: self.local.data_dir.clone(), temp_db: self.temp_db }
    }
}

/// oltpgen's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The TPC-C-style workload
    Tpcc(Box<TpccCmd>),
    /// DVD Store 2: orders per minute from customers who log in, browse and buy
    Ds2(Box<Ds2Cmd>),
    /// A workload defined in a file (--file FILE): its tables, rows and weighted transactions
    Custom(Box<CustomCmd>),
    /// TPC-B as pgbench makes and runs it: load|run|check|drop --scale N
    Tpcb(Box<TpcbCmd>),
    /// YCSB's core workloads A–F: load|run|check|drop --workload a..f --records N
    Ycsb(Box<YcsbCmd>),
    /// The storage model of a database (Iometer's study): an access specification replayed on a file
    #[cfg(feature = "io")]
    Io {
        /// What to do.
        #[command(subcommand)]
        action: IoAction,
    },
    /// The storage model of a database (Iometer's study): not in this build (built without the `io`
    /// feature)
    #[cfg(not(feature = "io"))]
    #[command(disable_help_flag = true)]
    Io {
        /// Whatever follows `io`: refused in one line.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
    /// Read results: show one, compare two, merge several (no database needed)
    Report {
        /// What to do.
        #[command(subcommand)]
        action: ReportAction,
    },
    /// The built-in PostgreSQL: see where it is, start, stop or remove it, print its URL
    Local {
        /// Which built-in PostgreSQL (no --url, no --temp-db: it manages the lasting one).
        #[command(flatten)]
        dir: DataDirArg,
        /// What to do with it.
        #[command(subcommand)]
        action: LocalAction,
    },
}

/// `oltpgen tpcc …`: without a subcommand, load when the database is empty, then run.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TpccCmd {
    /// Where the work happens, and how much it says.
    #[command(flatten)]
    pub common: Common,
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
    Run(Box<RunCmd>),
    /// Check the 12 consistency conditions of TPC-C clause 3.3.2; exit 1 when one fails
    Check(CheckArgs),
    /// Drop the TPC-C tables
    Drop,
}

/// `tpcc run`: a run of the database as loaded.
#[derive(Debug, Args)]
pub struct RunCmd {
    /// How to run.
    #[command(flatten)]
    pub run: RunArgs,
    /// Not a flag of `run`, which drives the scale loaded: here only to say where it belongs.
    #[arg(long, hide = true, value_name = "WAREHOUSES", value_parser = scale_belongs_to_load)]
    pub scale: Option<u32>,
}

/// `tpcc run --scale`: refused, saying which commands take it.
fn scale_belongs_to_load(_: &str) -> Result<u32, String> {
    Err("`tpcc run` drives the scale that is loaded: --scale belongs to `tpcc load --scale N`, or to \
         bare `tpcc --scale N`, which loads an empty database and runs"
        .into())
}

/// Users, connections, timing and pacing of a TPC-C run.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Virtual users per database: a number, a list (4000,8000,14000) or a range (1000..14000:1000), one
    /// step each; users carry over from step to step [default: 10 per warehouse, as the spec has it]
    #[arg(long, short, value_name = "N|LIST|A..B:STEP")]
    pub users: Option<UserLoad>,
    /// Connections, ramp, warmup, duration and the live line's period.
    #[command(flatten)]
    pub pace: PaceArgs,
    /// Think time after each transaction: spec (negative exponential, the spec's means), 0, or a mean
    /// (e.g. 2s) [default: spec; 0 with --rate]
    #[arg(long, value_name = "spec|0|MEAN", value_parser = parse_think)]
    pub think_time: Option<ThinkTime>,
    /// Keying time before each transaction: spec (the spec's fixed times), 0, or a fixed time [default:
    /// spec; 0 with --rate]
    #[arg(long, value_name = "spec|0|TIME", value_parser = parse_keying)]
    pub keying_time: Option<KeyingTime>,
    /// Where each transaction runs: server (one call of a function or stored procedure created at
    /// load, what HammerDB calls "stored procedures") or client (the client sends its statements; needs
    /// no right to create procedures) [default: server]
    #[arg(long, value_name = "server|client", value_parser = parse_transactions)]
    pub transactions: Option<Transactions>,
    /// The response-time cap each step is judged by: rules joined by commas, e.g. avg=1s, p90=5s,
    /// new_order.p90=5s, or p90=tpcc (TPC-C's five 90th-percentile limits)
    #[arg(long, value_name = "RULES", default_value = DEFAULT_CAP)]
    pub rt_cap: Cap,
    /// The cap, repetitions, cost, power and where the result goes.
    #[command(flatten)]
    pub study: DbStudyArgs,
}

/// How a run of users paces itself, whatever the workload: connections, ramp, warmup, measured time,
/// the live line's period.
#[derive(Debug, Args)]
pub struct PaceArgs {
    /// Connections per database shared by its users [default: one per user]; waits for one count in
    /// response times
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
    /// Period of the live line and of the result's time series
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_report_interval)]
    pub report_interval: Duration,
    /// Transactions arriving at a rate (an open loop).
    #[command(flatten)]
    pub rate: RateArgs,
}

/// An open loop: transactions arrive at a rate whatever the server does (pgbench's -R and -L).
#[derive(Debug, Args)]
pub struct RateArgs {
    /// Transactions arriving per second in all (an open loop, dealt round-robin to the --users, one
    /// number; no keying or think time; latency runs from each one's arrival): a rate, a list
    /// (500,1000) or a range (500..4000:500), one step each
    #[arg(long, value_name = "PER_S|LIST|A..B:STEP", value_parser = parse_rates)]
    pub rate: Option<UserLoad>,
    /// How arrivals are spread in time with --rate: fixed (evenly) or poisson
    #[arg(long, value_name = "fixed|poisson", default_value = "fixed", requires = "rate", value_parser = parse_spread)]
    pub arrivals: Spread,
    /// Drop an arrival that cannot start within this of its arrival (pgbench's -L), counted apart
    #[arg(long, value_name = "DURATION", requires = "rate", value_parser = parse_positive_duration)]
    pub max_lag: Option<Duration>,
    /// Arrivals one user holds due and not started, at most; the oldest beyond are dropped as overflow
    #[arg(long, value_name = "N", default_value = "1000", requires = "rate",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_queue: u32,
    /// Arrivals a step may drop and still sustain its rate (it must also achieve 99% of it)
    #[arg(long, value_name = "N", default_value = "0", requires = "rate")]
    pub max_drop: u64,
}

impl RateArgs {
    /// The open loop these flags ask for (its population and seed set when the run is planned), if any.
    pub fn arrivals(&self) -> Option<Arrivals> {
        let rate = *self.rate.as_ref()?.counts().first()? as u32;
        let (spread, max_lag, queue, max_drop) = (self.arrivals, self.max_lag, self.max_queue, self.max_drop);
        Some(Arrivals { rate, users: 0, max_drop, spread, seed: 0, max_lag, queue })
    }

    /// `--rate`'s value, per second: a sweep's steps or a search's range, as the study reads it.
    pub fn rates(&self) -> Option<UserLoad> {
        self.rate.clone()
    }
}

/// `--rate`: a rate, a list or a range, each at least 1 and at most 10 million per second.
fn parse_rates(s: &str) -> Result<UserLoad, String> {
    let load: UserLoad = s.parse().map_err(|e: oltpgen_report::model::users::UserLoadError| {
        e.to_string().replace("0 users", "a rate of 0, which offers nothing")
    })?;
    match load.counts().iter().find(|&&r| r > 10_000_000) {
        Some(r) => Err(format!("{r} per second is more than oltpgen offers (10 000 000)")),
        None => Ok(load),
    }
}

/// `--arrivals`: fixed or poisson.
fn parse_spread(s: &str) -> Result<Spread, String> {
    match s {
        "fixed" => Ok(Spread::Fixed),
        "poisson" => Ok(Spread::Poisson),
        _ => Err("give fixed or poisson".into()),
    }
}

impl PaceArgs {
    /// How the users start, warm up and are measured.
    pub fn pace(&self) -> Pace {
        Pace {
            ramp: self.ramp_up.map_or(Ramp::Rate(self.ramp_rate), Ramp::Over),
            warmup: self.warmup,
            duration: self.duration,
            report_interval: self.report_interval,
            arrivals: self.rate.arrivals(),
            rates: self.rate.rates(),
        }
    }
}

/// What every run is judged by and records, whatever it drives (a database, or `io`'s file): repetitions,
/// the sweep's end, power, the window, the result's directory and the counters. Each workload adds its
/// own cap (its default is its own) and, for a database, [`DbStudyArgs`].
#[derive(Debug, Args)]
pub struct StudyArgs {
    /// Run the whole step sweep this many times; the headline, power and counters come from the run
    /// whose headline figure is the median
    #[arg(long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub runs: u32,
    /// End a sweep after this many steps in a row broke the cap
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub stop_after_breach: Option<u32>,
    /// A power meter's log (CSV lines of timestamp,watts: Unix seconds or RFC 3339; its first lines are
    /// checked before the run) for throughput per watt; LABEL=FILE names one of
    /// several meters, whose watts add up (repeatable: server=a.csv, storage=b.csv) [default: the host's
    /// RAPL energy counters, where it has them]
    #[arg(long, value_name = "[LABEL=]FILE", value_parser = parse_power_log)]
    pub power_log: Vec<(String, PathBuf)>,
    /// Sit idle this long just before every run starts and average the meter's idle power over it
    #[arg(long, value_name = "DURATION", value_parser = parse_positive_duration)]
    pub idle_sample: Option<Duration>,
    /// Measure only this part of each step, from the step's start (e.g. 1000s..1200s), instead of
    /// warming up and measuring for a time
    #[arg(long, value_name = "A..B", value_parser = parse_window)]
    pub window: Option<(Duration, Duration)>,
    /// Where to write result.json, summary.txt, timeseries.csv, counters.csv, report.html and (a
    /// database workload's acknowledged orders) acks.bin [default: results/TIME-WORKLOAD, TIME in UTC]
    #[arg(long, short, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write over the result already in --out (without it, such an --out is refused)
    #[arg(long)]
    pub replace: bool,
    /// Scrape a database host's Prometheus node_exporter every interval for its CPU, disks and network,
    /// e.g. http://db1:9100/metrics (repeatable: one per server)
    #[arg(long = "node-exporter", value_name = "URL")]
    pub node_exporter: Vec<String>,
    /// Serve the live figures for Prometheus at http://ADDR/metrics while the run goes on, e.g.
    /// 127.0.0.1:9187
    #[arg(long, value_name = "ADDR", value_parser = parse_listen)]
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Sample no host or database counters [default: this machine's CPU, memory, network and disks,
    /// and each database's own statistics, every report interval]
    #[arg(long, conflicts_with = "node_exporter")]
    pub no_counters: bool,
}

impl StudyArgs {
    /// The study's flags as the driver's plan takes them, judged by `rt_cap`, with `system_cost`:
    /// nothing around the runs (no restore, hook or fault), one process on the machine's cores.
    pub fn flags(&self, rt_cap: Cap, system_cost: Option<f64>) -> StudyFlags {
        StudyFlags {
            runs: self.runs,
            rt_cap: Some(rt_cap),
            stop_after_breach: self.stop_after_breach,
            system_cost_usd: system_cost,
            power_logs: self.power_log.clone(),
            idle_sample: self.idle_sample,
            window: self.window,
            out: self.out.clone(),
            replace: self.replace,
            client_threads: None,
            no_counters: self.no_counters,
            node_exporters: self.node_exporter.clone(),
            metrics_listen: self.metrics_listen,
            agent: None,
            start_at: None,
            restore: false,
            hooks: Hooks::default(),
            find_max: None,
        }
    }
}

/// What a study of databases adds to [`StudyArgs`]: the tables put back, the hooks and the fault around
/// the runs, the cost per transaction, the run's seed from the load's, client threads and agents.
#[derive(Debug, Args)]
pub struct DbStudyArgs {
    /// Repetitions, power, the window, the result's directory, counters.
    #[command(flatten)]
    pub study: StudyArgs,
    /// Put the workload's tables back to their loaded state before every run (their rows generated
    /// again from the load's seed and size; nothing else of the database is touched)
    #[arg(long)]
    pub restore: bool,
    /// A command (run by sh -c) before every run, after its restore: a cache flush, a server restart.
    /// It sees OLTPGEN_RUN, OLTPGEN_OUT and OLTPGEN_TARGETS; its output goes to hooks.log in --out; if
    /// it fails, the study stops (exit 1) keeping what ran
    #[arg(long, value_name = "CMD")]
    pub before_run: Option<String>,
    /// A command (run by sh -c) after every run, as --before-run
    #[arg(long, value_name = "CMD")]
    pub after_run: Option<String>,
    /// Cause a fault (a failover) this long after the run's start, once, by running --fault-cmd
    #[arg(long, value_name = "DURATION", value_parser = parse_positive_duration, requires = "fault_cmd")]
    pub fault_at: Option<Duration>,
    /// The command (run by sh -c, as --before-run) that causes the fault at --fault-at: pg_ctl promote, a
    /// cloud CLI's failover; its output goes to hooks.log in --out, its moment onto the result's timeline
    #[arg(long, value_name = "CMD", requires = "fault_at")]
    pub fault_cmd: Option<String>,
    /// How long a --before-run, --after-run or --fault-cmd command may take before it and its children
    /// are killed
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_positive_duration)]
    pub hook_timeout: Duration,
    /// What the system under test cost, in USD: the result gives the cost per TPS and per unit of the
    /// headline (NOPM, OPM)
    #[arg(long, value_name = "USD", value_parser = parse_cost)]
    pub system_cost: Option<f64>,
    /// The run's seed [default: derived from the load's seed and the run's number]
    #[arg(long = "run-seed", value_name = "N")]
    pub seed: Option<u64>,
    /// Client threads the users are spread over, each running its share of them and their connections
    /// [default: the number of cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub client_threads: Option<u32>,
    /// Run agent I's share of a plan N agents run together on N client machines: the users whose index
    /// modulo N is I, and its share of each database's connections; `auto` takes I and N from
    /// JOB_COMPLETION_INDEX with OLTPGEN_AGENTS (Kubernetes) or SLURM_PROCID and SLURM_NTASKS (srun)
    /// [env: OLTPGEN_AGENT]; `report merge` makes one result of the agents'
    #[arg(long, value_name = "I/N|auto")]
    pub agent: Option<String>,
    /// The instant the run starts on every agent, RFC 3339 (e.g. 2026-11-26T23:00:00Z): each connects and
    /// prepares, then lays ramp, warmup and steps on this clock; needed with several agents [env:
    /// OLTPGEN_START_AT]
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
    /// Search the --users range (e.g. 8..4096) for the most throughput within the cap instead of
    /// stepping through it: grow the users until the cap fails, bisect, probe beside the best, measure
    /// it again; every probe is a full step, and probes do not restore
    #[arg(long)]
    pub find_max: bool,
    /// How close --find-max bisects: until the last pass and the first fail are this many percent of the
    /// users apart (or one user), at most 50
    #[arg(long, value_name = "PCT", default_value_t = run::find_max::DEFAULT_RESOLUTION_PCT, requires = "find_max",
          value_parser = parse_percent)]
    pub resolution: f64,
    /// How many times --find-max measures its best passing probe again; one that fails is never the
    /// answer, and the next best is measured instead
    #[arg(long, value_name = "N", default_value_t = run::find_max::DEFAULT_CONFIRM, requires = "find_max",
          value_parser = clap::value_parser!(u32).range(0..=10))]
    pub confirm: u32,
}

impl DbStudyArgs {
    /// The study's flags as the driver's plan takes them, judged by `rt_cap`.
    pub fn flags(&self, rt_cap: Cap) -> StudyFlags {
        StudyFlags {
            client_threads: self.client_threads,
            agent: self.agent.clone(),
            start_at: self.start_at.clone(),
            restore: self.restore,
            hooks: Hooks {
                before_run: self.before_run.clone(),
                after_run: self.after_run.clone(),
                timeout: self.hook_timeout,
                fault: self.fault_at.zip(self.fault_cmd.clone()),
            },
            find_max: self
                .find_max
                .then_some(run::find_max::Resolve { resolution_pct: self.resolution, confirm: self.confirm }),
            ..self.study.flags(rt_cap, self.system_cost)
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
    /// Carry on a load that was cut (Ctrl-C, a kill, a lost server), with the same size and seed: only
    /// the chunks not yet in are loaded, then the keys; a database loaded whole is left alone
    #[arg(long, conflicts_with_all = ["replace", "csv", "create_database", "temp_db"])]
    pub resume: bool,
    /// Begin a load in parts, one per client machine: create the tables and record the plan of
    /// --parts N; then each part loads with --agent I/N, and --finish builds the keys
    #[arg(long, requires = "parts", conflicts_with_all = ["resume", "csv", "temp_db", "agent", "finish"])]
    pub begin: bool,
    /// The parts of a load --begin plans
    #[arg(long, value_name = "N", requires = "begin", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub parts: Option<u32>,
    /// Load part I of the N a load --begin planned (its warehouses, or DS2's customers and orders;
    /// part 0 also item, or DS2's products); cut, it carries on where it stopped when run again; `auto`
    /// takes I and N from JOB_COMPLETION_INDEX with OLTPGEN_AGENTS (Kubernetes) or SLURM_PROCID and
    /// SLURM_NTASKS (srun)
    #[arg(long, value_name = "I/N|auto", conflicts_with_all = ["resume", "replace", "csv", "temp_db", "finish", "create_database"])]
    pub agent: Option<String>,
    /// Finish a load in parts once every part is in: keys, indexes, the workload's functions and
    /// statistics; refused (naming the part) while one is missing; run again if cut
    #[arg(long, conflicts_with_all = ["resume", "replace", "csv", "temp_db", "create_database"])]
    pub finish: bool,
    /// Write the rows as CSV files into DIR (one per table) instead of loading a database
    #[arg(long, value_name = "DIR", conflicts_with_all = ["url", "temp_db", "data_dir"])]
    pub csv: Option<PathBuf>,
    /// Create the database --url names when it does not exist (from the server's postgres or master
    /// database, with the same login), then load it; without this flag a missing database is an error
    #[arg(long, conflicts_with_all = ["csv", "temp_db", "data_dir"])]
    pub create_database: bool,
    /// Connections and generator threads
    #[command(flatten)]
    pub workers: WorkersArg,
}

/// `oltpgen ds2 …`: without a subcommand, load when the database is empty, then run. The flags are
/// DS2 driver's, with its defaults and meanings.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, mut_arg("url", |a| a.help(url_help("ds2"))))]
pub struct Ds2Cmd {
    /// Where the work happens, and how much it says.
    #[command(flatten)]
    pub common: Common,
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
    Check(CheckArgs),
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
    #[arg(long, alias = "n_threads", value_name = "N|LIST|A..B:STEP", default_value = "1")]
    pub n_threads: UserLoad,
    /// Connections per database shared by its users [default: one per user, as DS2 has it]; waits for
    /// one count in response times
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub connections: Option<u32>,
    /// Users started per second
    #[arg(long, alias = "ramp_rate", value_name = "USERS_PER_S", default_value = "10", value_parser = parse_rate)]
    pub ramp_rate: f64,
    /// Measured time per step: minutes as in DS2 (30), or a duration (90s); 0 runs until Ctrl-C
    // --window measures its own part of each step and replaces it and --warmup-time (run/schedule.rs).
    #[arg(long, alias = "run_time", value_name = "MINUTES", default_value = "0", value_parser = parse_minutes,
          conflicts_with = "window")]
    pub run_time: Duration,
    /// Time before statistics start, after the users started: minutes (1) or a duration (30s)
    #[arg(long, alias = "warmup_time", value_name = "MINUTES", default_value = "1", value_parser = parse_minutes,
          conflicts_with = "window")]
    pub warmup_time: Duration,
    /// Mean think time between a user's orders: seconds (0.5) or a duration (500ms); uniform in [0, 2 × mean)
    #[arg(long, alias = "think_time", value_name = "SECONDS", default_value = "0", value_parser = parse_seconds)]
    pub think_time: Duration,
    /// Percent of orders that come from new customers (who register first)
    #[arg(long, alias = "pct_newcustomers", value_name = "PCT", default_value = "20", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub pct_newcustomers: u32,
    /// Mean browses per order (uniform in 1..2n-1)
    #[arg(long, alias = "n_searches", value_name = "N", default_value = "3", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub n_searches: u32,
    /// Mean products each browse returns at most (uniform in 1..2n-1)
    #[arg(long, alias = "search_batch_size", value_name = "N", default_value = "5", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub search_batch_size: u32,
    /// Mean items per purchase (uniform in 1..2n-1, then at most 10, as DS2 caps a cart)
    #[arg(long, alias = "n_line_items", value_name = "N", default_value = "5", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub n_line_items: u32,
    /// The size every database must hold (S, M, L, 10GB, …); bare `ds2` loads an empty database at it
    /// [default: what is loaded, S for an empty database]
    #[arg(long, alias = "db_size", value_name = "SIZE")]
    pub db_size: Option<DbSize>,
    /// Seconds between progress lines (and the time series' resolution)
    #[arg(long, alias = "report_rate", value_name = "SECONDS", default_value = "10", value_parser = parse_report_rate)]
    pub report_rate: Duration,
    /// Also write every progress interval as a CSV row to FILE (per database with several), as it happens
    #[arg(long, alias = "csv_output", value_name = "FILE")]
    pub csv_output: Option<PathBuf>,
    /// Where the operations run: server (one call of a function or stored procedure created at load)
    /// or client (the client sends the statements, as DS2's own MySQL driver does; MySQL and MariaDB
    /// only) [default: server]
    #[arg(long, value_name = "server|client", value_parser = parse_transactions)]
    pub transactions: Option<Transactions>,
    /// Per-operation counts and response times at the end, and per database in progress lines
    /// (DS2's `--detailed_view=Y|N` too)
    #[arg(long, alias = "detailed_view", value_name = "Y|N", num_args = 0..=1, require_equals = true,
          default_value = "N", default_missing_value = "Y", value_parser = parse_yes_no)]
    pub detailed_view: bool,
    /// DS2's way of naming its databases: each host (comma-separated) in place of the host of --url (or
    /// of postgres://localhost:5432/ds2 without one), one database per host
    #[arg(long, value_name = "HOST[,HOST…]", value_delimiter = ',')]
    pub target: Vec<String>,
    /// The database's name on every server, in place of --url's (DS2's --database_name)
    #[arg(long, alias = "database_name", value_name = "NAME")]
    pub database_name: Option<String>,
    /// Transactions (whole orders) arriving at a rate (an open loop).
    #[command(flatten)]
    pub rate: RateArgs,
    /// DS2's user:password:host for Linux counters: refused (a password on the command line), use
    /// --node-exporter
    #[arg(long, alias = "linux_perf_host", value_name = "USER:PASS:HOST", hide = true)]
    pub linux_perf_host: Option<String>,
    /// The response-time cap each step is judged by: rules joined by commas, e.g. order.avg=1s (a whole
    /// order's mean), avg=500ms, purchase.p90=3s
    #[arg(long, value_name = "RULES", default_value = DS2_DEFAULT_CAP)]
    pub rt_cap: Cap,
    /// The cap, repetitions, cost, power and where the result goes.
    #[command(flatten)]
    pub study: DbStudyArgs,
}

/// Parallelism of loads and checks.
#[derive(Debug, Default, Args)]
pub struct WorkersArg {
    /// Connections working at once [default: the number of cores]
    #[arg(long = "load-workers", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: Option<u32>,
}

/// `tpcc check`, `ds2 check`: how, and against which run's acknowledged orders.
#[derive(Debug, Default, Args)]
pub struct CheckArgs {
    /// Parallelism.
    #[command(flatten)]
    pub workers: WorkersArg,
    /// A run's result directory (its --out): also compare the orders that run saw acknowledged with the
    /// database now serving (after a failover: the commits it lost); exit 1 when one is missing
    #[arg(long, value_name = "DIR")]
    pub result: Option<std::path::PathBuf>,
    /// Check K warehouses drawn at random (TPC-C on PostgreSQL): clause 3.3.2's per-warehouse conditions
    /// on them, 3.3.2.1 on every warehouse; says which were drawn and what was skipped
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub sample: Option<u32>,
    /// The seed the --sample warehouses are drawn from
    #[arg(long, value_name = "S", default_value_t = 1, requires = "sample")]
    pub sample_seed: u64,
}

impl CheckArgs {
    /// The driver's request.
    pub fn request(self) -> oltpgen_driver::command::CheckRequest {
        oltpgen_driver::command::CheckRequest {
            workers: self.workers.workers,
            result: self.result,
            sample: self.sample.map(|k| (k, self.sample_seed)),
        }
    }
}

#[cfg(feature = "io")]
/// `oltpgen io …`
#[derive(Debug, Subcommand)]
pub enum IoAction {
    /// Drive a file with Iometer's access specification: workers with outstanding I/Os, direct I/O,
    /// reads and writes timed apart; a step per --outstanding value, judged by the latency cap
    Run(Box<IoRunArgs>),
    /// The storage model of a TPC-C or DS2 result's disk (block, read share, queue length, rate), and the
    /// `io run` command that replays it
    Model {
        /// The result.json (or its directory) whose disk counters are modelled
        result: PathBuf,
        /// The disk or partition to model, by its name in the counters (e.g. nvme0n1p2) [default: the
        /// biggest writer]
        #[arg(long, value_name = "NAME")]
        disk: Option<String>,
        /// The file the printed `io run` command drives
        #[arg(long, value_name = "PATH", default_value = "io.dat")]
        file: PathBuf,
    },
}

#[cfg(feature = "io")]
/// `io run`: Iometer's access specification in its own words.
#[derive(Debug, Args)]
pub struct IoRunArgs {
    /// The file to drive: a new path (made, filled with incompressible data, removed at the end), or a
    /// file an earlier `io run --keep-file` left; any other file and block devices are refused
    #[arg(long, value_name = "PATH")]
    pub file: PathBuf,
    /// The file's I/O region (binary units: 320G, 512m)
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_bytes)]
    pub size: u64,
    /// Bytes per transfer (Iometer's transfer request size; whole sectors: 4k, 8k, 16k)
    #[arg(long, value_name = "SIZE", default_value = "16k", value_parser = parse_bytes)]
    pub block: u64,
    /// Share of transfers that read (the rest write)
    #[arg(long, value_name = "PCT", default_value = "30%", value_parser = parse_pct)]
    pub read: u32,
    /// Share of transfers at a random block (the rest sequential)
    #[arg(long, value_name = "PCT", default_value = "100%", value_parser = parse_pct)]
    pub random: u32,
    /// I/O workers (Iometer's workers)
    #[arg(long, value_name = "N", default_value = "4", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: u32,
    /// Outstanding I/Os per worker (Iometer's "# of outstanding I/Os"): a number, a list (1,2,4,8,16,32)
    /// or a range (4..32:4), one step each
    #[arg(long, value_name = "N|LIST|A..B:STEP", default_value = "4", value_parser = parse_sweep)]
    pub outstanding: UserLoad,
    /// Iometer's ramp-up time: I/O runs unmeasured this long at the start of each step
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration,
          conflicts_with = "window")]
    pub ramp: Duration,
    /// The measured time of each step
    #[arg(long, short, value_name = "DURATION", default_value = "1m", value_parser = parse_positive_duration,
          conflicts_with = "window")]
    pub duration: Duration,
    /// Period of the live line and of the result's time series
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_report_interval)]
    pub report_interval: Duration,
    /// Go through the page cache instead of direct I/O (for a filesystem that refuses O_DIRECT)
    #[arg(long)]
    pub buffered: bool,
    /// How the I/Os are issued, by fio's names: io_uring (a ring per worker) or psync (a thread per I/O
    /// in flight, positional reads and writes) [default: io_uring where the system runs it, else psync]
    #[arg(long, value_name = "ENGINE", value_parser = parse_ioengine)]
    pub ioengine: Option<IoEngine>,
    /// Write the whole file this many times over after filling it, before measuring (flash storage's
    /// steady state); a kept file remembers its passes
    #[arg(long, value_name = "N", default_value = "0")]
    pub precondition: u32,
    /// Leave the file when the run ends, for the next run to reuse (with its preconditioning)
    #[arg(long)]
    pub keep_file: bool,
    /// The drive's rated endurance (its data sheet's TBW or PBW, e.g. 600TB or 1PB): the result projects
    /// its life in years at the headline's write rate
    #[arg(long, value_name = "TB|PB", value_parser = parse_rating)]
    pub rated_endurance: Option<f64>,
    /// Bytes the flash writes per byte the host writes (measured by the drive's SMART counters), for
    /// --rated-endurance
    #[arg(long, value_name = "WA", default_value = "1", requires = "rated_endurance", value_parser = parse_write_amplification)]
    pub write_amplification: f64,
    /// Pace the I/Os at this many per second in all, each from its intended start (a slow device shows
    /// as latency, not as a lower rate); one --outstanding value only
    #[arg(long, value_name = "N", value_parser = parse_rate)]
    pub iops: Option<f64>,
    /// Replay a TPC-C or DS2 result's disk model (see `io model`) at its captured rate, and compare the
    /// latency per transfer and the queue length with the captured ones
    #[arg(long, value_name = "RESULT", conflicts_with_all = ["block", "read", "random", "workers", "outstanding", "iops"])]
    pub validate: Option<PathBuf>,
    /// With --validate: the disk or partition to model [default: the biggest writer]
    #[arg(long, value_name = "NAME", requires = "validate")]
    pub disk: Option<String>,
    /// No progress bar or live lines; only results and errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// The latency cap each step is judged by: rules joined by commas, e.g. avg=10ms, p99=20ms,
    /// write.avg=5ms
    #[arg(long, value_name = "RULES", default_value = IO_DEFAULT_CAP)]
    pub rt_cap: Cap,
    /// What the system under test cost, in USD: the result gives the cost per IOPS
    #[arg(long, value_name = "USD", value_parser = parse_cost)]
    pub system_cost: Option<f64>,
    /// The run's seed, which draws the random blocks [default: from the clock; the result records it]
    #[arg(long = "run-seed", value_name = "N")]
    pub seed: Option<u64>,
    /// Repetitions, power, the window, counters and where the result goes.
    #[command(flatten)]
    pub study: StudyArgs,
}

/// A `--outstanding` value: a sweep's counts (a range needs its step; `io` has no search).
#[cfg(feature = "io")]
fn parse_sweep(text: &str) -> Result<UserLoad, String> {
    let load: UserLoad =
        text.parse().map_err(|e: oltpgen_report::model::users::UserLoadError| e.to_string())?;
    load.sweep().map_err(|e| e.to_string())?;
    Ok(load)
}

#[cfg(feature = "io")]
impl IoRunArgs {
    /// The run these flags ask for.
    pub fn request(&self) -> IoRun {
        IoRun {
            file: self.file.clone(),
            size_bytes: self.size,
            block_bytes: self.block,
            read_pct: self.read,
            random_pct: self.random,
            workers: self.workers,
            outstanding: self.outstanding.counts().to_vec(),
            ramp: self.ramp,
            duration: self.duration,
            report_interval: self.report_interval,
            buffered: self.buffered,
            ioengine: self.ioengine,
            precondition: self.precondition,
            keep_file: self.keep_file,
            seed: self.seed,
            endurance: self.rated_endurance.map(|rated| (rated, self.write_amplification)),
            iops: self.iops,
            validate: self.validate.clone().map(|r| (r, self.disk.clone())),
            study: self.study.flags(self.rt_cap.clone(), self.system_cost),
            quiet: self.quiet,
        }
    }
}

#[cfg(feature = "io")]
/// `--ioengine`: fio's name of an engine oltpgen has.
fn parse_ioengine(s: &str) -> Result<IoEngine, String> {
    match s {
        "io_uring" => Ok(IoEngine::IoUring),
        "psync" => Ok(IoEngine::Psync),
        _ => Err(format!("{s:?}: give io_uring or psync")),
    }
}

#[cfg(feature = "io")]
/// A write amplification: 1 or more (the flash writes at least what the host writes).
fn parse_write_amplification(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|wa| *wa >= 1.0 && wa.is_finite())
        .ok_or_else(|| format!("{s:?}: give a write amplification of 1 or more, e.g. 3"))
}

/// `oltpgen report …`
#[derive(Debug, Subcommand)]
pub enum ReportAction {
    /// What a result ran, each step's transactions, then its step table, audit lines and headline
    Show {
        /// A result.json (or the directory holding it)
        result: PathBuf,
        /// Print every check of every step's audit (TPC-C), not a line per step
        #[arg(long)]
        audit: bool,
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
        /// Write over the page oltpgen wrote at --out (without it, an existing file is refused)
        #[arg(long, requires = "out")]
        replace: bool,
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

impl RunArgs {
    /// The TPC-C run these flags ask for (`scale` and `load_if_empty` from bare `tpcc`).
    pub fn request(&self, scale: Option<u32>, load_if_empty: bool, quiet: bool) -> TpccRun {
        TpccRun {
            load_if_empty,
            scale,
            users: self.users.clone(),
            connections: self.pace.connections,
            pace: self.pace.pace(),
            pacing: self.pacing(),
            transactions: self.transactions,
            seed: self.study.seed,
            study: self.study.flags(self.rt_cap.clone()),
            quiet,
        }
    }
}

impl RunArgs {
    /// Keying and think times: as given, else the spec's, or none with `--rate` (a non-zero one given
    /// with it is refused when the run is planned).
    fn pacing(&self) -> Pacing {
        let open = self.pace.rate.rate.is_some();
        Pacing {
            keying: self.keying_time.unwrap_or(if open { KeyingTime::Off } else { KeyingTime::Spec }),
            think: self.think_time.unwrap_or(if open { ThinkTime::Off } else { ThinkTime::Spec }),
        }
    }
}

impl Ds2RunArgs {
    /// The DS2 run these flags ask for (`load_if_empty` from bare `ds2`).
    pub fn request(&self, load_if_empty: bool, quiet: bool) -> Ds2Run {
        Ds2Run {
            load_if_empty,
            n_threads: self.n_threads.clone(),
            connections: self.connections,
            ramp_rate: self.ramp_rate,
            run_time: self.run_time,
            warmup_time: self.warmup_time,
            report_rate: self.report_rate,
            think_time: self.think_time,
            arrivals: self.rate.arrivals(),
            rates: self.rate.rates(),
            orders: OrderParams {
                pct_newcustomers: self.pct_newcustomers,
                n_searches: self.n_searches,
                search_batch_size: self.search_batch_size,
                n_line_items: self.n_line_items,
            },
            db_size: self.db_size,
            csv_output: self.csv_output.clone(),
            detailed_view: self.detailed_view,
            linux_perf_host: self.linux_perf_host.is_some(),
            seed: self.study.seed,
            transactions: self.transactions,
            study: self.study.flags(self.rt_cap.clone()),
            quiet,
        }
    }
}

impl LoadCommon {
    /// The load these flags ask for.
    pub fn request(&self, quiet: bool) -> LoadRequest {
        LoadRequest {
            seed: self.seed,
            replace: self.replace,
            resume: self.resume,
            begin: self.parts.filter(|_| self.begin),
            agent: self.agent.clone(),
            finish: self.finish,
            csv: self.csv.clone(),
            workers: self.workers.workers,
            quiet,
            create_database: self.create_database,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_parsed_command_line_s_debug_shows_no_password() {
        let cli =
            Cli::try_parse_from(["oltpgen", "tpcc", "--url", "postgres://bench:Zq9Secret@db1/tpcc"]).unwrap();
        let shown = format!("{cli:?}");
        assert!(!shown.contains("Zq9Secret") && shown.contains("1 URL(s)"), "{shown}");
    }

    #[test]
    fn a_resolution_is_a_percentage_with_or_without_its_sign() {
        let parsed = |pct: &str| {
            Cli::try_parse_from(["oltpgen", "tpcc", "run", "--find-max", "--resolution", pct])
                .map_err(|e| e.to_string())
        };
        assert!(parsed("8%").is_ok() && parsed("2.5").is_ok());
        let e = parsed("eighty%").unwrap_err();
        assert!(e.contains("\"eighty%\" is not a percentage from 0 to 100"), "{e}");
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
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
    fn flags_given_in_the_wrong_place_say_where_they_belong() {
        let e = Cli::try_parse_from(["oltpgen", "tpcc", "run", "--scale", "20"]).unwrap_err().to_string();
        assert!(e.contains("--scale belongs to `tpcc load --scale N`, or to bare `tpcc --scale N`"), "{e}");
        let e = Cli::try_parse_from(["oltpgen", "tpcc", "run", "--metrics-listen", "localhost"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("e.g. 127.0.0.1:9187"), "{e}");
        let help = Cli::command().find_subcommand_mut("tpcc").unwrap().render_long_help().to_string();
        assert!(help.contains("as root /var/lib/oltpgen/postgres"), "{help}");
        let e = Cli::try_parse_from(["oltpgen", "report", "merge", "a", "b", "--out", "m", "--url", "x"]);
        assert!(e.unwrap_err().to_string().contains("unexpected argument '--url'"), "report takes no --url");
    }

    #[test]
    fn transactions_run_server_or_client_side_on_run_and_bare_tpcc() {
        let cli = Cli::try_parse_from(["oltpgen", "tpcc", "--transactions", "client"]).unwrap();
        let Command::Tpcc(t) = cli.command else { panic!("tpcc") };
        assert_eq!(t.run.transactions, Some(Transactions::Client));
        let cli = Cli::try_parse_from(["oltpgen", "tpcc", "run", "--transactions", "server"]).unwrap();
        let Command::Tpcc(t) = cli.command else { panic!("tpcc") };
        let Some(TpccAction::Run(run)) = t.action else { panic!("run") };
        assert_eq!(run.run.transactions, Some(Transactions::Server));
        assert!(parse_transactions("procedures").unwrap_err().contains("neither server nor client"));
    }

    #[test]
    fn each_workload_s_cap_defaults_to_its_descriptor_s() {
        use oltpgen_report::model::Workload;
        let parse = |args: &[&str]| Cli::try_parse_from([&["oltpgen"], args].concat()).unwrap().command;
        let Command::Tpcc(t) = parse(&["tpcc"]) else { panic!("tpcc") };
        assert_eq!(t.run.rt_cap, Cap::default_for(Workload::Tpcc));
        let Command::Ds2(d) = parse(&["ds2"]) else { panic!("ds2") };
        assert_eq!(d.run.rt_cap, Cap::default_for(Workload::Ds2));
        let Command::Custom(c) = parse(&["custom"]) else { panic!("custom") };
        let defined = oltpgen_report::model::descriptor::Descriptor::per_second("bank");
        assert_eq!(c.run.rt_cap, Cap::default_of(&defined));
        #[cfg(feature = "io")]
        {
            let Command::Io { action: IoAction::Run(io) } = parse(&["io", "run", "--file", "f"]) else {
                panic!("io")
            };
            assert_eq!(io.rt_cap, Cap::default_for(Workload::Io));
            assert_eq!(io.request().study.rt_cap, Some(Cap::default_for(Workload::Io)));
        }
    }

    #[test]
    fn a_ds2_command_line_pasted_as_a_study_ran_it_works() {
        let line = "oltpgen ds2 --target=db1,db2 --n_threads=32 --ramp_rate=10 --run_time=30 --db_size=10GB \
                    --warmup_time=1 --think_time=0 --pct_newcustomers=20 --detailed_view=Y --report_rate=1 \
                    --csv_output=FILE --database_name=ds2b";
        let cli = Cli::try_parse_from(line.split_whitespace()).unwrap();
        let Command::Ds2(d) = cli.command else { panic!("ds2") };
        let r = &d.run;
        assert_eq!((r.n_threads.counts(), r.ramp_rate, r.pct_newcustomers), ([32].as_slice(), 10.0, 20));
        assert_eq!((r.run_time, r.warmup_time), (Duration::from_secs(1800), Duration::from_secs(60)));
        assert_eq!((r.think_time, r.report_rate), (Duration::ZERO, Duration::from_secs(1)));
        assert_eq!(r.db_size.unwrap().to_string(), "10GB");
        assert!(r.detailed_view && r.csv_output.as_deref() == Some(std::path::Path::new("FILE")));
        let db = d.common.db.databases().ds2_named(&r.target, r.database_name.as_deref()).unwrap();
        assert_eq!(db.urls, ["postgres://db1:5432/ds2b", "postgres://db2:5432/ds2b"]);
        let view = |v: &str| {
            let Command::Ds2(d) = Cli::try_parse_from(["oltpgen", "ds2", v]).unwrap().command else {
                panic!()
            };
            d.run.detailed_view
        };
        assert!(!view("--detailed_view=N") && view("--detailed-view") && view("--detailed-view=yes"));
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
        assert_eq!(d.common.db.url.len(), 2);
        assert_eq!(parse_minutes("90s"), Ok(Duration::from_secs(90)), "durations work too");
        assert!(parse_minutes("-1").is_err());
        assert!(Cli::try_parse_from(["oltpgen", "ds2", "--n-line-items", "0"]).is_err(), "at least one item");
        let many: Vec<String> =
            (0..256).flat_map(|i| ["--url".to_string(), format!("postgres://h/db{i}")]).collect();
        let targets = |cli: Cli| {
            let Command::Ds2(d) = cli.command else { panic!("ds2") };
            d.common.db.databases().targets().unwrap_err().to_string()
        };
        let cli = Cli::try_parse_from(["oltpgen", "ds2"].into_iter().map(String::from).chain(many)).unwrap();
        assert!(targets(cli).contains("at most 255"));
        let twice =
            Cli::try_parse_from(["oltpgen", "ds2", "--url", "postgres://a/x", "--url", "postgres://a/x"]);
        assert!(targets(twice.unwrap()).contains("twice"));
    }

    /// A DS2 driver flag in one of its spellings (DS2's own `--n_threads=`, oltpgen's `--n-threads`)
    /// with a value shaped like its own, or anything.
    fn ds2_flag() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let name = prop_oneof![
            Just("n_threads"),
            Just("n-threads"),
            Just("ramp_rate"),
            Just("run_time"),
            Just("run-time"),
            Just("warmup_time"),
            Just("think_time"),
            Just("think-time"),
            Just("pct_newcustomers"),
            Just("n_searches"),
            Just("search_batch_size"),
            Just("n_line_items"),
            Just("db_size"),
            Just("report_rate"),
            Just("detailed_view"),
            Just("target"),
            Just("database_name"),
            Just("linux_perf_host"),
            Just("connections"),
            Just("transactions"),
        ];
        let value = prop_oneof![
            any::<String>(),
            "[ +-]?[0-9]{0,22}(\\.[0-9]{0,6})?(e[+-]?[0-9]{1,3})?(s|ms|m|h|GB|mb|%)?",
            "([0-9]{0,12}(\\.\\.[0-9]{0,12}(:[0-9]{0,12})?)?,?){0,3}",
            "([a-z0-9.€:-]{0,8},?){0,3}",
            "(Y|N|yes|no|server|client|S|M|L|nan|inf)",
        ];
        (name, prop::option::of(value), any::<bool>()).prop_map(|(name, value, equals)| match value {
            Some(v) if equals => format!("--{name}={v}"),
            Some(v) => format!("--{name} {v}"),
            None => format!("--{name}"),
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// Any DS2 command line in DS2's spellings: a run, or clap's error, never a panic (issue 36).
        #[test]
        fn any_ds2_command_line_is_a_run_or_an_error(flags in proptest::collection::vec(ds2_flag(), 0..6)) {
            let mut args = vec!["oltpgen".to_string(), "ds2".to_string()];
            for flag in &flags {
                match flag.split_once(' ') {
                    Some((name, value)) => args.extend([name.to_string(), value.to_string()]),
                    None => args.push(flag.clone()),
                }
            }
            if let Ok(Cli { command: Command::Ds2(d), .. }) = Cli::try_parse_from(&args) {
                let _ = d.common.db.databases().ds2_named(&d.run.target, d.run.database_name.as_deref());
                let _ = d.run.request(false, true);
            }
        }
    }

    #[cfg(feature = "io")]
    /// An `io run` flag with a value shaped like its own (sizes, percentages, engines, ratings), or anything.
    fn io_flag() -> impl proptest::strategy::Strategy<Value = [String; 2]> {
        use proptest::prelude::*;
        let name = prop_oneof![
            Just("--size"),
            Just("--block"),
            Just("--read"),
            Just("--random"),
            Just("--workers"),
            Just("--outstanding"),
            Just("--ioengine"),
            Just("--rated-endurance"),
            Just("--write-amplification"),
            Just("--iops"),
            Just("--precondition"),
        ];
        let value = prop_oneof![
            any::<String>(),
            "[ +-]?[0-9]{0,22}(\\.[0-9]{0,4})?(e[+-]?[0-9]{1,3})?[ ]?(k|K|KB|KiB|m|MiB|g|G|T|TB|PB|PBW|%|€)?",
            "([0-9]{0,8}(\\.\\.[0-9]{0,8}(:[0-9]{0,8})?)?,?){0,3}",
            "(io_uring|psync|libaio|nan|inf)",
        ];
        (name, value).prop_map(|(n, v)| [n.to_string(), v])
    }

    #[cfg(feature = "io")]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// Any `io run` access specification and engine flags: a checked spec, or a one-line error.
        #[test]
        fn any_io_command_line_is_a_spec_or_an_error(flags in proptest::collection::vec(io_flag(), 0..5)) {
            let mut args = vec!["oltpgen".to_string(), "io".to_string(), "run".to_string()];
            args.extend(flags.into_iter().flatten());
            let parsed = Cli::try_parse_from(&args);
            if let Ok(Cli { command: Command::Io { action: IoAction::Run(run) }, .. }) = parsed
                && let Err(e) = run.request().spec()
            {
                proptest::prop_assert!(!e.to_string().contains('\n'), "{}", e);
            }
        }
    }
}
