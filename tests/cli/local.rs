//! The built-in PostgreSQL is safe: it removes only its own directory, one command at a time uses it, a
//! server left by a killed oltpgen is recognised, and nobody connects without its password.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use oltpgen_driver::local::LocalPg;

use crate::common::{assert_refused, data_dir, finish, oltpgen, oltpgen_env, spawn, sql};

/// The postmasters running on the cluster in `root/data` (their command lines name it).
fn postmasters(root: &str) -> usize {
    let data = format!("{root}/data");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| c.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect::<Vec<_>>())
        .filter(|argv| argv[0].ends_with("postgres") && argv.contains(&data))
        .count()
}

/// Asserts that no postmaster runs on `root`'s cluster, allowing one that `pg_ctl stop` reported
/// stopped a moment to exit.
#[track_caller]
fn assert_no_postmaster(root: &str, why: &str) {
    for _ in 0..100 {
        if postmasters(root) == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(postmasters(root), 0, "{why}");
}

/// Starts `tpcc load --scale 1` on `root` and returns once it holds the instance and its server runs.
fn load_under_way(root: &str) -> Child {
    let mut load = spawn(&["tpcc", "load", "--scale", "1", "--data-dir", root, "-q"]);
    for _ in 0..600 {
        let s = LocalPg::status(Path::new(root));
        if s.in_use_by == Some(load.id()) && s.running_port.is_some() {
            return load;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = load.kill();
    let _ = load.wait();
    panic!("the load never started its server");
}

#[test]
fn local_rm_removes_only_what_oltpgen_made_and_a_full_data_dir_is_refused() {
    use std::os::unix::fs::MetadataExt;
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().to_str().unwrap();
    std::fs::write(home.path().join("thesis.tex"), "years of work").unwrap();
    let owner = std::fs::metadata(dir).unwrap().uid();

    assert_refused(&oltpgen(&["local", "rm", "--data-dir", dir]), "is not an oltpgen instance");
    assert_refused(
        &oltpgen(&["tpcc", "check", "--data-dir", dir]),
        &format!("--data-dir {dir} holds files that are not an oltpgen instance"),
    );
    assert_eq!(std::fs::read_to_string(home.path().join("thesis.tex")).unwrap(), "years of work");
    assert_eq!(std::fs::metadata(dir).unwrap().uid(), owner, "the directory was not handed to the server");
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1, "nothing was added beside the user's file");

    // An instance oltpgen made is removed whole.
    let (_keep, root) = data_dir();
    assert_eq!(oltpgen(&["local", "start", "--data-dir", &root]).code, 0);
    let out = oltpgen(&["local", "rm", "--data-dir", &root]);
    assert!(out.stdout.contains("removed"), "{}", out.all());
    assert!(!Path::new(&root).exists());
    assert_no_postmaster(&root, "stopped");
}

#[test]
fn local_rm_keeps_what_the_user_put_inside_the_instance_and_names_it() {
    let (_keep, root) = data_dir();
    assert_eq!(oltpgen(&["local", "start", "--data-dir", &root]).code, 0);
    let notes = Path::new(&root).join("my-results/notes.txt");
    std::fs::create_dir_all(notes.parent().unwrap()).unwrap();
    std::fs::write(&notes, "what the run showed").unwrap();
    std::fs::write(Path::new(&root).join("todo.txt"), "rerun").unwrap();

    let out = oltpgen(&["local", "rm", "--data-dir", &root]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        out.stdout.contains(&format!(
            "removed the built-in PostgreSQL in {root}; kept what oltpgen did not make there: my-results, todo.txt"
        )),
        "{}",
        out.all()
    );
    assert_no_postmaster(&root, "stopped");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "what the run showed");
    let mut left: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["my-results", "todo.txt"], "oltpgen's own entries went, and only they stayed");
    assert_refused(&oltpgen(&["local", "rm", "--data-dir", &root]), "is not an oltpgen instance");
}

#[test]
fn a_second_command_on_an_instance_is_refused_naming_the_first() {
    let (_keep, root) = data_dir();
    let load = load_under_way(&root);
    let holder = format!("in use by another oltpgen (pid {})", load.id());
    for args in [["tpcc", "check"], ["local", "stop"], ["local", "rm"]] {
        let out = oltpgen(&[&args[..], &["--data-dir", &root]].concat());
        assert_refused(&out, &holder);
        assert!(out.stderr.contains(&format!("--data-dir {root}")), "{}", out.stderr);
    }
    let out = finish(load);
    assert_eq!(out.code, 0, "the first command went on undisturbed:\n{}", out.all());
    let out = oltpgen(&["tpcc", "check", "--data-dir", &root]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_postmaster(&root, "the server stopped with the last command");
}

#[test]
fn a_server_left_by_a_killed_oltpgen_is_restarted_by_the_next_command() {
    let (_keep, root) = data_dir();
    let mut load = load_under_way(&root);
    let pid = load.id();
    assert!(Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap().success());
    load.wait().unwrap();
    assert_eq!(postmasters(&root), 1, "SIGKILL leaves the server running");

    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--replace", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        out.stderr.contains(&format!("was left running by oltpgen pid {pid}, which was killed")),
        "{}",
        out.stderr
    );
    assert_no_postmaster(&root, "no server is left behind");
    let out = oltpgen(&["tpcc", "check", "--data-dir", &root]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_no_postmaster(&root, "stopped");
}

#[test]
fn a_throwaway_instance_left_by_a_killed_oltpgen_is_removed_by_the_next_temp_db_command() {
    use std::os::unix::process::CommandExt;
    // A temporary directory of the test's own, so that no other test's --temp-db command sweeps first.
    let (tmp, _) = data_dir();
    let tmpdir = tmp.path().to_str().unwrap();
    // Load, then run for longer than the test: it is under way when it is killed.
    let mut load = Command::new(env!("CARGO_BIN_EXE_oltpgen"))
        .args(["tpcc", "--scale", "1", "--users", "1", "--duration", "10m", "--temp-db", "-q"])
        .env("TMPDIR", tmpdir)
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = load.id();
    let mut root = None;
    for _ in 0..600 {
        root = std::fs::read_dir(tmpdir).unwrap().flatten().map(|e| e.path()).find(|p| {
            let s = LocalPg::status(p);
            s.in_use_by == Some(pid) && s.running_port.is_some()
        });
        if root.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let root = root.expect("the load started its throwaway server");
    let root_text = root.to_str().unwrap().to_string();
    let group = format!("-{pid}");
    assert!(Command::new("kill").args(["-s", "KILL", "--", &group]).status().unwrap().success());
    let mut killed = None;
    for _ in 0..200 {
        killed = load.try_wait().unwrap();
        if killed.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if killed.is_none() {
        let _ = load.kill();
        let _ = load.wait();
    }
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(killed.and_then(|s| s.signal()), Some(9), "the command was killed by SIGKILL");
    assert_eq!(postmasters(&root_text), 1, "SIGKILL of its process group leaves the server running");

    // A user's lasting instance in the same temporary directory, not running, is not touched.
    let lasting = tmp.path().join("oltpgen-pg-lasting");
    let lasting_text = lasting.to_str().unwrap();
    assert_eq!(oltpgen(&["local", "stop", "--data-dir", lasting_text]).code, 0);
    assert_eq!(oltpgen(&["local", "start", "--data-dir", lasting_text]).code, 0);
    assert_eq!(oltpgen(&["local", "stop", "--data-dir", lasting_text]).code, 0);

    let out = oltpgen_env(&["tpcc", "drop", "--temp-db"], &[("TMPDIR", tmpdir)]);
    assert!(
        out.stderr.contains(&format!(
            "note: removed the throwaway built-in PostgreSQL in {root_text} left behind by oltpgen pid {pid}, \
             which was killed"
        )),
        "{}",
        out.all()
    );
    assert!(!root.exists(), "the abandoned directory is gone");
    assert_no_postmaster(&root_text, "its server was stopped");
    assert!(LocalPg::status(&lasting).initialised, "a lasting instance stays");
    let left: Vec<_> = std::fs::read_dir(tmpdir).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["oltpgen-pg-lasting"], "and the drop's own throwaway instance went at its end");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_built_in_server_asks_for_its_password_which_oltpgen_and_psql_have() {
    use std::os::unix::fs::PermissionsExt;
    let (_keep, root) = data_dir();
    let run = |args: &[&str]| oltpgen(&[args, &["--data-dir", root.as_str()][..]].concat());
    assert_eq!(run(&["local", "start"]).code, 0);
    let port = LocalPg::status(Path::new(&root)).running_port.expect("running");

    let mut no_password = tokio_postgres::Config::new();
    no_password.host("127.0.0.1").port(port).user("oltpgen").dbname("postgres");
    let err = no_password.connect(tokio_postgres::NoTls).await.err().expect("refused without a password");
    assert!(format!("{err:?}").contains("password missing"), "the server asked for one: {err:?}");
    let mut socket = no_password.clone();
    socket.host_path(&root);
    assert!(socket.connect(tokio_postgres::NoTls).await.is_err(), "the socket asks for it too");
    let mut guess = no_password.clone();
    guess.password("oltpgen");
    assert!(guess.connect(tokio_postgres::NoTls).await.is_err(), "a guess is refused");

    let passfile = Path::new(&root).join("passfile");
    assert_eq!(std::fs::metadata(&passfile).unwrap().permissions().mode() & 0o777, 0o600);

    let url = run(&["local", "url"]).stdout.trim().to_string();
    assert_eq!(url, format!("postgres://oltpgen@127.0.0.1:{port}/tpcc?passfile={}", passfile.display()));
    let psql = Command::new("/usr/lib/postgresql/15/bin/psql")
        .args([&url, "-Atc", "SELECT current_user"])
        .output()
        .expect("psql runs");
    assert_eq!(String::from_utf8_lossy(&psql.stdout).trim(), "oltpgen", "{psql:?}");
    let out = oltpgen(&["tpcc", "check", "--url", &url]);
    assert_refused(&out, "holds no tpcc database: load it first");

    assert!(run(&["local", "stop"]).stdout.contains("stopped"));
    assert!(run(&["local", "rm"]).stdout.contains("removed"));
}

/// A machine without PostgreSQL: the pinned build is fetched from Maven Central once, into a cache the
/// test names, and runs the instance. The cache is kept in the target directory, so a CI run downloads
/// it once; run as root, the server runs it as the postgres account, so it is kept where that account
/// can reach it whatever the checkout's parents allow (a clone under `mktemp -d` is 0700).
#[tokio::test(flavor = "multi_thread")]
async fn without_postgresql_binaries_the_pinned_build_is_fetched_once_and_runs() {
    let cache = if running_as_root() {
        Path::new("/var/tmp/oltpgen-test-pg-cache").to_path_buf()
    } else {
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("pg-cache")
    };
    let env = [("OLTPGEN_PG_BIN", "download"), ("OLTPGEN_PG_CACHE", cache.to_str().unwrap())];
    let (_keep, root) = data_dir();
    let run = |args: &[&str]| oltpgen_env(&[args, &["--data-dir", root.as_str()][..]].concat(), &env);
    let out = run(&["local", "url"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let version_dir = cache.join(format!("postgresql-{}", oltpgen_driver::local::download::VERSION));
    assert!(version_dir.join("bin/postgres").is_file(), "unpacked into the cache");
    let client = sql(&oltpgen_driver::engine::parse_url(out.stdout.trim()).unwrap()).await;
    let version: String = client.query_one("SHOW server_version", &[]).await.unwrap().get(0);
    assert!(oltpgen_driver::local::download::VERSION.starts_with(&version), "{version}");
    drop(client);
    let out = run(&["local", "stop"]);
    assert!(out.stdout.contains("stopped"), "{}", out.all());
    assert!(!out.stderr.contains("fetching"), "fetched once: {}", out.stderr);
    assert_no_postmaster(&root, "stopped");
    assert!(run(&["local", "rm"]).stdout.contains("removed"));
}

#[test]
fn a_new_instance_says_where_its_data_lives() {
    let (_keep, root) = data_dir();
    let out = oltpgen(&["local", "start", "--data-dir", &root]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stderr.contains(&format!("creating the built-in PostgreSQL in {root}")), "{}", out.stderr);
    let out = oltpgen(&["local", "stop", "--data-dir", &root]);
    assert!(out.stdout.contains("stopped") && !out.stderr.contains("creating"), "said once: {}", out.all());
    assert!(oltpgen(&["local", "rm", "--data-dir", &root]).stdout.contains("removed"));
}

#[test]
fn a_load_the_disk_cannot_take_is_refused_before_it_starts() {
    let (_keep, root) = data_dir();
    let out = oltpgen(&["tpcc", "load", "--scale", "100000", "--data-dir", &root]);
    assert_refused(
        &out,
        &format!("this load needs about 13.1 TB (tables, indexes and WAL) on the disk holding {root}"),
    );
    assert!(!Path::new(&root).exists(), "nothing was made");
    assert_refused(
        &oltpgen(&["ds2", "load", "--db-size", "1000GB", "--temp-db"]),
        "this load needs about 2.4 TB",
    );
    // The bare commands load an empty database too, and check the same way before they do.
    assert_refused(
        &oltpgen(&["tpcc", "--scale", "100000", "--temp-db", "--duration", "5s"]),
        "this load needs about 13.1 TB",
    );
    assert_refused(
        &oltpgen(&["ds2", "--db-size", "1000GB", "--temp-db", "--run-time", "5s"]),
        "this load needs about 2.4 TB",
    );
}

fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").unwrap().uid() == 0
}

/// Run as root, the built-in server runs as the postgres account; a --data-dir inside a directory that
/// account may not enter is refused in one line naming that directory, before anything is created.
#[test]
fn a_data_dir_the_server_account_cannot_reach_is_refused_naming_the_directory() {
    use std::os::unix::fs::PermissionsExt;
    if !running_as_root() {
        eprintln!(
            "skipped: not running as root, so the server runs as this user, who reaches any --data-dir it names"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let private = tmp.path().join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let root = private.join("pg");
    let out = oltpgen(&["local", "start", "--data-dir", root.to_str().unwrap()]);
    assert_refused(&out, &format!("may not enter {}", private.display()));
    assert!(!root.join("data").exists(), "nothing was created");
}

/// Run as root, a PostgreSQL build inside a directory the postgres account may not enter (a fetched
/// build cached under a private home, an OLTPGEN_PG_BIN there) is refused naming that directory and
/// how to move the build, not as a bare `Permission denied`.
#[test]
fn a_build_the_server_account_cannot_reach_is_refused_naming_the_directory() {
    use std::os::unix::fs::PermissionsExt;
    if !running_as_root() {
        eprintln!("skipped: not running as root, so the server runs as this user, who reaches the build");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let private = tmp.path().join("private");
    let bin = private.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .expect("the machine's PostgreSQL")
        .flatten()
        .map(|e| e.path().join("bin"))
        .find(|d| d.join("initdb").is_file())
        .expect("a PostgreSQL build under /usr/lib/postgresql");
    for program in ["initdb", "pg_ctl", "postgres"] {
        std::os::unix::fs::symlink(debian.join(program), bin.join(program)).unwrap();
    }
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let (_keep, root) = data_dir();
    let out =
        oltpgen_env(&["local", "start", "--data-dir", &root], &[("OLTPGEN_PG_BIN", bin.to_str().unwrap())]);
    assert_refused(&out, &format!("may not enter {} (above {})", private.display(), bin.display()));
    assert!(out.stderr.contains("OLTPGEN_PG_CACHE"), "says how to move the build: {}", out.stderr);
    assert!(!Path::new(&root).join("data").exists(), "nothing was created");
}
