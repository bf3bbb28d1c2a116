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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::result;
    use crate::model::{IntervalRow, Workload};

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
}
