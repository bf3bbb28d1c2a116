//! The faster `--restore` on a database oltpgen created: a pristine copy made once by `CREATE DATABASE
//! … TEMPLATE` (marked as oltpgen's by its comment), and the database put back by dropping it and
//! cloning the copy (3.2× faster than generating the rows again at TPC-C scale 10, see
//! BENCHMARKS.md). Both statements need no session on the database cloned from or dropped: the database
//! is closed to new connections meanwhile, oltpgen's own sessions there (application name `oltpgen…`)
//! are ended, and another client's makes each step decline, saying why, so that the caller falls back
//! to the generator; no other client's session is ever cut. Every statement runs from the
//! server's `postgres` database.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio_postgres::Client;

use super::{connect, failed, quoted, target};
use oltpgen_vocab::console::ErrLines;
use oltpgen_vocab::space::free_bytes;
use oltpgen_vocab::{Error, Target};

/// The suffix of the pristine copy's name: `<db>_oltpgen_pristine`.
const SUFFIX: &str = "_oltpgen_pristine";

/// How the pristine copy's comment begins: a copy without it is not oltpgen's, and never dropped.
const MARK: &str = "oltpgen pristine copy of ";

/// The application name of the connection that clones and drops, so that what a study cut short left
/// running can be found and ended at its end.
const CLONING: &str = "oltpgen restore";

/// How long oltpgen's own ended sessions may take to leave.
const SESSIONS_GONE: Duration = Duration::from_secs(10);

/// The name of `db`'s pristine copy, `None` when it would be longer than PostgreSQL keeps.
fn copy_name(db: &str) -> Option<String> {
    let name = format!("{db}{SUFFIX}");
    (name.len() <= super::MAX_NAME_BYTES).then_some(name)
}

/// A connection to `target`'s server's `postgres` database, named [`CLONING`].
async fn admin(target: &Target) -> Result<(Client, Target), Error> {
    let admin_target = target::with_dbname(target, "postgres");
    let client = connect(&admin_target).await?;
    client
        .batch_execute(&format!("SET application_name = '{CLONING}'"))
        .await
        .map_err(|e| failed("naming the restore's connection", &admin_target, &e))?;
    Ok((client, admin_target))
}

/// Another client's sessions on `db` (any client whose application name is not oltpgen's; the server's
/// own workers, which a clone ends itself, are not counted): how many.
async fn foreign_sessions(client: &Client, at: &Target, db: &str) -> Result<i64, Error> {
    let row = client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() \
             AND backend_type = 'client backend' AND coalesce(application_name, '') NOT LIKE 'oltpgen%'",
            &[&db],
        )
        .await
        .map_err(|e| failed("looking for other clients' sessions", at, &e))?;
    Ok(row.get(0))
}

/// Ends the sessions (other than this one) that `condition` picks, `$1` being `value`, and waits until
/// they have left (at most [`SESSIONS_GONE`]).
async fn end_sessions(
    client: &Client,
    at: &Target,
    condition: &str,
    value: &str,
    what: &str,
) -> Result<(), Error> {
    let query = format!(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {condition} AND pid <> pg_backend_pid()"
    );
    let started = Instant::now();
    loop {
        let row = client.query_one(&query, &[&value]).await.map_err(|e| failed(what, at, &e))?;
        let left: i64 = row.get(0);
        if left == 0 || started.elapsed() > SESSIONS_GONE {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Ends oltpgen's own sessions on `db` (application name `oltpgen…`: the counters' sampler, a
/// connection a restore left closing).
async fn end_own_sessions(client: &Client, at: &Target, db: &str) -> Result<(), Error> {
    let own = "datname = $1 AND application_name LIKE 'oltpgen%'";
    end_sessions(client, at, own, db, "ending oltpgen's own sessions").await
}

/// The comment on database `name`, `None` when it does not exist.
async fn comment(client: &Client, at: &Target, name: &str) -> Result<Option<String>, Error> {
    let row = client
        .query_opt(
            "SELECT coalesce(shobj_description(oid, 'pg_database'), '') FROM pg_database WHERE datname = $1",
            &[&name],
        )
        .await
        .map_err(|e| failed("reading a database's comment", at, &e))?;
    Ok(row.map(|r| r.get(0)))
}

/// Makes the pristine copy of `target`'s database, just restored, commented `oltpgen pristine copy of
/// <db>, load <load>`, replacing a copy an earlier study left; its size in bytes. `Ok(Err(why))` when
/// it cannot be made safely (another client's session on the database, a copy of the same name that is
/// not oltpgen's, a name too long, no room for it on the server's disk): the caller restores from the
/// generator.
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn keep(target: &Target, load: &str) -> Result<Result<u64, String>, Error> {
    let db = target.dbname();
    let Some(copy) = copy_name(db) else {
        return Ok(Err(format!("{db}{SUFFIX} would be longer than PostgreSQL's names")));
    };
    let (client, at) = admin(target).await?;
    match comment(&client, &at, &copy).await? {
        Some(c) if !c.starts_with(MARK) => {
            return Ok(Err(format!("a database {copy} exists that oltpgen did not make")));
        }
        Some(_) => {
            run(
                &client,
                &at,
                "dropping an earlier pristine copy",
                &format!("DROP DATABASE {}", quoted(&copy)),
            )
            .await?
        }
        None => {}
    }
    if let Some(short) = no_room(&client, &at, db).await? {
        return Ok(Err(short));
    }
    let made = closed(&client, &at, db, async || {
        if let Some(why) = alone(&client, &at, db).await? {
            return Ok(Err(why));
        }
        let create =
            format!("CREATE DATABASE {} TEMPLATE {}{}", quoted(&copy), quoted(db), strategy(&client).await);
        declined_if_in_use(client.batch_execute(&create).await, db, "making the pristine copy", &at)
    })
    .await?;
    if let Err(why) = made {
        return Ok(Err(why));
    }
    let note = format!("{MARK}{db}, load {load}").replace('\'', "''");
    run(
        &client,
        &at,
        "marking the pristine copy",
        &format!("COMMENT ON DATABASE {} IS '{note}'", quoted(&copy)),
    )
    .await?;
    let row = client
        .query_one("SELECT pg_database_size($1)", &[&copy])
        .await
        .map_err(|e| failed("sizing the pristine copy", &at, &e))?;
    let size: i64 = row.get(0);
    Ok(Ok(size.max(0) as u64))
}

/// Runs `step` with `db` closed to new connections (`ALLOW_CONNECTIONS false`), opened again afterwards
/// whatever `step` did, error included (when `db` still exists: a clone cut short left none). Closed,
/// a client that connects meanwhile is refused at its connect instead of being let in between the count
/// of sessions and the statement that needs none (issue 36), which `WITH (FORCE)` would then have cut.
async fn closed<T>(
    client: &Client,
    at: &Target,
    db: &str,
    step: impl AsyncFnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    let allow = |yes: bool| format!("ALTER DATABASE {} ALLOW_CONNECTIONS {yes}", quoted(db));
    run(client, at, "closing the database to new connections", &allow(false)).await?;
    let outcome = step().await;
    let reopened = match comment(client, at, db).await {
        Ok(Some(_)) => run(client, at, "opening the database to connections again", &allow(true)).await,
        Ok(None) => Ok(()),
        Err(e) => Err(e),
    };
    let outcome = outcome?;
    reopened.map(|()| outcome)
}

/// With `db` closed: why the statement that needs no session on it must not run (another client's
/// session there), after ending oltpgen's own; `None` when it may.
async fn alone(client: &Client, at: &Target, db: &str) -> Result<Option<String>, Error> {
    let foreign = foreign_sessions(client, at, db).await?;
    if foreign > 0 {
        return Ok(Some(format!("{foreign} other client session(s) connected to {db}")));
    }
    end_own_sessions(client, at, db).await?;
    Ok(None)
}

/// `done`, a statement that needs no other session on `db`: `Ok(Err(why))` when one was there after all
/// (`55006`, object in use: a session that connected before the database was closed and was not yet
/// counted), which declines the clone rather than cutting that session.
fn declined_if_in_use(
    done: Result<(), tokio_postgres::Error>,
    db: &str,
    what: &str,
    at: &Target,
) -> Result<Result<(), String>, Error> {
    match done {
        Ok(()) => Ok(Ok(())),
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::OBJECT_IN_USE) => {
            Ok(Err(format!("another client's session is connected to {db}")))
        }
        Err(e) => Err(failed(what, at, &e)),
    }
}

/// Why the server's disk has no room for a copy of `db` (its size and a tenth more), when it has none:
/// told from the file system of the data directory, where this client sees it (a pristine copy is made
/// only on the built-in server, which is local); `None` as well when the server does not say where its
/// data directory is (a login that may not read it).
async fn no_room(client: &Client, at: &Target, db: &str) -> Result<Option<String>, Error> {
    let size = client
        .query_one("SELECT pg_database_size($1)", &[&db])
        .await
        .map_err(|e| failed("sizing the database to copy", at, &e))?;
    let need = size.get::<_, i64>(0).max(0) as u64 / 10 * 11;
    Ok(short_of(need, disk_free(client, at).await?.ok()))
}

/// The bytes free on the disk of the server's data directory, told from its file system where this
/// client sees it: only when the server is on this machine (a Unix socket or a loopback address) and
/// says where its data directory is; else why it cannot be known (PostgreSQL reports no free space to
/// a client).
///
/// # Errors
/// [`Error::Failed`] when the server cannot be asked.
pub async fn disk_free(client: &Client, at: &Target) -> Result<Result<u64, String>, Error> {
    let row = client
        .query_one(
            "SELECT inet_server_addr() IS NULL OR host(inet_server_addr()) IN ('127.0.0.1', '::1'), \
             (SELECT setting FROM pg_settings WHERE name = 'data_directory')",
            &[],
        )
        .await
        .map_err(|e| failed("finding the server's data directory", at, &e))?;
    let (local, dir): (bool, Option<String>) = (row.get(0), row.get(1));
    Ok(match (local, dir) {
        (false, _) => Err("PostgreSQL reports no free disk space to a client on another machine".into()),
        (true, None) => Err("this login may not read the server's data_directory".into()),
        (true, Some(dir)) => {
            free_bytes(Path::new(&dir)).ok_or_else(|| format!("the data directory {dir} cannot be read here"))
        }
    })
}

/// Why `free` bytes (`None`: not known) cannot take a copy that needs `need`; `None` when they can, or
/// when the free space is not known.
fn short_of(need: u64, free: Option<u64>) -> Option<String> {
    free.filter(|&free| free < need).map(|free| {
        format!(
            "the pristine copy needs {:.0} MB and the server's disk has {:.0} MB free",
            need as f64 / 1e6,
            free as f64 / 1e6
        )
    })
}

/// Puts `target`'s database back from its pristine copy: `DROP DATABASE` and `CREATE DATABASE …
/// TEMPLATE` the copy, the database closed to new connections meanwhile (`ALLOW_CONNECTIONS false`).
/// `Ok(Err(why))` when another client is connected to it: nothing is dropped, no session is cut, and
/// the caller restores from the generator.
///
/// # Errors
/// [`Error::Failed`] when a statement fails (the database may then be missing: [`discard`] renames the
/// copy back at the study's end).
pub async fn put_back(target: &Target) -> Result<Result<(), String>, Error> {
    let db = target.dbname();
    let copy = copy_name(db).expect("a pristine copy was made, so its name fits");
    let (client, at) = admin(target).await?;
    let dropped = closed(&client, &at, db, async || {
        if let Some(why) = alone(&client, &at, db).await? {
            return Ok(Err(why));
        }
        // Without FORCE: closed, and oltpgen's own sessions ended, only another client's session can
        // still be there, and it is never cut (the drop declines instead).
        let drop = format!("DROP DATABASE {}", quoted(db));
        declined_if_in_use(
            client.batch_execute(&drop).await,
            db,
            "dropping the database to clone it again",
            &at,
        )
    })
    .await?;
    if let Err(why) = dropped {
        return Ok(Err(why));
    }
    let create =
        format!("CREATE DATABASE {} TEMPLATE {}{}", quoted(db), quoted(&copy), strategy(&client).await);
    run(&client, &at, "cloning the pristine copy", &create).await?;
    Ok(Ok(()))
}

/// Drops `target`'s pristine copy at the study's end, whatever ended it: first ends what a study cut
/// short left cloning; when the database itself is missing (cut between its drop and its clone), the
/// copy is renamed back to it instead, so nothing is lost. A database of the copy's name that is not
/// oltpgen's stays. The renaming is said to `said`.
///
/// # Errors
/// [`Error::Failed`] when a statement fails.
pub async fn discard(target: &Target, said: &ErrLines) -> Result<(), Error> {
    let db = target.dbname();
    let Some(copy) = copy_name(db) else { return Ok(()) };
    let (client, at) = admin(target).await?;
    end_sessions(&client, &at, "application_name = $1", CLONING, "ending a clone cut short").await?;
    if comment(&client, &at, db).await?.is_some() {
        // A clone cut short while the database was closed to connections ([`closed`]) opens it again.
        let open = format!("ALTER DATABASE {} ALLOW_CONNECTIONS true", quoted(db));
        run(&client, &at, "opening the database to connections again", &open).await?;
    }
    match comment(&client, &at, &copy).await? {
        Some(c) if c.starts_with(MARK) => {}
        _ => return Ok(()),
    }
    if comment(&client, &at, db).await?.is_none() {
        let rename = format!("ALTER DATABASE {} RENAME TO {}", quoted(&copy), quoted(db));
        said.line(&format!(
            "--restore: {db} was cut short while cloned again: its pristine copy is renamed back to it"
        ));
        run(&client, &at, "renaming the pristine copy back", &rename).await?;
        return run(&client, &at, "unmarking it", &format!("COMMENT ON DATABASE {} IS NULL", quoted(db)))
            .await;
    }
    run(&client, &at, "dropping the pristine copy", &format!("DROP DATABASE {} WITH (FORCE)", quoted(&copy)))
        .await
}

/// ` STRATEGY WAL_LOG` where the server has it (PostgreSQL 15 on; measured faster than `FILE_COPY`,
/// see BENCHMARKS.md), else nothing (older servers copy the files).
async fn strategy(client: &Client) -> &'static str {
    let version = client.query_one("SELECT current_setting('server_version_num')::int", &[]).await;
    match version.map(|r| r.get::<_, i32>(0)) {
        Ok(v) if v >= 150_000 => " STRATEGY WAL_LOG",
        _ => "",
    }
}

async fn run(client: &Client, at: &Target, what: &str, statement: &str) -> Result<(), Error> {
    client.batch_execute(statement).await.map_err(|e| failed(what, at, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_the_disk_cannot_take_is_declined_saying_both_sizes() {
        assert_eq!(
            short_of(1_100_000_000, Some(900_000_000)).as_deref(),
            Some("the pristine copy needs 1100 MB and the server's disk has 900 MB free")
        );
        assert_eq!(short_of(1_100_000_000, Some(1_100_000_000)), None, "exactly enough is enough");
        assert_eq!(short_of(1_100_000_000, None), None, "unknown free space does not decline");
    }
}
