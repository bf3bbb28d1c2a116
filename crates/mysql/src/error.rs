//! MySQL's and MariaDB's errors sorted once: a failed connect as one line saying what to do, and every
//! error met while driving as a [`Fault`] (by error number: 1213 deadlock and 1205 lock wait timeout
//! retryable, a killed connection or a server shutting down the connection gone, an I/O or protocol
//! error too; the rest fatal).

use mysql_async::Error as MyError;

use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::TxnError;
use oltpgen_vocab::{Error, Target};

/// 1213: deadlock found; InnoDB rolled the whole transaction back.
pub const DEADLOCK: u16 = 1213;
/// 1205: lock wait timeout; InnoDB rolled back only the statement, the transaction stays open.
pub const LOCK_WAIT_TIMEOUT: u16 = 1205;

/// A transaction's failure as the run machinery counts it.
pub fn txn_error(e: &MyError) -> TxnError {
    TxnError { fault: fault(e) }
}

/// Sorts a MySQL error.
pub fn fault(err: &MyError) -> Fault {
    match err {
        MyError::Server(e) => match e.code {
            DEADLOCK | LOCK_WAIT_TIMEOUT => Fault::Retryable,
            // 1053: server shutdown in progress; 1927: connection was killed (MariaDB); 1152/1184:
            // aborted connection; 4031: disconnected for inactivity (MySQL 8).
            1053 | 1927 | 1152 | 1184 | 4031 => Fault::ConnectionLost,
            _ => Fault::Fatal,
        },
        // I/O, TLS, a closed connection or a broken packet stream: the connection is unusable.
        _ => Fault::ConnectionLost,
    }
}

/// A failed connect as one line: what went wrong and what to do, without the password.
pub fn connect_error(target: &Target, err: &MyError) -> Error {
    let label = target.label();
    match err {
        // 1045: access denied for user (wrong password, or none given).
        MyError::Server(e) if e.code == 1045 => Error::usage(format!(
            "{label}: the server refused the login ({}): check the user and password (in --url, ~/.my.cnf's \
             [client] password, or {})",
            e.message,
            super::target::PASSWORD_VAR
        )),
        // 1049: unknown database; 1044: no access to it.
        MyError::Server(e) if e.code == 1049 || e.code == 1044 => Error::usage(format!(
            "{label}: {}; create the database first (load with --create-database, or CREATE DATABASE) or \
             name another one in --url",
            e.message
        )),
        MyError::Server(e) => Error::environment(format!("{label}: {}", e.message)),
        MyError::Io(mysql_async::IoError::Tls(why)) => Error::environment(format!(
            "{label}: TLS failed ({why}); with ssl-mode=VERIFY_CA or VERIFY_IDENTITY the server's \
             certificate must be one you trust (ssl-ca=<file> names its CA), ssl-mode=REQUIRED does not \
             check it, ssl-mode=DISABLED connects without TLS"
        )),
        MyError::Io(mysql_async::IoError::Io(e))
            if matches!(
                e.kind(),
                std::io::ErrorKind::ConnectionRefused
                    | std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::HostUnreachable
                    | std::io::ErrorKind::NetworkUnreachable
            ) || e.to_string().contains("failed to lookup") =>
        {
            Error::environment(format!(
                "cannot connect to {label}: {e}; is the server running and the host and port in --url right?"
            ))
        }
        // No greeting within the time limit, a stream closed in the handshake, or bytes that are not
        // MySQL's protocol.
        other => {
            let why = match other {
                MyError::Io(mysql_async::IoError::Io(e)) => e.to_string(),
                other => other.to_string(),
            };
            Error::environment(format!(
                "cannot connect to {label}: {why}; is it a MySQL or MariaDB port? A PostgreSQL server takes a \
                 postgres:// URL, a SQL Server a sqlserver:// one"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(code: u16) -> MyError {
        MyError::Server(mysql_async::ServerError { code, message: "m".into(), state: "HY000".into() })
    }

    #[test]
    fn deadlocks_and_lock_waits_retry_a_lost_connection_reconnects() {
        assert_eq!(fault(&server(DEADLOCK)), Fault::Retryable);
        assert_eq!(fault(&server(LOCK_WAIT_TIMEOUT)), Fault::Retryable);
        assert_eq!(fault(&server(1927)), Fault::ConnectionLost);
        assert_eq!(fault(&server(1062)), Fault::Fatal, "a duplicate key is a bug, not a conflict");
        assert_eq!(
            fault(&MyError::Driver(mysql_async::DriverError::ConnectionClosed)),
            Fault::ConnectionLost
        );
    }
}
