//! SQL Server's errors sorted once: a failed connect as one line saying what to do, and every error
//! met while driving as a [`Fault`] (by error number: 1205 deadlock and 3960/3961 update conflicts
//! retryable, Babelfish's serialization failure 33557097 by its message; severity 20 and up, I/O and
//! timeouts the connection gone; the rest fatal).

use tiberius::error::Error as TdsError;

use oltpgen_vocab::Error;
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::TxnError;

/// A transaction's failure as the run machinery counts it.
pub fn txn_error(e: &TdsError) -> TxnError {
    TxnError { fault: fault(e) }
}

/// Sorts a SQL Server error.
pub fn fault(err: &TdsError) -> Fault {
    match err {
        TdsError::Server(e) => {
            let msg = e.message();
            match e.code() {
                // 1205: chosen as a deadlock victim; 3960/3961: snapshot update conflicts.
                1205 | 3960 | 3961 => Fault::Retryable,
                // Babelfish's PostgreSQL serialization failure and deadlock, already rolled back
                // (its README): their numbers are its own, their messages PostgreSQL's.
                _ if msg.contains("could not serialize access") || msg.contains("deadlock detected") => {
                    Fault::Retryable
                }
                // 596/6005/233: the session was killed, the server shuts down, no process on the pipe;
                // severity 20 and up ends the connection on SQL Server.
                596 | 6005 | 233 => Fault::ConnectionLost,
                _ if e.class() >= 20 || msg.contains("terminating connection") => Fault::ConnectionLost,
                _ => Fault::Fatal,
            }
        }
        // I/O, a broken protocol stream, TLS: the connection is unusable.
        _ => Fault::ConnectionLost,
    }
}

/// One line describing why connecting to `label` failed, with what to do about it; never holds a password.
pub fn connect_error(label: &str, err: &TdsError) -> Error {
    match err {
        TdsError::Server(e) if e.code() == 18456 => Error::usage(format!(
            "{label}: the server refused the login ({}); check the user and password in --url \
             (or {})",
            e.message(),
            super::target::PASSWORD_VAR
        )),
        // 4060: cannot open the database (SQL Server); Babelfish says it in its own words.
        TdsError::Server(e) if e.code() == 4060 || e.message().contains("does not exist") => {
            Error::usage(format!(
                "{label}: {}; create the database first (load with --create-database, or CREATE DATABASE) \
                 or name another one in --url",
                e.message()
            ))
        }
        TdsError::Server(e) => Error::environment(format!("{label}: {}", e.message())),
        TdsError::Tls(why) => Error::environment(format!(
            "{label}: TLS failed ({why}); with encrypt=true the server must offer TLS with a certificate \
             you trust (trust_server_certificate=true trusts any), or connect with encrypt=false"
        )),
        TdsError::Io { message, .. } if message.contains("certificate") => Error::environment(format!(
            "{label}: TLS failed ({message}); with encrypt=true the server's certificate must be one you \
             trust (trust_server_certificate=true trusts any, trust_server_certificate_ca=<file> names its CA), \
             or connect with encrypt=false"
        )),
        // The peer closed the stream in the middle of the TDS handshake: not a SQL Server.
        TdsError::Io { kind: std::io::ErrorKind::UnexpectedEof, message } => Error::environment(format!(
            "cannot connect to {label}: {message}; is it a SQL Server (TDS) port? A PostgreSQL server takes a \
             postgres:// URL"
        )),
        TdsError::Io { message, .. } => Error::environment(format!(
            "cannot connect to {label}: {message}; is the server running and the host and port in --url right?"
        )),
        other => Error::environment(format!(
            "cannot connect to {label}: {other}; is it a SQL Server (TDS) port? A PostgreSQL server takes a \
             postgres:// URL"
        )),
    }
}
