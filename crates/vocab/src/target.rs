//! The database a command drives: its engine ([`Engine`], a closed set chosen once from the URL's
//! scheme) and a [`Target`], parsed once from `--url` into that engine's own settings and secret-safe.
//! Each engine's module parses its URLs and builds its targets (PostgreSQL's `pg::target`); the seam
//! (`engine::target`) picks the engine from the scheme. Beside them, the rule every engine applies to a
//! name it is told to create ([`creatable_database_name`]).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::error::Error;

/// The database engines this build of oltpgen speaks; each has its own crate (`oltpgen-pg` for
/// PostgreSQL, `oltpgen-mssql` for SQL Server, `oltpgen-mysql` for MySQL and MariaDB), reached only
/// through the seam (`oltpgen_driver::engine`). An engine the build was made without is no variant: its
/// URLs are refused by [`Engine::of_scheme`], naming the feature to build with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// PostgreSQL, through tokio-postgres.
    #[cfg(feature = "postgres")]
    Postgres,
    /// Microsoft SQL Server (and servers speaking its TDS and T-SQL, such as Babelfish), through tiberius.
    #[cfg(feature = "mssql")]
    SqlServer,
    /// MySQL and MariaDB (InnoDB), through mysql_async.
    #[cfg(feature = "mysql")]
    MySql,
}

/// Every engine oltpgen knows, built or not: its schemes, the Cargo feature that builds it, its name in
/// messages and how its URLs are written.
struct Known {
    schemes: [&'static str; 2],
    feature: &'static str,
    name: &'static str,
    url_form: &'static str,
}

/// PostgreSQL, SQL Server and MySQL, in the order messages list them.
static KNOWN: [Known; 3] = [
    Known {
        schemes: ["postgres", "postgresql"],
        feature: "postgres",
        name: "PostgreSQL",
        url_form: "postgres://user:password@host:port/dbname",
    },
    Known {
        schemes: ["sqlserver", "mssql"],
        feature: "mssql",
        name: "SQL Server",
        url_form: "sqlserver://user:password@host:port/database",
    },
    Known {
        schemes: ["mysql", "mariadb"],
        feature: "mysql",
        name: "MySQL and MariaDB",
        url_form: "mysql://user:password@host:port/database",
    },
];

impl Engine {
    /// Every engine this build speaks: what must hold on each (every check has a query on every
    /// engine), and the URL forms a message about a URL written wrong offers.
    pub const ALL: &[Engine] = &[
        #[cfg(feature = "postgres")]
        Engine::Postgres,
        #[cfg(feature = "mssql")]
        Engine::SqlServer,
        #[cfg(feature = "mysql")]
        Engine::MySql,
    ];

    /// The engine a URL's scheme names.
    ///
    /// # Errors
    /// [`Engine::refusal`] for a scheme this build does not speak.
    pub fn of_scheme(scheme: &str) -> Result<Engine, Error> {
        let scheme = scheme.to_ascii_lowercase();
        match Engine::ALL.iter().find(|e| e.known().schemes.contains(&scheme.as_str())) {
            Some(engine) => Ok(*engine),
            None => Err(Engine::refusal(&scheme)),
        }
    }

    /// Why a URL of `scheme` is refused ([`Error::Usage`]): a scheme oltpgen does not speak, or one it
    /// speaks only when built with a feature this build was made without (the message names it).
    pub fn refusal(scheme: &str) -> Error {
        match KNOWN.iter().find(|k| k.schemes.contains(&scheme)) {
            Some(k) => Error::usage(format!(
                "--url names {} ({scheme}://), but this oltpgen was built without the `{}` feature: build it \
                 with `cargo build --release --features {}` (or the default features), or give {}",
                k.name,
                k.feature,
                k.feature,
                Engine::any_url_form()
            )),
            None => Error::usage(format!(
                "--url has an unknown scheme '{scheme}://': use {}",
                Engine::any_url_form()
            )),
        }
    }

    /// What oltpgen knows of this engine.
    fn known(self) -> &'static Known {
        match self {
            #[cfg(feature = "postgres")]
            Engine::Postgres => &KNOWN[0],
            #[cfg(feature = "mssql")]
            Engine::SqlServer => &KNOWN[1],
            #[cfg(feature = "mysql")]
            Engine::MySql => &KNOWN[2],
        }
    }

    /// How a URL for this engine is written, for messages about a URL written wrong.
    pub fn url_form(self) -> &'static str {
        self.known().url_form
    }

    /// Every built engine's URL form, as a message offers them (`a or b`).
    pub fn any_url_form() -> String {
        Engine::ALL.iter().map(|e| e.url_form()).collect::<Vec<_>>().join(" or ")
    }

    /// The engine's name as results record it.
    pub fn name(self) -> &'static str {
        self.known().schemes[0]
    }
}

/// Checks that `name` is a database name `load --create-database` will create on an engine whose
/// names hold at most `max_len` bytes: 1 to `max_len` ASCII letters, digits, `_` and `-`. A name of
/// these quotes safely in every engine's identifier quoting (`"…"`, `[…]`) and string literals, is never
/// cut short by the server (PostgreSQL truncates a longer name with only a notice), and cannot be a
/// URL's stray text (a `?` or `/` left in by mistake) turned into a database.
///
/// # Errors
/// [`Error::Usage`] naming the name and the rule, and saying to create it by hand otherwise.
pub fn creatable_database_name(name: &str, max_len: usize) -> Result<(), Error> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if name.is_empty() || name.len() > max_len || !name.chars().all(allowed) {
        return Err(Error::usage(format!(
            "--create-database creates databases named with 1 to {max_len} letters, digits, '_' and '-', \
             not {name:?}: create it yourself, or name another one in --url"
        )));
    }
    Ok(())
}

/// One database to drive: its engine, that engine's connection settings, and what output calls it.
///
/// The settings are the engine's own type (PostgreSQL's `pg::target::Settings`), kept opaque here so
/// that the bottom of the crate names no engine: the engine that built a target reads them back with
/// [`Target::settings`]. The password lives only inside them; [`Target`]'s `Display` and
/// [`Target::label`] never show it, so a target can be printed, logged and written into result files
/// as it is.
#[derive(Clone)]
pub struct Target {
    engine: Engine,
    settings: Arc<dyn Any + Send + Sync>,
    label: String,
    dbname: String,
    /// The server's `host:port` as the URL gave them (the port the engine's default when it gave none).
    address: String,
    /// oltpgen's built-in PostgreSQL, whose port changes at every start.
    built_in: bool,
    /// A URL that reaches the built-in PostgreSQL (`oltpgen local url`'s): keyed as its databases are,
    /// though its databases may not be oltpgen's to drop or clone.
    reaches_built_in: bool,
}

impl Target {
    /// A target of `engine` from that engine's `settings`, its label (`engine://user@host:port/dbname`,
    /// no password) and its database name; each engine builds its own.
    pub fn new<S: Any + Send + Sync>(engine: Engine, settings: S, label: String, dbname: String) -> Self {
        Target {
            engine,
            settings: Arc::new(settings),
            address: label.clone(),
            label,
            dbname,
            built_in: false,
            reaches_built_in: false,
        }
    }

    /// This target with its server's `host:port` as the URL gave them, for its [`key`](Target::key);
    /// each engine says it when it builds a target.
    pub fn at(mut self, address: String) -> Self {
        self.address = address;
        self
    }

    /// This target as oltpgen's built-in PostgreSQL, whose port changes at every start: its
    /// [`key`](Target::key) names it without the port.
    pub fn built_in(mut self) -> Self {
        self.built_in = true;
        self
    }

    /// This target, named by a URL, as one on oltpgen's built-in PostgreSQL: its [`key`](Target::key)
    /// names it without the port, as [`built_in`](Target::built_in)'s does; nothing else changes (a
    /// database the URL names need not be one oltpgen created).
    pub fn reaching_built_in(mut self) -> Self {
        self.reaches_built_in = true;
        self
    }

    /// Whether this is a database of oltpgen's built-in PostgreSQL, which oltpgen created (and so may
    /// drop and clone: `--restore`'s template clone).
    pub fn is_built_in(&self) -> bool {
        self.built_in
    }

    /// The database's one stable name, used wherever results name a database (per-database figures,
    /// counters, compare, merge): `host:port/dbname` as the URL gave them, or `built-in/dbname` for the
    /// built-in server, so two runs of one database match whatever port it was started on and
    /// whichever user drove it.
    pub fn key(&self) -> String {
        if self.built_in || self.reaches_built_in {
            format!("built-in/{}", self.dbname)
        } else {
            format!("{}/{}", self.address, self.dbname)
        }
    }

    /// The engine this target runs.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The engine's connection settings (password included: never print them), `None` when they are
    /// not an `S` (another engine's target).
    pub fn settings<S: Any>(&self) -> Option<&S> {
        self.settings.downcast_ref()
    }

    /// `engine://user@host:port/dbname`, without the password: what output and results call this target.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The database name (for PostgreSQL, the user name when the URL names none).
    pub fn dbname(&self) -> &str {
        &self.dbname
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_that_quote_safely_everywhere_are_created() {
        for ok in ["tpcc", "TPCC_2", "ds2-small", "a", &"x".repeat(63)] {
            assert!(creatable_database_name(ok, 63).is_ok(), "{ok}");
        }
        for (bad, shown) in [
            ("", ""),
            ("tpcc\"; DROP DATABASE x; --", "tpcc\\\"; DROP DATABASE x; --"),
            ("a]b", "a]b"),
            ("it's", "it's"),
            ("two words", "two words"),
            ("tpcc?sslmode=disable", "tpcc?sslmode=disable"),
            ("naïve", "naïve"),
            ("line\nbreak", "line\\nbreak"),
        ] {
            let err = creatable_database_name(bad, 63).unwrap_err().to_string();
            assert!(err.contains(&format!("not \"{shown}\"")), "{bad:?}: {err}");
            assert!(err.contains("1 to 63 letters, digits, '_' and '-'"), "{err}");
        }
        let long = "x".repeat(64);
        assert!(creatable_database_name(&long, 63).is_err(), "longer than the engine keeps");
        assert!(creatable_database_name(&long, 128).is_ok());
    }
}
