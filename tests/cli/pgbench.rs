//! pgbench's scripts and TPC-B against PostgreSQL 15's own pgbench, on a server the test starts: the
//! built-in scripts and a user's script with `\gset` and `\if` run; `:scale` and `:client_id` are
//! pgbench's (each tool echoes them into a table); `tpcb load` holds `pgbench -i`'s rows, table for
//! table; each tool drives the other's database; TPC-B's invariant holds after a sweep and its check
//! fails on a database that breaks it; refused scripts name their file and line.

use std::path::PathBuf;
use std::process::Command;

use oltpgen_driver::local::binaries;

use crate::common::server_with;
use crate::common::{assert_refused, oltpgen, sql};

/// A short flat-out run: no warmup, 3 s measured.
const SHORT: [&str; 4] = ["--warmup", "0s", "--duration", "3s"];

/// PostgreSQL's pgbench: beside the server's binaries, else Debian's PostgreSQL 15's.
fn pgbench() -> PathBuf {
    let dir = binaries::find(&crate::common::test_stderr()).expect("PostgreSQL's binaries");
    let candidates = [dir.join("pgbench"), PathBuf::from("/usr/lib/postgresql/15/bin/pgbench")];
    let found = candidates.iter().find(|p| p.is_file());
    found.unwrap_or_else(|| panic!("no pgbench in {candidates:?}")).clone()
}

/// `oltpgen` with `args`, its result written under `dir` (not the working directory).
fn oltpgen_out(args: &[&str], dir: &tempfile::TempDir) -> crate::common::Outcome {
    let out = dir.path().join(format!("result-{}", rand_suffix()));
    oltpgen(&[args, &["--out", out.to_str().unwrap()]].concat())
}

/// A number no two results of one test share.
fn rand_suffix() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Runs pgbench with `args` on `url`; asserts it succeeded.
fn run_pgbench(args: &[&str], url: &str) -> String {
    let out = Command::new(pgbench()).args(args).arg(url).output().expect("pgbench runs");
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pgbench {args:?}: {all}");
    all
}

/// Each table's rows, sorted, as one md5.
async fn md5s(url: &str, db: &str, server: &oltpgen_driver::local::LocalPg) -> Vec<String> {
    let _ = url;
    let client = sql(&server.target(db)).await;
    let mut out = Vec::new();
    for t in ["pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history"] {
        let q = format!("SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) FROM {t} x");
        out.push(format!("{t} {}", client.query_one(&q, &[]).await.unwrap().get::<_, String>(0)));
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn tpcb_load_holds_pgbench_init_rows_and_each_tool_drives_the_other() {
    let (server, urls) = server_with(&["by_oltpgen", "by_pgbench"]).await;
    let out = oltpgen(&["tpcb", "load", "--scale", "2", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    run_pgbench(&["-i", "-s", "2", "-q"], &urls[1]);
    assert_eq!(md5s(&urls[0], "by_oltpgen", &server).await, md5s(&urls[1], "by_pgbench", &server).await);
    // Each drives the other's.
    run_pgbench(&["-n", "-M", "prepared", "-c", "2", "-t", "50"], &urls[0]);
    let results = tempfile::tempdir().unwrap();
    let out =
        oltpgen_out(&[&["tpcb", "run", "--users", "2", "--url", &urls[1]][..], &SHORT].concat(), &results);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("errors 0"), "{}", out.stdout);
    for url in &urls {
        let out = oltpgen(&["tpcb", "check", "--url", url]);
        assert_eq!(out.code, 0, "{}", out.all());
        assert!(out.stdout.contains("tpcb.1") && out.stdout.contains("pass"), "{}", out.stdout);
    }
    let client = sql(&server.target("by_pgbench")).await;
    let history: i64 = client.query_one("SELECT count(*) FROM pgbench_history", &[]).await.unwrap().get(0);
    assert!(history > 0, "oltpgen's tpcb-like added history rows");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_builtins_and_a_script_with_gset_and_if_run() {
    let (server, urls) = server_with(&["builtins"]).await;
    run_pgbench(&["-i", "-s", "1", "-q"], &urls[0]);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("mine.sql");
    std::fs::write(
        &script,
        "\\set aid random(1, 100000 * :scale)
SELECT abalance AS bal, aid AS got FROM pgbench_accounts WHERE aid = :aid \\gset acct_
\\if :acct_got = :aid
UPDATE pgbench_tellers SET tbalance = tbalance WHERE tid = 1;
INSERT INTO seen VALUES (:acct_got);
\\else
SELECT 1/0;
\\endif
",
    )
    .unwrap();
    sql(&server.target("builtins")).await.batch_execute("CREATE TABLE seen (aid int)").await.unwrap();
    let mine = format!("{}@2", script.display());
    let args = [
        &["custom", "run", "--url", &urls[0], "--users", "3"][..],
        &["--pgbench-builtin", "tpcb-like", "--pgbench-builtin", "simple-update@1"],
        &["--pgbench-builtin", "select-only", "--pgbench-script", &mine],
        &["--rt-cap", "avg=1s,mine.p95=10s,tpcb-like.p95=10s"],
        &SHORT,
    ]
    .concat();
    let out = oltpgen_out(&args, &dir);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        out.stdout.contains("errors 0"),
        "no script failed (the \\else would divide by 0): {}",
        out.stdout
    );
    let client = sql(&server.target("builtins")).await;
    let seen: i64 = client.query_one("SELECT count(*) FROM seen", &[]).await.unwrap().get(0);
    assert!(seen > 0, "the \\if branch ran with \\gset's values");
    // Every built-in adds its delta to an account and to the history (simple-update to nothing else).
    let sums =
        "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(delta) FROM pgbench_history)";
    assert!(client.query_one(sums, &[]).await.unwrap().get::<_, bool>(0), "accounts and history agree");
}

/// The rows `tool` echoed: (client_id, scale, scale read back by \gset), distinct and sorted.
async fn echoed(client: &tokio_postgres::Client, tool: &str) -> Vec<(i32, i32, i32)> {
    let rows = client
        .query(
            "SELECT DISTINCT client_id, scale, via_gset FROM echo WHERE tool = $1 ORDER BY 1, 2, 3",
            &[&tool],
        )
        .await
        .unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn scale_and_client_id_are_pgbenchs() {
    let (server, urls) = server_with(&["echo"]).await;
    run_pgbench(&["-i", "-s", "3", "-q"], &urls[0]);
    let client = sql(&server.target("echo")).await;
    client
        .batch_execute("CREATE TABLE echo (tool text, client_id int, scale int, via_gset int)")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("echo.sql");
    std::fs::write(
        &script,
        "SELECT :client_id AS cid, :scale AS sc \\gset
\\if :cid >= 0
INSERT INTO echo VALUES (:tool, :client_id, :scale, :sc);
\\endif
",
    )
    .unwrap();
    let file = script.to_str().unwrap();
    // A user's script alone: :scale is 1, or --scale's.
    for (scale, tag) in [(None, "plain"), (Some("7"), "scaled")] {
        let pg_tag = format!("tool=pgbench-{tag}");
        let ours_tag = format!("tool=oltpgen-{tag}");
        let mut pg_args = vec!["-n", "-M", "prepared", "-c", "3", "-t", "5", "-f", file, "-D", &pg_tag];
        let mut ours = vec!["custom", "run", "--url", &urls[0], "--users", "3", "--pgbench-script", file];
        ours.extend(["-D", &ours_tag]);
        if let Some(s) = scale {
            pg_args.extend(["-s", s]);
            ours.extend(["--scale", s]);
        }
        run_pgbench(&pg_args, &urls[0]);
        let out = oltpgen_out(&[&ours[..], &SHORT].concat(), &dir);
        assert_eq!(out.code, 0, "{}", out.all());
        let theirs = echoed(&client, &format!("pgbench-{tag}")).await;
        assert_eq!(theirs.len(), 3, "{theirs:?}");
        assert_eq!(echoed(&client, &format!("oltpgen-{tag}")).await, theirs, "{tag}");
    }
    // Beside a built-in script, :scale is pgbench_branches' rows.
    let builtin_args = ["-n", "-M", "prepared", "-c", "2", "-t", "20", "-b", "select-only", "-f", file];
    run_pgbench(&[&builtin_args[..], &["-D", "tool=pgbench-builtin"]].concat(), &urls[0]);
    let out = oltpgen_out(
        &[
            &["custom", "run", "--url", &urls[0], "--users", "2", "--pgbench-builtin", "select-only"][..],
            &["--pgbench-script", file, "-D", "tool=oltpgen-builtin"],
            &SHORT,
        ]
        .concat(),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.all());
    let theirs = echoed(&client, "pgbench-builtin").await;
    assert!(theirs.iter().all(|&(_, scale, gset)| scale == 3 && gset == 3), "{theirs:?}");
    assert_eq!(echoed(&client, "oltpgen-builtin").await, theirs);
}

#[tokio::test(flavor = "multi_thread")]
async fn tpcb_invariant_holds_after_a_sweep_and_its_check_fails_when_broken() {
    let (server, urls) = server_with(&["sweep"]).await;
    let out = oltpgen(&["tpcb", "load", "--scale", "1", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let args = [
        &["tpcb", "run", "--url", &urls[0], "--users", "2,6", "--runs", "2", "--restore", "--max-tries", "5"]
            [..],
        &["--warmup", "0s", "--duration", "2s"],
    ]
    .concat();
    let results = tempfile::tempdir().unwrap();
    let out = oltpgen_out(&args, &results);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("step 4 (run 2)"), "two steps, two runs: {}", out.stdout);
    let out = oltpgen(&["tpcb", "check", "--url", &urls[0]]);
    assert_eq!(out.code, 0, "{}", out.all());
    let client = sql(&server.target("sweep")).await;
    let history: i64 = client.query_one("SELECT count(*) FROM pgbench_history", &[]).await.unwrap().get(0);
    assert!(history > 0);
    client.batch_execute("UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1").await.unwrap();
    let out = oltpgen(&["tpcb", "check", "--url", &urls[0]]);
    assert_eq!(out.code, 1, "a broken invariant fails the check: {}", out.all());
    assert!(out.stdout.contains("tpcb.1"), "{}", out.stdout);
}

#[test]
fn a_refused_script_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("shell.sql");
    std::fs::write(&script, "SELECT 1;\n\\shell echo hi\n").unwrap();
    let url = "postgres://postgres@127.0.0.1:1/none";
    let out = oltpgen(&["custom", "run", "--url", url, "--pgbench-script", script.to_str().unwrap()]);
    assert_refused(&out, &format!("{}:2: \\shell is not supported", script.display()));
    let out = oltpgen(&["custom", "run", "--url", url, "--pgbench-builtin", "s"]);
    assert_refused(&out, "--pgbench-builtin s: no such built-in script");
    // Refused before anything starts: the unreachable server is never asked.
    let out = oltpgen(&["tpcb", "load", "--scale", "214748365", "--url", url, "--create-database"]);
    assert_refused(&out, "--scale 214748365: TPC-B's scale is 1 to 214748364");
}

#[test]
fn the_builtins_are_pgbench_15s_texts() {
    for (name, text) in oltpgen_datagen::pgbench::BUILTINS {
        let out = Command::new(pgbench()).arg(format!("--show-script={name}")).output().unwrap();
        let shown = String::from_utf8_lossy(&out.stderr);
        let body = shown.split_once('\n').map(|(_, b)| b).unwrap_or_default();
        assert_eq!(body.trim_end(), text.trim_end(), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn max_tries_retries_serialization_failures_as_pgbench() {
    let (server, urls) = server_with(&["tries"]).await;
    run_pgbench(&["-i", "-s", "1", "-q"], &urls[0]);
    // Under REPEATABLE READ eight clients on one branch row fail to serialize often.
    let client = sql(&server.target("tries")).await;
    client
        .batch_execute("ALTER DATABASE tries SET default_transaction_isolation = 'repeatable read'")
        .await
        .unwrap();
    let results = tempfile::tempdir().unwrap();
    let errors = |tries: &str| {
        let args =
            [&["tpcb", "run", "--url", &urls[0], "--users", "8", "--max-tries", tries][..], &SHORT].concat();
        let out = oltpgen_out(&args, &results);
        let step =
            out.stdout.lines().find(|l| l.starts_with("step 1 (run 1)")).unwrap_or_default().to_string();
        let n =
            step.split("errors ").nth(1).and_then(|e| e.split_whitespace().next()).map(|e| e.parse::<u64>());
        (n.and_then(Result::ok).unwrap_or_else(|| panic!("no errors figure: {}", out.all())), step)
    };
    let (once, step) = errors("1");
    assert!(once > 0, "pgbench's default tries once, so failures are errors: {step}");
    // A try fails often here (about 0.9 of them: three of some 3,400 scripts still failed after 50
    // tries), and pgbench gives up after --max-tries, as oltpgen does: 1,000 leaves none failing.
    let (retried, step) = errors("1000");
    assert_eq!(retried, 0, "each failed script was run again: {step}");
}
