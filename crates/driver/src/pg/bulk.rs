//! PostgreSQL's side of a load, shared by the workloads: many chunks generated on threads and streamed
//! over several connections, then many statements (keys, indexes, ANALYZE) run side by side.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use oltpgen_datagen::encode::PgBinaryCopy;
use oltpgen_datagen::schema::Dataset;
use tokio::sync::Mutex;

use crate::{Error, Target};

/// One generated chunk on its way to the server.
pub struct Encoded {
    /// The table it goes into.
    pub table: &'static str,
    /// The columns, in the order the rows hold them.
    pub columns: Vec<&'static str>,
    /// A complete binary COPY stream.
    pub data: Bytes,
    /// Rows in `data`, for progress.
    pub rows: u64,
}

/// Generates `chunks` of `data` as binary COPY on `workers` threads and COPYs them over `workers`
/// connections (see [`copy_chunks`]).
///
/// # Errors
/// The first error of any connection.
pub async fn load_chunks<D: Dataset>(
    target: &Target,
    workers: usize,
    data: Arc<D>,
    chunks: Vec<D::Chunk>,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error> {
    let generate = move |&chunk: &D::Chunk| {
        let mut out = PgBinaryCopy::with_capacity(1 << 20);
        data.write(chunk, &mut out);
        let rows = out.rows();
        let table = data.table_of(chunk);
        Encoded { table: table.name, columns: table.column_names(), data: Bytes::from(out.finish()), rows }
    };
    copy_chunks(target, workers, workers, chunks, generate, progress).await
}

/// Generates every chunk with `generate` on `threads` threads, and COPYs them over `connections`
/// connections, calling `progress` with the rows of each chunk the server accepted.
///
/// Generation runs ahead of the server by at most two chunks per connection, so memory stays bounded.
///
/// # Errors
/// The first error of any connection; the other connections stop at their next chunk.
pub async fn copy_chunks<C, G>(
    target: &Target,
    connections: usize,
    threads: usize,
    chunks: Vec<C>,
    generate: G,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error>
where
    C: Send + Sync + 'static,
    G: Fn(&C) -> Encoded + Send + Sync + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel::<Encoded>(connections * 2);
    let chunks = Arc::new(chunks);
    let generate = Arc::new(generate);
    let next = Arc::new(AtomicUsize::new(0));
    let mut producers = Vec::new();
    for _ in 0..threads.max(1) {
        let (tx, chunks, generate, next) = (tx.clone(), chunks.clone(), generate.clone(), next.clone());
        producers.push(tokio::task::spawn_blocking(move || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(chunk) = chunks.get(i) else { break };
                if tx.blocking_send(generate(chunk)).is_err() {
                    break; // the consumers stopped on an error
                }
            }
        }));
    }
    drop(tx);
    let rx = Arc::new(Mutex::new(rx));
    let progress = Arc::new(progress);
    let mut consumers = tokio::task::JoinSet::new();
    for _ in 0..connections.max(1) {
        let (rx, target, progress) = (rx.clone(), target.clone(), progress.clone());
        consumers.spawn(async move {
            let client = super::connect(&target).await?;
            // A load that dies is detected by its metadata, not by durability of each chunk: no need to
            // wait for the WAL flush of every COPY.
            client
                .batch_execute("SET synchronous_commit = off")
                .await
                .map_err(|e| super::failed("setting up a load connection", &target, &e))?;
            loop {
                let Some(e) = rx.lock().await.recv().await else { return Ok(()) };
                super::copy::copy_binary(&client, &target, e.table, &e.columns, e.data).await?;
                progress(e.rows);
            }
        });
    }
    let result = crate::engine::first_error(&mut consumers).await;
    // Dropping the consumers and our handle drops the receiver, which stops producers blocked on a full channel.
    drop(consumers);
    drop(rx);
    for p in producers {
        let _ = p.await;
    }
    result
}
