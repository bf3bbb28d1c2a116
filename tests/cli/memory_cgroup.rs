//! A memory limit on a test server's processes: a cgroup of the test's own, under the test process's
//! memory cgroup (cgroup v1's memory hierarchy, or v2 where the test's cgroup may delegate the memory
//! controller), holding the server's processes. Its page cache is charged to it too, so a database
//! bigger than the limit is read from the disk while the run goes, not only on its first reads.

use std::path::{Path, PathBuf};

/// The cgroup, with its processes; dropping it moves them back to the test's cgroup and removes it.
pub struct MemoryLimit {
    dir: PathBuf,
    parent: PathBuf,
}

impl MemoryLimit {
    /// Limits the server whose postmaster is `postmaster` (and its children, now and later) to `bytes`
    /// of memory, page cache included.
    ///
    /// # Errors
    /// Why this machine gives the test no such cgroup (no memory controller, or none it may write).
    pub fn on_server(postmaster: u32, bytes: u64) -> Result<Self, String> {
        let (parent, limit_file) = own_memory_cgroup()?;
        let dir = parent.join(format!("oltpgen-test-{}-{postmaster}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
        let limit = MemoryLimit { dir, parent };
        write(&limit.dir.join(limit_file), &bytes.to_string())?;
        for pid in std::iter::once(postmaster).chain(children(postmaster)) {
            write(&limit.dir.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(limit)
    }

    /// How many times its processes ran into the limit (v1's `failcnt`, v2's `max` events): each time,
    /// the kernel reclaimed their memory, page cache first.
    pub fn times_at_limit(&self) -> u64 {
        let v1 = std::fs::read_to_string(self.dir.join("memory.failcnt")).ok();
        let v2 = || {
            let events = std::fs::read_to_string(self.dir.join("memory.events")).ok()?;
            events.lines().find_map(|l| l.strip_prefix("max ")).map(str::to_owned)
        };
        v1.or_else(v2).and_then(|n| n.trim().parse().ok()).unwrap_or(0)
    }
}

impl Drop for MemoryLimit {
    fn drop(&mut self) {
        let procs = std::fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
        for pid in procs.lines() {
            let _ = write(&self.parent.join("cgroup.procs"), pid);
        }
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The test process's own memory cgroup directory and the name of its limit file there.
fn own_memory_cgroup() -> Result<(PathBuf, &'static str), String> {
    let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("/proc/self/cgroup: {e}"))?;
    for line in own.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "memory") {
            let dir = Path::new("/sys/fs/cgroup/memory").join(path);
            return Ok((dir, "memory.limit_in_bytes"));
        }
        if controllers.is_empty() {
            let dir = Path::new("/sys/fs/cgroup").join(path);
            let controls = std::fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
            if controls.split_whitespace().any(|c| c == "memory") {
                return Ok((dir, "memory.max"));
            }
        }
    }
    Err("no memory cgroup controller this test may use (cgroup v1's memory hierarchy, or v2 with \
         memory delegated to the test's cgroup)"
        .into())
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            // The fourth field of stat, after the command's parenthesised name.
            std::fs::read_to_string(format!("/proc/{p}/stat")).ok().and_then(|s| {
                s.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok())
            }) == Some(pid)
        })
        .collect()
}

fn write(path: &Path, value: &str) -> Result<(), String> {
    std::fs::write(path, value).map_err(|e| format!("write {value} to {}: {e}", path.display()))
}
