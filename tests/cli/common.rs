//! Running the binary and judging its output.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use oltpgen_driver::Target;
use oltpgen_driver::local::{LocalPg, Placement};

/// What one run of the binary did.
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// Everything the user saw.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs `oltpgen args…` to completion.
pub fn oltpgen(args: &[&str]) -> Outcome {
    oltpgen_env(args, &[])
}

/// Runs `oltpgen args…` with extra environment variables.
pub fn oltpgen_env(args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_oltpgen"))
        .args(args)
        .env_remove("OLTPGEN_URL")
        .envs(env.iter().copied())
        .output()
        .expect("the oltpgen binary runs");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Asserts a clean refusal: exit 2, one line on stderr that contains `needle`, no panic, no secret.
#[track_caller]
pub fn assert_refused(out: &Outcome, needle: &str) {
    assert_eq!(out.code, 2, "exit code; output:\n{}", out.all());
    let lines: Vec<&str> = out.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line on stderr, got:\n{}", out.stderr);
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    assert!(lines[0].contains(needle), "expected '{needle}' in: {}", lines[0]);
    assert_no_secret(out);
}

/// The password used in every test URL; it must never be shown.
pub const SECRET: &str = "s3cr3t-Pa55";

#[track_caller]
pub fn assert_no_secret(out: &Outcome) {
    assert!(!out.all().contains(SECRET), "the password leaked:\n{}", out.all());
    assert!(!out.all().contains("panicked"), "a panic:\n{}", out.all());
}

/// A data directory for a lasting built-in instance that the server's account can reach.
pub fn data_dir() -> (tempfile::TempDir, String) {
    let dir = tempfile::Builder::new().prefix("oltpgen-test-").tempdir().expect("a temporary directory");
    open_to_server_account(dir.path());
    let root = dir.path().join("pg").to_string_lossy().into_owned();
    (dir, root)
}

fn open_to_server_account(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Starts the built-in instance at `root` for the test's own SQL (it stops when the guard drops).
pub fn start_server(root: &str) -> LocalPg {
    LocalPg::start(&Placement::Dir(root.into()), 50, &test_stderr()).expect("the built-in PostgreSQL starts")
}

/// The test's own standard error, for what a built-in server a test starts itself says.
pub fn test_stderr() -> oltpgen_driver::command::ErrLines {
    oltpgen_driver::command::ErrLines::new(|line| eprintln!("{line}"))
}

/// Opens a connection to `target`, waiting for a server that is still starting.
pub async fn sql(target: &Target) -> tokio_postgres::Client {
    for _ in 0..100 {
        if let Ok((client, conn)) = oltpgen_driver::pg::target::config(target)
            .expect("a PostgreSQL target")
            .connect(tokio_postgres::NoTls)
            .await
        {
            tokio::spawn(conn);
            return client;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("cannot connect to {target}");
}

pub fn result_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("result.json")).expect("result.json is written");
    serde_json::from_str(&text).expect("result.json is JSON")
}

/// Runs `workload` on `url` twice, each run restored from the generator first (`--restore`), with the
/// run flags `run`: both succeed without an error, and each starts from `loaded` rows of `table`.
#[track_caller]
pub fn assert_two_runs_restored_from_the_generator(
    workload: &str,
    url: &str,
    run: &[&str],
    (table, loaded): (&str, i64),
) {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("restored");
    let args = [
        &[workload, "run", "--url", url, "--runs", "2", "--restore", "-q"][..],
        run,
        &["--out", result.to_str().unwrap()],
    ]
    .concat();
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    let r = result_json(&result);
    assert_matches_schema(&r);
    for run in r["runs"].as_array().unwrap() {
        assert_eq!(run["restored"]["method"], "generator", "{run}");
        assert_eq!(run["start_rows"][table], loaded, "{workload}: every run from the loaded rows: {run}");
    }
    assert!(r["errors_by_kind"].as_object().unwrap().is_empty(), "{workload}: {r}");
}

/// Every result must match the schema the repository publishes.
pub fn assert_matches_schema(result: &serde_json::Value) {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schema/result.schema.json")).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    let errors: Vec<String> =
        validator.iter_errors(result).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "result.json breaks the schema: {errors:#?}");
}

pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_oltpgen"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oltpgen starts")
}

pub fn finish(child: Child) -> Outcome {
    let out = child.wait_with_output().expect("oltpgen ends");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Attaches to the built-in server that the running oltpgen started at `root` (without starting one,
/// and without taking the instance's lock, which the running oltpgen holds).
pub async fn attach(root: &str) -> LocalPg {
    for _ in 0..600 {
        if let Ok(pg) = LocalPg::join(Path::new(root)) {
            return pg;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the run never started its server");
}

/// Waits until a run has `users` connections to database `db` and has measured for a while: 2 s (past
/// the callers' 1 s warmup), then until the users have committed again.
pub async fn wait_for_load(client: &tokio_postgres::Client, db: &str, users: i64) {
    wait_for_connections(client, db, users, &[]).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    wait_for_commits(client, db, users).await;
}

/// Waits until `n` more transactions have committed in database `db`.
async fn wait_for_commits(client: &tokio_postgres::Client, db: &str, n: i64) {
    let before = commits(client, db).await;
    for _ in 0..600 {
        if commits(client, db).await >= before + n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no {n} transactions committed in {db}");
}

/// The run's connections (application `oltpgen`) to database `db`, other than the asking one, by pid.
async fn run_connections(client: &tokio_postgres::Client, db: &str) -> Vec<i32> {
    client
        .query(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'oltpgen' AND datname = $1 \
             AND pid <> pg_backend_pid()",
            &[&db],
        )
        .await
        .map_or(Vec::new(), |rows| rows.iter().map(|r| r.get(0)).collect())
}

/// Waits until a run has `users` connections to database `db` besides those of `pids` (gone, or on
/// their way out).
async fn wait_for_connections(client: &tokio_postgres::Client, db: &str, users: i64, pids: &[i32]) {
    for _ in 0..600 {
        let fresh = run_connections(client, db).await.iter().filter(|p| !pids.contains(p)).count();
        if fresh as i64 >= users {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the run never had {users} connections to {db}");
}

/// Transactions committed in database `db` so far, as the server counts them.
async fn commits(client: &tokio_postgres::Client, db: &str) -> i64 {
    client
        .query_one("SELECT xact_commit FROM pg_stat_database WHERE datname = $1", &[&db])
        .await
        .unwrap()
        .get(0)
}

/// The fault test both workloads pass: kills every connection of the run under way (`run`, with at
/// least `users` connections to `db` on the server at `root`), waits for its users to reconnect,
/// restarts the server, waits for them to reconnect and commit again, and then ends the run with Ctrl-C
/// (each phase waits for what it needs, however slow the machine, rather than fitting a fixed window).
/// The run must have counted the lost connections, and its users gone on running `txn`.
pub async fn assert_survives_kills_and_a_restart(
    observer: LocalPg,
    root: &str,
    db: &str,
    users: i64,
    run: Child,
    out_dir: &Path,
    txn: &str,
) {
    let client = sql(&observer.target("postgres")).await;
    let victims = run_connections(&client, db).await;
    let killed: i64 = client
        .query_one(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM unnest($1::int4[]) pid) k",
            &[&victims],
        )
        .await
        .unwrap()
        .get(0);
    assert!(killed >= users, "killed {killed} connections");
    wait_for_connections(&client, db, users, &victims).await;
    drop((client, observer));
    let restart_root = root.to_string();
    tokio::task::spawn_blocking(move || LocalPg::restart_at(Path::new(&restart_root)))
        .await
        .unwrap()
        .expect("restart");
    let observer = attach(root).await;
    let client = sql(&observer.target("postgres")).await;
    wait_for_connections(&client, db, users, &[]).await;
    wait_for_commits(&client, db, users).await;
    // Two report intervals (both callers report every 2 s), so the last one the result holds before
    // Ctrl-C lies wholly after the users came back.
    tokio::time::sleep(Duration::from_secs(4)).await;
    drop((client, observer));
    let status = Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || finish(run)).await.unwrap();
    assert_eq!(out.code, 130, "the run went on until Ctrl-C:\n{}", out.all());
    let r = result_json(out_dir);
    assert_matches_schema(&r);
    assert!(
        r["errors_by_kind"]["connection_lost"].as_u64().unwrap_or(0) > 0,
        "errors counted: {}",
        r["errors_by_kind"]
    );
    let series = r["timeseries"].as_array().unwrap();
    let last = series.iter().rev().find(|row| row["txn"] == txn).unwrap();
    assert!(last["count"].as_u64().unwrap() > 0, "users reconnected and went on: {last}");
    // The server was unreachable for part of the window: the step was not measured, so it neither
    // passes nor makes the headline.
    let verdict = &r["steps"][0]["cap"];
    assert_eq!(verdict["passed"], false, "{verdict}");
    let why = verdict["invalid"].as_str().unwrap_or_default();
    assert!(why.contains("the server was unreachable for part of the window"), "{verdict}");
    assert!(r["max_within_cap"].is_null(), "{}", r["max_within_cap"]);
    assert!(out.stdout.contains("INVALID") || out.stdout.contains("not measured"), "{}", out.stdout);
}

/// The SQL Server the tests may use (`OLTPGEN_TEST_MSSQL_URL`). Only a test built to run against one
/// calls this (see `mssql_common`: without the variable at build time it is ignored), so a
/// missing URL here is a test run with `--include-ignored`, or a test binary built with the variable and
/// run without it: it fails, naming the variable.
pub fn mssql_url() -> String {
    match std::env::var("OLTPGEN_TEST_MSSQL_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "this test needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
        ),
    }
}

/// `url` (a `sqlserver://` URL) with its database replaced by `db`.
pub fn mssql_with_db(url: &str, db: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, String::new()), |(b, q)| (b, format!("?{q}")));
    let authority_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[authority_end..].find('/').map_or(base.len(), |i| authority_end + i);
    format!("{}/{db}{query}", &base[..host_end])
}

/// Opens a tiberius client on `url`, through oltpgen's own connect.
pub async fn mssql(url: &str) -> oltpgen_driver::mssql::Client {
    let target: Target = oltpgen_driver::engine::parse_url(url).expect("a SQL Server URL");
    oltpgen_driver::mssql::connect(&target).await.expect("the SQL Server test server answers")
}

/// Runs `sql` on `client` as batches separated by lines holding only `GO` (as sqlcmd does): the last
/// batch's result sets.
pub async fn mssql_exec(client: &mut oltpgen_driver::mssql::Client, sql: &str) -> Vec<Vec<tiberius::Row>> {
    let mut last = Vec::new();
    for batch in sql.split("\nGO\n").filter(|b| !b.trim().is_empty()) {
        let answer = client.simple_query(batch).await.unwrap_or_else(|e| panic!("{batch}: {e}"));
        last = answer.into_results().await.unwrap_or_else(|e| panic!("{batch}: {e}"));
    }
    last
}

/// This test's turn on the SQL Server test server, held while it runs: SQL Server tests take turns,
/// since Babelfish refuses concurrent `CREATE DATABASE`s ("tuple concurrently updated") and a 2-core
/// machine would starve their short runs. The turn spans processes (a lock on a file in the temporary
/// directory), as CI runs the SQL Server suite (`cli_mssql`) beside the other test binaries.
pub async fn mssql_turn() -> MssqlTurn {
    static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let in_process = TURN.lock().await;
    let path = std::env::temp_dir().join("oltpgen-tests-sql-server.lock");
    let file = tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path);
        let file = file.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        file.lock().unwrap_or_else(|e| panic!("locking {}: {e}", path.display()));
        file
    });
    MssqlTurn { _file: file.await.expect("the lock's thread"), _in_process: in_process }
}

/// A test's turn on the SQL Server test server ([`mssql_turn`]): the lock on the file is released
/// when the file closes, as this drops.
pub struct MssqlTurn {
    _file: std::fs::File,
    _in_process: tokio::sync::MutexGuard<'static, ()>,
}

/// The first column of the first row of the first result, as an integer.
pub async fn mssql_int(client: &mut oltpgen_driver::mssql::Client, sql: &str) -> i64 {
    let rows = mssql_exec(client, &format!("SELECT CAST(({sql}) AS bigint)")).await;
    rows[0][0].get::<i64, _>(0).unwrap_or(0)
}

/// A database of its own on the SQL Server test server, dropped when the test ends.
pub struct MssqlDb {
    /// Its name.
    pub name: String,
    /// A URL that connects to it.
    pub url: String,
    /// A URL of the server's `master`, which creates and drops it.
    pub admin: String,
}

impl MssqlDb {
    /// Creates `issue14_<test>_<pid>` (issue 14's prefix, unique per test process) on the server at
    /// `url`, dropping a leftover of the same name first.
    pub async fn create(url: &str, test: &str) -> MssqlDb {
        let db = MssqlDb::absent(url, test).await;
        let mut client = mssql(&db.admin).await;
        mssql_exec(&mut client, &format!("CREATE DATABASE {}", db.name)).await;
        db
    }

    /// `issue14_<test>_<pid>` on the server at `url`, not there (a leftover of the same name dropped)
    /// but dropped when the test ends, should the test create it.
    pub async fn absent(url: &str, test: &str) -> MssqlDb {
        let name = format!("issue14_{test}_{}", std::process::id());
        let admin = mssql_with_db(url, "master");
        let mut client = mssql(&admin).await;
        mssql_exec(&mut client, &format!("IF DB_ID('{name}') IS NOT NULL DROP DATABASE {name}")).await;
        MssqlDb { url: mssql_with_db(url, &name), name, admin }
    }
}

impl Drop for MssqlDb {
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        // A fresh runtime on its own thread: drop may run inside the test's runtime.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async {
                let mut client = mssql(&admin).await;
                let drop = format!("IF DB_ID('{name}') IS NOT NULL DROP DATABASE {name}");
                if let Ok(stream) = client.simple_query(drop).await {
                    let _ = stream.into_results().await;
                }
            });
        })
        .join();
    }
}

/// A function of the user's own that `drop` must leave, in PostgreSQL's words.
pub const PG_OWN_FUNCTION: &str = "CREATE FUNCTION users_own() RETURNS int LANGUAGE sql AS 'SELECT 1'";

/// The functions, procedures, sequences and triggers of the database's `public` schema, by name: read
/// from the catalog, not from oltpgen's list, so that an object the list forgot is seen.
pub async fn pg_objects(c: &tokio_postgres::Client) -> Vec<String> {
    let sql = "SELECT proname::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace \
               UNION ALL SELECT relname::text FROM pg_class WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace \
               UNION ALL SELECT tgname::text FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1";
    c.query(sql, &[]).await.unwrap().iter().map(|r| r.get(0)).collect()
}

/// `ds2 check` on `db_args` passes every check.
#[track_caller]
pub fn assert_intact(db_args: &[&str]) {
    let out = oltpgen(&[&["ds2", "check"][..], db_args].concat());
    assert_eq!(out.code, 0, "DS2's integrity holds:\n{}", out.all());
    assert!(!out.stdout.contains("FAIL"), "{}", out.stdout);
    assert!(out.stdout.contains("consistent"), "{}", out.stdout);
}

/// A throwaway server with empty databases `names`, and their URLs.
pub async fn server_with(names: &[&str]) -> (LocalPg, Vec<String>) {
    let pg = LocalPg::start(&Placement::Temp, 80, &crate::common::test_stderr()).expect("a server");
    let admin = sql(&pg.target("postgres")).await;
    for name in names {
        admin.batch_execute(&format!("CREATE DATABASE {name}")).await.unwrap();
    }
    let urls = names.iter().map(|n| pg.url(n)).collect();
    (pg, urls)
}

/// Loads TPC-C at scale 1 into every database of `urls` in one command, and says so once for each.
#[track_caller]
pub fn load_all(urls: &[String]) {
    let mut args = vec!["tpcc", "load", "--scale", "1", "--load-workers", "2", "--quiet"];
    args.extend(urls.iter().flat_map(|u| ["--url", u.as_str()]));
    let out = oltpgen(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(out.stdout.matches("loaded tpcc scale 1 into").count(), urls.len(), "{}", out.stdout);
}

/// Writes `text` as `name` in `dir`.
pub fn file(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
