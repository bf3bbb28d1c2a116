//! A load's two side-by-side phases on the target's engine: the rows, generated on threads and
//! bulk-loaded over many connections in the engine's own way, and then statements (keys, indexes,
//! statistics) over many connections.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use oltpgen_datagen::schema::Dataset;

use super::Conn;
use crate::{Error, Target};
use oltpgen_vocab::chunks::first_error;

/// Generates `chunks` of `data` (each numbered by its place in [`Dataset::chunks`]) on `workers`
/// threads and bulk-loads them over `workers` connections, calling `progress` with the rows of each
/// chunk the server accepted. With `marks` (a workload's name), each chunk's rows commit with its
/// done-mark in the load record, on every engine: PostgreSQL's COPY, MySQL's `LOAD DATA` (InnoDB's is
/// transactional, each chunk its own statement then) and SQL Server's TDS bulk insert (inside the
/// connection's `BEGIN TRANSACTION`) each run in a transaction with the mark, so that a cut load
/// resumes (`--resume`) and a load goes in parts.
///
/// # Errors
/// The first error of any connection.
pub async fn bulk_load<D: Dataset>(
    target: &Target,
    workers: usize,
    data: Arc<D>,
    chunks: Vec<(u32, D::Chunk)>,
    marks: Option<&str>,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error> {
    let marks = marks.map(str::to_string);
    each_engine!(target.engine(), m => m::bulk::load_marked(target, workers, data, chunks, marks, progress).await)
}

/// Runs `statements` over `connections` connections, in the order given, calling `done` after each.
///
/// # Errors
/// The first statement that fails.
pub async fn run_statements(
    target: &Target,
    connections: usize,
    statements: Vec<String>,
    done: impl Fn(&str) + Send + Sync + 'static,
) -> Result<(), Error> {
    let (statements, next, done) = (Arc::new(statements), Arc::new(AtomicUsize::new(0)), Arc::new(done));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..connections.clamp(1, statements.len().max(1)) {
        let (target, statements, next, done) =
            (target.clone(), statements.clone(), next.clone(), done.clone());
        tasks.spawn(async move {
            let conn = Conn::open(&target).await?;
            while let Some(sql) = statements.get(next.fetch_add(1, Ordering::Relaxed)) {
                conn.batch(&target, sql, std::slice::from_ref(sql)).await?;
                done(sql);
            }
            Ok(())
        });
    }
    first_error(&mut tasks).await
}
