//! Whether a command may write an output path, decided in one place for every output (`--out` of a
//! run and of `report merge`, `report html --out`, DS2's `--csv-output`), and the claim a command holds
//! on it while it works:
//! - [`check_dir`] and [`check_new_file`] judge a path before any work, creating nothing: a file in the
//!   way of a directory to make, a directory holding someone's files, a file that exists, are refused;
//! - [`DirClaim`] and [`FileClaim`] take the path when the command starts work, atomically (a directory's
//!   flocked marker, a file made with `create_new`), so that a second command is refused at its start
//!   rather than losing its result, or the first's, at its end; dropped, a claim removes what its command
//!   made and left holding nothing of a result, so a refused or failed command does not block a retry.

use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// The result document's file name in a result directory: what makes a directory a result's.
pub const RESULT_FILE: &str = "result.json";

/// The temporary file `result.json` is written through.
pub const TEMP_FILE: &str = ".result.json.tmp";

/// The marker a command flocks in the result directory it writes (held for the command's life, holding
/// its pid). Hidden, and removed when the command ends.
pub const DIR_MARKER: &str = ".oltpgen-writing";

/// Names oltpgen itself leaves in a result directory besides the result's files: the marker, and the
/// temporary file `result.json` is written through (left by a run killed while writing it).
const OWN_NAMES: [&str; 2] = [DIR_MARKER, TEMP_FILE];

/// The part of `path` (or of its parents) that exists and is not a directory: the file in the way of
/// `path` being a directory, or of a file being made in it.
pub fn file_in_the_way(path: &Path) -> Option<&Path> {
    let existing = path.ancestors().filter(|a| !a.as_os_str().is_empty()).find(|a| a.exists())?;
    (!existing.is_dir()).then_some(existing)
}

/// One line saying that `file` is in the way of the directory `dir`.
fn in_the_way(file: &Path, dir: &Path) -> String {
    if file == dir {
        format!("{} is a file, not a directory", dir.display())
    } else {
        format!("{} is a file, not a directory, so {} cannot be made", file.display(), dir.display())
    }
}

/// Checks, creating nothing, that a command may write its result into `dir`: nothing in the way of it
/// being a directory; when it exists, no other command writing into it, and nothing in it but a result
/// (which only `replace` lets be written over); and the directory, or the nearest one above it that
/// exists (where it would be made), takes a file.
///
/// # Errors
/// One line naming the path at fault and what to do.
pub fn check_dir(dir: &Path, replace: bool) -> Result<(), String> {
    if let Some(pid) = writer_of(dir) {
        return Err(in_use(dir, &pid));
    }
    judge_contents(dir, replace)?;
    check_room(dir)
}

/// Checks, creating nothing, that the directory `dir` can be written or made: no file in the way of
/// it, and it, or the nearest directory above it that exists, takes a file.
///
/// # Errors
/// One line naming the path at fault.
pub fn check_room(dir: &Path) -> Result<(), String> {
    if let Some(file) = file_in_the_way(dir) {
        return Err(in_the_way(file, dir));
    }
    if let Some(parent) = missing_parent(dir) {
        return Err(no_parent(parent, dir));
    }
    let existing = dir.ancestors().find(|a| a.is_dir() || a.as_os_str().is_empty()).unwrap_or(dir);
    let existing = if existing.as_os_str().is_empty() { Path::new(".") } else { existing };
    probe_write(existing).map_err(|e| format!("cannot write into {}: {e}", existing.display()))
}

/// The parent of `dir` when `dir` does not exist and neither does its parent: oltpgen makes only the
/// last directory of a path, so that a mistyped `--out /nonexistent/parent/x` makes nothing at all.
fn missing_parent(dir: &Path) -> Option<&Path> {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty())?;
    (!dir.exists() && !parent.exists()).then_some(parent)
}

/// One line saying that `dir` cannot be made because its parent is missing.
fn no_parent(parent: &Path, dir: &Path) -> String {
    format!(
        "{} does not exist, so {} cannot be made (oltpgen makes only the last directory): create it first, \
         or name a directory whose parent exists",
        parent.display(),
        dir.display()
    )
}

/// One line saying that another command (`pid`) is writing into `dir`.
fn in_use(dir: &Path, pid: &str) -> String {
    format!(
        "{} is being written by another oltpgen command (pid {}): wait for it to end, or name another directory",
        dir.display(),
        if pid.is_empty() { "unknown" } else { pid }
    )
}

/// The pid of the command writing into `dir` now, if one is (it holds the flock on [`DIR_MARKER`]).
fn writer_of(dir: &Path) -> Option<String> {
    lock_holder(&dir.join(DIR_MARKER))
}

/// The pid written in the lock file `path` by the process that holds its flock now, if one does
/// (empty when it has not written it yet).
pub fn lock_holder(path: &Path) -> Option<String> {
    let mut file = File::open(path).ok()?;
    if file.try_lock_shared().is_ok() {
        return None;
    }
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    Some(text.trim().to_string())
}

/// What `dir` holds, when it exists, besides oltpgen's own names: nothing, a result (only with
/// `replace`), never anything else.
fn judge_contents(dir: &Path, replace: bool) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !OWN_NAMES.contains(&n.as_str()))
        .collect();
    names.sort();
    if names.iter().any(|n| n == RESULT_FILE) {
        if replace {
            return Ok(());
        }
        return Err(format!(
            "{} already holds a result: name another directory, or pass --replace to write over it",
            dir.display()
        ));
    }
    match names.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "{} holds files that are not an oltpgen result ({first}{}): name a new or empty directory",
            dir.display(),
            if names.len() > 1 { format!(" and {} more", names.len() - 1) } else { String::new() }
        )),
    }
}

/// Creates and removes a file in `dir`: whether it can be written.
fn probe_write(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".oltpgen-probe-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(probe)
}

/// A command's hold on the result directory it writes, from its start to its end: the directory made
/// if missing, its [`DIR_MARKER`] flocked. Dropped, it removes the marker, and the directories it made
/// when no result was written into them.
#[derive(Debug)]
pub struct DirClaim {
    /// The directory claimed.
    dir: PathBuf,
    /// The directories this claim made, deepest last.
    made: Vec<PathBuf>,
    /// The flocked marker (closing it releases the flock).
    marker: Option<File>,
}

impl DirClaim {
    /// A claim that holds nothing (a directory named only when the run starts).
    pub fn none() -> DirClaim {
        DirClaim { dir: PathBuf::new(), made: Vec::new(), marker: None }
    }

    /// Claims `dir` for a command's result: makes it (only it: a missing parent is refused, so that a
    /// mistyped path makes nothing), flocks its marker, then judges what it holds as [`check_dir`] does. Two commands claiming one directory at
    /// once: one of them is refused.
    ///
    /// # Errors
    /// One line naming the path at fault; nothing this call made is left behind.
    pub fn take(dir: &Path, replace: bool) -> Result<DirClaim, String> {
        if let Some(file) = file_in_the_way(dir) {
            return Err(in_the_way(file, dir));
        }
        if let Some(parent) = missing_parent(dir) {
            return Err(no_parent(parent, dir));
        }
        let mut claim = DirClaim { dir: dir.to_path_buf(), made: Vec::new(), marker: None };
        match std::fs::create_dir(dir) {
            Ok(()) => claim.made.push(dir.to_path_buf()),
            // There already, or made by someone else meanwhile: not ours to remove.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
        claim.marker = Some(lock_marker(dir)?);
        judge_contents(dir, replace)?;
        Ok(claim)
    }

    /// The directory claimed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Opens and flocks `dir`'s marker, writing our pid into it; refuses when another command holds it.
fn lock_marker(dir: &Path) -> Result<File, String> {
    let cannot = |e: std::io::Error| format!("cannot write into {}: {e}", dir.display());
    match lock_pid_file(&dir.join(DIR_MARKER)).map_err(cannot)? {
        PidLock::Held { file, .. } => Ok(file),
        PidLock::HeldBy(pid) => Err(in_use(dir, &pid)),
    }
}

/// The outcome of [`lock_pid_file`].
#[derive(Debug)]
pub enum PidLock {
    /// We hold the flock for as long as `file` is open; `previous` is the pid the file held before
    /// ours (the last process that held it), as written.
    Held {
        /// The locked file.
        file: File,
        /// What the file held before our pid.
        previous: String,
    },
    /// Another process holds the flock: its pid as it wrote it (empty when not written yet).
    HeldBy(String),
}

/// Opens the lock file `path` (made when missing), flocks it without waiting and writes our pid into
/// it: one process at a time holds it, and the kernel lets it go when that process dies, even by
/// SIGKILL. A lock file removed by its last holder while we opened it is opened again.
///
/// # Errors
/// The I/O error of the open, the lock or the write.
pub fn lock_pid_file(path: &Path) -> std::io::Result<PidLock> {
    loop {
        let mut file = File::options().read(true).write(true).create(true).truncate(false).open(path)?;
        let mut text = String::new();
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let _ = file.read_to_string(&mut text);
                return Ok(PidLock::HeldBy(text.trim().to_string()));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        // The one at the path, not one its last holder removed as we opened it.
        let (ours, at_path) = (file.metadata()?, std::fs::metadata(path));
        if at_path.is_ok_and(|m| m.dev() == ours.dev() && m.ino() == ours.ino()) {
            let _ = file.read_to_string(&mut text);
            file.set_len(0)?;
            file.rewind()?;
            writeln!(file, "{}", std::process::id())?;
            return Ok(PidLock::Held { file, previous: text.trim().to_string() });
        }
    }
}

impl Drop for DirClaim {
    fn drop(&mut self) {
        if let Some(marker) = self.marker.take() {
            let _ = std::fs::remove_file(self.dir.join(DIR_MARKER));
            drop(marker);
        }
        if self.made.is_empty() || self.dir.join(RESULT_FILE).exists() {
            return;
        }
        // Nothing of a result: what we made goes (a directory someone filled meanwhile stays).
        for d in self.made.iter().rev() {
            if std::fs::remove_dir(d).is_err() {
                break;
            }
        }
    }
}

/// Checks, creating nothing, that a command may make the file `path`: it does not exist (oltpgen never
/// writes over a file), and its directory does.
///
/// # Errors
/// One line naming the path at fault and what to do.
pub fn check_new_file(path: &Path) -> Result<(), String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Some(file) = file_in_the_way(parent) {
        return Err(in_the_way(file, path));
    }
    if path.is_dir() {
        return Err(format!("{} is a directory, not a file", path.display()));
    }
    if path.symlink_metadata().is_ok() {
        return Err(format!(
            "{} already exists: name a new file (oltpgen never writes over one), or move it away first",
            path.display()
        ));
    }
    if !parent.is_dir() {
        return Err(format!("the directory {} does not exist", parent.display()));
    }
    Ok(())
}

/// A file a command made when it started (with `create_new`, so a file that exists, or one a second
/// command made first, is refused). Dropped before [`FileClaim::keep`], it removes the file: a command
/// that failed leaves nothing to block its retry.
#[derive(Debug)]
pub struct FileClaim {
    path: PathBuf,
    file: Option<File>,
    kept: bool,
}

impl FileClaim {
    /// Makes the file `path`, after [`check_new_file`]'s checks.
    ///
    /// # Errors
    /// One line naming the path at fault.
    pub fn take(path: &Path) -> Result<FileClaim, String> {
        check_new_file(path)?;
        let file = File::options().write(true).create_new(true).open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => {
                format!("{} already exists: name a new file (oltpgen never writes over one)", path.display())
            }
            _ => format!("cannot create {}: {e}", path.display()),
        })?;
        Ok(FileClaim { path: path.to_path_buf(), file: Some(file), kept: false })
    }

    /// The file made, to write into (once).
    pub fn file(&mut self) -> Option<File> {
        self.file.take()
    }

    /// Keeps the file when the claim is dropped: it holds what the command made.
    pub fn keep(&mut self) {
        self.kept = true;
    }

    /// Makes `path` and writes `bytes` into it, kept once they are all written.
    ///
    /// # Errors
    /// One line naming the path at fault; a file that could not be written whole is removed.
    pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
        let mut claim = FileClaim::take(path)?;
        let mut file = claim.file().expect("a new claim holds its file");
        file.write_all(bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        claim.keep();
        Ok(())
    }
}

impl Drop for FileClaim {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_claim_refuses_a_second_and_leaves_nothing_it_made_empty() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a");
        let claim = DirClaim::take(&out, false).unwrap();
        assert!(out.is_dir());
        let e = DirClaim::take(&out, false).unwrap_err();
        assert!(e.contains("is being written by another oltpgen command (pid "), "{e}");
        let e = check_dir(&out, false).unwrap_err();
        assert!(e.contains("is being written by another oltpgen command"), "{e}");
        drop(claim);
        assert!(!out.exists(), "what the claim made goes with it when it holds no result");
        let claim = DirClaim::take(&out, false).unwrap();
        std::fs::write(out.join(RESULT_FILE), "{}").unwrap();
        drop(claim);
        let names: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [RESULT_FILE], "a result stays, the marker goes");
    }

    #[test]
    fn a_directory_holding_someone_s_files_or_under_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        for e in [check_dir(dir.path(), true).unwrap_err(), DirClaim::take(dir.path(), true).unwrap_err()] {
            assert!(e.contains("holds files that are not an oltpgen result (notes.txt)"), "{e}");
        }
        assert!(!dir.path().join(DIR_MARKER).exists(), "a refused claim leaves no marker behind");
        let under = dir.path().join("notes.txt/sub");
        let e = check_dir(&under, false).unwrap_err();
        assert!(
            e.starts_with(&format!("{} is a file, not a directory", dir.path().join("notes.txt").display())),
            "{e}"
        );
        let e = check_new_file(&under.join("x.csv")).unwrap_err();
        assert!(e.contains("notes.txt is a file, not a directory"), "{e}");
        let e = check_new_file(&dir.path().join("notes.txt")).unwrap_err();
        assert!(e.contains("already exists"), "{e}");
        assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "mine");
    }

    #[test]
    fn only_the_last_directory_of_a_path_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nonexistent/parent/x");
        for e in [check_dir(&out, false).unwrap_err(), DirClaim::take(&out, false).unwrap_err()] {
            assert!(e.contains("parent does not exist, so") && e.contains("create it first"), "{e}");
        }
        assert!(!dir.path().join("nonexistent").exists(), "a refused claim makes nothing");
        std::fs::create_dir_all(dir.path().join("nonexistent/parent")).unwrap();
        check_dir(&out, false).unwrap();
        drop(DirClaim::take(&out, false).unwrap());
    }

    #[test]
    fn a_file_claim_is_removed_unless_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        let claim = FileClaim::take(&path).unwrap();
        assert!(FileClaim::take(&path).unwrap_err().contains("already exists"));
        drop(claim);
        assert!(!path.exists());
        FileClaim::write_new(&path, b"kept").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept");
    }
}
