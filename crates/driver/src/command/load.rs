//! Loading as the commands do it: `tpcc load` and `ds2 load` (into a database, or as CSV files), and
//! the load a bare `tpcc` or `ds2` starts on an empty database, with the lines that say how it went.

use std::path::PathBuf;
use std::time::Instant;

use super::{Console, Databases, Exit, interruptible, interruptible_waiting, workers_or_cores};
use crate::database::Database;
use crate::engine::{self, Conn};
use crate::inventory::{self, Holding};
use crate::load::{LoadOptions, LoadSummary, Step};
use crate::run::agent;
use crate::workload::Stored;
use crate::{Error, Target};
#[cfg(feature = "local")]
use oltpgen_local::room;

/// A load's flags besides its size.
#[derive(Clone, Debug, Default)]
pub struct LoadRequest {
    /// `--seed`: the data's seed.
    pub seed: u64,
    /// `--replace`: drop and reload a database that holds the workload.
    pub replace: bool,
    /// `--resume`: carry on a cut load, loading only the chunks not marked done.
    pub resume: bool,
    /// `--begin --parts N`: begin a load in `N` parts.
    pub begin: Option<u32>,
    /// `--agent I/N|auto`: load part I of N.
    pub agent: Option<String>,
    /// `--finish`: build the keys of a load in parts once every part is in.
    pub finish: bool,
    /// `--csv DIR`: write CSV files there instead of loading a database.
    pub csv: Option<PathBuf>,
    /// `--load-workers`, or `None` for one per core.
    pub workers: Option<u32>,
    /// `--quiet`: no progress bar.
    pub quiet: bool,
    /// `--create-database`: create the database `--url` names when it does not exist. Explicit only,
    /// so that a mistyped name never becomes a new database; the built-in server makes its own.
    pub create_database: bool,
}

impl LoadRequest {
    /// The step of the load these flags ask for; `--agent auto` takes the part from Slurm's or
    /// Kubernetes' variables, as `run` does.
    ///
    /// # Errors
    /// A bad `--agent`.
    pub fn step(&self) -> Result<Step, Error> {
        Ok(match (self.begin, &self.agent, self.finish) {
            (Some(parts), _, _) => Step::Begin(parts),
            (_, Some(flag), _) => {
                let a = agent::resolve(Some(flag), |name| std::env::var(name).ok())?;
                Step::Part { index: a.index, count: a.count }
            }
            (_, _, true) => Step::Finish,
            _ => Step::Whole,
        })
    }
}

/// `tpcc load` and `ds2 load`: loads every database `db` names at `size`, one after another (or
/// writes the rows as CSV files), and says how each went; with `--create-database`, creates each
/// database first when it does not exist, and says so. An interrupted load says how to recover.
///
/// # Errors
/// A bad URL, `--create-database` without a URL or refused by the server, a disk too small for the
/// built-in server, the load's own error, or the interruption.
pub async fn load<W: Stored>(
    w: &W,
    size: W::Size,
    req: &LoadRequest,
    db: &Databases,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    let opts = LoadOptions {
        workers: workers_or_cores(req.workers),
        replace: req.replace,
        quiet: req.quiet,
        resume: req.resume,
        step: req.step()?,
    };
    let what = w.size_words(size);
    if let Some(dir) = &req.csv {
        let started = Instant::now();
        let writing = w.write_csv(dir, size, req.seed, &opts);
        let waits_for = "the generating threads to finish their chunks";
        let rows = interruptible_waiting("writing the CSV files", waits_for, writing).await?;
        console.line(&format!(
            "wrote {rows} rows of {what} as CSV into {} in {:.1} s",
            dir.display(),
            started.elapsed().as_secs_f64()
        ));
        return Ok(Exit::Success);
    }
    for one in db.each()? {
        load_into(w, size, req, &opts, &one, console).await?;
    }
    Ok(Exit::Success)
}

/// Loads the one database `db` names (see [`load`]).
async fn load_into<W: Stored>(
    w: &W,
    size: W::Size,
    req: &LoadRequest,
    opts: &LoadOptions,
    db: &Databases,
    console: &mut dyn Console,
) -> Result<(), Error> {
    let what = w.size_words(size);
    let target = db.target()?;
    let created = match (&target, req.create_database) {
        (_, false) => false,
        (None, true) => {
            return Err(Error::usage(
                "--create-database is for a server named by --url (or OLTPGEN_URL): the built-in \
                 PostgreSQL creates its databases itself",
            ));
        }
        (Some(target), true) => engine::create_database(target).await?,
    };
    #[cfg(feature = "local")]
    if target.is_none() {
        room::check(&db.placement(), w.size_bytes(size))?;
    }
    if let (Some(target), Step::Whole | Step::Begin(_), false) = (&target, opts.step, req.resume) {
        server_disk(target, w.size_bytes(size), console).await?;
    }
    let loading = async {
        let database = match target {
            Some(target) => Database::at(target),
            None => db.built_in(opts.workers as u32 + 2, w.name()).await?,
        };
        let summary = w.load(&database.target, size, req.seed, opts).await?;
        Ok((database.target.clone(), summary))
    };
    let throwaway = db.temp_db;
    let (target, summary) = interruptible("the load", loading).await.map_err(|e| match e {
        // A throwaway database went with its server: there is nothing to replace.
        Error::Interrupted(why) if throwaway => {
            Error::Interrupted(format!("{why}; the throwaway database went with it"))
        }
        Error::Interrupted(why) => Error::Interrupted(format!(
            "{why}; the database is marked half-loaded: carry it on with --resume (the same size and \
             --seed), or load it again with --replace"
        )),
        other => other,
    })?;
    // The database is oltpgen's doing: said where the load is, since `drop` empties it but leaves it.
    let into =
        if created { format!("{target} (a database --create-database created)") } else { target.to_string() };
    let secs = summary.total.as_secs_f64();
    match opts.step {
        Step::Begin(parts) => console.line(&format!(
            "began {what} in {parts} parts in {into}: the tables are created; load each part with --agent I/{parts}, \
             then --finish"
        )),
        Step::Part { index, count } => console.line(&format!(
            "loaded part {index}/{count} of {what} into {into}: {} rows in {secs:.1} s; the keys come with --finish",
            summary.rows
        )),
        Step::Finish => console.line(&format!(
            "finished {what} in {into}: every part in; keys, indexes and ANALYZE in {secs:.1} s; loaded"
        )),
        Step::Whole => console.line(&line(&what, &into, &summary)),
    }
    if let Some((done, all)) = summary.resumed {
        console.line(&format!("resumed: {done} of {all} chunks were in already and were not loaded again"));
    }
    Ok(())
}

/// The WAL a server named by `--url` is counted to keep at most during a load (PostgreSQL's default
/// `max_wal_size`).
const SERVER_WAL: u64 = 1 << 30;

/// The disk check before a whole load (or a load in parts, at its `--begin`) into a server named by
/// `--url`: every part's rows, the keys and indexes built after, and the WAL, against the free space
/// the server's disk reports. Refused when it cannot fit; when the server cannot tell, one line says
/// so and what the load needs.
///
/// # Errors
/// [`Error::Usage`] when the load cannot fit; [`Error::Failed`] when the server cannot be asked.
async fn server_disk(target: &Target, data_bytes: u64, console: &mut dyn Console) -> Result<(), Error> {
    use oltpgen_vocab::space::{human, load_need};
    let need = load_need(data_bytes, SERVER_WAL);
    match Conn::open(target).await?.disk_free(target).await? {
        Ok(free) if free < need => Err(Error::usage(format!(
            "this load needs about {} (every part's tables, the keys and indexes, and WAL) on {target}'s disk, \
             which has {} free: free some space there, or load less",
            human(need),
            human(free)
        ))),
        Ok(_) => Ok(()),
        Err(why) => {
            console.line(&format!(
                "disk: {target}'s free space is not known ({why}); this load needs about {} there (tables, \
                 keys and indexes, WAL)",
                human(need)
            ));
            Ok(())
        }
    }
}

/// Loads `target` at `size` when it holds none of the workload's tables (the bare `tpcc` and `ds2`
/// commands), with every core and the default seed, and says what was loaded. On the built-in server
/// (`room`: the flags that placed it) the disk is checked first, as `load` checks it.
///
/// # Errors
/// A database that cannot be read, a disk too small, or the load's own error.
#[cfg_attr(not(feature = "local"), allow(unused_variables))]
pub(super) async fn load_when_empty<W: Stored>(
    w: &W,
    size: W::Size,
    target: &Target,
    room: Option<&Databases>,
    quiet: bool,
    console: &mut dyn Console,
) -> Result<(), Error> {
    let holding = inventory::holding(w, &Conn::open(target).await?, target).await?;
    if !matches!(holding, Holding::Empty) {
        return Ok(());
    }
    #[cfg(feature = "local")]
    if let Some(db) = room {
        room::check(&db.placement(), w.size_bytes(size))?;
    }
    let opts = LoadOptions {
        workers: workers_or_cores(None),
        replace: false,
        quiet,
        resume: false,
        step: Default::default(),
    };
    let summary = interruptible("the load", w.load(target, size, 1, &opts)).await?;
    console.line(&line(&w.size_words(size), target, &summary));
    Ok(())
}

/// One line on a finished load.
fn line(what: &str, target: &dyn std::fmt::Display, s: &LoadSummary) -> String {
    oltpgen_report::render::text::live::load_line(what, target, s.rows, s.total, s.copy, s.indexes)
}
