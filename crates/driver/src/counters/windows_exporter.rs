//! A Windows database host seen from outside: a windows_exporter's `/metrics` (the studies' SQL Server
//! hosts), scraped through the same `--node-exporter` flag and read into the same [`HostTotals`] as a
//! node_exporter's, so its figures are computed by the same code: CPU time per mode, memory, network
//! bytes and per volume I/O.
//!
//! Windows counts CPU time as user, privileged and idle (its privileged time already holds the interrupt
//! and DPC time the exporter also lists, which are left out here so as not to count them twice). A
//! volume's busy time is the interval less its idle time (perfmon's `% Idle Time`). Its queue length is
//! a gauge averaged by Windows itself rather than a running total, so a volume's queue length is left
//! out, as is any total the page does not have: a figure not on the page is absent, never zero.

use super::exposition::parse;
use super::host::{CpuTimes, HostTotals};

/// The metric that tells a windows_exporter's page from a node_exporter's.
pub const CPU_METRIC: &str = "windows_cpu_time_total";
const MEM_TOTAL: &str = "windows_memory_physical_total_bytes";
/// The cs collector's name for it, before windows_exporter 0.31 removed that collector.
const MEM_TOTAL_CS: &str = "windows_cs_physical_memory_bytes";
const MEM_AVAILABLE: &str = "windows_memory_available_bytes";
const NET_RECEIVED: &str = "windows_net_bytes_received_total";
const NET_SENT: &str = "windows_net_bytes_sent_total";
const READS: &str = "windows_logical_disk_reads_total";
const WRITES: &str = "windows_logical_disk_writes_total";
const READ_SECONDS: &str = "windows_logical_disk_read_seconds_total";
const WRITE_SECONDS: &str = "windows_logical_disk_write_seconds_total";
const IDLE_SECONDS: &str = "windows_logical_disk_idle_seconds_total";
const READ_BYTES: &str = "windows_logical_disk_read_bytes_total";
const WRITE_BYTES: &str = "windows_logical_disk_write_bytes_total";

/// The host's totals in a windows_exporter's page: CPU seconds per mode over every core, memory in use,
/// network bytes (ISATAP and loopback pseudo-interfaces left out), and per volume (drive letters and
/// mount points; `_Total` and unnamed `HarddiskVolume`s left out) reads, writes, their time, the idle
/// time and the bytes moved, each as far as the page has it.
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
            MEM_TOTAL | MEM_TOTAL_CS => {
                mem_total.get_or_insert(s.value);
            }
            MEM_AVAILABLE => mem_available = Some(s.value),
            NET_RECEIVED | NET_SENT => {
                let nic = s.label("nic").unwrap_or("").to_ascii_lowercase();
                if nic.contains("isatap") || nic.contains("loopback") {
                    continue;
                }
                let net = host.net_bytes.get_or_insert((0.0, 0.0));
                if s.name == NET_RECEIVED {
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
                let disk = host.disks.entry(volume.to_string()).or_default();
                match name {
                    READS => disk.reads = s.value,
                    WRITES => disk.writes = s.value,
                    READ_SECONDS | WRITE_SECONDS => *disk.io_ms.get_or_insert(0.0) += s.value * 1e3,
                    IDLE_SECONDS => disk.idle_ms = Some(s.value * 1e3),
                    READ_BYTES => disk.read_bytes = Some(s.value),
                    WRITE_BYTES => disk.written_bytes = Some(s.value),
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
    use std::collections::BTreeMap;

    use super::*;
    use crate::counters::host::figures;

    /// Every series the reader reads, with the type the figures take it to be (a counter: a running total, whose
    /// difference over an interval is the figure): checked against the exporter's own page.
    const SERIES: [(&str, &str); 12] = [
        (CPU_METRIC, "counter"),
        (MEM_TOTAL, "gauge"),
        (MEM_AVAILABLE, "gauge"),
        (NET_RECEIVED, "counter"),
        (NET_SENT, "counter"),
        (READS, "counter"),
        (WRITES, "counter"),
        (READ_SECONDS, "counter"),
        (WRITE_SECONDS, "counter"),
        (IDLE_SECONDS, "counter"),
        (READ_BYTES, "counter"),
        (WRITE_BYTES, "counter"),
    ];

    /// The windows_exporter project's own page: `tools/e2e-output.txt` of
    /// github.com/prometheus-community/windows_exporter at 589ec15d12b25894f425d72d7a2396c9344b00a0
    /// (unchanged since ec6f705), the output its end-to-end test expects from a Windows host, kept as it
    /// is. That test drops the samples that vary from run to run (CPU, memory, network, disks), so the page
    /// has their HELP and TYPE lines but no values; the project ships no page with a volume's values.
    const PROJECT_PAGE: &str = include_str!("testdata/windows_exporter_e2e_output.txt");

    /// The project's page with `samples` (name, labels, value) after it, each of a series the page
    /// types: a scrape of a host, its series and their types the exporter's own.
    fn scrape(samples: &[(&str, String, f64)]) -> String {
        let mut page = PROJECT_PAGE.to_string();
        for (name, labels, value) in samples {
            assert!(PROJECT_PAGE.contains(&format!("# TYPE {name} ")), "{name} is not on the project's page");
            page.push_str(&format!("{name}{{{labels}}} {value}\n"));
        }
        page
    }

    #[test]
    fn every_series_read_is_on_the_project_s_page_as_the_type_taken() {
        let types: BTreeMap<&str, &str> =
            PROJECT_PAGE.lines().filter_map(|l| l.strip_prefix("# TYPE ")?.split_once(' ')).collect();
        for (name, kind) in SERIES {
            assert_eq!(types.get(name), Some(&kind), "{name} on windows_exporter's own page");
        }
        assert_eq!(types["windows_logical_disk_avg_read_requests_queued"], "gauge", "hence no queue length");
    }

    #[test]
    fn the_project_s_page_without_values_gives_no_figure() {
        assert_eq!(totals(PROJECT_PAGE), HostTotals::default(), "nothing made up from a page without values");
    }

    /// A scrape of a two-core host with volumes C: (idle), D: and L:, `dt` seconds after the start of 10
    /// seconds of `work` (reads, writes, read s, write s, idle s, read bytes, write bytes of D:), with
    /// `idle_and_bytes` or without those series.
    fn host_after(dt: f64, work: [f64; 7], idle_and_bytes: bool) -> HostTotals {
        let [reads, writes, read_s, write_s, idle_s, read_b, write_b] = work;
        let mut samples: Vec<(&str, String, f64)> = [
            (CPU_METRIC, r#"core="0,0",mode="user""#, 100.0 + 3.0 * dt / 10.0),
            (CPU_METRIC, r#"core="0,0",mode="privileged""#, 50.0 + dt / 10.0),
            (CPU_METRIC, r#"core="0,0",mode="dpc""#, 5.0 + dt),
            (CPU_METRIC, r#"core="0,0",mode="idle""#, 400.0 + 6.0 * dt / 10.0),
            (CPU_METRIC, r#"core="0,1",mode="user""#, 90.0 + 3.0 * dt / 10.0),
            (CPU_METRIC, r#"core="0,1",mode="privileged""#, 40.0 + dt / 10.0),
            (CPU_METRIC, r#"core="0,1",mode="idle""#, 410.0 + 6.0 * dt / 10.0),
            (MEM_TOTAL, "", 3.4359738368e10),
            (MEM_AVAILABLE, "", 6.442450944e9),
            (NET_RECEIVED, r#"nic="Ethernet""#, 1e9 + 1e6 * dt),
            (NET_RECEIVED, r#"nic="isatap__{5C}""#, 7e9),
            (NET_SENT, r#"nic="Ethernet""#, 2e9 + 2e6 * dt),
        ]
        .into_iter()
        .map(|(name, labels, value)| (name, labels.to_string(), value))
        .collect();
        for volume in ["C:", "D:", "L:", "_Total", "HarddiskVolume1"] {
            // C: idles through the interval; the others do D:'s work, `dt` seconds of 10 of it so far.
            let busy = if volume == "C:" { 0.0 } else { dt / 10.0 };
            let mut series = vec![
                (READS, 1e6 + busy * reads),
                (WRITES, 2e6 + busy * writes),
                (READ_SECONDS, 100.0 + busy * read_s),
                (WRITE_SECONDS, 200.0 + busy * write_s),
            ];
            if idle_and_bytes {
                let idle = if volume == "C:" { dt } else { busy * idle_s };
                series.extend([
                    (IDLE_SECONDS, 5e4 + idle),
                    (READ_BYTES, 8e9 + busy * read_b),
                    (WRITE_BYTES, 9e9 + busy * write_b),
                ]);
            }
            samples.extend(
                series.into_iter().map(|(name, value)| (name, format!("volume=\"{volume}\""), value)),
            );
        }
        totals(&scrape(&samples))
    }

    #[test]
    fn a_scrape_gives_busy_idle_and_bytes_as_perfmon_does() {
        // D: over 10 s: 1,000 reads of 8 KiB and 4,000 writes of 64 KiB, 2.5 s of reads and writes, idle
        // 7.5 s of the 10: 25% busy.
        let work = [1_000.0, 4_000.0, 0.5, 2.0, 7.5, 1_000.0 * 8_192.0, 4_000.0 * 65_536.0];
        let (before, after) = (host_after(0.0, work, true), host_after(10.0, work, true));
        assert_eq!(after.disks.keys().collect::<Vec<_>>(), ["C:", "D:", "L:"], "no _Total or unnamed volume");
        assert_eq!(after.mem_used_bytes, Some(3.4359738368e10 - 6.442450944e9));
        let f: BTreeMap<String, f64> = figures(&before, &after, 10.0).into_iter().collect();
        assert!((f["cpu_pct"] - 40.0).abs() < 1e-9, "privileged only, its DPC time inside it: {f:?}");
        assert_eq!(f["net_rx_bytes_per_s"], 1e6, "ISATAP left out");
        assert_eq!((f["disk_D:_reads_per_s"], f["disk_D:_writes_per_s"]), (100.0, 400.0));
        assert_eq!(f["disk_D:_ms_per_transfer"], 0.5);
        assert!((f["disk_D:_busy_pct"] - 25.0).abs() < 1e-9, "{f:?}");
        assert!((f["disk_D:_idle_pct"] - 75.0).abs() < 1e-9, "{f:?}");
        assert_eq!(f["disk_D:_read_bytes_per_s"], 100.0 * 8_192.0);
        assert_eq!(f["disk_D:_write_bytes_per_s"], 400.0 * 65_536.0);
        assert!(!f.contains_key("disk_D:_queue_length"), "not measured, so not given as zero");
    }

    #[test]
    fn a_scrape_without_idle_time_or_bytes_leaves_those_figures_out() {
        let work = [1_000.0, 4_000.0, 0.5, 2.0, 7.5, 0.0, 0.0];
        let f: BTreeMap<String, f64> =
            figures(&host_after(0.0, work, false), &host_after(10.0, work, false), 10.0)
                .into_iter()
                .collect();
        assert_eq!(f["disk_D:_transfers_per_s"], 500.0);
        for absent in ["busy_pct", "idle_pct", "read_bytes_per_s", "write_bytes_per_s", "queue_length"] {
            assert!(
                !f.contains_key(&format!("disk_D:_{absent}")),
                "{absent}: not on the page, not zero: {f:?}"
            );
        }
    }
}
