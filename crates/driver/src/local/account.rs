//! Which operating-system account the built-in server runs as.
//!
//! PostgreSQL refuses to run as root, and oltpgen is often run as root (containers, CI, lab machines),
//! so a root oltpgen runs the server as the unprivileged `postgres` account that PostgreSQL's packages
//! create, and hands it the data directory.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::Error;

/// The account the server processes run as: `None` runs them as ourselves.
#[derive(Clone, Copy, Debug)]
pub struct RunAs {
    /// User id.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

/// The account the server should run as: ourselves unless we are root.
///
/// # Errors
/// [`Error::Environment`] when we are root and there is no `postgres` account.
pub fn server_account() -> Result<Option<RunAs>, Error> {
    // The owner of /proc/self is this process's effective user id; no unsafe call needed.
    let euid = std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(u32::MAX);
    if euid != 0 {
        return Ok(None);
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .map(|l| l.split(':').collect::<Vec<_>>())
        .find(|f| f.len() > 3 && f[0] == "postgres")
        .and_then(|f| Some(RunAs { uid: f[2].parse().ok()?, gid: f[3].parse().ok()? }))
        .map(Some)
        .ok_or_else(|| {
            Error::environment(
                "PostgreSQL will not run as root and there is no 'postgres' account to run it as: \
                 create one (useradd --system postgres), run oltpgen as another user, or pass --url",
            )
        })
}

/// Gives `path` to the server's account, so that the server can write there.
///
/// # Errors
/// [`Error::Environment`] when the ownership cannot be changed.
pub fn hand_over(path: &Path, account: Option<RunAs>) -> Result<(), Error> {
    if let Some(a) = account {
        std::os::unix::fs::chown(path, Some(a.uid), Some(a.gid)).map_err(|e| {
            Error::environment(format!("cannot give {} to the postgres account: {e}", path.display()))
        })?;
    }
    Ok(())
}
