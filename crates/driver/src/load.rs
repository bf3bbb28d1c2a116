//! Loading any workload's database: refuse what must not be overwritten, record the load as started,
//! create the tables, generate and bulk-load every chunk over several connections, build keys and
//! indexes, run the workload's own finishing DDL, gather statistics, and record the load as complete.
//! Every statement and stream comes from the target's engine ([`crate::engine`]). Or write the same
//! rows as CSV files. Written once against [`Dataset`]; a workload brings its data and its extras.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oltpgen_datagen::schema::Dataset;

use crate::engine::{self, Conn};
use crate::inventory::{self, COMPLETE, Holding, LOADING};
use crate::workload::Stored;
use crate::{Error, Target};
use oltpgen_vocab::meta::MetaRow;
use oltpgen_vocab::progress::Progress;
use oltpgen_vocab::schema::{Object, ObjectKind, create_index, created_objects};
use oltpgen_vocab::target::Engine;

/// How a load runs, whatever the workload.
#[derive(Clone, Copy, Debug)]
pub struct LoadOptions {
    /// Connections (and generating threads) working at once.
    pub workers: usize,
    /// Drop and reload a database that already holds the workload (or a half-finished load).
    pub replace: bool,
    /// No progress bar.
    pub quiet: bool,
    /// `--resume`: carry on a cut load of the same parameters, loading only the chunks not marked
    /// done, then the keys.
    pub resume: bool,
    /// The whole load, or one step of a load in parts.
    pub step: Step,
}

/// Which step of a load this is: the whole load, or one step of a load spread over client machines
/// (`--begin`, `--agent I/N`, `--finish`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Step {
    /// Tables, every chunk, keys: one process.
    #[default]
    Whole,
    /// `--begin --parts N`: the tables and the plan of `N` parts.
    Begin(u32),
    /// `--agent I/N`: part `index` of `count`'s chunks not yet in (so it carries itself on when cut).
    Part {
        /// This part, from 0.
        index: u32,
        /// The plan's parts.
        count: u32,
    },
    /// `--finish`: keys, indexes, the workload's finishing statements and statistics, once every part
    /// is in; the load recorded complete.
    Finish,
}

impl Step {
    /// The flag that asks for this step (`None` for a whole load).
    pub fn flag(self) -> Option<&'static str> {
        match self {
            Step::Whole => None,
            Step::Begin(_) => Some("--begin"),
            Step::Part { .. } => Some("--agent"),
            Step::Finish => Some("--finish"),
        }
    }
}

impl LoadOptions {
    /// The flag of this load that needs chunk marks (`--resume` or a step in parts), if any.
    pub fn marked_flag(&self) -> Option<&'static str> {
        self.step.flag().or(self.resume.then_some("--resume"))
    }
}

/// How a load went, for the line the command prints and for BENCHMARKS.md.
#[derive(Clone, Copy, Debug)]
pub struct LoadSummary {
    /// Rows written.
    pub rows: u64,
    /// Generating and copying the rows.
    pub copy: Duration,
    /// Building keys and indexes, the workload's extras, then ANALYZE.
    pub indexes: Duration,
    /// Everything, from the first connection to the recorded completion.
    pub total: Duration,
    /// On a resumed load, the chunks found done (not loaded again) of all there are.
    pub resumed: Option<(usize, usize)>,
}

/// What one workload loads: its data, what it records about the load, and the engine DDL it needs
/// beyond tables, keys and plain indexes. Its name and its description in a refusal come from its
/// [`Stored`] workload.
pub struct Loading<W: Stored, D: Dataset> {
    /// The rows.
    pub data: D,
    /// What the load records about itself, for later commands.
    pub params: W::Params,
    /// Extra indexes (e.g. full-text), built beside the keys: (table, statement).
    pub extra_indexes: Vec<(&'static str, String)>,
    /// The statements dropping `extra_indexes` where they exist, before a resumed load builds them again.
    pub extra_dropped: Vec<String>,
}

/// Loads `loading` into `target`, in phases: `clear_the_way`, record the load as started, create
/// the tables, `copy_rows`, `build_keys_and_finish`, record the load as complete.
///
/// The load records itself as "loading" before it writes a row and as "complete" after the statistics,
/// so a load that dies (or is interrupted) is recognised later by every command. Each chunk commits
/// with its done-mark ([`engine::bulk_load`]), and `opts.resume` carries a cut load of the same parameters on: the chunks not marked, then the keys, indexes and
/// finishing statements whole again (what a cut build left is dropped first).
///
/// # Errors
/// [`Error::Usage`] when the database already holds the workload (without `replace`) or foreign tables
/// of the same names, or `opts.resume` finds no cut load of these parameters; [`Error::Failed`] when the server fails part-way.
pub async fn load<W: Stored, D: Dataset>(
    w: &W,
    target: &Target,
    loading: Loading<W, D>,
    opts: &LoadOptions,
) -> Result<LoadSummary, Error> {
    let start = Instant::now();
    let conn = Conn::open(target).await?;
    let (engine, workload) = (target.engine(), w.name());
    let tables: Vec<&str> = loading.data.tables().iter().map(|t| t.name).collect();
    let params = serde_json::to_value(&loading.params).expect("load parameters serialize");
    let marks = Some(workload);
    let fresh = !opts.resume && matches!(opts.step, Step::Whole | Step::Begin(_));
    let done = if fresh {
        clear_the_way(w, &conn, target, &tables, opts.replace).await?;
        record(&conn, target, workload, LOADING, &params).await?;
        conn.clear_chunks(target, workload).await?;
        if let Step::Begin(parts) = opts.step {
            conn.write_plan(target, workload, parts).await?;
        }
        Vec::new()
    } else {
        let flag = opts.marked_flag().unwrap_or("--resume");
        let done = resume_point(w, &conn, target, &tables, &params, flag).await?;
        check_plan(&conn, target, workload, opts.step).await?;
        done
    };
    // A resumed load creates the tables its cut left uncreated (none, or all: one batch).
    let present = conn.existing_tables(target, &tables).await?;
    let ddl: Vec<String> = (loading.data.tables().iter())
        .filter(|t| !present.iter().any(|p| p == t.name))
        .map(|t| engine::create_table(engine, t))
        .collect();
    if !ddl.is_empty() {
        conn.batch(target, &format!("creating the {workload} tables"), &ddl).await?;
    }
    let data = Arc::new(loading.data);
    let chunks = data.chunks();
    let all = chunks.len();
    let parts = match opts.step {
        Step::Part { count, .. } => parts_of(&*data, &chunks, count),
        Step::Finish => parts_of(&*data, &chunks, check_plan(&conn, target, workload, opts.step).await?),
        Step::Whole | Step::Begin(_) => vec![0; all],
    };
    let done: std::collections::HashSet<u32> = done.into_iter().collect();
    let left: Vec<Numbered<D>> = (chunks.into_iter().enumerate())
        .map(|(i, c)| (i as u32, c))
        .filter(|(i, _)| !done.contains(i))
        .collect();
    let summary = |rows, copied| LoadSummary {
        rows,
        copy: copied,
        indexes: start.elapsed() - copied,
        total: start.elapsed(),
        resumed: opts.resume.then_some((done.len(), all)),
    };
    let wanted: Vec<Numbered<D>> = match opts.step {
        Step::Begin(_) => return Ok(summary(0, start.elapsed())),
        Step::Part { index, .. } => left.into_iter().filter(|&(i, _)| parts[i as usize] == index).collect(),
        Step::Finish => {
            refuse_missing_parts::<D>(target, &parts, &left)?;
            Vec::new()
        }
        Step::Whole => left,
    };
    let rows = copy_rows_marked(target, &data, wanted, marks, opts).await?;
    let copied = start.elapsed();
    if let Step::Part { .. } = opts.step {
        return Ok(summary(rows, copied));
    }
    if !fresh {
        // What a cut key build or finish left: dropped, to be built whole again.
        let mut dropped = loading.extra_dropped;
        dropped.extend(keys_and_indexes_dropped(engine, &*data));
        conn.batch(target, "dropping the keys a cut load built", &dropped).await?;
        let objects: Vec<Object> = (created_objects(&w.finish(engine)).into_iter())
            .filter(|o| o.kind != ObjectKind::Sequence)
            .collect();
        conn.drop_workload(target, &[], &objects).await?;
    }
    let keys = index_statements(engine, &*data, &data.rows_by_table(), loading.extra_indexes);
    build_keys_and_finish(w, &conn, target, keys, &w.finish(engine), &tables, opts).await?;

    record(&conn, target, workload, COMPLETE, &params).await?;
    conn.remove_chunks(target, workload).await?;
    Ok(summary(rows, copied))
}

/// Which part loads each of `chunks` when the load is spread over `parts` parts: where the dataset
/// places a chunk ([`Dataset::share`]), else each table's chunks in order, in contiguous runs.
fn parts_of<D: Dataset>(data: &D, chunks: &[D::Chunk], parts: u32) -> Vec<u32> {
    let mut of_table: BTreeMap<&str, u64> = BTreeMap::new();
    for &c in chunks {
        *of_table.entry(data.table_of(c).name).or_default() += 1;
    }
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    let parts = u64::from(parts);
    chunks
        .iter()
        .map(|&c| {
            let table = data.table_of(c).name;
            let position = seen.entry(table).or_default();
            let (unit, units) =
                D::share(data, c).map_or((*position, of_table[table]), |(u, n)| (u64::from(u), u64::from(n)));
            *position += 1;
            (unit * parts / units.max(1)) as u32
        })
        .collect()
}

/// Refuses `--finish` while a part's chunks are not all in, naming each such part.
///
/// # Errors
/// [`Error::Usage`] naming the parts and what to run.
fn refuse_missing_parts<D: Dataset>(
    target: &Target,
    parts: &[u32],
    left: &[Numbered<D>],
) -> Result<(), Error> {
    let count = parts.iter().max().map_or(1, |m| m + 1);
    let mut missing: BTreeMap<u32, usize> = BTreeMap::new();
    for &(i, _) in left {
        *missing.entry(parts[i as usize]).or_default() += 1;
    }
    if missing.is_empty() {
        return Ok(());
    }
    let named: Vec<String> =
        missing.iter().map(|(p, n)| format!("part {p}/{count} ({n} chunks not in)")).collect();
    Err(Error::usage(format!(
        "--finish: {target} is not loaded whole yet: {}; run load --agent I/{count} for each (it carries on \
         where it stopped), then --finish again",
        named.join(", ")
    )))
}

/// The parts of the plan `--begin` recorded, refusing a step of another plan (or of none).
///
/// # Errors
/// [`Error::Usage`] naming the plan and what to do.
async fn check_plan(conn: &Conn, target: &Target, workload: &str, step: Step) -> Result<u32, Error> {
    let plan = conn.plan(target, workload).await?;
    match (step, plan) {
        (Step::Part { index, count }, Some(parts)) if parts != count => Err(Error::usage(format!(
            "--agent {index}/{count}: the {workload} load in {target} was begun in {parts} parts: give --agent I/{parts}"
        ))),
        (Step::Part { .. } | Step::Finish, None) => Err(Error::usage(format!(
            "{}: the {workload} load in {target} was not begun in parts (load --begin --parts N): carry it on \
             with --resume",
            step.flag().unwrap_or("--finish")
        ))),
        (_, plan) => Ok(plan.unwrap_or(1)),
    }
}

/// Where a `--resume` load carries on: the chunks its cut load marked done. Refuses a database that
/// holds no cut load of `params` (a whole load is never touched).
///
/// # Errors
/// [`Error::Usage`] naming what is there and what to do.
async fn resume_point<W: Stored>(
    w: &W,
    conn: &Conn,
    target: &Target,
    tables: &[&str],
    params: &serde_json::Value,
    flag: &str,
) -> Result<Vec<u32>, Error> {
    let workload = w.name();
    let describe = |p: serde_json::Value| {
        serde_json::from_value::<W::Params>(p).map_or_else(
            |_| "unreadable parameters".to_string(),
            |p| format!("{}, seed {}", w.describe(&p), w.seed(&p)),
        )
    };
    match inventory::inspect(conn, target, workload, tables).await? {
        Holding::Empty => Err(Error::usage(format!(
            "{flag}: {target} holds no cut or begun {workload} load to carry on: load it whole, or begin one in parts with --begin --parts N"
        ))),
        Holding::Foreign(found) => Err(Error::usage(format!(
            "{flag}: {target} holds tables oltpgen did not load ({}): drop them yourself or load into another database",
            found.join(", ")
        ))),
        Holding::OtherWorkload(other) => Err(Holding::other_workload(target, workload, other)),
        Holding::Loaded(row) => Err(Error::usage(format!(
            "{flag}: {target} holds a whole {workload} load ({}), which {flag} never touches: nothing to resume",
            describe(row.params)
        ))),
        Holding::Partial(why) => match conn.read_meta(target, workload).await? {
            // Loaded whole once, then a table went: its marks are gone with the load, so carrying on
            // would load every chunk again beside the rows still there.
            Some(row) if row.state == COMPLETE => Err(Error::usage(format!(
                "{flag}: {why}; it was loaded whole once: load it again with --replace"
            ))),
            Some(row) if row.params == *params => conn.done_chunks(target, workload).await,
            Some(row) => Err(Error::usage(format!(
                "{flag}: the cut {workload} load in {target} is {}, not {}: pass its size and --seed, or \
                 load again with --replace",
                describe(row.params),
                describe(params.clone())
            ))),
            None => {
                Err(Error::usage(format!("{flag}: {why}, with no load record: load it again with --replace")))
            }
        },
    }
}
/// Refuses to overwrite what must not be: foreign tables always, a finished or half-finished load of
/// the workload unless `replace`, which drops what its load record says the load made.
///
/// # Errors
/// [`Error::Usage`] saying what is there and what to do.
async fn clear_the_way<W: Stored>(
    w: &W,
    conn: &Conn,
    target: &Target,
    tables: &[&str],
    replace: bool,
) -> Result<(), Error> {
    let workload = w.name();
    match inventory::inspect(conn, target, workload, tables).await? {
        Holding::Empty => Ok(()),
        Holding::Foreign(found) => Err(Error::usage(format!(
            "{target} holds tables oltpgen did not load ({}): drop them yourself or load into another database",
            found.join(", ")
        ))),
        Holding::OtherWorkload(other) => Err(Holding::other_workload(target, workload, other)),
        Holding::Loaded(row) if !replace => {
            let described = serde_json::from_value::<W::Params>(row.params)
                .map_or_else(|_| "unreadable parameters".to_string(), |p| w.describe(&p));
            Err(Error::usage(format!(
                "{target} already holds a {workload} database ({described}): pass --replace to load it again"
            )))
        }
        Holding::Partial(why) if !replace => {
            Err(Error::usage(format!("{why}: pass --replace to load it again")))
        }
        Holding::Loaded(_) | Holding::Partial(_) => {
            // What the load made, as its record says (the file may have changed since).
            let recorded = as_loaded(w, conn, target).await?;
            drop_workload(recorded.as_ref().unwrap_or(w), conn, target).await
        }
    }
}

/// Generates every chunk and bulk-loads it over `opts.workers` connections, with a progress bar;
/// returns the rows by table.
///
/// # Errors
/// The first error of any connection.
pub(crate) async fn copy_rows<D: Dataset>(
    target: &Target,
    data: &Arc<D>,
    opts: &LoadOptions,
) -> Result<BTreeMap<&'static str, u64>, Error> {
    let chunks = data.chunks().into_iter().enumerate().map(|(i, c)| (i as u32, c)).collect();
    copy_rows_marked(target, data, chunks, None, opts).await?;
    Ok(data.rows_by_table())
}

/// Generates `chunks` and bulk-loads them; with `marks` (the workload's name), each chunk commits with
/// its done-mark. Returns the rows loaded.
///
/// # Errors
/// The first error of any connection.
async fn copy_rows_marked<D: Dataset>(
    target: &Target,
    data: &Arc<D>,
    chunks: Vec<Numbered<D>>,
    marks: Option<&str>,
    opts: &LoadOptions,
) -> Result<u64, Error> {
    let rows = chunks.iter().map(|&(_, c)| data.rows_in(c)).sum();
    let bar = Progress::new("loading", rows, "rows", opts.quiet);
    let chunks = interleave(&**data, chunks);
    let advance = bar.clone();
    engine::bulk_load(target, opts.workers, data.clone(), chunks, marks, move |rows| advance.advance(rows))
        .await?;
    bar.finish();
    Ok(rows)
}

/// Builds `keys` side by side, runs the workload's finishing statements, then gathers statistics on
/// every table, with a progress bar.
///
/// # Errors
/// The first statement that fails.
pub(crate) async fn build_keys_and_finish<W: Stored>(
    w: &W,
    conn: &Conn,
    target: &Target,
    keys: Vec<String>,
    finish: &[String],
    tables: &[&str],
    opts: &LoadOptions,
) -> Result<(), Error> {
    let bar = Progress::new("indexing", keys.len() as u64, "steps", opts.quiet);
    let advance = bar.clone();
    engine::run_statements(target, opts.workers, keys, move |_| advance.advance(1)).await?;
    if !finish.is_empty() {
        conn.batch(target, &format!("finishing the {} schema", w.name()), finish).await?;
    }
    let statistics = tables.iter().map(|t| engine::statistics(target.engine(), t)).collect();
    bar.phase("analyzing");
    engine::run_statements(target, opts.workers, statistics, |_| {}).await?;
    bar.finish();
    Ok(())
}

/// A chunk and its place in [`Dataset::chunks`], which names its done-mark.
type Numbered<D> = (u32, <D as Dataset>::Chunk);

/// Orders chunks so that connections working side by side copy into different tables, largest remaining
/// work first: concurrent COPYs into one table queue on its relation extension lock.
fn interleave<D: Dataset>(data: &D, chunks: Vec<Numbered<D>>) -> Vec<Numbered<D>> {
    let weight = |(_, c): (u32, D::Chunk)| data.rows_in(c) * data.table_of(c).row_bytes();
    let mut queues: Vec<(u64, std::collections::VecDeque<Numbered<D>>)> = Vec::new();
    for c in chunks {
        let table = data.table_of(c.1).name;
        match queues.iter_mut().find(|(_, q)| q.front().is_some_and(|&(_, f)| data.table_of(f).name == table))
        {
            Some((w, q)) => {
                *w += weight(c);
                q.push_back(c);
            }
            None => queues.push((weight(c), [c].into())),
        }
    }
    let mut out = Vec::with_capacity(queues.iter().map(|(_, q)| q.len()).sum());
    let mut last = None;
    loop {
        let pick = queues
            .iter()
            .enumerate()
            .filter(|(_, (_, q))| !q.is_empty())
            .max_by_key(|(i, (w, _))| (Some(*i) != last, *w))
            .map(|(i, _)| i);
        let Some(i) = pick else { break };
        let (w, q) = &mut queues[i];
        let c = q.pop_front().expect("non-empty");
        *w = w.saturating_sub(weight(c));
        out.push(c);
        last = Some(i);
    }
    out
}

/// Keys, secondary indexes and the workload's extra indexes, biggest table first so the longest build
/// starts at once.
pub(crate) fn index_statements<D: Dataset>(
    engine: Engine,
    data: &D,
    rows: &BTreeMap<&str, u64>,
    extra: Vec<(&'static str, String)>,
) -> Vec<String> {
    let rows_of = |table: &str| rows.get(table).copied().unwrap_or(0);
    let mut by_size: Vec<(u64, String)> = data
        .tables()
        .iter()
        .filter_map(|t| engine::primary_key(engine, t).map(|sql| (rows_of(t.name), sql)))
        .chain(data.indexes().iter().map(|i| (rows_of(i.table), create_index(i))))
        .chain(extra.into_iter().map(|(table, sql)| (rows_of(table), sql)))
        .collect();
    by_size.sort_by_key(|(rows, _)| std::cmp::Reverse(*rows));
    by_size.into_iter().map(|(_, sql)| sql).collect()
}

/// The statements dropping what [`index_statements`] builds from `data` (keys and secondary indexes,
/// not the extra ones, which only their workload names), where it exists.
pub(crate) fn keys_and_indexes_dropped<D: Dataset>(engine: Engine, data: &D) -> Vec<String> {
    let indexes = data.indexes().iter().map(|i| engine::drop_index(engine, i));
    indexes.chain(data.tables().iter().filter_map(|t| engine::drop_primary_key(engine, t))).collect()
}

/// Records the load's state and parameters in `oltpgen_meta`.
///
/// # Errors
/// [`Error::Failed`] when the write fails.
pub async fn record(
    conn: &Conn,
    target: &Target,
    workload: &str,
    state: &str,
    params: &serde_json::Value,
) -> Result<(), Error> {
    let row = MetaRow {
        state: state.to_string(),
        params: params.clone(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    conn.write_meta(target, workload, &row).await
}

/// Drops workload `W`'s tables, the objects its load created beside them ([`Stored::finish`]'s
/// functions, procedures and sequences; triggers go with their tables) and its metadata from `target`;
/// false when there was nothing to drop. Only a database oltpgen loaded: a user's own objects of other
/// names stay.
///
/// # Errors
/// [`Error::Usage`] when the tables of those names were not loaded by oltpgen (they, and every object,
/// are left alone).
pub async fn drop_all<W: Stored>(w: &W, target: &Target) -> Result<bool, Error> {
    let conn = Conn::open(target).await?;
    let recorded = as_loaded(w, &conn, target).await?;
    let w = recorded.as_ref().unwrap_or(w);
    let (workload, tables) = (w.name(), &w.tables());
    match inventory::inspect(&conn, target, workload, tables).await? {
        Holding::Empty => Ok(false),
        Holding::Foreign(found) => Err(Error::usage(format!(
            "{target} holds tables oltpgen did not load ({}): left alone; drop them yourself",
            found.join(", ")
        ))),
        Holding::OtherWorkload(other) => Err(Holding::other_workload(target, workload, other)),
        Holding::Loaded(_) | Holding::Partial(_) => {
            drop_workload(w, &conn, target).await?;
            conn.remove_meta(target, workload).await?;
            conn.remove_chunks(target, workload).await?;
            Ok(true)
        }
    }
}

/// Workload `W` as `target`'s load record says it was loaded ([`Stored::as_loaded`]), when the record
/// says so and is readable; else `None` (and `w`'s own objects are dropped).
///
/// # Errors
/// [`Error::Failed`] when the record cannot be read.
async fn as_loaded<W: Stored>(w: &W, conn: &Conn, target: &Target) -> Result<Option<W>, Error> {
    let row = conn.read_meta(target, w.name()).await?;
    let params = row.and_then(|r| serde_json::from_value::<W::Params>(r.params).ok());
    Ok(params.and_then(|p| w.as_loaded(&p)))
}

/// Drops workload `W`'s tables and the objects its load created beside them ([`Stored::finish`]'s
/// functions, procedures and sequences), all or nothing: what `drop` and a `--replace` load clear.
///
/// # Errors
/// [`Conn::drop_workload`]'s.
async fn drop_workload<W: Stored>(w: &W, conn: &Conn, target: &Target) -> Result<(), Error> {
    let objects = created_objects(&w.finish(target.engine()));
    conn.drop_workload(target, &w.tables(), &objects).await
}

/// Writes the rows a load would load as one CSV file per table in `dir` (`<table>.csv`), for
/// PostgreSQL's `COPY … (FORMAT csv)` or any other engine's bulk loader. Returns the rows written.
///
/// # Errors
/// [`Error::Usage`] when `dir` already holds such CSV files (without `replace`) or cannot be written.
pub async fn write_csv<D: Dataset>(dir: &Path, data: D, opts: &LoadOptions) -> Result<u64, Error> {
    let existing: Vec<String> =
        data.tables().iter().map(|t| format!("{}.csv", t.name)).filter(|f| dir.join(f).exists()).collect();
    if !existing.is_empty() && !opts.replace {
        return Err(Error::usage(format!(
            "{} already holds {}: pass --replace to overwrite them",
            dir.display(),
            existing.join(", ")
        )));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::usage(format!("--csv: cannot create {}: {e}", dir.display())))?;
    let rows = data.total_rows();
    let bar = Progress::new("writing", rows, "rows", opts.quiet);
    let (dir, threads, advance) = (dir.to_path_buf(), opts.workers, bar.clone());
    tokio::task::spawn_blocking(move || {
        oltpgen_datagen::csv_files::write_csv_files(&data, &dir, threads, &|n| advance.advance(n))
            .map_err(|e| Error::failed(format!("--csv: writing {}: {e}", dir.display())))
    })
    .await
    .map_err(|e| Error::failed(format!("--csv: a writer thread died: {e}")))??;
    bar.finish();
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use oltpgen_datagen::tpcc::rows::{TpccData, TpccParams};
    use oltpgen_datagen::tpcc::schema::Table;

    use super::*;

    // PostgreSQL's objects against SQL Server's: in a build that speaks both.
    #[cfg(all(feature = "postgres", feature = "mssql"))]
    mod dropped_objects {
        use super::*;
        use oltpgen_vocab::schema::{Object, ObjectKind};

        /// What `drop` removes for workload `W` on `engine`, as `(kind, name)`, each name once (a name may
        /// come with two argument lists: the load's and an earlier oltpgen's).
        fn dropped<W: Stored>(w: &W, engine: Engine) -> Vec<(ObjectKind, String)> {
            let mut names = Vec::new();
            for Object { kind, name, .. } in created_objects(&w.finish(engine)) {
                if !names.contains(&(kind, name.clone())) {
                    names.push((kind, name));
                }
            }
            names
        }

        fn named(kind: ObjectKind, names: &[&str]) -> Vec<(ObjectKind, String)> {
            names.iter().map(|n| (kind, n.to_string())).collect()
        }

        #[test]
        fn drop_removes_every_object_a_load_creates_and_nothing_else() {
            use ObjectKind::{FullTextCatalog, Function, Procedure, Sequence};
            let tpcc = ["new_order", "payment", "order_status", "delivery", "stock_level"];
            let on_pg = dropped(&crate::tpcc::Tpcc, Engine::Postgres);
            // procs.sql may gain helpers: every one is oltpgen's by its prefix, and the six are there.
            assert!(on_pg.iter().all(|(k, n)| *k == Function && n.starts_with("oltpgen_tpcc_")), "{on_pg:?}");
            for name in
                tpcc.iter().map(|t| format!("oltpgen_tpcc_{t}")).chain(["oltpgen_tpcc_procs_version".into()])
            {
                assert!(on_pg.contains(&(Function, name.clone())), "{name} in {on_pg:?}");
            }
            let procedures: Vec<String> = tpcc.iter().map(|t| format!("oltpgen_{t}")).collect();
            let procedures: Vec<&str> = procedures.iter().map(String::as_str).collect();
            assert_eq!(dropped(&crate::tpcc::Tpcc, Engine::SqlServer), named(Procedure, &procedures));

            let sequences = named(Sequence, &["customers_customerid_seq", "orders_orderid_seq"]);
            let functions = [
                "restock_order",
                "oltpgen_login",
                "login",
                "new_customer",
                "browse_by_category",
                "browse_by_actor",
                "browse_by_title",
                "oltpgen_purchase",
                "purchase",
            ];
            let mut ds2_pg = [sequences.clone(), named(Function, &functions)].concat();
            let mut on_pg = dropped(&crate::ds2::Ds2, Engine::Postgres);
            // In any order: an earlier oltpgen's signatures are dropped before DS2's are created.
            on_pg.sort_by(|a, b| a.1.cmp(&b.1));
            ds2_pg.sort_by(|a, b| a.1.cmp(&b.1));
            assert_eq!(on_pg, ds2_pg);
            // PostgreSQL drops DS2's names (which a user's own functions may share) by their arguments:
            // the ones the load creates (listed after an earlier oltpgen's, which it drops first).
            let args = |name: &str| {
                created_objects(&crate::ds2::Ds2.finish(Engine::Postgres))
                    .into_iter()
                    .rfind(|o| o.name == name)
                    .and_then(|o| o.args)
            };
            assert_eq!(args("login").as_deref(), Some("(username_in text, password_in text)"));
            assert_eq!(args("restock_order").as_deref(), Some("()"));
            assert_eq!(args("customers_customerid_seq"), None, "a sequence has none");
            let legacy: Vec<Object> = created_objects(&crate::ds2::Ds2.finish(Engine::Postgres))
                .into_iter()
                .filter(|o| o.name == "purchase")
                .collect();
            assert!(
                legacy.iter().any(|o| o.args.as_deref() == Some("(int4, int4[], int4[])")),
                "an earlier oltpgen's purchase, which the load drops, is dropped too: {legacy:?}"
            );
            let purchase = args("purchase").expect("purchase's arguments");
            assert!(purchase.starts_with("(customerid_in int4,") && purchase.ends_with(')'), "{purchase}");
            let procedures = [
                "NEW_CUSTOMER",
                "LOGIN",
                "OLTPGEN_LOGIN",
                "BROWSE_BY_CATEGORY",
                "BROWSE_BY_ACTOR",
                "BROWSE_BY_TITLE",
                "PURCHASE",
            ];
            let ds2_mssql =
                [sequences, named(FullTextCatalog, &["ds2_fulltext"]), named(Procedure, &procedures)]
                    .concat();
            assert_eq!(dropped(&crate::ds2::Ds2, Engine::SqlServer), ds2_mssql);
        }
    }

    #[test]
    fn parts_take_contiguous_warehouse_ranges_and_part_0_the_items() {
        let data = TpccData::new(TpccParams::new(4, 1));
        let chunks = data.chunks();
        let parts = parts_of(&data, &chunks, 2);
        for (c, part) in chunks.iter().zip(&parts) {
            match c.table {
                Table::Item => assert_eq!(*part, 0, "{c:?}"),
                Table::Warehouse | Table::District => assert!(*part < 2, "{c:?}"),
                _ => assert_eq!(*part, u32::from(c.warehouse > 2), "{c:?}"),
            }
        }
        let ds2 = oltpgen_datagen::ds2::rows::Ds2Data::new(oltpgen_datagen::ds2::rows::Ds2Params {
            size: "1GB".parse().unwrap(),
            seed: 1,
        });
        let chunks = ds2.chunks();
        let parts = parts_of(&ds2, &chunks, 3);
        for (c, part) in chunks.iter().zip(&parts) {
            let table = ds2.table_of(*c).name;
            if ["products", "inventory", "categories"].contains(&table) {
                assert_eq!(*part, 0, "{c:?}");
            }
        }
        let customers: Vec<u32> = chunks
            .iter()
            .zip(&parts)
            .filter(|(c, _)| ds2.table_of(**c).name == "customers")
            .map(|(_, p)| *p)
            .collect();
        assert!(customers.windows(2).all(|w| w[0] <= w[1]) && customers.contains(&2), "{customers:?}");
    }

    #[test]
    fn neighbouring_chunks_go_to_different_tables_and_none_is_lost() {
        let data = TpccData::new(TpccParams::new(3, 1));
        let chunks: Vec<_> = data.chunks().into_iter().enumerate().map(|(i, c)| (i as u32, c)).collect();
        let mixed = interleave(&data, chunks.clone());
        assert_eq!(mixed.len(), chunks.len());
        for c in &chunks {
            assert!(mixed.contains(c));
        }
        let same = mixed.windows(2).filter(|w| w[0].1.table == w[1].1.table).count();
        // Only the tail of the biggest table, once the others ran out, may follow itself.
        assert!(same * 10 < mixed.len(), "{same} of {} neighbours share a table", mixed.len());
        let big = mixed.iter().take(4).map(|(_, c)| c.table).collect::<Vec<_>>();
        assert!(big.contains(&Table::OrderLine) && big.contains(&Table::Stock), "{big:?}");
    }
}
