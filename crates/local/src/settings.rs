//! The built-in server's settings, sized for benchmarking on the machine at hand.

use std::fmt::Write as _;
use std::path::Path;

/// What the settings depend on.
#[derive(Clone, Copy, Debug)]
pub struct Sizing {
    /// The machine's memory in bytes.
    pub memory_bytes: u64,
    /// The connections the command needs.
    pub max_connections: u32,
    /// A throwaway instance (tests) takes a small memory share, as several may run at once.
    pub temp: bool,
    /// The TCP port on 127.0.0.1.
    pub port: u16,
}

/// The machine's memory, from /proc/meminfo (8 GiB assumed when unreadable).
pub fn machine_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(8 << 30, |kb| kb * 1024)
}

/// The `postgresql.conf` lines for one start of the server.
///
/// Benchmark-sized but honest: durability stays on (fsync, synchronous_commit, full_page_writes), since a
/// study that measures a server without them measures something no one runs. `wal_level = minimal` lets
/// bulk loads into new tables skip the WAL; nothing here replicates.
pub fn render(s: Sizing, socket_dir: &Path) -> String {
    const MIB: u64 = 1 << 20;
    let mem_mib = s.memory_bytes / MIB;
    let shared_mib = if s.temp { 128 } else { (mem_mib / 4).clamp(128, 64 * 1024) };
    let maintenance_mib = if s.temp { 64 } else { (mem_mib / 16).clamp(64, 2048) };
    let mut c = String::new();
    let mut set = |k: &str, v: String| writeln!(c, "{k} = {v}").expect("writing to a String");
    set("listen_addresses", "'127.0.0.1'".into());
    set("port", s.port.to_string());
    set("unix_socket_directories", format!("'{}'", socket_dir.display()));
    set("max_connections", s.max_connections.to_string());
    set("shared_buffers", format!("{shared_mib}MB"));
    set("effective_cache_size", format!("{}MB", (mem_mib / 2).max(256)));
    set("maintenance_work_mem", format!("{maintenance_mib}MB"));
    set("max_wal_size", if s.temp { "1GB".into() } else { "8GB".into() });
    set("min_wal_size", "256MB".into());
    set("wal_level", "minimal".into());
    set("max_wal_senders", "0".into());
    set("checkpoint_timeout", "30min".into());
    set("checkpoint_completion_target", "0.9".into());
    set("wal_buffers", "64MB".into());
    set("jit", "off".into());
    set("logging_collector", "off".into());
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_memory_and_keep_durability() {
        let conf = render(
            Sizing { memory_bytes: 24 << 30, max_connections: 14_100, temp: false, port: 5999 },
            Path::new("/tmp/x"),
        );
        assert!(conf.contains("shared_buffers = 6144MB"), "{conf}");
        assert!(conf.contains("max_connections = 14100"));
        assert!(conf.contains("max_wal_size = 8GB"));
        assert!(!conf.contains("fsync") && !conf.contains("synchronous_commit"));
        let temp = render(
            Sizing { memory_bytes: 24 << 30, max_connections: 100, temp: true, port: 5999 },
            Path::new("/tmp/x"),
        );
        assert!(temp.contains("shared_buffers = 128MB"));
    }
}
