//! `load --create-database`'s one shape, the same on every engine: a database the login can connect to
//! exists and needs nothing more; else the name must be one oltpgen creates
//! ([`creatable_database_name`]), the login connects to the server's admin database, and creates the
//! database unless the catalog already has it (then the load's own connect says what is wrong). One
//! created meanwhile by someone else exists, as asked; a login that may not create databases is told
//! how to get the right. Each engine gives only its steps ([`CreateDatabase`]): its SQL, its error
//! codes, its advice.

use std::future::Future;

use crate::error::Error;
use crate::target::{Target, creatable_database_name};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Engine;

    /// An engine's steps answering as told, without a server: the shape's branches, each engine's SQL
    /// being tested on its real server by the CLI's `--create-database` tests. `REACHES`: the database
    /// answers already; `EXISTS`: the catalog has it; `FAULT`: how `CREATE DATABASE` fails (0: it
    /// does not; 1: exists; 2: denied; 3: anything else).
    struct Told<const REACHES: bool, const EXISTS: bool, const FAULT: u8>;

    impl<const REACHES: bool, const EXISTS: bool, const FAULT: u8> CreateDatabase
        for Told<REACHES, EXISTS, FAULT>
    {
        type Admin = Vec<String>;
        type Fault = u8;
        const MAX_NAME: usize = 8;
        const DENIED_ADVICE: &'static str = "ask the DBA";

        async fn reaches(_: &Target) -> bool {
            REACHES
        }
        async fn admin(target: &Target) -> Result<(Vec<String>, Target), Error> {
            Ok((Vec::new(), target.clone()))
        }
        async fn exists(_: &mut Vec<String>, _: &str) -> Result<bool, u8> {
            Ok(EXISTS)
        }
        async fn create(admin: &mut Vec<String>, name: &str) -> Result<(), u8> {
            admin.push(name.to_string());
            if FAULT == 0 { Ok(()) } else { Err(FAULT) }
        }
        fn fault(fault: &u8) -> CreateFault {
            match fault {
                1 => CreateFault::Exists,
                2 => CreateFault::Denied("permission denied".into()),
                _ => CreateFault::Other,
            }
        }
        fn failed(what: &str, target: &Target, fault: &u8) -> Error {
            Error::failed(format!("{target}: {what}: fault {fault}"))
        }
    }

    /// Runs a future whose steps are all ready (the fakes never wait).
    fn ready<T>(future: impl Future<Output = T>) -> T {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(value) => value,
            std::task::Poll::Pending => panic!("a fake step waited"),
        }
    }

    fn target(name: &str) -> Target {
        Target::new(Engine::Postgres, (), format!("fake://h/{name}"), name.to_string())
    }

    #[test]
    fn a_database_is_created_only_when_missing_and_its_name_is_one_oltpgen_creates() {
        let t = target("tpcc");
        assert!(ready(create_database::<Told<false, false, 0>>(&t)).unwrap(), "missing: created");
        assert!(!ready(create_database::<Told<true, false, 0>>(&t)).unwrap(), "reached: exists");
        assert!(!ready(create_database::<Told<false, true, 0>>(&t)).unwrap(), "in the catalog: exists");
        assert!(!ready(create_database::<Told<false, false, 1>>(&t)).unwrap(), "created meanwhile");
        let err = ready(create_database::<Told<false, false, 2>>(&t)).unwrap_err();
        assert!(matches!(err, Error::Usage(_)), "{err:?}");
        assert_eq!(err.to_string(), "fake://h/tpcc: --create-database: permission denied: ask the DBA");
        let err = ready(create_database::<Told<false, false, 3>>(&t)).unwrap_err();
        assert_eq!(err.to_string(), "fake://h/tpcc: --create-database: fault 3");
        let err = ready(create_database::<Told<false, false, 0>>(&target("too_long_a_name"))).unwrap_err();
        assert!(err.to_string().contains("1 to 8 letters"), "{err}");
    }
}
