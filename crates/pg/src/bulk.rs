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

/// Generates `chunks` of `data` (each numbered by its place in the dataset's chunks) as binary COPY
/// on `workers` threads and COPYs them over `workers` connections (see [`chunks::send`]), calling
/// `progress` with the rows of each chunk the server accepted. With `workload`, each chunk's COPY and
/// its done-mark in `oltpgen_chunks` ([`meta::mark`](super::meta::mark)) commit together in one
/// transaction, so that a load cut at any moment holds exactly the rows of the chunks marked done.
///
/// # Errors
/// The first error of any connection.
pub async fn load_marked<D: Dataset>(
    target: &Target,
    workers: usize,
    data: Arc<D>,
    chunks: Vec<(u32, D::Chunk)>,
    workload: Option<String>,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error> {
    let generate = move |&(number, chunk): &(u32, D::Chunk)| {
        let mut out = PgBinaryCopy::with_capacity(1 << 20);
        data.write(chunk, &mut out);
        let rows = out.rows();
        let table = data.table_of(chunk);
        let e = Encoded {
            table: table.name,
            columns: table.column_names(),
            data: Bytes::from(out.finish()),
            rows,
        };
        (number, e)
    };
    let (progress, workload) = (Arc::new(progress), Arc::new(workload));
    chunks::send(workers, chunks, generate, |queue: Queue<(u32, Encoded)>| {
        let (target, progress, workload) = (target.clone(), progress.clone(), workload.clone());
        async move {
            let client = super::connect(&target).await?;
            // A load that dies is detected by its metadata (and resumed by its chunk marks, which
            // commit with their rows or not at all), not by durability of each chunk: no need to wait
            // for the WAL flush of every COPY.
            client
                .batch_execute("SET synchronous_commit = off")
                .await
                .map_err(|e| super::failed("setting up a load connection", &target, &e))?;
            let transaction = |sql: &'static str| {
                let (client, target) = (&client, &target);
                async move {
                    client.batch_execute(sql).await.map_err(|e| super::failed("a load's chunk", target, &e))
                }
            };
            while let Some((number, e)) = queue.next().await {
                let Some(workload) = workload.as_deref() else {
                    super::copy::copy_binary(&client, &target, e.table, &e.columns, e.data).await?;
                    progress(e.rows);
                    continue;
                };
                transaction("BEGIN").await?;
                super::copy::copy_binary(&client, &target, e.table, &e.columns, e.data).await?;
                super::meta::mark(&client, &target, workload, number).await?;
                transaction("COMMIT").await?;
                progress(e.rows);
            }
            Ok(())
        }
    })
    .await
}
