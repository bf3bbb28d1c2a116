//! Bad input: each mistake gets one clear line and exit 2, with the password never shown.

use crate::common::{SECRET, assert_refused, oltpgen, oltpgen_env, sql};
use oltpgen_driver::local::{LocalPg, Placement};

#[test]
fn scale_must_be_a_number_of_warehouses() {
    assert_refused(&oltpgen(&["tpcc", "load", "--scale", "0", "--temp-db"]), "at least 1");
    assert_refused(
        &oltpgen(&["tpcc", "load", "--scale", "ten", "--temp-db"]),
        "'ten' is not a number of warehouses",
    );
    // Above what a client can generate: refused by clap before anything starts (it panicked at
    // 2147483648 and aborted on its allocation at 100000000, after creating the tables).
    for huge in ["2147483648", "100000000", "1000001"] {
        let too_many = format!("at most 1000000 warehouses (about 125 TB) are generated, not {huge}");
        assert_refused(&oltpgen(&["tpcc", "load", "--scale", huge, "--temp-db"]), &too_many);
        assert_refused(&oltpgen(&["tpcc", "--scale", huge, "--temp-db"]), &too_many);
    }
    for huge in ["5000GB", "99999999999GB"] {
        let out = oltpgen(&["ds2", "load", "--db-size", huge, "--temp-db"]);
        assert_refused(&out, "invalid value");
        assert!(out.stderr.contains("int4"), "{}", out.stderr);
    }
}

#[test]
fn urls_with_unknown_schemes_are_refused() {
    let url = format!("oracle://bench:{SECRET}@db1/tpcc");
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &url]), "unknown scheme 'oracle://'");
    let url = format!("bench:{SECRET}@db1/tpcc");
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &url]), "no scheme");
    // A URL without a host is shown its own engine's form.
    assert_refused(
        &oltpgen(&["tpcc", "check", "--url", "sqlserver://"]),
        "--url names no host: write it as sqlserver://user:password@host:port/database",
    );
    assert_refused(
        &oltpgen(&["tpcc", "check", "--url", "postgres://"]),
        "--url names no host: write it as postgres://user:password@host:port/dbname",
    );
    assert_refused(
        &oltpgen(&["tpcc", "check", "--url", "mariadb://"]),
        "--url names no host: write it as mysql://user:password@host:port/database",
    );
}

#[test]
fn a_cap_on_a_transaction_the_workload_does_not_run_is_refused() {
    assert_refused(
        &oltpgen(&["tpcc", "run", "--rt-cap", "purchase.avg=1s", "--temp-db"]),
        "--rt-cap: `purchase.avg=1s` names `purchase`, which this workload does not run",
    );
    assert_refused(
        &oltpgen(&["ds2", "run", "--rt-cap", "new_order.p90=5s", "--temp-db"]),
        "names `new_order`, which this workload does not run",
    );
}

#[test]
fn impossible_flag_combinations_are_refused() {
    let url = format!("postgres://bench:{SECRET}@127.0.0.1:1/tpcc");
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &url, "--temp-db"]), "cannot be used with");
    assert_refused(&oltpgen(&["tpcc", "load", "--csv", "/tmp/x", "--url", &url]), "cannot be used with");
}

#[test]
fn an_unreachable_server_is_named_without_its_password() {
    let url = format!("postgres://bench:{SECRET}@127.0.0.1:1/tpcc");
    let out = oltpgen(&["tpcc", "check", "--url", &url]);
    assert_refused(&out, "cannot connect to postgres://bench@127.0.0.1:1/tpcc");
}

#[test]
fn missing_postgresql_binaries_say_how_to_get_them() {
    let out = oltpgen_env(&["tpcc", "--temp-db"], &[("OLTPGEN_PG_BIN", "/nonexistent")]);
    assert_refused(&out, "does not hold initdb, pg_ctl and postgres");
}

/// A server that checks passwords: wrong password, missing database, foreign tables, empty database.
#[tokio::test(flavor = "multi_thread")]
async fn the_server_refusals_are_explained() {
    let pg = LocalPg::start(&Placement::Temp, 50, &crate::common::test_stderr())
        .expect("the built-in PostgreSQL starts");
    let admin = sql(&pg.target("postgres")).await;
    admin.batch_execute(&format!("CREATE ROLE bench LOGIN PASSWORD '{SECRET}'")).await.unwrap();
    admin.batch_execute("CREATE DATABASE tpcc OWNER bench").await.unwrap();
    let hba = pg.root().join("data/pg_hba.conf");
    let rules = std::fs::read_to_string(&hba).unwrap();
    std::fs::write(&hba, format!("host all bench 127.0.0.1/32 scram-sha-256\n{rules}")).unwrap();
    admin.batch_execute("SELECT pg_reload_conf()").await.unwrap();
    let port = pg.port();
    let url = |password: &str, db: &str| format!("postgres://bench:{password}@127.0.0.1:{port}/{db}");
    // The server rereads pg_hba.conf in its own time: wait until it asks bench for a password.
    let wrong: oltpgen_driver::Target =
        oltpgen_driver::engine::parse_url(&url("wrong-password", "tpcc")).unwrap();
    for attempt in 0.. {
        if oltpgen_driver::pg::target::config(&wrong)
            .expect("a PostgreSQL target")
            .connect(tokio_postgres::NoTls)
            .await
            .is_err()
        {
            break;
        }
        assert!(attempt < 600, "the server never applied the new pg_hba.conf");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    for workload in ["tpcc", "ds2"] {
        let out = oltpgen(&[workload, "check", "--url", &url("wrong-password", "tpcc")]);
        assert_refused(&out, "the server refused the login");
        assert!(!out.all().contains("wrong-password"));
    }
    let out =
        oltpgen(&["ds2", "run", "--url", &url("wrong-password", "tpcc"), "--url", &url(SECRET, "nosuchdb")]);
    assert_refused(&out, "the server refused the login");
    assert!(!out.all().contains("wrong-password"));

    // A URL without a password: the server's demand is named; PGPASSWORD and the password file
    // (PGPASSFILE, else ~/.pgpass) answer it, as they do for psql.
    let no_password = format!("postgres://bench@127.0.0.1:{port}/tpcc");
    let dir = tempfile::tempdir().unwrap();
    let pgpass = dir.path().join("pgpass");
    let pgpass_env = pgpass.to_str().unwrap();
    let check = ["tpcc", "check", "--url", &no_password];
    let out = oltpgen_env(&check, &[("PGPASSFILE", pgpass_env)]);
    assert_refused(&out, "the server asks for a password and none was given: set PGPASSWORD");
    let loaded_first = "holds no tpcc database: load it first";
    assert_refused(&oltpgen_env(&check, &[("PGPASSFILE", pgpass_env), ("PGPASSWORD", SECRET)]), loaded_first);
    std::fs::write(&pgpass, format!("# host:port:db:user:password\n127.0.0.1:{port}:*:bench:{SECRET}\n"))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_refused(&oltpgen_env(&check, &[("PGPASSFILE", pgpass_env)]), loaded_first);
    let env_url =
        oltpgen_env(&["tpcc", "check"], &[("PGPASSFILE", pgpass_env), ("OLTPGEN_URL", &no_password)]);
    assert_refused(&env_url, loaded_first);
    // A wrong password that came from PGPASSWORD or a password file is looked for there, not in the URL.
    let wrong = [("PGPASSFILE", pgpass_env), ("PGPASSWORD", "wrong-password")];
    let out = oltpgen_env(&check, &wrong);
    assert_refused(&out, "; check the user in --url and the password in PGPASSWORD");
    assert!(!out.all().contains("wrong-password"), "{}", out.all());
    let wrong_file = dir.path().join("wrong-pgpass");
    std::fs::write(&wrong_file, format!("127.0.0.1:{port}:*:bench:wrong-password\n")).unwrap();
    std::fs::set_permissions(&wrong_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = oltpgen_env(&check, &[("PGPASSFILE", wrong_file.to_str().unwrap())]);
    let named =
        format!("; check the user in --url and its password in the password file {}", wrong_file.display());
    assert_refused(&out, &named);
    let passfile_url = format!("{no_password}?passfile={}", wrong_file.display());
    assert_refused(
        &oltpgen_env(&["tpcc", "check", "--url", &passfile_url], &[("PGPASSFILE", pgpass_env)]),
        &named,
    );
    assert!(!out.all().contains("wrong-password"), "{}", out.all());
    let out =
        oltpgen_env(&["tpcc", "check", "--url", &url("wrong-password", "tpcc")], &[("PGPASSWORD", SECRET)]);
    assert_refused(&out, "; check the user and password in --url");

    let out = oltpgen(&["tpcc", "check", "--url", &url(SECRET, "nosuchdb")]);
    assert_refused(&out, "\"nosuchdb\" does not exist; create it first");

    assert_refused(
        &oltpgen(&["tpcc", "check", "--url", &url(SECRET, "tpcc")]),
        "holds no tpcc database: load it first (oltpgen tpcc load)",
    );
    assert_refused(
        &oltpgen(&["ds2", "run", "--url", &url(SECRET, "tpcc")]),
        "holds no ds2 database: load it first (oltpgen ds2 load)",
    );

    let bench = sql(&oltpgen_driver::engine::parse_url(&url(SECRET, "tpcc")).unwrap()).await;
    bench.batch_execute("CREATE TABLE warehouse (x int); INSERT INTO warehouse VALUES (42)").await.unwrap();
    for args in [vec!["tpcc", "load", "--replace"], vec!["tpcc", "check"], vec!["tpcc", "drop"]] {
        let out = oltpgen(&[&args[..], &["--url", &url(SECRET, "tpcc")]].concat());
        assert_refused(&out, "holds tables oltpgen did not load (warehouse)");
    }
    let kept: i32 = bench.query_one("SELECT x FROM warehouse", &[]).await.unwrap().get(0);
    assert_eq!(kept, 42, "a refused command loses nothing");
    bench.batch_execute("CREATE TABLE products (x int); INSERT INTO products VALUES (7)").await.unwrap();
    for args in [vec!["ds2", "load", "--replace"], vec!["ds2", "check"], vec!["ds2", "drop"]] {
        let out = oltpgen(&[&args[..], &["--url", &url(SECRET, "tpcc")]].concat());
        assert_refused(&out, "holds tables oltpgen did not load (products)");
    }
    let kept: i32 = bench.query_one("SELECT x FROM products", &[]).await.unwrap().get(0);
    assert_eq!(kept, 7, "a refused command loses nothing");
}

/// A URL on which nothing listens: a run that got as far as connecting would say so instead.
fn nowhere() -> String {
    format!("postgres://bench:{SECRET}@127.0.0.1:1/tpcc")
}

#[test]
fn result_paths_are_checked_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "mine").unwrap();
    let file = file.to_str().unwrap();
    let url = nowhere();
    assert_refused(&oltpgen(&["tpcc", "run", "--url", &url, "--out", file]), "is a file, not a directory");
    assert_refused(&oltpgen(&["ds2", "run", "--url", &url, "--out", file]), "is a file, not a directory");
    assert_refused(
        &oltpgen(&["tpcc", "run", "--url", &url, "--out", "/proc/oltpgen"]),
        "--out: cannot write",
    );
    let missing = dir.path().join("missing.csv");
    assert_refused(
        &oltpgen(&["tpcc", "run", "--url", &url, "--power-log", missing.to_str().unwrap()]),
        "--power-log: cannot read",
    );
    let out = dir.path().join("out").to_str().unwrap().to_string();
    assert_refused(
        &oltpgen(&["ds2", "run", "--url", &url, "--out", &out, "--csv-output", dir.path().to_str().unwrap()]),
        "--csv-output: ",
    );
    assert_eq!(std::fs::read_to_string(file).unwrap(), "mine", "a refused command loses nothing");
}

#[test]
fn an_out_holding_a_result_is_refused_unless_replace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("result.json"), "{}").unwrap();
    let out = dir.path().to_str().unwrap();
    for workload in ["tpcc", "ds2"] {
        assert_refused(
            &oltpgen(&[workload, "run", "--url", &nowhere(), "--out", out]),
            "already holds a result: name another directory, or pass --replace",
        );
        // With --replace the run goes on, to the server that is not there.
        assert_refused(
            &oltpgen(&[workload, "run", "--url", &nowhere(), "--out", out, "--replace"]),
            "cannot connect",
        );
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("result.json")).unwrap(), "{}");
}

/// Files a user keeps in an output's way: each must be left as it was by a refused command.
fn user_files(dir: &std::path::Path) -> Vec<(std::path::PathBuf, &'static str)> {
    let files = vec![
        (dir.join("mine/summary.txt"), "my summary"),
        (dir.join("mine/report.html"), "my page"),
        (dir.join("merge/timeseries.csv"), "my series"),
        (dir.join("page.html"), "my html"),
        (dir.join("load1.log"), "my log"),
        (dir.join("result.json"), "another run's result"),
    ];
    for (path, text) in &files {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    files
}

/// An output never writes over a file, nor into a directory holding someone's files, nor under a file
/// (naming it): each is refused before any work, in one line, exit 2; an empty directory is fine.
#[test]
fn outputs_never_write_over_a_file_or_into_someone_s_directory() {
    let dir = tempfile::tempdir().unwrap();
    let files = user_files(dir.path());
    let at = |p: &str| dir.path().join(p).to_str().unwrap().to_string();
    let result = dir.path().join("r.json");
    std::fs::write(&result, serde_json::to_string(&crate::report_html::sweep()).unwrap()).unwrap();
    let result = result.to_str().unwrap();
    let copy = dir.path().join("copy.json");
    let mut other = crate::report_html::sweep();
    other.started_at = "2026-01-01T00:00:00Z".into();
    std::fs::write(&copy, serde_json::to_string(&other).unwrap()).unwrap();
    let copy = copy.to_str().unwrap();
    let url = nowhere();
    let log = at("load1.log");
    let refusals: [(Vec<String>, String); 11] = [
        (
            vec!["ds2".into(), "run".into(), "--csv-output".into(), at("result.json")],
            format!("--csv-output: {} already exists: name a new file", at("result.json")),
        ),
        (
            vec!["tpcc".into(), "run".into(), "--out".into(), at("mine")],
            format!(
                "--out: {} holds files that are not an oltpgen result (report.html and 1 more): name a new or empty directory",
                at("mine")
            ),
        ),
        (
            vec!["ds2".into(), "run".into(), "--out".into(), at("mine"), "--replace".into()],
            "holds files that are not an oltpgen result".into(),
        ),
        (
            vec!["report".into(), "merge".into(), result.into(), copy.into(), "--out".into(), at("merge")],
            format!("--out: {} holds files that are not an oltpgen result (timeseries.csv)", at("merge")),
        ),
        (
            vec!["report".into(), "html".into(), result.into(), "--out".into(), at("page.html")],
            format!("--out: {} already exists", at("page.html")),
        ),
        (
            vec!["tpcc".into(), "run".into(), "--out".into(), format!("{log}/sub")],
            format!("--out: {log} is a file, not a directory, so {log}/sub cannot be made"),
        ),
        // A mistyped --out makes nothing: only the last directory of a path is made.
        (
            vec!["tpcc".into(), "run".into(), "--out".into(), at("nonexistent/parent/x")],
            format!(
                "--out: {} does not exist, so {} cannot be made (oltpgen makes only the last directory)",
                at("nonexistent/parent"),
                at("nonexistent/parent/x")
            ),
        ),
        (
            vec!["report".into(), "html".into(), result.into(), "--out".into(), at("nonexistent/dir/")],
            format!("--out: {} does not exist", at("nonexistent")),
        ),
        (
            vec!["ds2".into(), "run".into(), "--csv-output".into(), format!("{log}/x.csv")],
            format!("--csv-output: {log} is a file, not a directory, so {log}/x.csv cannot be made"),
        ),
        (
            vec!["report".into(), "html".into(), result.into(), "--out".into(), format!("{log}/x.html")],
            format!("--out: {log} is a file, not a directory"),
        ),
        (
            vec![
                "report".into(),
                "merge".into(),
                result.into(),
                copy.into(),
                "--out".into(),
                format!("{log}/m"),
            ],
            format!("--out: {log} is a file, not a directory"),
        ),
    ];
    for (args, needle) in refusals {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        if args[0] != "report" {
            args.extend(["--url", &url]);
        }
        assert_refused(&oltpgen(&args), &needle);
    }
    for (path, text) in &files {
        assert_eq!(std::fs::read_to_string(path).unwrap(), *text, "{} is kept", path.display());
    }
    assert_eq!(std::fs::read_dir(dir.path().join("mine")).unwrap().count(), 2, "nothing is added to it");

    // An empty directory is fine: the run goes on, to the server that is not there, and the directory
    // it did not make stays; one it made for a result it never wrote goes, so a retry is not refused.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for out in [empty.clone(), dir.path().join("new")] {
        for workload in ["tpcc", "ds2"] {
            let args = [workload, "run", "--url", &url, "--out", out.to_str().unwrap()];
            assert_refused(&oltpgen(&args), "cannot connect");
        }
    }
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "no marker is left behind");
    assert!(!dir.path().join("new").exists(), "a failed run leaves no directory it made");
    assert!(!dir.path().join("nonexistent").exists(), "a mistyped --out makes nothing");
    let csv = dir.path().join("x.csv");
    let args = ["ds2", "run", "--url", &url, "--csv-output", csv.to_str().unwrap()];
    assert_refused(&oltpgen(&args), "cannot connect");
    assert!(!csv.exists(), "a failed run leaves no --csv-output file it made");
    // A marker left by a command that was killed (nobody holds its lock) does not block the next.
    std::fs::write(empty.join(".oltpgen-writing"), "999999\n").unwrap();
    let args = ["tpcc", "run", "--url", &url, "--out", empty.to_str().unwrap()];
    assert_refused(&oltpgen(&args), "cannot connect");
}

#[test]
fn a_run_that_would_not_measure_is_refused() {
    assert_refused(
        &oltpgen(&["tpcc", "run", "--duration", "0", "--url", &nowhere()]),
        "must be longer than 0",
    );
    for (workload, users) in [("tpcc", "--users"), ("ds2", "--n-threads")] {
        let url = nowhere();
        let args = [workload, "run", users, "10", "--ramp-rate", "1", "--window", "5s..20s", "--url", &url];
        assert_refused(
            &oltpgen(&args),
            "--window 5s..20s starts before the 10 users of step 1 have all started",
        );
        let url = nowhere();
        assert_refused(
            &oltpgen(&[workload, "run", "--client-threads", "0", "--url", &url]),
            "invalid value '0' for '--client-threads <N>'",
        );
    }
}

/// --window measures its own part of each step, replacing the warmup and the measured time: giving
/// both is refused with clap's own message, not silently overridden.
#[test]
fn a_window_with_an_explicit_warmup_or_duration_is_refused() {
    let url = nowhere();
    for (workload, flag, value) in [
        ("tpcc", "--duration", "5m"),
        ("tpcc", "--warmup", "30s"),
        ("ds2", "--run-time", "5"),
        ("ds2", "--warmup-time", "1"),
    ] {
        let out = oltpgen(&[workload, "run", flag, value, "--window", "100s..120s", "--url", &url]);
        assert_refused(&out, &format!("the argument '{flag} <"));
        assert!(out.stderr.contains("cannot be used with '--window <A..B>'"), "{}", out.stderr);
    }
    // Alone, the window is what the banner says is measured (the run then fails on the missing server).
    let out = oltpgen(&["tpcc", "run", "--window", "100s..120s", "--url", &url]);
    assert_refused(&out, "cannot connect");
}

/// run and check on a throwaway database can never work: refused before a server is started (the
/// missing binaries would be named otherwise), pointing at the bare command; load still works.
#[test]
fn run_and_check_on_a_throwaway_database_are_refused_up_front() {
    let no_server = [("OLTPGEN_PG_BIN", "/nonexistent")];
    for workload in ["tpcc", "ds2"] {
        for command in ["run", "check"] {
            let out = oltpgen_env(&[workload, command, "--temp-db"], &no_server);
            assert_refused(
                &out,
                &format!(
                    "--temp-db starts an empty database, which `{workload} {command}` has nothing to work on: \
                     `oltpgen {workload} --temp-db …` loads and runs in one command"
                ),
            );
        }
        // load and the bare command start the server (and so meet the missing binaries).
        for args in [vec![workload, "load", "--temp-db"], vec![workload, "--temp-db"]] {
            assert_refused(&oltpgen_env(&args, &no_server), "does not hold initdb, pg_ctl and postgres");
        }
    }
}

/// run and check on a --data-dir where no built-in PostgreSQL was ever made are refused before one is
/// made (they made a 48 MB instance, and left it, only to say "load it first").
#[test]
fn run_and_check_on_a_data_dir_without_an_instance_are_refused_and_make_nothing() {
    let (_keep, root) = crate::common::data_dir();
    for workload in ["tpcc", "ds2"] {
        for command in ["run", "check"] {
            let out = oltpgen(&[workload, command, "--data-dir", &root]);
            assert_refused(
                &out,
                &format!(
                    "there is no built-in PostgreSQL in {root} yet, so `{workload} {command}` has nothing to \
                     work on: load it first (oltpgen {workload} load --data-dir {root}), or pass --url"
                ),
            );
            assert!(!std::path::Path::new(&root).exists(), "nothing was made: {}", out.all());
        }
    }
}

/// Every tpcc command takes several --url, but one database named twice is refused before anything
/// starts, in words that fit tpcc (not ds2's --n-threads).
#[test]
fn tpcc_refuses_a_database_named_twice() {
    let url = nowhere();
    let other_user = url.replace("bench:", "other:");
    for second in [&url, &other_user] {
        for command in ["run", "check", "load", "drop"] {
            let out = oltpgen(&["tpcc", command, "--url", &url, "--url", second]);
            assert_refused(&out, "twice: give each database once");
            assert!(!out.stderr.contains("--n-threads"), "{}", out.stderr);
        }
    }
}

/// An interval so short the collector would do nothing but its bookkeeping.
#[test]
fn report_intervals_below_100ms_are_refused() {
    let url = nowhere();
    let tpcc = oltpgen(&["tpcc", "run", "--report-interval", "1ns", "--url", &url]);
    assert_refused(&tpcc, "invalid value '1ns' for '--report-interval <DURATION>': must be at least 100ms");
    let ds2 = oltpgen(&["ds2", "run", "--report-rate", "0.01", "--url", &url]);
    assert_refused(&ds2, "invalid value '0.01' for '--report-rate <SECONDS>': must be at least 100ms");
    // 100 ms itself is taken: the run goes on, to the server that is not there.
    assert_refused(&oltpgen(&["tpcc", "run", "--report-interval", "100ms", "--url", &url]), "cannot connect");
}

#[test]
fn argument_errors_keep_clap_s_names_and_tips() {
    assert_refused(&oltpgen(&["tpcc", "run", "--user", "5"]), "a similar argument exists: '--users'");
    assert_refused(&oltpgen(&["report", "merge"]), "were not provided: --out <DIR>");
}

#[test]
fn oltpgen_url_from_the_environment_is_named_and_yields_to_explicit_flags() {
    let env_url = |url: &str, args: &[&str]| oltpgen_env(args, &[("OLTPGEN_URL", url)]);
    assert_refused(&env_url("oracle://x/y", &["tpcc", "check"]), "OLTPGEN_URL has an unknown scheme");
    let out = env_url(&nowhere(), &["tpcc", "check"]);
    assert_refused(&out, "the host and port in OLTPGEN_URL right?");
    // Empty counts as unset; --temp-db and --data-dir win over the variable.
    for url in ["", &nowhere()] {
        assert_refused(&env_url(url, &["tpcc", "check", "--temp-db"]), "--temp-db starts an empty database");
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pg");
    let out = env_url(&nowhere(), &["local", "status", "--data-dir", root.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("initialised: no"), "{}", out.stdout);
}

/// What a user may not expect is said before the run: a range that stops short of its end, more
/// users per warehouse than the spec's 10 terminals.
#[test]
fn surprising_user_loads_are_noted_before_the_run() {
    let out = oltpgen(&["tpcc", "run", "--users", "5..10:2", "--url", &nowhere()]);
    assert_refused(&out, "cannot connect");
    assert!(
        out.stdout.contains("note: --users 5..10:2 ends at 9: 10 is not on a step of 2 from 5"),
        "{}",
        out.stdout
    );
    let out = oltpgen(&["ds2", "run", "--n-threads", "4..10:4", "--url", &nowhere()]);
    assert!(out.stdout.contains("note: --n-threads 4..10:4 ends at 8"), "{}", out.stdout);
    let out = oltpgen(&["tpcc", "--scale", "2", "--users", "200", "--url", &nowhere()]);
    assert_refused(&out, "cannot connect");
    assert!(
        out.stdout
            .contains("note: --users 200 users on 2 warehouse(s) is 100 per warehouse; the spec has 10"),
        "{}",
        out.stdout
    );
}

#[test]
fn an_unreachable_sql_server_is_named_without_its_password() {
    let url = format!("sqlserver://bench:{SECRET}@127.0.0.1:1/tpcc");
    assert_refused(
        &oltpgen(&["tpcc", "check", "--url", &url]),
        "cannot connect to sqlserver://bench@127.0.0.1:1/tpcc",
    );
    let ado = format!("Server=tcp:127.0.0.1,1;Database=tpcc;User Id=bench;Password={SECRET}");
    assert_refused(
        &oltpgen(&["tpcc", "check", "--url", &ado]),
        "cannot connect to sqlserver://bench@127.0.0.1:1/tpcc",
    );
    let url = format!("sqlserver://bench:{SECRET}@db1/tpcc?encrypt=sometimes");
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &url]), "encrypt must be");
    assert_refused(
        &oltpgen(&["ds2", "check", "--url", &url.replace("?encrypt=sometimes", "")]),
        "cannot connect",
    );
}

/// A `sqlserver://` URL pointed at a PostgreSQL server's port.
#[test]
fn a_postgresql_port_given_a_sql_server_url_is_explained() {
    let pg = LocalPg::start(&Placement::Temp, 10, &crate::common::test_stderr())
        .expect("the built-in PostgreSQL starts");
    let url = format!("sqlserver://bench:{SECRET}@127.0.0.1:{}/tpcc", pg.port());
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &url]), "is it a SQL Server (TDS) port?");
}

/// The SQL Server test server's refusals: wrong password (18456), no password, no such database, TLS
/// demanded with a certificate nobody trusts; a DS2 check of a database without DS2.
#[cfg_attr(
    not(oltpgen_test_mssql),
    ignore = "needs a SQL Server: set OLTPGEN_TEST_MSSQL_URL (../shared/babelfish/start prints one)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn the_sql_server_refusals_are_explained() {
    let url = crate::common::mssql_url();
    let _turn = crate::common::mssql_turn().await;
    let db = crate::common::MssqlDb::create(&url, "refusals").await;
    // `sqlserver://user:password@host…`: what follows the scheme, split around the password.
    let rest = db.url.split_once(':').unwrap().1.to_string();
    let at = rest.find('@').unwrap();
    let user_end = rest[..at].rfind(':').unwrap();
    let with_password = |pw: &str| format!("sqlserver:{}:{pw}{}", &rest[..user_end], &rest[at..]);
    let out = oltpgen(&["tpcc", "check", "--url", &with_password("wrong-Pa55")]);
    assert_refused(&out, "the server refused the login");
    assert!(!out.all().contains("wrong-Pa55"), "{}", out.all());
    let no_password = format!("sqlserver:{}{}", &rest[..user_end], &rest[at..]);
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &no_password]), "no password was given");
    // A PostgreSQL URL given the SQL Server's port: TDS never answers PostgreSQL's startup message.
    let pg_url = format!("postgres://bench:{SECRET}{}", rest[at..].split('?').next().unwrap());
    let out = oltpgen(&["tpcc", "check", "--url", &pg_url]);
    assert_refused(&out, "no PostgreSQL answer within 20 s: is it a PostgreSQL port?");
    let other_db = crate::common::mssql_with_db(&db.url, "issue14_nosuchdb");
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &other_db]), "create the database first");
    let tls = format!("{}{}encrypt=true", db.url, if db.url.contains('?') { "&" } else { "?" });
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &tls]), "TLS failed");
    assert_refused(&oltpgen(&["ds2", "check", "--url", &db.url]), "holds no ds2 database: load it first");

    // Foreign tables are never touched; a load that did not finish is named by every command.
    let mut client = crate::common::mssql(&db.url).await;
    crate::common::mssql_exec(&mut client, "CREATE TABLE warehouse (w_id INT)").await;
    let load = ["tpcc", "load", "--scale", "1", "--url", &db.url];
    assert_refused(&oltpgen(&load), "holds tables oltpgen did not load (warehouse)");
    assert_refused(&oltpgen(&["tpcc", "drop", "--url", &db.url]), "left alone");
    let still = "SELECT COUNT(*) FROM sys.tables WHERE name = 'warehouse'";
    assert_eq!(crate::common::mssql_int(&mut client, still).await, 1);
    crate::common::mssql_exec(
        &mut client,
        "DROP TABLE warehouse; CREATE TABLE oltpgen_meta (workload VARCHAR(64) PRIMARY KEY, state VARCHAR(16), \
         params NVARCHAR(MAX), tool_version VARCHAR(32), updated_at DATETIME2 DEFAULT SYSDATETIME()); \
         INSERT INTO oltpgen_meta (workload, state, params, tool_version) VALUES ('tpcc', 'loading', '{}', '0')",
    )
    .await;
    let half = "a tpcc load into sqlserver://";
    assert_refused(&oltpgen(&["tpcc", "check", "--url", &db.url]), half);
    assert_refused(&oltpgen(&load), "started and did not finish: pass --replace");
}

/// A raw '@' in the password: tokio-postgres would end it at the first '@' and show the rest as the
/// host; the URL is refused before parsing, naming nothing of the user's part.
#[test]
fn a_raw_at_sign_in_a_password_is_refused_without_showing_it() {
    for (scheme, password) in [("postgres", "Sec@ret91"), ("postgresql", "Sec@ret91@x")] {
        let url = format!("{scheme}://oltpgen:{password}@127.0.0.1:1/tpcc");
        let out = oltpgen(&["tpcc", "check", "--url", &url]);
        assert_refused(&out, "the part before the host holds more than one '@': percent-encode an '@'");
        for piece in [password, "ret91", "Sec"] {
            assert!(!out.all().contains(piece), "{piece} shown:\n{}", out.all());
        }
    }
    // SQL Server's parser ends the password at the last '@': nothing of it shows either way.
    let out = oltpgen(&["tpcc", "check", "--url", "sqlserver://oltpgen:Sec@ret91@127.0.0.1:1/tpcc"]);
    assert_refused(&out, "cannot connect to sqlserver://oltpgen@127.0.0.1:1/tpcc");
    let out = oltpgen(&["tpcc", "check", "--url", "sqlserver://oltpgen:Sec/ret91@127.0.0.1:1/tpcc"]);
    assert_refused(&out, "an '@' after the host");
    for out in [out, oltpgen(&["tpcc", "check", "--url", "sqlserver://oltpgen:Sec@ret91@127.0.0.1:x/tpcc"])] {
        assert!(!out.all().contains("ret91") && !out.all().contains("Sec"), "{}", out.all());
    }
}
