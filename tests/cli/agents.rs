//! One plan from several client machines (issue 25): N local `oltpgen tpcc run` processes, each told its
//! share in one flavour (`--agent I/N`, Kubernetes' `JOB_COMPLETION_INDEX` with `OLTPGEN_AGENTS`,
//! Slurm's `SLURM_PROCID` and `SLURM_NTASKS`), on one clock (`--start-at`, or `OLTPGEN_START_AT`),
//! against one throwaway PostgreSQL database; `report merge` of their parts, and its refusals of a part
//! missing, given twice or of another plan; an agent killed mid-run leaves its steps INVALID in the
//! merge; and the refusals of what agents cannot share, each in one line.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, SystemTime};

use crate::common::server_with;
use crate::common::{
    Outcome, assert_matches_schema, assert_refused, finish, oltpgen, oltpgen_env, result_json,
};
use crate::study_common::spawn_env;

/// Flat out, one client thread each, 1 s of warmup, 3 s measured per step.
#[rustfmt::skip]
pub(crate) const PACE: [&str; 13] = [
    "--think-time", "0", "--keying-time", "0", "--warmup", "1s", "--duration", "3s",
    "--report-interval", "1s", "--client-threads", "1", "-q",
];

/// `secs` from now in RFC 3339.
pub(crate) fn from_now(secs: u64) -> String {
    humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_secs(secs)).to_string()
}

/// Loads TPC-C at scale 1 into a new database on a throwaway server; returns the server and the URL.
pub(crate) async fn loaded() -> (oltpgen_driver::local::LocalPg, String) {
    let (pg, urls) = server_with(&["tpcc"]).await;
    crate::common::load_all(&urls);
    (pg, urls[0].clone())
}

/// `report merge` of `parts` into `out`, which must succeed: its output and the merged result.
pub(crate) fn merge_parts(parts: &[&Path], out: &Path) -> (Outcome, serde_json::Value) {
    let mut args = vec!["report", "merge"];
    args.extend(parts.iter().map(|p| path(p)));
    args.extend(["--out", path(out)]);
    let merged = oltpgen(&args);
    assert_eq!(merged.code, 0, "{}", merged.all());
    let result = result_json(out);
    assert_matches_schema(&result);
    (merged, result)
}

/// `tpcc run` of `users` on `url` into `out`, at `start_at`, with `extra` flags.
pub(crate) fn run_args<'a>(
    url: &'a str,
    users: &'a str,
    start_at: &'a str,
    out: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["tpcc", "run", "--url", url, "--users", users, "--out", out.to_str().unwrap()];
    args.extend(PACE);
    if !start_at.is_empty() {
        args.extend(["--start-at", start_at]);
    }
    args.extend_from_slice(extra);
    args
}

pub(crate) fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A loaded database's server and URL, a scratch directory, and the result directories of `n` agents.
async fn agents_of(n: usize) -> (oltpgen_driver::local::LocalPg, String, tempfile::TempDir, Vec<PathBuf>) {
    let (pg, url) = loaded().await;
    let dir = tempfile::tempdir().unwrap();
    let parts = (0..n).map(|i| dir.path().join(format!("agent{i}"))).collect();
    (pg, url, dir, parts)
}

#[tokio::test(flavor = "multi_thread")]
async fn three_agents_in_each_flavour_merge_into_the_run_one_process_would_make() {
    let (_pg, url, dir, parts) = agents_of(3).await;
    let start_at = from_now(6);
    // Agent 0 by the flag, agent 1 as a Kubernetes Indexed Job's pod, agent 2 as an srun task (its start
    // from the environment).
    let children = vec![
        spawn_env(&run_args(&url, "6", &start_at, &parts[0], &["--agent", "0/3"]), &[]),
        spawn_env(
            &run_args(&url, "6", &start_at, &parts[1], &[]),
            &[("OLTPGEN_AGENT", "auto"), ("JOB_COMPLETION_INDEX", "1"), ("OLTPGEN_AGENTS", "3")],
        ),
        spawn_env(
            &run_args(&url, "6", "", &parts[2], &["--agent", "auto"]),
            &[("SLURM_PROCID", "2"), ("SLURM_NTASKS", "3"), ("OLTPGEN_START_AT", &start_at)],
        ),
    ];
    let mut counts = 0;
    let mut seeds = Vec::new();
    for (i, child) in children.into_iter().enumerate() {
        let out = finish(child);
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
        let r = result_json(&parts[i]);
        assert_matches_schema(&r);
        assert_eq!(r["config"]["agent"], format!("{i}/3"));
        assert_eq!(r["steps"][0]["users"], 2, "agent {i} runs its share of the 6 users");
        let late = r["config"]["start_late_ms"].as_f64().unwrap();
        assert!(late < 50.0, "agent {i} was ready before the common start: {late} ms late");
        let offset = r["config"]["clock_offset_ms"].as_f64().unwrap();
        assert!(offset.abs() < 1_000.0, "the server's clock, on this machine, is this machine's: {offset}");
        counts += r["steps"][0]["transactions"]["new_order"]["count"].as_u64().unwrap();
        seeds.push(r["config"]["seed"].clone());
    }
    assert!(seeds.iter().all(|s| *s == seeds[0]), "one run seed for every agent: {seeds:?}");

    let (_, m) = merge_parts(&[&parts[2], &parts[0], &parts[1]], &dir.path().join("merged"));
    let step = &m["steps"][0];
    assert_eq!(step["users"], 6, "the agents' users together");
    assert_eq!(step["transactions"]["new_order"]["count"], counts, "every part's New-Orders, once");
    assert_eq!(m["config"]["agents"], 3);
    assert!(m["config"].get("agent").is_none(), "the merge is no agent's part");
    assert_eq!(m["max_within_cap"]["users"], 6, "the cap judged again on the merged figures");

    // A part missing, given twice, or of another plan is refused naming it.
    let merge = |parts: &[&Path]| {
        let mut args = vec!["report", "merge"];
        args.extend(parts.iter().map(|p| path(p)));
        let out_dir = dir.path().join("refused");
        let out_dir = out_dir.to_str().unwrap().to_string();
        oltpgen(&[&args[..], &["--out", &out_dir]].concat())
    };
    assert_refused(&merge(&[&parts[0], &parts[2]]), "agent 1/3's part is missing");
    assert_refused(&merge(&[&parts[0], &parts[0], &parts[1], &parts[2]]), "both agent 0/3's part");
    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    let mut other = result_json(&parts[1]);
    other["config"]["start_at"] = from_now(60).into();
    std::fs::write(foreign.join("result.json"), other.to_string()).unwrap();
    assert_refused(
        &merge(&[&parts[0], &foreign, &parts[2]]),
        "is a part of another plan: its config.start_at",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_killed_mid_run_leaves_its_steps_invalid_in_the_merge() {
    let (_pg, url, dir, parts) = agents_of(2).await;
    let start_at = from_now(5);
    let agent = |i: usize| {
        let name = format!("{i}/2");
        spawn_env(&run_args(&url, "2,4", &start_at, &parts[i], &["--agent", &name]), &[])
    };
    let (whole, killed) = (agent(0), agent(1));
    // Step 1 measures 1..4 s after the start, step 2 from 5 s: agent 1 is stopped during step 2.
    std::thread::sleep(Duration::from_secs(5 + 6));
    let status = Command::new("kill").args(["-TERM", &killed.id().to_string()]).status().unwrap();
    assert!(status.success());
    let killed = finish(killed);
    assert_ne!(killed.code, 0, "{}", killed.all());
    let whole = finish(whole);
    assert_eq!(whole.code, 0, "{}", whole.all());
    assert_eq!(result_json(&parts[1])["interrupted"], true);

    let (out, m) = merge_parts(&[&parts[0], &parts[1]], &dir.path().join("merged"));
    assert_eq!(m["steps"][0]["cap"]["passed"], true, "both agents measured step 1");
    assert!(
        m["steps"][1]["cap"]["invalid"].is_string(),
        "step 2 had a part cut short: {}",
        m["steps"][1]["cap"]
    );
    assert_eq!(m["steps"][1]["cap"]["passed"], false);
    assert_eq!(m["max_within_cap"]["step_index"], 0, "never a pass with a part missing");
    assert!(out.stdout.contains("INVALID"), "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn what_agents_cannot_share_is_refused_in_one_line() {
    let (_pg, url) = loaded().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let refused = |args: &[&str], env: &[(&str, &str)], needle: &str| {
        assert_refused(&oltpgen_env(args, env), needle);
        assert!(!out.exists(), "nothing written for a refused run");
    };
    let later = from_now(30);
    refused(&run_args(&url, "6", "", &out, &["--agent", "1/3"]), &[], "give them one clock with --start-at");
    refused(&run_args(&url, "2", &later, &out, &["--agent", "2/3"]), &[], "--agent 2/3 has no user");
    refused(
        &run_args(&url, "6", &later, &out, &["--agent", "0/3", "--connections", "2"]),
        &[],
        "give at least --connections 3",
    );
    refused(
        &run_args(&url, "6", &later, &out, &["--agent", "auto"]),
        &[],
        "--agent auto: neither JOB_COMPLETION_INDEX",
    );
    refused(&run_args(&url, "6", &later, &out, &[]), &[("OLTPGEN_AGENT", "3/3")], "OLTPGEN_AGENT 3/3");
    refused(&run_args(&url, "6", "soon", &out, &[]), &[], "--start-at soon: give an RFC 3339 time");
    let bare = ["tpcc", "--temp-db", "--agent", "0/2", "--start-at", &later, "--out", path(&out)];
    refused(&bare, &[], "agents drive databases already loaded");
    let builtin = [
        "tpcc",
        "run",
        "--data-dir",
        path(dir.path()),
        "--agent",
        "0/2",
        "--start-at",
        &later,
        "--out",
        path(&out),
    ];
    refused(&builtin, &[], "the built-in PostgreSQL is each machine's own");
    // Ready after the common start by more than the warmup: refused before any user starts.
    let past = humantime::format_rfc3339(SystemTime::now() - Duration::from_secs(60)).to_string();
    refused(&run_args(&url, "6", &past, &out, &["--agent", "0/3"]), &[], "later than the 1.0 s warmup");
}

/// What a test reads of one of `deploy/kubernetes/`'s manifests, line by line (they are validated
/// offline with kubernetes-validate; their commands are what run here): its container's `args`, its
/// `env` values, and every other `key: value` line by key (the last of each).
pub(crate) struct Manifest {
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    scalars: std::collections::BTreeMap<String, String>,
}

impl Manifest {
    pub(crate) fn read(name: &str) -> Manifest {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes").join(name);
        let text = std::fs::read_to_string(file).unwrap();
        let (mut args, mut env, mut scalars, mut section) = (Vec::new(), Vec::new(), Default::default(), "");
        let mut name = String::new();
        for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
            let trimmed = line.trim();
            match trimmed {
                "args:" => section = "args",
                "env:" => section = "env",
                _ if !trimmed.starts_with('-')
                    && !trimmed.starts_with("value")
                    && !trimmed.starts_with("name") =>
                {
                    section = ""
                }
                _ => {}
            }
            match (section, trimmed) {
                ("args", t) if t.starts_with("- ") => args.push(t[2..].to_string()),
                ("env", t) if t.starts_with("- name: ") => name = t["- name: ".len()..].to_string(),
                ("env", t) if t.starts_with("value: ") => {
                    env.push((name.clone(), t["value: ".len()..].trim_matches('"').to_string()))
                }
                _ => {}
            }
            let scalar = trimmed.trim_start_matches("- ").split_once(": ");
            if let Some((key, value)) = scalar.filter(|(_, v)| !v.is_empty()) {
                let map: &mut std::collections::BTreeMap<String, String> = &mut scalars;
                map.insert(key.to_string(), value.trim_matches('"').to_string());
            }
        }
        Manifest { args, env, scalars }
    }

    pub(crate) fn scalar(&self, key: &str) -> &str {
        self.scalars.get(key).unwrap_or_else(|| panic!("{key} in the manifest: {:?}", self.scalars))
    }

    /// The args as the pod runs them: `$(VAR)` expanded from `env` as Kubernetes expands them, the
    /// volume's mount (`mount`) at `volume`, and `local` for the names of the cluster.
    pub(crate) fn pod_args(
        &self,
        env: &[(&str, &str)],
        (mount, volume): (&str, &Path),
        local: &dyn Fn(&str) -> Option<String>,
    ) -> Vec<String> {
        self.args
            .iter()
            .map(|a| {
                let mut arg = a.clone();
                for (var, value) in env {
                    arg = arg.replace(&format!("$({var})"), value);
                }
                assert!(!arg.contains("$("), "every variable of {a} is the pod's: {arg}");
                match arg.strip_prefix(mount) {
                    Some(rest) => format!("{}{rest}", volume.display()),
                    None => local(&arg).unwrap_or(arg),
                }
            })
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_kubernetes_jobs_run_as_their_indexed_pods_and_merge_would() {
    let (_pg, url, dir, _) = agents_of(0).await;
    let (agents_job, merge_job) = (Manifest::read("agents.yaml"), Manifest::read("merge.yaml"));
    assert_eq!(&agents_job.args[..4], ["tpcc", "run", "--agent", "auto"], "{:?}", agents_job.args);
    let var = |k: &str| agents_job.env.iter().find(|(name, _)| name == k).unwrap().1.clone();
    let agents: usize = var("OLTPGEN_AGENTS").parse().unwrap();
    assert_eq!(agents_job.scalar("completionMode"), "Indexed");
    assert_eq!(
        agents_job.scalar("completions"),
        agents.to_string(),
        "one pod per agent, OLTPGEN_AGENTS of them"
    );
    assert_eq!(agents_job.scalar("parallelism"), agents.to_string(), "every agent at once, on one clock");
    assert_eq!(agents_job.scalar("backoffLimitPerIndex"), "0", "a failed pod's part stays missing");
    // Both jobs mount the one volume at one path: the agents' parts are where the merge reads them.
    let mount = agents_job.scalar("mountPath");
    assert_eq!(merge_job.scalar("mountPath"), mount);
    assert_eq!(merge_job.scalar("claimName"), agents_job.scalar("claimName"));
    let volume = dir.path().join("volume");
    std::fs::create_dir(&volume).unwrap();
    let (start_at, count) = (from_now(6), var("OLTPGEN_AGENTS"));
    let children: Vec<Child> = (0..agents)
        .map(|i| {
            let index = i.to_string();
            let env = [
                ("JOB_COMPLETION_INDEX", index.as_str()),
                ("OLTPGEN_AGENTS", count.as_str()),
                ("OLTPGEN_START_AT", start_at.as_str()),
            ];
            // The manifest's command, its cluster's names made local, its measured time cut short.
            let local = |a: &str| match a {
                "postgres://bench@db1:5432/tpcc" => Some(url.clone()),
                "100..400:100" => Some("3,6".into()),
                "5m" => Some("2s".into()),
                "0.0.0.0:9187" => Some(format!("127.0.0.1:{}", 19_187 + i)),
                _ => None,
            };
            let args: Vec<String> = agents_job
                .pod_args(&env, (mount, &volume), &local)
                .into_iter()
                .chain(PACE[..6].iter().map(|s| s.to_string()))
                .collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            spawn_env(&args, &env)
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = finish(child);
        assert_eq!(out.code, 0, "pod {i}: {}", out.all());
        let part = volume.join(format!("agent-{i}"));
        assert_eq!(result_json(&part)["config"]["agent"], format!("{i}/{agents}"), "pod {i}'s own part");
    }
    // The merge job's command, on the same volume: every pod's part, once.
    let merge_args = merge_job.pod_args(&[], (mount, &volume), &|_| None);
    let parts: Vec<&String> = merge_args.iter().filter(|a| a.contains("/agent-")).collect();
    assert_eq!(parts.len(), agents, "the merge names every agent's part: {merge_args:?}");
    let merge_args: Vec<&str> = merge_args.iter().map(String::as_str).collect();
    let merged = oltpgen(&merge_args);
    assert_eq!(merged.code, 0, "{}", merged.all());
    let m = result_json(&volume.join("merged"));
    assert_eq!(m["config"]["agents"], agents);
    assert_eq!((m["steps"][0]["users"].clone(), m["steps"][1]["users"].clone()), (3.into(), 6.into()));
}

#[tokio::test(flavor = "multi_thread")]
async fn two_ds2_agents_merge_into_one_run() {
    let (_pg, urls) = server_with(&["ds2"]).await;
    let out = oltpgen(&["ds2", "load", "--db-size", "10mb", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let dir = tempfile::tempdir().unwrap();
    let parts: Vec<PathBuf> = (0..2).map(|i| dir.path().join(format!("agent{i}"))).collect();
    let start_at = from_now(5);
    let agent = |i: usize| {
        let name = format!("{i}/2");
        let mut args =
            vec!["ds2", "run", "--url", &urls[0], "--run-time", "3s", "-q", "--out", path(&parts[i])];
        args.extend(crate::ds2::QUICK);
        args.extend(["--agent", &name, "--start-at", &start_at]);
        spawn_env(&args, &[])
    };
    let children = [agent(0), agent(1)];
    for (i, child) in children.into_iter().enumerate() {
        let out = finish(child);
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
        assert_eq!(result_json(&parts[i])["steps"][0]["users"], 2, "its 2 of the 4 users");
    }
    let (_, m) = merge_parts(&[&parts[0], &parts[1]], &dir.path().join("merged"));
    assert_eq!(m["workload"], "ds2");
    assert_eq!(m["steps"][0]["users"], 4);
    let orders = |r: &serde_json::Value| r["steps"][0]["transactions"]["order"]["count"].as_u64().unwrap();
    assert_eq!(orders(&m), parts.iter().map(|p| orders(&result_json(p))).sum::<u64>());
}
