//! Each command's flags turned into the driver's request, and the driver's call that runs it.

use oltpgen_driver::Error;
use oltpgen_driver::command::{self as run, Console, Databases, Exit, workload};
use oltpgen_driver::ds2::Ds2;
use oltpgen_driver::tpcb::Tpcb;
use oltpgen_driver::tpcc::Tpcc;

#[cfg(feature = "io")]
use crate::cli::IoAction;
#[cfg(feature = "local")]
use crate::cli::LocalAction;
use crate::cli::{
    Command, CustomAction, CustomCmd, DEFAULT_RECORDS, Ds2Action, Ds2Cmd, ReportAction, TpcbAction, TpcbCmd,
    TpccAction, TpccCmd, YcsbAction, YcsbCmd,
};

/// Runs the command `command` names, saying what it does to `console`.
pub async fn dispatch(command: Command, console: &mut dyn Console) -> Result<Exit, Error> {
    match command {
        Command::Tpcc(cmd) => {
            let db = cmd.common.db.databases();
            // An error about a URL from the environment names the variable, not a flag never given.
            db.name_env_url(tpcc(*cmd, &db, console).await)
        }
        Command::Ds2(cmd) => {
            let run = match &cmd.action {
                Some(Ds2Action::Run(args)) => &**args,
                _ => &cmd.run,
            };
            // DS2's --target and --database_name name its databases as DS2's driver does.
            let db = cmd.common.db.databases().ds2_named(&run.target, run.database_name.as_deref())?;
            let by_target = !run.target.is_empty();
            let outcome = db.name_env_url(ds2(*cmd, &db, console).await);
            if by_target { Databases::name_target(outcome) } else { outcome }
        }
        Command::Custom(cmd) => {
            let db = cmd.common.db.databases();
            db.name_env_url(custom(*cmd, &db, console).await)
        }
        Command::Ycsb(cmd) => {
            let db = cmd.common.db.databases();
            db.name_env_url(ycsb(*cmd, &db, console).await)
        }
        Command::Tpcb(cmd) => {
            let db = cmd.common.db.databases();
            db.name_env_url(tpcb(*cmd, &db, console).await)
        }
        #[cfg(feature = "local")]
        Command::Local { dir, action } => local(action, dir.data_dir.as_deref(), console).await,
        #[cfg(not(feature = "local"))]
        Command::Local { .. } => Err(run::not_built("oltpgen local (the built-in PostgreSQL)", "local")),
        #[cfg(feature = "io")]
        Command::Io { action: IoAction::Run(args) } => run::io::run(&args.request(), console).await,
        #[cfg(feature = "io")]
        Command::Io { action: IoAction::Model { result, disk, file } } => {
            run::io::model(&result, disk.as_deref(), &file, console)
        }
        #[cfg(not(feature = "io"))]
        Command::Io { .. } => Err(run::not_built("oltpgen io", "io")),
        Command::Report { action } => report(action, console),
    }
}

async fn tpcc(cmd: TpccCmd, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let quiet = cmd.common.quiet;
    match cmd.action {
        None => run::tpcc::run(&cmd.run.request(cmd.scale, true, quiet), db, console).await,
        Some(TpccAction::Run(args)) => {
            run::tpcc::run(&args.run.request(None, false, quiet), db, console).await
        }
        Some(TpccAction::Load(args)) => {
            workload::load(&Tpcc, args.scale, &args.load.request(quiet), db, console).await
        }
        Some(TpccAction::Check(c)) => workload::check(&Tpcc, &c.request(), db, console).await,
        Some(TpccAction::Drop) => workload::drop(&Tpcc, db, console).await,
    }
}

async fn ds2(cmd: Ds2Cmd, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let quiet = cmd.common.quiet;
    match cmd.action {
        None => run::ds2::run(&cmd.run.request(true, quiet), db, console).await,
        Some(Ds2Action::Run(args)) => run::ds2::run(&args.request(false, quiet), db, console).await,
        Some(Ds2Action::Load(args)) => {
            workload::load(&Ds2, args.db_size, &args.load.request(quiet), db, console).await
        }
        Some(Ds2Action::Check(c)) => workload::check(&Ds2, &c.request(), db, console).await,
        Some(Ds2Action::Drop) => workload::drop(&Ds2, db, console).await,
    }
}

async fn custom(cmd: CustomCmd, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let quiet = cmd.common.quiet;
    if let Some(CustomAction::Run(args)) = &cmd.action
        && args.run.pgbench.given()
    {
        if cmd.file.is_some() {
            return Err(Error::usage(
                "custom run: give either --file (a defined workload) or --pgbench-script/--pgbench-builtin, not both",
            ));
        }
        return run::script::run(&args.run.script_request(args.scale, quiet)?, db, console).await;
    }
    if let Some(CustomAction::Drop(args)) = &cmd.action {
        return custom_drop(cmd.file.as_deref(), args.name.as_deref(), db, console).await;
    }
    let w = cmd.workload()?;
    match cmd.action {
        None => run::custom::run(&cmd.run.request(w, cmd.scale, true, quiet), db, console).await,
        Some(CustomAction::Run(args)) => {
            run::custom::run(&args.run.request(w, args.scale, false, quiet), db, console).await
        }
        Some(CustomAction::Load(args)) => {
            workload::load(&w, args.scale, &args.load.request(quiet), db, console).await
        }
        Some(CustomAction::Check(c)) => workload::check(&w, &c.request(), db, console).await,
        Some(CustomAction::Drop(_)) => unreachable!("dropped above"),
    }
}

/// `custom drop`: the workload `--file` defines, or the loaded one `--name` names (or the only one),
/// as its load record keeps it; `--file` and `--name` together must agree.
async fn custom_drop(
    file: Option<&std::path::Path>,
    name: Option<&str>,
    db: &Databases,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    let Some(file) = file else { return run::custom::drop_loaded(name, db, console).await };
    use oltpgen_driver::workload::Stored;
    let w = oltpgen_driver::defined::Defined::read(file)?;
    if let Some(name) = name.filter(|n| *n != w.name()) {
        return Err(Error::usage(format!(
            "custom drop: --file {} defines workload {}, and --name says {name}: give one of them, or the same",
            file.display(),
            w.name()
        )));
    }
    workload::drop(&w, db, console).await
}

async fn ycsb(cmd: YcsbCmd, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let quiet = cmd.common.quiet;
    let w = cmd.workload()?;
    match cmd.action {
        YcsbAction::Run(args) if args.pgbench.given() => Err(Error::usage(
            "ycsb run: --pgbench-script/--pgbench-builtin run with custom run, not ycsb: leave them out",
        )),
        YcsbAction::Run(args) => {
            run::custom::run(&args.request(w, cmd.records, false, quiet), db, console).await
        }
        YcsbAction::Load(args) => {
            let records = cmd.records.unwrap_or(DEFAULT_RECORDS);
            workload::load(&w, records, &args.load.request(quiet), db, console).await
        }
        YcsbAction::Check(c) => workload::check(&w, &c.request(), db, console).await,
        YcsbAction::Drop => workload::drop(&w, db, console).await,
    }
}

async fn tpcb(cmd: TpcbCmd, db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let quiet = cmd.common.quiet;
    let w = Tpcb::new();
    match cmd.action {
        TpcbAction::Run(args) => {
            let mut run = args.run;
            if !run.pgbench.given() {
                run.pgbench.builtins.push("tpcb-like".into());
            }
            run::script::run(&run.script_request(None, quiet)?, db, console).await
        }
        TpcbAction::Load(args) => {
            Tpcb::check_scale(args.scale)?;
            workload::load(&w, args.scale, &args.load.request(quiet), db, console).await
        }
        TpcbAction::Check(c) => workload::check(&w, &c.request(), db, console).await,
        TpcbAction::Drop => workload::drop(&w, db, console).await,
    }
}

fn report(action: ReportAction, console: &mut dyn Console) -> Result<Exit, Error> {
    match action {
        ReportAction::Show { result, audit } => run::report::show(&result, audit, console),
        ReportAction::Compare { a, b, fail_if_slower, json } => {
            run::report::compare(&a, &b, fail_if_slower, json, console)
        }
        ReportAction::Html { results, out, replace } => {
            run::report::html(&results, out.as_deref(), replace, console)
        }
        ReportAction::Merge { results, out, replace } => run::report::merge(&results, &out, replace, console),
    }
}

#[cfg(feature = "local")]
async fn local(
    action: LocalAction,
    data_dir: Option<&std::path::Path>,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    match action {
        LocalAction::Status => run::local::status(data_dir, console),
        LocalAction::Start => run::local::start(data_dir, false, console).await,
        LocalAction::Url => run::local::start(data_dir, true, console).await,
        LocalAction::Stop => run::local::stop(data_dir, console),
        LocalAction::Rm => run::local::rm(data_dir, console),
    }
}
