//! `oltpgen tpcc load|check|drop`.

use std::process::ExitCode;

use oltpgen_driver::Error;
use oltpgen_driver::database::Database;
use oltpgen_driver::tpcc::{self, ClauseOutcome, LoadOptions};

use super::interruptible;
use crate::cli::{DbArgs, LoadArgs, TpccAction, TpccCmd, WorkersArg};

/// Runs one TPC-C command.
pub async fn run(cmd: TpccCmd, db: &DbArgs, quiet: bool) -> Result<ExitCode, Error> {
    match cmd.action {
        TpccAction::Load(args) => load(&args, db, quiet).await,
        TpccAction::Check(workers) => interruptible("the check", check(&workers, db)).await,
        TpccAction::Drop => interruptible("the drop", drop(db)).await,
    }
}

async fn load(args: &LoadArgs, db: &DbArgs, quiet: bool) -> Result<ExitCode, Error> {
    let opts = LoadOptions {
        scale: args.scale,
        seed: args.seed,
        workers: args.workers.get(),
        replace: args.replace,
        quiet,
    };
    if let Some(dir) = &args.csv {
        let started = std::time::Instant::now();
        let rows = interruptible("writing the CSV files", tpcc::write_csv(dir, &opts)).await?;
        println!(
            "wrote {rows} rows of tpcc scale {} as CSV into {} in {:.1} s",
            opts.scale,
            dir.display(),
            started.elapsed().as_secs_f64()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let target = db.target()?;
    let summary = interruptible("the load", async {
        let database =
            Database::open(target, &db.placement(), opts.workers as u32 + 2, tpcc::WORKLOAD).await?;
        let summary = tpcc::load(&database.target, &opts).await?;
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
        opts.scale,
        s.rows,
        s.total.as_secs_f64(),
        s.rows as f64 / s.copy.as_secs_f64().max(1e-9),
        s.copy.as_secs_f64(),
        s.indexes.as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
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
