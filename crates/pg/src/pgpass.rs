//! PostgreSQL password files (`.pgpass` format), read as libpq reads them.
//!
//! One entry a line, `hostname:port:database:username:password`; `*` matches anything in the first
//! four fields, `\` escapes `:` and `\`, `#` starts a comment; the first matching line wins. The built-in
//! server keeps its secret in such a file, so psql and oltpgen read it the same way (`passfile=` in a URL).

use std::path::{Path, PathBuf};

use oltpgen_vocab::Error;
use oltpgen_vocab::console::ErrLines;

/// The connection an entry is looked up for.
#[derive(Clone, Copy, Debug)]
pub struct Wanted<'a> {
    /// Host name, address or socket directory.
    pub host: &'a str,
    /// TCP port.
    pub port: u16,
    /// Database name.
    pub dbname: &'a str,
    /// Role name.
    pub user: &'a str,
}

/// The password of the first line of `text` that matches `wanted`.
pub fn lookup(text: &str, wanted: Wanted<'_>) -> Option<String> {
    let port = wanted.port.to_string();
    let keys = [wanted.host, port.as_str(), wanted.dbname, wanted.user];
    text.lines().filter(|l| !l.trim_start().starts_with('#')).find_map(|line| {
        let fields = split(line);
        let matches = fields.len() == 5 && fields[..4].iter().zip(keys).all(|(f, k)| f == "*" || f == k);
        matches.then(|| fields[4].clone())
    })
}

/// One line of the file, for the built-in server's own secret: any host, port and database.
pub fn entry_for_any_database(user: &str, password: &str) -> String {
    let escape = |s: &str| s.replace('\\', "\\\\").replace(':', "\\:");
    format!("*:*:*:{}:{}\n", escape(user), escape(password))
}

/// Takes libpq's `passfile=PATH` option out of a URL (tokio-postgres does not know it): the URL without
/// it, and the path.
pub fn take_passfile_option(url: &str) -> (String, Option<std::path::PathBuf>) {
    let Some((base, query)) = url.split_once('?') else { return (url.to_string(), None) };
    let mut passfile = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|kv| match kv.strip_prefix("passfile=") {
            Some(path) => {
                passfile = Some(std::path::PathBuf::from(path));
                false
            }
            None => true,
        })
        .collect();
    let url = if rest.is_empty() { base.to_string() } else { format!("{base}?{}", rest.join("&")) };
    (url, passfile)
}

/// Where a target's password came from, so that a refused login names the place to correct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PasswordFrom {
    /// The URL (or the settings built in code), or nowhere.
    Url,
    /// The `PGPASSWORD` variable.
    Env,
    /// A password file: the URL's `passfile=`, `PGPASSFILE`'s or `~/.pgpass`.
    File(PathBuf),
}

/// Fills in `config`'s password where libpq finds one when the URL has none (tokio-postgres looks
/// nowhere): `PGPASSWORD`, else the password file — the URL's `passfile=`, else `PGPASSFILE`, else
/// `~/.pgpass`; says where it came from.
///
/// # Errors
/// [`Error::Usage`] naming the file when the URL's own `passfile=` cannot be read or holds no entry for
/// this connection (a default file that is missing or has no entry is passed over, as libpq does).
pub fn fill_password(
    config: &mut tokio_postgres::Config,
    passfile: Option<&Path>,
) -> Result<PasswordFrom, Error> {
    if config.get_password().is_some() {
        return Ok(PasswordFrom::Url);
    }
    if let Some(p) = std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()) {
        config.password(p);
        return Ok(PasswordFrom::Env);
    }
    let user = config.get_user().unwrap_or_default().to_string();
    let password = match passfile {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Error::usage(format!("--url: cannot read its passfile {}: {e}", path.display()))
            })?;
            let found = lookup(&text, wanted(config, &user)).ok_or_else(|| {
                Error::usage(format!("--url: its passfile {} has no entry for user '{user}'", path.display()))
            })?;
            Some((found, path.to_path_buf()))
        }
        None => default_file().and_then(|file| {
            let found = lookup(&read_private(&file)?, wanted(config, &user))?;
            Some((found, file))
        }),
    };
    Ok(match password {
        Some((password, file)) => {
            config.password(password);
            PasswordFrom::File(file)
        }
        None => PasswordFrom::Url,
    })
}

/// What `config` connects to, as a password file's lines name it.
fn wanted<'a>(config: &'a tokio_postgres::Config, user: &'a str) -> Wanted<'a> {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.as_str(),
        // libpq matches a socket connection against "localhost".
        _ => "localhost",
    };
    Wanted {
        host,
        port: config.get_ports().first().copied().unwrap_or(5432),
        dbname: config.get_dbname().unwrap_or(user),
        user,
    }
}

/// The password file libpq reads when the URL names none: `PGPASSFILE`, else `~/.pgpass`.
fn default_file() -> Option<PathBuf> {
    match std::env::var_os("PGPASSFILE") {
        Some(f) => Some(PathBuf::from(f)),
        None => Some(PathBuf::from(std::env::var_os("HOME")?).join(".pgpass")),
    }
}

/// A default password file's text, unless others can read it: libpq then ignores it, and so do we,
/// saying so on the standard error of the command reading the URL (the handle it scoped: a URL is read
/// deep in every command, on its own task).
fn read_private(file: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.permissions().mode() & 0o077 != 0 {
        ErrLines::current().line(&format!(
            "warning: password file {} has group or world access and is ignored (as psql does); \
             chmod 0600 it",
            file.display()
        ));
        return None;
    }
    std::fs::read_to_string(file).ok()
}

fn split(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut().expect("one field").extend(chars.next()),
            ':' => fields.push(String::new()),
            c => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_matching_line_wins_with_wildcards_and_escapes() {
        let text = "# comment\ndb1:5432:tpcc:bench:first\n*:*:*:bench:p\\:w\\\\d\n";
        let want = |host, dbname| Wanted { host, port: 5432, dbname, user: "bench" };
        assert_eq!(lookup(text, want("db1", "tpcc")).as_deref(), Some("first"));
        assert_eq!(lookup(text, want("db2", "ds2")).as_deref(), Some("p:w\\d"));
        assert_eq!(lookup(text, Wanted { user: "other", ..want("db1", "tpcc") }), None);
        let line = entry_for_any_database("oltpgen", "a:b\\c");
        assert_eq!(lookup(&line, want("x", "y")), None, "another user");
        let own = Wanted { user: "oltpgen", ..want("x", "y") };
        assert_eq!(lookup(&line, own).as_deref(), Some("a:b\\c"));
        assert_eq!(
            lookup("h:1:d:u", Wanted { host: "h", port: 1, dbname: "d", user: "u" }),
            None,
            "no password"
        );
    }

    #[test]
    fn the_passfile_option_is_taken_out_of_a_url() {
        let (url, file) = take_passfile_option("postgres://u@h/db?passfile=/x/pgpass&sslmode=disable");
        assert_eq!(url, "postgres://u@h/db?sslmode=disable");
        assert_eq!(file.as_deref(), Some(std::path::Path::new("/x/pgpass")));
        assert_eq!(take_passfile_option("postgres://u@h/db?passfile=/p").0, "postgres://u@h/db");
        assert_eq!(take_passfile_option("postgres://u@h/db").1, None);
    }
}
