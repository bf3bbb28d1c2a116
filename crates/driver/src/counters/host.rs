//! A host's counters: the raw totals a host keeps (CPU time per mode, memory, network bytes, per block
//! device I/O), read from this machine's `/proc` or from a node_exporter's scrape, and the figures the
//! studies quote computed from two readings: CPU %, memory used, network bytes/s, and per disk and
//! partition reads/s, writes/s, transfers/s, average ms per transfer, queue length, % busy and % idle,
//! and bytes read and written per second (perfmon's `% Processor Time`, `Disk Transfers/sec`, `Avg.
//! Disk sec/Transfer`, `Avg. Disk Queue Length`, `% Idle Time`, `Disk Read Bytes/sec`; iostat's `r/s`,
//! `w/s`, `await`, `aqu-sz`, `%util`, `rkB/s`, `wkB/s`): what `oltpgen io model` derives a storage
//! model from.
//!
//! Both sources fill one [`HostTotals`], so that the figures are computed by one piece of code.

use std::collections::BTreeMap;

/// CPU time per mode, summed over every CPU, in any one unit (ratios are all that is taken from it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTimes {
    /// User time, nice time included.
    pub user: f64,
    /// Kernel time, interrupts included.
    pub system: f64,
    /// Idle.
    pub idle: f64,
    /// Idle while waiting for I/O.
    pub iowait: f64,
    /// Taken by the hypervisor for others.
    pub steal: f64,
}

impl CpuTimes {
    fn total(&self) -> f64 {
        self.user + self.system + self.idle + self.iowait + self.steal
    }
}

/// One block device's totals since boot. A total its source does not count is `None`, and so are the
/// figures computed from it: never given as zero.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiskTotals {
    /// Reads completed.
    pub reads: f64,
    /// Writes completed.
    pub writes: f64,
    /// Milliseconds spent reading and writing (summed over requests).
    pub io_ms: Option<f64>,
    /// Milliseconds spent doing I/O, weighted by the requests in flight (the queue's area).
    pub weighted_ms: Option<f64>,
    /// Milliseconds the device had I/O in flight (the kernel's io time: its busy time).
    pub busy_ms: Option<f64>,
    /// Milliseconds the device had no I/O in flight (what Windows counts in place of its busy time).
    pub idle_ms: Option<f64>,
    /// Bytes read.
    pub read_bytes: Option<f64>,
    /// Bytes written.
    pub written_bytes: Option<f64>,
}

/// The kernel counts sectors of 512 bytes in `/proc/diskstats`, whatever the device's own.
const DISKSTATS_SECTOR_BYTES: f64 = 512.0;

/// A host's totals at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostTotals {
    /// CPU time per mode, when read.
    pub cpu: Option<CpuTimes>,
    /// Memory in use (total less available), bytes.
    pub mem_used_bytes: Option<f64>,
    /// Bytes received and sent over every interface but loopback.
    pub net_bytes: Option<(f64, f64)>,
    /// Per block device, disks and partitions (loop, RAM and floppy devices left out).
    pub disks: BTreeMap<String, DiskTotals>,
}

/// The figures between two readings `dt_s` seconds apart, named as results name them. A figure whose
/// counter is not counted by the source, went backwards (a reset) or has nothing to average (ms per
/// transfer without transfers) is left out, never given as zero.
pub fn figures(before: &HostTotals, after: &HostTotals, dt_s: f64) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    if dt_s <= 0.0 {
        return out;
    }
    if let (Some(a), Some(b)) = (before.cpu, after.cpu) {
        let total = b.total() - a.total();
        if total > 0.0 {
            let pct = |x: f64, y: f64| 100.0 * ((y - x) / total).clamp(0.0, 1.0);
            // Busy is user and kernel time: iowait is idle, and steal is time the host did not get.
            out.push(("cpu_pct".into(), pct(a.user + a.system, b.user + b.system)));
            out.push(("cpu_user_pct".into(), pct(a.user, b.user)));
            out.push(("cpu_system_pct".into(), pct(a.system, b.system)));
            out.push(("cpu_iowait_pct".into(), pct(a.iowait, b.iowait)));
            out.push(("cpu_steal_pct".into(), pct(a.steal, b.steal)));
        }
    }
    if let Some(used) = after.mem_used_bytes {
        out.push(("mem_used_bytes".into(), used));
    }
    if let (Some((rx0, tx0)), Some((rx1, tx1))) = (before.net_bytes, after.net_bytes) {
        push_rate(&mut out, "net_rx_bytes_per_s".into(), rx1 - rx0, dt_s);
        push_rate(&mut out, "net_tx_bytes_per_s".into(), tx1 - tx0, dt_s);
    }
    for (dev, b) in &after.disks {
        let Some(a) = before.disks.get(dev) else { continue };
        let (reads, writes) = (b.reads - a.reads, b.writes - a.writes);
        push_rate(&mut out, format!("disk_{dev}_reads_per_s"), reads, dt_s);
        push_rate(&mut out, format!("disk_{dev}_writes_per_s"), writes, dt_s);
        push_rate(&mut out, format!("disk_{dev}_transfers_per_s"), reads + writes, dt_s);
        let delta = |total: fn(&DiskTotals) -> Option<f64>| Some(total(b)? - total(a)?);
        if let Some(io_ms) = delta(|d| d.io_ms)
            && reads + writes > 0.0
            && reads >= 0.0
            && writes >= 0.0
            && io_ms >= 0.0
        {
            out.push((format!("disk_{dev}_ms_per_transfer"), io_ms / (reads + writes)));
        }
        // iostat's aqu-sz: the queue's area over the interval, divided by the interval.
        if let Some(area_ms) = delta(|d| d.weighted_ms) {
            push_rate(&mut out, format!("disk_{dev}_queue_length"), area_ms / 1e3, dt_s);
        }
        // iostat's %util, perfmon's 100 - % Idle Time: the share of the interval with I/O in flight.
        let busy_ms = delta(|d| d.busy_ms).or_else(|| {
            delta(|d| d.idle_ms).filter(|idle| *idle >= 0.0).map(|idle| (dt_s * 1e3 - idle).max(0.0))
        });
        if let Some(busy_ms) = busy_ms.filter(|b| *b >= 0.0) {
            let busy = (busy_ms / (dt_s * 1e3) * 100.0).min(100.0);
            out.push((format!("disk_{dev}_busy_pct"), busy));
            out.push((format!("disk_{dev}_idle_pct"), 100.0 - busy));
        }
        if let Some(bytes) = delta(|d| d.read_bytes) {
            push_rate(&mut out, format!("disk_{dev}_read_bytes_per_s"), bytes, dt_s);
        }
        if let Some(bytes) = delta(|d| d.written_bytes) {
            push_rate(&mut out, format!("disk_{dev}_write_bytes_per_s"), bytes, dt_s);
        }
    }
    out
}

/// Pushes `delta / dt_s` unless the counter went backwards.
fn push_rate(out: &mut Vec<(String, f64)>, name: String, delta: f64, dt_s: f64) {
    if delta >= 0.0 {
        out.push((name, delta / dt_s));
    }
}

/// Whether block device `name` is left out: RAM disks, loop devices and floppies (`ram0`, `loop7`,
/// `fd0`), which hold no database. Disks and their partitions are kept, so that a database on a partition
/// of a shared disk can be told apart (node_exporter leaves partitions out unless told otherwise).
pub fn device_excluded(name: &str) -> bool {
    ["ram", "loop", "fd"].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// This machine's totals now, from `/proc`; what cannot be read is left out.
pub fn read_proc() -> HostTotals {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    HostTotals {
        cpu: parse_proc_stat(&read("/proc/stat")),
        mem_used_bytes: parse_meminfo(&read("/proc/meminfo")),
        net_bytes: parse_net_dev(&read("/proc/net/dev")),
        disks: parse_diskstats(&read("/proc/diskstats")),
    }
}

/// The `cpu` line of `/proc/stat` (USER_HZ ticks): user nice system idle iowait irq softirq steal
/// (guest time is counted in user time already).
pub fn parse_proc_stat(text: &str) -> Option<CpuTimes> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<f64> = line.split_whitespace().skip(1).map_while(|f| f.parse().ok()).collect();
    // Every Linux since 2.6.11 has the eight; a line with fewer is not read, rather than its iowait or
    // steal read as 0.
    (v.len() >= 8).then(|| CpuTimes {
        user: v[0] + v[1],
        system: v[2] + v[5] + v[6],
        idle: v[3],
        iowait: v[4],
        steal: v[7],
    })
}

/// Memory in use from `/proc/meminfo`: MemTotal less MemAvailable (kB there), bytes.
pub fn parse_meminfo(text: &str) -> Option<f64> {
    let kb = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.trim_start_matches(':').split_whitespace().next()?.parse::<f64>().ok())
    };
    Some((kb("MemTotal")? - kb("MemAvailable")?) * 1024.0)
}

/// Bytes received and sent over every interface but `lo`, from `/proc/net/dev`.
pub fn parse_net_dev(text: &str) -> Option<(f64, f64)> {
    let mut total = None::<(f64, f64)>;
    for line in text.lines().skip(2) {
        let Some((name, rest)) = line.split_once(':') else { continue };
        if name.trim() == "lo" {
            continue;
        }
        let f: Vec<f64> = rest.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        if f.len() >= 9 {
            let t = total.get_or_insert((0.0, 0.0));
            t.0 += f[0];
            t.1 += f[8];
        }
    }
    total
}

/// Per block device from `/proc/diskstats` (fields after major, minor and name: reads, reads merged,
/// sectors read, ms reading, writes, writes merged, sectors written, ms writing, in flight, ms doing
/// I/O, weighted ms), RAM, loop and floppy devices ([`device_excluded`]) and devices that never did any
/// I/O left out.
pub fn parse_diskstats(text: &str) -> BTreeMap<String, DiskTotals> {
    let mut disks = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 14 || device_excluded(f[2]) {
            continue;
        }
        // A field that is not a number leaves the line out, rather than reading it as 0.
        let Ok(v) = f[3..14].iter().map(|x| x.parse::<f64>()).collect::<Result<Vec<f64>, _>>() else {
            continue;
        };
        let n = |i: usize| v[i - 3];
        let d = DiskTotals {
            reads: n(3),
            writes: n(7),
            io_ms: Some(n(6) + n(10)),
            weighted_ms: Some(n(13)),
            busy_ms: Some(n(12)),
            idle_ms: None,
            read_bytes: Some(n(5) * DISKSTATS_SECTOR_BYTES),
            written_bytes: Some(n(9) * DISKSTATS_SECTOR_BYTES),
        };
        if d.reads + d.writes > 0.0 {
            disks.insert(f[2].to_string(), d);
        }
    }
    disks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_captured_on_a_vm_parse() {
        let cpu = parse_proc_stat(include_str!("testdata/proc_stat.txt")).unwrap();
        // cpu  1317719 43945 367427 319871 21466 0 19486 43327 0 0
        assert_eq!(cpu.user, 1317719.0 + 43945.0);
        assert_eq!(cpu.system, 367427.0 + 19486.0);
        assert_eq!((cpu.idle, cpu.iowait, cpu.steal), (319871.0, 21466.0, 43327.0));
        let used = parse_meminfo(include_str!("testdata/proc_meminfo.txt")).unwrap();
        assert_eq!(used, (24683656.0 - 23691120.0) * 1024.0);
        let (rx, tx) = parse_net_dev(include_str!("testdata/proc_net_dev.txt")).unwrap();
        assert_eq!((rx, tx), (421839306.0, 963688.0), "loopback is left out");
        let disks = parse_diskstats(include_str!("testdata/proc_diskstats.txt"));
        assert_eq!(disks.keys().collect::<Vec<_>>(), ["vda"], "loop devices and idle zram are left out");
        let vda = disks["vda"];
        assert_eq!((vda.reads, vda.writes), (2694142.0, 6954743.0));
        assert_eq!((vda.io_ms, vda.weighted_ms), (Some(3835804.0 + 8510975.0), Some(13475472.0)));
        assert_eq!(vda.busy_ms, Some(1167496.0));
        assert_eq!(
            (vda.read_bytes, vda.written_bytes),
            (Some(104372610.0 * 512.0), Some(837959232.0 * 512.0))
        );
    }

    #[test]
    fn a_reading_missing_a_field_is_left_out_not_read_as_zero() {
        assert!(parse_proc_stat("cpu  10 0 5 100 2\n").is_none(), "no steal field: no CPU times");
        let cpu = parse_proc_stat("cpu  10 0 5 100 2 0 0 3 0 0\n").unwrap();
        assert_eq!((cpu.iowait, cpu.steal), (2.0, 3.0));
        let disks = parse_diskstats(
            "   8       0 sda 10 0 80 5 20 0 160 9 0 14 14 0 0 0 0\n   8      16 sdb 10 x 80 5 20 0 160 9 0 14 14\n",
        );
        assert_eq!(disks.keys().collect::<Vec<_>>(), ["sda"], "a malformed line is not a disk of zeros");
    }

    #[test]
    fn loop_ram_and_floppy_devices_are_left_out_and_partitions_kept() {
        for out in ["loop7", "ram0", "fd0"] {
            assert!(device_excluded(out), "{out}");
        }
        for kept in ["sda", "sda1", "vda2", "nvme0n1", "nvme0n1p1", "dm-0", "md0", "zram0", "sdaa", "loop"] {
            assert!(!device_excluded(kept), "{kept}");
        }
        let line = " 259       1 nvme0n1p1 10 0 80 5 20 0 160 7 0 9 12 0 0 0 0 0 0\n";
        assert_eq!(parse_diskstats(line).keys().collect::<Vec<_>>(), ["nvme0n1p1"]);
    }

    fn totals(cpu: [f64; 5], disk: [f64; 4], net: (f64, f64)) -> HostTotals {
        let [user, system, idle, iowait, steal] = cpu;
        let [reads, writes, io_ms, weighted_ms] = disk;
        HostTotals {
            cpu: Some(CpuTimes { user, system, idle, iowait, steal }),
            mem_used_bytes: Some(1e9),
            net_bytes: Some(net),
            // A tenth of the I/O time busy, 8 KiB per read and 16 KiB per write.
            disks: [(
                "vda".to_string(),
                DiskTotals {
                    reads,
                    writes,
                    io_ms: Some(io_ms),
                    weighted_ms: Some(weighted_ms),
                    busy_ms: Some(io_ms / 10.0),
                    idle_ms: None,
                    read_bytes: Some(reads * 8192.0),
                    written_bytes: Some(writes * 16384.0),
                },
            )]
            .into(),
        }
    }

    #[test]
    fn figures_between_two_readings() {
        let a = totals([100.0, 50.0, 800.0, 40.0, 10.0], [1000.0, 2000.0, 5000.0, 9000.0], (0.0, 0.0));
        // 200 ticks later: 60 user, 40 system, 80 idle, 10 iowait, 10 steal; 30 reads and 70 writes
        // taking 400 ms in all; the queue's area 3000 ms over 2 s.
        let b = totals([160.0, 90.0, 880.0, 50.0, 20.0], [1030.0, 2070.0, 5400.0, 12000.0], (4000.0, 2000.0));
        let f: BTreeMap<String, f64> = figures(&a, &b, 2.0).into_iter().collect();
        assert_eq!(f["cpu_pct"], 50.0);
        assert_eq!(f["cpu_user_pct"], 30.0);
        assert_eq!(f["cpu_system_pct"], 20.0);
        assert_eq!(f["cpu_iowait_pct"], 5.0);
        assert_eq!(f["cpu_steal_pct"], 5.0);
        assert_eq!(f["mem_used_bytes"], 1e9);
        assert_eq!((f["net_rx_bytes_per_s"], f["net_tx_bytes_per_s"]), (2000.0, 1000.0));
        assert_eq!((f["disk_vda_reads_per_s"], f["disk_vda_writes_per_s"]), (15.0, 35.0));
        assert_eq!(f["disk_vda_transfers_per_s"], 50.0);
        assert_eq!(f["disk_vda_ms_per_transfer"], 4.0);
        assert_eq!(f["disk_vda_queue_length"], 1.5);
        // 40 ms busy in 2 s; 30 reads of 8 KiB and 70 writes of 16 KiB.
        assert_eq!((f["disk_vda_busy_pct"], f["disk_vda_idle_pct"]), (2.0, 98.0));
        assert_eq!(f["disk_vda_read_bytes_per_s"], 30.0 * 8192.0 / 2.0);
        assert_eq!(f["disk_vda_write_bytes_per_s"], 70.0 * 16384.0 / 2.0);
    }

    #[test]
    fn a_reset_or_an_idle_disk_leaves_a_figure_out_rather_than_zero() {
        let a = totals([100.0, 50.0, 800.0, 40.0, 10.0], [1000.0, 2000.0, 5000.0, 9000.0], (500.0, 500.0));
        let b = totals([160.0, 90.0, 880.0, 50.0, 20.0], [1000.0, 2000.0, 5000.0, 9000.0], (100.0, 600.0));
        let f: BTreeMap<String, f64> = figures(&a, &b, 1.0).into_iter().collect();
        assert!(!f.contains_key("disk_vda_ms_per_transfer"), "no transfers, no average");
        assert_eq!(f["disk_vda_transfers_per_s"], 0.0);
        assert!(!f.contains_key("net_rx_bytes_per_s"), "a counter that went backwards");
        assert_eq!(f["net_tx_bytes_per_s"], 100.0);
        let mut gone = b.clone();
        gone.disks.clear();
        assert!(!figures(&a, &gone, 1.0).iter().any(|(n, _)| n.starts_with("disk_")), "a device that went");
    }
}
