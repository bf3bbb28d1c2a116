//! pgbench's scripts beyond one process and one server: `:client_id` unique across agents (0..N-1, as
//! pgbench's clients number themselves), and TPC-B's invariant on a standby promoted mid-run.

use crate::agents::{from_now, path};
use crate::common::server_with;
use crate::common::{finish, oltpgen, result_json, spawn, sql};
use crate::pair::Pair;

#[tokio::test(flavor = "multi_thread")]
async fn client_ids_are_unique_across_agents_and_number_the_users_from_0() {
    let (server, urls) = server_with(&["ids"]).await;
    let client = sql(&server.target("ids")).await;
    client.batch_execute("CREATE TABLE ids (agent text, client_id int)").await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ids.sql");
    std::fs::write(&script, "INSERT INTO ids VALUES (:agent, :client_id);\n").unwrap();
    let start_at = from_now(6);
    let parts: Vec<_> = (0..2).map(|i| dir.path().join(format!("agent{i}"))).collect();
    let agent = |i: usize| {
        let (name, tag) = (format!("{i}/2"), format!("agent={i}"));
        #[rustfmt::skip]
        let args = [
            "custom", "run", "--url", &urls[0], "--users", "5", "--pgbench-script", path(&script),
            "-D", &tag, "--agent", &name, "--start-at", &start_at, "--out", path(&parts[i]),
            "--warmup", "0s", "--duration", "2s", "-q",
        ];
        spawn(&args)
    };
    let children = [agent(0), agent(1)];
    for (i, child) in children.into_iter().enumerate() {
        let out = finish(child);
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
    }
    let rows = client
        .query("SELECT DISTINCT agent, client_id FROM ids ORDER BY client_id, agent", &[])
        .await
        .unwrap();
    let seen: Vec<(String, i32)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let ids: Vec<i32> = seen.iter().map(|s| s.1).collect();
    assert_eq!(ids, (0..5).collect::<Vec<_>>(), "each user one id, 0..4 as pgbench -c 5 gives: {seen:?}");
    // Each agent ran users of its own (two and three of the five), none of the other's.
    for a in ["0", "1"] {
        let n = seen.iter().filter(|s| s.0 == a).count();
        assert!((2..=3).contains(&n), "agent {a}: {seen:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tpcb_invariant_holds_on_the_standby_promoted_mid_run() {
    let pair = Pair::start(false);
    pair.load("tpcb", &["--scale", "1"]);
    let out_dir = pair.dir().join("result");
    let (url, cmd) = (pair.url("tpcb"), pair.fail_over_cmd("true"));
    #[rustfmt::skip]
    let args: Vec<String> = [
        "tpcb", "run", "--url", &url, "--out", path(&out_dir), "--users", "4", "--warmup", "1s",
        "--duration", "25s", "--report-interval", "5s", "--fault-at", "10s", "--fault-cmd", &cmd,
    ]
    .map(String::from)
    .to_vec();
    let out = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        finish(spawn(&args))
    })
    .await
    .unwrap();
    let r = result_json(&out_dir);
    let outages =
        r["outages"].as_array().unwrap_or_else(|| panic!("no outage in the result:\n{}", out.all()));
    assert_eq!(outages.len(), 1, "{outages:?}");
    assert!(outages[0]["committed_again_s"].as_f64().is_some(), "never committed again: {}", out.all());
    let standby = format!("127.0.0.1:{}", pair.ports[1]);
    assert!(out.stdout.contains(&format!("served by {standby} from ")), "{}", out.all());
    // The new primary holds whole transactions only: the four sums agree, with work done on it.
    let check = oltpgen(&["tpcb", "check", "--url", &pair.url_of(1, "tpcb")]);
    assert_eq!(check.code, 0, "{}", check.all());
    let target: oltpgen_driver::Target = oltpgen_driver::engine::parse_url(&pair.url_of(1, "tpcb")).unwrap();
    let client = sql(&target).await;
    let history: i64 = client.query_one("SELECT count(*) FROM pgbench_history", &[]).await.unwrap().get(0);
    assert!(history > 0, "the run's transactions are on the new primary");
}
