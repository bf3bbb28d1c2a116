//! A database host seen from outside: a Prometheus node_exporter's `/metrics`, scraped each interval
//! and read into the same [`HostTotals`] as this machine's `/proc`, so its figures are computed by the
//! same code. The Prometheus text format (version 0.0.4) is simple enough to read here: a sample is
//! `name{label="value",…} value [timestamp]`, `#` lines are comments, and only the dozen node_exporter
//! series the figures need are looked at.

use std::time::Duration;

use super::host::{CpuTimes, DiskTotals, HostTotals, device_excluded};

/// One sample of the text format: its name, labels and value.
#[derive(Debug, PartialEq)]
pub struct Sample<'a> {
    /// The metric's name.
    pub name: &'a str,
    /// Its labels, in the order given (values unescaped).
    pub labels: Vec<(&'a str, String)>,
    /// Its value (`NaN`, `+Inf` and `-Inf` as the format spells them).
    pub value: f64,
}

impl Sample<'_> {
    /// The value of label `key`, if it has one.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
    }
}

/// Every sample in `text`; lines that are not samples (comments, blanks, a line cut short) are skipped.
pub fn parse(text: &str) -> Vec<Sample<'_>> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Sample<'_>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let name_end = line.find(|c: char| c == '{' || c.is_whitespace())?;
    let name = &line[..name_end];
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(inner) = rest.strip_prefix('{') {
        let (parsed, after) = parse_labels(inner)?;
        labels = parsed;
        rest = after;
    }
    let value = rest.split_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().ok()?,
    };
    Some(Sample { name, labels, value })
}

/// Labels up to the closing `}`, and what follows it.
fn parse_labels(mut s: &str) -> Option<(Vec<(&str, String)>, &str)> {
    let mut labels = Vec::new();
    loop {
        s = s.trim_start_matches([',', ' ']);
        if let Some(after) = s.strip_prefix('}') {
            return Some((labels, after));
        }
        let (key, after) = s.split_once('=')?;
        let mut chars = after.strip_prefix('"')?.char_indices();
        let mut value = String::new();
        let end = loop {
            match chars.next()? {
                (i, '"') => break i,
                (_, '\\') => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    c => value.push(c),
                },
                (_, c) => value.push(c),
            }
        };
        labels.push((key.trim(), value));
        s = &after[1 + end + 1..];
    }
}

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
                        disk.io_ms += s.value * 1e3;
                    }
                    "node_disk_io_time_weighted_seconds_total" => disk.weighted_ms = s.value * 1e3,
                    "node_disk_io_time_seconds_total" => disk.busy_ms = s.value * 1e3,
                    "node_disk_read_bytes_total" => disk.read_bytes = s.value,
                    "node_disk_written_bytes_total" => disk.written_bytes = s.value,
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
    fn the_text_format_with_labels_escapes_and_timestamps() {
        let text = "# HELP x A thing.\n# TYPE x counter\nx 1\n\
                    y{a=\"1\",b=\"q\\\"uo\\\\te\\n\"} 2.5e+03 1700000000000\n\
                    z{le=\"+Inf\",} +Inf\nbroken{a=\"1\" 3\n\n";
        let samples = parse(text);
        assert_eq!(samples.len(), 3, "{samples:?}");
        assert_eq!(samples[0], Sample { name: "x", labels: vec![], value: 1.0 });
        assert_eq!(samples[1].value, 2500.0);
        assert_eq!(samples[1].label("a"), Some("1"));
        assert_eq!(samples[1].label("b"), Some("q\"uo\\te\n"));
        assert_eq!(samples[2].value, f64::INFINITY);
        assert_eq!(samples[2].label("le"), Some("+Inf"));
    }

    #[test]
    fn busy_time_and_bytes_read_as_proc_s() {
        let page = "node_disk_reads_completed_total{device=\"sda1\"} 10\n\
                    node_disk_io_time_seconds_total{device=\"sda1\"} 1.5\n\
                    node_disk_read_bytes_total{device=\"sda1\"} 81920\n\
                    node_disk_written_bytes_total{device=\"sda1\"} 163840\n";
        let d = totals(page).disks["sda1"];
        assert_eq!((d.busy_ms, d.read_bytes, d.written_bytes), (1500.0, 81920.0, 163840.0));
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
        assert!((vda.io_ms - (3835.792 + 8505.923) * 1e3).abs() < 1e-6);
        assert!((vda.weighted_ms - 13469.07e3).abs() < 1e-6);
    }
}
