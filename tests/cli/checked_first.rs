//! Every input checked before the work (issue 39): a meter's log of another format and a planned
//! fault past the study's end are refused up front (exit 2, one line), not found out after the run.

use crate::common::{assert_refused, oltpgen};

#[test]
fn a_power_log_of_another_format_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("meter.csv");
    std::fs::write(&log, "time;W\n1700000000;251.5\n1700000001;250.9\n").unwrap();
    let out_dir = dir.path().join("r");
    let out = oltpgen(&[
        "tpcc",
        "run",
        "--temp-db",
        "--users",
        "2",
        "--duration",
        "3s",
        "--power-log",
        &format!("server={}", log.display()),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_refused(
        &out,
        &format!(
            "--power-log {}: line 1: 'time;W' is not 'timestamp,watts' (Unix seconds or RFC 3339, then watts)",
            log.display()
        ),
    );
    assert!(!out_dir.exists(), "nothing made for a refused run");
    // A later bad line is named by its number, after a header and readings.
    std::fs::write(&log, "timestamp,watts\n1700000000,250\n1700000001;250\n").unwrap();
    let out = oltpgen(&["tpcc", "run", "--temp-db", "--power-log", log.to_str().unwrap()]);
    assert_refused(&out, "line 3: '1700000001;250' is not 'timestamp,watts'");
}

#[test]
fn a_fault_past_the_study_s_end_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("r");
    let d = out_dir.to_str().unwrap();
    let run = ["tpcc", "run", "--temp-db", "--users", "2", "--warmup", "0s", "--duration", "3s", "--out", d];
    let out = oltpgen(&[&run[..], &["--fault-at", "50s", "--fault-cmd", "true"]].concat());
    assert_refused(&out, "--fault-at 50s is past the study's end (3s 10ms from the first run's start)");
    assert!(out.stderr.contains("its command would never run"), "{}", out.stderr);
    assert!(!out_dir.exists(), "nothing made for a refused run");
    // Three runs of 3 s (and 10 ms to start the second user: --ramp-rate 100) with 2 s idle between
    // them end at 13.03 s on the fault's clock: 13 s is within.
    let three = ["--runs", "3", "--idle-sample", "2s"];
    let out = oltpgen(&[&run[..], &three, &["--fault-at", "14s", "--fault-cmd", "true"]].concat());
    assert_refused(&out, "--fault-at 14s is past the study's end (13s 30ms from the first run's start)");
    let out = oltpgen(&[&run[..], &three, &["--fault-at", "13s", "--fault-cmd", "true"]].concat());
    assert_refused(&out, "--temp-db starts an empty database");
}
