//! MySQL's side of a load, shared by the workloads: each table's chunks generated as CSV on a thread
//! and streamed into one `LOAD DATA LOCAL INFILE` of the table, several tables at once over several
//! connections, the "file" being oltpgen's own buffers handed to the driver (no file is written), with
//! `unique_checks` and `foreign_key_checks` off for the session (the primary key is still built as the
//! rows arrive).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use oltpgen_datagen::encode::{Csv, RowEncoder};
use oltpgen_datagen::schema::{Dataset, TableDef};
use tokio::sync::mpsc;

use super::{ADMIN_TIMEOUT, failed, timed};
use oltpgen_vocab::chunks;
use oltpgen_vocab::{Error, Target};

/// CSV as `LOAD DATA … FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY ''` reads it:
/// datagen's [`Csv`], but NULL written as the bare word `NULL` (which the server reads as NULL when
/// fields may be enclosed; an empty field would be an empty string, or 0 in a number column). A text
/// field holding exactly `NULL` would load as NULL: the generators never write one.
pub struct LoadDataCsv(Csv);

impl LoadDataCsv {
    /// An empty buffer.
    pub fn new() -> Self {
        LoadDataCsv(Csv::new(Vec::new()))
    }

    /// The rows written.
    pub fn rows(&self) -> u64 {
        self.0.rows()
    }

    /// The bytes written.
    pub fn into_inner(self) -> Vec<u8> {
        self.0.into_inner()
    }
}

impl Default for LoadDataCsv {
    fn default() -> Self {
        LoadDataCsv::new()
    }
}

impl RowEncoder for LoadDataCsv {
    fn begin_row(&mut self, columns: u16) {
        self.0.begin_row(columns);
    }

    fn int4(&mut self, v: i32) {
        self.0.int4(v);
    }

    fn int8(&mut self, v: i64) {
        self.0.int8(v);
    }

    fn numeric(&mut self, unscaled: i64, scale: u8) {
        self.0.numeric(unscaled, scale);
    }

    fn text(&mut self, v: &[u8]) {
        self.0.text(v);
    }

    fn timestamp_us(&mut self, unix_us: i64) {
        self.0.timestamp_us(unix_us);
    }

    fn date(&mut self, unix_days: i32) {
        self.0.date(unix_days);
    }

    fn null(&mut self) {
        self.0.text(b"NULL");
    }

    fn end_row(&mut self) {
        self.0.end_row();
    }
}

/// The `LOAD DATA` statement that reads [`LoadDataCsv`]'s rows into `table`.
pub fn load_statement(table: &TableDef) -> String {
    let columns: Vec<&str> = table.columns.iter().map(|c| c.name).collect();
    format!(
        "LOAD DATA LOCAL INFILE 'oltpgen-stream' INTO TABLE {} CHARACTER SET utf8mb4 \
         FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' LINES TERMINATED BY '\\n' ({})",
        table.name,
        columns.join(", ")
    )
}

/// The load session's settings: the generator's keys are unique by construction and the workloads'
/// tables have no foreign keys, so neither is checked while the rows arrive (and MariaDB, seeing both
/// off and the table empty, may load it in bulk, without undo logging).
const LOAD_SESSION: &str = "SET SESSION unique_checks = 0, foreign_key_checks = 0";

/// Loads `chunks` of `data` (each numbered by its place in the dataset's chunks) over `workers`
/// connections, one table at a time on each: a table's chunks, generated in key order on a thread of
/// the connection's own, stream into one `LOAD DATA` of the whole table, as the server's own `LOAD
/// DATA INFILE` of a table's CSV file does. Two connections thus never insert into one table's
/// clustered index at once (InnoDB appends in key order, splitting no page in the middle). Tables go
/// biggest first, as `chunks` lists them. `progress` hears the rows of each chunk as it is handed to
/// the server. With `workload`, each chunk is a `LOAD DATA` of its own in a transaction with its
/// done-mark in `oltpgen_chunks` ([`meta::MARK`](super::meta::MARK)): InnoDB's `LOAD DATA` is
/// transactional, so a load cut at any moment holds exactly the rows of the chunks marked done (the
/// server rolls back the cut chunk when its connection goes).
///
/// # Errors
/// The first error of any connection (a server that refuses `LOCAL INFILE` says how to allow it); the
/// others are stopped.
pub async fn load_marked<D: Dataset>(
    target: &Target,
    workers: usize,
    data: Arc<D>,
    chunks: Vec<(u32, D::Chunk)>,
    workload: Option<String>,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error> {
    let mut tables: Vec<(&'static TableDef, Vec<Numbered<D>>)> = Vec::new();
    for numbered in chunks {
        let table = data.table_of(numbered.1);
        match tables.iter_mut().find(|(t, _)| std::ptr::eq(*t, table)) {
            Some((_, of_table)) => of_table.push(numbered),
            None => tables.push((table, vec![numbered])),
        }
    }
    let (tables, next, progress) = (Arc::new(tables), Arc::new(AtomicUsize::new(0)), Arc::new(progress));
    let workload = Arc::new(workload);
    let mut connections = tokio::task::JoinSet::new();
    for _ in 0..workers.clamp(1, tables.len().max(1)) {
        let (target, data, tables, next, progress, workload) =
            (target.clone(), data.clone(), tables.clone(), next.clone(), progress.clone(), workload.clone());
        connections.spawn(async move {
            let mut conn = super::connect(&target).await?;
            timed(ADMIN_TIMEOUT, conn.query_drop(LOAD_SESSION))
                .await
                .map_err(|e| failed("preparing the load's session", &target, &e))?;
            while let Some((table, chunks)) = tables.get(next.fetch_add(1, Ordering::Relaxed)) {
                let rows = generated(data.clone(), chunks.clone());
                match workload.as_deref() {
                    None => load_table(&mut conn, &target, table, rows, progress.clone()).await?,
                    Some(workload) => {
                        load_table_marked(&mut conn, &target, table, rows, workload, &*progress).await?;
                    }
                }
            }
            Ok(())
        });
    }
    chunks::first_error(&mut connections).await
}

/// A chunk and its place in [`Dataset::chunks`], which names its done-mark.
type Numbered<D> = (u32, <D as Dataset>::Chunk);

/// The rows of a table's chunks as they are generated ([`generated`]): the chunk's number, its rows
/// and its CSV.
type Generated = mpsc::Receiver<(u32, u64, Bytes)>;

/// Streams every chunk of `rows` into one `LOAD DATA` of `table`.
async fn load_table(
    conn: &mut mysql_async::Conn,
    target: &Target,
    table: &TableDef,
    rows: Generated,
    progress: Arc<impl Fn(u64) + Send + Sync + 'static>,
) -> Result<(), Error> {
    conn.set_infile_handler(async move {
        let sent = futures_util::stream::unfold(rows, move |mut rows| {
            let progress = progress.clone();
            async move {
                let (_, n, csv) = rows.recv().await?;
                progress(n);
                Some((Ok(csv), rows))
            }
        });
        Ok(sent.boxed())
    });
    timed(ADMIN_TIMEOUT, conn.query_drop(load_statement(table)))
        .await
        .map_err(|e| load_error(target, table, &e))
}

/// Loads each chunk of `rows` into `table` by a `LOAD DATA` of its own, committed with its done-mark.
///
/// The mark goes in with both checks back on ([`MARK_SESSION`]): with them off, MariaDB inserts into an
/// empty table in bulk, which takes the table's exclusive lock on top of the intention lock every insert
/// holds, and two connections marking their first chunks at once each waited for the other's intention
/// lock (a deadlock, which failed CI's load once). The same race remains where two loads in parts meet
/// an empty table of rows, so a chunk the server rolls back as a deadlock victim is sent again, up to
/// [`DEADLOCK_TRIES`] times.
async fn load_table_marked(
    conn: &mut mysql_async::Conn,
    target: &Target,
    table: &TableDef,
    mut rows: Generated,
    workload: &str,
    progress: &(impl Fn(u64) + Send + Sync + 'static),
) -> Result<(), Error> {
    while let Some((number, n, csv)) = rows.recv().await {
        let mut tries = 1;
        while let Err(e) = load_chunk_marked(conn, target, table, (number, csv.clone()), workload).await {
            match e {
                ChunkError::Deadlock(_) if tries < DEADLOCK_TRIES => {
                    // The victim may have been the mark, after the checks came back on.
                    timed(ADMIN_TIMEOUT, conn.query_drop(LOAD_SESSION))
                        .await
                        .map_err(|e| failed("preparing the load's session", target, &e))?;
                    tries += 1;
                }
                ChunkError::Deadlock(e) | ChunkError::Other(e) => return Err(e),
            }
        }
        progress(n);
    }
    Ok(())
}

/// The session's settings while a chunk's done-mark goes in: both checks on, so that MariaDB never
/// inserts into the (at first empty) mark table in bulk ([`load_table_marked`] says why).
const MARK_SESSION: &str = "SET SESSION unique_checks = 1, foreign_key_checks = 1";

/// How many times a chunk is sent when the server rolls it back as a deadlock's victim.
const DEADLOCK_TRIES: u32 = 10;

/// Why a chunk did not commit: a deadlock (the server rolled the chunk back; it may be sent again) or
/// anything else.
enum ChunkError {
    Deadlock(Error),
    Other(Error),
}

/// One chunk (its number and CSV) loaded into `table` and marked done, in one transaction.
async fn load_chunk_marked(
    conn: &mut mysql_async::Conn,
    target: &Target,
    table: &TableDef,
    (number, csv): (u32, Bytes),
    workload: &str,
) -> Result<(), ChunkError> {
    let sorted = |e: &mysql_async::Error, error: Error| match e {
        mysql_async::Error::Server(s) if s.code == super::error::DEADLOCK => ChunkError::Deadlock(error),
        _ => ChunkError::Other(error),
    };
    timed(ADMIN_TIMEOUT, conn.query_drop("START TRANSACTION"))
        .await
        .map_err(|e| sorted(&e, failed("a load's chunk", target, &e)))?;
    conn.set_infile_handler(async move { Ok(futures_util::stream::once(async move { Ok(csv) }).boxed()) });
    timed(ADMIN_TIMEOUT, conn.query_drop(load_statement(table)))
        .await
        .map_err(|e| sorted(&e, load_error(target, table, &e)))?;
    let commit = async {
        conn.query_drop(MARK_SESSION).await?;
        conn.exec_drop(super::meta::MARK, (workload, number)).await?;
        conn.query_drop("COMMIT").await?;
        conn.query_drop(LOAD_SESSION).await
    };
    let committed = timed(ADMIN_TIMEOUT, commit).await;
    committed.map_err(|e| sorted(&e, failed("marking a chunk done in oltpgen_chunks", target, &e)))
}

/// `chunks` of `data` generated in order as [`LoadDataCsv`] on a thread of their own, each with its
/// number and row count, at most two ahead of the reader; the thread stops when the reader is dropped.
fn generated<D: Dataset>(data: Arc<D>, chunks: Vec<Numbered<D>>) -> Generated {
    let (tx, rx) = mpsc::channel(2);
    tokio::task::spawn_blocking(move || {
        for (number, chunk) in chunks {
            let mut out = LoadDataCsv::new();
            data.write(chunk, &mut out);
            if tx.blocking_send((number, out.rows(), Bytes::from(out.into_inner()))).is_err() {
                break; // the statement failed
            }
        }
    });
    rx
}

/// A failed `LOAD DATA` into `table` as one line; a server that refuses `LOCAL INFILE` says how to
/// allow it.
fn load_error(target: &Target, table: &TableDef, e: &mysql_async::Error) -> Error {
    match e {
        // 1148/3948/4166: LOCAL INFILE refused by the server's (or the build's) setting.
        mysql_async::Error::Server(s) if [1148, 3948, 4166].contains(&s.code) => Error::environment(format!(
            "{}: the server refuses LOAD DATA LOCAL INFILE ({}): allow it with SET GLOBAL local_infile = ON \
             (or local_infile=1 in the server's configuration)",
            target.label(),
            s.message
        )),
        _ => failed(&format!("LOAD DATA into {}", table.name), target, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_is_the_bare_word_and_text_stays_csv() {
        let mut out = LoadDataCsv::new();
        out.begin_row(4);
        out.int4(7);
        out.null();
        out.text(b"a,\"b\"");
        out.numeric(1234, 2);
        out.end_row();
        assert_eq!(out.rows(), 1);
        assert_eq!(String::from_utf8(out.into_inner()).unwrap(), "7,NULL,\"a,\"\"b\"\"\",12.34\n");
    }
}
