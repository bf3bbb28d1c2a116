//! The result's CSV files: `timeseries.csv` (one row per interval and transaction type) and
//! `counters.csv` (one row per counter sample), rendered from the result document.

use std::fmt::Write as _;

use crate::model::RunResult;

/// The time series as CSV, one row per interval and transaction type. An interval in which no
/// transaction of a type completed has no response time: its `avg_ms` and `p95_ms` cells are empty, not 0.
pub fn timeseries(result: &RunResult) -> String {
    let mut out = String::from("elapsed_s,users,txn,count,tps,avg_ms,p95_ms,errors\n");
    for r in &result.timeseries {
        let ms = |v: f64| if r.count > 0 { format!("{v:.3}") } else { String::new() };
        let _ = writeln!(
            out,
            "{:.1},{},{},{},{:.2},{},{},{}",
            r.elapsed_s,
            r.users,
            r.txn,
            r.count,
            r.tps,
            ms(r.avg_ms),
            ms(r.p95_ms),
            r.errors
        );
    }
    out
}

/// The host and database counters as CSV, one row per sample: `elapsed_s,source,name,value`. A file of
/// its own rather than columns of `timeseries.csv`: which counters a run has depends on the machines
/// (their disks, the exporters given), and `timeseries.csv`'s columns stay the same for every run.
pub fn counters(result: &RunResult) -> String {
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
        let mut none = row(10.0, "delivery", 0);
        (none.avg_ms, none.p95_ms) = (0.0, 0.0);
        r.timeseries = vec![row(10.0, "new_order", 1200), row(10.0, "payment", 1100), none];
        assert_eq!(
            timeseries(&r),
            "elapsed_s,users,txn,count,tps,avg_ms,p95_ms,errors\n\
             10.0,16,new_order,1200,120.00,6.250,12.500,1\n\
             10.0,16,payment,1100,110.00,6.250,12.500,1\n\
             10.0,16,delivery,0,0.00,,,1\n",
            "no Delivery completed: no response time, not 0 ms"
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
            counters(&r),
            "elapsed_s,source,name,value\n\
             -1.000,client,cpu_pct,3.5\n\
             1.000,client,cpu_pct,87.25\n\
             1.000,\"node:http://db1:9100/metrics?a=1,b=\"\"2\"\"\",disk_vda_queue_length,0.5\n"
        );
    }
}
