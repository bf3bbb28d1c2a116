//! The driver's errors, and the kinds ([`Fault`]) every engine sorts its database errors into, so that
//! the run machinery decides what to do next without reading any engine's error codes (PostgreSQL's
//! sorting lives in `oltpgen_pg::error`). At the bottom of the crate, beside the vocabulary
//! ([`crate`]): it imports nothing of the driver (an error's exit code, which for an interrupted
//! command is the signal's, is worked out beside the signals, in [`crate::stop`]).

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
}

/// How a database error affects the work that met it; each engine decides it once for its own errors
/// (PostgreSQL: `oltpgen_pg::error::fault`), so no other code reads SQLSTATEs or error numbers.
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
