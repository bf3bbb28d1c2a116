//! Which operating-system account the built-in server runs as.
//!
//! PostgreSQL refuses to run as root, and oltpgen is often run as root (containers, CI, lab machines),
//! so a root oltpgen runs the server as the unprivileged `postgres` account that PostgreSQL's packages
//! create, and hands it the data directory.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use oltpgen_vocab::Error;

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

/// The first directory above `path` that `account` may not enter (no search permission for it by
/// owner, group or others), which makes every server command run in `path` fail to start; `None`
/// when it can reach `path`, or runs as ourselves.
pub fn blocked_above(path: &Path, account: Option<RunAs>) -> Option<PathBuf> {
    let a = account?;
    path.ancestors().skip(1).find_map(|dir| {
        let m = std::fs::metadata(dir).ok()?;
        let mode = m.mode();
        let searchable = mode & 0o001 != 0
            || (m.uid() == a.uid && mode & 0o100 != 0)
            || (m.gid() == a.gid && mode & 0o010 != 0);
        (!searchable).then(|| dir.to_path_buf())
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_directory_the_account_may_not_enter_is_named_and_an_open_one_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let private = tmp.path().join("private");
        let data = private.join("pg");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        // An account that neither owns the directories nor is in their group.
        let stranger = Some(RunAs { uid: 4_000_000, gid: 4_000_000 });
        assert_eq!(blocked_above(&data, stranger), Some(private.clone()));
        assert_eq!(blocked_above(&data, None), None, "running as ourselves, nothing is checked");
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o701)).unwrap();
        assert_eq!(blocked_above(&data, stranger), None);
        let owner = std::fs::metadata(&private).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        let the_owner = Some(RunAs { uid: owner.uid(), gid: 4_000_000 });
        assert_eq!(blocked_above(&data, the_owner), None, "the owner may enter a 0700 directory");
    }
}
