//! `--find-max` (issue 42) beyond one TPC-C search: with `--runs 3` each run searches anew and the
//! headline is the median run's answer, naming that run; DS2 and a workload defined in a file search
//! end to end, each on a built-in PostgreSQL whose capacity a trigger fixes (a lock held while it
//! sleeps, on DS2's `orders` and on the file's insert table), so each search finds a known maximum;
//! and the live lines name the probe under way (`grow 2 users`).

use crate::common::{assert_matches_schema, oltpgen, result_json};
use crate::find_max::{
    CAP, TURN, answer, capacity_per_minute, capped_postgres, probes, probes_of, run_search, search_args,
};

/// The trigger on `table`: every insert takes one advisory lock and sleeps `ms` under it, so at most
/// 1000 / `ms` rows a second go in.
fn trigger(table: &str, ms: u32) -> String {
    format!(
        "
CREATE FUNCTION find_max_capped() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_lock(4242);
  PERFORM pg_sleep({ms} / 1000.0);
  PERFORM pg_advisory_unlock(4242);
  RETURN NEW;
END $$;
CREATE TRIGGER find_max_capped BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION find_max_capped();
"
    )
}

/// Puts [`trigger`] on `table` of database `db` on `pg`, sleeping `ms`.
async fn capped(pg: &oltpgen_driver::local::LocalPg, db: &str, table: &str, ms: u32) {
    crate::common::sql(&pg.target(db)).await.batch_execute(&trigger(table, ms)).await.expect("the trigger");
}

/// The search in `r` has the shape of one: every step names its role, it grew, the cap failed within
/// the range and the answer was confirmed; the load where the cap fails is bracketed within the
/// resolution. Returns the probes as [`probes`] gives them, the figure read from `figure`.
#[track_caller]
fn assert_searched(r: &serde_json::Value, figure: &str) -> Vec<(u64, String, bool, f64)> {
    let path = probes_of(r, figure);
    assert!(path.iter().any(|p| p.1 == "grow") && path.iter().any(|p| !p.2), "{path:?}");
    let h = &r["max_within_cap"];
    let users = h["users"].as_u64().unwrap();
    assert!(path.iter().any(|p| p.0 == users && p.1 == "confirm" && p.2), "confirmed: {path:?}");
    let (failed, passed) = (h["search"]["failed_at"].as_u64(), h["search"]["passed_at"].as_u64());
    let (Some(failed), Some(passed)) = (failed, passed) else { panic!("a bracket: {}", h["search"]) };
    assert!(failed > users && passed < failed, "{}", h["search"]);
    assert_eq!(h["search"]["probes"].as_u64(), Some(path.len() as u64), "{}", h["search"]);
    assert!(path.len() <= 16, "a search, not a sweep: {path:?}");
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn with_three_runs_the_headline_is_the_median_run_s_answer_and_names_that_run() {
    let _turn = TURN.lock().await;
    let (pg, url) = capped_postgres().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("search");
    let args = search_args(&url, &out, "1s", &["--runs", "3"]);
    let (r, show) = tokio::task::spawn_blocking(move || {
        let r = run_search(&args, &out);
        (r, oltpgen(&["report", "show", out.to_str().unwrap()]))
    })
    .await
    .unwrap();
    assert_matches_schema(&r);
    let steps = r["steps"].as_array().unwrap();
    let all = probes(&r);
    let run_of: Vec<u64> = steps.iter().map(|s| s["run"].as_u64().unwrap()).collect();
    let mut answers: Vec<(f64, u64)> = (1..=3)
        .map(|run| {
            let mine: Vec<_> =
                all.iter().zip(&run_of).filter(|(_, r)| **r == run).map(|(p, _)| p.clone()).collect();
            assert!(
                mine.iter().any(|p| p.1 == "grow") && mine.iter().any(|p| p.1 == "confirm"),
                "run {run} searched: {mine:?}"
            );
            (answer(&mine), run)
        })
        .collect();
    answers.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (median, run) = answers[1];
    let h = &r["max_within_cap"];
    eprintln!("answers {answers:?}; headline {h}");
    assert_eq!(h["nopm"].as_f64(), Some(median), "the median of the runs' answers {answers:?}");
    let step = steps.iter().find(|s| s["index"] == h["step_index"]).unwrap();
    assert_eq!(step["run"].as_u64(), Some(run), "the headline's step is that run's: {answers:?}");
    assert_eq!(show.code, 0, "{}", show.all());
    assert!(
        show.stdout.contains(&format!("the median of 3 runs' answers, run {run}'s:")),
        "the headline names the run: {}",
        show.stdout
    );
    drop(pg);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ds2_search_finds_the_orders_a_trigger_on_its_orders_table_lets_through() {
    let _turn = TURN.lock().await;
    let (pg, urls) = crate::common::server_with(&["ds2"]).await;
    let url = urls[0].clone();
    let load = oltpgen(&["ds2", "load", "--db-size", "10mb", "--url", &url, "-q"]);
    assert_eq!(load.code, 0, "{}", load.all());
    // 50 ms a purchase: at most 1,200 orders a minute, well below what DS2 serves here without it
    // (some 2,700 with 8 users on a loaded machine); the cap fails from about 10 users.
    capped(&pg, "ds2", "orders", 50).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("search");
    let o = out.to_str().unwrap().to_string();
    let args: Vec<String> = [
        &["ds2", "run", "--url", &url, "--n-threads", "2..64", "--find-max"][..],
        &["--rt-cap", "order.avg=500ms", "--think-time", "0", "--warmup-time", "1s", "--run-time", "2s"],
        &["--report-rate", "1", "--client-threads", "2", "--no-counters", "-q", "--out", &o],
    ]
    .concat()
    .into_iter()
    .map(String::from)
    .collect();
    let r = tokio::task::spawn_blocking(move || run_search(&args, &out)).await.unwrap();
    assert_matches_schema(&r);
    let path = assert_searched(&r, "opm");
    let opm = r["max_within_cap"]["opm"].as_f64().unwrap();
    eprintln!("probes {path:?}; answer {opm:.0} OPM");
    assert_eq!(opm, answer(&path), "the most OPM among the passing probes: {path:?}");
    let capacity = capacity_per_minute(50);
    assert!(opm <= capacity * 1.05, "no more than the trigger lets through ({capacity}): {opm}");
    assert!(opm >= capacity * 0.8, "near what the trigger lets through ({capacity}): {opm}");
    drop(pg);
}

/// A workload of one transaction that inserts one row into `entries`.
const LEDGER: &str = r#"
name = "ledger"

[[tables]]
name = "entries"
rows = 0
columns = [
  { name = "account", ty = "int", gen = "sequence" },
  { name = "amount", ty = "int", gen = { constant = 0 } },
]

[[transactions]]
name = "post"
weight = 1

[[transactions.statements]]
sql = "INSERT INTO entries (account, amount) VALUES ($1, $2)"
params = [{ uniform = { min = 1, max = 1000 } }, { uniform = { min = 1, max = 100 } }]
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_workload_file_search_finds_what_a_trigger_fixes_and_the_live_lines_name_each_probe() {
    let _turn = TURN.lock().await;
    let (pg, urls) = crate::common::server_with(&["ledger"]).await;
    let url = urls[0].clone();
    let dir = tempfile::tempdir().unwrap();
    let file = crate::common::file(dir.path(), "ledger.toml", LEDGER);
    let f = file.to_str().unwrap().to_string();
    let load = oltpgen(&["custom", "load", "--file", &f, "--url", &url, "-q"]);
    assert_eq!(load.code, 0, "{}", load.all());
    // 20 ms a row: at most 50 posts a second.
    capped(&pg, "ledger", "entries", 20).await;
    let out = dir.path().join("search");
    let o = out.to_str().unwrap().to_string();
    let run = tokio::task::spawn_blocking(move || {
        let args = [
            &[
                "custom",
                "run",
                "--file",
                &f,
                "--url",
                &url,
                "--users",
                "2..64",
                "--find-max",
                "--rt-cap",
                CAP,
            ][..],
            &["--warmup", "1s", "--duration", "2s", "--report-interval", "1s", "--client-threads", "2"],
            &["--no-counters", "--out", &o],
        ]
        .concat();
        oltpgen(&args)
    })
    .await
    .unwrap();
    assert_eq!(run.code, 0, "{}", run.all());
    let r = result_json(&out);
    assert_matches_schema(&r);
    let path = assert_searched(&r, "tps");
    let tps = r["max_within_cap"]["tps"].as_f64().unwrap();
    eprintln!("probes {path:?}; answer {tps:.1} TPS");
    assert_eq!(tps, answer(&path), "the most TPS among the passing probes: {path:?}");
    let capacity = capacity_per_minute(20) / 60.0;
    assert!(tps <= capacity * 1.05, "no more than the trigger lets through ({capacity}/s): {tps}");
    assert!(tps >= capacity * 0.8, "near what the trigger lets through ({capacity}/s): {tps}");
    // The live lines during the first probe name it; a later one names its own role and users.
    let live: Vec<&str> = run.stdout.lines().filter(|l| l.ends_with(" users") && l.contains("  ")).collect();
    assert!(live.iter().any(|l| l.ends_with("  grow 2 users")), "{}", run.stdout);
    let (users, role) = (path.last().unwrap().0, path.last().unwrap().1.clone());
    assert!(live.iter().any(|l| l.ends_with(&format!("  {role} {users} users"))), "{}", run.stdout);
    drop(pg);
}
