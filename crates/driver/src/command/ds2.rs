//! `oltpgen ds2 run` as the driver runs it (its load, check and drop are [`super::workload`]'s): DVD Store 2 with its driver's flags,
//! progress lines, `--csv-output` and final report, on one database or several side by side.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oltpgen_datagen::ds2::input::OrderParams;
use oltpgen_datagen::ds2::size::DbSize;
use oltpgen_report::model::ds2_progress::Ds2Progress;
use oltpgen_report::model::users::UserLoad;
use oltpgen_report::render::csv::ds2::CsvOutput;
use oltpgen_report::render::text::{ds2 as ds2_report, live};

use super::cycle::StudyCycle;
use super::workload::{self, Opened};
use super::{Console, Databases, Exit, before_the_run, finish};
use crate::database::Database;
use crate::ds2::{self, Ds2, RunOptions};
use crate::run::arrivals::{self, Arrivals};
use crate::run::{Pace, Progress, Ramp, SeededPlan, StudyFlags, Timing, Users, plan};
use crate::{Error, Target};
use oltpgen_vocab::claim::{DirClaim, FileClaim};
use oltpgen_vocab::tpcc::Transactions;

/// A DS2 run as the flags ask for it, in DS2's driver's terms.
#[derive(Clone, Debug)]
pub struct Ds2Run {
    /// Bare `ds2`: load every empty database at `--db-size` (default S) first.
    pub load_if_empty: bool,
    /// `--n-threads`: users per database, one step per count.
    pub n_threads: UserLoad,
    /// `--connections` per database, or `None` for one per user.
    pub connections: Option<u32>,
    /// `--ramp-rate`: users started per second.
    pub ramp_rate: f64,
    /// `--run-time`: measured time per step; zero runs until Ctrl-C (unless a window is given).
    pub run_time: Duration,
    /// `--warmup-time`.
    pub warmup_time: Duration,
    /// `--report-rate`: the progress lines' period.
    pub report_rate: Duration,
    /// `--think-time`: mean think time between a user's orders.
    pub think_time: Duration,
    /// `--rate` and its flags: orders arriving at a rate; `None`: each user's follows its last.
    pub arrivals: Option<Arrivals>,
    /// `--rate`'s value, per second.
    pub rates: Option<UserLoad>,
    /// What orders look like (`--pct-newcustomers`, `--n-searches`, …).
    pub orders: OrderParams,
    /// `--db-size`: the size every database must hold (and an empty one is loaded at).
    pub db_size: Option<DbSize>,
    /// `--csv-output`: every progress interval as a CSV row, as it happens.
    pub csv_output: Option<PathBuf>,
    /// `--detailed-view`: per-database progress lines and per-operation figures at the end.
    pub detailed_view: bool,
    /// DS2's `--linux_perf_host` was given: refused, as it carries a password on the command line.
    pub linux_perf_host: bool,
    /// `--run-seed`.
    pub seed: Option<u64>,
    /// `--transactions`: server-side or client-side operations, or `None` for server-side.
    pub transactions: Option<Transactions>,
    /// The cap, repetitions, cost, power and where the result goes.
    pub study: StudyFlags,
    /// `--quiet`: no progress lines.
    pub quiet: bool,
}

impl Ds2Run {
    /// Whether the run goes on until Ctrl-C: no run time and no window (which ends each step itself).
    fn until_stopped(&self) -> bool {
        self.run_time.is_zero() && self.study.window.is_none()
    }

    /// How users start and how long each step lasts.
    fn pace(&self) -> Pace {
        Pace {
            ramp: Ramp::Rate(self.ramp_rate),
            warmup: self.warmup_time,
            duration: if self.until_stopped() { Timing::UNTIL_STOPPED } else { self.run_time },
            report_interval: self.report_rate,
            arrivals: self.arrivals,
            rates: self.rates.clone(),
        }
    }
}

/// A DS2 run checked, its databases open (and loaded, for bare `ds2`), `--out` and `--csv-output`
/// claimed: what [`plan()`] returns and [`Ds2Plan::run`] runs.
pub struct Ds2Plan {
    /// The built-in server, while the plan lives, when it is the database.
    _database: Option<Database>,
    /// The databases driven side by side.
    targets: Vec<Target>,
    /// The run's plan and options.
    options: RunOptions,
    /// The request, for the header and the lines.
    req: Ds2Run,
    /// `--csv-output`, made when the plan was, until the run's intervals are in it.
    csv_claim: Option<FileClaim>,
    /// The hold on `--out`, until the result is written: a second command writing there is refused at
    /// its start.
    _out: DirClaim,
}

/// `ds2 run`, and bare `ds2` ([`Ds2Run::load_if_empty`]): [`plan()`], then [`Ds2Plan::run`].
///
/// # Errors
/// As [`plan()`] and [`Ds2Plan::run`].
pub async fn run(req: &Ds2Run, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    before_the_run(plan(req, db, console).await)?.run(console).await
}

/// Checks every flag and path of `req` before anything starts, claims `--out` and `--csv-output`, and
/// opens every database `db` names (or the built-in PostgreSQL), loading each empty one for bare `ds2`.
///
/// # Errors
/// Bad flags or paths, a database named twice, a server that cannot be reached, the interruption.
pub async fn plan(req: &Ds2Run, db: &Databases, console: &mut dyn Console) -> Result<Ds2Plan, Error> {
    if req.linux_perf_host {
        // Its value is not repeated: it holds a password.
        return Err(Error::usage(
            "--linux_perf_host puts a password on the command line: oltpgen reads a database host's counters \
             from its node_exporter instead (--node-exporter http://HOST:9100/metrics)",
        ));
    }
    let study = &req.study;
    arrivals::refuse_waits(req.arrivals.as_ref(), "--think-time", !req.think_time.is_zero())?;
    let cap = study.cap(&ds2::PROFILE.descriptor)?;
    let csv_output = req.csv_output.as_deref().map(|p| ("--csv-output", p));
    study.check_paths(csv_output.as_slice())?;
    console.notes("--n-threads", req.n_threads.notes());
    let threads = study.user_counts(Some(&req.n_threads), "--n-threads", &req.pace())?.unwrap_or_default();
    let most = threads.iter().copied().max().unwrap_or(1);
    let connections = plan::connections_to_open(Some(most), req.connections);
    // Every database gets the same users; the built-in PostgreSQL is one.
    let n = db.targets()?.len().max(1) as u64;
    let users = Users { each: &threads, databases: n, flag: "--n-threads" };
    let SeededPlan { plan, seed, .. } =
        study.seeded_plan(cap, users, req.connections, req.pace(), req.seed)?;
    let options = RunOptions {
        seed,
        plan,
        orders: req.orders,
        think_mean: req.think_time,
        db_size: req.db_size.map(|s| s.to_string()),
        transactions: req.transactions,
        study: study.options(),
    };
    workload::refuse(&Ds2, study, db, req.load_if_empty)?;
    // A command that fails removes what its claims made.
    let out = study.claim_out()?;
    let csv_claim = req
        .csv_output
        .as_deref()
        .map(FileClaim::take)
        .transpose()
        .map_err(|e| Error::usage(format!("--csv-output: {e}")))?;
    let size = req.load_if_empty.then(|| req.db_size.unwrap_or_default());
    let Opened { database, targets } =
        workload::open(&Ds2, db, connections, size, req.quiet, console).await?;
    Ok(Ds2Plan { _database: database, targets, options, req: req.clone(), csv_claim, _out: out })
}

impl Ds2Plan {
    /// Runs the plan with DS2's progress lines (and `--csv-output` rows) per interval, and writes the
    /// result and DS2's final report (also after Ctrl-C).
    ///
    /// # Errors
    /// A database not ready for the run, `--csv-output` that cannot be written, a result that cannot be
    /// written, a server that went away for good, the interruption.
    pub async fn run(mut self, console: &mut dyn Console) -> Result<Exit, Error> {
        let req = &self.req;
        let labels: Vec<String> = self.targets.iter().map(|t| t.label().to_string()).collect();
        let mut csv = match (&mut self.csv_claim, &req.csv_output) {
            (Some(claim), Some(path)) => Some(csv_output_file(claim, path, &labels)?),
            _ => None,
        };
        let cap = self.options.plan.cap.to_string();
        let header = ds2_report::Ds2Header {
            labels: &labels,
            threads: req.n_threads.counts(),
            steps: self.options.plan.of_run(1).steps.len(),
            runs: self.options.plan.runs(),
            ramp_rate: req.ramp_rate,
            warmup: req.warmup_time,
            run_time: (!req.until_stopped()).then_some(req.run_time),
            window: req.study.window,
            think: req.think_time,
            pct_newcustomers: req.orders.pct_newcustomers,
            cap: &cap,
        };
        let mut lines =
            ProgressLines { quiet: req.quiet, detailed: req.detailed_view, labels: &labels, reset_at_s: 0.0 };
        let mut csv_error = None;
        let mut cycle = StudyCycle::new(Ds2, &req.study, &self.targets, req.quiet, console.err_lines());
        let runs = self.options.plan.runs();
        let studied = ds2::run(&self.targets, &self.options, &mut cycle, |p| match p {
            Progress::Started(1) if !req.quiet => console.line(&ds2_report::header(&header)),
            Progress::Started(run) if !req.quiet => console.line(&live::run_line(run, runs)),
            Progress::Started(_) => {}
            Progress::Interval(f) => {
                let (all, each) = ds2::progress(f);
                lines.say(f.since_reset.reset_at_s, &all, &each, console);
                let note = f.arrivals_note();
                if !req.quiet && !note.is_empty() {
                    console.line(&format!("  arrivals: {}", note.trim_start()));
                }
                if let Some(probe) = f.probe.as_ref().filter(|_| !req.quiet) {
                    console.line(&format!("  probe: {probe}"));
                }
                if let Some(out) = csv.as_mut()
                    && let Err(e) = out.write(&all, &each)
                {
                    csv_error.get_or_insert(e);
                }
            }
            Progress::Step(s) => console.line(&ds2_report::step_line(s)),
        })
        .await?;
        // The run's intervals are in it: kept, whatever the end.
        self.csv_claim.iter_mut().for_each(FileClaim::keep);
        if let Some(e) = csv_error {
            console.err_line(&format!("warning: --csv-output stopped: {e}"));
        }
        let extra = ds2_report::final_report(&studied.result, req.detailed_view);
        finish::finish(studied, &req.study, &extra, &self.targets, console).await
    }
}

/// The progress lines DS2's driver prints every interval: the total, and each database's with
/// `--detailed-view`, after a line saying when the statistics were reset.
struct ProgressLines<'a> {
    /// `--quiet`: none.
    quiet: bool,
    /// `--detailed-view`.
    detailed: bool,
    /// The databases' names, in order.
    labels: &'a [String],
    /// When the statistics were last reset, on the run's clock.
    reset_at_s: f64,
}

impl ProgressLines<'_> {
    /// Says one interval's lines (`reset_at_s`: the latest reset; `all`: the total; `each`: per database).
    fn say(&mut self, reset_at_s: f64, all: &Ds2Progress, each: &[Ds2Progress], console: &mut dyn Console) {
        if self.quiet {
            return;
        }
        if reset_at_s != self.reset_at_s {
            self.reset_at_s = reset_at_s;
            console.line(ds2_report::STATS_RESET);
        }
        console.line(&ds2_report::progress_line(all));
        if self.detailed {
            for (label, p) in self.labels.iter().zip(each) {
                console.line(&format!("  {label}: {}", ds2_report::progress_line(p)));
            }
        }
    }
}

/// `--csv-output`, made at `path` when the command started (`claim`), its header written, for the
/// databases `labels` name.
fn csv_output_file(
    claim: &mut FileClaim,
    path: &Path,
    labels: &[String],
) -> Result<CsvOutput<BufWriter<File>>, Error> {
    let file = claim
        .file()
        .ok_or_else(|| Error::failed(format!("--csv-output: {} was opened twice", path.display())))?;
    CsvOutput::new(BufWriter::new(file), labels.to_vec())
        .map_err(|e| Error::usage(format!("--csv-output: cannot write {}: {e}", path.display())))
}
