//! A PostgreSQL target: `postgres://` URLs (libpq's options, `passfile=`, PGPASSWORD and `.pgpass`
//! for the password) and settings built in code, labelled alike.
//!
//! A URL may name several servers (`postgres://h1:5432,h2:5432/db?target_session_attrs=read-write`, as
//! libpq takes it): each connection goes to the first that answers (and accepts writes, with
//! `read-write`), so users that lose the primary reconnect to whichever server is the primary now. Every
//! target also notices a server that went away without a word (power lost, network cut): TCP
//! keepalives ([`DEAD_PEER`]) when idle, and a limit on unacknowledged data while a statement runs.

use std::str::FromStr;

use tokio_postgres::Config;

use super::pgpass::PasswordFrom;
use oltpgen_vocab::target::Engine;
use oltpgen_vocab::{Error, Target};

/// A PostgreSQL target's settings: tokio-postgres' own (password included: never print them) and where
/// the password came from, for a refused login's advice.
#[derive(Clone)]
pub struct Settings {
    /// What tokio-postgres connects with.
    pub config: Config,
    /// Where `config`'s password came from.
    pub password_from: PasswordFrom,
}

/// What a label shows and where the password came from, never the password.
impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("pg::Settings")
            .field("hosts", &self.config.get_hosts())
            .field("ports", &self.config.get_ports())
            .field("user", &self.config.get_user())
            .field("dbname", &self.config.get_dbname())
            .field("password_from", &self.password_from)
            .finish_non_exhaustive()
    }
}

/// Why a URL with a raw `@` in its password is refused: tokio-postgres (like libpq) ends the password at
/// the first `@` and takes the rest for the host, which a label or an error would then show.
const MANY_ATS: &str = "--url: the part before the host holds more than one '@': percent-encode an '@' \
                        in the password as %40, or give the password in PGPASSWORD / ~/.pgpass";

/// The `application_name` of every session oltpgen opens, unless the URL names its own: what a DBA
/// reads in `pg_stat_activity` (and how the pristine copy tells oltpgen's sessions from another client's).
pub const APPLICATION_NAME: &str = "oltpgen";

/// Parses `postgres://user:password@host:port/dbname?options` (also `postgresql://`); the sessions are
/// named [`APPLICATION_NAME`] unless an `application_name` option names them.
///
/// # Errors
/// [`Error::Usage`] naming the option at fault; the message never repeats the URL itself.
pub fn parse(url: &str) -> Result<Target, Error> {
    let many_ats = || Error::usage(MANY_ATS);
    let before_options = url.split_once('?').map_or(url, |(main, _)| main);
    if before_options.matches('@').count() > 1 {
        return Err(many_ats());
    }
    // tokio-postgres ends the credentials at the first '@' and reads the host and database up to the
    // next '?': an '@' there is the rest of a password holding a raw '?' (`u:s3?c@ret@h`), which the
    // label would show as the host.
    let after_credentials = url.split_once('@').map_or("", |(_, rest)| rest);
    if after_credentials.split_once('?').map_or(after_credentials, |(main, _)| main).contains('@') {
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
    notice_dead_peers(&mut config, &url);
    // A DBA sees whose sessions these are in pg_stat_activity (issue 36), unless the URL names them.
    if config.get_application_name().is_none() {
        config.application_name(APPLICATION_NAME);
    }
    Ok(from_settings(Settings { config, password_from }))
}

/// How soon a connection to a server that went away without a reset is given up, unless the URL says
/// otherwise: idle seconds before the first keepalive probe, seconds between probes, probes unanswered,
/// and seconds data sent may stay unacknowledged (a statement under way). libpq's defaults leave it to
/// the kernel, which waits two hours idle and some fifteen minutes on a statement: users would hang
/// through a failover instead of reconnecting to the new primary.
pub const DEAD_PEER: (u64, u64, u32, u64) = (5, 2, 3, 20);

/// Sets [`DEAD_PEER`]'s keepalives and TCP user timeout on `config`, leaving alone each that the URL
/// (`url`, its options) set itself.
fn notice_dead_peers(config: &mut Config, url: &str) {
    let given = |option: &str| url.split_once('?').is_some_and(|(_, q)| q.contains(option));
    let (idle, interval, retries, unacknowledged) = DEAD_PEER;
    if !given("keepalives_idle") {
        config.keepalives_idle(std::time::Duration::from_secs(idle));
    }
    if !given("keepalives_interval") {
        config.keepalives_interval(std::time::Duration::from_secs(interval));
    }
    if !given("keepalives_retries") {
        config.keepalives_retries(retries);
    }
    if !given("tcp_user_timeout") {
        config.tcp_user_timeout(std::time::Duration::from_secs(unacknowledged));
    }
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
    let mut settings = settings(target).expect("the engine chose PostgreSQL from the target").clone();
    settings.config.dbname(dbname);
    from_settings(settings)
}

/// A target on `127.0.0.1:port` as `user` with `password`, database `dbname` (the built-in server).
pub fn local(port: u16, user: &str, password: &str, dbname: &str) -> Target {
    let mut c = Config::new();
    c.host("127.0.0.1").port(port).user(user).password(password).dbname(dbname);
    c.application_name(APPLICATION_NAME);
    from_config(c)
}

/// A target's PostgreSQL connection settings (password included: never print them), `None` for a
/// target of another engine; for the engine's own code and for tests that connect with tokio-postgres.
pub fn config(target: &Target) -> Option<&Config> {
    settings(target).map(|s| &s.config)
}

/// A target's PostgreSQL settings, where the password came from included; `None` for another engine's.
pub fn settings(target: &Target) -> Option<&Settings> {
    target.settings()
}

fn label_of(config: &Config) -> String {
    let user = config.get_user().unwrap_or("");
    let db = config.get_dbname().unwrap_or(user);
    let at = if user.is_empty() { String::new() } else { format!("{user}@") };
    format!("postgres://{at}{}/{db}", address_of(config))
}

/// The servers' `host:port`, comma-separated as the URL gave them (5432 when the URL gives no port; one
/// port for every host when it gives one).
fn address_of(config: &Config) -> String {
    let ports = config.get_ports();
    let port = |i: usize| ports.get(i).or(ports.first()).copied().unwrap_or(5432);
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| match host {
            tokio_postgres::config::Host::Tcp(h) => format!("{h}:{}", port(i)),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(p) => format!("{}:{}", p.display(), port(i)),
        })
        .collect();
    if hosts.is_empty() { format!("localhost:{}", port(0)) } else { hosts.join(",") }
}

/// How many servers the settings name (at least one: the default host).
pub fn hosts(config: &Config) -> usize {
    config.get_hosts().len().max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_of_several_servers_names_them_all_and_wants_the_primary() {
        let url = "postgres://bench:s3cret@db1:5432,db2:5433/tpcc?target_session_attrs=read-write";
        let t: Target = parse(url).unwrap();
        assert_eq!(t.label(), "postgres://bench@db1:5432,db2:5433/tpcc");
        assert_eq!(t.key(), "db1:5432,db2:5433/tpcc");
        let config = config(&t).unwrap();
        assert_eq!(config.get_hosts().len(), 2);
        assert_eq!(config.get_target_session_attrs(), tokio_postgres::config::TargetSessionAttrs::ReadWrite);
        let default_port: Target = parse("postgres://bench@db1,db2:6000/tpcc").unwrap();
        assert_eq!(default_port.label(), "postgres://bench@db1:5432,db2:6000/tpcc", "as libpq reads it");
    }

    #[test]
    fn every_session_is_named_oltpgen_unless_the_url_names_it() {
        let name = |url: &str| {
            let t: Target = parse(url).unwrap();
            config(&t).unwrap().get_application_name().map(str::to_string)
        };
        assert_eq!(name("postgres://bench@db1/tpcc").as_deref(), Some("oltpgen"));
        assert_eq!(name("postgres://bench@db1/tpcc?application_name=mine").as_deref(), Some("mine"));
    }

    #[test]
    fn a_server_gone_without_a_word_is_noticed_unless_the_url_says_otherwise() {
        use std::time::Duration;
        let t: Target = parse("postgres://bench@db1/tpcc").unwrap();
        let c = config(&t).unwrap();
        assert_eq!(c.get_keepalives_idle(), Duration::from_secs(5));
        assert_eq!(c.get_keepalives_interval(), Some(Duration::from_secs(2)));
        assert_eq!(c.get_keepalives_retries(), Some(3));
        assert_eq!(c.get_tcp_user_timeout(), Some(&Duration::from_secs(20)));
        let own: Target = parse("postgres://bench@db1/tpcc?keepalives_idle=60&tcp_user_timeout=9").unwrap();
        let c = config(&own).unwrap();
        assert_eq!(c.get_keepalives_idle(), Duration::from_secs(60));
        assert_eq!(c.get_tcp_user_timeout(), Some(&Duration::from_secs(9)));
    }
}
