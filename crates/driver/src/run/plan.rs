//! The run plan built from the parsed flags: every rule the command line's values must meet, checked
//! before anything starts (ripgrep's low-level arguments turned into high-level ones). The CLI parses
//! flags into [`StudyFlags`] and a [`Pace`]; [`StudyFlags::plan`] validates them into a [`RunPlan`].
//! Defaults and sizing that the spec or the run decides live here too: TPC-C's users per warehouse,
//! the connections the built-in server is started with, the most databases one run drives.

use std::path::{Path, PathBuf};
use std::time::Duration;

use oltpgen_report::model::descriptor::Descriptor;
use oltpgen_report::model::users::UserLoad;
use oltpgen_report::stats::cap::Cap;

use crate::files::result_dir::ResultDir;
use oltpgen_vocab::claim::{self, DirClaim};

use super::agent::{self, Agent};
use super::fault::PlannedFault;
use super::find_max::{self, Resolve};
use super::hooks::Hooks;
use super::{Ramp, RunPlan, StepSpec, StudyOptions, Timing};
use crate::{Error, Target};

/// 4.2.2: each warehouse has 10 terminals (set by the spec, not a knob).
pub const TERMINALS_PER_WAREHOUSE: u32 = 10;

/// The most databases one run drives side by side (samples name their target in one byte).
pub const MAX_TARGETS: usize = 255;

/// Connections the built-in server has room for when the users are known only after a load (TPC-C at
/// the default of [`TERMINALS_PER_WAREHOUSE`] per warehouse).
const ROOM_FOR_UNKNOWN_USERS: u32 = 1000;

/// How users start and how long each step lasts: the workload's own flags.
#[derive(Clone, Debug)]
pub struct Pace {
    /// How users start.
    pub ramp: Ramp,
    /// Unmeasured time after a step's users started.
    pub warmup: Duration,
    /// Measured time per step.
    pub duration: Duration,
    /// The live line's period.
    pub report_interval: Duration,
    /// `--rate` and its flags: an open loop; `None`: a closed one.
    pub arrivals: Option<super::arrivals::Arrivals>,
    /// `--rate`'s value, arrivals per second: one rate, a sweep's list or range, or a search's range
    /// (`--find-max`); `None` without it.
    pub rates: Option<UserLoad>,
}

/// The users a command drives on every database it names: each database's user counts, per step,
/// from the flag named `flag`, the same on each of `databases` databases side by side.
#[derive(Clone, Copy, Debug)]
pub struct Users<'a> {
    /// One database's users, per step.
    pub each: &'a [u64],
    /// How many databases the run drives (the built-in PostgreSQL is one).
    pub databases: u64,
    /// The flag the counts came from, named in errors.
    pub flag: &'a str,
}

/// A seeded plan ([`StudyFlags::seeded_plan`]): what each command that drives databases side by side
/// builds its run from.
#[derive(Debug)]
pub struct SeededPlan {
    /// The plan, its open loop's arrivals seeded.
    pub plan: RunPlan,
    /// The run seed the arrivals were seeded with, for the run's workload.
    pub seed: Option<u64>,
    /// Every database's users together, per step (the plan's sweep and the live header's).
    pub counts: Vec<u64>,
}

/// What every workload's run is judged by and records, as the flags gave it: the cap, repetitions,
/// cost, power, the window and the result's directory.
#[derive(Clone, Debug, Default)]
pub struct StudyFlags {
    /// `--runs`: the whole sweep this many times.
    pub runs: u32,
    /// `--rt-cap`, or the workload's default.
    pub rt_cap: Option<Cap>,
    /// `--stop-after-breach`.
    pub stop_after_breach: Option<u32>,
    /// `--system-cost`, USD.
    pub system_cost_usd: Option<f64>,
    /// `--power-log`, each meter's label and log.
    pub power_logs: Vec<(String, PathBuf)>,
    /// `--idle-sample`.
    pub idle_sample: Option<Duration>,
    /// `--window`, from each step's start.
    pub window: Option<(Duration, Duration)>,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// `--replace`.
    pub replace: bool,
    /// `--client-threads`, or `None` for one per core.
    pub client_threads: Option<u32>,
    /// `--no-counters`.
    pub no_counters: bool,
    /// `--node-exporter`, as given.
    pub node_exporters: Vec<String>,
    /// `--metrics-listen`.
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// `--agent`, as given (`I/N` or `auto`; else `OLTPGEN_AGENT` is read).
    pub agent: Option<String>,
    /// `--start-at`, as given (else `OLTPGEN_START_AT` is read).
    pub start_at: Option<String>,
    /// `--restore`: every run from the database as loaded.
    pub restore: bool,
    /// `--before-run`, `--after-run` and their time limit.
    pub hooks: Hooks,
    /// `--find-max` with its `--resolution` and `--confirm`: each run searches the range of users.
    pub find_max: Option<Resolve>,
}

impl StudyFlags {
    /// The cap `workload`'s steps are judged by: `--rt-cap`, or the workload's default.
    ///
    /// # Errors
    /// A usage error for a rule naming a transaction the workload does not run.
    pub fn cap(&self, workload: &Descriptor) -> Result<Cap, Error> {
        let cap = self.rt_cap.clone().unwrap_or_else(|| Cap::default_of(workload));
        cap.validate(workload).map_err(|e| Error::usage(format!("--rt-cap: {e}")))?;
        Ok(cap)
    }

    /// The share of the plan this process runs: `--agent`, else `OLTPGEN_AGENT`, else the whole.
    ///
    /// # Errors
    /// A usage error naming the flag or variable and the value at fault.
    pub fn agent(&self) -> Result<Agent, Error> {
        agent::resolve(self.agent.as_deref(), |name| std::env::var(name).ok())
    }

    /// The common clock's start: `--start-at`, else `OLTPGEN_START_AT`.
    ///
    /// # Errors
    /// A usage error naming the flag or variable for a time that is not RFC 3339.
    pub fn start_at(&self) -> Result<Option<std::time::SystemTime>, Error> {
        let env = || std::env::var(agent::START_AT_VAR).ok().filter(|v| !v.trim().is_empty());
        match (&self.start_at, env()) {
            (Some(text), _) => agent::parse_start_at("--start-at", text).map(Some),
            (None, Some(text)) => agent::parse_start_at(agent::START_AT_VAR, &text).map(Some),
            (None, None) => Ok(None),
        }
    }

    /// The run plan: the sweep of every user count (`counts`, from the flag named `flag`), `--runs`
    /// times over, judged by `cap`; this agent's share of it, on the common clock.
    ///
    /// # Errors
    /// A usage error naming `flag` for a sweep that decreases or a count too large, or `--window` for a
    /// window that starts before a step's users all started; for an agent without `--start-at`, with
    /// no user, or with no connection of its own to share.
    pub fn plan(
        &self,
        cap: Cap,
        counts: &[u64],
        flag: &str,
        connections: Option<u32>,
        pace: Pace,
    ) -> Result<RunPlan, Error> {
        let (steps, arrivals, searched) = match pace.arrivals {
            // An open loop's steps (or its search's range) are its rates, offered to one population of
            // users.
            Some(a) => {
                let users = super::arrivals::population(counts, flag)?;
                let rates = self.levels(pace.rates.as_ref(), "--rate")?.unwrap_or_default();
                let arrivals = Some(super::arrivals::Arrivals { users, ..a });
                (steps(&rates, self.runs, "--rate")?, arrivals, "--rate")
            }
            None => (steps(counts, self.runs, flag)?, None, flag),
        };
        let timing = Timing {
            // An open loop's users all begin at the step's start: their arrivals set the pace.
            ramp: if pace.arrivals.is_some() { Ramp::Over(Duration::ZERO) } else { pace.ramp },
            warmup: pace.warmup,
            duration: pace.duration,
            window: self.window,
            arrivals,
        };
        check_max_lag(&timing)?;
        self.check_search(searched)?;
        check_window(&timing, &steps)?;
        self.check_fault(&timing, &steps)?;
        if timing.until_stopped() && self.runs > 1 {
            return Err(Error::usage(format!(
                "--runs {} repeats the sweep, but a run time of 0 runs until Ctrl-C, which ends the study: \
                 give each step a run time (--run-time 10m) or drop --runs",
                self.runs
            )));
        }
        let (agent, start_at) = (self.agent()?, self.start_at()?);
        let most = arrivals.map_or_else(|| steps.iter().map(|s| s.users).max().unwrap_or(0), |a| a.users);
        agent::check_share(agent, start_at, most, connections)?;
        if agent.is_part() && self.runs > 1 {
            return Err(Error::usage(format!(
                "--runs {} with --agent {}: the agents' later runs are not laid on one clock, so their parts \
                 would not merge as one process's study: run the agents once per run (a job per run), or \
                 drop --agent",
                self.runs,
                agent.name()
            )));
        }
        if agent.is_part() && (self.restore || self.hooks.logging_flag().is_some()) {
            let flag = if self.restore { "--restore" } else { "--before-run/--after-run/--fault-cmd" };
            return Err(Error::usage(format!(
                "{flag} changes the database or the run for every agent: run it around the agents \
                 (a job step before `srun`), not with --agent"
            )));
        }
        Ok(RunPlan {
            steps,
            connections,
            timing,
            report_interval: pace.report_interval,
            cap,
            stop_after_breach: self.stop_after_breach,
            client_threads: self.client_threads.unwrap_or_else(cores),
            agent,
            start_at,
            search: self.find_max,
        })
    }
    /// The plan of a command that drives several databases side by side (tpcc, ds2, custom, script),
    /// seeded: every database's users together ([`Users`]) planned as [`plan`](Self::plan) does, and
    /// the open loop's arrivals seeded from the run seed (`--run-seed`'s `seed`, else the agents' own,
    /// [`RunPlan::run_seed`]), which the run is given too.
    ///
    /// # Errors
    /// Those of [`plan`](Self::plan), naming `users.flag`.
    pub fn seeded_plan(
        &self,
        cap: Cap,
        users: Users<'_>,
        connections: Option<u32>,
        pace: Pace,
        seed: Option<u64>,
    ) -> Result<SeededPlan, Error> {
        let counts: Vec<u64> = users.each.iter().map(|c| c * users.databases).collect();
        let mut plan = self.plan(cap, &counts, users.flag, connections, pace)?;
        let seed = plan.run_seed(seed);
        plan.seed_arrivals(seed);
        Ok(SeededPlan { plan, seed, counts })
    }

    /// The user counts `load` (given as `flag`) asks for: a sweep's steps, or under `--find-max` the
    /// two ends of the range it searches (in the plan's steps, the search's least and most users); in
    /// an open loop (`pace` has arrivals), its one population, the rates being what is swept or searched.
    ///
    /// # Errors
    /// A usage error naming `flag`: a range without a step for a sweep; for a search, a count or a
    /// list, or a range that does not increase.
    pub fn user_counts(
        &self,
        load: Option<&UserLoad>,
        flag: &str,
        pace: &Pace,
    ) -> Result<Option<Vec<u64>>, Error> {
        // An open loop sweeps or searches its rates; its users are one population (checked with them).
        if pace.arrivals.is_some() {
            return Ok(load.map(|l| l.counts().to_vec()));
        }
        self.levels(load, flag)
    }

    /// The levels a sweep or a search runs from `load`, the value of the flag named `flag`: a sweep's
    /// counts, or a search's two ends.
    fn levels(&self, load: Option<&UserLoad>, flag: &str) -> Result<Option<Vec<u64>>, Error> {
        let Some(load) = load else {
            return match self.find_max {
                Some(_) => Err(no_range(flag)),
                None => Ok(None),
            };
        };
        let counts = match (self.find_max, load.span()) {
            (None, _) => load.sweep().map(<[u64]>::to_vec).map_err(|e| {
                Error::usage(format!(
                    "{flag}: {e}, or search the range for the most users within the cap with --find-max"
                ))
            })?,
            (Some(_), Some((start, end))) if start < end => vec![start, end],
            (Some(_), Some((start, end))) => {
                let (what, e) = searched_words(flag);
                return Err(Error::usage(format!(
                    "{flag} {start}..{end} with --find-max: the range does not increase; give its least {what} \
                     first and its most last (e.g. {flag} {e})"
                )));
            }
            (Some(_), None) => return Err(no_range(flag)),
        };
        Ok(Some(counts))
    }

    /// What `--find-max` cannot be given with, each refused in one line saying why.
    ///
    /// # Errors
    /// A usage error naming the flag at fault.
    fn check_search(&self, flag: &str) -> Result<(), Error> {
        let Some(r) = self.find_max else { return Ok(()) };
        if !(r.resolution_pct > 0.0 && r.resolution_pct <= find_max::MAX_RESOLUTION_PCT) {
            return Err(Error::usage(format!(
                "--resolution {}: give a share of the load above 0 and at most {}% (the default is {}%)",
                r.resolution_pct,
                find_max::MAX_RESOLUTION_PCT,
                find_max::DEFAULT_RESOLUTION_PCT
            )));
        }
        let agent = self.agent()?;
        if agent.is_part() {
            return Err(Error::usage(format!(
                "--find-max with --agent {}: each agent would steer the search by its own share's verdicts, and \
                 agents do not talk to each other: run a sweep over the range on every agent ({flag} A..B:STEP) \
                 and merge the agents' results (report merge)",
                agent.name()
            )));
        }
        if self.restore {
            return Err(Error::usage(
                "--restore with --find-max: the probes of a search follow one another on one database, its users \
                 carrying over, and a restore between them would cost more than the probes: drop --restore (the \
                 probes do not restore), or run a sweep with --restore",
            ));
        }
        if self.stop_after_breach.is_some() {
            return Err(Error::usage(
                "--stop-after-breach ends a sweep; --find-max ends where its search does: drop --stop-after-breach",
            ));
        }
        Ok(())
    }

    /// A planned fault must come before the study ends, or its command never runs (`--fault-at` counts
    /// from the first run's start). The end is known when the steps have fixed times and nothing of
    /// unknown length lies between the runs (a later run's restore or hooks): the runs' steps and the
    /// idle times between them (the first run's idle time comes before the clock starts).
    ///
    /// # Errors
    /// A usage error naming `--fault-at` and the study's length.
    fn check_fault(&self, timing: &Timing, steps: &[StepSpec]) -> Result<(), Error> {
        let Some((at, _)) = &self.hooks.fault else { return Ok(()) };
        if self.find_max.is_some() {
            // A search's length is known only once it ends.
            return Ok(());
        }
        let runs = self.runs.max(1);
        if timing.until_stopped() || (runs > 1 && (self.restore || self.hooks.any())) {
            return Ok(());
        }
        let first: Vec<StepSpec> = steps.iter().filter(|s| s.run <= 1).copied().collect();
        let Some(run) = timing.schedule(&first).last().map(|s| s.window.1) else { return Ok(()) };
        let end = run * runs + self.idle_sample.unwrap_or_default() * (runs - 1);
        if *at < end {
            return Ok(());
        }
        let end = Duration::from_millis(end.as_millis() as u64);
        Err(Error::usage(format!(
            "--fault-at {} is past the study's end ({} from the first run's start), so its command would \
             never run: give a moment within the run",
            humantime::format_duration(*at),
            humantime::format_duration(end)
        )))
    }

    /// Where the result goes: `--out`, or a directory named from the run's start time.
    pub fn result_dir(&self) -> ResultDir {
        self.out.clone().map_or(ResultDir::Dated, ResultDir::Given)
    }

    /// Checks every path the run writes or reads before anything starts: the result's directory
    /// (which must hold nothing but a result, and that only with `--replace`), `--power-log`, `files`
    /// the workload makes (flag, path: none may exist, as oltpgen never writes over a file), every
    /// `--node-exporter` URL and the `--metrics-listen` address (listened on and let go), so that no run
    /// is thrown away at its end, or started, for a path that was wrong from the start.
    ///
    /// # Errors
    /// A usage error naming the flag and the path at fault.
    pub fn check_paths(&self, files: &[(&str, &Path)]) -> Result<(), Error> {
        for url in &self.node_exporters {
            node_exporter_url(url)?;
        }
        if let Some(addr) = self.metrics_listen {
            std::net::TcpListener::bind(addr)
                .map_err(|e| Error::usage(format!("--metrics-listen {addr}: cannot listen there: {e}")))?;
        }
        if let Some(flag) = self.hooks.logging_flag().filter(|_| self.out.is_none()) {
            return Err(Error::usage(format!(
                "{flag} logs its output into the result's directory: give it with --out DIR"
            )));
        }
        self.result_dir().check(self.replace).map_err(|e| Error::usage(format!("--out: {e}")))?;
        for (i, (name, log)) in self.power_logs.iter().enumerate() {
            if self.power_logs[..i].iter().any(|(other, _)| other == name) {
                return Err(Error::usage(format!(
                    "--power-log names the meter {name} twice: give each meter its own label (server=FILE, storage=FILE)"
                )));
            }
            check_power_log(log)?;
        }
        for (flag, file) in files {
            claim::check_new_file(file).map_err(|e| Error::usage(format!("{flag}: {e}")))?;
        }
        Ok(())
    }

    /// Claims the result's directory from the command's start to its end ([`ResultDir::claim`]), so
    /// that a second command writing there is refused at its start: hold it until the result is written.
    ///
    /// # Errors
    /// A usage error naming `--out` and the path at fault.
    pub fn claim_out(&self) -> Result<DirClaim, Error> {
        self.result_dir().claim(self.replace).map_err(|e| Error::usage(format!("--out: {e}")))
    }

    /// Cost, power and the result's directory, as the study's flags ask.
    pub fn options(&self) -> StudyOptions {
        StudyOptions {
            system_cost_usd: self.system_cost_usd,
            power_logs: self.power_logs.clone(),
            idle_sample: self.idle_sample,
            result_dir: Some(self.result_dir()),
            no_counters: self.no_counters,
            node_exporters: self.node_exporters.iter().filter_map(|u| node_exporter_url(u).ok()).collect(),
            metrics_listen: self.metrics_listen,
            fault: self.hooks.fault.clone().zip(self.out.clone()).map(|((at, cmd), out)| PlannedFault {
                at,
                cmd,
                timeout: self.hooks.timeout,
                out,
            }),
        }
    }
}

/// How much of a meter's log is read before the run: its first lines tell a log of another format.
const POWER_LOG_HEAD: u64 = 64 * 1024;

/// Checks, before the run, that `log` is a file whose first lines are a meter's readings
/// (`timestamp,watts`, as [`oltpgen_report::stats::power::parse`] reads them at the end): a log of
/// another format would cost the power figures only once the whole run is over. A meter still writing
/// its log may have written nothing yet, or half a line: only the whole lines present are judged.
///
/// # Errors
/// A usage error naming the file, and the line at fault with the format expected.
fn check_power_log(log: &Path) -> Result<(), Error> {
    use std::io::Read as _;
    let cannot = |e: std::io::Error| Error::usage(format!("--power-log: cannot read {}: {e}", log.display()));
    let file = std::fs::File::open(log).map_err(cannot)?;
    if !file.metadata().map_err(cannot)?.is_file() {
        return Err(cannot(std::io::Error::other("not a file")));
    }
    let mut head = Vec::new();
    file.take(POWER_LOG_HEAD).read_to_end(&mut head).map_err(cannot)?;
    let whole = head.iter().rposition(|&b| b == b'\n').map_or(&head[..0], |end| &head[..=end]);
    let text = std::str::from_utf8(whole).map_err(|_| {
        Error::usage(format!(
            "--power-log {}: not text: give the meter's log as CSV lines of timestamp,watts",
            log.display()
        ))
    })?;
    oltpgen_report::stats::power::parse(text)
        .map_err(|e| Error::usage(format!("--power-log {}: {e}", log.display())))?;
    Ok(())
}

/// The machine's cores: the client threads a run uses unless told (2 when the system cannot say).
fn cores() -> u32 {
    std::thread::available_parallelism().map_or(2, |n| n.get() as u32)
}

/// A `--node-exporter` URL as it is scraped: `http://` or `https://`, a host, no credentials (they
/// would show in the result), and `/metrics` when no path is given.
///
/// # Errors
/// A usage error naming the flag and what is wrong with the URL.
pub fn node_exporter_url(url: &str) -> Result<String, Error> {
    let bad = |why: &str| Error::usage(format!("--node-exporter {url}: {why}"));
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| bad("give an http:// URL, e.g. http://db1:9100/metrics"))?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    if authority.is_empty() {
        return Err(bad("the URL names no host"));
    }
    if authority.contains('@') {
        // The URL is not repeated: it holds a password.
        return Err(Error::usage(
            "--node-exporter: credentials in the URL would show in the result: leave them out",
        ));
    }
    Ok(if path.is_empty() { format!("{}/metrics", url.trim_end_matches('/')) } else { url.to_string() })
}

/// The steps of a sweep repeated `runs` times: the whole sweep once per run (the studies' "three runs"),
/// run after run; counts must not decrease, as users carry over within a run.
fn steps(counts: &[u64], runs: u32, flag: &str) -> Result<Vec<StepSpec>, Error> {
    if let Some(w) = counts.windows(2).find(|w| w[1] < w[0]) {
        return Err(Error::usage(format!(
            "{flag} steps must not decrease (users carry over from step to step): {} comes after {}",
            w[1], w[0]
        )));
    }
    let users = counts
        .iter()
        .map(|&c| {
            u32::try_from(c).map_err(|_| Error::usage(format!("{flag} {c} is more than oltpgen can run")))
        })
        .collect::<Result<Vec<u32>, Error>>()?;
    Ok((1..=runs).flat_map(|run| users.iter().map(move |&users| StepSpec { users, run })).collect())
}

/// `--find-max` without a range to search: one line naming `flag`.
/// What a search over the flag named `flag` steps over, and a range of it for the messages' examples:
/// arrival rates for `--rate`, else users.
fn searched_words(flag: &str) -> (&'static str, &'static str) {
    if flag == "--rate" { ("arrival rates", "100..5000") } else { ("users", "8..4096") }
}

fn no_range(flag: &str) -> Error {
    let (what, e) = searched_words(flag);
    Error::usage(format!(
        "--find-max searches a range of {what}: give {flag} A..B (e.g. {flag} {e}), not a single count or a list"
    ))
}

/// A window measures a step's steady state: it must not start before every user of the step started.
fn check_window(timing: &Timing, steps: &[StepSpec]) -> Result<(), Error> {
    let Some((a, b)) = timing.window else { return Ok(()) };
    match timing.schedule(steps).iter().find(|s| s.window.0 - s.start < s.ramp) {
        Some(s) => Err(Error::usage(format!(
            "--window {}..{} starts before the {} users of step {} have all started (their ramp takes {:.1} s): \
             start it later or ramp faster",
            humantime::format_duration(a),
            humantime::format_duration(b),
            s.spec.users,
            steps.iter().position(|x| *x == s.spec).map_or(1, |i| i + 1),
            s.ramp.as_secs_f64()
        ))),
        None => Ok(()),
    }
}

/// An open loop's `--max-lag` must be shorter than a step (its warmup and measured time, or its
/// `--window`), or no arrival could ever be dropped within one.
///
/// # Errors
/// A usage error naming `--max-lag` and the step's length.
fn check_max_lag(timing: &Timing) -> Result<(), Error> {
    let Some(lag) = timing.arrivals.and_then(|a| a.max_lag) else { return Ok(()) };
    let step = timing.window.map_or(timing.warmup + timing.duration, |(_, b)| b);
    if lag <= step || timing.until_stopped() {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--max-lag {} is longer than a step ({}), so it could drop nothing: give a shorter lag",
        humantime::format_duration(lag),
        humantime::format_duration(step)
    )))
}

/// Connections to start the built-in server with: the most users of any step (`most_users`, `None`
/// when they are known only after a load), or fewer when `connections` shares them.
pub fn connections_to_open(most_users: Option<u64>, connections: Option<u32>) -> u32 {
    most_users.map_or(ROOM_FOR_UNKNOWN_USERS, |u| u64::from(connections.unwrap_or(u32::MAX)).min(u) as u32)
}

/// TPC-C's user counts: `users` as given, or else 4.2.2's terminals of the `scale` warehouses loaded.
pub fn tpcc_users(users: Option<&[u64]>, scale: u32) -> Vec<u64> {
    users.map_or(vec![u64::from(TERMINALS_PER_WAREHOUSE * scale)], <[u64]>::to_vec)
}

/// A note for a TPC-C run with more users per warehouse than the spec's terminals.
pub fn terminals_note(counts: &[u64], scale: u32) -> Option<String> {
    let most = *counts.iter().max()?;
    (most > u64::from(TERMINALS_PER_WAREHOUSE * scale)).then(|| {
        format!(
            "{most} users on {scale} warehouse(s) is {:.0} per warehouse; the spec has \
             {TERMINALS_PER_WAREHOUSE} (load a larger --scale for a spec-shaped run)",
            most as f64 / f64::from(scale)
        )
    })
}

/// Checks the databases one run drives: at most [`MAX_TARGETS`], each named once.
///
/// # Errors
/// A usage error naming `--url`.
pub fn check_targets(targets: &[Target]) -> Result<(), Error> {
    if targets.len() > MAX_TARGETS {
        return Err(Error::usage(format!(
            "{} --url given: oltpgen drives at most {MAX_TARGETS} databases at once",
            targets.len()
        )));
    }
    for (i, t) in targets.iter().enumerate() {
        // One database under two spellings (another user, say) has one key: results could not tell them apart.
        if targets[..i].iter().any(|o| o.key() == t.key()) {
            return Err(Error::usage(format!(
                "--url names {t} twice: give each database once (the users asked for are each database's)"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_only_grow_and_runs_repeat_the_whole_sweep() {
        let s = steps(&[4, 8], 2, "--users").unwrap();
        assert_eq!(s.iter().map(|s| (s.users, s.run)).collect::<Vec<_>>(), [(4, 1), (8, 1), (4, 2), (8, 2)]);
        let e = steps(&[8, 4], 1, "--n-threads").unwrap_err().to_string();
        assert!(e.contains("--n-threads steps must not decrease"), "{e}");
    }

    #[test]
    fn a_window_must_not_start_before_the_step_s_users_started() {
        let s = |a, b| Timing {
            ramp: Ramp::Rate(1.0),
            warmup: Duration::ZERO,
            duration: Duration::from_secs(60),
            window: Some((Duration::from_secs(a), Duration::from_secs(b))),
            arrivals: None,
        };
        let e = check_window(&s(5, 20), &steps(&[10], 1, "--users").unwrap()).unwrap_err().to_string();
        assert!(e.contains("--window 5s..20s starts before the 10 users of step 1 have all started"), "{e}");
        let e = check_window(&s(9, 20), &steps(&[1, 20], 1, "--users").unwrap()).unwrap_err().to_string();
        assert!(e.contains("the 20 users of step 2"), "{e}");
        check_window(&s(10, 20), &steps(&[10, 11], 1, "--users").unwrap()).unwrap();
    }

    #[test]
    fn a_power_log_s_first_whole_lines_are_readings_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("w.csv");
        let check = |text: &str| {
            std::fs::write(&log, text).unwrap();
            check_power_log(&log).map_err(|e| e.to_string())
        };
        // Not begun, a header only, readings and a line the meter is still writing: all fine.
        for fine in ["", "timestamp,watts\n", "# meter 1\n1700000000,250\n17000", "1700000000,250"] {
            check(fine).unwrap();
        }
        let e = check("time;W\n1;2\n").unwrap_err();
        assert!(e.contains("w.csv: line 1: 'time;W' is not 'timestamp,watts'"), "{e}");
        assert!(check("a,b\n1700000000,250\n1700000001,lots\n").unwrap_err().contains("line 3"));
        assert!(check_power_log(dir.path()).unwrap_err().to_string().contains("not a file"));
    }

    #[test]
    fn a_fault_past_the_study_s_end_is_refused_when_the_end_is_known() {
        let pace = |secs| Pace {
            ramp: Ramp::Over(Duration::from_secs(1)),
            warmup: Duration::from_secs(1),
            duration: Duration::from_secs(secs),
            report_interval: Duration::from_secs(1),
            arrivals: None,
            rates: None,
        };
        let flags = |at, runs, restore| StudyFlags {
            runs,
            restore,
            idle_sample: Some(Duration::from_secs(5)),
            hooks: Hooks { fault: Some((Duration::from_secs(at), "true".into())), ..Hooks::default() },
            ..StudyFlags::default()
        };
        let plan = |f: StudyFlags, secs| f.plan(Cap::default(), &[2, 4], "--users", None, pace(secs));
        // Two steps of 1 s ramp + 1 s warmup + 3 s: 10 s a run; three runs and two idle times: 40 s.
        plan(flags(9, 1, false), 3).unwrap();
        let e = plan(flags(10, 1, false), 3).unwrap_err().to_string();
        assert!(e.contains("--fault-at 10s is past the study's end (10s from the first run's start)"), "{e}");
        plan(flags(39, 3, false), 3).unwrap();
        assert!(plan(flags(40, 3, false), 3).is_err());
        // A restore between runs takes a time not known before: not judged.
        plan(flags(40, 3, true), 3).unwrap();
        plan(flags(4000, 1, false), Timing::UNTIL_STOPPED.as_secs()).unwrap();
    }

    #[test]
    fn a_seeded_plan_drives_each_database_s_users_and_seeds_the_arrivals_with_the_run_seed() {
        let pace = |arrivals| Pace {
            ramp: Ramp::Over(Duration::ZERO),
            warmup: Duration::ZERO,
            duration: Duration::from_secs(10),
            report_interval: Duration::from_secs(1),
            arrivals,
            rates: None,
        };
        let flags = StudyFlags { runs: 1, ..StudyFlags::default() };
        let users = |each| Users { each, databases: 3, flag: "--n-threads" };
        let closed = flags.seeded_plan(Cap::default(), users(&[2, 4]), None, pace(None), Some(9)).unwrap();
        assert_eq!(closed.counts, [6, 12]);
        assert_eq!(closed.plan.steps.iter().map(|s| s.users).collect::<Vec<_>>(), [6, 12]);
        assert_eq!(closed.seed, Some(9));
        let open = crate::run::arrivals::Arrivals {
            rate: 100,
            users: 0,
            max_drop: 0,
            spread: crate::run::arrivals::Spread::Poisson,
            seed: 0,
            max_lag: None,
            queue: crate::run::arrivals::Arrivals::QUEUE,
        };
        let seeded = flags.seeded_plan(Cap::default(), users(&[2]), None, pace(Some(open)), Some(9)).unwrap();
        let arrivals = seeded.plan.timing.arrivals.unwrap();
        assert_eq!((arrivals.users, arrivals.seed, seeded.seed), (6, 9, Some(9)));
        let unseeded = flags.seeded_plan(Cap::default(), users(&[2]), None, pace(Some(open)), None).unwrap();
        assert_eq!((unseeded.plan.timing.arrivals.unwrap().seed, unseeded.seed), (0, None));
        let e = flags.seeded_plan(Cap::default(), users(&[2, 4]), None, pace(Some(open)), None).unwrap_err();
        assert!(e.to_string().contains("--n-threads with --rate is the population"), "{e}");
    }

    #[test]
    fn the_built_in_server_has_room_for_the_most_users_or_the_shared_connections() {
        assert_eq!(connections_to_open(None, None), 1000, "users known only after a load");
        assert_eq!(connections_to_open(Some(40), None), 40);
        assert_eq!(connections_to_open(Some(40), Some(8)), 8);
        assert_eq!(connections_to_open(Some(4), Some(8)), 4);
    }

    #[test]
    fn tpcc_runs_ten_users_per_warehouse_unless_told_and_notes_more() {
        assert_eq!(tpcc_users(None, 3), [30]);
        assert_eq!(tpcc_users(Some(&[4, 8]), 3), [4, 8]);
        assert_eq!(terminals_note(&[30], 3), None);
        assert_eq!(
            terminals_note(&[10, 45], 3).as_deref(),
            Some(
                "45 users on 3 warehouse(s) is 15 per warehouse; the spec has 10 (load a larger --scale for a \
                 spec-shaped run)"
            )
        );
    }

    #[test]
    fn a_run_drives_at_most_255_databases_each_once() {
        let t = |i: usize| -> Target { crate::engine::parse_url(&format!("postgres://u@h{i}/db")).unwrap() };
        check_targets(&(0..255).map(t).collect::<Vec<_>>()).unwrap();
        let e = check_targets(&(0..256).map(t).collect::<Vec<_>>()).unwrap_err().to_string();
        assert!(e.contains("256 --url given: oltpgen drives at most 255 databases at once"), "{e}");
        let e = check_targets(&[t(1), t(2), t(1)]).unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn a_node_exporter_url_is_http_names_a_host_and_gets_metrics_as_its_path() {
        assert_eq!(node_exporter_url("http://db1:9100").unwrap(), "http://db1:9100/metrics");
        assert_eq!(node_exporter_url("http://db1:9100/").unwrap(), "http://db1:9100/metrics");
        assert_eq!(node_exporter_url("https://db1/node/metrics").unwrap(), "https://db1/node/metrics");
        for (bad, why) in [
            ("db1:9100", "give an http:// URL"),
            ("http:///metrics", "names no host"),
            ("http://me:pw@db1:9100", "credentials in the URL"),
        ] {
            let e = node_exporter_url(bad).unwrap_err().to_string();
            assert!(e.contains("--node-exporter") && e.contains(why), "{e}");
            assert!(!e.contains("pw@"), "no password shown: {e}");
        }
    }
}
