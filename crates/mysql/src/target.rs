//! A MySQL or MariaDB target: `mysql://` and `mariadb://` URLs, the password from the URL, else the
//! `[client]` group of `~/.my.cnf`, else `MYSQL_PWD` (the order the `mysql` client reads them in: an
//! option file before the variable), TLS as asked, all labelled without the secret.

use std::path::Path;

use mysql_async::{Opts, OptsBuilder, SslOpts};

use oltpgen_vocab::target::Engine;
use oltpgen_vocab::url::{self, UrlParts, UrlRules};
use oltpgen_vocab::{Error, Target};

/// The variable the `mysql` client reads a password from; oltpgen reads it too.
pub const PASSWORD_VAR: &str = "MYSQL_PWD";
/// The `program_name` connection attribute of every session oltpgen opens, as the `mysql` client sends
/// its own.
pub const PROGRAM_NAME: &str = "oltpgen";
/// The port a URL without one means.
const DEFAULT_PORT: u16 = 3306;

/// How MySQL's URLs are read: one '@' at most, before the host.
const RULES: UrlRules = UrlRules {
    engine: "MySQL",
    default_port: DEFAULT_PORT,
    password_may_hold_at: false,
    stray_at: "more than one '@': percent-encode an '@', '/' or '?' in the password (%40, %2F, %3F)",
};

/// MySQL's connection settings: mysql_async's own (password included: never print them) and the parts
/// a label shows.
#[derive(Clone)]
pub struct Config {
    /// What mysql_async connects with.
    pub opts: Opts,
    /// `mysql` or `mariadb`, as the URL wrote it (the label keeps it).
    scheme: String,
    host: String,
    port: u16,
    user: String,
    database: String,
}

/// The parts a label shows, never mysql_async's settings (they hold the password).
impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("mysql::Config")
            .field("scheme", &self.scheme)
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("database", &self.database)
            .finish_non_exhaustive()
    }
}

/// How a URL asks for TLS (`ssl-mode`, as the `mysql` client names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SslMode {
    /// No TLS (the default: mysql_async cannot fall back to plain text when TLS is refused).
    Disabled,
    /// TLS, the certificate unchecked.
    Required,
    /// TLS, the certificate checked against the CA, not the host name.
    VerifyCa,
    /// TLS, certificate and host name checked.
    VerifyIdentity,
}

/// Parses `mysql://user:password@host:port/database?options` (also `mariadb://`).
///
/// Options: `ssl-mode` (`DISABLED`, the default; `REQUIRED`; `VERIFY_CA`; `VERIFY_IDENTITY`),
/// `ssl-ca=<file>` (the CA that signed the server's certificate), `socket=<path>` (a Unix socket on the
/// same host, used instead of TCP). A database is required: MySQL has no default one.
///
/// # Errors
/// [`Error::Usage`] naming the part at fault; never repeats the URL.
pub fn parse(url: &str) -> Result<Target, Error> {
    let UrlParts { scheme, user, password, host, port, database, options, .. } = url::read(url, &RULES)?;
    let bad = |what: &str| RULES.bad(what);
    if database.is_empty() {
        return Err(bad("no database: name one after the host (mysql://user@host:3306/tpcc)"));
    }
    let (mut mode, mut ca, mut socket) = (SslMode::Disabled, None, None);
    for (key, value) in options {
        match key.to_ascii_lowercase().replace('_', "-").as_str() {
            "ssl-mode" | "sslmode" => mode = ssl_mode(&value)?,
            "ssl-ca" | "sslca" => ca = Some(value),
            "socket" => socket = Some(value),
            other => {
                return Err(bad(&format!("unknown option '{other}' (known: ssl-mode, ssl-ca, socket)")));
            }
        }
    }
    if ca.is_some() && mode == SslMode::Disabled {
        mode = SslMode::VerifyCa;
    }
    let options = client_options();
    let user = if user.is_empty() {
        options.user.or_else(|| std::env::var("USER").ok()).unwrap_or_else(|| "root".into())
    } else {
        user
    };
    let password = password.or(options.password).or_else(|| std::env::var(PASSWORD_VAR).ok());
    let builder = OptsBuilder::default()
        .ip_or_hostname(host.clone())
        .tcp_port(port)
        .user(Some(user.clone()))
        .pass(password)
        .db_name(Some(database.clone()))
        .socket(socket)
        .prefer_socket(false)
        .tcp_nodelay(true)
        // A DBA sees whose sessions these are (issue 36): MySQL's and MariaDB's clients name themselves
        // by this connection attribute (performance_schema.session_connect_attrs).
        .connect_attribute("program_name", PROGRAM_NAME)
        .ssl_opts(tls(mode, ca));
    let config =
        Config { opts: builder.into(), scheme: scheme.to_ascii_lowercase(), host, port, user, database };
    Ok(from_config(config))
}

/// mysql_async's TLS settings for `mode`.
fn tls(mode: SslMode, ca: Option<String>) -> Option<SslOpts> {
    let roots = ca.map(|path| vec![std::path::PathBuf::from(path).into()]).unwrap_or_default();
    let ssl = SslOpts::default().with_root_certs(roots);
    match mode {
        SslMode::Disabled => None,
        SslMode::Required => {
            Some(ssl.with_danger_accept_invalid_certs(true).with_danger_skip_domain_validation(true))
        }
        SslMode::VerifyCa => Some(ssl.with_danger_skip_domain_validation(true)),
        SslMode::VerifyIdentity => Some(ssl),
    }
}

/// The TLS mode an `ssl-mode` option names.
fn ssl_mode(value: &str) -> Result<SslMode, Error> {
    match value.to_ascii_uppercase().replace('-', "_").as_str() {
        "DISABLED" | "DISABLE" => Ok(SslMode::Disabled),
        "REQUIRED" | "REQUIRE" => Ok(SslMode::Required),
        "VERIFY_CA" => Ok(SslMode::VerifyCa),
        "VERIFY_IDENTITY" | "VERIFY_FULL" => Ok(SslMode::VerifyIdentity),
        _ => Err(Error::usage(
            "--url: ssl-mode must be DISABLED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY (PREFERRED is not \
             offered: a connection is either TLS or not)",
        )),
    }
}

/// What the `[client]` group of the user's option file says. Its `Debug` hides the password.
#[derive(Default, PartialEq)]
struct ClientOptions {
    user: Option<String>,
    password: Option<String>,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| url::Hidden))
            .finish()
    }
}

/// `~/.my.cnf`'s `[client]` group, or nothing when there is no such file.
fn client_options() -> ClientOptions {
    let Some(home) = std::env::var_os("HOME") else { return ClientOptions::default() };
    std::fs::read_to_string(Path::new(&home).join(".my.cnf"))
        .map(|t| read_client_group(&t))
        .unwrap_or_default()
}

/// The `user` and `password` of an option file's `[client]` groups (the last wins, as the client
/// reads them): `key=value`, `key = value`, values in single or double quotes, `-` and `_` alike in
/// keys, `#` and `;` comment lines.
fn read_client_group(text: &str) -> ClientOptions {
    let mut options = ClientOptions::default();
    let mut in_client = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_client =
                line.trim_start_matches('[').trim_end_matches(']').trim().eq_ignore_ascii_case("client");
            continue;
        }
        if !in_client || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let value = value.trim();
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
            .unwrap_or(value)
            .to_string();
        match key.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "user" => options.user = Some(unquoted),
            "password" | "pass" => options.password = Some(unquoted),
            _ => {}
        }
    }
    options
}

/// A target from settings, labelled like a URL.
fn from_config(config: Config) -> Target {
    let address = format!("{}:{}", config.host, config.port);
    let label = format!("{}://{}@{address}/{}", config.scheme, config.user, config.database);
    let dbname = config.database.clone();
    Target::new(Engine::MySql, config, label, dbname).at(address)
}

/// `target`'s server, database `dbname` on it.
pub fn with_dbname(target: &Target, dbname: &str) -> Target {
    let mut config = super::config(target).clone();
    config.opts = OptsBuilder::from_opts(config.opts).db_name(Some(dbname)).into();
    config.database = dbname.to_string();
    from_config(config)
}

/// `target`'s server with no database chosen, to create one.
pub fn without_database(target: &Target) -> Target {
    let mut config = super::config(target).clone();
    config.opts = OptsBuilder::from_opts(config.opts).db_name(None::<String>).into();
    from_config(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_session_names_its_program_oltpgen() {
        let t = parse("mysql://bench@db1/tpcc").unwrap();
        let attrs = super::super::config(&t).opts.connect_attributes().cloned().unwrap_or_default();
        assert_eq!(attrs.get("program_name").map(String::as_str), Some(PROGRAM_NAME));
    }

    #[test]
    fn urls_label_without_the_password() {
        let t: Target =
            crate::target::parse("mariadb://bench:s%40cret@db1:3307/tpcc?ssl-mode=REQUIRED").unwrap();
        assert_eq!(t.label(), "mariadb://bench@db1:3307/tpcc");
        assert_eq!(t.engine(), Engine::MySql);
        assert_eq!(t.key(), "db1:3307/tpcc");
        assert!(!format!("{t} {t:?}").contains("cret"));
        let opts = &t.settings::<Config>().unwrap().opts;
        assert_eq!(opts.pass(), Some("s@cret"));
        assert!(opts.ssl_opts().is_some());
        let t: Target = crate::target::parse("mysql://root@h/db").unwrap();
        assert_eq!(t.label(), "mysql://root@h:3306/db");
        assert_eq!(with_dbname(&t, "x").label(), "mysql://root@h:3306/x");
    }

    #[test]
    fn bad_urls_are_named_without_the_password() {
        for (url, needle) in [
            ("mysql://u:s3cret@h/db?ssl-mode=maybe", "ssl-mode must be"),
            ("mysql://u:s3cret@h/db?colour=blue", "unknown option 'colour'"),
            ("mysql://u:s3cret@h:port/db", "port is not a number"),
            ("mysql://u:s3cret@/db", "no host"),
            ("mysql://u:s3cret@h", "no database"),
            ("mysql://u:s3@cret@h/db", "more than one '@'"),
        ] {
            let err = crate::target::parse(url).unwrap_err().to_string();
            assert!(err.contains(needle), "{url}: {err}");
            assert!(!err.contains("s3cret") && !err.contains("cret"), "{url}: {err}");
        }
    }

    #[test]
    fn no_debug_shows_the_option_file_s_password() {
        let shown = format!("{:?}", read_client_group("[client]\nuser=bench\npassword=Zq9Secret\n"));
        assert!(shown.contains("bench") && !shown.contains("Zq9Secret"), "{shown}");
        let t = parse("mysql://bench:Zq9Secret@db1/tpcc").unwrap();
        let shown = format!("{:?}", t.settings::<Config>().unwrap());
        assert!(shown.contains("db1") && !shown.contains("Zq9Secret"), "{shown}");
    }

    #[test]
    fn the_client_group_of_an_option_file_gives_user_and_password() {
        let text = "# mine\n[mysqld]\npassword=server\n[client]\nuser = bench\npassword=\"p w#1\"\n\
                    [mysql]\npassword=other\n[client]\n; again\n";
        assert_eq!(
            read_client_group(text),
            ClientOptions { user: Some("bench".into()), password: Some("p w#1".into()) }
        );
        assert_eq!(read_client_group("[mysqld]\npassword=x\n"), ClientOptions::default());
    }
}
