//! What a command drives, as the flags name it: every `--url` (or `OLTPGEN_URL`), or the built-in
//! PostgreSQL (`--data-dir`, `--temp-db`, or its default directory), checked and resolved before any
//! work.

use std::path::PathBuf;

use crate::database::Database;
use crate::run::plan;
use crate::{Error, Target};
#[cfg(feature = "local")]
use oltpgen_local::{self as local, Placement};
use oltpgen_vocab::url::{HiddenUrls, Seams};

/// The environment variable that stands for `--url`.
pub const URL_VAR: &str = "OLTPGEN_URL";

/// The database DS2's `--target` names on a host when no `--url` gives the rest: PostgreSQL's port, the
/// `ds2` database, the user and password from the environment as psql takes them.
pub const DS2_DEFAULT_URL: &str = "postgres://localhost:5432/ds2";

/// `url` cut at its seams ([`Seams`]), for `--target` and `--database_name` to edit.
fn seams(url: &str) -> Result<Seams<'_>, Error> {
    Seams::of(url).ok_or_else(|| {
        Error::usage(
            "--target and --database_name edit a URL (postgres://… or sqlserver://…), not a connection string: \
             give --url as a URL",
        )
    })
}

/// `url` with `host` in place of its host (its port kept unless `host` names one).
fn url_at_host(url: &str, host: &str) -> Result<String, Error> {
    Ok(seams(url)?.with_host(target_host(host)?))
}

/// One host of `--target`: a name or address (`db1`, `10.0.0.2`, `[::1]`), with a port or without
/// (`db1:5433`), checked before it is put in a URL, so that a bad one is told as `--target`'s.
///
/// # Errors
/// A usage error naming the host and what `--target` takes.
fn target_host(host: &str) -> Result<&str, Error> {
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') || name.ends_with(']') => (name, Some(port)),
        _ => (host, None),
    };
    let bracketed = name.strip_prefix('[').and_then(|n| n.strip_suffix(']'));
    let name_ok = match bracketed {
        Some(v6) => !v6.is_empty() && v6.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.'),
        None => !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)),
    };
    let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok_and(|p| p > 0));
    if name_ok && port_ok {
        return Ok(host);
    }
    Err(Error::usage(format!(
        "--target {host:?} is not a host: write each database server as a name or address, with its port when \
         not the URL's (e.g. --target=db1,db2:5433)"
    )))
}

/// `outcome`, its error saying `to` where it said `from`.
fn renamed<T>(outcome: Result<T, Error>, from: &str, to: &str) -> Result<T, Error> {
    let rename = |m: String| m.replace(from, to);
    outcome.map_err(|err| match err {
        Error::Usage(m) => Error::Usage(rename(m)),
        Error::Environment(m) => Error::Environment(rename(m)),
        Error::Failed(m) => Error::Failed(rename(m)),
        Error::Interrupted(m) => Error::Interrupted(m),
    })
}

/// `url` naming database `database` (its options kept).
fn url_with_database(url: &str, database: &str) -> Result<String, Error> {
    Ok(seams(url)?.with_database(database))
}

/// The databases a command works on, as given: `--url` (as text: parsed here, so that no parser's
/// error echoes a password), `--data-dir` and `--temp-db`. Its `Debug` shows how many URLs, not them.
#[derive(Clone, Default)]
pub struct Databases {
    /// Every `--url`, in the order given.
    pub urls: Vec<String>,
    /// `--data-dir`: the built-in PostgreSQL's directory.
    pub data_dir: Option<PathBuf>,
    /// `--temp-db`: a throwaway built-in PostgreSQL.
    pub temp_db: bool,
}

impl std::fmt::Debug for Databases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Databases")
            .field("urls", &HiddenUrls(self.urls.len()))
            .field("data_dir", &self.data_dir)
            .field("temp_db", &self.temp_db)
            .finish()
    }
}

impl Databases {
    /// The `--url` target, parsed, for commands that work on one database.
    ///
    /// # Errors
    /// One line naming the URL's fault, without the URL; a usage error for several URLs.
    pub fn target(&self) -> Result<Option<Target>, Error> {
        // Counted before `targets`' checks, whose words are ds2's (a URL named twice).
        match self.parsed()?.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one.clone())),
            _ => Err(Error::usage(
                "this command works on one database: give one --url (ds2 drives several side by side)",
            )),
        }
    }

    /// Every `--url` target, parsed, in the order given.
    ///
    /// # Errors
    /// One line naming the URL's fault, without the URL; a usage error when one database is named twice.
    pub fn targets(&self) -> Result<Vec<Target>, Error> {
        let targets = self.parsed()?;
        plan::check_targets(&targets)?;
        Ok(targets)
    }

    /// The databases one at a time, for commands that work on each in turn (load, drop): one
    /// [`Databases`] per `--url`, or these as given when they name one database (or the built-in one).
    ///
    /// # Errors
    /// One line naming a URL's fault, without the URL; a usage error when one database is named twice.
    pub fn each(&self) -> Result<Vec<Databases>, Error> {
        if self.targets()?.len() <= 1 {
            return Ok(vec![self.clone()]);
        }
        Ok(self.urls.iter().map(|u| Databases { urls: vec![u.clone()], ..Databases::default() }).collect())
    }

    /// `OLTPGEN_URL`, else every `--url`, parsed; each that reaches the built-in PostgreSQL keyed as
    /// its databases are ([`Databases::keyed`]).
    fn parsed(&self) -> Result<Vec<Target>, Error> {
        let urls = self.env_url().map_or_else(|| self.urls.clone(), |url| vec![url]);
        urls.iter()
            .map(|u| {
                let target = crate::engine::parse_url(u)?;
                #[cfg(feature = "local")]
                let target = self.keyed(u, target);
                Ok(target)
            })
            .collect()
    }

    /// `target`, parsed from `url`, as the built-in PostgreSQL's when the URL reaches it: a loopback
    /// host on the port the instance runs on, the instance `--data-dir` (or the default directory)
    /// holds or the one whose password file the URL names (`oltpgen local url`'s). Its key is then
    /// `built-in/<db>` ([`Target::key`]), as a run on the built-in server names it, whichever port the
    /// server was started on: results before and after a restart compare.
    #[cfg(feature = "local")]
    fn keyed(&self, url: &str, target: Target) -> Target {
        let root = match self.placement() {
            Placement::Dir(root) => Some(root),
            Placement::Temp => None,
        };
        match oltpgen_local::reached_by(url, &target, root) {
            true => target.reaching_built_in(),
            false => target,
        }
    }

    /// `OLTPGEN_URL`, when it names the database: it is set and not empty, and neither `--url`,
    /// `--data-dir` nor `--temp-db` was given (explicit flags win over the environment).
    fn env_url(&self) -> Option<String> {
        if !self.urls.is_empty() || self.data_dir.is_some() || self.temp_db {
            return None;
        }
        std::env::var(URL_VAR).ok().filter(|u| !u.trim().is_empty())
    }

    /// `outcome`, its error naming [`URL_VAR`] where it named `--url` when the URL came from there, so
    /// that a message never names a flag the user did not give.
    ///
    /// # Errors
    /// `outcome`'s error, renamed.
    pub fn name_env_url<T>(&self, outcome: Result<T, Error>) -> Result<T, Error> {
        if self.env_url().is_none() {
            return outcome;
        }
        renamed(outcome, "--url", URL_VAR)
    }

    /// `outcome` of a DS2 command whose hosts `--target` named ([`Databases::ds2_named`]), its error
    /// pointing at the host and port in `--target` where it pointed at those of `--url`: the user
    /// typed the host in `--target`, whatever URL it was put in.
    ///
    /// # Errors
    /// `outcome`'s error, renamed.
    pub fn name_target<T>(outcome: Result<T, Error>) -> Result<T, Error> {
        renamed(outcome, "the host and port in --url", "the host and port in --target")
    }

    /// The databases DS2's own flags name: `--target=db1,db2` (`hosts`) puts each host in place of the
    /// host of the one `--url` (or `OLTPGEN_URL`), or of [`DS2_DEFAULT_URL`] (PostgreSQL's defaults, as
    /// DS2's driver takes them) without one; `--database_name` (`database`) replaces the database of
    /// every URL. Unchanged without either.
    ///
    /// # Errors
    /// A usage error for several `--url` with `--target`, a connection string (no host to replace), the
    /// built-in PostgreSQL asked for too, or `--database_name` with nothing to name it on.
    pub fn ds2_named(&self, hosts: &[String], database: Option<&str>) -> Result<Databases, Error> {
        if hosts.is_empty() && database.is_none() {
            return Ok(self.clone());
        }
        let flag = if hosts.is_empty() { "--database_name" } else { "--target" };
        if self.temp_db || self.data_dir.is_some() {
            return Err(Error::usage(format!(
                "{flag} names databases on servers, not the built-in PostgreSQL: leave out --temp-db and --data-dir"
            )));
        }
        let given: Vec<String> = match self.env_url() {
            Some(url) => vec![url],
            None => self.urls.clone(),
        };
        let urls: Vec<String> = match (hosts.is_empty(), given.as_slice()) {
            (true, []) => {
                return Err(Error::usage(
                    "--database_name names the database on the servers --url or --target name: give one of them",
                ));
            }
            (true, _) => given,
            (false, []) => hosts.iter().map(|h| url_at_host(DS2_DEFAULT_URL, h)).collect::<Result<_, _>>()?,
            (false, [pattern]) => hosts.iter().map(|h| url_at_host(pattern, h)).collect::<Result<_, _>>()?,
            (false, _) => {
                return Err(Error::usage(
                    "--target puts its hosts in place of one --url's: give one --url as the pattern, or several --url without --target",
                ));
            }
        };
        let urls = match database {
            Some(db) => urls.iter().map(|u| url_with_database(u, db)).collect::<Result<_, _>>()?,
            None => urls,
        };
        Ok(Databases { urls, data_dir: None, temp_db: false })
    }

    /// Refuses a built-in PostgreSQL that cannot hold a loaded database for `oltpgen WORKLOAD COMMAND`
    /// (run, check): `--temp-db`, whose throwaway instance starts empty, and a `--data-dir` (or the
    /// default one) where no instance was ever made. Either would create a server only to say "load it
    /// first", and the second would leave it behind.
    ///
    /// # Errors
    /// A usage error saying how to load first (or, for `--temp-db`, pointing at the bare command,
    /// which loads and runs in one).
    pub fn refuse_empty_instance(&self, workload: &str, command: &str) -> Result<(), Error> {
        if self.temp_db {
            return Err(Error::usage(format!(
                "--temp-db starts an empty database, which `{workload} {command}` has nothing to work on: \
                 `oltpgen {workload} --temp-db …` loads and runs in one command (or load into a lasting \
                 --data-dir or --url first)"
            )));
        }
        // A directory holding someone's files is refused later, in its own words.
        #[cfg(feature = "local")]
        if let Placement::Dir(root) = self.placement()
            && self.urls.is_empty()
            && self.env_url().is_none()
            && !local::instance::is_instance(&root)
            && std::fs::read_dir(&root).map_or(true, |mut entries| entries.next().is_none())
        {
            let dir =
                self.data_dir.as_ref().map_or_else(String::new, |d| format!(" --data-dir {}", d.display()));
            return Err(Error::usage(format!(
                "there is no built-in PostgreSQL in {} yet, so `{workload} {command}` has nothing to work on: \
                 load it first (oltpgen {workload} load{dir}), or pass --url",
                root.display()
            )));
        }
        Ok(())
    }

    /// Where the built-in PostgreSQL lives for this command.
    #[cfg(feature = "local")]
    pub fn placement(&self) -> Placement {
        match (&self.data_dir, self.temp_db) {
            (_, true) => Placement::Temp,
            (Some(d), false) => Placement::Dir(d.clone()),
            (None, false) => Placement::Dir(local::default_dir()),
        }
    }

    /// Opens the one database a command works on: the `--url` target, or the built-in server started
    /// with room for `connections`, holding database `dbname`.
    ///
    /// # Errors
    /// A bad URL, several of them, or a built-in server that cannot start.
    pub async fn open_one(&self, connections: u32, dbname: &str) -> Result<Database, Error> {
        match self.target()? {
            Some(target) => Ok(Database::at(target)),
            None => self.built_in(connections, dbname).await,
        }
    }

    /// The built-in PostgreSQL this command's flags place, started with room for `connections` and
    /// holding database `dbname`.
    ///
    /// # Errors
    /// A built-in server that cannot start, or a build without one (feature `local`), which says so.
    #[cfg_attr(not(feature = "local"), allow(unused_variables))]
    pub async fn built_in(&self, connections: u32, dbname: &str) -> Result<Database, Error> {
        #[cfg(feature = "local")]
        return Database::built_in(&self.placement(), connections, dbname).await;
        #[cfg(not(feature = "local"))]
        return Err(super::not_built(
            "the built-in PostgreSQL (a command without --url or OLTPGEN_URL)",
            "local",
        ));
    }

    /// The databases a command that drives several works on: every `--url`, or else the built-in
    /// PostgreSQL, started with room for `connections` (it runs while the returned [`Database`] lives).
    ///
    /// # Errors
    /// A bad URL, one named twice, or a built-in server that cannot start.
    pub async fn open_all(
        &self,
        connections: u32,
        dbname: &str,
    ) -> Result<(Option<Database>, Vec<Target>), Error> {
        let urls = self.targets()?;
        if !urls.is_empty() {
            return Ok((None, urls));
        }
        let database = self.built_in(connections, dbname).await?;
        let targets = vec![database.target.clone()];
        Ok((Some(database), targets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(given: &[&str], hosts: &[&str], database: Option<&str>) -> Result<Vec<String>, String> {
        let db = Databases { urls: given.iter().map(|u| u.to_string()).collect(), ..Databases::default() };
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        db.ds2_named(&hosts, database).map(|d| d.urls).map_err(|e| e.to_string())
    }

    #[test]
    fn ds2_s_target_replaces_the_host_and_database_name_the_database() {
        let url = "postgres://bench@db0:6432/ds2?sslmode=disable";
        assert_eq!(
            urls(&[url], &["db1", "db2:5433"], None).unwrap(),
            [
                "postgres://bench@db1:6432/ds2?sslmode=disable",
                "postgres://bench@db2:5433/ds2?sslmode=disable"
            ]
        );
        assert_eq!(urls(&[], &["db1"], None).unwrap(), ["postgres://db1:5432/ds2"], "PostgreSQL's defaults");
        assert_eq!(
            urls(&[url], &[], Some("ds2b")).unwrap(),
            ["postgres://bench@db0:6432/ds2b?sslmode=disable"]
        );
        assert_eq!(urls(&["sqlserver://sa@h"], &["db1"], Some("x")).unwrap(), ["sqlserver://sa@db1/x"]);
        assert_eq!(urls(&[url], &[], None).unwrap(), [url], "nothing asked, nothing changed");
        assert!(urls(&[url, url], &["db1"], None).unwrap_err().contains("give one --url as the pattern"));
        assert!(
            urls(&["Server=tcp:h,1433;User Id=sa"], &["db1"], None)
                .unwrap_err()
                .contains("not a connection string")
        );
        assert!(urls(&[], &[], Some("x")).unwrap_err().contains("give one of them"));
    }

    #[test]
    fn a_bad_host_in_target_is_told_as_target_s() {
        // Issue 39: these were told as "--url is not a valid PostgreSQL URL" or a failed lookup.
        for bad in ["", "foo:bar:baz", "db1:notaport", "db1:0", "db 1", "u@db1", "db1/x", "[]"] {
            let e = urls(&[], &[bad], None).unwrap_err();
            assert!(e.starts_with(&format!("--target {bad:?} is not a host")), "{bad}: {e}");
        }
        let good = ["db1", "10.0.0.2:5433", "[::1]", "[::1]:5433", "db-1.example.org"];
        assert_eq!(
            urls(&[], &good, None).unwrap(),
            [
                "postgres://db1:5432/ds2",
                "postgres://10.0.0.2:5433/ds2",
                "postgres://[::1]:5432/ds2",
                "postgres://[::1]:5433/ds2",
                "postgres://db-1.example.org:5432/ds2"
            ]
        );
        let refused: Result<(), Error> = Err(Error::environment(
            "cannot connect to postgres://db9:5432/ds2: no such host; is the server running and the host and port in --url right?",
        ));
        let e = Databases::name_target(refused).unwrap_err().to_string();
        assert!(e.ends_with("the host and port in --target right?"), "{e}");
    }
}
