//! A result directory: `result.json` (the document everything else is rendered from), `summary.txt`,
//! `timeseries.csv`, `counters.csv` and `report.html`. `result.json` is written after every judged step and replaced
//! atomically (a temporary file renamed over it), so a run killed part-way keeps every step it judged;
//! the whole directory is written when a run ends, interrupted or not. Whether a directory may be
//! written, and the command's hold on it, are [`crate::claim`]'s.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::claim::{self, DirClaim};
use crate::model::RunResult;
use crate::render::text::summary;

/// Writes the result files into `dir` (created when missing).
///
/// # Errors
/// The I/O error of the first file that cannot be written.
pub fn write_dir(dir: &Path, result: &RunResult) -> std::io::Result<()> {
    write_result(dir, result)?;
    std::fs::write(dir.join("summary.txt"), summary::render(result))?;
    std::fs::write(dir.join("timeseries.csv"), timeseries_csv(result))?;
    std::fs::write(dir.join("counters.csv"), counters_csv(result))?;
    std::fs::write(dir.join("report.html"), crate::render::html::result::render(result))
}

/// Writes `result.json` into `dir` (created when missing) atomically: a reader, or a run killed while
/// it writes, sees the previous document or the new one, never half of one.
///
/// # Errors
/// The I/O error of the write or the rename.
pub fn write_result(dir: &Path, result: &RunResult) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(result).map_err(std::io::Error::other)?;
    let temp = dir.join(TEMP_FILE);
    std::fs::write(&temp, json + "\n")?;
    std::fs::rename(&temp, dir.join(RESULT_FILE))
}

/// The result document's file name in a result directory.
pub const RESULT_FILE: &str = "result.json";

/// The temporary file `result.json` is written through.
pub(crate) const TEMP_FILE: &str = ".result.json.tmp";

/// Where a run's result directory is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultDir {
    /// The directory the user named (`--out`).
    Given(PathBuf),
    /// `results/<start time in UTC>-<workload>` in the current directory, named when the run starts.
    Dated,
}

impl ResultDir {
    /// The directory `result`'s files go to: the one given, or one named from the run's start time
    /// (`started_at`, so every write of one run lands in one directory).
    pub fn path(&self, result: &RunResult) -> PathBuf {
        match self {
            ResultDir::Given(dir) => dir.clone(),
            ResultDir::Dated => {
                let workload = result.workload.name();
                Path::new(DATED_PARENT).join(format!("{}-{workload}", result.started_at.replace(':', "")))
            }
        }
    }

    /// Checks before a run starts, creating nothing, that its result can be written: nothing in the
    /// way of the directory, which takes a file and holds nothing but a result, and that only with
    /// `replace` (which lets it be written over); the parent of dated directories need only take one.
    ///
    /// # Errors
    /// One line naming the directory and what is wrong with it.
    pub fn check(&self, replace: bool) -> Result<(), String> {
        match self {
            ResultDir::Given(dir) => claim::check_dir(dir, replace),
            ResultDir::Dated => claim::check_room(Path::new(DATED_PARENT)),
        }
    }

    /// Claims the directory when the command starts work, so that a second command writing there is
    /// refused at its start ([`DirClaim::take`]); a dated directory, named only when the run starts,
    /// is made then.
    ///
    /// # Errors
    /// One line naming the directory and what is wrong with it.
    pub fn claim(&self, replace: bool) -> Result<DirClaim, String> {
        match self {
            ResultDir::Given(dir) => DirClaim::take(dir, replace),
            ResultDir::Dated => Ok(DirClaim::none()),
        }
    }
}

/// Where dated result directories go.
const DATED_PARENT: &str = "results";

/// The time series as CSV, one row per interval and transaction type.
pub fn timeseries_csv(result: &RunResult) -> String {
    let mut out = String::from("elapsed_s,users,txn,count,tps,avg_ms,p95_ms,errors\n");
    for r in &result.timeseries {
        let _ = writeln!(
            out,
            "{:.1},{},{},{},{:.2},{:.3},{:.3},{}",
            r.elapsed_s, r.users, r.txn, r.count, r.tps, r.avg_ms, r.p95_ms, r.errors
        );
    }
    out
}

/// The host and database counters as CSV, one row per sample: `elapsed_s,source,name,value`. A file of
/// its own rather than columns of `timeseries.csv`: which counters a run has depends on the machines
/// (their disks, the exporters given), and `timeseries.csv`'s columns stay the same for every run.
pub fn counters_csv(result: &RunResult) -> String {
    let mut out = String::from("elapsed_s,source,name,value\n");
    for s in &result.counters {
        let source = csv_field(&s.source);
        for [t, v] in &s.points {
            let _ = writeln!(out, "{t:.3},{source},{},{v}", s.name);
        }
    }
    out
}

/// `text` as one CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::result;
    use crate::model::{CounterSeries, IntervalRow, Workload};

    #[test]
    fn result_json_is_replaced_whole_and_an_existing_result_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = ResultDir::Given(dir.path().join("run"));
        out.check(false).unwrap();
        assert!(!out.path(&result(Workload::Tpcc, Vec::new())).exists(), "a check creates nothing");
        let mut r = result(Workload::Tpcc, Vec::new());
        write_result(&out.path(&r), &r).unwrap();
        r.interrupted = true;
        write_result(&out.path(&r), &r).unwrap();
        let names: Vec<_> =
            std::fs::read_dir(out.path(&r)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["result.json"], "no temporary file is left");
        let back: RunResult =
            serde_json::from_str(&std::fs::read_to_string(out.path(&r).join(RESULT_FILE)).unwrap()).unwrap();
        assert!(back.interrupted);
        let e = out.check(false).unwrap_err();
        assert!(e.contains("already holds a result") && e.contains("--replace"), "{e}");
        out.check(true).unwrap();
        std::fs::write(dir.path().join("file"), "").unwrap();
        let e = ResultDir::Given(dir.path().join("file")).check(true).unwrap_err();
        assert!(e.contains("is a file, not a directory"), "{e}");
    }

    #[test]
    fn a_dated_directory_is_named_from_the_start() {
        let mut r = result(Workload::Ds2, Vec::new());
        r.started_at = "2026-01-02T03:04:05Z".into();
        assert_eq!(ResultDir::Dated.path(&r), Path::new("results/2026-01-02T030405Z-ds2"));
    }

    #[test]
    fn the_time_series_is_one_csv_row_per_interval_and_type() {
        let mut r = result(Workload::Tpcc, Vec::new());
        let row = |elapsed_s, txn: &str, count| IntervalRow {
            elapsed_s,
            users: 16,
            txn: txn.into(),
            count,
            tps: count as f64 / 10.0,
            avg_ms: 6.25,
            p95_ms: 12.5,
            errors: 1,
        };
        r.timeseries = vec![row(10.0, "new_order", 1200), row(10.0, "payment", 1100)];
        assert_eq!(
            timeseries_csv(&r),
            "elapsed_s,users,txn,count,tps,avg_ms,p95_ms,errors\n\
             10.0,16,new_order,1200,120.00,6.250,12.500,1\n\
             10.0,16,payment,1100,110.00,6.250,12.500,1\n"
        );
    }

    #[test]
    fn counters_are_one_csv_row_per_sample_with_odd_sources_quoted() {
        let mut r = result(Workload::Tpcc, Vec::new());
        r.counters = vec![
            CounterSeries {
                source: "client".into(),
                name: "cpu_pct".into(),
                points: vec![[-1.0, 3.5], [1.0, 87.25]],
            },
            CounterSeries {
                source: "node:http://db1:9100/metrics?a=1,b=\"2\"".into(),
                name: "disk_vda_queue_length".into(),
                points: vec![[1.0005, 0.5]],
            },
        ];
        assert_eq!(
            counters_csv(&r),
            "elapsed_s,source,name,value\n\
             -1.000,client,cpu_pct,3.5\n\
             1.000,client,cpu_pct,87.25\n\
             1.000,\"node:http://db1:9100/metrics?a=1,b=\"\"2\"\"\",disk_vda_queue_length,0.5\n"
        );
    }
}
