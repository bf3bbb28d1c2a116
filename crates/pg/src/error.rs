//! PostgreSQL's errors sorted once: a failed connect as one line saying what to do, and every error
//! met while driving as a [`Fault`] (by SQLSTATE: 40001 and 40P01 retryable, classes 08 and 57P the
//! connection gone, the rest fatal).

use std::error::Error as _;

use super::pgpass::PasswordFrom;
use oltpgen_vocab::Error;
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::TxnError;

/// A transaction's failure as the run machinery counts it.
pub fn txn_error(e: &tokio_postgres::Error) -> TxnError {
    TxnError { fault: fault(e) }
}

/// Sorts a PostgreSQL error.
pub fn fault(err: &tokio_postgres::Error) -> Fault {
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

/// One line describing why connecting to `label` failed, with what to do about it (a refused login names
/// where its password came from); never holds a password.
pub fn connect_error(label: &str, err: &tokio_postgres::Error, password_from: &PasswordFrom) -> Error {
    use tokio_postgres::error::SqlState;
    if let Some(db) = err.as_db_error() {
        let code = db.code();
        return if *code == SqlState::INVALID_PASSWORD
            || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
        {
            Error::usage(format!(
                "{label}: the server refused the login ({}); {}",
                db.message(),
                check_login(password_from)
            ))
        } else if *code == SqlState::INVALID_CATALOG_NAME {
            Error::usage(format!(
                "{label}: {}; create it first (load with --create-database, or createdb) or name another \
                 database in --url",
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

/// What to check after a refused login: the user is always --url's, the password is where it came from.
fn check_login(password_from: &PasswordFrom) -> String {
    match password_from {
        PasswordFrom::Url => "check the user and password in --url".into(),
        PasswordFrom::Env => "check the user in --url and the password in PGPASSWORD".into(),
        PasswordFrom::File(file) => {
            format!("check the user in --url and its password in the password file {}", file.display())
        }
    }
}
