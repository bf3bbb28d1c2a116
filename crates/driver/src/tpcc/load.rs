//! Loading TPC-C: into a database with binary COPY over several connections, or into CSV files.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use oltpgen_datagen::encode::PgBinaryCopy;
use oltpgen_datagen::tpcc::rows::{Chunk, TpccData, TpccParams};
use oltpgen_datagen::tpcc::schema::{ColumnType, SECONDARY_INDEXES, Table};

use super::{LoadedParams, WORKLOAD, holding, table_names};
use crate::inventory::Holding;
use crate::pg::bulk::{self, Encoded};
use crate::pg::meta::{self, MetaRow};
use crate::pg::{self, schema};
use crate::progress::Progress;
use crate::{Error, Target};

/// What a load is asked to do.
#[derive(Clone, Copy, Debug)]
pub struct LoadOptions {
    /// Warehouses.
    pub scale: u32,
    /// The data's seed: the same seed and scale give the same rows on any machine.
    pub seed: u64,
    /// Connections (and generating threads) working at once.
    pub workers: usize,
    /// Drop and reload a database that already holds TPC-C (or a half-finished load).
    pub replace: bool,
    /// No progress bar.
    pub quiet: bool,
}

/// How a load went, for the line the command prints and for BENCHMARKS.md.
#[derive(Clone, Copy, Debug)]
pub struct LoadSummary {
    /// Rows written.
    pub rows: u64,
    /// Generating and copying the rows.
    pub copy: Duration,
    /// Building keys and indexes, then ANALYZE.
    pub indexes: Duration,
    /// Everything, from the first connection to the recorded completion.
    pub total: Duration,
}

/// Loads TPC-C at `opts.scale` into `target`.
///
/// The load records itself as "loading" before it writes a row and as "complete" after ANALYZE, so a load
/// that dies (or is interrupted) is recognised later by every command.
///
/// # Errors
/// [`Error::Usage`] when the database already holds TPC-C (without `replace`) or foreign tables of the same
/// names; [`Error::Failed`] when the server fails part-way.
pub async fn load(target: &Target, opts: &LoadOptions) -> Result<LoadSummary, Error> {
    let start = Instant::now();
    let client = pg::connect(target).await?;
    let tables = table_names();
    match holding(&client, target).await? {
        Holding::Empty => {}
        Holding::Foreign(found) => {
            return Err(Error::usage(format!(
                "{target} holds tables oltpgen did not load ({}): drop them yourself or load into another database",
                found.join(", ")
            )));
        }
        Holding::Loaded(row) if !opts.replace => {
            let scale = row.params.get("scale").and_then(|s| s.as_u64()).unwrap_or(0);
            return Err(Error::usage(format!(
                "{target} already holds a tpcc database (scale {scale}): pass --replace to load it again"
            )));
        }
        Holding::Partial(why) if !opts.replace => {
            return Err(Error::usage(format!("{why}: pass --replace to load it again")));
        }
        Holding::Loaded(_) | Holding::Partial(_) => {
            schema::drop_tables(&client, target, &tables).await?;
        }
    }

    let data = TpccData::new(TpccParams::new(opts.scale, opts.seed));
    let c = data.params().c;
    let params = LoadedParams {
        scale: opts.scale,
        seed: opts.seed,
        c_last: c.c_last,
        c_id: c.c_id,
        ol_i_id: c.ol_i_id,
        runs: 0,
    };
    record(&client, target, meta::LOADING, &params).await?;
    let ddl: Vec<String> = Table::ALL.iter().map(|&t| schema::create_table(t)).collect();
    client
        .batch_execute(&ddl.join(";\n"))
        .await
        .map_err(|e| pg::failed("creating the tpcc tables", target, &e))?;

    let total_rows = data.total_rows();
    let bar = Progress::new("loading", total_rows, "rows", opts.quiet);
    let data = Arc::new(data);
    let chunks = interleave(data.chunks(), |c| data.rows_in(c) * row_bytes(c.table));
    let generator = data.clone();
    let advance = bar.clone();
    bulk::copy_chunks(
        target,
        opts.workers,
        opts.workers,
        chunks,
        move |&chunk| {
            let mut out = PgBinaryCopy::with_capacity(1 << 20);
            generator.write(chunk, &mut out);
            let rows = out.rows();
            Encoded {
                table: chunk.table.name(),
                columns: chunk.table.columns().iter().map(|c| c.name).collect(),
                data: Bytes::from(out.finish()),
                rows,
            }
        },
        move |rows| advance.advance(rows),
    )
    .await?;
    bar.finish();
    let copied = start.elapsed();

    let keys = index_statements(&data);
    let bar = Progress::new("indexing", keys.len() as u64, "steps", opts.quiet);
    let advance = bar.clone();
    bulk::run_statements(target, opts.workers, keys, move |_| advance.advance(1)).await?;
    let analyze = Table::ALL.iter().map(|t| format!("ANALYZE {}", t.name())).collect();
    bar.phase("analyzing");
    bulk::run_statements(target, opts.workers, analyze, |_| {}).await?;
    bar.finish();

    record(&client, target, meta::COMPLETE, &params).await?;
    Ok(LoadSummary {
        rows: total_rows,
        copy: copied,
        indexes: start.elapsed() - copied,
        total: start.elapsed(),
    })
}

/// Orders chunks so that connections working side by side copy into different tables, largest remaining
/// work first: concurrent COPYs into one table queue on its relation extension lock.
fn interleave(chunks: Vec<Chunk>, weight: impl Fn(Chunk) -> u64) -> Vec<Chunk> {
    let mut queues: Vec<(u64, std::collections::VecDeque<Chunk>)> = Vec::new();
    for c in chunks {
        match queues.iter_mut().find(|(_, q)| q.front().is_some_and(|f| f.table == c.table)) {
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

/// A rough width of a row on the wire, to weigh tables against each other.
fn row_bytes(table: Table) -> u64 {
    table
        .columns()
        .iter()
        .map(|c| match c.ty {
            ColumnType::Int4 => 8,
            ColumnType::Numeric { .. } | ColumnType::Timestamp => 12,
            ColumnType::Char(n) | ColumnType::Varchar(n) => 4 + u64::from(n),
        })
        .sum()
}

/// Keys and secondary indexes, biggest table first so the longest build starts at once.
fn index_statements(data: &TpccData) -> Vec<String> {
    let rows_of =
        |t: Table| -> u64 { data.chunks().iter().filter(|c| c.table == t).map(|&c| data.rows_in(c)).sum() };
    let mut by_size: Vec<(u64, String)> = Table::ALL
        .iter()
        .filter_map(|&t| schema::primary_key(t).map(|sql| (rows_of(t), sql)))
        .chain(SECONDARY_INDEXES.iter().map(|i| (rows_of(i.table), schema::create_index(i))))
        .collect();
    by_size.sort_by_key(|(rows, _)| std::cmp::Reverse(*rows));
    by_size.into_iter().map(|(_, sql)| sql).collect()
}

async fn record(
    client: &tokio_postgres::Client,
    target: &Target,
    state: &str,
    params: &LoadedParams,
) -> Result<(), Error> {
    let row = MetaRow {
        state: state.to_string(),
        params: serde_json::to_value(params).expect("load parameters serialize"),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    meta::write(client, target, WORKLOAD, &row).await
}

/// Drops the TPC-C tables and their metadata from `target`; false when there was nothing to drop.
///
/// # Errors
/// [`Error::Usage`] when the tables of those names were not loaded by oltpgen (they are left alone).
pub async fn drop_all(target: &Target) -> Result<bool, Error> {
    let client = pg::connect(target).await?;
    match holding(&client, target).await? {
        Holding::Empty => Ok(false),
        Holding::Foreign(found) => Err(Error::usage(format!(
            "{target} holds tables oltpgen did not load ({}): left alone; drop them yourself",
            found.join(", ")
        ))),
        Holding::Loaded(_) | Holding::Partial(_) => {
            schema::drop_tables(&client, target, &table_names()).await?;
            meta::remove(&client, target, WORKLOAD).await?;
            Ok(true)
        }
    }
}

/// Writes the rows `load` would load as one CSV file per table in `dir` (`<table>.csv`), for
/// PostgreSQL's `COPY … (FORMAT csv)` or any other engine's bulk loader. Returns the rows written.
///
/// # Errors
/// [`Error::Usage`] when `dir` already holds TPC-C CSV files (without `replace`) or cannot be written.
pub async fn write_csv(dir: &Path, opts: &LoadOptions) -> Result<u64, Error> {
    let existing: Vec<String> =
        Table::ALL.iter().map(|t| format!("{}.csv", t.name())).filter(|f| dir.join(f).exists()).collect();
    if !existing.is_empty() && !opts.replace {
        return Err(Error::usage(format!(
            "{} already holds {}: pass --replace to overwrite them",
            dir.display(),
            existing.join(", ")
        )));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::usage(format!("--csv: cannot create {}: {e}", dir.display())))?;
    let data = TpccData::new(TpccParams::new(opts.scale, opts.seed));
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
    use super::*;

    #[test]
    fn neighbouring_chunks_go_to_different_tables_and_none_is_lost() {
        let data = TpccData::new(TpccParams::new(3, 1));
        let chunks = data.chunks();
        let weight = |c: Chunk| data.rows_in(c) * row_bytes(c.table);
        let mixed = interleave(chunks.clone(), weight);
        assert_eq!(mixed.len(), chunks.len());
        for c in &chunks {
            assert!(mixed.contains(c));
        }
        let same = mixed.windows(2).filter(|w| w[0].table == w[1].table).count();
        // Only the tail of the biggest table, once the others ran out, may follow itself.
        assert!(same * 10 < mixed.len(), "{same} of {} neighbours share a table", mixed.len());
        let big = mixed.iter().take(4).map(|c| c.table).collect::<Vec<_>>();
        assert!(big.contains(&Table::OrderLine) && big.contains(&Table::Stock), "{big:?}");
    }
}
