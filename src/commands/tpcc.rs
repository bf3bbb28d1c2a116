//! `oltpgen tpcc [load|run|check|drop]`.

use std::process::ExitCode;

use oltpgen_datagen::tpcc::mix::Pacing;
use oltpgen_driver::Error;
use oltpgen_driver::database::Database;
use oltpgen_driver::inventory::Holding;
use oltpgen_driver::load::LoadOptions;
use oltpgen_driver::run::{Progress, Ramp, RunPlan, StepSpec, StudyOptions, Timing};
use oltpgen_driver::tpcc::RunOptions;
use oltpgen_driver::tpcc::{self, ClauseOutcome};

use super::interruptible;
use crate::cli::{DbArgs, LoadArgs, RunArgs, TpccAction, TpccCmd, WorkersArg};

/// Runs one TPC-C command.
pub async fn run(cmd: TpccCmd, db: &DbArgs, quiet: bool) -> Result<ExitCode, Error> {
    match cmd.action {
        None => drive(&cmd.run, cmd.scale, true, db, quiet).await,
        Some(TpccAction::Run(args)) => drive(&args, None, false, db, quiet).await,
        Some(TpccAction::Load(args)) => load(&args, db, quiet).await,
        Some(TpccAction::Check(workers)) => interruptible("the check", check(&workers, db)).await,
        Some(TpccAction::Drop) => interruptible("the drop", drop(db)).await,
    }
}

async fn load(args: &LoadArgs, db: &DbArgs, quiet: bool) -> Result<ExitCode, Error> {
    let opts = LoadOptions { workers: args.workers.get(), replace: args.replace, quiet };
    if let Some(dir) = &args.csv {
        let started = std::time::Instant::now();
        let rows = interruptible("writing the CSV files", tpcc::write_csv(dir, args.scale, args.seed, &opts))
            .await?;
        println!(
            "wrote {rows} rows of tpcc scale {} as CSV into {} in {:.1} s",
            args.scale,
            dir.display(),
            started.elapsed().as_secs_f64()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let target = db.target()?;
    let summary = interruptible("the load", async {
        let database =
            Database::open(target, &db.placement(), opts.workers as u32 + 2, tpcc::WORKLOAD).await?;
        let summary = tpcc::load(&database.target, args.scale, args.seed, &opts).await?;
        Ok((database.target.clone(), summary))
    })
    .await;
    let (target, s) = summary.map_err(|e| match e {
        Error::Interrupted(why) => Error::Interrupted(format!(
            "{why}; the database is marked half-loaded: run the load again with --replace"
        )),
        other => other,
    })?;
    println!(
        "loaded tpcc scale {} into {target}: {} rows in {:.1} s ({:.0} rows/s; copy {:.1} s, keys and ANALYZE {:.1} s)",
        args.scale,
        s.rows,
        s.total.as_secs_f64(),
        s.rows as f64 / s.copy.as_secs_f64().max(1e-9),
        s.copy.as_secs_f64(),
        s.indexes.as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// `tpcc run`, and bare `tpcc` (`load_if_empty`): drive the database, print a live line per interval,
/// write the result (also after Ctrl-C, which then exits 130).
async fn drive(
    args: &RunArgs,
    scale: Option<u32>,
    load_if_empty: bool,
    db: &DbArgs,
    quiet: bool,
) -> Result<ExitCode, Error> {
    let target = db.target()?;
    // The built-in server is sized for the run's connections (the users are known only after a load at
    // the default of 10 per warehouse: room for 1,000 then).
    let max_users = args.users.as_ref().and_then(|u| u.counts().iter().max().copied());
    let connections =
        max_users.map_or(1000, |u| u64::from(args.connections.unwrap_or(u32::MAX)).min(u)) as u32;
    let database =
        interruptible("starting", Database::open(target, &db.placement(), connections, tpcc::WORKLOAD))
            .await?;
    let target = &database.target;
    let loaded_scale = if load_if_empty {
        interruptible("the load", load_when_empty(target, scale.unwrap_or(1), quiet)).await?
    } else {
        let client = oltpgen_driver::pg::connect(target).await?;
        tpcc::loaded(&client, target).await?.scale
    };
    let counts: Vec<u64> =
        args.users.as_ref().map_or(vec![u64::from(10 * loaded_scale)], |u| u.counts().to_vec());
    let plan = RunPlan {
        steps: steps(&counts, args.runs)?,
        connections: args.connections,
        timing: Timing {
            ramp: args.ramp_up.map_or(Ramp::Rate(args.ramp_rate), Ramp::Over),
            warmup: args.warmup,
            duration: args.duration,
            window: args.window,
        },
        report_interval: args.report_interval,
        cap: args.rt_cap.clone(),
        stop_after_breach: args.stop_after_breach,
    };
    let options = RunOptions {
        plan,
        pacing: Pacing { keying: args.keying_time, think: args.think_time },
        seed: args.seed,
        scale,
        study: StudyOptions {
            system_cost_usd: args.system_cost,
            power_log: args.power_log.clone(),
            idle_sample: args.idle_sample,
        },
    };
    let plan = &options.plan;
    if !quiet {
        let users: Vec<String> = counts.iter().map(u64::to_string).collect();
        println!(
            "running tpcc on {target}: {} users in {} step(s), up to {} connections, warmup {:.0} s, measuring {:.0} s \
             per step (keying {}, think {}, cap {})",
            users.join(","),
            plan.steps.len(),
            plan.connections_needed(),
            plan.timing.warmup.as_secs_f64(),
            plan.timing.duration.as_secs_f64(),
            options.pacing.keying,
            options.pacing.think,
            plan.cap
        );
    }
    let result = tpcc::run(target, &options, |p| match p {
        Progress::Interval(f) if !quiet => println!(
            "{:>7.0}s  users {:>5}  TPS {:>8.1}  NOPM {:>8.0}  avg {:>7.1} ms  p95 {:>7.1} ms  errors {}",
            f.elapsed_s, f.users, f.tps, f.per_minute, f.avg_ms, f.p95_ms, f.errors
        ),
        Progress::Step(s) => println!(
            "step {} (run {}): {} users  TPS {:.1}  NOPM {:.0}  avg {:.1} ms  p95 {:.1} ms  errors {}  cap {}",
            s.index + 1,
            s.run,
            s.users,
            s.figures.tps,
            s.figures.nopm.unwrap_or(0.0),
            s.figures.rt_avg_ms,
            s.figures.rt_p95_ms,
            s.figures.errors,
            if s.cap.as_ref().is_some_and(|c| c.passed) { "pass" } else { "FAIL" }
        ),
        Progress::Interval(_) => {}
    })
    .await?;
    let out = args.out.clone().unwrap_or_else(|| default_out_dir("tpcc"));
    oltpgen_report::output::write_dir(&out, &result)
        .map_err(|e| Error::failed(format!("cannot write the result into {}: {e}", out.display())))?;
    print!("{}", oltpgen_report::show::render(&result));
    let cpu = result.client.client_cpu_us_per_txn.map_or("n/a".into(), |us| format!("{us:.0} µs"));
    println!("client CPU {cpu} per transaction; result in {}", out.display());
    if result.interrupted {
        return Err(Error::Interrupted(format!(
            "the run stopped early; the result of what ran is in {}",
            out.display()
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// The steps of a sweep: every user count `runs` times; counts must not decrease, as users carry over.
fn steps(counts: &[u64], runs: u32) -> Result<Vec<StepSpec>, Error> {
    if let Some(w) = counts.windows(2).find(|w| w[1] < w[0]) {
        return Err(Error::usage(format!(
            "--users steps must not decrease (users carry over from step to step): {} comes after {}",
            w[1], w[0]
        )));
    }
    let mut steps = Vec::with_capacity(counts.len() * runs as usize);
    for &c in counts {
        let users = u32::try_from(c)
            .map_err(|_| Error::usage(format!("--users {c} is more than oltpgen can run")))?;
        steps.extend((1..=runs).map(|run| StepSpec { users, run }));
    }
    Ok(steps)
}

/// Loads at `scale` when `target` holds no TPC-C; returns the scale it holds.
async fn load_when_empty(target: &oltpgen_driver::Target, scale: u32, quiet: bool) -> Result<u32, Error> {
    let client = oltpgen_driver::pg::connect(target).await?;
    if !matches!(tpcc::holding(&client, target).await?, Holding::Empty) {
        return Ok(tpcc::loaded(&client, target).await?.scale);
    }
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let opts = LoadOptions { workers, replace: false, quiet };
    let s = tpcc::load(target, scale, 1, &opts).await?;
    println!("loaded tpcc scale {scale} into {target}: {} rows in {:.1} s", s.rows, s.total.as_secs_f64());
    Ok(scale)
}

/// `results/<UTC time>-<workload>`, in the current directory.
fn default_out_dir(workload: &str) -> std::path::PathBuf {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    std::path::PathBuf::from("results").join(format!("{}-{workload}", now.replace(':', "")))
}

async fn check(workers: &WorkersArg, db: &DbArgs) -> Result<ExitCode, Error> {
    let database =
        Database::open(db.target()?, &db.placement(), workers.get() as u32, tpcc::WORKLOAD).await?;
    let clauses = tpcc::check(&database.target, workers.get()).await?;
    let mut failed = Vec::new();
    for c in &clauses {
        match &c.outcome {
            ClauseOutcome::Pass => println!("{:<9} pass  {}", c.number, c.title),
            ClauseOutcome::NotApplicable(why) => println!("{:<9} n/a   {} ({why})", c.number, c.title),
            ClauseOutcome::Fail { count, examples } => {
                println!(
                    "{:<9} FAIL  {}: {count} offending, e.g. {}",
                    c.number,
                    c.title,
                    examples.join("; ")
                );
                failed.push(c.number.as_str());
            }
        }
    }
    if failed.is_empty() {
        println!("consistent: every condition that applies holds ({})", database.target);
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Error::failed(format!(
            "{} of 12 consistency conditions fail: {}",
            failed.len(),
            failed.join(", ")
        )))
    }
}

async fn drop(db: &DbArgs) -> Result<ExitCode, Error> {
    let database = Database::open(db.target()?, &db.placement(), 2, tpcc::WORKLOAD).await?;
    if tpcc::drop_all(&database.target).await? {
        println!("dropped the tpcc tables from {}", database.target);
    } else {
        println!("{} holds no tpcc tables: nothing to drop", database.target);
    }
    Ok(ExitCode::SUCCESS)
}
