//! A load in parts (issue 44): `--begin` creates the tables and the plan, each `--agent I/N` loads its
//! part (two databases at once, as `run` takes them), `--finish` builds the keys once every part is
//! in, refusing (naming the part) while one is missing and carrying itself on when killed; the rows are
//! those of a load in one process, and `tpcc check` passes.

use std::time::{Duration, Instant};

use crate::checksums;
use crate::common::{assert_refused, oltpgen, spawn, sql};

#[tokio::test(flavor = "multi_thread")]
async fn a_load_in_parts_over_two_databases_equals_one_load_and_its_finish_waits_for_every_part() {
    let names = ["whole", "a", "b"];
    let (pg, urls) = crate::common::server_with(&names).await;
    let out = oltpgen(&["tpcc", "load", "--scale", "3", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let sums = checksums::pg(&sql(&pg.target("whole")).await).await;
    let both = ["--url", &urls[1], "--url", &urls[2]];
    let step =
        |flags: &[&str]| oltpgen(&[&["tpcc", "load", "--scale", "3", "-q"][..], &both, flags].concat());

    let out = step(&["--begin", "--parts", "3"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("began tpcc scale 3 in 3 parts"), "{}", out.stdout);
    for part in ["0/3", "2/3"] {
        let out = step(&["--agent", part]);
        assert_eq!(out.code, 0, "{}", out.all());
        assert!(out.stdout.contains(&format!("loaded part {part} of tpcc scale 3")), "{}", out.stdout);
    }
    let out = step(&["--finish"]);
    assert_refused(&out, "part 1/3 (");
    assert!(!out.stderr.contains("part 0/3") && !out.stderr.contains("part 2/3"), "{}", out.stderr);
    assert_refused(&step(&["--agent", "1/2"]), "was begun in 3 parts: give --agent I/3");
    // A run refuses the half-loaded database.
    let out = oltpgen(&["tpcc", "check", "--url", &urls[1]]);
    assert_eq!(out.code, 2, "{}", out.all());

    let out = step(&["--agent", "1/3"]);
    assert_eq!(out.code, 0, "{}", out.all());
    // The finish killed while it builds the keys, then run again.
    let client = sql(&pg.target("a")).await;
    let mut finish = spawn(&["tpcc", "load", "--scale", "3", "--url", &urls[1], "--finish", "-q"]);
    let building = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND datname = 'a' \
                    AND (query LIKE 'ALTER TABLE%' OR query LIKE 'CREATE INDEX%')";
    let started = Instant::now();
    while client.query_one(building, &[]).await.unwrap().get::<_, i64>(0) == 0 {
        assert!(finish.try_wait().unwrap().is_none(), "the finish ended before it built keys");
        assert!(started.elapsed() < Duration::from_secs(300), "never built keys");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    finish.kill().unwrap();
    finish.wait().unwrap();
    let out = step(&["--finish"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("finished tpcc scale 3 in "), "{}", out.stdout);
    for name in ["a", "b"] {
        let client = sql(&pg.target(name)).await;
        assert_eq!(checksums::pg(&client).await, sums, "{name}: the rows of one load");
        let gone = "SELECT to_regclass('oltpgen_parts') IS NULL AND to_regclass('oltpgen_chunks') IS NULL";
        assert!(client.query_one(gone, &[]).await.unwrap().get::<_, bool>(0), "{name}: the plan is gone");
    }
    let out = oltpgen(&["tpcc", "check", "--url", &urls[1], "--url", &urls[2]]);
    assert_eq!(out.code, 0, "{}", out.all());
    // Once whole, no step touches it.
    assert_refused(&step(&["--agent", "0/3"]), "which --agent never touches");
}

/// `deploy/kubernetes/`'s load Jobs (begin, the Indexed parts, finish), read as `agents.yaml` is and
/// their commands run here in order, each pod with its `JOB_COMPLETION_INDEX`: the database they load
/// passes `tpcc check`.
#[tokio::test(flavor = "multi_thread")]
async fn the_kubernetes_load_jobs_run_as_their_pods_load_a_database_check_passes() {
    use crate::agents::Manifest;
    let (_pg, urls) = crate::common::server_with(&["k8s"]).await;
    let (begin, parts, finish) = (
        Manifest::read("load-begin.yaml"),
        Manifest::read("load-parts.yaml"),
        Manifest::read("load-finish.yaml"),
    );
    let planned = begin
        .args
        .iter()
        .position(|a| a == "--parts")
        .map(|i| begin.args[i + 1].trim_matches('"').to_string());
    let agents = parts.env.iter().find(|(name, _)| name == "OLTPGEN_AGENTS").unwrap().1.clone();
    assert_eq!(planned.as_deref(), Some(agents.as_str()), "the plan's parts are the Indexed Job's agents");
    assert_eq!(parts.scalar("completions"), agents, "one pod per part");
    assert_eq!(parts.scalar("completionMode"), "Indexed");
    let volume = tempfile::tempdir().unwrap();
    let local = |a: &str| match a.trim_matches('"') {
        "postgres://bench@db1:5432/tpcc" => Some(urls[0].clone()),
        "5000" => Some("2".to_string()),
        other => Some(other.to_string()),
    };
    let run = |job: &Manifest, env: &[(&str, &str)]| {
        let args = job.pod_args(env, ("/results", volume.path()), &local);
        let out = crate::common::oltpgen_env(&args.iter().map(String::as_str).collect::<Vec<_>>(), env);
        assert_eq!(out.code, 0, "{args:?}: {}", out.all());
        out
    };
    run(&begin, &[]);
    for i in 0..agents.parse::<u32>().unwrap() {
        let index = i.to_string();
        let out = run(&parts, &[("JOB_COMPLETION_INDEX", &index), ("OLTPGEN_AGENTS", &agents)]);
        assert!(out.stdout.contains(&format!("loaded part {i}/{agents}")), "{}", out.stdout);
    }
    run(&finish, &[]);
    let out = oltpgen(&["tpcc", "check", "--url", &urls[0]]);
    assert_eq!(out.code, 0, "{}", out.all());
}

/// The disk check before a load into a server named by `--url` (here on this machine, whose data
/// directory's disk is read): every part, the keys and the WAL counted, a load that cannot fit
/// refused before a table is created, whole or at its `--begin`.
#[tokio::test(flavor = "multi_thread")]
async fn a_url_load_the_servers_disk_cannot_hold_is_refused_before_it_starts() {
    let (pg, urls) = crate::common::server_with(&["huge"]).await;
    for step in [&[][..], &["--begin", "--parts", "4"]] {
        let out =
            oltpgen(&[&["tpcc", "load", "--scale", "100000", "--url", &urls[0], "-q"][..], step].concat());
        assert_refused(
            &out,
            "this load needs about 13.1 TB (every part's tables, the keys and indexes, and WAL)",
        );
        assert!(out.stderr.contains("disk, which has "), "{}", out.stderr);
    }
    let client = sql(&pg.target("huge")).await;
    let tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'";
    assert_eq!(client.query_one(tables, &[]).await.unwrap().get::<_, i64>(0), 0, "nothing was created");
}
