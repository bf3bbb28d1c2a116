//! What a command drives, as the flags name it: every `--url` (or `OLTPGEN_URL`), or the built-in
//! PostgreSQL (`--data-dir`, `--temp-db`, or its default directory), checked and resolved before any
//! work.

use std::path::PathBuf;

use crate::database::Database;
use crate::local::{self, Placement};
use crate::run::plan;
use crate::{Error, Target};

/// The environment variable that stands for `--url`.
pub const URL_VAR: &str = "OLTPGEN_URL";

/// The databases a command works on, as given: `--url` (as text: parsed here, so that no parser's
/// error echoes a password), `--data-dir` and `--temp-db`.
#[derive(Clone, Debug, Default)]
pub struct Databases {
    /// Every `--url`, in the order given.
    pub urls: Vec<String>,
    /// `--data-dir`: the built-in PostgreSQL's directory.
    pub data_dir: Option<PathBuf>,
    /// `--temp-db`: a throwaway built-in PostgreSQL.
    pub temp_db: bool,
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

    /// `OLTPGEN_URL`, else every `--url`, parsed.
    fn parsed(&self) -> Result<Vec<Target>, Error> {
        match self.env_url() {
            Some(url) => Ok(vec![url.parse()?]),
            None => self.urls.iter().map(|u| u.parse()).collect(),
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
        let rename = |m: String| m.replace("--url", URL_VAR);
        outcome.map_err(|err| match err {
            Error::Usage(m) => Error::Usage(rename(m)),
            Error::Environment(m) => Error::Environment(rename(m)),
            Error::Failed(m) => Error::Failed(rename(m)),
            Error::Interrupted(m) => Error::Interrupted(m),
        })
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
        match self.placement() {
            // A directory holding someone's files is refused later, in its own words.
            Placement::Dir(root)
                if self.urls.is_empty()
                    && self.env_url().is_none()
                    && !local::instance::is_instance(&root)
                    && std::fs::read_dir(&root).map_or(true, |mut entries| entries.next().is_none()) =>
            {
                let dir = self
                    .data_dir
                    .as_ref()
                    .map_or_else(String::new, |d| format!(" --data-dir {}", d.display()));
                Err(Error::usage(format!(
                    "there is no built-in PostgreSQL in {} yet, so `{workload} {command}` has nothing to work on: \
                     load it first (oltpgen {workload} load{dir}), or pass --url",
                    root.display()
                )))
            }
            _ => Ok(()),
        }
    }

    /// Where the built-in PostgreSQL lives for this command.
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
        Database::open(self.target()?, &self.placement(), connections, dbname).await
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
        let database = Database::open(None, &self.placement(), connections, dbname).await?;
        let targets = vec![database.target.clone()];
        Ok((Some(database), targets))
    }
}
