//! A study stopped at its first hook (issue 39): the hook's failure is said with what it printed, no
//! empty step table or client line, and no result directory left that the command made; an `--out`
//! that was there is left as it was.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{data_dir, oltpgen};

/// Every file in `dir` with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

#[test]
fn a_study_stopped_at_its_first_hook_leaves_no_result_and_shows_the_hook_s_output() {
    let (keep, root) = data_dir();
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let run = |out_dir: &Path, hook: &[&str]| {
        let d = out_dir.to_str().unwrap();
        let args = ["tpcc", "run", "--data-dir", &root, "--users", "2", "--warmup", "0s", "--duration", "2s"];
        let pace = ["--think-time", "0", "--keying-time", "0"];
        oltpgen(&[&args[..], &pace, hook, &["--out", d]].concat())
    };

    // A new --out: made, then gone with the failed hook; its output said on stderr instead.
    let fresh = keep.path().join("fresh");
    let out = run(&fresh, &["--before-run", "echo flushing the cache; echo no such device >&2; exit 3"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(!out.all().contains("client CPU") && !out.stdout.contains("step"), "{}", out.all());
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(lines[0].starts_with("the hooks' output (last 3 line(s); "), "{}", out.stderr);
    assert_eq!(lines[2..4], ["  flushing the cache", "  no such device"], "{}", out.stderr);
    assert_eq!(
        lines.last().unwrap().to_string(),
        "error: --before-run `echo flushing the cache; echo no such device >&2; exit 3` for run 1 failed \
         (exit status: 3; its output is above); the study stopped there; no run began, so no result was \
         written",
    );
    assert!(!fresh.exists(), "the directory the command made is removed");

    // An empty --out that was there stays, empty; a hook past --hook-timeout is said as such.
    let empty = keep.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = run(&empty, &["--before-run", "sleep 30", "--hook-timeout", "1s"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(
        out.stderr.contains("ran past its time limit of 1s (--hook-timeout) and was killed"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("no run began, so no result was written"), "{}", out.stderr);
    assert!(!out.all().contains("client CPU"), "{}", out.all());
    assert!(contents(&empty).is_empty(), "{:?}", contents(&empty).keys());

    // A result written over (--replace) by a study stopped at its first hook is left as it was, its
    // hooks' log too.
    let result = keep.path().join("result");
    let out = run(&result, &["--before-run", "echo first"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let before = contents(&result);
    assert!(before.contains_key("hooks.log") && before.contains_key("result.json"), "{:?}", before.keys());
    let out = run(&result, &["--before-run", "echo second; exit 4", "--replace"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stderr.contains("  second\n"), "{}", out.stderr);
    assert_eq!(contents(&result), before, "the result that was there is left as it was");
}
