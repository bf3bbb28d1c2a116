//! `oltpgen local status|start|stop|url|rm`: the built-in PostgreSQL, seen and handled from outside a run.

use std::process::ExitCode;

use oltpgen_driver::Error;
use oltpgen_driver::local::{LocalPg, Placement};

use crate::cli::{DbArgs, LocalAction};

/// Runs one `local` command.
pub async fn run(action: LocalAction, db: &DbArgs) -> Result<ExitCode, Error> {
    if !db.url.is_empty() {
        return Err(Error::usage(
            "oltpgen local manages the built-in PostgreSQL; --url names another server: drop --url",
        ));
    }
    let root = match db.placement() {
        Placement::Dir(d) => d,
        Placement::Temp => {
            return Err(Error::usage(
                "--temp-db instances live only as long as the command that made them: use --data-dir",
            ));
        }
    };
    match action {
        LocalAction::Status => {
            let s = LocalPg::status(&root);
            println!("directory:   {}", s.root.display());
            println!("initialised: {}", if s.initialised { "yes" } else { "no" });
            match s.running_port {
                Some(port) => println!("running:     yes, on 127.0.0.1:{port}"),
                None => println!("running:     no"),
            }
            println!("size:        {:.1} MB", s.size_bytes as f64 / 1e6);
            if let Some(pid) = s.in_use_by {
                println!("in use:      by oltpgen pid {pid}");
            }
        }
        LocalAction::Start | LocalAction::Url => {
            let place = Placement::Dir(root);
            let mut pg = tokio::task::spawn_blocking(move || LocalPg::start(&place, 200))
                .await
                .map_err(|e| Error::environment(format!("starting the built-in PostgreSQL: {e}")))??;
            pg.keep_running();
            let target = pg.ensure_database(oltpgen_driver::tpcc::WORKLOAD).await?;
            // The password stays in the instance's owner-only file; psql reads it from there.
            let url = pg.url(target.dbname());
            if matches!(action, LocalAction::Url) {
                println!("{url}");
            } else {
                println!("running on 127.0.0.1:{} ({url}); stop it with: oltpgen local stop", pg.port());
            }
        }
        LocalAction::Stop => {
            if LocalPg::stop_at(&root)? {
                println!("stopped the built-in PostgreSQL in {}", root.display());
            } else {
                println!("the built-in PostgreSQL in {} was not running", root.display());
            }
        }
        LocalAction::Rm => match LocalPg::remove(&root)? {
            None => println!("nothing at {}", root.display()),
            Some(kept) if kept.is_empty() => println!("removed {}", root.display()),
            Some(kept) => println!(
                "removed the built-in PostgreSQL in {}; kept what oltpgen did not make there: {}",
                root.display(),
                kept.join(", ")
            ),
        },
    }
    Ok(ExitCode::SUCCESS)
}
