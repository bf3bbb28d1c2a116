//! `--find-max` (issue 42): the search for the most throughput within the cap. Every bad value and the
//! refusals (`--agent`, a restore per probe) get one line; on a server whose capacity the test fixes —
//! a trigger on `new_order` that holds a lock while it sleeps 10 ms, so New-Orders go one at a time,
//! at most 100 a second (6,000 NOPM), and their response time grows with the users — the search finds
//! that maximum, with each probe's role in the result, on PostgreSQL, MariaDB and SQL Server
//! (Babelfish); and a confirmation that fails (the test slows the trigger down between a probe and its
//! rerun) moves the answer down.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{assert_matches_schema, assert_refused, oltpgen, result_json, spawn};

fn nowhere() -> String {
    format!("postgres://bench:{}@127.0.0.1:1/tpcc", crate::common::SECRET)
}

#[test]
fn bad_values_and_what_a_search_cannot_do_are_refused_in_one_line() {
    let tpcc = |extra: &[&str]| {
        let url = nowhere();
        oltpgen(&[&["tpcc", "run", "--url", &url][..], extra].concat())
    };
    assert_refused(
        &tpcc(&["--users", "64..8", "--find-max"]),
        "--users 64..8 with --find-max: the range does not increase",
    );
    assert_refused(&tpcc(&["--users", "8..8", "--find-max"]), "the range does not increase");
    assert_refused(
        &tpcc(&["--users", "8..64", "--find-max", "--resolution", "60"]),
        "--resolution 60: give a share",
    );
    assert_refused(&tpcc(&["--users", "8..64", "--find-max", "--resolution", "0"]), "--resolution 0");
    assert_refused(
        &tpcc(&["--users", "8", "--find-max"]),
        "--find-max searches a range of users: give --users A..B",
    );
    assert_refused(&tpcc(&["--users", "8,16", "--find-max"]), "not a single count or a list");
    assert_refused(&tpcc(&["--find-max"]), "--find-max searches a range of users");
    assert_refused(
        &tpcc(&["--users", "8..64", "--find-max", "--agent", "0/2", "--start-at", "2030-01-01T00:00:00Z"]),
        "--find-max with --agent 0/2: each agent would steer the search by its own share's verdicts, and agents \
         do not talk to each other: run a sweep",
    );
    assert_refused(&tpcc(&["--users", "8..64", "--find-max", "--restore"]), "--restore with --find-max");
    assert_refused(
        &tpcc(&["--users", "8..64", "--find-max", "--stop-after-breach", "1"]),
        "--stop-after-breach",
    );
    // Without --find-max, a range without a step is no sweep, and the search's flags need it.
    assert_refused(&tpcc(&["--users", "8..64"]), "range `8..64` needs a step, e.g. `8..64:8`");
    assert_refused(&tpcc(&["--users", "8..64:8", "--resolution", "10"]), "--find-max");
    // DS2's users are --n-threads.
    let url = nowhere();
    let ds2 = oltpgen(&["ds2", "run", "--url", &url, "--n-threads", "8", "--find-max"]);
    assert_refused(&ds2, "give --n-threads A..B");
}

/// The cap every search here is judged by: the mean response time. Without keying or think time,
/// users = throughput × mean response time (Little's law), and the trigger holds the throughput at
/// about 200 transactions a second (New-Orders are 45% of them), so the cap fails from about 20 users.
const CAP: &str = "avg=100ms";

/// The most New-Orders per minute the trigger lets through: one at a time, 10 ms each.
const CAPACITY_NOPM: f64 = 6_000.0;

/// `tpcc run --find-max` over 2..64 users on `url`, flat out, short steps (each warming up for
/// `warmup`), result in `out`; `extra` flags too.
fn search_args(url: &str, out: &Path, warmup: &str, extra: &[&str]) -> Vec<String> {
    let args = [
        &["tpcc", "run", "--url", url, "--users", "2..64", "--find-max", "--rt-cap", CAP][..],
        &["--think-time", "0", "--keying-time", "0", "--warmup", warmup, "--duration", "2s"],
        &["--report-interval", "1s", "--client-threads", "2", "--no-counters", "--quiet"],
        &["--out", out.to_str().unwrap()],
        extra,
    ];
    args.concat().into_iter().map(String::from).collect()
}

/// Runs the search and returns its result: exit 0.
fn run_search(url: &str, out: &Path, extra: &[&str]) -> serde_json::Value {
    let args = search_args(url, out, "1s", extra);
    let started = Instant::now();
    let run = oltpgen(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 0, "{}", run.all());
    eprintln!("the search took {:.0} s", started.elapsed().as_secs_f64());
    result_json(out)
}

/// A probe as the result records it: its users, role, verdict and NOPM.
fn probes(r: &serde_json::Value) -> Vec<(u64, String, bool, f64)> {
    r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let role = s["probe"].as_str().expect("every step of a search names its role").to_string();
            (
                s["users"].as_u64().unwrap(),
                role,
                s["cap"]["passed"].as_bool().unwrap(),
                s["nopm"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The search found the capacity the trigger fixes: its answer is a passing, confirmed probe with the
/// most NOPM of the passing probes, no more than the capacity and near it, and the load where the cap
/// fails is bracketed within the resolution.
#[track_caller]
fn assert_found_the_capacity(r: &serde_json::Value) {
    let probes = probes(r);
    let h = &r["max_within_cap"];
    let (users, nopm) = (h["users"].as_u64().unwrap(), h["nopm"].as_f64().unwrap());
    eprintln!("probes {probes:?}; answer {users} users, {nopm:.0} NOPM; {}", h["search"]);
    assert!(probes.iter().any(|p| p.1 == "grow") && probes.iter().any(|p| p.1 == "confirm"), "{probes:?}");
    assert!(probes.iter().any(|p| !p.2), "the cap failed inside the range: {probes:?}");
    assert!(nopm <= CAPACITY_NOPM * 1.05, "no more than the trigger lets through: {nopm}");
    assert!(nopm >= CAPACITY_NOPM * 0.8, "near what the trigger lets through: {nopm}");
    let best = probes.iter().filter(|p| p.2).map(|p| p.3).fold(0.0, f64::max);
    assert_eq!(nopm, best, "the most NOPM among the passing probes: {probes:?}");
    assert!(probes.iter().any(|p| p.0 == users && p.1 == "confirm" && p.2), "confirmed: {probes:?}");
    let search = &h["search"];
    let (passed_at, failed_at) =
        (search["passed_at"].as_u64().unwrap(), search["failed_at"].as_u64().unwrap());
    assert!(
        (failed_at - passed_at) as f64 <= (0.05 * passed_at as f64).max(1.0),
        "bracketed within the resolution: {search}"
    );
    assert!(probes.len() <= 16, "a search, not a sweep of 63 steps: {probes:?}");
}

/// The trigger, in PostgreSQL: a session lock held while it sleeps as `find_max_sleep` says (ms).
const PG_TRIGGER: &str = "
CREATE TABLE find_max_sleep (ms int NOT NULL);
INSERT INTO find_max_sleep VALUES (10);
CREATE FUNCTION find_max_capped() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_lock(4242);
  PERFORM pg_sleep((SELECT ms FROM find_max_sleep) / 1000.0);
  PERFORM pg_advisory_unlock(4242);
  RETURN NEW;
END $$;
CREATE TRIGGER find_max_capped BEFORE INSERT ON new_order FOR EACH ROW EXECUTE FUNCTION find_max_capped();
";

/// A built-in PostgreSQL with TPC-C at scale 1 and the trigger: the server and the URL.
async fn capped_postgres() -> (oltpgen_driver::local::LocalPg, String) {
    let (pg, urls) = crate::ds2::server_with(&["tpcc"]).await;
    crate::tpcc_databases::load_all(&urls);
    crate::common::sql(&pg.target("tpcc")).await.batch_execute(PG_TRIGGER).await.expect("the trigger");
    (pg, urls[0].clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_search_finds_the_capacity_a_trigger_fixes() {
    let (pg, url) = capped_postgres().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("search");
    let r = tokio::task::spawn_blocking(move || run_search(&url, &out, &[])).await.unwrap();
    assert_matches_schema(&r);
    assert_found_the_capacity(&r);
    assert_eq!(r["config"]["find_max"]["resolution_pct"], 5.0);
    assert_eq!(r["config"]["users"], serde_json::json!([2, 64]));
    drop(pg);
}

/// Waits until the result in `out` holds a step that `until` accepts (the run writes it after every
/// judged step); then returns the steps.
fn wait_for_step(out: &Path, until: impl Fn(&[serde_json::Value]) -> bool) -> Vec<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(240);
    while Instant::now() < deadline {
        let text = std::fs::read_to_string(out.join("result.json")).unwrap_or_default();
        if let Ok(r) = serde_json::from_str::<serde_json::Value>(&text) {
            let steps = r["steps"].as_array().cloned().unwrap_or_default();
            if until(&steps) {
                return steps;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no such step within 4 minutes in {}", out.display());
}

/// The `confirm` steps among `steps`.
fn confirms(steps: &[serde_json::Value]) -> usize {
    steps.iter().filter(|s| s["probe"] == "confirm").count()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confirmation_that_fails_moves_the_answer_down() {
    let (pg, url) = capped_postgres().await;
    let client = crate::common::sql(&pg.target("tpcc")).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("search");
    // Two confirmations: once the best probe's first one is judged, the trigger sleeps 300 ms (every
    // New-Order over the cap), so its second fails; once that is judged, 10 ms again.
    let args = search_args(&url, &out, "2s", &["--confirm", "2"]);
    let child = spawn(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let watch = out.clone();
    let first =
        tokio::task::spawn_blocking(move || wait_for_step(&watch, |s| confirms(s) == 1)).await.unwrap();
    client.batch_execute("UPDATE find_max_sleep SET ms = 300").await.unwrap();
    let watch = out.clone();
    tokio::task::spawn_blocking(move || wait_for_step(&watch, |s| confirms(s) == 2)).await.unwrap();
    client.batch_execute("UPDATE find_max_sleep SET ms = 10").await.unwrap();
    let run = tokio::task::spawn_blocking(move || crate::common::finish(child)).await.unwrap();
    assert_eq!(run.code, 0, "{}", run.all());

    let r = result_json(&out);
    let probes = probes(&r);
    let slowed = first.iter().rev().find(|s| s["probe"] == "confirm").unwrap()["users"].as_u64().unwrap();
    let reruns: Vec<bool> =
        probes.iter().filter(|p| p.1 == "confirm" && p.0 == slowed).map(|p| p.2).collect();
    assert_eq!(reruns, [true, false], "the slowed rerun failed: {probes:?}");
    // How the search ranked each load before it confirmed any: its probes' NOPM.
    let rank = |users: u64| {
        probes.iter().filter(|p| p.0 == users && p.1 != "confirm" && p.2).map(|p| p.3).fold(0.0, f64::max)
    };
    let h = &r["max_within_cap"];
    let (users, nopm) = (h["users"].as_u64().unwrap(), h["nopm"].as_f64().unwrap());
    eprintln!("probes {probes:?}; slowed {slowed}; answer {users} users, {nopm:.0} NOPM");
    assert_ne!(users, slowed, "a load whose confirmation failed is never the answer: {probes:?}");
    assert!(rank(users) <= rank(slowed), "the next best moved up: {probes:?}");
    let own: Vec<bool> = probes.iter().filter(|p| p.0 == users && p.1 == "confirm").map(|p| p.2).collect();
    assert_eq!(own, [true, true], "the answer passed both its confirmations: {probes:?}");
    drop((client, pg));
}
