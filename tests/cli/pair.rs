//! A throwaway PostgreSQL primary and its streaming standby (`pg_basebackup -R`), for the failover
//! tests (`failover`) and the combination matrix (`tests/matrix`): started, loaded, failed over by a
//! `--fault-cmd`, and the orders each server holds read back.

use std::path::{Path, PathBuf};
use std::process::Command;

use oltpgen_driver::local::account::{RunAs, server_account};
use oltpgen_driver::local::binaries;

use crate::common::{data_dir, oltpgen};

/// A primary and its standby, each a server of its own on 127.0.0.1, run as the server's account; both
/// stopped (immediately) when dropped.
pub struct Pair {
    keep: tempfile::TempDir,
    bin: PathBuf,
    account: Option<RunAs>,
    dirs: [PathBuf; 2],
    /// Each server's port on 127.0.0.1: the primary's, then the standby's.
    pub ports: [u16; 2],
}

impl Pair {
    /// Loads `workload` of `size` (its size flags) into a database of its name on the primary.
    pub fn load(&self, workload: &str, size: &[&str]) {
        self.load_into(workload, workload, size);
    }

    /// Loads `workload` of `size` (its size flags) into a new database `db` on the primary.
    pub fn load_into(&self, workload: &str, db: &str, size: &[&str]) {
        let url = self.url_of(0, db);
        let args = [&[workload, "load", "--url", &url, "--create-database", "-q"][..], size].concat();
        let load = oltpgen(&args);
        assert_eq!(load.code, 0, "{}", load.all());
    }

    /// A primary whose commits wait for the standby (`synchronous`) or not, and the standby, streaming.
    pub fn start(synchronous: bool) -> Pair {
        let (keep, root) = data_dir();
        let root = PathBuf::from(root);
        let bin = binaries::find(&crate::common::test_stderr()).expect("PostgreSQL's binaries");
        let account = server_account().expect("an account to run PostgreSQL as");
        std::fs::create_dir_all(&root).unwrap();
        if let Some(a) = account {
            std::os::unix::fs::chown(&root, Some(a.uid), Some(a.gid)).unwrap();
        }
        let dirs = [root.join("primary"), root.join("standby")];
        let pair = Pair { keep, bin, account, dirs, ports: [free_port(), free_port()] };
        pair.run("initdb", &["-U", "postgres", "-A", "trust", "--no-locale", "-E", "UTF8", "-D"], 0);
        let sync = if synchronous { "synchronous_standby_names = 'standby'\n" } else { "" };
        pair.configure(0, &format!("wal_level = replica\nmax_wal_senders = 4\n{sync}"));
        pair.pg_ctl(0, &["start", "-w", "-t", "120", "-l"], "server.log");
        let standby = pair.dirs[1].to_str().unwrap().to_string();
        let port = pair.ports[0].to_string();
        let basebackup = pair.tool("pg_basebackup");
        let out = pair
            .command(&basebackup)
            .args(["-h", "127.0.0.1", "-p", &port, "-U", "postgres", "-X", "stream", "-R", "-D", &standby])
            .output()
            .unwrap();
        assert!(out.status.success(), "pg_basebackup: {}", String::from_utf8_lossy(&out.stderr));
        // The standby names itself to the primary by its cluster name (synchronous_standby_names); once
        // promoted it has no standby of its own to wait for (it copied the primary's settings).
        pair.configure(1, "cluster_name = 'standby'\nsynchronous_standby_names = ''\n");
        pair.pg_ctl(1, &["start", "-w", "-t", "120", "-l"], "server.log");
        pair
    }

    /// `oltpgen`'s URL for database `db` on both servers, the primary wanted.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/{db}?target_session_attrs=read-write",
            self.ports[0], self.ports[1]
        )
    }

    /// The URL of server `i` alone.
    pub fn url_of(&self, i: usize, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.ports[i])
    }

    /// The program `name` beside the server's binaries, or on the `PATH`.
    fn tool(&self, name: &str) -> PathBuf {
        let beside = self.bin.join(name);
        if beside.is_file() { beside } else { PathBuf::from(name) }
    }

    /// `program` run as the server's account.
    fn command(&self, program: &Path) -> Command {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(program);
        cmd.current_dir(self.dirs[0].parent().unwrap()).env("LC_ALL", "C");
        if let Some(a) = self.account {
            cmd.uid(a.uid).gid(a.gid);
        }
        cmd
    }

    /// Runs `program args… <server i's directory>`, which must succeed.
    fn run(&self, program: &str, args: &[&str], i: usize) {
        let out = self.command(&self.bin.join(program)).args(args).arg(&self.dirs[i]).output().unwrap();
        assert!(out.status.success(), "{program}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// `pg_ctl -D <server i> args… <log>`.
    fn pg_ctl(&self, i: usize, args: &[&str], log: &str) {
        let log = self.dirs[i].join(log);
        let out = self
            .command(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.dirs[i])
            .args(args)
            .arg(log)
            .output()
            .unwrap();
        assert!(out.status.success(), "pg_ctl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// Adds `lines` to server `i`'s settings, with its port and a socket in its own directory.
    fn configure(&self, i: usize, lines: &str) {
        use std::io::Write;
        let conf = self.dirs[i].join("postgresql.conf");
        let mut f = std::fs::OpenOptions::new().append(true).open(conf).unwrap();
        write!(
            f,
            "\nport = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\nshared_buffers = 64MB\n\
             max_connections = 40\n{lines}",
            self.ports[i],
            self.dirs[i].display()
        )
        .unwrap();
    }

    /// The failover as one shell command for `--fault-cmd`: the primary stopped at once (as if it
    /// crashed), `between` run (a shell command), the standby promoted; as the server's account.
    pub fn fail_over_cmd(&self, between: &str) -> String {
        let as_server = if self.account.is_some() { "runuser -u postgres -- " } else { "" };
        let pg_ctl = self.bin.join("pg_ctl");
        let [primary, standby] = [0, 1].map(|i| self.dirs[i].display().to_string());
        format!(
            "{as_server}{pg_ctl} -D {primary} stop -m immediate && {between} && {as_server}{pg_ctl} -D {standby} \
             promote -w",
            pg_ctl = pg_ctl.display()
        )
    }

    /// The shell command that lets the held-back standby ([`hold_back_standby`](Self::hold_back_standby),
    /// its WAL receiver's pid in `pid_file`) lose what it had not read: the receiver killed, then a
    /// wait until the standby's postmaster has reaped it and, restarted after it, answers again. A
    /// promotion asked while the postmaster restarts can be lost (it has no startup process to hand it
    /// to), and `pg_ctl promote -w` then waits its whole minute: in 3 runs of 16 of `failover_any`, the
    /// failover command was still running when the 40 s run ended, the standby never promoted.
    pub fn drop_unread_wal_cmd(&self, pid_file: &Path) -> String {
        let (pid, ready) = (format!("$(cat {})", pid_file.display()), self.tool("pg_isready"));
        format!(
            "kill -KILL {pid} && while kill -0 {pid} 2>/dev/null; do sleep 0.1; done && until {} -q -h \
             127.0.0.1 -p {} -U postgres; do sleep 0.1; done",
            ready.display(),
            self.ports[1]
        )
    }

    /// Starts the old primary again, alone (no standby of the new primary: a diverged copy to compare).
    pub fn restart_old_primary(&self) {
        self.pg_ctl(0, &["start", "-w", "-t", "120", "-l"], "server.log");
    }

    /// The scratch directory the servers live in, for the test's own files (results, logs).
    pub fn dir(&self) -> &Path {
        self.keep.path()
    }

    /// Holds the standby back: its WAL receiver stopped (`SIGSTOP`), so that the primary runs ahead of
    /// it; its pid written to `pid_file`, for a failover command to kill it with what sat unread (the
    /// standby then restarts its recovery from what it wrote, without the rest).
    pub async fn hold_back_standby(&self, pid_file: &Path) {
        let standby: oltpgen_driver::Target =
            oltpgen_driver::engine::parse_url(&self.url_of(1, "postgres")).unwrap();
        let pid: i32 = crate::common::sql(&standby)
            .await
            .query_one("SELECT pid FROM pg_stat_wal_receiver", &[])
            .await
            .unwrap()
            .get(0);
        std::fs::write(pid_file, pid.to_string()).unwrap();
        let stop = Command::new("kill").args(["-STOP", &pid.to_string()]).status().unwrap();
        assert!(stop.success());
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        for dir in &self.dirs {
            let _ = self
                .command(&self.bin.join("pg_ctl"))
                .arg("-D")
                .arg(dir)
                .args(["stop", "-m", "immediate"])
                .output();
        }
    }
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Orders placed during a run (beyond the 3,000 a district is loaded with) on the server at `url`, by
/// key, with their customer and line count.
pub async fn run_orders(url: &str) -> std::collections::BTreeMap<(i32, i32, i32), (i32, i32)> {
    let target: oltpgen_driver::Target = oltpgen_driver::engine::parse_url(url).unwrap();
    let client = crate::common::sql(&target).await;
    let rows = client
        .query("SELECT o_w_id, o_d_id, o_id, o_c_id, o_ol_cnt FROM orders WHERE o_id > 3000", &[])
        .await
        .unwrap();
    rows.iter().map(|r| ((r.get(0), r.get(1), r.get(2)), (r.get(3), r.get(4)))).collect()
}
