//! The built-in PostgreSQL: the server oltpgen runs itself when no `--url` is given.
//!
//! It runs from the PostgreSQL binaries installed on the machine, keeps its data in one directory of its
//! own (so a database loaded today is there for tomorrow's run), starts on demand on a free local port,
//! and stops when the command ends: [`LocalPg`] is a guard whose `Drop` stops the server, on success, on
//! error and on Ctrl-C alike. A throwaway instance ([`Placement::Temp`]) is removed too: it is what the
//! tests use, through this same code.
//!
//! What the user can rely on: oltpgen starts, stops and removes only a directory it made (marked by
//! [`instance::MARKER`]); one command at a time uses an instance ([`instance::InstanceLock`]); a server
//! left running by a killed oltpgen is recognised and restarted by the next command; and the server asks
//! every connection for the password kept in the instance's owner-only [`secret::PASSFILE`].

pub mod account;
pub mod binaries;
pub mod download;
pub mod instance;
mod notice;
pub mod room;
pub mod secret;
mod settings;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use account::RunAs;
use instance::InstanceLock;

use oltpgen_vocab::console::ErrLines;
use oltpgen_vocab::{Error, Target};

/// The role the built-in server is initialised with; it logs in with the instance's password.
pub const SUPERUSER: &str = "oltpgen";

/// Where the built-in instance lives.
#[derive(Clone, Debug)]
pub enum Placement {
    /// A lasting data directory (the default, or `--data-dir`).
    Dir(PathBuf),
    /// A throwaway instance in a new temporary directory, removed when the guard drops (`--temp-db`).
    Temp,
}

/// Whether `target`, parsed from `url`, reaches a running built-in PostgreSQL: a loopback host on the
/// port the instance runs on, the instance at `root` (the command's `--data-dir` or the default
/// directory) or the one whose password file the URL names (`oltpgen local url`'s). Such a target is
/// keyed as the built-in server's databases are (`built-in/<db>`), whichever port the server was
/// started on, so results before and after a restart compare.
pub fn reached_by(url: &str, target: &Target, root: Option<PathBuf>) -> bool {
    let Some(config) = oltpgen_pg::target::config(target) else { return false };
    let loopback = |host: &tokio_postgres::config::Host| match host {
        tokio_postgres::config::Host::Tcp(h) => {
            h == "localhost"
                || h.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        _ => false,
    };
    if config.get_hosts().is_empty() || !config.get_hosts().iter().all(loopback) {
        return false;
    }
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let mut roots: Vec<PathBuf> = root.into_iter().collect();
    let passfile = oltpgen_pg::pgpass::take_passfile_option(url).1;
    if let Some(file) = passfile.filter(|f| f.file_name().is_some_and(|n| n == secret::PASSFILE)) {
        roots.extend(file.parent().map(PathBuf::from));
    }
    roots.iter().any(|root| LocalPg::running_port_at(root) == Some(port))
}

/// The default data directory: `$OLTPGEN_DATA_DIR`, else the user's data directory
/// (`$XDG_DATA_HOME/oltpgen/postgres` or `~/.local/share/oltpgen/postgres`); for root,
/// `/var/lib/oltpgen/postgres`, since root's home is closed to the server's own account.
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("OLTPGEN_DATA_DIR") {
        return PathBuf::from(d);
    }
    data_home().join("postgres")
}

/// oltpgen's own data directory (`~/.local/share/oltpgen`; for root, `/var/lib/oltpgen`): the default
/// instance and the fetched PostgreSQL build live there.
fn data_home() -> PathBuf {
    if matches!(account::server_account(), Ok(Some(_)) | Err(_)) {
        return PathBuf::from("/var/lib/oltpgen");
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    base.join("oltpgen")
}

/// A running built-in server. Dropping it stops the server if this guard started it, and removes a
/// throwaway instance's directory.
pub struct LocalPg {
    bin: PathBuf,
    root: PathBuf,
    account: Option<RunAs>,
    port: u16,
    started_here: bool,
    password: String,
    /// This command's hold on the instance; `None` for an observer ([`LocalPg::join`]).
    lock: Option<InstanceLock>,
    temp: Option<tempfile::TempDir>,
    /// The standard error of the command it serves, for what it says, its drop included.
    said: ErrLines,
}

/// What `oltpgen local status` reports.
#[derive(Debug)]
pub struct Status {
    /// The instance's directory.
    pub root: PathBuf,
    /// Whether a database cluster exists there.
    pub initialised: bool,
    /// The port it listens on, when running.
    pub running_port: Option<u16>,
    /// Bytes on disk.
    pub size_bytes: u64,
    /// The pid of the oltpgen command using it now, if one is.
    pub in_use_by: Option<u32>,
}

impl LocalPg {
    /// Starts the instance (initialising it first when new), sized for `max_connections`.
    ///
    /// The instance is this command's until the guard drops: another command on it is refused. When
    /// the server is already running after `oltpgen local start`, it is used as it is and left running;
    /// when it was left running by an oltpgen that was killed, it is restarted (and stopped at the end).
    ///
    /// # Errors
    /// [`Error::Usage`] for a directory that holds other files, or an instance another command is
    /// using; [`Error::Environment`] for missing binaries, an unusable directory, or a server that will
    /// not start (with the last lines of its log). What it says (a new instance's place, a slow start
    /// or stop, a fetch, an abandoned instance swept) goes to `said`.
    pub fn start(placement: &Placement, max_connections: u32, said: &ErrLines) -> Result<Self, Error> {
        let bin = binaries::find(said)?;
        let account = account::server_account()?;
        let (root, temp) = match placement {
            Placement::Dir(d) => (d.clone(), None),
            Placement::Temp => {
                sweep_abandoned(said);
                let t = tempfile::Builder::new()
                    .prefix(TEMP_PREFIX)
                    .tempdir()
                    .map_err(|e| Error::environment(format!("cannot create a temporary directory: {e}")))?;
                (t.path().to_path_buf(), Some(t))
            }
        };
        instance::check_usable(&root)?;
        if !instance::is_instance(&root) {
            instance::mark(&root)?;
        }
        let lock = Some(InstanceLock::take(&root)?);
        if temp.is_some() {
            // After the lock: a throwaway instance is never both marked and free while its command lives.
            instance::mark_throwaway(&root)?;
        }
        let said = said.clone();
        let password = String::new();
        let mut pg = LocalPg { bin, root, account, port: 0, started_here: false, password, lock, temp, said };
        pg.init()?;
        pg.password = secret::read(&pg.root, SUPERUSER)?;
        if let Some(port) = pg.running_port() {
            let orphaned_by = pg.lock.as_ref().and_then(|l| l.orphaned_by(&pg.root));
            let Some(pid) = orphaned_by else {
                pg.port = port;
                return Ok(pg);
            };
            pg.said.line(&format!(
                "note: the built-in PostgreSQL in {} was left running by oltpgen pid {pid}, which was killed: \
                 restarting it",
                pg.root.display()
            ));
            pg.started_here = true;
            pg.stop();
        }
        pg.launch(max_connections)?;
        Ok(pg)
    }

    /// Joins the instance at `root` that another command is running, without taking it over: for an
    /// observer that only connects (a test watching a run); it never stops the server.
    ///
    /// # Errors
    /// [`Error::Environment`] when the instance is not running or its password cannot be read.
    pub fn join(root: &Path) -> Result<Self, Error> {
        let mut pg = Self::existing(root, &ErrLines::current())?;
        pg.password = secret::read(root, SUPERUSER)?;
        pg.port = pg.running_port().ok_or_else(|| {
            Error::environment(format!("the built-in PostgreSQL in {} is not running", root.display()))
        })?;
        Ok(pg)
    }

    /// The instance's directory (holding `data/` and `server.log`).
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn data(&self) -> PathBuf {
        self.root.join("data")
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A target for one database of this server (which may not exist yet: see [`LocalPg::ensure_database`]).
    pub fn target(&self, dbname: &str) -> Target {
        oltpgen_pg::target::local(self.port, SUPERUSER, &self.password, dbname).built_in()
    }

    /// Creates database `dbname` unless it exists, and returns its target.
    ///
    /// # Errors
    /// [`Error::Environment`] when the server cannot be reached or refuses.
    pub async fn ensure_database(&self, dbname: &str) -> Result<Target, Error> {
        let admin = oltpgen_pg::connect(&self.target("postgres")).await?;
        let exists = admin
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&dbname])
            .await
            .map_err(|e| Error::environment(format!("built-in PostgreSQL: {e}")))?
            .is_some();
        if !exists {
            admin.batch_execute(&format!("CREATE DATABASE \"{dbname}\"")).await.map_err(|e| {
                Error::environment(format!("built-in PostgreSQL: cannot create {dbname}: {e}"))
            })?;
        }
        Ok(self.target(dbname))
    }

    /// Leaves the server running after this guard drops (`oltpgen local start`).
    pub fn keep_running(&mut self) {
        self.started_here = false;
        if let Some(lock) = &self.lock {
            lock.kept_server(&self.root);
        }
    }

    /// A URL for database `dbname` that psql and `--url` can use: it names the instance's password
    /// file (`passfile=`) rather than holding the password.
    pub fn url(&self, dbname: &str) -> String {
        format!("{}?passfile={}", self.target(dbname), secret::passfile(&self.root).display())
    }

    /// Why `program` did not start: when the server's account cannot enter a directory above the data
    /// or above the PostgreSQL build, that directory and what to do about it, rather than the bare
    /// `Permission denied` of the `chdir` or the `exec`.
    fn cannot_run(&self, program: &str, e: &std::io::Error) -> Error {
        if e.kind() != std::io::ErrorKind::PermissionDenied {
            return Error::environment(format!("cannot run {program}: {e}"));
        }
        let (dir, above, fix) = if let Some(dir) = account::blocked_above(&self.root, self.account) {
            (dir, &self.root, "choose a --data-dir the postgres account can reach (e.g. under /var/tmp)")
        } else if let Some(dir) = account::blocked_above(&self.bin.join(program), self.account) {
            (
                dir,
                &self.bin,
                "keep the PostgreSQL build where the postgres account can reach it (OLTPGEN_PG_BIN, or \
                 OLTPGEN_PG_CACHE for the build oltpgen fetches, under /var/tmp, say)",
            )
        } else {
            return Error::environment(format!("cannot run {program}: {e}"));
        };
        Error::environment(format!(
            "cannot run {program}: the built-in PostgreSQL runs as the postgres account, which may not \
             enter {} (above {}): {fix}, or let it in (chmod o+x {})",
            dir.display(),
            above.display(),
            dir.display()
        ))
    }

    fn command(&self, program: &str) -> Command {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(self.bin.join(program));
        cmd.current_dir(&self.root).stdin(Stdio::null()).env("LC_ALL", "C");
        // A process group of its own: Ctrl-C at the terminal reaches oltpgen, which stops the server in
        // order, and not the server itself (SIGINT is PostgreSQL's fast shutdown).
        cmd.process_group(0);
        if let Some(a) = self.account {
            cmd.uid(a.uid).gid(a.gid);
        }
        cmd
    }

    fn init(&self) -> Result<(), Error> {
        if self.data().join("PG_VERSION").is_file() {
            return Ok(());
        }
        account::hand_over(&self.root, self.account)?;
        // Before announcing anything: the server's account must be able to start a program there.
        self.command("initdb").arg("--version").output().map_err(|e| self.cannot_run("initdb", &e))?;
        let pwfile = secret::create(&self.root, SUPERUSER, self.account)?;
        if self.temp.is_none() {
            self.said.line(&format!(
                "creating the built-in PostgreSQL in {} (its data stays there for later commands; \
                 `oltpgen local rm` removes it)",
                self.root.display()
            ));
        }
        let out = self
            .command("initdb")
            .args(["-U", SUPERUSER, "-A", "scram-sha-256", "-E", "UTF8", "--no-locale", "--no-instructions"])
            .arg(format!("--pwfile={}", pwfile.display()))
            .arg("-D")
            .arg(self.data())
            .output()
            .map_err(|e| self.cannot_run("initdb", &e));
        let _ = std::fs::remove_file(&pwfile);
        let out = out?;
        if !out.status.success() {
            return Err(Error::environment(format!(
                "initdb failed in {}: {}; choose a --data-dir the server's account can write",
                self.root.display(),
                last_line(&out.stderr)
            )));
        }
        let conf = self.data().join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).unwrap_or_default();
        text.push_str(
            "\n# oltpgen writes its settings here at every start\ninclude_if_exists = 'oltpgen.conf'\n",
        );
        std::fs::write(&conf, text)
            .map_err(|e| Error::environment(format!("cannot write {}: {e}", conf.display())))
    }

    /// The port of a server already running on this directory, from its `postmaster.pid`.
    fn running_port(&self) -> Option<u16> {
        let running = self
            .command("pg_ctl")
            .arg("status")
            .arg("-D")
            .arg(self.data())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !running {
            return None;
        }
        let pid = std::fs::read_to_string(self.data().join("postmaster.pid")).ok()?;
        // A negative pid is a single-user backend (initdb at work), not a server that takes connections.
        if pid.lines().next()?.trim().starts_with('-') {
            return None;
        }
        pid.lines().nth(3)?.trim().parse().ok()
    }

    fn launch(&mut self, max_connections: u32) -> Result<(), Error> {
        let port = free_port()?;
        let conf = settings::render(
            settings::Sizing {
                memory_bytes: settings::machine_memory(),
                max_connections,
                temp: self.temp.is_some(),
                port,
            },
            &self.root,
        );
        let conf_path = self.data().join("oltpgen.conf");
        std::fs::write(&conf_path, conf)
            .map_err(|e| Error::environment(format!("cannot write {}: {e}", conf_path.display())))?;
        let log = self.root.join("server.log");
        if let Some(lock) = &self.lock {
            // Before the start: a command killed while the server starts leaves it known as orphaned.
            lock.started_server(&self.root);
        }
        let mut start = self.command("pg_ctl");
        start.args(["start", "-w", "-t", "120", "-D"]).arg(self.data()).arg("-l").arg(&log);
        let what = format!("starting the built-in PostgreSQL in {}", self.root.display());
        let out = notice::when_slow(&self.said, &what, || start.output())
            .map_err(|e| self.cannot_run("pg_ctl", &e))?;
        if !out.status.success() {
            let tail = std::fs::read(&log).map(|l| last_line(&l)).unwrap_or_default();
            return Err(Error::environment(format!(
                "the built-in PostgreSQL did not start: {} (log: {})",
                if tail.is_empty() { last_line(&out.stderr) } else { tail },
                log.display()
            )));
        }
        self.port = port;
        self.started_here = true;
        Ok(())
    }

    fn stop(&mut self) {
        if !self.started_here {
            return;
        }
        self.started_here = false;
        let mut stop = self.command("pg_ctl");
        stop.args(["stop", "-m", "fast", "-w", "-t", "60", "-D"]).arg(self.data());
        let what = format!("stopping the built-in PostgreSQL in {}", self.root.display());
        let _ = notice::when_slow(&self.said, &what, || {
            stop.stdout(Stdio::null()).stderr(Stdio::null()).status()
        });
        if let Some(lock) = &self.lock {
            lock.stopped_server(&self.root);
        }
    }

    /// A guard for the instance at `root` that this process did not start (status, stop, remove),
    /// saying what it says to `said`: the callers on a command's own task (`status`, `stop_at`, …) hand
    /// it the handle the command scoped ([`ErrLines::current`]).
    fn existing(root: &Path, said: &ErrLines) -> Result<Self, Error> {
        Ok(LocalPg {
            bin: binaries::find(said)?,
            root: root.to_path_buf(),
            account: account::server_account()?,
            port: 0,
            started_here: false,
            password: String::new(),
            lock: None,
            temp: None,
            said: said.clone(),
        })
    }

    /// The port the instance at `root` runs on, when there is one and it runs: how a `--url` that
    /// reaches it (`oltpgen local url`'s) is told from another server's.
    pub fn running_port_at(root: &Path) -> Option<u16> {
        instance::is_instance(root)
            .then(|| Self::existing(root, &ErrLines::current()).ok()?.running_port())?
    }

    /// What `oltpgen local status` shows for the instance at `root`.
    pub fn status(root: &Path) -> Status {
        let initialised = root.join("data/PG_VERSION").is_file();
        let running_port = if initialised {
            Self::existing(root, &ErrLines::current()).ok().and_then(|pg| pg.running_port())
        } else {
            None
        };
        Status {
            root: root.to_path_buf(),
            initialised,
            running_port,
            size_bytes: dir_size(root),
            in_use_by: InstanceLock::holder(root),
        }
    }

    /// Stops the instance at `root` if it runs (`oltpgen local stop`); true when it was running.
    ///
    /// # Errors
    /// [`Error::Usage`] for a directory oltpgen did not make, or an instance another command is using;
    /// [`Error::Environment`] when the binaries or the server's account cannot be found.
    pub fn stop_at(root: &Path) -> Result<bool, Error> {
        if !root.join("data/PG_VERSION").is_file() {
            return Ok(false);
        }
        instance::check_removable(root)?;
        let mut pg = Self::existing(root, &ErrLines::current())?;
        pg.lock = Some(InstanceLock::take(root)?);
        let was_running = pg.running_port().is_some();
        pg.started_here = was_running;
        pg.stop();
        Ok(was_running)
    }

    /// Restarts the running instance at `root` on the same port, as an administrator would (fast
    /// shutdown: open connections are cut). For fault-injection tests and `oltpgen local`.
    ///
    /// # Errors
    /// [`Error::Environment`] when the server does not come back.
    pub fn restart_at(root: &Path) -> Result<(), Error> {
        let pg = Self::existing(root, &ErrLines::current())?;
        let out = pg
            .command("pg_ctl")
            .args(["restart", "-m", "fast", "-w", "-t", "60", "-D"])
            .arg(pg.data())
            .arg("-l")
            .arg(root.join("server.log"))
            .output()
            .map_err(|e| pg.cannot_run("pg_ctl", &e))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(Error::environment(format!(
                "the built-in PostgreSQL did not restart: {}",
                last_line(&out.stderr)
            )))
        }
    }

    /// Stops the instance at `root` if it runs, then deletes what oltpgen made there (`oltpgen local
    /// rm`): `None` when there was nothing at `root`, else the entries it kept, which oltpgen did not make
    /// (a user's notes put inside the instance's directory); the directory itself goes when none are left.
    ///
    /// Only a directory oltpgen made is touched, and only while no other command uses it.
    ///
    /// # Errors
    /// [`Error::Usage`] for a directory oltpgen did not make, or an instance another command is using;
    /// [`Error::Environment`] when the directory cannot be removed.
    pub fn remove(root: &Path) -> Result<Option<Vec<String>>, Error> {
        if !root.exists() {
            return Ok(None);
        }
        instance::check_removable(root)?;
        let _lock = InstanceLock::take(root)?;
        if root.join("data/PG_VERSION").is_file() {
            let mut pg = Self::existing(root, &ErrLines::current())?;
            pg.started_here = pg.running_port().is_some();
            pg.stop();
        }
        instance::remove_own(root).map(Some)
    }
}

impl Drop for LocalPg {
    fn drop(&mut self) {
        self.stop();
        if self.temp.is_some() {
            // Before the lock goes (a later field): no sweep takes an instance that is ending in order.
            instance::unmark_throwaway(&self.root);
        }
        // `temp` (a TempDir) removes the throwaway directory when it drops, after the server stopped.
    }
}

/// How a throwaway instance's directory is named, in the system's temporary directory.
const TEMP_PREFIX: &str = "oltpgen-pg-";

/// Stops and removes the throwaway instances (`--temp-db`) whose command died without ending them
/// (SIGKILL, a crash): their server would run and their directory stay for good, and nothing else finds
/// them. Only a directory of the temporary directory that is provably one: named as oltpgen names them,
/// holding the instance marker and the throwaway mark, whose lock is free (the kernel released it when
/// its command died; a live command holds it from before the mark is written until after it is taken
/// off). Each removal is said in one line.
fn sweep_abandoned(said: &ErrLines) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let root = entry.path();
        let named = entry.file_name().to_str().is_some_and(|n| n.starts_with(TEMP_PREFIX));
        // `file_type` does not follow a symlink: only a real directory.
        if !named || !entry.file_type().is_ok_and(|t| t.is_dir()) || !instance::is_throwaway(&root) {
            continue;
        }
        // Held: its command lives. Checked again once held: it may have ended in order meanwhile.
        let Ok(lock) = InstanceLock::take(&root) else {
            continue;
        };
        if !instance::is_throwaway(&root) {
            continue;
        }
        let pid = lock.previous_pid().map_or_else(|| "unknown".to_string(), |p| p.to_string());
        let Ok(mut pg) = LocalPg::existing(&root, said) else {
            continue;
        };
        pg.started_here = pg.running_port().is_some();
        pg.lock = Some(lock);
        pg.stop();
        match instance::remove_own(&root) {
            Ok(_) => said.line(&format!(
                "note: removed the throwaway built-in PostgreSQL in {} left behind by oltpgen pid {pid}, \
                 which was killed",
                root.display()
            )),
            Err(e) => said.line(&format!(
                "note: a throwaway built-in PostgreSQL left behind by oltpgen pid {pid}: {e}"
            )),
        }
    }
}

fn free_port() -> Result<u16, Error> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| Error::environment(format!("cannot find a free local port: {e}")))
}

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn dir_size(p: &Path) -> u64 {
    std::fs::symlink_metadata(p).map_or(0, |m| {
        if m.is_dir() {
            std::fs::read_dir(p).map_or(0, |rd| rd.flatten().map(|e| dir_size(&e.path())).sum())
        } else {
            m.len()
        }
    })
}
