//! Finding the PostgreSQL server binaries that the built-in instance runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use oltpgen_vocab::Error;
use oltpgen_vocab::console::ErrLines;

/// The programs the built-in instance needs.
const NEEDED: [&str; 3] = ["initdb", "pg_ctl", "postgres"];

/// The directory holding `initdb`, `pg_ctl` and `postgres`.
///
/// Looked for, in order: `$OLTPGEN_PG_BIN`, `PATH`, `pg_config --bindir`, the newest
/// `/usr/lib/postgresql/*/bin` (Debian and Ubuntu keep the server binaries off `PATH`); when none has
/// them, the pinned build oltpgen fetches ([`super::download`]). `OLTPGEN_PG_BIN=download` asks for that
/// build whatever the machine has; the fetch is said to `said`.
///
/// # Errors
/// [`Error::Environment`] saying how to install the binaries or to use `--url` instead.
pub fn find(said: &ErrLines) -> Result<PathBuf, Error> {
    if std::env::var_os("OLTPGEN_PG_BIN").is_some_and(|d| d == "download") {
        return super::download::pinned(has_all, said);
    }
    if let Some(dir) = std::env::var_os("OLTPGEN_PG_BIN") {
        let dir = PathBuf::from(dir);
        return if has_all(&dir) {
            Ok(dir)
        } else {
            Err(Error::environment(format!(
                "OLTPGEN_PG_BIN={} does not hold initdb, pg_ctl and postgres",
                dir.display()
            )))
        };
    }
    let on_path =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    let from_pg_config = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|rd| rd.flatten().map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    // Newest major version first: "16" sorts after "15" numerically, not as text.
    debian.sort_by_key(|p| {
        std::cmp::Reverse(
            p.parent()
                .and_then(|v| v.file_name())
                .and_then(|v| v.to_str())
                .and_then(|v| v.parse::<u32>().ok())
                .unwrap_or(0),
        )
    });
    on_path
        .into_iter()
        .chain(from_pg_config)
        .chain(debian)
        .find(|d| has_all(d))
        .map_or_else(|| super::download::pinned(has_all, said), Ok)
}

fn has_all(dir: &Path) -> bool {
    NEEDED.iter().all(|b| dir.join(b).is_file())
}
