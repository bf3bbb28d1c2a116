//! MariaDB for the MySQL-engine tests: a server of the test's own, on a throwaway data directory
//! (`mariadb-install-db`), its own port and socket, stopped and removed when dropped; SQL run on it as
//! root over the socket with Debian's `mariadb` client. The tests log in over TCP as `bench`, whose
//! password is [`SECRET`].
//!
//! Tests that need one carry
//! `#[cfg_attr(not(oltpgen_test_mariadb), ignore = "needs MariaDB: apt-get install mariadb-server mariadb-client")]`;
//! `build.rs` sets `oltpgen_test_mariadb` when the server's programs are installed. CI installs them
//! (`.ci/run`), and [`ci_runs_the_mariadb_tests`] fails a CI build that would ignore them.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::SECRET;

/// A MariaDB server of one test's own.
pub struct MariaDb {
    server: Child,
    socket: PathBuf,
    /// Its TCP port.
    pub port: u16,
    dir: tempfile::TempDir,
}

/// `name` on the `PATH` or in `/usr/sbin` (Debian's place for `mariadbd`).
fn program(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed: apt-get install mariadb-server mariadb-client"))
}

/// The account the tests run as, which the server runs as too (it refuses root unless told).
fn account() -> String {
    let out = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl MariaDb {
    /// Creates a data directory, starts the server on a free port and waits until it answers; creates
    /// the login `bench` (password [`SECRET`]), which may do anything.
    pub fn start() -> MariaDb {
        MariaDb::start_with(&[])
    }

    /// [`start`](Self::start) with the server's options `extra` too (`--performance-schema=ON`).
    pub fn start_with(extra: &[&str]) -> MariaDb {
        let dir =
            tempfile::Builder::new().prefix("oltpgen-mariadb-").tempdir().expect("a temporary directory");
        let data = dir.path().join("data");
        let user = format!("--user={}", account());
        // Its own tmpdir (issue 36), for the bootstrap too: with the default, /tmp, parallel tests'
        // bootstraps removed each other's temporary tables ("Could not remove temporary table:
        // '/tmp/#sql-temptable-…', error: 2", then "Unknown table 'mysql.tmp_user_sys'").
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).expect("the server's tmpdir");
        let install = Command::new(program("mariadb-install-db"))
            .args(["--no-defaults", &format!("--datadir={}", data.display()), &user])
            .arg(format!("--tmpdir={}", tmp.display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
            .output()
            .expect("mariadb-install-db runs");
        assert!(install.status.success(), "mariadb-install-db: {}", String::from_utf8_lossy(&install.stderr));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let socket = dir.path().join("mysqld.sock");
        // The server in the same tmpdir: with the default, /tmp, every test's server wrote its internal
        // temporary tables (`#sql-temptable-…`) into one directory, and one removing another's files
        // failed a statement ("Error on delete of '/tmp/#sql-temptable-….MAI' (Errcode: 2)").
        let server = Command::new(program("mariadbd"))
            .args(["--no-defaults", &format!("--datadir={}", data.display()), &user])
            .arg(format!("--port={port}"))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--pid-file={}", dir.path().join("mysqld.pid").display()))
            .args(["--bind-address=127.0.0.1", "--innodb-buffer-pool-size=128M", "--local-infile=1"])
            .args(["--innodb-flush-log-at-trx-commit=2", "--skip-name-resolve"])
            .arg(format!("--tmpdir={}", tmp.display()))
            .args(extra)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("server.log")).unwrap())
            .spawn()
            .expect("mariadbd starts");
        let db = MariaDb { server, socket, port, dir };
        for _ in 0..300 {
            if db.try_sql("", "SELECT 1").is_ok() {
                db.sql(
                    "",
                    &format!("CREATE USER bench@'%' IDENTIFIED BY '{SECRET}'; GRANT ALL ON *.* TO bench@'%'"),
                );
                return db;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("MariaDB did not start: {}", db.log());
    }

    /// The server's log so far.
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// The directory the server keeps its temporary files in (`@@tmpdir`): its own.
    pub fn tmpdir(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    /// A `mariadb://` URL for database `db` as `bench`, with the password.
    pub fn url(&self, db: &str) -> String {
        format!("mariadb://bench:{SECRET}@127.0.0.1:{}/{db}", self.port)
    }

    /// The same without the password.
    pub fn url_without_password(&self, db: &str) -> String {
        format!("mariadb://bench@127.0.0.1:{}/{db}", self.port)
    }

    /// Runs `sql` as root in database `db` (none when empty): its output, tab-separated, no headers.
    #[track_caller]
    pub fn sql(&self, db: &str, sql: &str) -> String {
        self.try_sql(db, sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// A number `sql` yields in database `db`.
    #[track_caller]
    pub fn int(&self, db: &str, sql: &str) -> i64 {
        let out = self.sql(db, sql);
        out.trim().parse().unwrap_or_else(|_| panic!("{sql} gave {out:?}"))
    }

    /// Starts `sql` as root in database `db` in the background (a session that holds locks); it ends
    /// when `sql` does.
    pub fn spawn_sql(&self, db: &str, sql: &str) -> Child {
        self.client(db, sql).stdout(Stdio::null()).spawn().expect("the mariadb client starts")
    }

    fn client(&self, db: &str, sql: &str) -> Command {
        let mut cmd = Command::new(program("mariadb"));
        cmd.args(["--no-defaults", "-uroot", "-N", "-B"]).arg(format!("--socket={}", self.socket.display()));
        if !db.is_empty() {
            cmd.arg(db);
        }
        cmd.args(["-e", sql]);
        cmd
    }

    fn try_sql(&self, db: &str, sql: &str) -> Result<String, String> {
        let out = self.client(db, sql).output().map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// Under CI (`CI` set, as `.ci/run` sets it) the MariaDB tests run rather than being ignored: a CI
/// build without the server installed fails here.
#[test]
fn ci_runs_the_mariadb_tests() {
    assert!(
        cfg!(oltpgen_test_mariadb) || std::env::var_os("CI").is_none(),
        "CI must run the MariaDB tests: install mariadb-server and mariadb-client before building them"
    );
}
