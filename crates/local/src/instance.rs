//! What makes a directory an oltpgen instance, and who may use it now.
//!
//! Small files beside the cluster's `data/`:
//! - [`MARKER`], written before anything else when oltpgen creates an instance: only a directory holding
//!   it is ever started, stopped or removed, so a mistyped `--data-dir` never costs the user a file.
//! - [`LOCK`], flocked by the one command that uses the instance (held for the command's life; the
//!   kernel releases it when the command dies, even by SIGKILL), and holding that command's pid.
//! - `throwaway`, on a `--temp-db` instance while its command holds the lock: one found with a free
//!   lock was left by a command that died, and the next `--temp-db` command removes it.
//! - `server-owner`, the pid of the command that started the server and will stop it, or `kept` after
//!   `oltpgen local start`: a server found running while nobody holds the lock, with a pid here, was
//!   left behind by a command that was killed.

use std::fs::File;
use std::path::Path;

use oltpgen_vocab::claim::{PidLock, lock_holder, lock_pid_file};

use super::secret;
use oltpgen_vocab::Error;

/// The file that marks a directory as an instance oltpgen created.
pub const MARKER: &str = "oltpgen-instance";
/// The lock file: flocked by the command using the instance, holding its pid.
pub const LOCK: &str = "oltpgen.lock";
/// Who stops the running server: a pid, or `kept` (left running on purpose).
const OWNER: &str = "server-owner";
/// What [`OWNER`] holds for a server left running on purpose (`oltpgen local start`).
const KEPT: &str = "kept";
/// Marks a throwaway instance (`--temp-db`), written once its command holds the lock and removed
/// before it lets go: one found with a free lock was left by a command that died.
const THROWAWAY: &str = "throwaway";

/// Whether `root` is an instance oltpgen made (it holds the marker).
pub fn is_instance(root: &Path) -> bool {
    root.join(MARKER).is_file()
}

/// Whether `name`, an entry of an instance's directory, is one oltpgen writes there: the cluster's
/// `data/`, the server's log and sockets, the marker, the lock, the server's owner and the password
/// files. Anything else was put there by someone else, and `oltpgen local rm` keeps it.
pub fn is_own_entry(name: &str) -> bool {
    matches!(
        name,
        "data" | "server.log" | MARKER | LOCK | OWNER | THROWAWAY | secret::PASSFILE | secret::PWFILE
    ) || name.starts_with(".s.PGSQL.")
}

/// Whether `root` is an instance made before instances were marked: a cluster with oltpgen's settings
/// file and nothing beside it but what oltpgen wrote.
fn is_unmarked_instance(root: &Path) -> bool {
    root.join("data/oltpgen.conf").is_file()
        && std::fs::read_dir(root)
            .is_ok_and(|rd| rd.flatten().all(|e| e.file_name().to_str().is_some_and(is_own_entry)))
}

/// Removes what oltpgen wrote in the instance at `root` ([`is_own_entry`]), the marker last (so that
/// a removal cut short can be run again), then `root` itself when nothing else is left; returns the
/// names of the entries it kept, sorted: what the user put there.
///
/// # Errors
/// [`Error::Environment`] naming the entry that cannot be removed.
pub fn remove_own(root: &Path) -> Result<Vec<String>, Error> {
    let cannot =
        |p: &Path, e: std::io::Error| Error::environment(format!("cannot remove {}: {e}", p.display()));
    let mut kept = Vec::new();
    let entries = std::fs::read_dir(root).map_err(|e| cannot(root, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_own_entry(&name) {
            kept.push(name);
        } else if name != MARKER {
            let path = entry.path();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let removed = if is_dir { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
            removed.map_err(|e| cannot(&path, e))?;
        }
    }
    let marker = root.join(MARKER);
    if marker.exists() {
        std::fs::remove_file(&marker).map_err(|e| cannot(&marker, e))?;
    }
    if kept.is_empty() {
        std::fs::remove_dir(root).map_err(|e| cannot(root, e))?;
    }
    kept.sort();
    Ok(kept)
}

/// Whether `root` is an oltpgen instance marked throwaway (`--temp-db`).
pub fn is_throwaway(root: &Path) -> bool {
    is_instance(root) && root.join(THROWAWAY).is_file()
}

/// Marks the instance at `root` throwaway; the caller holds its lock.
///
/// # Errors
/// [`Error::Environment`] when the directory cannot be written.
pub fn mark_throwaway(root: &Path) -> Result<(), Error> {
    std::fs::write(root.join(THROWAWAY), format!("{}\n", std::process::id()))
        .map_err(|e| Error::environment(format!("cannot write in {}: {e}", root.display())))
}

/// Takes the throwaway mark off the instance at `root`, before its command lets go of the lock.
pub fn unmark_throwaway(root: &Path) {
    let _ = std::fs::remove_file(root.join(THROWAWAY));
}

/// Refuses a directory that holds files but is not an instance (so a new one may be made there).
///
/// # Errors
/// [`Error::Usage`] naming the directory.
pub fn check_usable(root: &Path) -> Result<(), Error> {
    if is_instance(root) || std::fs::read_dir(root).map_or(true, |mut rd| rd.next().is_none()) {
        return Ok(());
    }
    if is_unmarked_instance(root) {
        return Err(Error::usage(format!(
            "{} holds a built-in PostgreSQL made by an older oltpgen, without a password: \
             remove it (oltpgen local rm --data-dir {0}) and load again",
            root.display()
        )));
    }
    Err(Error::usage(format!(
        "--data-dir {} holds files that are not an oltpgen instance: give an empty or new directory",
        root.display()
    )))
}

/// Refuses to remove a directory oltpgen did not make (`oltpgen local rm`).
///
/// # Errors
/// [`Error::Usage`] naming the directory.
pub fn check_removable(root: &Path) -> Result<(), Error> {
    if is_instance(root) || is_unmarked_instance(root) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "{} is not an oltpgen instance (it has no {MARKER} file): oltpgen removes only what it made",
            root.display()
        )))
    }
}

/// Writes the marker into `root` (created when missing), before the cluster is made.
///
/// # Errors
/// [`Error::Environment`] when the directory cannot be written.
pub fn mark(root: &Path) -> Result<(), Error> {
    let cannot = |e: std::io::Error| {
        Error::environment(format!("cannot create {}: {e}; choose another --data-dir", root.display()))
    };
    std::fs::create_dir_all(root).map_err(cannot)?;
    std::fs::write(
        root.join(MARKER),
        "A built-in PostgreSQL made by oltpgen; `oltpgen local rm --data-dir <this directory>` removes it.\n",
    )
    .map_err(cannot)
}

/// The flock on an instance's lock file: one command at a time per instance.
#[derive(Debug)]
pub struct InstanceLock {
    /// Open for as long as the lock is held: closing it releases the flock.
    _file: File,
    /// The pid the lock file held when we took it: the last command that used the instance.
    previous_pid: Option<u32>,
}

impl InstanceLock {
    /// Takes the lock on the instance at `root` (which exists), without waiting.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the other command's pid and the directory when another command holds it.
    pub fn take(root: &Path) -> Result<Self, Error> {
        let path = root.join(LOCK);
        match lock_pid_file(&path)
            .map_err(|e| Error::environment(format!("cannot lock {}: {e}", path.display())))?
        {
            PidLock::Held { file, previous } => {
                Ok(InstanceLock { _file: file, previous_pid: previous.parse().ok() })
            }
            PidLock::HeldBy(pid) => Err(Error::usage(format!(
                "the built-in PostgreSQL in --data-dir {} is in use by another oltpgen (pid {}): \
                 wait for it to end, or give another --data-dir",
                root.display(),
                if pid.is_empty() { "unknown" } else { &pid }
            ))),
        }
    }

    /// The pid the lock file held when this lock was taken: the last command that used the instance.
    pub fn previous_pid(&self) -> Option<u32> {
        self.previous_pid
    }

    /// The pid of the command that holds the lock on `root` now, if one does (for `local status`).
    pub fn holder(root: &Path) -> Option<u32> {
        lock_holder(&root.join(LOCK))?.parse().ok()
    }

    /// Who left the running server behind: `Some(pid)` when it was started by a command that is gone
    /// (it did not stop it), `None` when it was left running on purpose or by hand.
    pub fn orphaned_by(&self, root: &Path) -> Option<u32> {
        let owner = std::fs::read_to_string(root.join(OWNER)).ok()?;
        let owner = owner.trim();
        (owner != KEPT).then(|| owner.parse().ok().or(self.previous_pid)).flatten()
    }

    /// Records that this command started the server and will stop it.
    pub fn started_server(&self, root: &Path) {
        let _ = std::fs::write(root.join(OWNER), format!("{}\n", std::process::id()));
    }

    /// Records that the server stays running after this command (`oltpgen local start`).
    pub fn kept_server(&self, root: &Path) {
        let _ = std::fs::write(root.join(OWNER), format!("{KEPT}\n"));
    }

    /// Records that the server stopped.
    pub fn stopped_server(&self, root: &Path) {
        let _ = std::fs::remove_file(root.join(OWNER));
    }
}
