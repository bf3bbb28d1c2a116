//! `oltpgen io run` on a real file with direct I/O (this machine's /tmp, ext4, takes O_DIRECT): the
//! result a database run writes, read and write latencies apart, a sweep judged by a latency cap, through
//! io_uring and through psync; the study's cycle from an I/O-bound TPC-C run's disk counters; and nothing
//! destroyed: other files, devices and directories refused, the file removed unless kept.

use std::path::Path;

use crate::common::{
    SECRET, assert_matches_schema, assert_refused, data_dir, finish, oltpgen, oltpgen_env, result_json,
    spawn, sql, start_server,
};
use crate::memory_cgroup::MemoryLimit;

/// The disk under the temporary directory, one io test at a time: their runs would measure each other,
/// and the disk counters they model would hold each other's I/O.
pub(crate) fn disk() -> std::sync::MutexGuard<'static, ()> {
    static DISK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    DISK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A short run of `extra` on `file` writing into `out` (of 32 MiB unless `extra` gives a `--size`).
pub(crate) fn io_run(file: &Path, out: &Path, extra: &[&str]) -> crate::common::Outcome {
    io_run_env(file, out, extra, &[])
}

/// [`io_run`] with the environment variables `env`.
pub(crate) fn io_run_env(
    file: &Path,
    out: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> crate::common::Outcome {
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["io", "run", "--file", file, "--ramp", "0s", "--report-interval", "1s"];
    if !extra.contains(&"--size") {
        args.extend(["--size", "32m"]);
    }
    args.extend(["--out", out]);
    args.extend(extra);
    oltpgen_env(&args, env)
}

#[test]
fn a_sweep_on_a_direct_io_file_writes_a_result_and_leaves_no_file() {
    let _disk = disk();
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
    assert!(run.stdout.contains("max IOPS within cap avg=1s:"), "{}", run.stdout);
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
fn both_engines_run_and_the_result_says_which_did() {
    let _disk = disk();
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let file = dir.path().join("io.dat");
    for engine in ["io_uring", "psync"] {
        let out = dir.path().join(engine);
        let run = io_run(
            &file,
            &out,
            &["--ioengine", engine, "--workers", "2", "--outstanding", "4", "--duration", "1s"],
        );
        assert_eq!(run.code, 0, "{}", run.all());
        // This machine's kernel (6.1 or later, as CI's) takes io_uring's fastest rings.
        let phrase = if engine == "io_uring" { "io_uring, defer taskrun" } else { engine };
        assert!(run.stdout.contains(&format!("2 worker(s) × 4 outstanding ({phrase})")), "{}", run.stdout);
        let r = result_json(&out);
        assert_eq!(r["config"]["ioengine"], engine);
        let step = &r["steps"][0];
        assert_eq!(step["users"], 8);
        let done = step["transactions"]["read"]["count"].as_u64().unwrap()
            + step["transactions"]["write"]["count"].as_u64().unwrap();
        assert!(done > 100, "{engine}: {done} I/Os");
        assert_eq!(step["errors"], 0, "{engine}: {step}");
    }
    // The two results side by side, as any two runs compare.
    let (a, b) = (dir.path().join("io_uring"), dir.path().join("psync"));
    let compare = oltpgen(&["report", "compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(compare.code, 0, "{}", compare.all());
    assert!(compare.stdout.starts_with("max IOPS within cap "), "{}", compare.stdout);
    // Without the flag: io_uring, which this machine (and CI's) runs.
    let run = io_run(&file, &dir.path().join("default"), &["--duration", "1s", "--outstanding", "1"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(result_json(&dir.path().join("default"))["config"]["ioengine"], "io_uring");
    let bad = io_run(&file, &dir.path().join("bad"), &["--ioengine", "libaio"]);
    assert_eq!(bad.code, 2, "{}", bad.all());
    assert!(bad.stderr.contains("give io_uring or psync"), "{}", bad.stderr);
}

/// The memory the captured run's server may use, page cache included: less than its database (a
/// TPC-C warehouse is about 110 MB on disk), more than its processes need.
const SERVER_MEMORY: u64 = 96 << 20;

/// Drops the page cache of every file under `dir` (clean pages only: checkpoint first), so the server's
/// next reads go to the disk.
fn drop_cache(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            drop_cache(&path);
        } else {
            let of = format!("if={}", path.display());
            let dd =
                std::process::Command::new("dd").args([&of, "iflag=nocache", "count=0"]).output().unwrap();
            assert!(dd.status.success(), "dd {of}: {}", String::from_utf8_lossy(&dd.stderr));
        }
    }
}

/// Issue 28's cycle on this machine: a TPC-C run made I/O-bound (shared_buffers of 2 MB, the tables'
/// page cache dropped before it, the server's memory limited by a cgroup), its per-disk counters modelled by `io model`, whose `io run` command
/// replays it, and `io run --validate` putting the replay's latency per transfer and queue length
/// beside the captured ones.
#[tokio::test(flavor = "multi_thread")]
// The disk is held for the whole test, across its awaits: no other task of its runtime takes the lock.
#[allow(clippy::await_holding_lock)]
async fn an_i_o_bound_tpcc_run_s_disk_is_modelled_replayed_and_validated() {
    let _disk = disk();
    let (keep, root) = data_dir();
    let load = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(load.code, 0, "{}", load.all());
    let server = start_server(&root);
    let admin = sql(&server.target("postgres")).await;
    admin.batch_execute("ALTER SYSTEM SET shared_buffers = '2MB'").await.unwrap();
    admin.batch_execute(&format!("CREATE ROLE bench LOGIN SUPERUSER PASSWORD '{SECRET}'")).await.unwrap();
    drop((admin, server));
    let server = start_server(&root);
    let admin = sql(&server.target("postgres")).await;
    let shared = admin.query_one("SHOW shared_buffers", &[]).await.unwrap().get::<_, String>(0);
    assert_eq!(shared, "2MB", "the server keeps almost nothing in its own cache");
    admin.batch_execute("CHECKPOINT").await.unwrap();
    drop_cache(&Path::new(&root).join("data/base"));
    // And kept out of memory while it runs: the server's processes, page cache included, within less
    // than the database's size.
    let postmaster = std::fs::read_to_string(Path::new(&root).join("data/postmaster.pid")).unwrap();
    let postmaster: u32 = postmaster.lines().next().unwrap().parse().unwrap();
    let limit = match MemoryLimit::on_server(postmaster, SERVER_MEMORY) {
        Ok(limit) => Some(limit),
        Err(why) => {
            eprintln!("not limiting the server's memory ({why}): only its page cache is dropped first");
            None
        }
    };

    let captured = keep.path().join("captured");
    let url = format!("postgres://bench@127.0.0.1:{}/tpcc", server.port());
    let out = captured.clone();
    let run = tokio::task::spawn_blocking(move || {
        let out = out.to_str().unwrap();
        let args = ["tpcc", "run", "--url", &url, "--users", "8", "--think-time", "0", "--keying-time", "0"];
        let timing = ["--warmup", "0s", "--duration", "6s", "--report-interval", "2s", "--out", out, "-q"];
        oltpgen_env(&[&args[..], &timing[..]].concat(), &[("PGPASSWORD", SECRET)])
    })
    .await
    .unwrap();
    assert_eq!(run.code, 0, "{}", run.all());
    if let Some(limit) = &limit {
        let times = limit.times_at_limit();
        eprintln!("the server ran into its {} MiB limit {times} times", SERVER_MEMORY >> 20);
        assert!(times > 0, "the server's memory was held below the database's size while it ran");
    }
    drop((server, limit));

    // The model: the biggest writer's transfers, with reads among them.
    let file = keep.path().join("io.dat");
    let model = oltpgen(&["io", "model", captured.to_str().unwrap(), "--file", file.to_str().unwrap()]);
    assert_eq!(model.code, 0, "{}", model.all());
    eprintln!("{}", model.stdout);
    let first = model.stdout.lines().next().unwrap();
    let reads: f64 = first
        .split("% reads")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("a read share in {first:?}"));
    assert!(reads > 0.0, "an I/O-bound run reads: {first}");
    let command = model.stdout.lines().find(|l| l.starts_with("oltpgen io run ")).expect("the command");
    assert!(command.contains(" --read ") && command.contains(" --outstanding "), "{command}");

    // The printed command runs (briefly, on a small file) ...
    let mut args: Vec<&str> = command.split(' ').skip(1).collect();
    let replay = keep.path().join("replay");
    args.extend(["--size", "32m", "--ramp", "0s", "--duration", "1s", "--out", replay.to_str().unwrap()]);
    let replayed = oltpgen(&args);
    assert_eq!(replayed.code, 0, "{command}: {}", replayed.all());
    // ... and --validate replays it at the captured rate, beside the capture.
    let validated = keep.path().join("validated");
    let v = io_run(&file, &validated, &["--validate", captured.to_str().unwrap(), "--duration", "2s"]);
    assert_eq!(v.code, 0, "{}", v.all());
    let line =
        v.stdout.lines().find(|l| l.starts_with("validate, captured → replayed: ")).expect("the verdict");
    eprintln!("{line}");
    assert!(line.contains("; ms per transfer ") && line.contains("; queue length "), "{line}");
    let captured_ms = line.split("ms per transfer ").nth(1).and_then(|s| s.split(' ').next()).unwrap();
    assert!(captured_ms.parse::<f64>().is_ok(), "the capture's own ms per transfer: {line}");
    let r = result_json(&validated);
    assert_eq!(r["config"]["read_pct"].as_f64().unwrap().round(), reads.round(), "{}", r["config"]);
    assert!(!file.exists());
}

#[test]
fn a_result_s_disk_counters_model_as_an_io_run_command_that_runs() {
    let _disk = disk();
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
    let v = io_run(&file, &validated, &["--validate", captured.to_str().unwrap(), "--duration", "2s"]);
    assert_eq!(v.code, 0, "{}", v.all());
    assert!(v.stdout.contains("validate, captured → replayed: IOPS "), "{}", v.stdout);
    // Paced at the model's rate: the capture's, as `io model` gave it above.
    let (captured_iops, _) = validated_iops(&v.stdout);
    let modelled = model.stdout.split(" transfers/s").next().and_then(|s| s.rsplit(' ').next()).unwrap();
    assert_eq!(captured_iops, modelled.replace(',', "").parse::<f64>().unwrap(), "{}", model.stdout);
    let r = result_json(&validated);
    assert!((r["config"]["iops"].as_f64().unwrap() - captured_iops).abs() <= 1.0, "{}", r["config"]);
    assert_eq!(r["config"]["random_pct"], 100, "randomness assumed");
}

/// The captured and replayed IOPS of `--validate`'s verdict in `stdout`.
pub(crate) fn validated_iops(stdout: &str) -> (f64, f64) {
    let line =
        stdout.lines().find(|l| l.starts_with("validate, captured → replayed: IOPS ")).expect("the verdict");
    let iops = line.split("IOPS ").nth(1).and_then(|s| s.split(';').next()).unwrap();
    let figure = |s: &str| s.replace(',', "").parse::<f64>().unwrap_or_else(|_| panic!("{s:?} in {line}"));
    let (captured, replayed) = iops.split_once(" → ").unwrap();
    (figure(captured), figure(replayed))
}

#[test]
fn iops_paces_the_i_os_from_their_intended_starts() {
    let _disk = disk();
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
    let _disk = disk();
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
    let _disk = disk();
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
    let _disk = disk();
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
