//! The driver's errors, and the one place where database errors are sorted into what the code does next.

use std::error::Error as _;

/// What went wrong, sorted by what the user should do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad flags, a bad URL, an unloaded or wrongly loaded database: the user fixes the command (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The environment is not ready (no PostgreSQL binaries, cannot reach the server): exit 2.
    #[error("{0}")]
    Environment(String),
    /// The work itself failed part-way (a load that died, a server that went away for good): exit 1.
    #[error("{0}")]
    Failed(String),
    /// Ctrl-C, SIGTERM or SIGHUP stopped the work: exit 130, 143 or 129 (128 + the signal), as shells
    /// expect of a command a signal ended.
    #[error("interrupted: {0}")]
    Interrupted(String),
}

impl Error {
    /// A usage error from any message.
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }

    /// An environment error from any message.
    pub fn environment(msg: impl Into<String>) -> Self {
        Error::Environment(msg.into())
    }

    /// A failure of the work from any message.
    pub fn failed(msg: impl Into<String>) -> Self {
        Error::Failed(msg.into())
    }

    /// The process exit code this error maps to (DESIGN.md: 1 run failed, 2 bad usage or configuration).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) | Error::Environment(_) => 2,
            Error::Failed(_) => 1,
            Error::Interrupted(_) => crate::stop::exit_code(),
        }
    }
}

/// How a database error affects the work that met it; decided here once, so no other code reads SQLSTATEs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A conflict the transaction can simply retry: serialization failure, deadlock.
    Retryable,
    /// The connection is gone (killed backend, server restart, network): reconnect, then go on.
    ConnectionLost,
    /// Anything else: a bug or a broken database; counted, and the run goes on.
    Fatal,
}

impl Fault {
    /// The name under which errors of this kind are counted in results.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Retryable => "retryable",
            Fault::ConnectionLost => "connection_lost",
            Fault::Fatal => "fatal",
        }
    }
}

/// Sorts a PostgreSQL error.
pub fn pg_fault(err: &tokio_postgres::Error) -> Fault {
    use tokio_postgres::error::SqlState;
    if err.is_closed() {
        return Fault::ConnectionLost;
    }
    match err.code() {
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED => {
            Fault::Retryable
        }
        Some(c) if c.code().starts_with("08") || c.code().starts_with("57P") => Fault::ConnectionLost,
        Some(_) => Fault::Fatal,
        // No SQLSTATE: an I/O error or a closed socket.
        None => Fault::ConnectionLost,
    }
}

/// One line describing why connecting to `label` failed, with what to do about it; never holds a password.
pub fn pg_connect_error(label: &str, err: &tokio_postgres::Error) -> Error {
    use tokio_postgres::error::SqlState;
    if let Some(db) = err.as_db_error() {
        let code = db.code();
        return if *code == SqlState::INVALID_PASSWORD
            || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
        {
            Error::usage(format!(
                "{label}: the server refused the login ({}); check the user and password in --url",
                db.message()
            ))
        } else if *code == SqlState::INVALID_CATALOG_NAME {
            Error::usage(format!(
                "{label}: {}; create it first (createdb) or name another database in --url",
                db.message()
            ))
        } else if *code == SqlState::TOO_MANY_CONNECTIONS {
            Error::environment(format!(
                "{label}: {}; raise the server's max_connections or use fewer --connections",
                db.message()
            ))
        } else {
            Error::environment(format!("{label}: {}", db.message()))
        };
    }
    // tokio-postgres' only sign that the server asked for a password the URL did not give.
    if err.source().is_some_and(|s| s.to_string() == "password missing") {
        return Error::usage(format!(
            "{label}: the server asks for a password and none was given: set PGPASSWORD, add it to \
             ~/.pgpass (or the file PGPASSFILE names), or put it in OLTPGEN_URL"
        ));
    }
    let io = err.source().and_then(|s| s.downcast_ref::<std::io::Error>()).map(|e| e.to_string());
    let why = io.unwrap_or_else(|| err.to_string());
    Error::environment(format!(
        "cannot connect to {label}: {why}; is the server running and the host and port in --url right?"
    ))
}
