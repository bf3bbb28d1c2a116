//! Issue 39's words that misled a newcomer, through the built binary: a mistyped pacing pointed at
//! `spec`, a negative time refused as one, DS2's `--target` named in its errors, a study's runs counted
//! apart from its steps, `check --result` of a merged result said to be one, and `report html --out`
//! run twice with `--replace`.

use std::path::{Path, PathBuf};

use crate::common::{assert_refused, oltpgen};
use crate::report_cli::write;
use crate::report_html::sweep;

#[test]
fn a_mistyped_or_negative_value_is_refused_in_its_own_words() {
    for (args, said) in [
        (
            &["tpcc", "run", "--think-time", "spc"][..],
            "'spc' is not a pacing: write spec (the spec's), 0 (none) or a mean (e.g. 2s)",
        ),
        (&["tpcc", "run", "--keying-time", "sepc"], "'sepc' is not a pacing: write spec"),
        (&["tpcc", "run", "--duration", "-5s"], "'-5s' is negative: a time is 0 or more"),
        (&["tpcc", "--warmup=-1m"], "'-1m' is negative"),
        (&["tpcc", "run", "--window", "-5s..10s"], "'-5s' is negative"),
        (&["ds2", "--run_time=-5"], "'-5' is negative"),
        (&["ds2", "run", "--warmup-time", "-1"], "'-1' is negative"),
        (&["tpcc", "run", "--users", "-5"], "for '--users"),
        (&["tpcc", "run", "--system-cost", "-5"], "is not a cost in USD"),
        (&["tpcc", "run", "--duration", "--quiet"], "'--quiet' is a flag, not a duration"),
    ] {
        let out = oltpgen(args);
        assert_refused(&out, said);
        assert!(!out.stderr.contains("unexpected argument"), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn ds2_s_target_is_named_in_its_errors() {
    let out = oltpgen(&["ds2", "run", "--target=foo:bar:baz"]);
    assert_refused(&out, "--target \"foo:bar:baz\" is not a host: write each database server as a name");
    assert!(!out.stderr.contains("--url"), "{}", out.stderr);
    // Nothing listens on port 1: the connection is refused, and the host typed was --target's.
    let out = oltpgen(&["ds2", "run", "--target=127.0.0.1:1", "--run-time", "1s"]);
    assert_ne!(out.code, 0, "{}", out.all());
    assert!(out.stderr.contains("the host and port in --target right?"), "{}", out.stderr);
    assert!(!out.stderr.contains("in --url"), "{}", out.stderr);
}

#[test]
fn a_study_s_first_line_counts_its_step_and_its_runs_apart() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("result");
    let study = "tpcc --temp-db --users 2 --runs 2 --warmup 0 --duration 1s --think-time 0 --keying-time 0 \
                 --report-interval 1s";
    let mut args: Vec<&str> = study.split_whitespace().collect();
    args.extend(["--out", out_dir.to_str().unwrap()]);
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains(": 2 users in 1 step, 2 runs, up to 2 connections"), "{}", out.stdout);
    // Issue 39: summary.txt printed `connections=null … window_s=null`.
    let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    let config = summary.lines().find(|l| l.starts_with("config: ")).unwrap();
    assert!(!config.contains("null"), "{config}");
    assert!(config.contains("(not set: connections,") && config.contains("window_s)"), "{config}");
}

/// A directory holding two results of one plan (`a` and `b`, the second machine's against its own
/// database), with their paths, and the path of `name` in it.
fn two_results(name: &str) -> (tempfile::TempDir, [String; 3]) {
    let dir = tempfile::tempdir().unwrap();
    let mut b = sweep();
    b.targets = vec!["postgres://oltpgen@10.0.0.2:5432/<tpcc>".into()];
    let path = |p: PathBuf| p.to_str().unwrap().to_string();
    let paths = [
        path(write(dir.path(), "a", &sweep())),
        path(write(dir.path(), "b", &b)),
        path(dir.path().join(name)),
    ];
    (dir, paths)
}

#[test]
fn check_of_a_merged_result_says_it_is_merged_and_what_to_give() {
    let (_dir, [a, b, merged]) = two_results("merged");
    let out = oltpgen(&["report", "merge", &a, &b, "--out", &merged]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = oltpgen(&["tpcc", "check", "--url", "postgres://u@127.0.0.1:1/x", "--result", &merged]);
    assert_refused(
        &out,
        "a merged result (report merge of 2 results) without the parts' acknowledged orders",
    );
    assert!(out.stderr.contains("give --result each part's own result directory"), "{}", out.stderr);
    assert!(!out.stderr.contains("older oltpgen"), "{}", out.stderr);
}

#[test]
fn report_html_writes_over_its_own_page_with_replace_only() {
    let (dir, [a, b, page]) = two_results("compare.html");
    let html = |more: &[&str]| oltpgen(&[&["report", "html", &a, &b, "--out", &page][..], more].concat());
    assert_eq!(html(&[]).code, 0);
    let first = std::fs::read_to_string(&page).unwrap();
    let again = html(&[]);
    assert_refused(&again, "already exists: name a new file, or pass --replace to write over the page");
    let out = html(&["--replace"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(std::fs::read_to_string(&page).unwrap(), first, "the same page, written again");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A file oltpgen did not write is never written over, --replace or not.
    std::fs::write(&page, "my notes").unwrap();
    assert_refused(
        &html(&["--replace"]),
        "is not a page oltpgen wrote: --replace writes over oltpgen's pages only",
    );
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "my notes");
}

#[test]
fn ci_runs_every_test_command_and_names_those_that_failed() {
    // Issue 39: `.ci/run` stopped at the first failing test command, hiding the rest. Run it on a
    // copy of itself with a `cargo` that records its calls and fails three of the test commands: the
    // PostgreSQL-only library tests, the README's command and one of the chains run beside it.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".ci")).unwrap();
    std::fs::copy(repo.join(".ci/run"), dir.path().join(".ci/run")).unwrap();
    std::fs::write(dir.path().join("BENCHMARKS.md"), "# figures\n").unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.path().join("calls");
    let stub = "#!/bin/sh\necho \"$*\" >> \"$CALLS\"\ncase \"$*\" in\n  *--no-run*) exit 0;;\n  \
                test*--lib*|test*--workspace*|*--test\\ find_max*) exit 101;;\nesac\nexit 0\n";
    std::fs::write(bin.join("cargo"), stub).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("cargo"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = std::process::Command::new("bash")
        .arg(dir.path().join(".ci/run"))
        .env("PATH", path)
        .env("CALLS", &log)
        .env("OLTPGEN_TEST_MSSQL_URL", "sqlserver://ci@127.0.0.1:1/x")
        .env("SLURM_CONF", "/nonexistent/slurm.conf")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let calls = std::fs::read_to_string(&log).unwrap();
    let tests: Vec<&str> =
        calls.lines().filter(|c| c.starts_with("test ") && !c.contains("--no-run")).collect();
    // The PostgreSQL-only library tests and its binary's, the two chains and the README's command.
    assert_eq!(tests.len(), 5, "every test command ran after the first failed: {calls}");
    assert!(tests.iter().all(|c| c.contains("--no-fail-fast")), "{calls}");
    for chain in ["sql_server", "find_max"] {
        assert!(tests.iter().any(|c| c.contains(&format!("--test {chain} "))), "{chain} ran: {calls}");
    }
    // The README's command skips exactly the modules whose tests the chains run: each module a chain's
    // binary declares for its tests (its shared helpers are the `#[allow(dead_code)]` ones, unless
    // another chain runs their tests).
    let readme =
        tests.iter().find(|c| c.starts_with("test --workspace --locked --no-fail-fast")).expect(&calls);
    let mut modules = std::collections::BTreeMap::<String, bool>::new();
    for chain in ["sql_server", "find_max"] {
        let main = std::fs::read_to_string(repo.join(format!("tests/{chain}/main.rs"))).unwrap();
        let lines: Vec<&str> = main.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(module) = line.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) else { continue };
            let helper = lines[..i].iter().rev().take(2).any(|l| l.contains("allow(dead_code)"));
            *modules.entry(module.to_string()).or_default() |= !helper;
        }
    }
    for (module, tested) in modules {
        let skipped = readme.contains(&format!("--skip {module}::"));
        assert_eq!(skipped, tested, "a chain's module {module}: skipped by the README's command? {readme}");
    }
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let failed: Vec<&str> = stderr.lines().filter(|l| l.starts_with("ci: failed: ")).collect();
    assert_eq!(failed.len(), 3, "{stderr}");
    assert!(failed[0].starts_with("ci: failed: cargo test -p oltpgen-vocab"), "{stderr}");
    assert!(
        failed[1].starts_with("ci: failed: cargo test --workspace --locked --no-fail-fast -- --skip"),
        "{stderr}"
    );
    assert_eq!(failed[2], "ci: failed: the chains: sql_server find_max (above)", "{stderr}");
}

#[test]
fn out_s_help_names_every_file_of_a_result() {
    // Issue 39: `--out`'s help left out counters.csv and acks.bin.
    let help = oltpgen(&["tpcc", "run", "--help"]).stdout;
    let out = help.split("--out <DIR>").nth(1).unwrap();
    let line: String = out.split("\n  -").next().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    for file in ["result.json", "summary.txt", "timeseries.csv", "counters.csv", "report.html", "acks.bin"] {
        assert!(line.contains(file), "{file}: {line}");
    }
    let html = oltpgen(&["report", "html", "--help"]).stdout;
    assert!(html.contains("--replace"), "{html}");
}
