//! PostgreSQL's side of a load, shared by the workloads: many chunks generated on threads and streamed
//! over several connections, then many statements (keys, indexes, ANALYZE) run side by side.

use std::sync::Arc;

use bytes::Bytes;
use oltpgen_datagen::encode::PgBinaryCopy;
use oltpgen_datagen::schema::Dataset;

use oltpgen_vocab::chunks::{self, Queue};
use oltpgen_vocab::{Error, Target};

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
/// connections (see [`chunks::send`]), calling `progress` with the rows of each chunk the server
/// accepted.
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
    let progress = Arc::new(progress);
    chunks::send(workers, chunks, generate, |queue: Queue<Encoded>| {
        let (target, progress) = (target.clone(), progress.clone());
        async move {
            let client = super::connect(&target).await?;
            // A load that dies is detected by its metadata, not by durability of each chunk: no need to
            // wait for the WAL flush of every COPY.
            client
                .batch_execute("SET synchronous_commit = off")
                .await
                .map_err(|e| super::failed("setting up a load connection", &target, &e))?;
            while let Some(e) = queue.next().await {
                super::copy::copy_binary(&client, &target, e.table, &e.columns, e.data).await?;
                progress(e.rows);
            }
            Ok(())
        }
    })
    .await
}
