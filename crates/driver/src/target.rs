//! The database a command drives, parsed once from `--url` into a typed, secret-safe form.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// The database engines oltpgen speaks; each has its own module (`pg` for PostgreSQL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// PostgreSQL, through tokio-postgres.
    Postgres,
}

/// One database to drive: an engine and its connection settings.
///
/// The password lives only inside `config`; [`Target`]'s `Display` and [`Target::label`] never show it,
/// so a target can be printed, logged and written into result files as it is.
#[derive(Clone)]
pub struct Target {
    engine: Engine,
    config: tokio_postgres::Config,
    label: String,
}

impl Target {
    /// The engine this target runs.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The PostgreSQL connection settings (password included: never print them).
    pub fn pg_config(&self) -> &tokio_postgres::Config {
        &self.config
    }

    /// `engine://user@host:port/dbname`, without the password: what output and results call this target.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The database name, or the user name that PostgreSQL uses as the default database name.
    pub fn dbname(&self) -> &str {
        self.config.get_dbname().or(self.config.get_user()).unwrap_or("postgres")
    }

    /// A PostgreSQL target from settings built in code (the built-in instance), labelled like a URL.
    pub fn from_pg_config(config: tokio_postgres::Config) -> Self {
        let label = label_of(&config);
        Target { engine: Engine::Postgres, config, label }
    }

    /// The same server, another database on it (the built-in instance holds one database per workload).
    pub fn with_dbname(&self, dbname: &str) -> Self {
        let mut config = self.config.clone();
        config.dbname(dbname);
        Target::from_pg_config(config)
    }
}

fn label_of(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("");
    let db = config.get_dbname().unwrap_or(user);
    let at = if user.is_empty() { String::new() } else { format!("{user}@") };
    format!("postgres://{at}{host}:{port}/{db}")
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Target({})", self.label)
    }
}

impl FromStr for Target {
    type Err = Error;

    /// Parses `postgres://user:password@host:port/dbname?options` (also `postgresql://`).
    ///
    /// # Errors
    /// [`Error::Usage`] naming the part of the URL at fault; the message never repeats the URL itself,
    /// which may hold a password.
    fn from_str(url: &str) -> Result<Self, Error> {
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(Error::usage(
                "--url has no scheme: write it as postgres://user:password@host:port/dbname",
            ));
        };
        match scheme.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => {}
            "sqlserver" | "mssql" => {
                return Err(Error::usage(
                    "--url: SQL Server (sqlserver://) is not supported yet; use a postgres:// URL",
                ));
            }
            other => {
                return Err(Error::usage(format!(
                    "--url has an unknown scheme '{other}://': use postgres://user:password@host:port/dbname"
                )));
            }
        }
        if rest.is_empty() {
            return Err(Error::usage(
                "--url names no host: write it as postgres://user:password@host:port/dbname",
            ));
        }
        let (url, passfile) = crate::pg::pgpass::take_passfile_option(url);
        let mut config = tokio_postgres::Config::from_str(&url).map_err(|e| {
            // tokio-postgres' parse errors name the option at fault, not the URL's value.
            Error::usage(format!("--url is not a valid PostgreSQL URL: {e}"))
        })?;
        crate::pg::pgpass::fill_password(&mut config, passfile.as_deref())?;
        Ok(Target::from_pg_config(config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_and_debug_hide_the_password() {
        let t: Target = "postgres://bench:s3cret@db1:6543/tpcc".parse().unwrap();
        assert_eq!(t.label(), "postgres://bench@db1:6543/tpcc");
        assert!(!format!("{t} {t:?}").contains("s3cret"));
        assert_eq!(t.dbname(), "tpcc");
        assert_eq!(t.engine(), Engine::Postgres);
    }

    #[test]
    fn bad_urls_name_their_fault_without_echoing_secrets() {
        for (url, needle) in [
            ("mysql://u:s3cret@h/db", "unknown scheme 'mysql://'"),
            ("u:s3cret@h/db", "no scheme"),
            ("postgres://u:s3cret@h:notaport/db", "not a valid PostgreSQL URL"),
            ("sqlserver://u:s3cret@h/db", "not supported yet"),
        ] {
            let err = url.parse::<Target>().unwrap_err().to_string();
            assert!(err.contains(needle), "{url}: {err}");
            assert!(!err.contains("s3cret"), "{url}: {err}");
        }
    }
}
