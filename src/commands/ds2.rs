//! `oltpgen ds2 [load|run|check|drop]`: DVD Store 2, with its driver's flags, progress lines and final
//! report, on one database or several side by side.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::process::ExitCode;

use oltpgen_datagen::ds2::input::OrderParams;
use oltpgen_driver::database::Database;
use oltpgen_driver::ds2::{self, RunOptions};
use oltpgen_driver::local::room;
use oltpgen_driver::run::{Pace, Progress, Ramp, Timing, plan};
use oltpgen_driver::{Error, Target};
use oltpgen_report::claim::FileClaim;
use oltpgen_report::model::Workload;
use oltpgen_report::render::csv::ds2::CsvOutput;
use oltpgen_report::render::text::ds2 as ds2_report;

use super::study;
use super::{checks, interruptible, loading};
use crate::cli::{DbArgs, Ds2Action, Ds2Cmd, Ds2LoadArgs, Ds2RunArgs, WorkersArg};

/// Runs one DS2 command.
pub async fn run(cmd: Ds2Cmd, db: &DbArgs, quiet: bool) -> Result<ExitCode, Error> {
    match cmd.action {
        None => drive(&cmd.run, true, db, quiet).await,
        Some(Ds2Action::Run(args)) => drive(&args, false, db, quiet).await,
        Some(Ds2Action::Load(args)) => load(&args, db, quiet).await,
        Some(Ds2Action::Check(workers)) => interruptible("the check", check(&workers, db)).await,
        Some(Ds2Action::Drop) => interruptible("the drop", drop(db)).await,
    }
}

async fn load(args: &Ds2LoadArgs, db: &DbArgs, quiet: bool) -> Result<ExitCode, Error> {
    let opts = loading::options(&args.load, quiet);
    let (size, seed) = (args.db_size, args.load.seed);
    let what = format!("ds2 --db-size {size}");
    if let Some(dir) = &args.load.csv {
        return loading::csv(&what, dir, ds2::write_csv(dir, size, seed, &opts)).await;
    }
    let target = db.target()?;
    if target.is_none() {
        room::check(&db.placement(), room::ds2_bytes(size))?;
    }
    loading::run(&what, async {
        let database =
            Database::open(target, &db.placement(), opts.workers as u32 + 2, ds2::WORKLOAD).await?;
        let summary = ds2::load(&database.target, size, seed, &opts).await?;
        Ok((database.target.clone(), summary))
    })
    .await
}

/// `ds2 run`, and bare `ds2` (`load_if_empty`): drive every `--url` side by side (or the built-in
/// PostgreSQL), print a progress line per `--report-rate`, write the result (also after Ctrl-C).
async fn drive(args: &Ds2RunArgs, load_if_empty: bool, db: &DbArgs, quiet: bool) -> Result<ExitCode, Error> {
    let study = args.study.flags();
    let cap = study.cap(Workload::Ds2)?;
    let csv_output = args.csv_output.as_deref().map(|p| ("--csv-output", p));
    study.check_paths(csv_output.as_slice())?;
    study::notes("--n-threads", args.n_threads.notes());
    let per_target = args.n_threads.counts();
    let most = per_target.iter().copied().max().unwrap_or(1);
    let connections = plan::connections_to_open(Some(most), args.connections);
    // Every database gets the same users; the built-in PostgreSQL is one.
    let n = db.targets()?.len().max(1) as u64;
    let counts: Vec<u64> = per_target.iter().map(|c| c * n).collect();
    // A window ends each step where it ends.
    let until_stopped = args.run_time.is_zero() && args.study.window.is_none();
    let pace = Pace {
        ramp: Ramp::Rate(args.ramp_rate),
        warmup: args.warmup_time,
        duration: if until_stopped { Timing::UNTIL_STOPPED } else { args.run_time },
        report_interval: args.report_rate,
    };
    let options = RunOptions {
        plan: study.plan(cap, &counts, "--n-threads", args.connections, pace)?,
        orders: OrderParams {
            pct_newcustomers: args.pct_newcustomers,
            n_searches: args.n_searches,
            search_batch_size: args.search_batch_size,
            n_line_items: args.n_line_items,
        },
        think_mean: args.think_time,
        db_size: args.db_size.map(|s| s.to_string()),
        seed: args.study.seed,
        study: study.options(),
    };
    if !load_if_empty {
        db.refuse_empty_instance("ds2", "run")?;
    }
    // Held until the result is written: a second command writing into --out or --csv-output is
    // refused at its start, and a command that fails removes what it made.
    let _out = study.claim_out()?;
    let mut csv_claim = args
        .csv_output
        .as_deref()
        .map(FileClaim::take)
        .transpose()
        .map_err(|e| Error::usage(format!("--csv-output: {e}")))?;
    let (database, targets) = interruptible("starting", databases(db, connections)).await?;
    if load_if_empty {
        let (size, opts) = (args.db_size.unwrap_or_default(), loading::default_options(quiet));
        let placement = db.placement();
        let room = database.is_some().then(|| (&placement, room::ds2_bytes(size)));
        let what = format!("ds2 --db-size {size}");
        for target in &targets {
            loading::load_when_empty::<ds2::Ds2, _>(target, &what, room, || {
                ds2::load(target, size, 1, &opts)
            })
            .await?;
        }
    }
    let labels: Vec<String> = targets.iter().map(|t| t.label().to_string()).collect();
    let mut csv = match (&mut csv_claim, &args.csv_output) {
        (Some(claim), Some(path)) => Some(csv_output_file(claim, path, &labels)?),
        _ => None,
    };
    let cap = options.plan.cap.to_string();
    let header = ds2_report::Ds2Header {
        labels: &labels,
        threads: per_target,
        steps: options.plan.steps.len(),
        ramp_rate: args.ramp_rate,
        warmup: args.warmup_time,
        run_time: (!until_stopped).then_some(args.run_time),
        window: args.study.window,
        think: args.think_time,
        pct_newcustomers: args.pct_newcustomers,
        cap: &cap,
    };
    let mut csv_error = None;
    let mut reset_at_s = 0.0;
    let result = ds2::run(&targets, &options, |p| match p {
        Progress::Started if !quiet => println!("{}", ds2_report::header(&header)),
        Progress::Started => {}
        Progress::Interval(f) => {
            let (all, each) = ds2::progress(f);
            if !quiet {
                if f.since_reset.reset_at_s != reset_at_s {
                    reset_at_s = f.since_reset.reset_at_s;
                    println!("{}", ds2_report::STATS_RESET);
                }
                println!("{}", ds2_report::progress_line(&all));
                if args.detailed_view {
                    for (label, p) in labels.iter().zip(&each) {
                        println!("  {label}: {}", ds2_report::progress_line(p));
                    }
                }
            }
            if let Some(out) = csv.as_mut()
                && let Err(e) = out.write(&all, &each)
            {
                csv_error.get_or_insert(e);
            }
        }
        Progress::Step(s) => println!("{}", ds2_report::step_line(s)),
    })
    .await?;
    // The run's intervals are in it: kept, whatever the end.
    csv_claim.iter_mut().for_each(FileClaim::keep);
    if let Some(e) = csv_error {
        eprintln!("warning: --csv-output stopped: {e}");
    }
    let extra = oltpgen_report::render::text::ds2::final_report(&result, args.detailed_view);
    study::finish(&result, &args.study, &extra, &targets).await
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

/// Loads `target` at `size` when it holds no DS2.
/// The databases a DS2 command works on: every `--url`, or else the built-in PostgreSQL, started with
/// room for `connections` (it runs while the returned [`Database`] lives).
async fn databases(db: &DbArgs, connections: u32) -> Result<(Option<Database>, Vec<Target>), Error> {
    let urls = db.targets()?;
    if !urls.is_empty() {
        return Ok((None, urls));
    }
    let database = Database::open(None, &db.placement(), connections, ds2::WORKLOAD).await?;
    let targets = vec![database.target.clone()];
    Ok((Some(database), targets))
}

async fn check(workers: &WorkersArg, db: &DbArgs) -> Result<ExitCode, Error> {
    db.refuse_empty_instance("ds2", "check")?;
    let (_database, targets) = databases(db, workers.get() as u32).await?;
    let mut outcome = Ok(ExitCode::SUCCESS);
    for target in &targets {
        let clauses = ds2::check(target, workers.get()).await?;
        if targets.len() > 1 {
            println!("{target}:");
        }
        let verdict = checks::report(target, &clauses);
        if outcome.is_ok() {
            outcome = verdict;
        }
    }
    outcome
}

async fn drop(db: &DbArgs) -> Result<ExitCode, Error> {
    let database = Database::open(db.target()?, &db.placement(), 2, ds2::WORKLOAD).await?;
    checks::dropped(
        &database.target,
        ds2::WORKLOAD,
        oltpgen_driver::load::drop_all::<ds2::Ds2>(&database.target).await?,
    );
    Ok(ExitCode::SUCCESS)
}
