//! A SQL Server target: `sqlserver://` URLs and ADO.NET connection strings, the password from the URL
//! or `SQLCMDPASSWORD` (the variable sqlcmd reads), TLS as asked, and an Entra ID access token from
//! `OLTPGEN_MSSQL_ACCESS_TOKEN`, all labelled without the secret.

use tiberius::{AuthMethod, EncryptionLevel};

use oltpgen_vocab::target::Engine;
use oltpgen_vocab::url::{self, AdoString, UrlParts, UrlRules};
use oltpgen_vocab::{Error, Target};

/// The variable sqlcmd reads a SQL login's password from; oltpgen reads it too when the URL has none.
pub const PASSWORD_VAR: &str = "SQLCMDPASSWORD";
/// Where an Entra ID (Azure AD) access token comes from with `authentication=ActiveDirectoryAccessToken`.
pub const TOKEN_VAR: &str = "OLTPGEN_MSSQL_ACCESS_TOKEN";
/// The database a target without one names (a login's usual default).
const DEFAULT_DATABASE: &str = "master";

/// How SQL Server's URLs are read: the password ends at the authority's last '@' (an '@' in it is
/// fine); an '@' past the authority means a raw '/' or '?' in the password cut it short.
const RULES: UrlRules = UrlRules {
    engine: "SQL Server",
    default_port: 1433,
    password_may_hold_at: true,
    stray_at: "an '@' after the host: percent-encode a '/' or '?' in the password (%2F, %3F), or give the \
               password in SQLCMDPASSWORD",
};

/// SQL Server's connection settings: tiberius' own (password or token included: never print them) and
/// the parts a label shows.
#[derive(Clone)]
pub struct Config {
    /// What tiberius connects with.
    pub tds: tiberius::Config,
    host: String,
    port: u16,
    user: String,
    database: String,
    /// Whether a password (or token) was given, to explain a refused login without one.
    pub has_secret: bool,
}

/// The parts a label shows, never tiberius' settings (they hold the password or token).
impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("mssql::Config")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("database", &self.database)
            .field("has_secret", &self.has_secret)
            .finish_non_exhaustive()
    }
}

/// Parses `sqlserver://user:password@host:port/database?options` (also `mssql://`).
///
/// Options: `encrypt` (`false`: TLS for the login when the server offers it, the default; `true`: TLS
/// demanded; `disable`: none at all), `trust_server_certificate`, `trust_server_certificate_ca=<file>`,
/// `application_name`, `authentication=ActiveDirectoryAccessToken` (token from [`TOKEN_VAR`]).
///
/// # Errors
/// [`Error::Usage`] naming the part at fault; never repeats the URL.
pub fn parse(url: &str) -> Result<Target, Error> {
    let UrlParts { user, password, host, port, database, options, .. } = url::read(url, &RULES)?;
    let bad = |what: &str| RULES.bad(what);
    let mut tds = tiberius::Config::new();
    tds.host(&host);
    tds.port(port);
    tds.application_name("oltpgen");
    let (mut level, mut trust, mut ca, mut token) = (EncryptionLevel::Off, false, None, false);
    // A piece holding '@' may be a piece of a password cut short at a raw '?': not shown.
    let hold_at = options.iter().any(|(k, v)| k.contains('@') || v.contains('@'));
    for (key, value) in options {
        match key.to_ascii_lowercase().as_str() {
            "encrypt" => level = encryption(&value)?,
            "trust_server_certificate" | "trustservercertificate" => trust = flag(&key, &value)?,
            "trust_server_certificate_ca" | "trustservercertificateca" => ca = Some(value),
            "application_name" | "app_name" => tds.application_name(value),
            "authentication" => token = access_token_asked(&value)?,
            _ if hold_at => return Err(bad("an unknown option")),
            other => {
                return Err(bad(&format!(
                    "unknown option '{other}' (known: encrypt, trust_server_certificate, \
                     trust_server_certificate_ca, application_name, authentication)"
                )));
            }
        }
    }
    if !database.is_empty() {
        tds.database(&database);
    }
    tds.encryption(level);
    match (trust, ca) {
        (true, Some(_)) => {
            return Err(bad("trust_server_certificate and trust_server_certificate_ca exclude each other"));
        }
        (_, Some(path)) => tds.trust_cert_ca(path),
        (true, None) => tds.trust_cert(),
        (false, None) => login_only_unverified(&mut tds, level),
    }
    let has_secret = authenticate(&mut tds, &user, password, token)?;
    Ok(from_config(Config { tds, host, port, user, database, has_secret }))
}

/// Parses an ADO.NET connection string (`Server=tcp:host,1433;Database=…;User Id=…;Password=…;
/// Encrypt=true`), which tiberius reads; the password may come from [`PASSWORD_VAR`] instead.
///
/// # Errors
/// [`Error::Usage`] when tiberius refuses it; never repeats the string.
pub fn parse_ado(s: &str) -> Result<Target, Error> {
    let ado = AdoString::read(s);
    let get = |keys: &[&str]| ado.get(keys);
    let ca = get(&["trustservercertificateca"]);
    let trust =
        get(&["trustservercertificate"]).is_some_and(|v| flag("TrustServerCertificate", &v).unwrap_or(false));
    if ca.is_some() && trust {
        // tiberius panics on both.
        return Err(Error::usage(
            "--url: TrustServerCertificate and TrustServerCertificateCA exclude each other",
        ));
    }
    let mut tds = tiberius::Config::from_ado_string(s)
        .map_err(|e| Error::usage(format!("--url is not a valid ADO.NET connection string: {e}")))?;
    let level = match get(&["encrypt"]) {
        Some(v) => encryption(&v)?,
        None => EncryptionLevel::Off,
    };
    if ca.is_none() && !trust {
        login_only_unverified(&mut tds, level);
    }
    let user = get(&["uid", "username", "user", "user id"]).unwrap_or_default();
    let password = get(&["password", "pwd"]);
    let token = get(&["authentication"]).map(|a| access_token_asked(&a)).transpose()?.unwrap_or(false);
    let database = get(&["database", "initial catalog", "databasename"]).unwrap_or_default();
    let server = get(&["server", "data source"]).unwrap_or_default();
    let server = server.strip_prefix("tcp:").unwrap_or(&server);
    let (host, port) = match server.split_once(',') {
        Some((h, p)) => (h.to_string(), p.trim().parse().unwrap_or(1433)),
        None => (server.to_string(), 1433),
    };
    if get(&["application name", "applicationname"]).is_none() {
        tds.application_name("oltpgen");
    }
    let has_secret = authenticate(&mut tds, &user, password, token)?;
    Ok(from_config(Config { tds, host, port, user, database, has_secret }))
}

/// With `encrypt=false` only the login travels over TLS, and, as Microsoft's own drivers do, the
/// server's certificate is then not checked (servers such as Babelfish offer a self-signed one).
fn login_only_unverified(tds: &mut tiberius::Config, level: EncryptionLevel) {
    if matches!(level, EncryptionLevel::Off) {
        tds.trust_cert();
    }
}

/// Sets the login: an access token when asked, else the user with the given password, else
/// [`PASSWORD_VAR`]'s; says whether there was a secret.
fn authenticate(
    tds: &mut tiberius::Config,
    user: &str,
    password: Option<String>,
    token: bool,
) -> Result<bool, Error> {
    if token {
        let token = std::env::var(TOKEN_VAR).map_err(|_| {
            Error::usage(format!(
                "--url asks for an Entra ID access token (authentication=ActiveDirectoryAccessToken) and {TOKEN_VAR} is not set"
            ))
        })?;
        tds.authentication(AuthMethod::aad_token(token));
        return Ok(true);
    }
    let password = password.or_else(|| std::env::var(PASSWORD_VAR).ok());
    let given = password.is_some();
    tds.authentication(AuthMethod::sql_server(user, password.unwrap_or_default()));
    Ok(given)
}

/// Whether an `authentication` option asks for an access token (the only kind besides SQL logins).
fn access_token_asked(value: &str) -> Result<bool, Error> {
    match value.to_ascii_lowercase().as_str() {
        "activedirectoryaccesstoken" | "accesstoken" => Ok(true),
        "sqlpassword" | "sql" => Ok(false),
        _ => Err(Error::usage(
            "--url: authentication must be SqlPassword or ActiveDirectoryAccessToken (a token in OLTPGEN_MSSQL_ACCESS_TOKEN)",
        )),
    }
}

/// The TLS level an `encrypt` option names.
fn encryption(value: &str) -> Result<EncryptionLevel, Error> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "mandatory" | "required" | "strict" => Ok(EncryptionLevel::Required),
        "false" | "no" | "optional" | "off" => Ok(EncryptionLevel::Off),
        "disable" | "disabled" | "danger_plaintext" => Ok(EncryptionLevel::NotSupported),
        _ => Err(Error::usage(
            "--url: encrypt must be true (TLS demanded), false (TLS when offered) or disable",
        )),
    }
}

/// A boolean option.
fn flag(key: &str, value: &str) -> Result<bool, Error> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" | "" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(Error::usage(format!("--url: {key} must be true or false"))),
    }
}

/// A target from settings, labelled like a URL.
fn from_config(config: Config) -> Target {
    let at = if config.user.is_empty() { String::new() } else { format!("{}@", config.user) };
    let db = if config.database.is_empty() { DEFAULT_DATABASE } else { &config.database };
    let address = format!("{}:{}", config.host, config.port);
    let label = format!("sqlserver://{at}{address}/{db}");
    let dbname = db.to_string();
    Target::new(Engine::SqlServer, config, label, dbname).at(address)
}

/// `target`'s server, database `dbname` on it.
pub fn with_dbname(target: &Target, dbname: &str) -> Target {
    let mut config = super::config(target).clone();
    config.tds.database(dbname);
    config.database = dbname.to_string();
    from_config(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_ado_strings_label_alike_without_the_password() {
        for s in [
            "sqlserver://bench:s%40cret@sql1:1444/tpcc?encrypt=true&trust_server_certificate=true",
            "Server=tcp:sql1,1444;Database=tpcc;User Id=bench;Password=s@cret;Encrypt=true",
        ] {
            let t = if s.contains("://") { parse(s) } else { parse_ado(s) }.unwrap();
            assert_eq!(t.label(), "sqlserver://bench@sql1:1444/tpcc", "{s}");
            assert_eq!(t.dbname(), "tpcc");
            assert_eq!(t.engine(), Engine::SqlServer);
            assert!(!format!("{t} {t:?}").contains("s@cret"));
        }
        let t = parse("mssql://sa@db").unwrap();
        assert_eq!(t.label(), "sqlserver://sa@db:1433/master");
        assert_eq!(with_dbname(&t, "x").label(), "sqlserver://sa@db:1433/x");
    }

    #[test]
    fn bad_options_are_named_without_the_password() {
        for (url, needle) in [
            ("sqlserver://u:s3cret@h/db?encrypt=maybe", "encrypt must be"),
            ("sqlserver://u:s3cret@h/db?colour=blue", "unknown option 'colour'"),
            ("sqlserver://u:s3cret@h:port/db", "port is not a number"),
            ("sqlserver://u:s3cret@/db", "no host"),
            ("sqlserver://u:s3cret@h/db?authentication=Kerberos", "authentication must be"),
        ] {
            let err = parse(url).unwrap_err().to_string();
            assert!(err.contains(needle), "{url}: {err}");
            assert!(!err.contains("s3cret"), "{url}: {err}");
        }
    }
}
