//! Figures right when a run drives several databases (issue 35): each database audited on its own
//! warehouses and the total made from those, a database that lost its sessions failing its own verdict
//! while the other passes, a step shorter than the report interval read at its edges (time series and
//! counters), and one headline, the workload's own figure, in every output. Two scale-1 TPC-C databases
//! on one throwaway PostgreSQL.

use serde_json::Value;

use crate::common::load_all;
use crate::common::server_with;
use crate::common::{assert_matches_schema, finish, oltpgen, result_json, spawn, sql};

/// Flat out, on two client threads, quiet.
#[rustfmt::skip]
const FLAT_OUT: [&str; 7] = ["--think-time", "0", "--keying-time", "0", "--client-threads", "2", "--quiet"];

/// `tpcc run` on every database of `urls` with `extra` flags, into `out`: its output.
fn run_args<'a>(urls: &'a [String], extra: &[&'a str], out: &'a str) -> Vec<&'a str> {
    let mut args = vec!["tpcc", "run", "--out", out];
    args.extend_from_slice(extra);
    args.extend(urls.iter().flat_map(|u| ["--url", u.as_str()]));
    args.extend(FLAT_OUT);
    args
}

/// The check named `name` of `audit`.
fn check<'a>(audit: &'a Value, name: &str) -> &'a Value {
    audit["checks"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("{name}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn several_databases_are_audited_judged_and_read_each_on_its_own() {
    let (pg, urls) = server_with(&["figs_a", "figs_b"]).await;
    // The URLs reach oltpgen's built-in server (a throwaway one): keyed without its port (issue 35).
    let keys: Vec<String> = ["built-in/figs_a", "built-in/figs_b"].map(String::from).to_vec();
    load_all(&urls);
    let dir = tempfile::tempdir().unwrap();

    // Two 5 s steps at the default 10 s report interval, on two one-warehouse databases.
    let short = dir.path().join("short");
    let args =
        run_args(&urls, &["--users", "4,8", "--warmup", "1s", "--duration", "5s"], short.to_str().unwrap());
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(&short);
    assert_matches_schema(&r);
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for step in steps {
        // Each database alone has one warehouse: no remote share applies, to it or to the total.
        let per_db = step["target_audits"].as_object().unwrap();
        assert_eq!(per_db.keys().collect::<Vec<_>>(), keys.iter().collect::<Vec<_>>(), "{step}");
        for audit in per_db.values().chain([&step["audit"]]) {
            for name in ["remote order lines", "remote Payments"] {
                assert_eq!(check(audit, name)["verdict"], "not_applicable", "{name}: {audit}");
            }
            assert_eq!(check(audit, "warehouses with a user")["verdict"], "pass", "{audit}");
        }
        assert_eq!(check(&step["audit"], "warehouses with a user")["shown"], "100.00% (2/2)");
        // The step, shorter than the interval, was read at its edges: counters and a time-series point.
        let counters = step["counters"].as_object().unwrap();
        assert!(counters.keys().any(|k| k == "client/cpu_pct"), "the step's counters: {step}");
        let end = step["window"]["end_s"].as_f64().unwrap();
        let points = r["timeseries"].as_array().unwrap().iter().filter(|row| {
            let at = row["elapsed_s"].as_f64().unwrap();
            row["txn"] == "new_order" && (end..end + 1.0).contains(&at)
        });
        assert!(
            points.count() == 1,
            "a time-series point at the window's end ({end} s): {}",
            r["timeseries"]
        );
    }
    let csv = std::fs::read_to_string(short.join("timeseries.csv")).unwrap();
    assert!(csv.lines().count() > 1, "timeseries.csv has rows: {csv}");
    assert!(!out.stdout.contains("FLAG remote"), "{}", out.stdout);
    // The one headline, NOPM, at the run's end, its row marked.
    assert!(out.stdout.contains("max NOPM within cap avg=1s: "), "{}", out.stdout);
    assert!(!out.stdout.contains("max TPS"), "{}", out.stdout);
    assert_eq!(out.stdout.matches("← headline").count(), 1, "{}", out.stdout);
    let shown = oltpgen(&["report", "show", "--audit", short.to_str().unwrap()]);
    assert_eq!(shown.code, 0, "{}", shown.all());
    for key in &keys {
        assert!(shown.stdout.contains(&format!("audit of step 1 run 1 on {key} alone")), "{}", shown.stdout);
    }
    let headline = shown.stdout.lines().find(|l| l.starts_with("max NOPM within cap")).unwrap().to_string();
    assert_eq!(
        shown.stdout.matches(&headline).count(),
        2,
        "the same headline first and last: {}",
        shown.stdout
    );
    // A comparison of two such steps compares their counters, and says one run a side is no test.
    let compared = oltpgen(&["report", "compare", short.to_str().unwrap(), short.to_str().unwrap()]);
    assert_eq!(compared.code, 0, "{}", compared.all());
    assert!(compared.stdout.contains("client CPU %"), "{}", compared.stdout);
    assert!(compared.stdout.contains("caution: A holds one run and B one run"), "{}", compared.stdout);

    // The second database loses its sessions in step 1: it fails its own verdict, the first passes.
    let lost = dir.path().join("lost");
    let args = run_args(
        &urls,
        &["--users", "4,8", "--warmup", "1s", "--duration", "8s", "--report-interval", "1s"],
        lost.to_str().unwrap(),
    );
    let mut run = spawn(&args);
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    if run.try_wait().unwrap().is_some() {
        panic!("the run ended at once:\n{}", finish(run).all());
    }
    let (a_db, b_db) = ("figs_a", "figs_b");
    let client = sql(&pg.target("postgres")).await;
    // The run's sessions of the second database (a URL's sessions carry no application name), past the
    // 1 s warmup: inside step 1's window.
    let sessions = "FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() \
                    AND backend_type = 'client backend'";
    for _ in 0..600 {
        let n: i64 = client.query_one(&format!("SELECT count(*) {sessions}"), &[&b_db]).await.unwrap().get(0);
        if n >= 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let killed: i64 = client
        .query_one(&format!("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) {sessions}) k"), &[&b_db])
        .await
        .unwrap()
        .get(0);
    assert!(killed >= 4, "killed {killed} sessions of {b_db}");
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(&lost);
    assert_matches_schema(&r);
    let step = &r["steps"][0];
    let (a, b) = (&keys[0], &keys[1]);
    assert!(keys[0].ends_with(a_db) && keys[1].ends_with(b_db), "{keys:?}");
    assert!(step["targets"][b]["connections_lost"].as_u64().unwrap_or(0) > 0, "{}", step["targets"][b]);
    assert!(step["targets"][a].get("connections_lost").is_none(), "{} lost none", a);
    assert_eq!(step["target_caps"][a]["passed"], true, "{}", step["target_caps"][a]);
    let verdict = &step["target_caps"][b];
    assert_eq!(verdict["passed"], false, "{verdict}");
    assert!(verdict["invalid"].as_str().unwrap().contains("the server was unreachable"), "{verdict}");
    assert_eq!(step["cap"]["passed"], false, "the total includes the database that went away");
}
