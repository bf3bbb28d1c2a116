//! `oltpgen io run` as other systems and other storage would meet it, on this machine: each io_uring
//! setup an older kernel or a locked-down one leaves (forced by the test-only `OLTPGEN_IO_URING_REFUSE`)
//! measures and says which ran; the file is open with `O_DIRECT` for real (the running process's
//! `fdinfo`, not the result's echo of the flag); every sector the run writes is new, so that neither
//! deduplicating nor compressing storage finds anything to fold; and `io model` refuses a capture
//! without the figures a model needs, naming them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{assert_refused, finish, oltpgen, result_json, spawn};
use crate::io::{disk, io_run, io_run_env, validated_iops};

/// The variable that makes the probe meet another system's refusal (for tests only).
const REFUSE: &str = "OLTPGEN_IO_URING_REFUSE";

#[test]
fn every_io_uring_setup_measures_and_says_which_ran() {
    let _disk = disk();
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let file = dir.path().join("io.dat");
    let defer = "the kernel refused defer taskrun (SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG): EINVAL";
    let coop = "the kernel refused coop taskrun (COOP_TASKRUN|TASKRUN_FLAG): EINVAL";
    let opcodes = "io_uring lacks the opcodes READ and WRITE (Linux 5.6 has them)";
    let eperm = "io_uring_setup: EPERM (Operation not permitted)";
    // The refusal forced (a kernel of 6.1 or later, 5.19 to 6.0, 5.6 to 5.18, before 5.6, io_uring
    // disabled), the engine and setup that ran, and why.
    let systems = [
        ("", "io_uring", Some("defer taskrun (SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG)"), None),
        ("defer", "io_uring", Some("coop taskrun (COOP_TASKRUN|TASKRUN_FLAG)"), Some(defer.to_string())),
        ("coop", "io_uring", Some("plain ring (none)"), Some(format!("{defer} (Invalid argument); {coop}"))),
        ("opcodes", "psync", None, Some(opcodes.to_string())),
        ("all", "psync", None, Some(eperm.to_string())),
    ];
    for (refuse, engine, setup, why) in systems {
        let out = dir.path().join(format!("refused-{refuse}"));
        let run = io_run_env(
            &file,
            &out,
            &["--workers", "2", "--outstanding", "4", "--duration", "1s"],
            &[(REFUSE, refuse)],
        );
        assert_eq!(run.code, 0, "{refuse}: {}", run.all());
        let header = run.stdout.lines().find(|l| l.starts_with("io: ")).expect("the header");
        let method = match (setup, &why) {
            (Some(setup), None) => format!("({engine}, {})", setup.split(" (").next().unwrap()),
            (Some(setup), Some(why)) => format!("({engine}, {}: {why}", setup.split(" (").next().unwrap()),
            (None, why) => format!("(psync, io_uring refused here: {}", why.as_deref().unwrap()),
        };
        assert!(header.contains(&method), "{refuse}: {method} in {header}");
        let r = result_json(&out);
        assert_eq!(r["config"]["ioengine"], engine, "{refuse}");
        assert_eq!(r["config"]["io_uring_setup"].as_str(), setup, "{refuse}");
        let refused = r["config"]["io_uring_refused"].as_str();
        assert!(
            refused.is_some_and(|r| r.starts_with(why.as_deref().unwrap_or("-")))
                || why.is_none() && refused.is_none(),
            "{refuse}: {refused:?}"
        );
        // Measured: I/Os done, none failed, the step valid.
        let step = &r["steps"][0];
        let done = step["transactions"]["read"]["count"].as_u64().unwrap()
            + step["transactions"]["write"]["count"].as_u64().unwrap();
        assert!(done > 100 && step["tps"].as_f64().unwrap() > 0.0, "{refuse}: {done} I/Os");
        assert_eq!(step["errors"], 0, "{refuse}: {step}");
        assert_eq!(step["cap"]["invalid"], serde_json::Value::Null, "{refuse}: {step}");
        eprintln!("{refuse:8} {engine:8} {:>8.0} IOPS", step["tps"].as_f64().unwrap());
    }
    // Asked for by name: io_uring of a lower setup runs; io_uring refused is one line.
    let asked = io_run_env(
        &file,
        &dir.path().join("asked"),
        &["--ioengine", "io_uring", "--outstanding", "1", "--duration", "1s"],
        &[(REFUSE, "defer")],
    );
    assert_eq!(asked.code, 0, "{}", asked.all());
    let refused =
        io_run_env(&file, &dir.path().join("refused"), &["--ioengine", "io_uring"], &[(REFUSE, "all")]);
    assert_refused(
        &refused,
        &format!("--ioengine io_uring: this system refuses it ({eperm}); give --ioengine psync"),
    );
    assert!(!file.exists());
}

/// `O_DIRECT` in `/proc/<pid>/fdinfo`'s octal `flags:` (x86-64's and arm64's value).
const O_DIRECT: u32 = 0o40000;

/// The open flags of every descriptor process `pid` has open on `path`.
fn open_flags(pid: u32, path: &Path) -> Vec<u32> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return Vec::new() };
    fds.flatten()
        .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|to| to == path))
        .filter_map(|fd| {
            // A descriptor closed meanwhile is passed over.
            let info =
                std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_str()?)).ok()?;
            let flags = info.lines().find_map(|l| l.strip_prefix("flags:"))?;
            u32::from_str_radix(flags.trim(), 8).ok()
        })
        .collect()
}

/// Runs a write-only `io run` of 32 MiB on `file` (`extra` added) for 3 s, keeping the file, and
/// returns the open flags of its 8 I/O sessions' descriptors, read while it runs.
fn sessions_flags(file: &Path, out: &Path, extra: &[&str]) -> Vec<u32> {
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["io", "run", "--file", f, "--size", "32m", "--read", "0%", "--ramp", "0s"];
    args.extend(["--duration", "3s", "--workers", "2", "--outstanding", "4", "--keep-file", "--out", o]);
    args.extend(extra);
    let run = spawn(&args);
    let started = Instant::now();
    // The fill has one descriptor open; the run, one per session (8).
    let flags = loop {
        let flags = open_flags(run.id(), file);
        if flags.len() >= 8 {
            break flags;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no 8 sessions on the file within a minute");
        std::thread::sleep(Duration::from_millis(20));
    };
    let done = finish(run);
    assert_eq!(done.code, 0, "{}", done.all());
    flags
}

#[test]
fn the_file_is_open_for_direct_i_o_and_every_sector_written_is_new() {
    let _disk = disk();
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let file = dir.path().canonicalize().unwrap().join("io.dat");
    let out = dir.path().join("direct");
    let flags = sessions_flags(&file, &out, &[]);
    assert!(flags.iter().all(|f| f & O_DIRECT != 0), "every session's descriptor has O_DIRECT: {flags:?}");
    let r = result_json(&out);
    let writes = r["steps"][0]["transactions"]["write"]["count"].as_u64().unwrap();
    assert!(writes > 2 * 2048, "the 2,048 blocks written over, most more than once: {writes} writes");

    // Read back: no two 512-byte sectors alike, nor alike past their first 16 bytes (a stamp on
    // otherwise equal data is what near-duplicate reduction folds), none zero.
    let data = std::fs::read(&file).unwrap();
    let region = &data[1 << 20..];
    assert_eq!(region.len(), 32 << 20);
    let (mut whole, mut tails) = (HashSet::new(), HashSet::new());
    for sector in region.chunks(512) {
        assert!(sector.iter().any(|&b| b != 0), "a zero sector");
        assert!(whole.insert(sector), "two sectors alike");
        assert!(tails.insert(&sector[16..]), "two sectors alike past their first 16 bytes");
    }

    // Through the page cache, the same run's descriptors have no O_DIRECT: the check sees the flag.
    let flags = sessions_flags(&file, &dir.path().join("buffered"), &["--buffered"]);
    assert!(flags.iter().all(|f| f & O_DIRECT == 0), "--buffered: {flags:?}");
}

/// A second-long io run in `dir` of one I/O in flight: its file's path and its result's.
fn short_run(dir: &Path) -> (PathBuf, PathBuf) {
    let (file, out) = (dir.join("io.dat"), dir.join("run"));
    let run = io_run(&file, &out, &["--duration", "1s", "--outstanding", "1"]);
    assert_eq!(run.code, 0, "{}", run.all());
    (file, out)
}

/// Writes into the new directory `to` the result at `from`, each step's counters changed by `change`.
fn with_counters(from: &Path, to: &Path, change: impl Fn(&mut serde_json::Map<String, serde_json::Value>)) {
    let mut r = result_json(from);
    for step in r["steps"].as_array_mut().unwrap() {
        change(step["counters"].as_object_mut().unwrap());
    }
    std::fs::create_dir(to).unwrap();
    std::fs::write(to.join("result.json"), serde_json::to_string(&r).unwrap()).unwrap();
}

#[test]
fn a_capture_without_a_queue_length_is_refused_by_io_model_naming_it() {
    let _disk = disk();
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, captured) = short_run(dir.path());
    // The capture as a windows_exporter's would be: its disks' queue lengths not measured.
    let windows = dir.path().join("windows");
    with_counters(&captured, &windows, |counters| counters.retain(|k, _| !k.ends_with("_queue_length")));
    let model = oltpgen(&["io", "model", windows.to_str().unwrap(), "--file", file.to_str().unwrap()]);
    assert_refused(&model, "_queue_length of ");
    assert!(model.stderr.contains("which a model needs"), "{}", model.stderr);
}

#[test]
fn validate_replays_the_captured_rate() {
    let _disk = disk();
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, run) = short_run(dir.path());
    // The capture of a disk doing 1,500 transfers/s of 16 KiB, 30% reads, one in its queue: its own
    // disk's counters would hold whatever else this shared machine's disk did meanwhile (thousands of
    // IOPS at times), so the test states the disk it models. One I/O in flight keeps up with 1,500 a
    // second on this machine's disk (about 4,000 at one in flight).
    let captured = dir.path().join("captured");
    let (reads, writes) = (450.0, 1_050.0);
    let disk = [
        ("reads_per_s", reads),
        ("writes_per_s", writes),
        ("read_bytes_per_s", reads * 16_384.0),
        ("write_bytes_per_s", writes * 16_384.0),
        ("queue_length", 1.0),
        ("ms_per_transfer", 0.5),
    ];
    with_counters(&run, &captured, |counters| {
        counters.retain(|k, _| !k.contains("disk_"));
        counters
            .extend(disk.iter().map(|(what, value)| (format!("client/disk_vtest_{what}"), (*value).into())));
    });
    let validated = dir.path().join("validated");
    let v = io_run(&file, &validated, &["--validate", captured.to_str().unwrap(), "--duration", "3s"]);
    assert_eq!(v.code, 0, "{}", v.all());
    let (captured_iops, replayed_iops) = validated_iops(&v.stdout);
    eprintln!("validate: captured {captured_iops:.0} → replayed {replayed_iops:.0} IOPS");
    assert_eq!(captured_iops, 1_500.0);
    let r = result_json(&validated);
    let config = &r["config"];
    assert_eq!(
        (config["block_bytes"].as_u64(), config["read_pct"].as_u64()),
        (Some(16_384), Some(30)),
        "{config}"
    );
    assert_eq!(
        (config["iops"].as_f64(), config["outstanding"][0].as_u64()),
        (Some(1_500.0), Some(1)),
        "{config}"
    );
    // The replay keeps the captured rate within 20% on this shared 2-core machine (1 to 3% in quiet
    // runs); a replay not paced (about 4,000 IOPS here at one in flight), or paced at another rate, would
    // not.
    assert!((replayed_iops / captured_iops - 1.0).abs() <= 0.20, "{captured_iops} → {replayed_iops}");
    let reads = r["steps"][0]["transactions"]["read"]["count"].as_f64().unwrap();
    let share = reads / (replayed_iops * r["steps"][0]["duration_s"].as_f64().unwrap());
    assert!((share - 0.30).abs() < 0.05, "30% reads replayed: {share}");
}
