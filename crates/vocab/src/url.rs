//! The one reader of database URLs (`scheme://user:password@host:port/database?key=value&…`) and
//! ADO.NET connection strings (`key=value;…`), which SQL Server's and MySQL's targets build their
//! clients' settings from, and which `--target` / `--database_name` edit. PostgreSQL's URLs are read by
//! tokio-postgres' own libpq parser (their forms are libpq's: several hosts, `password=` among the
//! options), and edited here.
//!
//! Each piece is %-decoded once, here. What differs between engines is said by a [`UrlRules`]: the
//! engine's name in errors, its default port, and whether a password may hold a raw `@`. No error
//! repeats the URL, and no `Debug` shows the password.

use std::fmt;

use crate::error::Error;

/// How an engine reads the URL: what the errors call it, the port it means without one, and where a
/// password with a raw `@` ends.
#[derive(Clone, Copy, Debug)]
pub struct UrlRules {
    /// The engine's name in "--url is not a valid … URL".
    pub engine: &'static str,
    /// The port a URL without one means.
    pub default_port: u16,
    /// Whether the password ends at the authority's last `@` (SQL Server's: an `@` in it is fine), or a
    /// second `@` is refused (MySQL's).
    pub password_may_hold_at: bool,
    /// What to say of an `@` where none belongs (a password cut short by a raw `/` or `?`, or one `@`
    /// too many): how to write it instead.
    pub stray_at: &'static str,
}

impl UrlRules {
    /// A usage error about this engine's URL, naming `what` is wrong (never the URL).
    pub fn bad(&self, what: &str) -> Error {
        Error::usage(format!("--url is not a valid {} URL: {what}", self.engine))
    }
}

/// A URL cut at its seams, every piece as written (nothing decoded): what `--target` and
/// `--database_name` edit without touching the rest, and what [`read`] decodes.
#[derive(Clone, Copy)]
pub struct Seams<'a> {
    url: &'a str,
    /// Where the host starts (after the authority's last `@`).
    host_at: usize,
    /// Where the host ends (at the port's `:`, or the end of the authority).
    host_end: usize,
    /// Where the authority ends (at the first `/` or `?` after the scheme).
    authority_end: usize,
}

impl<'a> Seams<'a> {
    /// `url` cut at its seams; `None` without a `scheme://`.
    pub fn of(url: &'a str) -> Option<Seams<'a>> {
        let (_, rest) = url.split_once("://")?;
        let scheme_end = url.len() - rest.len();
        let authority_end = scheme_end + rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &url[scheme_end..authority_end];
        let host_at = scheme_end + authority.rfind('@').map_or(0, |at| at + 1);
        let host_end = host_at + url[host_at..authority_end].rfind(':').unwrap_or(authority_end - host_at);
        Some(Seams { url, host_at, host_end, authority_end })
    }

    /// The scheme, before `://`.
    pub fn scheme(&self) -> &'a str {
        self.url.split_once("://").map_or("", |(s, _)| s)
    }

    /// `user:password`, before the authority's last `@`; `None` without one.
    pub fn userinfo(&self) -> Option<&'a str> {
        let start = self.scheme().len() + 3;
        (self.host_at > start).then(|| &self.url[start..self.host_at - 1])
    }

    /// The host, as written.
    pub fn host(&self) -> &'a str {
        &self.url[self.host_at..self.host_end]
    }

    /// What follows the host's last `:`, as written (a port, or not); `None` without a `:`.
    pub fn port(&self) -> Option<&'a str> {
        (self.host_end < self.authority_end).then(|| &self.url[self.host_end + 1..self.authority_end])
    }

    /// The database, between the authority's `/` and the `?` (empty without one).
    pub fn database(&self) -> &'a str {
        let tail = &self.url[self.authority_end..];
        let path = tail.split_once('?').map_or(tail, |(p, _)| p);
        path.strip_prefix('/').unwrap_or("")
    }

    /// The options, after the first `?` past the host (empty without them).
    pub fn query(&self) -> &'a str {
        self.url[self.authority_end..].split_once('?').map_or("", |(_, q)| q)
    }

    /// The host and its port as one piece, when the port is a number (else the whole is the host):
    /// what `--target`'s host replaces.
    fn host_and_numeric_port(&self) -> (usize, usize) {
        match self.port() {
            Some(p) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => {
                (self.host_at, self.host_end)
            }
            _ => (self.host_at, self.authority_end),
        }
    }

    /// The URL with `host` in place of its host, its port kept unless `host` names one.
    pub fn with_host(&self, host: &str) -> String {
        let (start, end) = self.host_and_numeric_port();
        let after = &self.url[end..];
        let after = match host.rsplit_once(':') {
            // The new host's own port replaces the URL's.
            Some((_, port)) if port.chars().all(|c| c.is_ascii_digit()) => {
                after.trim_start_matches(|c: char| c == ':' || c.is_ascii_digit())
            }
            _ => after,
        };
        format!("{}{host}{after}", &self.url[..start])
    }

    /// The URL naming database `database`, its options kept.
    pub fn with_database(&self, database: &str) -> String {
        let tail = &self.url[self.authority_end..];
        let options = tail.find('?').map_or("", |q| &tail[q..]);
        format!("{}/{database}{options}", &self.url[..self.authority_end])
    }
}

/// A URL read: every piece %-decoded, the port the engine's default when it named none. Its `Debug`
/// never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct UrlParts {
    /// The scheme, as written.
    pub scheme: String,
    /// The user (empty when the URL names none).
    pub user: String,
    /// The password, when the URL gives one.
    pub password: Option<String>,
    /// The host.
    pub host: String,
    /// The port, or the engine's default.
    pub port: u16,
    /// The database (empty when the URL names none).
    pub database: String,
    /// The options in order: the key as written, the value decoded.
    pub options: Vec<(String, String)>,
}

impl fmt::Debug for UrlParts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlParts")
            .field("scheme", &self.scheme)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| Hidden))
            .field("host", &self.host)
            .field("port", &self.port)
            .field("database", &self.database)
            .field("options", &self.options_shown())
            .finish()
    }
}

impl UrlParts {
    /// The options a `Debug` may show: none when one holds an '@', which may be a piece of a password
    /// cut short at a raw '?' (`user:p@ss?word@host`: the options are `word@host`).
    fn options_shown(&self) -> &dyn fmt::Debug {
        match self.options.iter().any(|(k, v)| k.contains('@') || v.contains('@')) {
            true => &Hidden,
            false => &self.options,
        }
    }
}

/// What a `Debug` shows in place of a secret, for every type that holds one.
pub struct Hidden;

impl fmt::Debug for Hidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<hidden>")
    }
}

/// Reads `url` by the engine's `rules`.
///
/// # Errors
/// [`Error::Usage`] ([`UrlRules::bad`]) naming the part at fault: no scheme, an `@` where none belongs,
/// a broken %-escape, a port that is not a number, no host. Never repeats the URL.
pub fn read(url: &str, rules: &UrlRules) -> Result<UrlParts, Error> {
    let bad = |what: &str| rules.bad(what);
    let seams = Seams::of(url).ok_or_else(|| bad("no scheme"))?;
    let (userinfo, database, query) = (seams.userinfo(), seams.database(), seams.query());
    // An '@' past the authority means a raw '/' or '?' in the password cut it short (the label or an
    // error would show the rest); without the last-'@' rule, a second '@' is refused as well.
    let stray_at = if rules.password_may_hold_at {
        database.contains('@') || (userinfo.is_none() && query.contains('@'))
    } else {
        userinfo.is_some_and(|u| u.contains('@')) || database.contains('@') || query.contains('@')
    };
    if stray_at {
        return Err(bad(rules.stray_at));
    }
    let (user, password) = match userinfo.unwrap_or("").split_once(':') {
        Some((u, p)) => (u, Some(p)),
        None => (userinfo.unwrap_or(""), None),
    };
    let user = decode(user).ok_or_else(|| bad("bad %-escape in the user"))?;
    let password =
        password.map(|p| decode(p).ok_or_else(|| bad("bad %-escape in the password"))).transpose()?;
    let port = match seams.port() {
        Some(p) => p.parse::<u16>().map_err(|_| bad("the port is not a number"))?,
        None => rules.default_port,
    };
    if seams.host().is_empty() {
        return Err(bad("no host"));
    }
    let database = decode(database).ok_or_else(|| bad("bad %-escape in the database"))?;
    let options = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((key.to_string(), decode(value).ok_or_else(|| bad("bad %-escape in an option"))?))
        })
        .collect::<Result<_, Error>>()?;
    Ok(UrlParts {
        scheme: seams.scheme().to_string(),
        user,
        password,
        host: seams.host().to_string(),
        port,
        database,
        options,
    })
}

/// Undoes URL %-escapes; `None` for a broken escape or bytes that are not UTF-8.
pub fn decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hex = [bytes.next()?, bytes.next()?];
            out.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
        } else {
            out.push(b);
        }
    }
    String::from_utf8(out).ok()
}

/// An ADO.NET connection string's `key=value` pairs (SQL Server's `Server=…;Password=…`): keys
/// lower-cased, keys and values trimmed. Its `Debug` shows none of them.
#[derive(Clone, PartialEq, Eq)]
pub struct AdoString {
    pairs: Vec<(String, String)>,
}

impl AdoString {
    /// Reads `s`'s pairs; a piece without `=` is passed over (the engine's client judges the rest).
    pub fn read(s: &str) -> AdoString {
        let pairs = s
            .split(';')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        AdoString { pairs }
    }

    /// The value of the first pair whose key is one of `keys` (lower case).
    pub fn get(&self, keys: &[&str]) -> Option<String> {
        self.pairs.iter().find(|(k, _)| keys.contains(&k.as_str())).map(|(_, v)| v.clone())
    }
}

/// How many pairs, none shown: a quoted value holding `;` (`Password="a;b=c"`) reads as more pairs,
/// so any key or value may be a piece of the password.
impl fmt::Debug for AdoString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AdoString(<{} pair(s), not shown>)", self.pairs.len())
    }
}

/// Stands in a `Debug` for a list of `--url`s, which may hold passwords anywhere (in the user part, in
/// a `password=` option, in an ADO.NET string): how many, none shown.
pub struct HiddenUrls(pub usize);

impl fmt::Debug for HiddenUrls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{} URL(s), not shown>", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQL_SERVER: UrlRules = UrlRules {
        engine: "SQL Server",
        default_port: 1433,
        password_may_hold_at: true,
        stray_at: "an '@' after the host",
    };
    const MYSQL: UrlRules = UrlRules {
        engine: "MySQL",
        default_port: 3306,
        password_may_hold_at: false,
        stray_at: "more than one '@'",
    };

    #[test]
    fn a_url_reads_into_decoded_parts_with_the_engine_s_default_port() {
        let p =
            read("sqlserver://be%20nch:s%40c:ret@h1:1444/tp%2Dcc?encrypt=true&app=a%26b&flag", &SQL_SERVER)
                .unwrap();
        assert_eq!(
            (p.scheme.as_str(), p.user.as_str(), p.password.as_deref(), p.host.as_str(), p.port),
            ("sqlserver", "be nch", Some("s@c:ret"), "h1", 1444)
        );
        assert_eq!(p.database, "tp-cc");
        assert_eq!(
            p.options,
            [("encrypt", "true"), ("app", "a&b"), ("flag", "")].map(|(k, v)| (k.into(), v.into()))
        );
        let p = read("mysql://h", &MYSQL).unwrap();
        assert_eq!((p.user.as_str(), p.password, p.port, p.database.as_str()), ("", None, 3306, ""));
    }

    #[test]
    fn where_a_password_s_raw_at_sign_ends_is_the_engine_s_rule() {
        let p = read("sqlserver://u:s3@cret@h/db?app=me@host", &SQL_SERVER).unwrap();
        assert_eq!((p.password.as_deref(), p.host.as_str()), (Some("s3@cret"), "h"));
        for url in ["sqlserver://u:s3@c/ret@h:1/db", "sqlserver://u:s3c?ret=1@h:1/db"] {
            assert!(
                read(url, &SQL_SERVER).unwrap_err().to_string().contains("an '@' after the host"),
                "{url}"
            );
        }
        for url in ["mysql://u:s3@cret@h/db", "mysql://u@h/db?a=b@c", "mysql://u@h/d@b"] {
            let err = read(url, &MYSQL).unwrap_err().to_string();
            assert_eq!(err, "--url is not a valid MySQL URL: more than one '@'", "{url}");
        }
    }

    #[test]
    fn faults_are_named_without_the_url() {
        for (url, needle) in [
            ("h/db", "no scheme"),
            ("mysql://u:s3cret@h:port/db", "the port is not a number"),
            ("mysql://u:s3cret@/db", "no host"),
            ("mysql://u:s3cr%zzet@h/db", "bad %-escape in the password"),
            ("mysql://u%ff:s3cret@h/db", "bad %-escape in the user"),
            ("mysql://u:s3cret@h/d%4", "bad %-escape in the database"),
            ("mysql://u:s3cret@h/db?a=%", "bad %-escape in an option"),
        ] {
            let err = read(url, &MYSQL).unwrap_err().to_string();
            assert!(
                err.starts_with("--url is not a valid MySQL URL: ") && err.contains(needle),
                "{url}: {err}"
            );
            assert!(!err.contains("s3cr"), "{url}: {err}");
        }
    }

    #[test]
    fn seams_edit_the_host_and_the_database_and_keep_the_rest_as_written() {
        let s = Seams::of("postgres://b%40x:p@ss@db0:6432/ds2?sslmode=disable").unwrap();
        assert_eq!(
            (s.scheme(), s.userinfo(), s.host(), s.port()),
            ("postgres", Some("b%40x:p@ss"), "db0", Some("6432"))
        );
        assert_eq!((s.database(), s.query()), ("ds2", "sslmode=disable"));
        assert_eq!(s.with_host("db1"), "postgres://b%40x:p@ss@db1:6432/ds2?sslmode=disable");
        assert_eq!(s.with_host("db2:5433"), "postgres://b%40x:p@ss@db2:5433/ds2?sslmode=disable");
        assert_eq!(s.with_database("x"), "postgres://b%40x:p@ss@db0:6432/x?sslmode=disable");
        let bare = Seams::of("sqlserver://h?x=1").unwrap();
        assert_eq!((bare.userinfo(), bare.host(), bare.port(), bare.database()), (None, "h", None, ""));
        assert_eq!(bare.with_database("d"), "sqlserver://h/d?x=1");
        assert!(Seams::of("Server=tcp:h,1433").is_none());
    }

    #[test]
    fn no_debug_shows_a_password() {
        let p = read("sqlserver://u:Zq9Secret@h/db", &SQL_SERVER).unwrap();
        let ado = AdoString::read("Server=tcp:h,1433; PWD = Zq9Secret;User Id=u;Password=\"a;Zq9Secret=b\"");
        assert_eq!(ado.get(&["user id"]).as_deref(), Some("u"));
        assert_eq!(ado.get(&["pwd", "password"]).as_deref(), Some("Zq9Secret"));
        let cut = read("sqlserver://u:p@ss?Zq9Secret@h/db", &SQL_SERVER).unwrap();
        assert_eq!(cut.options, [("Zq9Secret@h/db".to_string(), String::new())], "a password cut short");
        let shown = format!("{p:?} {ado:?} {:?} {cut:?}", HiddenUrls(2));
        assert!(!shown.contains("Zq9Secret"), "{shown}");
        assert!(
            shown.contains("<hidden>")
                && shown.contains("<5 pair(s), not shown>")
                && shown.contains("<2 URL(s)"),
            "{shown}"
        );
    }
}
