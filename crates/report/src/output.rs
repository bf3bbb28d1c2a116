//! A result directory: `result.json` (the document everything else is rendered from), `summary.txt`,
//! `timeseries.csv` and `report.html`. Written whole, whenever a run ends, interrupted or not.

use std::fmt::Write as _;
use std::path::Path;

use crate::model::RunResult;
use crate::summary;

/// Writes the result files into `dir` (created when missing).
///
/// # Errors
/// The I/O error of the first file that cannot be written.
pub fn write_dir(dir: &Path, result: &RunResult) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(result).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("result.json"), json + "\n")?;
    std::fs::write(dir.join("summary.txt"), summary::render(result))?;
    std::fs::write(dir.join("timeseries.csv"), timeseries_csv(result))?;
    std::fs::write(dir.join("report.html"), crate::html::render(result))
}

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
