//! The faster `--restore` where an engine offers one: a pristine copy of a database oltpgen created,
//! cloned back before each run (PostgreSQL's built-in server: `CREATE DATABASE … TEMPLATE`). Elsewhere
//! each step declines, saying why, and the study restores from the generator.

use crate::vocab::target::Engine;
use crate::{Error, Target, pg};

/// Why the clone is not offered on `target`, `None` where it is (a database of oltpgen's built-in
/// PostgreSQL, which oltpgen created and may drop).
pub fn unavailable(target: &Target) -> Option<&'static str> {
    match target.engine() {
        Engine::Postgres if target.is_built_in() => None,
        Engine::Postgres => Some("a database oltpgen did not create (not the built-in server's)"),
        Engine::SqlServer | Engine::MySql => Some("not PostgreSQL"),
    }
}

/// Makes `target`'s pristine copy, noting `load` (the load record) on it: its size in bytes, or why it
/// was not made (`Ok(Err)`: another client connected, …).
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn keep(target: &Target, load: &str) -> Result<Result<u64, String>, Error> {
    match unavailable(target) {
        None => pg::pristine::keep(target, load).await,
        Some(why) => Ok(Err(why.into())),
    }
}

/// Puts `target`'s database back from its pristine copy, or says why not (`Ok(Err)`).
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn put_back(target: &Target) -> Result<Result<(), String>, Error> {
    match unavailable(target) {
        None => pg::pristine::put_back(target).await,
        Some(why) => Ok(Err(why.into())),
    }
}

/// Drops `target`'s pristine copy, where one can exist (renamed back when the database is missing).
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn discard(target: &Target) -> Result<(), Error> {
    match unavailable(target) {
        None => pg::pristine::discard(target).await,
        Some(_) => Ok(()),
    }
}
