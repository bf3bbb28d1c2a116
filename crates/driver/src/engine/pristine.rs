//! The faster `--restore` where an engine offers one: a pristine copy of a database oltpgen created,
//! cloned back before each run (PostgreSQL's built-in server: `CREATE DATABASE … TEMPLATE`). Elsewhere
//! each step declines, saying why, and the study restores from the generator.

use crate::{Error, Target};
use oltpgen_vocab::console::ErrLines;
use oltpgen_vocab::target::Engine;

/// Why the clone is not offered on `target`, `None` where it is (a database of oltpgen's built-in
/// PostgreSQL, which oltpgen created and may drop).
pub fn unavailable(target: &Target) -> Option<&'static str> {
    clone(target).err()
}

/// The engine's clone where it is offered on `target`, else why not.
fn clone(target: &Target) -> Result<Clone, &'static str> {
    match target.engine() {
        #[cfg(feature = "postgres")]
        Engine::Postgres if target.is_built_in() => Ok(Clone::Postgres),
        #[cfg(feature = "postgres")]
        Engine::Postgres => Err("a database oltpgen did not create (not the built-in server's)"),
        #[cfg(feature = "mssql")]
        Engine::SqlServer => Err("not PostgreSQL"),
        #[cfg(feature = "mysql")]
        Engine::MySql => Err("not PostgreSQL"),
    }
}

/// The engines that offer a clone.
enum Clone {
    /// PostgreSQL's `CREATE DATABASE … TEMPLATE`, on the built-in server.
    #[cfg(feature = "postgres")]
    Postgres,
}

/// Makes `target`'s pristine copy, noting `load` (the load record) on it: its size in bytes, or why it
/// was not made (`Ok(Err)`: another client connected, …).
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn keep(target: &Target, load: &str) -> Result<Result<u64, String>, Error> {
    match clone(target) {
        #[cfg(feature = "postgres")]
        Ok(Clone::Postgres) => oltpgen_pg::pristine::keep(target, load).await,
        Err(why) => Ok(Err(why.into())),
    }
}

/// Puts `target`'s database back from its pristine copy, or says why not (`Ok(Err)`).
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn put_back(target: &Target) -> Result<Result<(), String>, Error> {
    match clone(target) {
        #[cfg(feature = "postgres")]
        Ok(Clone::Postgres) => oltpgen_pg::pristine::put_back(target).await,
        Err(why) => Ok(Err(why.into())),
    }
}

/// Drops `target`'s pristine copy, where one can exist (renamed back when the database is missing,
/// said to `said`).
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn discard(target: &Target, said: &ErrLines) -> Result<(), Error> {
    match clone(target) {
        #[cfg(feature = "postgres")]
        Ok(Clone::Postgres) => oltpgen_pg::pristine::discard(target, said).await,
        Err(_) => Ok(()),
    }
}
