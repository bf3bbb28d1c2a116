//! The storage model of a database run, as Iometer's study derived it from perfmon: from one disk's
//! (or partition's) counters over a step of a TPC-C or DS2 result, the bytes per transfer (the block),
//! the read share, the queue length (the outstanding I/Os) and the captured rate. Randomness is not in
//! the kernel's counters: the model assumes 100% random I/O, as the study did, and says so.

use std::collections::BTreeMap;

use crate::model::counters::split_key;
use crate::model::{RunResult, Step};

/// Direct I/O moves whole sectors from sector-aligned memory: transfers and offsets are multiples of this.
pub const SECTOR_BYTES: u64 = 512;

/// A disk's storage model.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Where its counters were read (`client`, `node:<URL>`).
    pub source: String,
    /// The disk or partition.
    pub device: String,
    /// The step (from 1) whose window it averages.
    pub step: u32,
    /// Transfers per second captured.
    pub iops: f64,
    /// Bytes per transfer captured.
    pub bytes_per_transfer: f64,
    /// Percent of transfers that read.
    pub read_pct: f64,
    /// The disk's average queue length.
    pub queue_length: f64,
    /// Average ms per transfer captured, when the counters had it.
    pub ms_per_transfer: Option<f64>,
}

/// One device's step averages by what they measure (`reads_per_s`, `write_bytes_per_s`, …).
type Device<'a> = BTreeMap<&'a str, f64>;

impl Model {
    /// The model of `disk` (a device name; by default the step's biggest writer) over the headline step
    /// of `result` (its last step without one).
    ///
    /// # Errors
    /// One line saying what the result lacks: steps, disk counters, the named disk, or the figures of it a
    /// model needs (bytes read and written, queue length), each named.
    pub fn of(result: &RunResult, disk: Option<&str>) -> Result<Model, String> {
        let step = headline_step(result).ok_or("the result has no measured step")?;
        let devices = devices(step);
        if devices.is_empty() {
            return Err(
                "the result has no disk counters (it was run with --no-counters, or sampled no disk)".into(),
            );
        }
        let ((source, device), figures) = match disk {
            Some(name) => devices.iter().find(|((_, d), _)| *d == name).ok_or_else(|| {
                let names: Vec<&str> = devices.keys().map(|(_, d)| *d).collect();
                format!("--disk {name}: the result has no counters of it; it has {}", names.join(", "))
            })?,
            None => devices
                .iter()
                .max_by(|a, b| written(a.1).total_cmp(&written(b.1)))
                .expect("devices is not empty"),
        };
        let get = |what: &str| figures.get(what).copied();
        let (reads, writes) = (get("reads_per_s").unwrap_or(0.0), get("writes_per_s").unwrap_or(0.0));
        let iops = reads + writes;
        if iops <= 0.0 {
            return Err(format!("{device} did no I/O in step {}: nothing to model", step.index + 1));
        }
        let need = |what: &str| get(what).ok_or_else(|| format!("disk_{device}_{what}"));
        let figures = (need("read_bytes_per_s"), need("write_bytes_per_s"), need("queue_length"));
        let (Ok(read_bytes), Ok(write_bytes), Ok(queue_length)) = figures.clone() else {
            let (r, w, q) = figures;
            let missing: Vec<String> = [r, w, q].into_iter().filter_map(Result::err).collect();
            return Err(format!(
                "the result has no {} of {device}, which a model needs (not measured where it was captured: a \
                 windows_exporter counts no queue length, an older oltpgen recorded no bytes); capture from the \
                 host's /proc or a node_exporter",
                missing.join(", ")
            ));
        };
        let bytes = read_bytes + write_bytes;
        Ok(Model {
            source: source.to_string(),
            device: device.to_string(),
            step: step.index + 1,
            iops,
            bytes_per_transfer: bytes / iops,
            read_pct: 100.0 * reads / iops,
            queue_length,
            ms_per_transfer: get("ms_per_transfer"),
        })
    }

    /// The block `io run` replays: the bytes per transfer to the nearest whole sector (at least one).
    pub fn block_bytes(&self) -> u64 {
        ((self.bytes_per_transfer / SECTOR_BYTES as f64).round() as u64).max(1) * SECTOR_BYTES
    }

    /// The outstanding I/Os `io run` replays on one worker: the queue length, rounded (at least one).
    pub fn outstanding(&self) -> u64 {
        (self.queue_length.round() as u64).max(1)
    }

    /// The `io run` command that replays the model on `file`.
    pub fn command(&self, file: &str) -> String {
        let block = self.block_bytes();
        let block = if block.is_multiple_of(1024) { format!("{}k", block / 1024) } else { block.to_string() };
        format!(
            "oltpgen io run --file {file} --block {block} --read {:.0}% --random 100% --workers 1 --outstanding {}",
            self.read_pct,
            self.outstanding()
        )
    }
}

/// The step a result's figures are quoted at: its headline, or its last.
fn headline_step(result: &RunResult) -> Option<&Step> {
    let headline =
        result.max_within_cap.as_ref().and_then(|h| result.steps.iter().find(|s| s.index == h.step_index));
    headline.or(result.steps.last())
}

/// The step's disk counters by (source, device).
fn devices(step: &Step) -> BTreeMap<(&str, &str), Device<'_>> {
    let mut devices: BTreeMap<(&str, &str), Device<'_>> = BTreeMap::new();
    for (key, value) in &step.counters {
        let (source, name) = split_key(key);
        let Some((device, what)) = name.strip_prefix("disk_").and_then(|rest| rest.split_once('_')) else {
            continue;
        };
        devices.entry((source, device)).or_default().insert(what, *value);
    }
    devices
}

/// What a device wrote a second: bytes when counted, else writes.
fn written(d: &Device<'_>) -> f64 {
    d.get("write_bytes_per_s").or(d.get("writes_per_s")).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result whose one step has `counters`.
    fn result(counters: &[(&str, f64)]) -> RunResult {
        let mut step =
            Step::new(crate::model::Workload::Tpcc, crate::model::step::StepPlan::default(), BTreeMap::new());
        step.counters = counters.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let mut r: RunResult = serde_json::from_value(serde_json::json!({
            "schema_version": 3, "tool": {"name": "oltpgen", "version": "0"}, "workload": "tpcc",
            "started_at": "", "config": {}, "server": {"engine": "", "version": "", "settings": {}},
            "targets": [], "steps": [], "timeseries": [], "client": {"cpu_user_s": 0.0, "cpu_sys_s": 0.0,
            "cpu_s": 0.0, "transactions": 0, "client_cpu_us_per_txn": null}, "errors_by_kind": {},
            "interrupted": false, "max_within_cap": null
        }))
        .unwrap();
        r.steps.push(step);
        r
    }

    #[test]
    fn the_study_s_production_disk_models_as_16k_30_percent_reads_16_outstanding() {
        // perfmon's production figures: 1,855 transfers/s of 16 KiB, 30% reads, queue 15.6, 8.1 ms each.
        let r = result(&[
            ("client/disk_sdb_reads_per_s", 556.5),
            ("client/disk_sdb_writes_per_s", 1_298.5),
            ("client/disk_sdb_read_bytes_per_s", 556.5 * 16_384.0),
            ("client/disk_sdb_write_bytes_per_s", 1_298.5 * 16_300.0),
            ("client/disk_sdb_queue_length", 15.6),
            ("client/disk_sdb_ms_per_transfer", 8.1),
            ("client/disk_sda_writes_per_s", 20.0),
            ("client/disk_sda_reads_per_s", 1.0),
            ("client/disk_sda_read_bytes_per_s", 4_096.0),
            ("client/disk_sda_write_bytes_per_s", 81_920.0),
            ("client/disk_sda_queue_length", 0.2),
            ("client/cpu_pct", 50.0),
        ]);
        let m = Model::of(&r, None).unwrap();
        assert_eq!((m.device.as_str(), m.step), ("sdb", 1), "the biggest writer by default");
        assert!((m.iops - 1_855.0).abs() < 1e-9 && (m.read_pct - 30.0).abs() < 0.01, "{m:?}");
        assert_eq!((m.block_bytes(), m.outstanding(), m.ms_per_transfer), (16_384, 16, Some(8.1)));
        assert_eq!(
            m.command("/data/io.dat"),
            "oltpgen io run --file /data/io.dat --block 16k --read 30% --random 100% --workers 1 --outstanding 16"
        );
        assert_eq!(Model::of(&r, Some("sda")).unwrap().block_bytes(), 4_096);
        let e = Model::of(&r, Some("nvme0n1")).unwrap_err();
        assert_eq!(e, "--disk nvme0n1: the result has no counters of it; it has sda, sdb");
    }

    #[test]
    fn a_result_without_what_a_model_needs_says_what_it_lacks() {
        assert!(
            Model::of(&result(&[("client/cpu_pct", 1.0)]), None).unwrap_err().contains("no disk counters")
        );
        let old = result(&[("client/disk_vda_writes_per_s", 5.0), ("client/disk_vda_queue_length", 1.0)]);
        let e = Model::of(&old, None).unwrap_err();
        assert!(
            e.starts_with("the result has no disk_vda_read_bytes_per_s, disk_vda_write_bytes_per_s of vda"),
            "{e}"
        );
        // A windows_exporter's capture: bytes, no queue length.
        let windows = result(&[
            ("node:http://db:9182/metrics/disk_D:_writes_per_s", 400.0),
            ("node:http://db:9182/metrics/disk_D:_read_bytes_per_s", 0.0),
            ("node:http://db:9182/metrics/disk_D:_write_bytes_per_s", 400.0 * 65_536.0),
        ]);
        let e = Model::of(&windows, None).unwrap_err();
        assert!(e.starts_with("the result has no disk_D:_queue_length of D:, which a model needs"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
        let idle = result(&[("client/disk_vda_writes_per_s", 0.0)]);
        assert!(Model::of(&idle, None).unwrap_err().contains("did no I/O"));
    }
}
