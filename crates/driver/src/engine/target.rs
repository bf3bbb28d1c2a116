//! A URL parsed into a [`Target`]: the scheme chooses the engine ([`Engine::of_scheme`]), whose own
//! module parses the rest into its settings; and the same server's other databases.

use std::str::FromStr;

use crate::vocab::target::Engine;
use crate::{Error, Target, mssql, mysql, pg};

impl Target {
    /// The same server, another database on it (the built-in instance holds one database per workload).
    pub fn with_dbname(&self, dbname: &str) -> Self {
        match self.engine() {
            Engine::Postgres => pg::target::with_dbname(self, dbname),
            Engine::SqlServer => mssql::target::with_dbname(self, dbname),
            Engine::MySql => mysql::target::with_dbname(self, dbname),
        }
    }
}

impl FromStr for Target {
    type Err = Error;

    /// Parses `postgres://user:password@host:port/dbname?options` (also `postgresql://`),
    /// `sqlserver://user:password@host:port/database?options` (also `mssql://`), an ADO.NET connection
    /// string (`Server=tcp:host,1433;Database=…;User Id=…;Password=…`, SQL Server's) or
    /// `mysql://user:password@host:port/database?options` (also `mariadb://`); the scheme
    /// chooses the engine ([`Engine::of_scheme`]), which parses the rest.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the part of the URL at fault; the message never repeats the URL itself,
    /// which may hold a password.
    fn from_str(url: &str) -> Result<Self, Error> {
        let Some((scheme, rest)) = url.split_once("://") else {
            // ADO.NET's `key=value;…` strings are SQL Server's own.
            if url.contains('=') && url.to_ascii_lowercase().contains("server") {
                return mssql::target::parse_ado(url);
            }
            return Err(Error::usage(format!("--url has no scheme: write it as {}", Engine::any_url_form())));
        };
        let engine = Engine::of_scheme(scheme)?;
        if rest.is_empty() {
            return Err(Error::usage(format!("--url names no host: write it as {}", engine.url_form())));
        }
        match engine {
            Engine::Postgres => pg::target::parse(url),
            Engine::SqlServer => mssql::target::parse(url),
            Engine::MySql => mysql::target::parse(url),
        }
    }
}

#[cfg(test)]
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
            let t: Target = url.parse().unwrap();
            let settings = match t.engine() {
                Engine::Postgres => format!("{:?}", t.settings::<pg::target::Settings>().unwrap()),
                Engine::SqlServer => format!("{:?}", t.settings::<mssql::target::Config>().unwrap()),
                Engine::MySql => format!("{:?}", t.settings::<mysql::target::Config>().unwrap()),
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
        let t: Target = "postgres://bench:s3cret@db1:6543/tpcc".parse().unwrap();
        assert_eq!(t.label(), "postgres://bench@db1:6543/tpcc");
        assert!(!format!("{t} {t:?}").contains("s3cret"));
        assert_eq!(t.dbname(), "tpcc");
        assert_eq!(t.engine(), Engine::Postgres);
    }

    #[test]
    fn a_database_s_key_is_its_host_port_and_name_or_built_in() {
        let key = |url: &str| url.parse::<Target>().unwrap().key();
        assert_eq!(key("postgres://bench:s3cret@db1:6543/tpcc"), "db1:6543/tpcc");
        assert_eq!(key("postgres://other@db1:6543/tpcc"), "db1:6543/tpcc", "whoever drives it");
        assert_eq!(key("postgres://bench@db1/tpcc"), "db1:5432/tpcc");
        assert_eq!(key("sqlserver://sa:pw@sql1:1444/ds2"), "sql1:1444/ds2");
        let built_in = |port| crate::pg::target::local(port, "oltpgen", "pw", "tpcc").built_in().key();
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
            let err = url.parse::<Target>().unwrap_err().to_string();
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
            let err = url.parse::<Target>().map(|t| t.label().to_string()).unwrap_err().to_string();
            assert!(err.contains("more than one '@'"), "{url}: {err}");
            assert!(!err.contains("ret"), "{url}: {err}");
        }
        let fine: Target = "postgres://u:s3?cret@h/db?application_name=me@host".parse().unwrap();
        assert_eq!(fine.label(), "postgres://u@h:5432/db", "a raw '?' alone stays in the password");
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

    #[test]
    fn a_url_of_several_servers_names_them_all_and_wants_the_primary() {
        let url = "postgres://bench:s3cret@db1:5432,db2:5433/tpcc?target_session_attrs=read-write";
        let t: Target = url.parse().unwrap();
        assert_eq!(t.label(), "postgres://bench@db1:5432,db2:5433/tpcc");
        assert_eq!(t.key(), "db1:5432,db2:5433/tpcc");
        let config = t.pg_config().unwrap();
        assert_eq!(config.get_hosts().len(), 2);
        assert_eq!(config.get_target_session_attrs(), tokio_postgres::config::TargetSessionAttrs::ReadWrite);
        let default_port: Target = "postgres://bench@db1,db2:6000/tpcc".parse().unwrap();
        assert_eq!(default_port.label(), "postgres://bench@db1:5432,db2:6000/tpcc", "as libpq reads it");
    }

    #[test]
    fn every_session_is_named_oltpgen_unless_the_url_names_it() {
        let name = |url: &str| {
            let t: Target = url.parse().unwrap();
            t.pg_config().unwrap().get_application_name().map(str::to_string)
        };
        assert_eq!(name("postgres://bench@db1/tpcc").as_deref(), Some("oltpgen"));
        assert_eq!(name("postgres://bench@db1/tpcc?application_name=mine").as_deref(), Some("mine"));
    }

    #[test]
    fn a_server_gone_without_a_word_is_noticed_unless_the_url_says_otherwise() {
        use std::time::Duration;
        let t: Target = "postgres://bench@db1/tpcc".parse().unwrap();
        let c = t.pg_config().unwrap();
        assert_eq!(c.get_keepalives_idle(), Duration::from_secs(5));
        assert_eq!(c.get_keepalives_interval(), Some(Duration::from_secs(2)));
        assert_eq!(c.get_keepalives_retries(), Some(3));
        assert_eq!(c.get_tcp_user_timeout(), Some(&Duration::from_secs(20)));
        let own: Target = "postgres://bench@db1/tpcc?keepalives_idle=60&tcp_user_timeout=9".parse().unwrap();
        let c = own.pg_config().unwrap();
        assert_eq!(c.get_keepalives_idle(), Duration::from_secs(60));
        assert_eq!(c.get_tcp_user_timeout(), Some(&Duration::from_secs(9)));
    }
}
