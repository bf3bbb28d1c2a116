//! A database host seen from outside: a Prometheus node_exporter's `/metrics`, scraped each interval
//! (read by [`super::exposition`]) and read into the same [`HostTotals`] as this machine's `/proc`, so
//! its figures are computed by the same code; only the dozen node_exporter series the figures need are
//! looked at.

use std::time::Duration;

use super::exposition::parse;
use super::host::{CpuTimes, DiskTotals, HostTotals, device_excluded};

/// The host's totals in a node_exporter's scrape: CPU seconds per mode over every CPU, memory, network
/// bytes (loopback left out) and per block device I/O (the devices node_exporter itself excludes, and
/// devices that never did any I/O, left out as for `/proc`).
pub fn totals(text: &str) -> HostTotals {
    let mut host = HostTotals::default();
    let (mut mem_total, mut mem_available) = (None, None);
    for s in parse(text) {
        match s.name {
            "node_cpu_seconds_total" => {
                let cpu = host.cpu.get_or_insert_with(CpuTimes::default);
                match s.label("mode") {
                    Some("user" | "nice") => cpu.user += s.value,
                    Some("system" | "irq" | "softirq") => cpu.system += s.value,
                    Some("idle") => cpu.idle += s.value,
                    Some("iowait") => cpu.iowait += s.value,
                    Some("steal") => cpu.steal += s.value,
                    _ => {}
                }
            }
            "node_memory_MemTotal_bytes" => mem_total = Some(s.value),
            "node_memory_MemAvailable_bytes" => mem_available = Some(s.value),
            "node_network_receive_bytes_total" | "node_network_transmit_bytes_total"
                if s.label("device") != Some("lo") =>
            {
                let net = host.net_bytes.get_or_insert((0.0, 0.0));
                if s.name == "node_network_receive_bytes_total" {
                    net.0 += s.value;
                } else {
                    net.1 += s.value;
                }
            }
            name if name.starts_with("node_disk_") => {
                let Some(dev) = s.label("device").filter(|d| !device_excluded(d)) else { continue };
                let disk = host.disks.entry(dev.to_string()).or_insert_with(DiskTotals::default);
                match name {
                    "node_disk_reads_completed_total" => disk.reads = s.value,
                    "node_disk_writes_completed_total" => disk.writes = s.value,
                    "node_disk_read_time_seconds_total" | "node_disk_write_time_seconds_total" => {
                        *disk.io_ms.get_or_insert(0.0) += s.value * 1e3;
                    }
                    "node_disk_io_time_weighted_seconds_total" => disk.weighted_ms = Some(s.value * 1e3),
                    "node_disk_io_time_seconds_total" => disk.busy_ms = Some(s.value * 1e3),
                    "node_disk_read_bytes_total" => disk.read_bytes = Some(s.value),
                    "node_disk_written_bytes_total" => disk.written_bytes = Some(s.value),
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

/// Scrapes `url` (waiting at most `timeout`) and reads the host's totals from it.
///
/// # Errors
/// One line saying why the scrape failed (unreachable, an HTTP error, not the text format).
pub async fn scrape(url: String, timeout: Duration) -> Result<HostTotals, String> {
    let fetched = tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder().timeout_global(Some(timeout)).build().new_agent();
        agent.get(&url).call().and_then(|mut r| r.body_mut().read_to_string())
    })
    .await;
    let text = match fetched {
        Ok(Ok(text)) => text,
        Ok(Err(e)) => return Err(e.to_string()),
        Err(e) => return Err(e.to_string()),
    };
    // The same flag reads a Windows host's windows_exporter.
    let windows = text.contains(super::windows_exporter::CPU_METRIC);
    let host = if windows { super::windows_exporter::totals(&text) } else { totals(&text) };
    if host.cpu.is_none() {
        return Err(
            "no node_cpu_seconds_total (nor windows_cpu_time_total) in its answer: is it a node_exporter?"
                .into(),
        );
    }
    Ok(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_and_bytes_read_as_proc_s() {
        let page = "node_disk_reads_completed_total{device=\"sda1\"} 10\n\
                    node_disk_io_time_seconds_total{device=\"sda1\"} 1.5\n\
                    node_disk_read_bytes_total{device=\"sda1\"} 81920\n\
                    node_disk_written_bytes_total{device=\"sda1\"} 163840\n";
        let d = totals(page).disks["sda1"];
        assert_eq!((d.busy_ms, d.read_bytes, d.written_bytes), (Some(1500.0), Some(81920.0), Some(163840.0)));
        assert_eq!(d.weighted_ms, None, "not on the page: not measured, not zero");
    }

    #[test]
    fn a_captured_node_exporter_scrape_reads_as_host_totals() {
        // Debian's prometheus-node-exporter 1.5.0 on a two-CPU VM.
        let host = totals(include_str!("testdata/node_exporter.txt"));
        let cpu = host.cpu.unwrap();
        // cpu0 and cpu1: user+nice, system+irq+softirq, idle, iowait, steal.
        assert!((cpu.user - (6562.48 + 246.54 + 6606.96 + 192.91)).abs() < 1e-6, "{cpu:?}");
        assert!((cpu.system - (1797.79 + 67.07 + 1872.26 + 127.33)).abs() < 1e-6, "{cpu:?}");
        assert!((cpu.idle - (1683.13 + 1515.47)).abs() < 1e-6, "{cpu:?}");
        assert!((cpu.iowait - (86.64 + 127.71)).abs() < 1e-6, "{cpu:?}");
        assert!((cpu.steal - (215.94 + 216.98)).abs() < 1e-6, "{cpu:?}");
        assert_eq!(host.mem_used_bytes, Some(2.5276063744e10 - 2.4130023424e10));
        assert_eq!(host.net_bytes, Some((4.21839306e8, 963688.0)));
        assert_eq!(host.disks.keys().collect::<Vec<_>>(), ["vda"], "idle zram0 is left out");
        let vda = host.disks["vda"];
        assert_eq!((vda.reads, vda.writes), (2.694e6, 6.939829e6));
        assert!((vda.io_ms.unwrap() - (3835.792 + 8505.923) * 1e3).abs() < 1e-6);
        assert!((vda.weighted_ms.unwrap() - 13469.07e3).abs() < 1e-6);
    }
}
