//! `oltpgen tpcc [load|run|check|drop]`.

use std::process::ExitCode;

use oltpgen_datagen::tpcc::mix::Pacing;
use oltpgen_driver::Error;
use oltpgen_driver::database::Database;
use oltpgen_driver::engine::Conn;
use oltpgen_driver::inventory;
use oltpgen_driver::local::room;
use oltpgen_driver::run::{Pace, Progress, Ramp, plan};
use oltpgen_driver::tpcc::{self, RunOptions};
use oltpgen_report::model::Workload;
use oltpgen_report::model::users::UserLoad;
use oltpgen_report::render::text::live;

use super::study;
use super::{checks, interruptible, loading};
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
    let opts = loading::options(&args.load, quiet);
    let (scale, seed) = (args.scale, args.load.seed);
    let what = format!("tpcc scale {scale}");
    if let Some(dir) = &args.load.csv {
        return loading::csv(&what, dir, tpcc::write_csv(dir, scale, seed, &opts)).await;
    }
    let target = db.target()?;
    if target.is_none() {
        room::check(&db.placement(), room::tpcc_bytes(scale))?;
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
    let study = args.study.flags();
    let cap = study.cap(Workload::Tpcc)?;
    study.check_paths(&[])?;
    let pace = Pace {
        ramp: args.ramp_up.map_or(Ramp::Rate(args.ramp_rate), Ramp::Over),
        warmup: args.warmup,
        duration: args.duration,
        report_interval: args.report_interval,
    };
    let users = args.users.as_ref().map(UserLoad::counts);
    if let Some(counts) = users {
        // The plan is checked before anything starts when the users are known without the database.
        study.plan(cap.clone(), counts, "--users", args.connections, pace)?;
        study::notes("--users", args.users.as_ref().map_or(&[], |u| u.notes()));
        if let Some(scale) = scale {
            study::notes("--users", plan::terminals_note(counts, scale).as_slice());
        }
    }
    if !load_if_empty {
        db.refuse_empty_instance("tpcc", "run")?;
    }
    let target = db.target()?;
    // Held until the result is written: a second command writing into --out is refused at its start.
    let _out = study.claim_out()?;
    // The built-in server is sized for the run's connections.
    let most_users = users.and_then(|u| u.iter().max().copied());
    let connections = plan::connections_to_open(most_users, args.connections);
    let database =
        interruptible("starting", Database::open(target, &db.placement(), connections, tpcc::WORKLOAD))
            .await?;
    let target = &database.target;
    if load_if_empty {
        let (scale, opts) = (scale.unwrap_or(1), loading::default_options(quiet));
        let placement = db.placement();
        let room = database.is_builtin().then(|| (&placement, room::tpcc_bytes(scale)));
        let what = format!("tpcc scale {scale}");
        loading::load_when_empty::<tpcc::Tpcc, _>(target, &what, room, || {
            tpcc::load(target, scale, 1, &opts)
        })
        .await?;
    }
    let conn = Conn::open(target).await?;
    let loaded_scale = inventory::loaded::<tpcc::Tpcc>(&conn, target).await?.scale;
    let counts = plan::tpcc_users(users, loaded_scale);
    if scale.is_none() {
        study::notes("--users", plan::terminals_note(&counts, loaded_scale).as_slice());
    }
    let options = RunOptions {
        plan: study.plan(cap, &counts, "--users", args.connections, pace)?,
        pacing: Pacing { keying: args.keying_time, think: args.think_time },
        seed: args.study.seed,
        scale,
        transactions: args.transactions,
        study: study.options(),
    };
    let plan = &options.plan;
    let header = live::TpccHeader {
        target,
        users: &counts,
        steps: plan.steps.len(),
        connections: plan.connections_needed(),
        warmup_s: plan.timing.warmup.as_secs_f64(),
        duration_s: plan.timing.duration.as_secs_f64(),
        window_s: plan.timing.window.map(|(a, b)| (a.as_secs_f64(), b.as_secs_f64())),
        keying: &options.pacing.keying,
        think: &options.pacing.think,
        cap: &plan.cap,
    };
    let result = tpcc::run(target, &options, |p| match p {
        Progress::Started if !quiet => println!("{}", live::tpcc_header(&header)),
        Progress::Interval(f) if !quiet => {
            let line =
                live::interval_line(f.elapsed_s, f.users, f.tps, f.per_minute, f.avg_ms, f.p95_ms, f.errors);
            println!("{line}");
        }
        Progress::Step(s) => println!("{}", live::step_line(s, "NOPM")),
        Progress::Started | Progress::Interval(_) => {}
    })
    .await?;
    study::finish(&result, &args.study, "", std::slice::from_ref(target)).await
}

/// Loads at `scale` when `target` holds no TPC-C; returns the scale it holds.
async fn check(workers: &WorkersArg, db: &DbArgs) -> Result<ExitCode, Error> {
    db.refuse_empty_instance("tpcc", "check")?;
    let database =
        Database::open(db.target()?, &db.placement(), workers.get() as u32, tpcc::WORKLOAD).await?;
    let clauses = tpcc::check(&database.target, workers.get()).await?;
    checks::report(&database.target, &clauses)
}

async fn drop(db: &DbArgs) -> Result<ExitCode, Error> {
    let database = Database::open(db.target()?, &db.placement(), 2, tpcc::WORKLOAD).await?;
    checks::dropped(
        &database.target,
        tpcc::WORKLOAD,
        oltpgen_driver::load::drop_all::<tpcc::Tpcc>(&database.target).await?,
    );
    Ok(ExitCode::SUCCESS)
}
