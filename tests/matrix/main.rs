//! The combination matrix of the study's features (issue 35): each cell combines several of them in one
//! TPC-C study at scale 1 and either is refused in one line (exit 2, naming both flags and what to do
//! instead) or holds every invariant below. Every pair of the seven features is in at least one
//! PostgreSQL cell; MariaDB and SQL Server (Babelfish, `OLTPGEN_TEST_MSSQL_URL`) run the cells without
//! a fault.
//!
//! Features: `dbs` two databases (two `--url`); `agents` two agents under the environment contract
//! (agent 0 by `OLTPGEN_AGENT=0/2`, agent 1 by `--agent auto` with `JOB_COMPLETION_INDEX=1` and
//! `OLTPGEN_AGENTS=2`), merged by `report merge`; `runs` `--runs 2 --restore`; `idle` `--idle-sample 2s`;
//! `meters` `--power-log server=F1 --power-log storage=F2` (logs the test writes) with `--system-cost`;
//! `sync` a failover to a synchronous standby by `--fault-cmd`; `async` a failover to a standby held
//! back, which loses acknowledged commits.
//!
//! ```text
//! cell                      engine   dbs agents runs idle meters sync async  expected
//! pg_agents_dbs_idle_meters pg        x    x          x    x                 holds
//! pg_agents_runs            pg        x    x     x    x    x                 refused (--agent, --runs/--restore)
//! pg_agents_sync            pg        x    x               x     x           refused (--agent, --fault-cmd)
//! pg_agents_async           pg        x    x               x           x     refused (--agent, --fault-cmd)
//! pg_runs_sync              pg        x          x    x    x     x           holds
//! pg_runs_async             pg        x          x    x    x           x     holds
//! pg_sync_and_async         pg        x               x    x     x     x     holds (one database on each pair)
//! mariadb_agents            mariadb   x    x          x    x                 holds
//! mariadb_runs              mariadb   x          x    x    x                 holds
//! mariadb_agents_runs       mariadb   x    x     x    x    x                 refused (--agent, --runs/--restore)
//! mssql_agents              mssql     x    x          x    x                 holds
//! mssql_runs                mssql     x          x    x    x                 holds
//! mssql_agents_runs         mssql     x    x     x    x    x                 refused (--agent, --runs/--restore)
//! ```
//!
//! The pairs, PostgreSQL: dbs×{all} in every cell; agents×idle, agents×meters, idle×meters in
//! `pg_agents_dbs_idle_meters`; agents×runs, agents×sync, agents×async refused; runs×idle, runs×meters,
//! runs×sync, idle×sync, meters×sync in `pg_runs_sync`; runs×async, idle×async, meters×async in
//! `pg_runs_async`; sync×async in `pg_sync_and_async` (each database on a pair of its own, one
//! `--fault-cmd` failing both over).
//!
//! The invariants of a cell that holds: the (merged) result is one process's plan (users and
//! connections per database as asked — the agents' sessions counted on PostgreSQL's server; MariaDB's and
//! SQL Server's counters' sessions cannot be told from the users' there —, agents' transactions and
//! histograms summed, headline, power and cost from the median run); acknowledged commits lost are 0
//! where nothing was lost and the test's own count (orders the old primary holds that the new one lacks,
//! less at most one in flight per user) where the held-back standby lost some; nothing unmeasured reads
//! 0 (meters, a lost-commit comparison wherever connections were lost, the merged audit and counters);
//! every restored run starts from the loaded rows, table by table (checksums taken while a hook holds
//! the run at its start).

#[allow(dead_code)]
#[path = "../cli/checksums.rs"]
mod checksums;
#[allow(dead_code)]
#[path = "../cli/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../cli/mariadb_common.rs"]
mod mariadb_common;
#[allow(dead_code)]
#[path = "../cli/pair.rs"]
mod pair;
#[path = "../cli/study_common.rs"]
mod study_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use checksums::Checksums;
use common::{Outcome, assert_matches_schema, finish, oltpgen, result_json};
use mariadb_common::MariaDb;
use oltpgen_report::model::histogram::LatencyHistogram;
use pair::{Pair, run_orders};
use study_common::{meters, spawn_env};

/// The databases' names in every cell.
const DBS: [&str; 2] = ["matrix_a", "matrix_b"];
/// Users and connections per database.
const USERS: u64 = 4;
const CONNECTIONS: u64 = 2;

/// The engine a cell runs on.
#[derive(Clone, Copy, PartialEq)]
enum Engine {
    Pg,
    MariaDb,
    Mssql,
}

/// The failover a cell causes.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    None,
    Sync,
    Async,
    /// One database on a synchronous pair, the other on one held back: one command fails both over.
    Both,
}

/// What a cell must do: hold the invariants, or be refused in one line naming, for each group, one of
/// its words.
enum Expect {
    Holds,
    Refused(&'static [&'static [&'static str]]),
}

/// One row of the table.
struct Cell {
    engine: Engine,
    agents: bool,
    runs: bool,
    idle: bool,
    meters: bool,
    fault: Fault,
    expect: Expect,
}

const AGENT_AND_RUNS: &[&[&str]] = &[&["--agent"], &["--runs", "--restore"]];
const AGENT_AND_FAULT: &[&[&str]] = &[&["--agent"], &["--fault-cmd"]];

/// The servers a cell drives (kept until it ends) and its databases' URLs.
struct Servers {
    urls: Vec<String>,
    pg: Option<oltpgen_driver::local::LocalPg>,
    pairs: Vec<Pair>,
    mariadb: Option<MariaDb>,
    mssql: Vec<common::MssqlDb>,
    _turn: Option<common::MssqlTurn>,
}

impl Servers {
    /// Starts what `cell` needs and loads TPC-C at scale 1 into each of its two databases.
    async fn start(cell: &Cell) -> Servers {
        let mut s = Servers {
            urls: Vec::new(),
            pg: None,
            pairs: Vec::new(),
            mariadb: None,
            mssql: Vec::new(),
            _turn: None,
        };
        match (cell.engine, cell.fault) {
            (Engine::Pg, Fault::None) => {
                let pg = oltpgen_driver::local::LocalPg::start(
                    &oltpgen_driver::local::Placement::Temp,
                    80,
                    &common::test_stderr(),
                )
                .expect("a server");
                let admin = common::sql(&pg.target("postgres")).await;
                for db in DBS {
                    admin.batch_execute(&format!("CREATE DATABASE {db}")).await.unwrap();
                }
                s.urls = DBS.iter().map(|db| pg.url(db)).collect();
                s.pg = Some(pg);
                load(&s.urls, &[]);
            }
            (Engine::Pg, Fault::Both) => {
                s.pairs = vec![Pair::start(true), Pair::start(false)];
                for (pair, db) in s.pairs.iter().zip(DBS) {
                    pair.load_into("tpcc", db, &["--scale", "1"]);
                }
                s.urls = s.pairs.iter().zip(DBS).map(|(p, db)| p.url(db)).collect();
            }
            (Engine::Pg, fault) => {
                let pair = Pair::start(fault == Fault::Sync);
                for db in DBS {
                    pair.load_into("tpcc", db, &["--scale", "1"]);
                }
                s.urls = DBS.iter().map(|db| pair.url(db)).collect();
                s.pairs = vec![pair];
            }
            (Engine::MariaDb, _) => {
                let server = MariaDb::start();
                s.urls = DBS.iter().map(|db| server.url(db)).collect();
                s.mariadb = Some(server);
                load(&s.urls, &["--create-database"]);
            }
            (Engine::Mssql, _) => {
                let url = common::mssql_url();
                s._turn = Some(common::mssql_turn().await);
                for db in DBS {
                    s.mssql.push(common::MssqlDb::create(&url, db).await);
                }
                s.urls = s.mssql.iter().map(|d| d.url.clone()).collect();
                load(&s.urls, &[]);
            }
        }
        s
    }

    /// Each database's checksums now, as the server serving it sees them.
    async fn checksums(&self) -> Vec<Checksums> {
        let mut all = Vec::new();
        for (i, url) in self.urls.iter().enumerate() {
            all.push(if let Some(m) = &self.mariadb {
                checksums::mariadb(m, DBS[i])
            } else if !self.mssql.is_empty() {
                checksums::mssql(&mut common::mssql(url).await).await
            } else {
                checksums::pg(&common::sql(&oltpgen_driver::engine::parse_url(url).unwrap()).await).await
            });
        }
        all
    }

    /// The run's user sessions on each database now (`None` where the test cannot count them).
    async fn sessions(&self) -> Option<Vec<u64>> {
        if let Some(pg) = &self.pg {
            let client = common::sql(&pg.target("postgres")).await;
            let mut n = Vec::new();
            for db in DBS {
                let sql = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' \
                           AND application_name <> 'oltpgen counters' AND datname = $1";
                n.push(client.query_one(sql, &[&db]).await.unwrap().get::<_, i64>(0) as u64);
            }
            return Some(n);
        }
        // MariaDB's and SQL Server's sessions of the counters' sampler cannot be told from the users'.
        None
    }
}

/// `tpcc load` at scale 1 of every URL of `urls`, with `extra` flags.
fn load(urls: &[String], extra: &[&str]) {
    let mut args = vec!["tpcc", "load", "--scale", "1", "--load-workers", "2", "-q"];
    args.extend(urls.iter().flat_map(|u| ["--url", u.as_str()]));
    args.extend(extra);
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
}

/// How long each step measures: long enough, with a fault, for the failover and the users' return.
fn duration_s(cell: &Cell) -> u64 {
    if cell.fault == Fault::None { 3 } else { 20 }
}

/// The flags of `cell`'s study on `urls`, its result in `out` (agents add their own).
fn study_args(cell: &Cell, urls: &[String], dir: &Path, out: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["tpcc", "run"].map(String::from).to_vec();
    for url in urls {
        args.extend(["--url".into(), url.clone()]);
    }
    let duration = format!("{}s", duration_s(cell));
    #[rustfmt::skip]
    args.extend([
        "--users", &USERS.to_string(), "--connections", &CONNECTIONS.to_string(), "--think-time", "0",
        "--keying-time", "0", "--warmup", "1s", "--duration", &duration, "--report-interval", "1s",
        "--rt-cap", "avg=10s", "-q", "--out", out.to_str().unwrap(),
    ].map(String::from));
    if cell.runs {
        args.extend(["--runs", "2", "--restore", "--before-run"].map(String::from));
        args.push(checksums::pause_hook(dir, "start"));
        if cell.fault != Fault::None {
            // Held at each run's end too, so that the test reads the orders the new primary holds
            // before the next restore puts them back.
            args.push("--after-run".into());
            args.push(checksums::pause_hook(dir, "end"));
        }
    }
    if cell.idle {
        args.extend(["--idle-sample", "2s"].map(String::from));
    }
    if cell.meters {
        let [server, storage] = meters(dir);
        args.extend(["--power-log".into(), server, "--power-log".into(), storage]);
        args.extend(["--system-cost", "1000"].map(String::from));
    }
    args
}

/// The failover command of `servers` for `cell`, and the file the held-back standby's pid goes to.
fn fault_cmd(cell: &Cell, servers: &Servers, dir: &Path) -> Option<String> {
    let held = |pair: &Pair| pair.fail_over_cmd(&pair.drop_unread_wal_cmd(&dir.join("walreceiver.pid")));
    match cell.fault {
        Fault::None => None,
        Fault::Sync => Some(servers.pairs[0].fail_over_cmd("true")),
        Fault::Async => Some(held(&servers.pairs[0])),
        Fault::Both => {
            Some(format!("{} && {}", servers.pairs[0].fail_over_cmd("true"), held(&servers.pairs[1])))
        }
    }
}

/// The pair whose standby is held back, in `cell`.
fn async_pair<'a>(cell: &Cell, servers: &'a Servers) -> Option<&'a Pair> {
    match cell.fault {
        Fault::Async => Some(&servers.pairs[0]),
        Fault::Both => Some(&servers.pairs[1]),
        _ => None,
    }
}

/// The index in [`DBS`] of the database on the held-back pair.
fn async_dbs(cell: &Cell) -> Vec<usize> {
    match cell.fault {
        Fault::Async => vec![0, 1],
        Fault::Both => vec![1],
        _ => Vec::new(),
    }
}

/// What a study left: its outcome, its result, the checksums at each run's start, and the new
/// primary's run orders at each run's end, by database.
struct Studied {
    out: Outcome,
    result: Value,
    at_start: BTreeMap<u32, Vec<Checksums>>,
    at_end: BTreeMap<u32, Vec<Orders>>,
}

type Orders = BTreeMap<(i32, i32, i32), (i32, i32)>;

/// Runs `cell`'s study as one process, serving its hooks' pauses.
async fn one_process(cell: &Cell, servers: &Servers, dir: &Path, out: &Path) -> Studied {
    let mut args = study_args(cell, &servers.urls, dir, out);
    if let Some(cmd) = fault_cmd(cell, servers, dir) {
        args.extend(["--fault-at".into(), "8s".into(), "--fault-cmd".into(), cmd]);
    }
    if let Some(pair) = async_pair(cell, servers) {
        // Held back before the study: every commit of the first run on that pair is the primary's alone.
        pair.hold_back_standby(&dir.join("walreceiver.pid")).await;
    }
    let mut child = spawn_env(&args, &[]);
    let (mut at_start, mut at_end) = (BTreeMap::new(), BTreeMap::new());
    loop {
        let Some((run, file)) = checksums::next_pause(&mut child, dir, "start").await else { break };
        at_start.insert(run, servers.checksums().await);
        std::fs::remove_file(file).unwrap();
        if cell.fault != Fault::None {
            let Some((run, file)) = checksums::next_pause(&mut child, dir, "end").await else { break };
            let mut orders = Vec::new();
            for i in async_dbs(cell) {
                let pair = async_pair(cell, servers).unwrap();
                orders.push(run_orders(&pair.url_of(1, DBS[i])).await);
            }
            at_end.insert(run, orders);
            std::fs::remove_file(file).unwrap();
        }
    }
    let out_status = tokio::task::spawn_blocking(move || finish(child)).await.unwrap();
    let result = result_json(out);
    assert_matches_schema(&result);
    Studied { out: out_status, result, at_start, at_end }
}

/// `secs` from now in RFC 3339.
fn from_now(secs: u64) -> String {
    humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_secs(secs)).to_string()
}

/// Runs `cell`'s study as two agents under the environment contract, counting the sessions on each
/// database while they measure, and merges their parts: the agents' outcomes and results, the merged
/// result, and the most sessions seen on each database.
async fn agents(
    cell: &Cell,
    servers: &Servers,
    dir: &Path,
) -> (Vec<(Outcome, Value)>, Value, Option<Vec<u64>>) {
    let lead = 10;
    let start_at = from_now(lead);
    let started = Instant::now();
    let parts: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("agent{i}"))).collect();
    let with_start = |mut args: Vec<String>| {
        args.extend(["--start-at".into(), start_at.clone()]);
        args
    };
    let children = [
        spawn_env(&with_start(study_args(cell, &servers.urls, dir, &parts[0])), &[("OLTPGEN_AGENT", "0/2")]),
        spawn_env(
            &[
                with_start(study_args(cell, &servers.urls, dir, &parts[1])),
                vec!["--agent".into(), "auto".into()],
            ]
            .concat(),
            &[("JOB_COMPLETION_INDEX", "1"), ("OLTPGEN_AGENTS", "2")],
        ),
    ];
    // The measured window: the idle time and the 1 s warmup after the common start, then the step.
    let idle = if cell.idle { 2.0 } else { 0.0 };
    let from = Duration::from_secs_f64(lead as f64 + idle + 1.5);
    let mut most: Option<Vec<u64>> = None;
    tokio::time::sleep(from.saturating_sub(started.elapsed())).await;
    for _ in 0..8 {
        if let Some(now) = servers.sessions().await {
            let m = most.get_or_insert(vec![0; now.len()]);
            m.iter_mut().zip(&now).for_each(|(a, b)| *a = (*a).max(*b));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut done = Vec::new();
    for (child, part) in children.into_iter().zip(&parts) {
        let out = tokio::task::spawn_blocking(move || finish(child)).await.unwrap();
        let r = if part.join("result.json").exists() { result_json(part) } else { Value::Null };
        done.push((out, r));
    }
    for (i, (out, r)) in done.iter().enumerate() {
        assert_eq!(out.code, 0, "agent {i}: {}", out.all());
        assert_matches_schema(r);
    }
    let merged = dir.join("merged");
    let merge = oltpgen(&[
        "report",
        "merge",
        parts[0].to_str().unwrap(),
        parts[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(merge.code, 0, "{}", merge.all());
    let m = result_json(&merged);
    assert_matches_schema(&m);
    (done, m, most)
}

/// Runs one cell from its row and asserts what it must do.
async fn run_cell(cell: Cell) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("result");
    if let Expect::Refused(groups) = cell.expect {
        // Refused before any database is touched: a URL that names no server.
        let urls = match cell.engine {
            Engine::Pg => DBS.map(|db| format!("postgres://u@127.0.0.1:1/{db}")).to_vec(),
            Engine::MariaDb => DBS.map(|db| format!("mariadb://u@127.0.0.1:1/{db}")).to_vec(),
            Engine::Mssql => DBS.map(|db| format!("sqlserver://u@127.0.0.1:1/{db}")).to_vec(),
        };
        let mut args = study_args(&cell, &urls, dir.path(), &out);
        args.extend(["--agent".into(), "0/2".into(), "--start-at".into(), from_now(30)]);
        if cell.fault != Fault::None {
            args.extend(["--fault-at", "8s", "--fault-cmd", "true"].map(String::from));
        }
        let refused = finish(spawn_env(&args, &[]));
        assert_eq!(refused.code, 2, "refused: {}", refused.all());
        let lines: Vec<&str> = refused.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "one line: {}", refused.stderr);
        for group in groups {
            assert!(group.iter().any(|w| lines[0].contains(w)), "names one of {group:?}: {}", lines[0]);
        }
        assert!(!out.exists(), "nothing written for a refused run");
        return;
    }
    let servers = Servers::start(&cell).await;
    let loaded = servers.checksums().await;
    let targets = servers.urls.len() as u64;
    if cell.agents {
        let (parts, m, sessions) = agents(&cell, &servers, dir.path()).await;
        assert_plan(&cell, &m, targets);
        assert_summed(&m, &parts.iter().map(|(_, r)| r).collect::<Vec<_>>());
        if let Some(sessions) = sessions {
            assert_eq!(
                sessions,
                vec![CONNECTIONS; DBS.len()],
                "the connections asked on each database, the agents' together"
            );
        }
        assert_median(&m);
        assert_measured(&m);
        assert_eq!(lost_commits(&m), None, "nothing lost, nothing compared: {}", m["lost_commits"]);
        return;
    }
    let studied = one_process(&cell, &servers, dir.path(), &out).await;
    let r = &studied.result;
    assert_plan(&cell, r, targets);
    assert_median(r);
    assert_measured(r);
    if cell.runs {
        let runs: Vec<u32> = studied.at_start.keys().copied().collect();
        assert_eq!(runs, [1, 2], "each run held at its start");
        for (run, sums) in &studied.at_start {
            assert_eq!(sums, &loaded, "run {run} starts from the loaded rows, table by table");
        }
    }
    assert_lost(&cell, &servers, &studied).await;
}

/// The result is the plan one process makes: every run's step with the users and connections asked
/// on every database, the runs asked.
#[track_caller]
fn assert_plan(cell: &Cell, r: &Value, targets: u64) {
    let runs = if cell.runs { 2 } else { 1 };
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), runs, "one step a run: {steps:?}");
    for s in steps {
        assert_eq!(s["users"], USERS * targets, "the users asked on each database: {s}");
        assert_eq!(s["connections"], CONNECTIONS * targets, "the connections asked on each database: {s}");
        assert_eq!(s["targets"].as_object().unwrap().len() as u64, targets, "{s}");
    }
    assert_eq!(r["config"]["runs"], runs, "{}", r["config"]);
    if cell.runs {
        assert_eq!(r["runs"].as_array().map(Vec::len), Some(runs), "{}", r["runs"]);
    }
}

/// The merged result's transactions and histograms are the parts' summed, per step and kind.
#[track_caller]
fn assert_summed(m: &Value, parts: &[&Value]) {
    for (i, step) in m["steps"].as_array().unwrap().iter().enumerate() {
        for (kind, t) in step["transactions"].as_object().unwrap() {
            let mut sum = LatencyHistogram::new();
            let mut count = 0;
            for p in parts {
                let pt = &p["steps"][i]["transactions"][kind];
                count += pt["count"].as_u64().unwrap();
                sum.add(&LatencyHistogram::from_base64(pt["histogram"].as_str().unwrap()).unwrap());
            }
            assert_eq!(t["count"], count, "step {i} {kind}: the agents' counts summed");
            let merged = LatencyHistogram::from_base64(t["histogram"].as_str().unwrap()).unwrap();
            assert_eq!(merged.count(), sum.count(), "step {i} {kind}: the histograms summed");
            let bounds = [1_000, 5_000, 20_000, 100_000, 1_000_000];
            assert_eq!(
                merged.counts_at_or_below(&bounds),
                sum.counts_at_or_below(&bounds),
                "step {i} {kind}"
            );
            assert_eq!(merged.max_us(), sum.max_us(), "step {i} {kind}");
        }
        assert_eq!(
            step["users"].as_u64(),
            parts.iter().map(|p| p["steps"][i]["users"].as_u64()).sum(),
            "{step}"
        );
    }
}

/// Headline, power and cost are the median run's, as one process takes them.
#[track_caller]
fn assert_median(r: &Value) {
    let said: oltpgen_report::model::RunResult = serde_json::from_value(r.clone()).unwrap();
    let median = oltpgen_report::stats::median_run(&said.steps).expect("a median run");
    let steps = r["steps"].as_array().unwrap();
    if let Some(i) = r["max_within_cap"]["step_index"].as_u64() {
        let head = &steps[i as usize];
        assert_eq!(head["run"], median, "the headline is the median run's: {}", r["max_within_cap"]);
        assert_eq!(head["cap"]["passed"], true, "only a measured step passing the cap heads: {head}");
    }
    if let Some(runs) = r["runs"].as_array().filter(|runs| runs.len() > 1) {
        let run = &runs[median as usize - 1];
        assert_eq!(r["power"], run["power"], "the power is the median run's (run {median})");
    }
    if let Some(usd) = r["cost"]["system_cost_usd"].as_f64() {
        let basis = r["max_within_cap"]["step_index"]
            .as_u64()
            .map_or_else(|| steps.last().unwrap(), |i| &steps[i as usize]);
        let per_tps = usd / basis["tps"].as_f64().unwrap();
        let quoted = r["cost"]["per_tps_usd"].as_f64().unwrap();
        assert!((quoted - per_tps).abs() < 1e-6 * per_tps, "the cost at the headline step: {}", r["cost"]);
    }
}

/// Nothing unmeasured reads 0: each meter's watts and each power's per-watt figure are a reading
/// (above 0) or absent, every run idled as asked, the audit and the counters are in every step (merged
/// ones too), and the acknowledged commits were compared wherever connections were lost.
#[track_caller]
fn assert_measured(r: &Value) {
    for run in r["runs"].as_array().into_iter().flatten() {
        for (name, meter) in run["meters"].as_object().into_iter().flatten() {
            for key in ["idle_w", "active_w"] {
                let w = &meter[key];
                assert!(w.is_null() || w.as_f64().unwrap() > 0.0, "{name} {key} unmeasured reads 0: {run}");
            }
        }
        // Idle as asked (whether the counters read at rest in 2 s depends on the sampler's first
        // interval, so they may be absent, never required).
        if let Some([a, b]) = run["idle_window_s"].as_array().map(|w| [&w[0], &w[1]]) {
            let idle = b.as_f64().unwrap() - a.as_f64().unwrap();
            assert!((1.9..4.0).contains(&idle), "idle for the 2 s asked: {run}");
        }
    }
    let powers = r["runs"].as_array().into_iter().flatten().map(|run| &run["power"]);
    for power in powers.chain([&r["power"]]) {
        for key in ["active_w", "per_watt"] {
            let v = &power[key];
            assert!(v.is_null() || v.as_f64().unwrap() > 0.0, "{key} unmeasured reads 0: {power}");
        }
    }
    for s in r["steps"].as_array().unwrap() {
        assert!(s["audit"].is_object(), "the step's audit: {s}");
        assert!(s["counters"].as_object().is_some_and(|c| !c.is_empty()), "the step's counters: {s}");
    }
    let lost_connections = r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0);
    if lost_connections > 0 {
        assert!(lost_commits(r).is_some(), "connections were lost: the commits compared: {r}");
    }
}

/// The acknowledged orders compared and those lost, (checked, lost): the runs' own comparisons summed
/// where the result records them per run (each run's orders against the database at its end), else the
/// result's one comparison; `None` when nothing was compared.
fn lost_commits(r: &Value) -> Option<(u64, u64)> {
    let per_run: Vec<&Value> = r["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|run| &run["lost_commits"])
        .filter(|l| l.is_object())
        .collect();
    let all = if per_run.is_empty() { vec![&r["lost_commits"]] } else { per_run };
    all.iter().try_fold((0, 0), |(checked, lost), l| {
        Some((checked + l["checked"].as_u64()?, lost + l["lost"].as_u64()?))
    })
}

/// Acknowledged commits lost: none where nothing was lost (no fault, a synchronous standby); where
/// the held-back standby took over, the test's own count: orders the old primary holds that the new
/// one lacked at the run's end, less at most one in flight per user.
async fn assert_lost(cell: &Cell, servers: &Servers, studied: &Studied) {
    let (r, out) = (&studied.result, &studied.out);
    let lost = lost_commits(r);
    let Some(pair) = async_pair(cell, servers) else {
        assert_eq!(out.code, 0, "{}", out.all());
        if cell.fault == Fault::Sync {
            assert_eq!(lost.map(|l| l.1), Some(0), "a synchronous standby loses nothing: {r}");
        } else {
            assert!(lost.is_none_or(|l| l.1 == 0), "{lost:?}");
        }
        return;
    };
    let reported = lost.unwrap_or_else(|| panic!("no comparison: {}", out.all())).1;
    assert_eq!(out.code, 1, "a lost commit fails the run: {}", out.all());
    pair.restart_old_primary();
    let mut truly_lost = 0;
    let dbs = async_dbs(cell);
    for (k, &i) in dbs.iter().enumerate() {
        let old = run_orders(&pair.url_of(0, DBS[i])).await;
        // The new primary's orders at the first run's end (the fault's run), else now.
        let new = match studied.at_end.get(&1) {
            Some(orders) => orders[k].clone(),
            None => run_orders(&pair.url_of(1, DBS[i])).await,
        };
        truly_lost += old.iter().filter(|(key, v)| new.get(*key) != Some(*v)).count() as u64;
    }
    let in_flight = USERS * dbs.len() as u64;
    assert!(
        (truly_lost.saturating_sub(in_flight)..=truly_lost).contains(&reported),
        "{reported} reported lost, {truly_lost} missing on the new primary: {lost:?}"
    );
    assert!(out.stderr.contains(&format!("acknowledged commits lost: {reported} of ")), "{}", out.stderr);
}

/// One `#[tokio::test]` per row: its name, its engine and features, what it must do; rows that need a
/// server the machine may lack carry their `ignore` (set by `build.rs`'s cfgs).
macro_rules! cells {
    ($($(#[$meta:meta])* $name:ident: $engine:ident, agents $agents:literal, runs $runs:literal,
       idle $idle:literal, meters $meters:literal, fault $fault:ident, $expect:expr;)*) => {$(
        $(#[$meta])*
        #[tokio::test(flavor = "multi_thread")]
        async fn $name() {
            run_cell(Cell {
                engine: Engine::$engine,
                agents: $agents,
                runs: $runs,
                idle: $idle,
                meters: $meters,
                fault: Fault::$fault,
                expect: $expect,
            })
            .await;
        }
    )*};
}

cells! {
    pg_agents_dbs_idle_meters: Pg, agents true, runs false, idle true, meters true, fault None, Expect::Holds;
    pg_agents_runs: Pg, agents true, runs true, idle true, meters true, fault None, Expect::Refused(AGENT_AND_RUNS);
    pg_agents_sync: Pg, agents true, runs false, idle false, meters true, fault Sync, Expect::Refused(AGENT_AND_FAULT);
    pg_agents_async: Pg, agents true, runs false, idle false, meters true, fault Async,
        Expect::Refused(AGENT_AND_FAULT);
    pg_runs_sync: Pg, agents false, runs true, idle true, meters true, fault Sync, Expect::Holds;
    pg_runs_async: Pg, agents false, runs true, idle true, meters true, fault Async, Expect::Holds;
    pg_sync_and_async: Pg, agents false, runs false, idle true, meters true, fault Both, Expect::Holds;
    #[cfg_attr(not(oltpgen_test_mariadb), ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client")]
    mariadb_agents: MariaDb, agents true, runs false, idle true, meters true, fault None, Expect::Holds;
    #[cfg_attr(not(oltpgen_test_mariadb), ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client")]
    mariadb_runs: MariaDb, agents false, runs true, idle true, meters true, fault None, Expect::Holds;
    mariadb_agents_runs: MariaDb, agents true, runs true, idle true, meters true, fault None,
        Expect::Refused(AGENT_AND_RUNS);
    #[cfg_attr(not(oltpgen_test_mssql), ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL")]
    mssql_agents: Mssql, agents true, runs false, idle true, meters true, fault None, Expect::Holds;
    #[cfg_attr(not(oltpgen_test_mssql), ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL")]
    mssql_runs: Mssql, agents false, runs true, idle true, meters true, fault None, Expect::Holds;
    mssql_agents_runs: Mssql, agents true, runs true, idle true, meters true, fault None,
        Expect::Refused(AGENT_AND_RUNS);
}
