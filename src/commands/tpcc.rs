//! `oltpgen tpcc [load|run|check|drop]`.

use std::process::ExitCode;

use oltpgen_datagen::tpcc::mix::Pacing;
use oltpgen_driver::Error;
use oltpgen_driver::database::Database;
use oltpgen_driver::inventory::Holding;
use oltpgen_driver::run::{Progress, Ramp};
use oltpgen_driver::tpcc::{self, RunOptions};
use oltpgen_report::model::Workload;

use super::study::{self, Pace};
use super::{checks, interruptible, loading};
use crate::cli::{DbArgs, LoadArgs, RunArgs, TpccAction, TpccCmd, WorkersArg};

/// 4.2.2: each warehouse has 10 terminals (set by the spec, not a knob).
const TERMINALS_PER_WAREHOUSE: u32 = 10;

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
    let opts = loading::options(&args.load, quiet);
    let (scale, seed) = (args.scale, args.load.seed);
    let what = format!("tpcc scale {scale}");
    if let Some(dir) = &args.load.csv {
        return loading::csv(&what, dir, tpcc::write_csv(dir, scale, seed, &opts)).await;
    }
    let target = db.target()?;
    if target.is_none() {
        oltpgen_driver::local::room::check(&db.placement(), oltpgen_driver::local::room::tpcc_bytes(scale))?;
    }
    loading::run(&what, async {
        let database =
            Database::open(target, &db.placement(), opts.workers as u32 + 2, tpcc::WORKLOAD).await?;
        let summary = tpcc::load(&database.target, scale, seed, &opts).await?;
        Ok((database.target.clone(), summary))
    })
    .await
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
    let cap = study::cap(Workload::Tpcc, &args.study)?;
    study::check_paths(&args.study, &[])?;
    let pace = Pace {
        ramp: args.ramp_up.map_or(Ramp::Rate(args.ramp_rate), Ramp::Over),
        warmup: args.warmup,
        duration: args.duration,
        report_interval: args.report_interval,
    };
    if let Some(users) = &args.users {
        // The plan is checked before anything starts when the users are known without the database.
        study::plan(cap.clone(), &args.study, users.counts(), "--users", args.connections, pace)?;
        study::notes("--users", users.notes());
        if let Some(scale) = scale {
            terminals_note(users.counts(), scale);
        }
    }
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
        let conn = oltpgen_driver::engine::Conn::open(target).await?;
        oltpgen_driver::inventory::loaded::<tpcc::Tpcc>(&conn, target).await?.scale
    };
    // 4.2.2: 10 terminals per warehouse.
    let counts: Vec<u64> = args
        .users
        .as_ref()
        .map_or(vec![u64::from(TERMINALS_PER_WAREHOUSE * loaded_scale)], |u| u.counts().to_vec());
    if scale.is_none() {
        terminals_note(&counts, loaded_scale);
    }
    let options = RunOptions {
        plan: study::plan(cap, &args.study, &counts, "--users", args.connections, pace)?,
        pacing: Pacing { keying: args.keying_time, think: args.think_time },
        seed: args.study.seed,
        scale,
        study: study::options(&args.study),
    };
    let plan = &options.plan;
    let result = tpcc::run(target, &options, |p| match p {
        Progress::Started if !quiet => {
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
        Progress::Interval(f) if !quiet => println!(
            "{:>7.0}s  users {:>5}  TPS {:>8.1}  NOPM {:>8.0}  avg {:>7.1} ms  p95 {:>7.1} ms  errors {}",
            f.elapsed_s, f.users, f.tps, f.per_minute, f.avg_ms, f.p95_ms, f.errors
        ),
        Progress::Step(s) => println!("{}", study::step_line(s, "NOPM")),
        Progress::Started | Progress::Interval(_) => {}
    })
    .await?;
    study::finish(&result, &args.study, "", false)
}

/// Notes a run with more users per warehouse than the spec's terminals.
fn terminals_note(counts: &[u64], scale: u32) {
    if let Some(&most) = counts.iter().max()
        && most > u64::from(TERMINALS_PER_WAREHOUSE * scale)
    {
        study::notes(
            "--users",
            &[format!(
                "{most} users on {scale} warehouse(s) is {:.0} per warehouse; the spec has \
                 {TERMINALS_PER_WAREHOUSE} (load a larger --scale for a spec-shaped run)",
                most as f64 / f64::from(scale)
            )],
        );
    }
}

/// Loads at `scale` when `target` holds no TPC-C; returns the scale it holds.
async fn load_when_empty(target: &oltpgen_driver::Target, scale: u32, quiet: bool) -> Result<u32, Error> {
    let conn = oltpgen_driver::engine::Conn::open(target).await?;
    if !matches!(oltpgen_driver::inventory::holding::<tpcc::Tpcc>(&conn, target).await?, Holding::Empty) {
        return Ok(oltpgen_driver::inventory::loaded::<tpcc::Tpcc>(&conn, target).await?.scale);
    }
    let opts = loading::default_options(quiet);
    let s = tpcc::load(target, scale, 1, &opts).await?;
    println!("{}", loading::summary(&format!("tpcc scale {scale}"), target, &s));
    Ok(scale)
}

async fn check(workers: &WorkersArg, db: &DbArgs) -> Result<ExitCode, Error> {
    let database =
        Database::open(db.target()?, &db.placement(), workers.get() as u32, tpcc::WORKLOAD).await?;
    let clauses = tpcc::check(&database.target, workers.get()).await?;
    checks::report(&database.target, &clauses)
}

async fn drop(db: &DbArgs) -> Result<ExitCode, Error> {
    let database = Database::open(db.target()?, &db.placement(), 2, tpcc::WORKLOAD).await?;
    checks::dropped(&database.target, "tpcc", tpcc::drop_all(&database.target).await?);
    Ok(ExitCode::SUCCESS)
}
