//! The workload descriptor in the result (issue 38): `io` speaks of I/Os, not transactions, from its
//! run's last line to its reports; the descriptor is in result.json, in the published schema; and a
//! result written by 54befc8 (schema 3, no descriptor) reads and renders through `report show`,
//! `report html` and `report compare` as before.

use std::path::{Path, PathBuf};

use crate::common::{assert_matches_schema, oltpgen, result_json};
use crate::io::{disk, io_run};

/// The report crate's fixture of `workload` written by 54befc8, with what the tree before the
/// descriptor rendered from it.
fn schema3(workload: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/report/testdata/schema3").join(workload)
}

#[test]
fn io_says_i_o_where_it_said_transaction() {
    let _disk = disk();
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, out) = (dir.path().join("io.dat"), dir.path().join("r"));
    let run = io_run(&file, &out, &["--workers", "1", "--outstanding", "1", "--duration", "1s"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.all().contains(" per I/O; result in "), "{}", run.all());
    assert!(!run.all().contains("per transaction"), "{}", run.all());

    let r = result_json(&out);
    assert_matches_schema(&r);
    assert_eq!(r["schema_version"], 4);
    assert_eq!(r["descriptor"]["name"], "io");
    assert_eq!(r["descriptor"]["work"]["one"], "I/O");
    assert_eq!(r["descriptor"]["unit"], "IOPS");
    assert_eq!(r["descriptor"]["transactions"], serde_json::json!(["read", "write"]));
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains("CPU per I/O ("), "{summary}");

    let show = oltpgen(&["report", "show", out.to_str().unwrap()]);
    assert_eq!(show.code, 0, "{}", show.all());
    assert!(show.stdout.contains("CPU per I/O ("), "{}", show.stdout);
    assert!(!show.stdout.contains("per transaction"), "{}", show.stdout);
}

#[test]
fn a_result_written_by_54befc8_reads_and_renders_as_before() {
    for workload in ["tpcc", "io"] {
        let fixture = schema3(workload);
        let result = fixture.join("result.json");
        let show = oltpgen(&["report", "show", result.to_str().unwrap()]);
        assert_eq!(show.code, 0, "{workload}: {}", show.all());
        let before = std::fs::read_to_string(fixture.join("show.txt")).unwrap();
        // Only the path the command names differs: the fixture's was written as `result.json`.
        let shown = show.stdout.replace(result.to_str().unwrap(), "result.json");
        // io's work is I/Os (issue 38): the words that changed on purpose.
        let before = match workload {
            "io" => before
                .replace("CPU per transaction", "CPU per I/O")
                .replace("238,684 transactions", "238,684 I/Os"),
            _ => before,
        };
        assert_eq!(shown, before, "{workload}");

        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("report.html");
        let html = oltpgen(&["report", "html", result.to_str().unwrap(), "--out", page.to_str().unwrap()]);
        assert_eq!(html.code, 0, "{workload}: {}", html.all());
        let written = std::fs::read_to_string(&page).unwrap();
        assert!(written.contains(if workload == "io" {
            "max IOPS within cap"
        } else {
            "max NOPM within cap"
        }));

        let compare = oltpgen(&["report", "compare", result.to_str().unwrap(), result.to_str().unwrap()]);
        assert_eq!(compare.code, 0, "{workload}: {}", compare.all());
    }
}
