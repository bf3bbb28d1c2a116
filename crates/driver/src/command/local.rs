//! `oltpgen local status|start|stop|url|rm`: the built-in PostgreSQL, seen and handled from outside a
//! run.

use std::path::PathBuf;

use super::{Console, Databases, Exit};
use crate::{Error, tpcc};
use oltpgen_local::{LocalPg, Placement};

/// `local status`: where the instance `db` places lives, whether it runs, how big it is.
///
/// # Errors
/// `--url` or `--temp-db` given.
pub fn status(db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let s = LocalPg::status(&instance_dir(db)?);
    console.line(&format!("directory:   {}", s.root.display()));
    console.line(&format!("initialised: {}", if s.initialised { "yes" } else { "no" }));
    match s.running_port {
        Some(port) => console.line(&format!("running:     yes, on 127.0.0.1:{port}")),
        None => console.line("running:     no"),
    }
    console.line(&format!("size:        {:.1} MB", s.size_bytes as f64 / 1e6));
    if let Some(pid) = s.in_use_by {
        console.line(&format!("in use:      by oltpgen pid {pid}"));
    }
    Ok(Exit::Success)
}

/// `local start` and `local url` (`url_only`): starts the instance, leaves it running, and says where.
///
/// # Errors
/// `--url` or `--temp-db` given, a server that cannot start.
pub async fn start(db: &Databases, url_only: bool, console: &mut dyn Console) -> Result<Exit, Error> {
    let place = Placement::Dir(instance_dir(db)?);
    let said = console.err_lines();
    let mut pg = tokio::task::spawn_blocking(move || LocalPg::start(&place, 200, &said))
        .await
        .map_err(|e| Error::environment(format!("starting the built-in PostgreSQL: {e}")))??;
    pg.keep_running();
    let target = pg.ensure_database(tpcc::WORKLOAD).await?;
    // The password stays in the instance's owner-only file; psql reads it from there.
    let url = pg.url(target.dbname());
    if url_only {
        console.line(&url);
    } else {
        console
            .line(&format!("running on 127.0.0.1:{} ({url}); stop it with: oltpgen local stop", pg.port()));
    }
    Ok(Exit::Success)
}

/// `local stop`: stops the instance if it runs.
///
/// # Errors
/// `--url` or `--temp-db` given, a server that cannot be stopped.
pub fn stop(db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let root = instance_dir(db)?;
    let line = match LocalPg::stop_at(&root)? {
        true => format!("stopped the built-in PostgreSQL in {}", root.display()),
        false => format!("the built-in PostgreSQL in {} was not running", root.display()),
    };
    console.line(&line);
    Ok(Exit::Success)
}

/// `local rm`: stops the instance and removes what oltpgen made in its directory, naming what it kept.
///
/// # Errors
/// `--url` or `--temp-db` given, a server that cannot be stopped, a directory that cannot be removed.
pub fn rm(db: &Databases, console: &mut dyn Console) -> Result<Exit, Error> {
    let root = instance_dir(db)?;
    let line = match LocalPg::remove(&root)? {
        None => format!("nothing at {}", root.display()),
        Some(kept) if kept.is_empty() => format!("removed {}", root.display()),
        Some(kept) => format!(
            "removed the built-in PostgreSQL in {}; kept what oltpgen did not make there: {}",
            root.display(),
            kept.join(", ")
        ),
    };
    console.line(&line);
    Ok(Exit::Success)
}

/// The instance's directory: refused for `--url` (another server) and `--temp-db` (which lives only as
/// long as its command).
fn instance_dir(db: &Databases) -> Result<PathBuf, Error> {
    if !db.urls.is_empty() {
        return Err(Error::usage(
            "oltpgen local manages the built-in PostgreSQL; --url names another server: drop --url",
        ));
    }
    match db.placement() {
        Placement::Dir(d) => Ok(d),
        Placement::Temp => Err(Error::usage(
            "--temp-db instances live only as long as the command that made them: use --data-dir",
        )),
    }
}
