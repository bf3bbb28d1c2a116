//! The connection outside the measured run ([`Conn`]: loads, checks, inventory, preparing a run, the
//! sampler's), an enum over the engines: connecting, the catalog, the load record, server info and
//! room, the server's counters and the check runner, each one arm per engine; and creating the database
//! a load was told to create ([`create_database`]).

use oltpgen_vocab::counters::{DbState, DbTotals};
use oltpgen_vocab::create;
use oltpgen_vocab::meta::MetaRow;

use crate::{Error, Target};
use oltpgen_vocab::schema::Object;
use oltpgen_vocab::server::{ConnectionRoom, ServerInfo};
use oltpgen_vocab::target::Engine;

/// Creates the database `target` names when it does not exist, from the server's own administrative
/// database with the same login (PostgreSQL's `postgres`, SQL Server's `master`): `load
/// --create-database`, the only way oltpgen makes a database on a server it was pointed at, so that a
/// mistyped name never becomes a new database unasked. Whether it created it.
///
/// # Errors
/// A name oltpgen does not create (only letters, digits, `_` and `-`), a login that may not create
/// databases, or the connect errors of [`Conn::open`].
pub async fn create_database(target: &Target) -> Result<bool, Error> {
    each_engine!(target.engine(), m => create::create_database::<m::Create>(target).await)
}

/// One connection to a target, outside the measured run (loads, checks, inventory, preparing a run).
pub enum Conn {
    /// A PostgreSQL connection.
    #[cfg(feature = "postgres")]
    Postgres(oltpgen_pg::Client),
    /// A SQL Server connection.
    #[cfg(feature = "mssql")]
    SqlServer(oltpgen_mssql::Conn),
    /// A MySQL or MariaDB connection.
    #[cfg(feature = "mysql")]
    MySql(oltpgen_mysql::Conn),
}

impl Conn {
    /// Opens one connection to `target`.
    ///
    /// # Errors
    /// One line that says what went wrong and what to do about it (wrong password, no such database,
    /// unreachable host), without the password.
    pub async fn open(target: &Target) -> Result<Conn, Error> {
        match target.engine() {
            #[cfg(feature = "postgres")]
            Engine::Postgres => Ok(Conn::Postgres(oltpgen_pg::connect(target).await?)),
            #[cfg(feature = "mssql")]
            Engine::SqlServer => Ok(Conn::SqlServer(oltpgen_mssql::open(target).await?)),
            #[cfg(feature = "mysql")]
            Engine::MySql => Ok(Conn::MySql(oltpgen_mysql::open(target).await?)),
        }
    }

    /// Which of `names` exist as tables in the connection's current schema.
    ///
    /// # Errors
    /// [`Error::Failed`] when the catalog cannot be read.
    pub async fn existing_tables(&self, target: &Target, names: &[&str]) -> Result<Vec<String>, Error> {
        each_engine!(self, Conn(c), m => m::schema::existing_tables(c, target, names).await)
    }

    /// Drops a workload's `tables` and the `objects` its load created beside them (a function or
    /// procedure with the arguments the load gave it where the engine has overloads); what is not there
    /// is no error. Without `CASCADE`: when anything else depends on them, nothing is dropped.
    ///
    /// # Errors
    /// [`dependents_refusal`](oltpgen_vocab::schema::dependents_refusal) when other objects depend on them; [`Error::Failed`] when a drop fails
    /// otherwise (e.g. the tables are in use).
    pub async fn drop_workload(
        &self,
        target: &Target,
        tables: &[&str],
        objects: &[Object],
    ) -> Result<(), Error> {
        each_engine!(self, Conn(c), m => m::schema::drop_workload(c, target, tables, objects).await)
    }

    /// Refuses, before anything changes, a restore of `tables` that another object would stop halfway.
    /// PostgreSQL empties the tables and drops their keys in one transaction, which such an object
    /// makes fail whole; MySQL commits each `TRUNCATE` and key drop on its own (issue 36: a user's
    /// foreign key to the last table left the first ones empty), so its catalog is asked first.
    ///
    /// # Errors
    /// [`restore_refusal`](oltpgen_vocab::schema::restore_refusal) naming the objects; [`Error::Failed`]
    /// when the catalog cannot be read.
    #[cfg_attr(not(feature = "mysql"), allow(unused_variables))]
    pub async fn refuse_restore_dependents(&self, target: &Target, tables: &[&str]) -> Result<(), Error> {
        match self {
            #[cfg(feature = "postgres")]
            Conn::Postgres(_) => Ok(()),
            #[cfg(feature = "mssql")]
            Conn::SqlServer(_) => Ok(()),
            #[cfg(feature = "mysql")]
            Conn::MySql(c) => oltpgen_mysql::schema::refuse_restore_dependents(c, target, tables).await,
        }
    }

    /// Runs `statements` in order (as one batch where the engine allows); `what` names them in an error.
    ///
    /// # Errors
    /// [`Error::Failed`] when one fails.
    pub async fn batch(&self, target: &Target, what: &str, statements: &[String]) -> Result<(), Error> {
        each_engine!(self, Conn(c), m => m::execute_batch(c, target, what, statements).await)
    }

    /// `workload`'s load record, `None` when there is none.
    ///
    /// # Errors
    /// [`Error::Failed`] when the record exists but cannot be read.
    pub async fn read_meta(&self, target: &Target, workload: &str) -> Result<Option<MetaRow>, Error> {
        each_engine!(self, Conn(c), m => m::meta::read(c, target, workload).await)
    }

    /// Writes `workload`'s load record.
    ///
    /// # Errors
    /// [`Error::Failed`] when the write fails.
    pub async fn write_meta(&self, target: &Target, workload: &str, row: &MetaRow) -> Result<(), Error> {
        each_engine!(self, Conn(c), m => m::meta::write(c, target, workload, row).await)
    }

    /// Removes `workload`'s load record.
    ///
    /// # Errors
    /// [`Error::Failed`] when the delete fails.
    pub async fn remove_meta(&self, target: &Target, workload: &str) -> Result<(), Error> {
        each_engine!(self, Conn(c), m => m::meta::remove(c, target, workload).await)
    }

    /// Empties `workload`'s chunk marks (creating their table): a load starting from nothing.
    ///
    /// # Errors
    /// [`Error::Failed`] when the write fails.
    pub async fn clear_chunks(&self, target: &Target, workload: &str) -> Result<(), Error> {
        each_engine!(self, Conn(c), m => m::meta::clear_chunks(c, target, workload).await)
    }

    /// The chunks of `workload`'s load marked done.
    ///
    /// # Errors
    /// [`Error::Failed`] when the marks cannot be read.
    pub async fn done_chunks(&self, target: &Target, workload: &str) -> Result<Vec<u32>, Error> {
        each_engine!(self, Conn(c), m => m::meta::done_chunks(c, target, workload).await)
    }

    /// Removes `workload`'s chunk marks and its plan in parts: its load finished, or it was dropped.
    ///
    /// # Errors
    /// [`Error::Failed`] when the delete fails.
    pub async fn remove_chunks(&self, target: &Target, workload: &str) -> Result<(), Error> {
        match self {
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => {
                oltpgen_pg::meta::remove_chunks(c, target, workload).await?;
                oltpgen_pg::meta::remove_plan(c, target, workload).await
            }
            #[cfg(feature = "mysql")]
            Conn::MySql(c) => oltpgen_mysql::meta::remove_chunks(c, target, workload).await,
            #[cfg(feature = "mssql")]
            Conn::SqlServer(c) => oltpgen_mssql::meta::remove_chunks(c, target, workload).await,
            #[allow(unreachable_patterns)]
            _ => Ok(()),
        }
    }

    /// Records `workload`'s load as `parts` parts (`load --begin`).
    ///
    /// # Errors
    /// [`Error::Failed`] when the write fails.
    pub async fn write_plan(&self, target: &Target, workload: &str, parts: u32) -> Result<(), Error> {
        each_engine!(self, Conn(c), m => m::meta::write_plan(c, target, workload, parts).await)
    }

    /// The parts `workload`'s load was planned in, `None` for a load not in parts.
    ///
    /// # Errors
    /// [`Error::Failed`] when the plan cannot be read.
    pub async fn plan(&self, target: &Target, workload: &str) -> Result<Option<u32>, Error> {
        each_engine!(self, Conn(c), m => m::meta::plan(c, target, workload).await)
    }

    /// The bytes free on the disk that holds the database, or why the server cannot say
    /// (PostgreSQL: only a server on this machine, its data directory read here; SQL Server and
    /// MySQL: not asked).
    ///
    /// # Errors
    /// [`Error::Failed`] when the server cannot be asked.
    pub async fn disk_free(&self, target: &Target) -> Result<Result<u64, String>, Error> {
        match self {
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => oltpgen_pg::pristine::disk_free(c, target).await,
            #[allow(unreachable_patterns)]
            _ => Ok(Err(format!("oltpgen does not ask {} for its free disk space", target.engine().name()))),
        }
    }

    /// The server's version and key settings.
    ///
    /// # Errors
    /// [`Error::Failed`] when they cannot be read.
    pub async fn server_info(&self, target: &Target) -> Result<ServerInfo, Error> {
        each_engine!(self, Conn(c), m => m::server_info(c, target).await)
    }

    /// How far the server's clock is ahead of this machine's, in milliseconds: read between two of
    /// this machine's readings, against their midpoint.
    ///
    /// # Errors
    /// [`Error::Failed`] when the server's clock cannot be read.
    pub async fn clock_offset_ms(&self, target: &Target) -> Result<f64, Error> {
        let now_ms = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64() * 1e3)
        };
        let before = now_ms();
        let server = each_engine!(self, Conn(c), m => m::clock_ms(c, target).await?);
        Ok(server - (before + now_ms()) / 2.0)
    }

    /// The server's connection limit and use.
    ///
    /// # Errors
    /// [`Error::Failed`] when they cannot be read.
    pub async fn connection_room(&self, target: &Target) -> Result<ConnectionRoom, Error> {
        each_engine!(self, Conn(c), m => m::connection_room(c, target).await)
    }

    /// The server's own counters now (commits, buffer hits, WAL, …; see [`crate::counters`]), read over
    /// this connection, which the sampler keeps for itself. What the login may not read comes back in
    /// [`DbTotals::unavailable`] and is not asked again (`state` remembers): never an error.
    pub async fn counters(&self, state: &mut DbState) -> DbTotals {
        each_engine!(self, Conn(c), m => m::counters::read(c, state).await)
    }

    /// Runs a check's `query`, which yields one text column of offending keys: how many rows it yields
    /// and the first `examples` of them; `what` names the check in an error.
    ///
    /// # Errors
    /// [`Error::Failed`] when the query fails.
    pub async fn offending(
        &self,
        target: &Target,
        what: &str,
        query: &str,
        examples: i64,
    ) -> Result<(u64, Vec<String>), Error> {
        each_engine!(self, Conn(c), m => m::offending(c, target, what, query, examples).await)
    }
}
