//! A URL parsed into a [`Target`]: the scheme chooses the engine ([`Engine::of_scheme`]), whose own
//! module parses the rest into its settings; and the same server's other databases.

use oltpgen_vocab::target::Engine;

use crate::{Error, Target};

/// The same server as `target`, another database on it (the built-in instance holds one database per
/// workload).
pub fn with_dbname(target: &Target, dbname: &str) -> Target {
    each_engine!(target.engine(), m => m::target::with_dbname(target, dbname))
}

/// Parses `postgres://user:password@host:port/dbname?options` (also `postgresql://`),
/// `sqlserver://user:password@host:port/database?options` (also `mssql://`), an ADO.NET connection
/// string (`Server=tcp:host,1433;Database=…;User Id=…;Password=…`, SQL Server's) or
/// `mysql://user:password@host:port/database?options` (also `mariadb://`); the scheme chooses the
/// engine ([`Engine::of_scheme`]), which parses the rest.
///
/// # Errors
/// [`Error::Usage`] naming the part of the URL at fault, or the feature this build lacks for its
/// engine; the message never repeats the URL itself, which may hold a password.
pub fn parse_url(url: &str) -> Result<Target, Error> {
    let Some((scheme, rest)) = url.split_once("://") else {
        // ADO.NET's `key=value;…` strings are SQL Server's own.
        if url.contains('=') && url.to_ascii_lowercase().contains("server") {
            #[cfg(feature = "mssql")]
            return oltpgen_mssql::target::parse_ado(url);
            #[cfg(not(feature = "mssql"))]
            return Err(Engine::refusal("sqlserver"));
        }
        return Err(Error::usage(format!("--url has no scheme: write it as {}", Engine::any_url_form())));
    };
    let engine = Engine::of_scheme(scheme)?;
    if rest.is_empty() {
        return Err(Error::usage(format!("--url names no host: write it as {}", engine.url_form())));
    }
    each_engine!(engine, m => m::target::parse(url))
}

// URLs of every engine: in the default build, which speaks them all.
#[cfg(all(test, feature = "postgres", feature = "mssql", feature = "mysql"))]
mod tests {
    use super::*;

    #[test]
    fn no_debug_or_display_of_a_target_s_settings_shows_the_password() {
        use crate::command::Databases;
        let urls = [
            "postgres://bench:Zq9Secret@db1:6543/tpcc",
            "postgres://bench@db1/tpcc?password=Zq9Secret",
            "sqlserver://bench:Zq9Secret@sql1:1444/tpcc",
            "Server=tcp:sql1,1444;Database=tpcc;User Id=bench;Password=Zq9Secret",
            "mysql://bench:Zq9Secret@db1/tpcc",
        ];
        for url in urls {
            let t: Target = parse_url(url).unwrap();
            let settings = match t.engine() {
                Engine::Postgres => format!("{:?}", t.settings::<oltpgen_pg::target::Settings>().unwrap()),
                Engine::SqlServer => format!("{:?}", t.settings::<oltpgen_mssql::target::Config>().unwrap()),
                Engine::MySql => format!("{:?}", t.settings::<oltpgen_mysql::target::Config>().unwrap()),
            };
            assert!(settings.contains("bench") && settings.contains("tpcc"), "{settings}");
            let shown = format!("{t} {t:?} {settings}");
            assert!(!shown.contains("Zq9Secret"), "{url}: {shown}");
        }
        let db = Databases { urls: urls.map(String::from).to_vec(), ..Databases::default() };
        let shown = format!("{db:?}");
        assert!(!shown.contains("Zq9Secret") && shown.contains("5 URL(s)"), "{shown}");
    }

    #[test]
    fn label_and_debug_hide_the_password() {
        let t: Target = crate::engine::parse_url("postgres://bench:s3cret@db1:6543/tpcc").unwrap();
        assert_eq!(t.label(), "postgres://bench@db1:6543/tpcc");
        assert!(!format!("{t} {t:?}").contains("s3cret"));
        assert_eq!(t.dbname(), "tpcc");
        assert_eq!(t.engine(), Engine::Postgres);
    }

    #[test]
    fn a_database_s_key_is_its_host_port_and_name_or_built_in() {
        let key = |url: &str| crate::engine::parse_url(url).unwrap().key();
        assert_eq!(key("postgres://bench:s3cret@db1:6543/tpcc"), "db1:6543/tpcc");
        assert_eq!(key("postgres://other@db1:6543/tpcc"), "db1:6543/tpcc", "whoever drives it");
        assert_eq!(key("postgres://bench@db1/tpcc"), "db1:5432/tpcc");
        assert_eq!(key("sqlserver://sa:pw@sql1:1444/ds2"), "sql1:1444/ds2");
        let built_in = |port| oltpgen_pg::target::local(port, "oltpgen", "pw", "tpcc").built_in().key();
        assert_eq!(built_in(46357), "built-in/tpcc");
        assert_eq!(built_in(46357), built_in(44539), "whatever port it started on");
    }

    #[test]
    fn bad_urls_name_their_fault_without_echoing_secrets() {
        for (url, needle) in [
            ("oracle://u:s3cret@h/db", "unknown scheme 'oracle://'"),
            ("mysql://", "no host: write it as mysql://user:password@host:port/database"),
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
            let err = crate::engine::parse_url(url).unwrap_err().to_string();
            assert!(err.contains(needle), "{url}: {err}");
            for piece in ["s3", "cret", "ret"] {
                assert!(!err.contains(piece), "{url}: {err}");
            }
        }
    }

    #[test]
    fn a_postgresql_password_with_a_raw_question_mark_and_at_sign_is_refused_not_shown() {
        for url in
            ["postgres://u:s3?c@ret@h/db", "postgres://:s3cret?@/@:s3cret@", "postgres://u:s3?c@r/et@h/db"]
        {
            let err = parse_url(url).map(|t| t.label().to_string()).unwrap_err().to_string();
            assert!(err.contains("more than one '@'"), "{url}: {err}");
            assert!(!err.contains("ret"), "{url}: {err}");
        }
        let fine: Target = parse_url("postgres://u:s3?cret@h/db?application_name=me@host").unwrap();
        assert_eq!(fine.label(), "postgres://u@h:5432/db", "a raw '?' alone stays in the password");
    }

    #[test]
    fn a_sql_server_password_may_hold_an_at_sign() {
        let t: Target = crate::engine::parse_url("sqlserver://bench:s3@cret@db1:1444/tpcc").unwrap();
        assert_eq!(t.label(), "sqlserver://bench@db1:1444/tpcc");
        assert!(!format!("{t} {t:?}").contains("cret"));
        let t: Target = crate::engine::parse_url("postgres://bench:s3%40cret@db1:6543/tpcc").unwrap();
        assert_eq!(t.label(), "postgres://bench@db1:6543/tpcc");
        let options: Target =
            crate::engine::parse_url("postgres://bench@db1/tpcc?application_name=me@host").unwrap();
        assert_eq!(options.label(), "postgres://bench@db1:5432/tpcc", "an '@' among the options is fine");
    }
}

#[cfg(all(test, feature = "postgres", not(feature = "mssql"), not(feature = "mysql")))]
mod postgres_only {
    use super::*;

    #[test]
    fn a_url_of_an_engine_not_built_names_the_feature_to_build_with() {
        for (url, feature, name) in [
            ("sqlserver://sa:s3cret@h/tpcc", "`mssql`", "SQL Server (sqlserver://)"),
            ("mssql://sa:s3cret@h/tpcc", "`mssql`", "SQL Server (mssql://)"),
            ("Server=tcp:h,1433;User Id=sa;Password=s3cret", "`mssql`", "SQL Server"),
            ("mysql://root:s3cret@h/tpcc", "`mysql`", "MySQL and MariaDB (mysql://)"),
            ("MariaDB://root:s3cret@h/tpcc", "`mysql`", "MySQL and MariaDB (mariadb://)"),
        ] {
            let err = parse_url(url).unwrap_err();
            assert!(matches!(err, Error::Usage(_)), "{url}: {err:?}");
            let err = err.to_string();
            assert!(err.contains(&format!("built without the {feature} feature")), "{url}: {err}");
            assert!(err.contains(name), "{url}: {err}");
            assert!(err.contains("give postgres://user:password@host:port/dbname"), "{url}: {err}");
            assert!(!err.contains("s3cret") && !err.contains('\n'), "{url}: {err}");
        }
        assert!(parse_url("oracle://u@h/db").unwrap_err().to_string().contains("unknown scheme 'oracle://'"));
        assert_eq!(parse_url("postgres://bench@db1/tpcc").unwrap().label(), "postgres://bench@db1:5432/tpcc");
    }
}
