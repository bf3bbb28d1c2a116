//! `oltpgen io run` on a real file with direct I/O (this machine's /tmp, ext4, takes O_DIRECT): the
//! result a database run writes, read and write latencies apart, a sweep judged by a latency cap; and
//! nothing destroyed: other files, devices and directories refused, the file removed unless kept.

use std::path::Path;

use crate::common::{assert_matches_schema, assert_refused, finish, oltpgen, result_json, spawn};

/// A short run of `extra` on `file` writing into `out` (of 32 MiB unless `extra` gives a `--size`).
fn io_run(file: &Path, out: &Path, extra: &[&str]) -> crate::common::Outcome {
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["io", "run", "--file", file, "--ramp", "0s", "--report-interval", "1s"];
    if !extra.contains(&"--size") {
        args.extend(["--size", "32m"]);
    }
    args.extend(["--out", out]);
    args.extend(extra);
    oltpgen(&args)
}

#[test]
fn a_sweep_on_a_direct_io_file_writes_a_result_and_leaves_no_file() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, out) = (dir.path().join("io.dat"), dir.path().join("r"));
    let run = io_run(
        &file,
        &out,
        &[
            "--workers",
            "2",
            "--outstanding",
            "1,2",
            "--duration",
            "2s",
            "--rt-cap",
            "avg=1s",
            "--rated-endurance",
            "1PB",
            "--write-amplification",
            "3",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("io: 16 KiB, 30% read, 100% random on"), "{}", run.stdout);
    assert!(run.stdout.contains("step 2 (run 1): 4 in flight  IOPS"), "{}", run.stdout);
    assert!(run.stdout.contains("max IOPS within cap:"), "{}", run.stdout);
    assert!(!file.exists(), "the file is removed at the end");

    let r = result_json(&out);
    assert_matches_schema(&r);
    assert_eq!(r["workload"], "io");
    assert_eq!(r["server"]["settings"]["direct_io"], "true");
    assert_eq!(r["config"]["access"], "16 KiB, 30% read, 100% random");
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.iter().map(|s| s["users"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 4]);
    for s in steps {
        let (reads, writes) = (&s["transactions"]["read"], &s["transactions"]["write"]);
        let (r, w) = (reads["count"].as_u64().unwrap(), writes["count"].as_u64().unwrap());
        assert!(r > 0 && w > 0, "reads and writes timed apart: {r} {w}");
        let share = r as f64 / (r + w) as f64;
        assert!((share - 0.30).abs() < 0.05, "30% reads: {share}");
        assert!(reads["max_ms"].as_f64().unwrap() >= reads["p99_ms"].as_f64().unwrap());
        let iops = s["tps"].as_f64().unwrap();
        assert!((iops - (r + w) as f64 / s["duration_s"].as_f64().unwrap()).abs() < 1.0, "IOPS {iops}");
        assert_eq!(s["cap"]["rules"][0]["rule"], "avg=1s");
    }
    assert_eq!(r["max_within_cap"]["users"], 4, "the most IOPS within the cap: {}", r["max_within_cap"]);
    // The disk under the file, as the database runs sample it: busy, idle and bytes written per second.
    let counters = steps[1]["counters"].as_object().unwrap();
    let of = |suffix: &'static str| -> Vec<f64> {
        counters.iter().filter(|(k, _)| k.ends_with(suffix)).map(|(_, v)| v.as_f64().unwrap()).collect()
    };
    assert!(of("_write_bytes_per_s").into_iter().any(|b| b > 0.0), "{counters:?}");
    assert!(of("_busy_pct").into_iter().any(|b| b > 0.0 && b <= 100.0), "{counters:?}");
    assert!(of("_idle_pct").into_iter().all(|b| (0.0..=100.0).contains(&b)), "{counters:?}");

    // The study's arithmetic at the headline step's write rate.
    let best = &steps[1];
    let per_day = best["transactions"]["write"]["count"].as_f64().unwrap()
        / best["duration_s"].as_f64().unwrap()
        * 16_384.0
        * 86_400.0;
    let e = &r["endurance"];
    assert!((e["host_write_bytes_per_day"].as_f64().unwrap() - per_day).abs() < 1.0, "{e}");
    let years = 1e15 / (per_day * 3.0) / 365.0;
    assert!((e["years"].as_f64().unwrap() - years).abs() < 1e-9, "{e}");
    assert!(run.stdout.contains("endurance: "), "{}", run.stdout);

    let show = oltpgen(&["report", "show", out.to_str().unwrap()]);
    assert_eq!(show.code, 0, "{}", show.all());
    assert!(show.stdout.contains("in flight      IOPS read avg ms write avg ms"), "{}", show.stdout);
    assert!(show.stdout.contains("× write amplification 3 against 1,000 TB rated: about"), "{}", show.stdout);
}

#[test]
fn a_result_s_disk_counters_model_as_an_io_run_command_that_runs() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, captured) = (dir.path().join("io.dat"), dir.path().join("captured"));
    let run = io_run(&file, &captured, &["--duration", "2s", "--outstanding", "2"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let model = oltpgen(&["io", "model", captured.to_str().unwrap(), "--file", file.to_str().unwrap()]);
    assert_eq!(model.code, 0, "{}", model.all());
    assert!(model.stdout.starts_with("model of "), "{}", model.stdout);
    assert!(model.stdout.contains("assumed 100% random"), "{}", model.stdout);
    // The command it prints replays the model (here briefly, on a small file).
    let command = model.stdout.lines().find(|l| l.starts_with("oltpgen io run ")).expect("the command");
    let mut args: Vec<&str> = command.split(' ').skip(1).collect();
    let replay = dir.path().join("replay");
    args.extend(["--size", "32m", "--ramp", "0s", "--duration", "1s", "--out", replay.to_str().unwrap()]);
    let replayed = oltpgen(&args);
    assert_eq!(replayed.code, 0, "{command}: {}", replayed.all());
    assert!(!file.exists());

    let e = oltpgen(&["io", "model", captured.to_str().unwrap(), "--disk", "nosuchdisk"]);
    assert_refused(&e, "--disk nosuchdisk: the result has no counters of it");

    // --validate replays the model paced at the captured rate and puts the replay beside the capture.
    let validated = dir.path().join("validated");
    let v = io_run(&file, &validated, &["--validate", captured.to_str().unwrap(), "--duration", "1s"]);
    assert_eq!(v.code, 0, "{}", v.all());
    assert!(v.stdout.contains("validate, captured → replayed: IOPS "), "{}", v.stdout);
    let r = result_json(&validated);
    assert!(r["config"]["iops"].as_f64().unwrap() > 0.0, "paced at the captured rate: {}", r["config"]);
    assert_eq!(r["config"]["random_pct"], 100, "randomness assumed");
}

#[test]
fn iops_paces_the_i_os_from_their_intended_starts() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, out) = (dir.path().join("io.dat"), dir.path().join("paced"));
    let run =
        io_run(&file, &out, &["--iops", "400", "--workers", "1", "--outstanding", "2", "--duration", "3s"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let iops = result_json(&out)["steps"][0]["tps"].as_f64().unwrap();
    assert!((iops - 400.0).abs() < 40.0, "paced at 400 IOPS: {iops}");
    let sweep = io_run(&file, &out, &["--iops", "400", "--outstanding", "1,2"]);
    assert_refused(&sweep, "--iops paces one step");
}

#[test]
fn a_kept_file_is_reused_with_its_preconditioning() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let file = dir.path().join("io.dat");
    let first = io_run(
        &file,
        &dir.path().join("a"),
        &["--precondition", "1", "--keep-file", "--duration", "1s", "--outstanding", "1"],
    );
    assert_eq!(first.code, 0, "{}", first.all());
    assert!(first.stdout.contains("is kept for the next run"), "{}", first.stdout);
    assert!(file.exists());
    let second = io_run(
        &file,
        &dir.path().join("b"),
        &["--precondition", "1", "--duration", "1s", "--outstanding", "1"],
    );
    assert_eq!(second.code, 0, "{}", second.all());
    assert_eq!(result_json(&dir.path().join("b"))["server"]["settings"]["whole_writes"], "2");
    assert!(!file.exists(), "removed by the run that did not keep it");
}

#[test]
fn other_files_devices_and_bad_specs_are_refused_untouched() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let foreign = dir.path().join("data.db");
    std::fs::write(&foreign, b"a database's data").unwrap();
    let out = dir.path().join("r");
    assert_refused(&io_run(&foreign, &out, &[]), "is not a file oltpgen io made");
    assert_eq!(std::fs::read(&foreign).unwrap(), b"a database's data");
    assert_refused(&io_run(Path::new("/dev/null"), &out, &[]), "is a device");
    assert_refused(&io_run(dir.path(), &out, &[]), "is not a plain file");
    let file = dir.path().join("io.dat");
    assert_refused(&io_run(&file, &out, &["--block", "1000"]), "--block 1000 bytes: give a multiple of 512");
    assert_refused(&io_run(&file, &out, &["--read", "130%"]), "not a percentage");
    assert_refused(&io_run(&file, &out, &["--outstanding", "8,4"]), "--outstanding steps must not decrease");
    assert_refused(&io_run(&file, &out, &["--workers", "64", "--outstanding", "32"]), "keeps at most 1024");
    assert_refused(&io_run(&file, &out, &["--size", "1P"]), "not a size");
    assert_refused(&io_run(&file, &out, &["--rated-endurance", "1P"]), "not a rated endurance");
    assert_refused(
        &io_run(&file, &out, &["--rated-endurance", "1PB", "--write-amplification", "0.5"]),
        "1 or more",
    );
    assert_refused(&io_run(&file, &out, &["--size", "1000T"]), "more and its disk has");
    assert!(!file.exists() && !out.exists(), "nothing made by a refused command");
}

#[test]
fn sigterm_keeps_the_result_of_what_ran_and_removes_the_file() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, out) = (dir.path().join("io.dat"), dir.path().join("r"));
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let run =
        spawn(&["io", "run", "--file", f, "--size", "16m", "--ramp", "0s", "--duration", "10m", "--out", o]);
    // Filled (the mark, then 16 MiB after it), then two seconds of I/O.
    let filled = std::time::Instant::now();
    while std::fs::metadata(&file).map_or(0, |m| m.len()) < (17 << 20) {
        assert!(filled.elapsed().as_secs() < 60, "the file was not filled within a minute");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(
        std::process::Command::new("kill").args(["-TERM", &run.id().to_string()]).status().unwrap().success()
    );
    let done = finish(run);
    assert_eq!(done.code, 143, "{}", done.all());
    let r = result_json(&out);
    assert_matches_schema(&r);
    assert_eq!(r["interrupted"], true);
    assert!(r["steps"][0]["transactions"]["write"]["count"].as_u64().unwrap() > 0, "{}", r["steps"][0]);
    assert_eq!(r["steps"][0]["cap"]["invalid"], "the run was stopped during the step");
    assert!(!file.exists(), "the file is removed after a signal too");
}
