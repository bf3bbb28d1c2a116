//! The database a command drives, parsed once from `--url` into a typed, secret-safe form: the scheme
//! picks the engine, whose own module parses the rest into its settings ([`TargetConfig`]).

use std::fmt;
use std::str::FromStr;

use crate::Error;

pub use crate::engine::Engine;

/// A target's connection settings, in its engine's own terms: chosen once from the URL's scheme.
#[derive(Clone)]
pub enum TargetConfig {
    /// PostgreSQL's (password included: never print them) and where the password came from.
    Postgres(crate::pg::target::Settings),
    /// SQL Server's (password or token included: never print them).
    SqlServer(crate::mssql::Config),
}

/// One database to drive: an engine and its connection settings.
///
/// The password lives only inside `config`; [`Target`]'s `Display` and [`Target::label`] never show it,
/// so a target can be printed, logged and written into result files as it is.
#[derive(Clone)]
pub struct Target {
    config: TargetConfig,
    label: String,
    dbname: String,
}

impl Target {
    /// A target from its engine's settings, its label (`engine://user@host:port/dbname`, no password)
    /// and its database name; each engine builds its own (PostgreSQL: [`crate::pg::target`]).
    pub fn new(config: TargetConfig, label: String, dbname: String) -> Self {
        Target { config, label, dbname }
    }

    /// The engine this target runs.
    pub fn engine(&self) -> Engine {
        match self.config {
            TargetConfig::Postgres(_) => Engine::Postgres,
            TargetConfig::SqlServer(_) => Engine::SqlServer,
        }
    }

    /// The engine's connection settings (password included: never print them).
    pub fn config(&self) -> &TargetConfig {
        &self.config
    }

    /// `engine://user@host:port/dbname`, without the password: what output and results call this target.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The database name (for PostgreSQL, the user name when the URL names none).
    pub fn dbname(&self) -> &str {
        &self.dbname
    }

    /// The same server, another database on it (the built-in instance holds one database per workload).
    pub fn with_dbname(&self, dbname: &str) -> Self {
        match &self.config {
            TargetConfig::Postgres(c) => crate::pg::target::with_dbname(c, dbname),
            TargetConfig::SqlServer(c) => crate::mssql::target::with_dbname(c, dbname),
        }
    }
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

    /// Parses `postgres://user:password@host:port/dbname?options` (also `postgresql://`),
    /// `sqlserver://user:password@host:port/database?options` (also `mssql://`) or an ADO.NET connection
    /// string (`Server=tcp:host,1433;Database=…;User Id=…;Password=…`, SQL Server's); the scheme
    /// chooses the engine ([`Engine::of_scheme`]), which parses the rest.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the part of the URL at fault; the message never repeats the URL itself,
    /// which may hold a password.
    fn from_str(url: &str) -> Result<Self, Error> {
        let Some((scheme, rest)) = url.split_once("://") else {
            // ADO.NET's `key=value;…` strings are SQL Server's own.
            if url.contains('=') && url.to_ascii_lowercase().contains("server") {
                return crate::mssql::target::parse_ado(url);
            }
            return Err(Error::usage(format!(
                "--url has no scheme: write it as {} or {}",
                Engine::Postgres.url_form(),
                Engine::SqlServer.url_form()
            )));
        };
        let engine = Engine::of_scheme(scheme)?;
        if rest.is_empty() {
            return Err(Error::usage(format!("--url names no host: write it as {}", engine.url_form())));
        }
        match engine {
            Engine::Postgres => crate::pg::target::parse(url),
            Engine::SqlServer => crate::mssql::target::parse(url),
        }
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
            ("sqlserver://", "no host: write it as sqlserver://user:password@host:port/database"),
            ("mssql://", "no host: write it as sqlserver://"),
            ("postgresql://", "no host: write it as postgres://user:password@host:port/dbname"),
            ("postgres://u:s3cret@h:notaport/db", "not a valid PostgreSQL URL"),
            ("sqlserver://u:s3cret@h:x/db", "not a valid SQL Server URL"),
            ("Server=tcp:h,1433;Password=s3cret;Encrypt=perhaps", "not a valid ADO.NET connection string"),
            // A raw '@' in the password: tokio-postgres would take its tail for the host.
            (
                "postgres://u:s3@cret@h:1/db",
                "more than one '@': percent-encode an '@' in the password as %40",
            ),
            ("postgresql://u:s3@cret@h/db?application_name=x", "more than one '@'"),
            ("postgres://u:s3@c?ret=x@h/db", "more than one '@'"),
            // SQL Server's parser ends the password at the last '@'; a raw '/' or '?' before it cuts it short.
            ("sqlserver://u:s3@c/ret@h:1/db", "an '@' after the host"),
            ("sqlserver://u:s3c?ret=1@h:1/db", "an '@' after the host"),
            ("sqlserver://u:s3@c?ret=1@h/db", "an unknown option"),
            ("sqlserver://u:s3@cret@h:x/db", "the port is not a number"),
        ] {
            let err = url.parse::<Target>().unwrap_err().to_string();
            assert!(err.contains(needle), "{url}: {err}");
            for piece in ["s3", "cret", "ret"] {
                assert!(!err.contains(piece), "{url}: {err}");
            }
        }
    }

    #[test]
    fn a_sql_server_password_may_hold_an_at_sign() {
        let t: Target = "sqlserver://bench:s3@cret@db1:1444/tpcc".parse().unwrap();
        assert_eq!(t.label(), "sqlserver://bench@db1:1444/tpcc");
        assert!(!format!("{t} {t:?}").contains("cret"));
        let t: Target = "postgres://bench:s3%40cret@db1:6543/tpcc".parse().unwrap();
        assert_eq!(t.label(), "postgres://bench@db1:6543/tpcc");
        let options: Target = "postgres://bench@db1/tpcc?application_name=me@host".parse().unwrap();
        assert_eq!(options.label(), "postgres://bench@db1:5432/tpcc", "an '@' among the options is fine");
    }
}
