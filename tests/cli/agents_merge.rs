//! Agents' parts merged into what one process gives (issue 35): each database's `--connections` as
//! asked when two agents drive two databases (counted in `pg_stat_activity` during the run, and in the
//! results), `--runs` with `--agent` refused, the merged steps' audit and counters (each agent's host
//! apart, the database's once) in result.json, counters.csv and report.html, a part that could not read
//! one counter merged; and a database of the built-in server keyed alike before and after a restart,
//! whichever port its URL names.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::agents::{PACE, from_now, merge_parts, path, run_args};
use crate::common::load_all;
use crate::common::server_with;
use crate::common::{assert_refused, data_dir, finish, oltpgen, result_json, sql};
use crate::study_common::spawn_env;

/// The run's user sessions on each database now: every client's but the asking one and the run's
/// counters' (`oltpgen counters`).
async fn sessions(client: &tokio_postgres::Client) -> BTreeMap<String, i64> {
    let rows = client
        .query(
            "SELECT datname::text, count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' \
             AND coalesce(application_name, '') <> 'oltpgen counters' AND pid <> pg_backend_pid() \
             AND datname IS NOT NULL GROUP BY datname",
            &[],
        )
        .await
        .unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn two_agents_on_two_databases_open_each_database_s_connections_as_asked() {
    let (pg, urls) = server_with(&["conn_a", "conn_b"]).await;
    load_all(&urls);
    let dir = tempfile::tempdir().unwrap();
    let parts: Vec<_> = (0..2).map(|i| dir.path().join(format!("agent{i}"))).collect();
    let start_at = from_now(6);
    // 16 users per database sharing 4 connections on each: user i is agent i mod 2's and database i
    // mod 2's, so each agent runs the users of one database, and takes all of that one's connections.
    let agent = |i: usize| {
        let name = format!("{i}/2");
        #[rustfmt::skip]
        let args = [
            "tpcc", "run", "--url", &urls[0], "--url", &urls[1], "--users", "16", "--connections", "4",
            "--agent", &name, "--start-at", &start_at, "--out", path(&parts[i]), "--think-time", "0",
            "--keying-time", "0", "--warmup", "1s", "--duration", "6s", "--report-interval", "1s",
            "--client-threads", "2", "-q",
        ];
        spawn_env(&args, &[])
    };
    let children = [agent(0), agent(1)];
    let observer = sql(&pg.target("postgres")).await;
    let mut most: BTreeMap<String, i64> = BTreeMap::new();
    // From 2 s after the start (the 1 s warmup, users flat out) to 6 s: the measured window.
    tokio::time::sleep(Duration::from_secs(8)).await;
    for _ in 0..20 {
        for (db, n) in sessions(&observer).await {
            let m = most.entry(db).or_default();
            *m = (*m).max(n);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for (i, child) in children.into_iter().enumerate() {
        let out = finish(child);
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
    }
    assert_eq!(
        (most.get("conn_a").copied(), most.get("conn_b").copied()),
        (Some(4), Some(4)),
        "each database's 4 connections, as one process opens them: {most:?}"
    );
    for (i, own) in ["built-in/conn_a", "built-in/conn_b"].iter().enumerate() {
        let step = &result_json(&parts[i])["steps"][0];
        assert_eq!(step["connections"], 4, "agent {i} opened its database's 4: {step}");
        assert_eq!(step["target_connections"][own], 4, "agent {i}: {}", step["target_connections"]);
    }
    let (_, m) = merge_parts(&[&parts[0], &parts[1]], &dir.path().join("merged"));
    let step = &m["steps"][0];
    assert_eq!(step["users"], 32);
    assert_eq!(step["connections"], 8, "4 on each of the two databases");
    assert_eq!(step["target_connections"], serde_json::json!({"built-in/conn_a": 4, "built-in/conn_b": 4}));

    // A study of several runs is not laid on one clock by the agents: refused until it is.
    let out = dir.path().join("runs");
    let later = from_now(60);
    let args = run_args(&urls[0], "16", &later, &out, &["--agent", "0/2", "--runs", "2"]);
    let refused = oltpgen(&args);
    assert_refused(&refused, "--runs 2 with --agent 0/2");
    assert!(
        refused.stderr.contains("run the agents once per run") && refused.stderr.contains("drop --agent")
    );
    assert!(!out.exists(), "nothing written for a refused run");
}

#[tokio::test(flavor = "multi_thread")]
async fn three_agents_merged_keep_the_audit_and_each_agent_s_counters() {
    let (_pg, url, dir, parts) = {
        let (pg, url) = crate::agents::loaded().await;
        let dir = tempfile::tempdir().unwrap();
        let parts: Vec<_> = (0..3).map(|i| dir.path().join(format!("agent{i}"))).collect();
        (pg, url, dir, parts)
    };
    let start_at = from_now(6);
    let children: Vec<_> = (0..3)
        .map(|i| {
            let name = format!("{i}/3");
            spawn_env(&run_args(&url, "6", &start_at, &parts[i], &["--agent", &name]), &[])
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = finish(child);
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
    }
    let merged_dir = dir.path().join("merged");
    let (_, m) = merge_parts(&[&parts[0], &parts[1], &parts[2]], &merged_dir);
    let audit = &m["steps"][0]["audit"];
    let counts = audit["counters"].as_object().expect("the merged step keeps its audit");
    assert!(!counts.is_empty());
    for (name, n) in counts {
        let sum: u64 = parts
            .iter()
            .map(|p| result_json(p)["steps"][0]["audit"]["counters"][name].as_u64().unwrap())
            .sum();
        assert_eq!(n.as_u64(), Some(sum), "{name}: every agent's count, summed");
    }
    let per_warehouse =
        audit["checks"].as_array().unwrap().iter().find(|c| c["name"] == "users per warehouse");
    assert_eq!(per_warehouse.unwrap()["shown"], "6.00", "judged again on the 6 users together");
    let show = oltpgen(&["report", "show", "--audit", path(&merged_dir)]);
    assert_eq!(show.code, 0, "{}", show.all());
    assert!(show.stdout.contains("New-Order rollbacks"), "the audit is shown: {}", show.stdout);

    // Each agent's host counters apart, labelled by agent; the database's once.
    let csv = std::fs::read_to_string(merged_dir.join("counters.csv")).unwrap();
    let rows =
        |source: &str, name: &str| csv.lines().filter(|l| l.contains(&format!(",{source},{name},"))).count();
    for i in 0..3 {
        assert!(rows(&format!("client@agent{i}"), "cpu_pct") > 0, "agent {i}'s host: {csv}");
    }
    assert_eq!(rows("client", "cpu_pct"), 0, "no host counter without its agent");
    let part_csv = std::fs::read_to_string(parts[0].join("counters.csv")).unwrap();
    let db_rows =
        |text: &str| text.lines().filter(|l| l.contains(",db:built-in/tpcc,commits_per_s,")).count();
    assert!(db_rows(&part_csv) > 0, "{part_csv}");
    assert_eq!(db_rows(&csv), db_rows(&part_csv), "the database's counters once");
    let step_keys: Vec<&String> = m["steps"][0]["counters"].as_object().unwrap().keys().collect();
    assert!(step_keys.iter().any(|k| k.as_str() == "client@agent2/cpu_pct"), "{step_keys:?}");
    let html = std::fs::read_to_string(merged_dir.join("report.html")).unwrap();
    for i in 0..3 {
        assert!(html.contains(&format!("client@agent{i}")), "report.html names agent {i}'s host");
    }
    assert!(!html.contains("client, client"), "no counter drawn once per agent unnamed");
    assert!(html.contains("New-Order rollbacks"), "report.html has the audit");

    // One agent could not read a counter: its part is still of the plan, and the merge names it.
    let short = dir.path().join("short");
    std::fs::create_dir(&short).unwrap();
    let mut one = result_json(&parts[1]);
    one["config"]["counters_unavailable"] = serde_json::json!(["node:http://127.0.0.1:9/metrics: no answer"]);
    std::fs::write(short.join("result.json"), one.to_string()).unwrap();
    let (_, m) = merge_parts(&[&parts[0], &short, &parts[2]], &dir.path().join("merged2"));
    assert_eq!(
        m["config"]["counters_unavailable"],
        serde_json::json!(["agent 1/3: node:http://127.0.0.1:9/metrics: no answer"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_built_in_database_is_keyed_alike_before_and_after_a_restart() {
    let (keep, root) = data_dir();
    let local = |args: &[&str]| {
        let out = oltpgen(&[args, &["--data-dir", root.as_str()][..]].concat());
        assert_eq!(out.code, 0, "{}", out.all());
        out.stdout.trim().to_string()
    };
    local(&["local", "start"]);
    let url = local(&["local", "url"]);
    // A second database on the server, through the URL `local url` gave (its password file).
    let psql = std::process::Command::new("/usr/lib/postgresql/15/bin/psql")
        .args([&url, "-Atc", "CREATE DATABASE tpcc_two"])
        .output()
        .unwrap();
    assert!(psql.status.success(), "{psql:?}");
    let urls = |url: &str| [url.to_string(), url.replace("/tpcc?", "/tpcc_two?")];
    load_all(&urls(&url));
    let run = |url: &str, out: &Path| {
        let [a, b] = urls(url);
        let mut args = vec!["tpcc", "run", "--url", &a, "--url", &b, "--users", "2", "--out", path(out)];
        args.extend(PACE);
        let ran = oltpgen(&args);
        assert_eq!(ran.code, 0, "{}", ran.all());
        let r = result_json(out);
        let keys: Vec<&str> = r["targets"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(keys, ["built-in/tpcc", "built-in/tpcc_two"], "keyed without the port of {url}");
    };
    let before = keep.path().join("before");
    run(&url, &before);
    local(&["local", "stop"]);
    local(&["local", "start"]);
    let restarted = local(&["local", "url"]);
    let after = keep.path().join("after");
    run(&restarted, &after);
    let compare = oltpgen(&["report", "compare", path(&before), path(&after)]);
    assert_eq!(compare.code, 0, "{}", compare.all());
    assert!(!compare.stdout.contains("in only one result"), "{}", compare.stdout);
    assert!(compare.stdout.contains("  built-in/tpcc_two TPS"), "each database compared: {}", compare.stdout);
    local(&["local", "stop"]);
}
