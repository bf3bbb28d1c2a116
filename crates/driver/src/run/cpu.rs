//! The client's own resource use: CPU seconds (so a result shows the driver was not the bottleneck) and
//! peak memory, read from /proc without unsafe calls.

/// User and system CPU seconds this process has used so far; zeros where /proc is missing.
pub fn process_cpu_s() -> (f64, f64) {
    cpu_s_of_stat(&std::fs::read_to_string("/proc/self/stat").unwrap_or_default())
}

/// User and system CPU seconds from a `/proc/<pid>/stat` line (zeros for a line it cannot read); apart
/// from reading the file, so a test can give it a fixed line.
fn cpu_s_of_stat(stat: &str) -> (f64, f64) {
    // Fields 14 and 15 of /proc/self/stat, in clock ticks; Linux fixes USER_HZ at 100 for /proc.
    const TICKS_PER_S: f64 = 100.0;
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let field = |n: usize| after.split_whitespace().nth(n).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (field(11) / TICKS_PER_S, field(12) / TICKS_PER_S)
}

/// The process's peak resident memory in bytes (VmHWM), 0 where /proc is missing.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_and_memory_are_read() {
        let mut x = 0u64;
        for i in 0..30_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let (user, sys) = super::process_cpu_s();
        assert!(user + sys > 0.0);
        assert!(super::peak_rss_bytes() > 1 << 20);
    }

    /// The client CPU figure from a fixed /proc line: utime 1234 and stime 567 ticks, under a command
    /// name holding spaces and a parenthesis, over 18,010 transactions are 1,000 µs per transaction.
    #[test]
    fn the_client_cpu_figure_comes_from_the_stat_line() {
        let stat = "4242 (oltp gen) 1) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1234 567 0 0 20 0 9 0 102682 \
                    3133440 382 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
        let (user, sys) = super::cpu_s_of_stat(stat);
        assert_eq!((user, sys), (12.34, 5.67));
        let client = oltpgen_report::model::ClientCpu::new(user, sys, 18_010);
        let per_txn = client.client_cpu_us_per_txn.expect("transactions ran");
        assert!((per_txn - 1_000.0).abs() < 1e-9, "{per_txn} µs per transaction");
        assert_eq!(super::cpu_s_of_stat(""), (0.0, 0.0), "no /proc: zeros");
    }
}

/// The host's energy counters (RAPL), where it exposes them: one µJ counter per CPU package, and the
/// value each wraps at. `None` on hosts without them (most VMs).
pub fn rapl_energy_uj() -> Option<(Vec<u64>, Vec<u64>)> {
    rapl_energy_at(std::path::Path::new("/sys/class/powercap"))
}

fn rapl_energy_at(root: &std::path::Path) -> Option<(Vec<u64>, Vec<u64>)> {
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok();
    let mut packages: Vec<std::path::PathBuf> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|e| e.path())
        // Packages are intel-rapl:N; their sub-zones (intel-rapl:N:M) are counted within them.
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.matches(':').count() == 1))
        .collect();
    packages.sort();
    let energy: Vec<u64> = packages.iter().map(|p| read(p.join("energy_uj"))).collect::<Option<_>>()?;
    let max: Vec<u64> =
        packages.iter().map(|p| read(p.join("max_energy_range_uj"))).collect::<Option<_>>()?;
    (!energy.is_empty()).then_some((energy, max))
}

#[cfg(test)]
mod rapl_tests {
    #[test]
    fn packages_are_read_and_sub_zones_left_out() {
        let dir = tempfile::tempdir().unwrap();
        for (zone, uj) in [("intel-rapl:0", 5), ("intel-rapl:1", 7), ("intel-rapl:0:0", 99)] {
            let z = dir.path().join(zone);
            std::fs::create_dir(&z).unwrap();
            std::fs::write(z.join("energy_uj"), format!("{uj}\n")).unwrap();
            std::fs::write(z.join("max_energy_range_uj"), "1000\n").unwrap();
        }
        assert_eq!(super::rapl_energy_at(dir.path()), Some((vec![5, 7], vec![1000, 1000])));
        assert_eq!(super::rapl_energy_at(&dir.path().join("none")), None);
    }
}
