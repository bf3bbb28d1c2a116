//! A Windows database host seen from outside: a windows_exporter's `/metrics` (the studies' SQL Server
//! hosts), scraped through the same `--node-exporter` flag and read into the same [`HostTotals`] as a
//! node_exporter's, so its figures are computed by the same code: CPU time per mode, memory, network
//! bytes and per volume I/O.
//!
//! Windows counts CPU time as user, privileged and idle (its privileged time already holds the interrupt
//! and DPC time the exporter also lists, which are left out here so as not to count them twice). Its
//! queue length is a gauge averaged by Windows itself rather than a running total, so a volume's queue
//! length is left out (its weighted time is not a number, which the figures leave out).

use super::exposition::parse;
use super::host::{CpuTimes, DiskTotals, HostTotals};

/// The metric that tells a windows_exporter's page from a node_exporter's.
pub const CPU_METRIC: &str = "windows_cpu_time_total";

/// The host's totals in a windows_exporter's page: CPU seconds per mode over every core, memory in use,
/// network bytes (ISATAP and loopback pseudo-interfaces left out), and per volume (drive letters and
/// mount points; `_Total` and unnamed `HarddiskVolume`s left out) reads, writes and their busy time.
pub fn totals(text: &str) -> HostTotals {
    let mut host = HostTotals::default();
    let (mut mem_total, mut mem_available) = (None, None);
    for s in parse(text) {
        match s.name {
            CPU_METRIC => {
                let cpu = host.cpu.get_or_insert_with(CpuTimes::default);
                match s.label("mode") {
                    Some("user") => cpu.user += s.value,
                    Some("privileged") => cpu.system += s.value,
                    Some("idle") => cpu.idle += s.value,
                    _ => {}
                }
            }
            "windows_memory_physical_total_bytes" | "windows_cs_physical_memory_bytes" => {
                mem_total.get_or_insert(s.value);
            }
            "windows_memory_available_bytes" => mem_available = Some(s.value),
            "windows_net_bytes_received_total" | "windows_net_bytes_sent_total" => {
                let nic = s.label("nic").unwrap_or("").to_ascii_lowercase();
                if nic.contains("isatap") || nic.contains("loopback") {
                    continue;
                }
                let net = host.net_bytes.get_or_insert((0.0, 0.0));
                if s.name == "windows_net_bytes_received_total" {
                    net.0 += s.value;
                } else {
                    net.1 += s.value;
                }
            }
            name if name.starts_with("windows_logical_disk_") => {
                let Some(volume) =
                    s.label("volume").filter(|v| *v != "_Total" && !v.starts_with("HarddiskVolume"))
                else {
                    continue;
                };
                let disk = host
                    .disks
                    .entry(volume.to_string())
                    .or_insert(DiskTotals { weighted_ms: f64::NAN, ..DiskTotals::default() });
                match name {
                    "windows_logical_disk_reads_total" => disk.reads = s.value,
                    "windows_logical_disk_writes_total" => disk.writes = s.value,
                    "windows_logical_disk_read_seconds_total"
                    | "windows_logical_disk_write_seconds_total" => {
                        disk.io_ms += s.value * 1e3;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    host.disks.retain(|_, d| d.reads + d.writes > 0.0);
    host.mem_used_bytes = mem_total.zip(mem_available).map(|(t, a)| t - a);
    host
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::host::figures;

    #[test]
    fn a_windows_exporter_page_reads_as_host_totals() {
        let host = totals(include_str!("testdata/windows_exporter.txt"));
        let cpu = host.cpu.unwrap();
        assert!((cpu.user - (7810.5 + 8120.0)).abs() < 1e-9, "{cpu:?}");
        assert!(
            (cpu.system - (2210.75 + 2305.5)).abs() < 1e-9,
            "privileged only, its DPC and interrupt time inside it"
        );
        assert!((cpu.idle - (30512.5 + 30101.25)).abs() < 1e-9);
        assert_eq!(host.mem_used_bytes, Some(3.4359738368e10 - 6.442450944e9));
        assert_eq!(host.net_bytes, Some((9.8765432e10, 1.23456789e11)), "ISATAP left out");
        assert_eq!(host.disks.keys().collect::<Vec<_>>(), ["C:", "D:", "L:"], "no unnamed or idle volume");
        let d = host.disks["D:"];
        assert_eq!((d.reads, d.writes), (6.0285e7, 5.5050505e7));
        assert!((d.io_ms - (20450.75 + 15020.5) * 1e3).abs() < 1e-6);
    }

    #[test]
    fn two_pages_give_the_figures_a_node_exporter_s_would_but_the_queue() {
        let before = totals(include_str!("testdata/windows_exporter.txt"));
        let mut after = before.clone();
        if let Some(cpu) = after.cpu.as_mut() {
            (cpu.user, cpu.system, cpu.idle) = (cpu.user + 6.0, cpu.system + 2.0, cpu.idle + 12.0);
        }
        let l = after.disks.get_mut("L:").unwrap();
        (l.writes, l.io_ms) = (l.writes + 5_000.0, l.io_ms + 2_500.0);
        let figures: std::collections::BTreeMap<String, f64> =
            figures(&before, &after, 10.0).into_iter().collect();
        assert_eq!(figures["cpu_pct"], 40.0, "8 of 20 core-seconds busy");
        assert_eq!(figures["disk_L:_writes_per_s"], 500.0);
        assert_eq!(figures["disk_L:_ms_per_transfer"], 0.5);
        assert!(!figures.contains_key("disk_L:_queue_length"), "not measured, so not given as zero");
    }
}
