//! Free space on a file system, below everything that writes big files (the built-in server's data
//! directory, `io run`'s file, the pristine copy of a database), so each checks before it starts.

use std::path::{Path, PathBuf};

/// The bytes an unprivileged user may still write on the file system holding `dir` (or the nearest
/// directory above it that exists); `None` when that cannot be told.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    let existing: PathBuf = dir.ancestors().find(|a| a.is_dir())?.to_path_buf();
    let s = rustix::fs::statvfs(&existing).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}
