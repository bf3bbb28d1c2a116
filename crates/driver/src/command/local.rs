//! `oltpgen local status|start|stop|url|rm`: the built-in PostgreSQL, seen and handled from outside a
//! run. Each takes the lasting instance's `--data-dir` only (a `--temp-db` instance lives only as long
//! as the command that made it, and `--url` names another server), so none is offered.

use std::path::{Path, PathBuf};

use super::{Console, Exit};
use crate::{Error, tpcc};
use oltpgen_local::{LocalPg, Placement};

/// `local status`: where the instance in `data_dir` (`--data-dir`, else the default) lives, whether it
/// runs, how big it is.
pub fn status(data_dir: Option<&Path>, console: &mut dyn Console) -> Result<Exit, Error> {
    let s = LocalPg::status(&instance_dir(data_dir));
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

/// `local start` and `local url` (`url_only`): starts the instance in `data_dir`, leaves it running, and
/// says where.
///
/// # Errors
/// A server that cannot start.
pub async fn start(
    data_dir: Option<&Path>,
    url_only: bool,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    let place = Placement::Dir(instance_dir(data_dir));
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

/// `local stop`: stops the instance in `data_dir` if it runs.
///
/// # Errors
/// A server that cannot be stopped.
pub fn stop(data_dir: Option<&Path>, console: &mut dyn Console) -> Result<Exit, Error> {
    let root = instance_dir(data_dir);
    let line = match LocalPg::stop_at(&root)? {
        true => format!("stopped the built-in PostgreSQL in {}", root.display()),
        false => format!("the built-in PostgreSQL in {} was not running", root.display()),
    };
    console.line(&line);
    Ok(Exit::Success)
}

/// `local rm`: stops the instance in `data_dir` and removes what oltpgen made in its directory, naming
/// what it kept.
///
/// # Errors
/// A server that cannot be stopped, a directory that cannot be removed.
pub fn rm(data_dir: Option<&Path>, console: &mut dyn Console) -> Result<Exit, Error> {
    let root = instance_dir(data_dir);
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

/// The instance's directory: `--data-dir`, else the default one.
fn instance_dir(data_dir: Option<&Path>) -> PathBuf {
    data_dir.map_or_else(oltpgen_local::default_dir, Path::to_path_buf)
}
