//! The engine-neutral half of a bulk load: chunks generated on threads a little ahead of the
//! connections that send them, the first error stopping the rest. Each engine says only how one
//! connection opens and sends a chunk (`oltpgen_pg::bulk`, `oltpgen_mssql::bulk`). Below the engines,
//! which share it, and below the seam, whose statements side by side stop alike ([`first_error`]).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Mutex, mpsc};

use crate::error::Error;

/// The generated chunks waiting for a connection, shared by a load's connections.
pub struct Queue<E>(Arc<Mutex<mpsc::Receiver<E>>>);

impl<E> Queue<E> {
    /// The next generated chunk; `None` once every chunk was taken.
    pub async fn next(&self) -> Option<E> {
        self.0.lock().await.recv().await
    }
}

/// Generates every chunk with `generate` on `connections` threads and runs `connection` once per
/// connection, each taking generated chunks from its [`Queue`] until it is empty. Generation runs
/// ahead of the connections by at most two chunks each, so memory stays bounded.
///
/// # Errors
/// The first error of any connection; the others stop at their next chunk.
pub async fn send<C, E, G, S, F>(
    connections: usize,
    chunks: Vec<C>,
    generate: G,
    connection: S,
) -> Result<(), Error>
where
    C: Send + Sync + 'static,
    E: Send + 'static,
    G: Fn(&C) -> E + Send + Sync + 'static,
    S: Fn(Queue<E>) -> F,
    F: Future<Output = Result<(), Error>> + Send + 'static,
{
    let connections = connections.max(1);
    let (tx, rx) = mpsc::channel::<E>(connections * 2);
    let (chunks, generate, next) = (Arc::new(chunks), Arc::new(generate), Arc::new(AtomicUsize::new(0)));
    let mut producers = Vec::new();
    for _ in 0..connections {
        let (tx, chunks, generate, next) = (tx.clone(), chunks.clone(), generate.clone(), next.clone());
        producers.push(tokio::task::spawn_blocking(move || {
            while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                if tx.blocking_send(generate(chunk)).is_err() {
                    break; // the connections stopped on an error
                }
            }
        }));
    }
    drop(tx);
    let rx = Arc::new(Mutex::new(rx));
    let mut consumers = tokio::task::JoinSet::new();
    for _ in 0..connections {
        consumers.spawn(connection(Queue(rx.clone())));
    }
    let result = first_error(&mut consumers).await;
    // Dropping the connections and our handle drops the receiver, which stops producers blocked on a
    // full channel.
    drop(consumers);
    drop(rx);
    for p in producers {
        let _ = p.await;
    }
    result
}

/// Waits for every task of a load; on the first error, cancels the rest and returns it.
///
/// # Errors
/// The first task's error (a task that panicked or was cancelled counts as [`Error::Failed`]).
pub async fn first_error(tasks: &mut tokio::task::JoinSet<Result<(), Error>>) -> Result<(), Error> {
    while let Some(joined) = tasks.join_next().await {
        let outcome = joined.unwrap_or_else(|e| Err(Error::failed(format!("a load task died: {e}"))));
        if let Err(e) = outcome {
            tasks.abort_all();
            return Err(e);
        }
    }
    Ok(())
}
