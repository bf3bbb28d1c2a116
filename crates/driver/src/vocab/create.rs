//! `load --create-database`'s one shape, the same on every engine: a database the login can connect to
//! exists and needs nothing more; else the name must be one oltpgen creates
//! ([`creatable_database_name`]), the login connects to the server's admin database, and creates the
//! database unless the catalog already has it (then the load's own connect says what is wrong). One
//! created meanwhile by someone else exists, as asked; a login that may not create databases is told
//! how to get the right. Each engine gives only its steps ([`CreateDatabase`]): its SQL, its error
//! codes, its advice.

use std::future::Future;

use crate::error::Error;
use crate::vocab::target::{Target, creatable_database_name};

/// How a `CREATE DATABASE` failed, as the engine's error code says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CreateFault {
    /// The database exists (created meanwhile by someone else): done, as asked.
    Exists,
    /// The login may not create databases; the server's own words.
    Denied(String),
    /// Anything else.
    Other,
}

/// An engine's steps for [`create_database`]; each future is `Send`, so that a load that creates its
/// database can run on any of tokio's threads.
pub trait CreateDatabase {
    /// A connection to the server's admin database.
    type Admin: Send;
    /// The engine client's error.
    type Fault: Send;

    /// The longest database name the engine keeps whole.
    const MAX_NAME: usize;
    /// How to get the right to create databases on this engine ("log in as …, or have the database
    /// created").
    const DENIED_ADVICE: &'static str;

    /// Whether the login reaches `target`'s database as it is (then it exists).
    fn reaches(target: &Target) -> impl Future<Output = bool> + Send;

    /// A connection to `target`'s server that can create databases, and the target its errors name.
    ///
    /// # Errors
    /// The engine's connect errors.
    fn admin(target: &Target) -> impl Future<Output = Result<(Self::Admin, Target), Error>> + Send;

    /// Whether the server's catalog has a database `name`.
    ///
    /// # Errors
    /// The engine client's error.
    fn exists(admin: &mut Self::Admin, name: &str) -> impl Future<Output = Result<bool, Self::Fault>> + Send;

    /// Creates database `name` (a [`creatable_database_name`], so it quotes safely).
    ///
    /// # Errors
    /// The engine client's error.
    fn create(admin: &mut Self::Admin, name: &str) -> impl Future<Output = Result<(), Self::Fault>> + Send;

    /// What a failed `CREATE DATABASE` means.
    fn fault(fault: &Self::Fault) -> CreateFault;

    /// A failure of `what` on `target` in the engine's words.
    fn failed(what: &str, target: &Target, fault: &Self::Fault) -> Error;
}

/// Creates the database `target` names when it does not exist (`load --create-database`), by engine
/// `E`'s steps; whether it created it.
///
/// # Errors
/// A name oltpgen does not create, a login that may not create databases ([`Error::Usage`] with the
/// engine's advice), the engine's connect errors for its admin database, or a failed statement.
pub async fn create_database<E: CreateDatabase>(target: &Target) -> Result<bool, Error> {
    if E::reaches(target).await {
        return Ok(false);
    }
    let name = target.dbname();
    creatable_database_name(name, E::MAX_NAME)?;
    let (mut admin, admin_target) = E::admin(target).await?;
    let exists = E::exists(&mut admin, name)
        .await
        .map_err(|e| E::failed("--create-database: looking for the database", &admin_target, &e))?;
    if exists {
        return Ok(false);
    }
    match E::create(&mut admin, name).await {
        Ok(()) => Ok(true),
        Err(e) => match E::fault(&e) {
            CreateFault::Exists => Ok(false),
            CreateFault::Denied(message) => Err(Error::usage(format!(
                "{}: --create-database: {message}: {}",
                target.label(),
                E::DENIED_ADVICE
            ))),
            CreateFault::Other => Err(E::failed("--create-database", target, &e)),
        },
    }
}
