//! A PostgreSQL target: `postgres://` URLs (libpq's options, `passfile=`, PGPASSWORD and `.pgpass`
//! for the password) and settings built in code, labelled alike.

use std::str::FromStr;

use tokio_postgres::Config;

use super::pgpass::PasswordFrom;
use crate::vocab::target::Engine;
use crate::{Error, Target};

/// A PostgreSQL target's settings: tokio-postgres' own (password included: never print them) and where
/// the password came from, for a refused login's advice.
#[derive(Clone)]
pub struct Settings {
    /// What tokio-postgres connects with.
    pub config: Config,
    /// Where `config`'s password came from.
    pub password_from: PasswordFrom,
}

/// Why a URL with a raw `@` in its password is refused: tokio-postgres (like libpq) ends the password at
/// the first `@` and takes the rest for the host, which a label or an error would then show.
const MANY_ATS: &str = "--url: the part before the host holds more than one '@': percent-encode an '@' \
                        in the password as %40, or give the password in PGPASSWORD / ~/.pgpass";

/// Parses `postgres://user:password@host:port/dbname?options` (also `postgresql://`).
///
/// # Errors
/// [`Error::Usage`] naming the option at fault; the message never repeats the URL itself.
pub fn parse(url: &str) -> Result<Target, Error> {
    let many_ats = || Error::usage(MANY_ATS);
    let before_options = url.split_once('?').map_or(url, |(main, _)| main);
    if before_options.matches('@').count() > 1 {
        return Err(many_ats());
    }
    let (url, passfile) = super::pgpass::take_passfile_option(url);
    let mut config = Config::from_str(&url).map_err(|e| {
        // A raw '@' followed by a '?' in the password puts part of it among the options, which
        // tokio-postgres' errors name: say what is likelier wrong, and nothing of the URL.
        if url.matches('@').count() > 1 {
            return many_ats();
        }
        // tokio-postgres' parse errors name the option at fault, not the URL's value.
        Error::usage(format!("--url is not a valid PostgreSQL URL: {e}"))
    })?;
    let password_from = super::pgpass::fill_password(&mut config, passfile.as_deref())?;
    Ok(from_settings(Settings { config, password_from }))
}

/// A target from settings built in code (the built-in instance), labelled like a URL.
pub fn from_config(config: Config) -> Target {
    from_settings(Settings { config, password_from: PasswordFrom::Url })
}

fn from_settings(settings: Settings) -> Target {
    let config = &settings.config;
    let (label, address) = (label_of(config), address_of(config));
    // PostgreSQL's default database is the user's name.
    let dbname = config.get_dbname().or(config.get_user()).unwrap_or("postgres").to_string();
    Target::new(Engine::Postgres, settings, label, dbname).at(address)
}

/// `target`'s server, database `dbname` on it.
pub fn with_dbname(target: &Target, dbname: &str) -> Target {
    let mut settings = target.pg_settings().expect("the engine chose PostgreSQL from the target").clone();
    settings.config.dbname(dbname);
    from_settings(settings)
}

/// A target on `127.0.0.1:port` as `user` with `password`, database `dbname` (the built-in server).
pub fn local(port: u16, user: &str, password: &str, dbname: &str) -> Target {
    let mut c = Config::new();
    c.host("127.0.0.1").port(port).user(user).password(password).dbname(dbname);
    c.application_name("oltpgen");
    from_config(c)
}

impl Target {
    /// The PostgreSQL connection settings (password included: never print them), `None` for a target
    /// of another engine; for the engine's own code and for tests that connect with tokio-postgres.
    pub fn pg_config(&self) -> Option<&Config> {
        self.pg_settings().map(|s| &s.config)
    }

    /// The PostgreSQL settings, where the password came from included; `None` for another engine's.
    pub fn pg_settings(&self) -> Option<&Settings> {
        self.settings()
    }
}

fn label_of(config: &Config) -> String {
    let user = config.get_user().unwrap_or("");
    let db = config.get_dbname().unwrap_or(user);
    let at = if user.is_empty() { String::new() } else { format!("{user}@") };
    format!("postgres://{at}{}/{db}", address_of(config))
}

/// The first server's `host:port` (5432 when the URL gives no port).
fn address_of(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!("{host}:{port}")
}
