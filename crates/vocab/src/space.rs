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

/// `bytes` in decimal units with one decimal (`13.1 TB`), for a line about disk space.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The disk a load of `data_bytes` (tables and indexes) needs: the data and its WAL, the WAL counted
/// up to `wal_cap` (checkpoints recycle it).
pub fn load_need(data_bytes: u64, wal_cap: u64) -> u64 {
    data_bytes + data_bytes.min(wal_cap)
}
