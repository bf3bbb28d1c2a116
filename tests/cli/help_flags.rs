//! Each command offers only the flags it uses, in its own words (issue 39): `io run` none of the
//! database study's (restore, hooks, fault, agents, client threads), its cap's default its own; `local`
//! only `--data-dir`; a flag a command cannot use refused by clap in one line, exit 2; `--url`'s help
//! naming every engine's URL and password file, and DS2's example naming DS2's database.

use crate::common::{assert_refused, oltpgen};
use crate::io::{disk, io_run};

/// `oltpgen ARGS… --help`, which must succeed, its lines joined (clap wraps them at the terminal's
/// width) so that a phrase is found wherever it wraps.
fn help(args: &[&str]) -> String {
    let out = oltpgen(&[args, &["--help"]].concat());
    assert_eq!(out.code, 0, "{}", out.all());
    out.stdout.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The database study's flags, which `io` has no database, load or client threads for.
const DATABASE_STUDY_FLAGS: [&str; 10] = [
    "--restore",
    "--before-run",
    "--after-run",
    "--hook-timeout",
    "--fault-at",
    "--fault-cmd",
    "--client-threads",
    "--agent",
    "--start-at",
    "--url",
];

#[test]
fn io_run_offers_only_what_io_uses_and_states_its_own_cap() {
    let h = help(&["io", "run"]);
    for flag in DATABASE_STUDY_FLAGS {
        assert!(!h.contains(flag), "io run offers {flag}:\n{h}");
    }
    for words in ["derived from the load's seed", "per TPS", "NOPM", "OPM", "ds2:", "avg=1s"] {
        assert!(!h.contains(words), "io run's help says {words:?}:\n{h}");
    }
    assert!(h.contains("[default: avg=10ms]"), "io's own cap:\n{h}");
    assert!(h.contains("per IOPS"), "io's cost in its own unit:\n{h}");
    for flag in ["--rt-cap", "--runs", "--out", "--replace", "--run-seed", "--system-cost", "--window"] {
        assert!(h.contains(flag), "io run lost {flag}:\n{h}");
    }
}

#[test]
fn each_workload_s_rt_cap_help_states_its_own_default() {
    for (args, default) in [
        (&["tpcc", "run"][..], "avg=1s"),
        (&["tpcc"], "avg=1s"),
        (&["ds2", "run"], "order.avg=1s"),
        (&["ds2"], "order.avg=1s"),
        (&["custom", "run"], "avg=1s"),
        (&["io", "run"], "avg=10ms"),
    ] {
        let h = help(args);
        assert!(h.contains(&format!("[default: {default}]")), "{args:?}:\n{h}");
    }
    let h = help(&["tpcc", "run"]);
    assert!(!h.to_lowercase().contains("ds2"), "tpcc speaks of its own cap, not DS2's:\n{h}");
    assert!(h.contains("--restore") && h.contains("--agent"), "the database study stays:\n{h}");
}

#[test]
fn a_flag_io_cannot_use_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("io.dat");
    let file = file.to_str().unwrap();
    for (flag, value) in [
        ("--restore", None),
        ("--client-threads", Some("2")),
        ("--agent", Some("1/2")),
        ("--fault-at", Some("1s")),
        ("--before-run", Some("true")),
        ("--url", Some("postgres://h/db")),
    ] {
        let args = [&["io", "run", "--file", file, flag][..], value.as_slice()].concat();
        assert_refused(&oltpgen(&args), &format!("unexpected argument '{flag}'"));
    }
    assert!(!dir.path().join("io.dat").exists(), "nothing was made");
}

#[test]
fn p90_tpcc_on_io_says_it_is_tpc_c_s_preset() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("io.dat");
    let out = oltpgen(&["io", "run", "--file", file.to_str().unwrap(), "--rt-cap", "p90=tpcc"]);
    assert_refused(&out, "--rt-cap: `p90=tpcc` stands for TPC-C's five 90th-percentile limits");
    assert!(out.stderr.contains("io does not run") && out.stderr.contains("avg=10ms"), "{}", out.stderr);
    assert!(!out.stderr.contains("new_order"), "a rule never typed: {}", out.stderr);
    assert!(!file.exists());
}

#[test]
fn io_s_system_cost_is_per_iops() {
    let _disk = disk();
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let (file, out) = (dir.path().join("io.dat"), dir.path().join("r"));
    let run = io_run(&file, &out, &["--duration", "1s", "--system-cost", "100", "-q"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("cost: $100.00 system, $") && run.stdout.contains(" per IOPS"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("per TPS"), "{}", run.stdout);
}

#[test]
fn local_offers_only_its_directory() {
    for action in ["status", "url", "rm", "start", "stop"] {
        let h = help(&["local", action]);
        assert!(h.contains("--data-dir"), "local {action}:\n{h}");
        for flag in ["--url", "--temp-db"] {
            assert!(!h.contains(flag), "local {action} offers {flag}:\n{h}");
        }
    }
    assert_refused(&oltpgen(&["local", "status", "--url", "x"]), "unexpected argument '--url'");
    assert_refused(&oltpgen(&["local", "--temp-db", "status"]), "unexpected argument '--temp-db'");
}

#[test]
fn url_help_names_mysql_and_each_workload_s_own_database() {
    for args in [&["tpcc"][..], &["tpcc", "run"], &["ds2"], &["ds2", "load"], &["custom", "run"]] {
        let h = help(args);
        for words in ["mysql://", "mariadb://", "MYSQL_PWD", "~/.my.cnf", "PGPASSWORD", "SQLCMDPASSWORD"] {
            assert!(h.contains(words), "{args:?}'s --url help lacks {words}:\n{h}");
        }
    }
    for args in [&["ds2"][..], &["ds2", "run"]] {
        let h = help(args);
        assert!(h.contains("postgres://user@host:5432/ds2"), "{h}");
        assert!(!h.contains("/tpcc"), "DS2's database is ds2:\n{h}");
    }
    assert!(help(&["tpcc"]).contains("postgres://user@host:5432/tpcc"));
}

#[test]
fn tpcc_transactions_run_either_way_on_every_engine() {
    let h = help(&["tpcc", "run"]);
    assert!(!h.contains("on PostgreSQL and SQL Server"), "{h}");
    assert!(h.contains("--transactions <server|client>"), "{h}");
}
