//! A connection whose I/O runs inside the task that queries it, as libpq's runs on its caller's thread.
//!
//! [`connect`](super::connect) spawns a connection's I/O half as a task of its own: each query then
//! wakes that task to write it and, when the answer comes, that task wakes the querying one. For a
//! stream of short queries (pgbench's `select-only`) that hand-over is a good part of the client's cost.
//! [`Inline`] keeps the I/O half beside the client and polls it from each query's own future
//! ([`Inline::drive`]): the query's request is written in the poll that made it, and the answer is read
//! and taken in the poll the socket woke. Between queries nothing polls it; what the server said
//! meanwhile (a notice, its going away) is read with the next query, which then fails as it would have.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Mutex;
use std::task::{Context, Poll};

use super::{Client, Io};
use oltpgen_vocab::{Error, Target};

/// A client and its connection's I/O half, polled by the futures of the queries that
/// [`drive`](Inline::drive) runs.
pub struct Inline {
    client: Client,
    /// The I/O half; `None` once it ended (the server closed the connection, or a read or write failed).
    /// Locked only within one poll, never across an await: the session is one user's at a time.
    io: Mutex<Option<Io>>,
}

impl Inline {
    /// Opens a connection to `target` whose I/O runs in the futures that use it.
    ///
    /// # Errors
    /// As [`connect`](super::connect).
    pub async fn connect(target: &Target) -> Result<Inline, Error> {
        let (client, io) = super::open(target).await?;
        Ok(Inline { client, io: Mutex::new(Some(io)) })
    }

    /// The client, to make a query's future with; run that future through [`drive`](Self::drive).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Runs `query` (a future of [`client`](Self::client)'s) to its end, polling the connection's I/O
    /// in the same task: the query first (it hands its request over), then the I/O (it writes what was
    /// handed over and reads what came back), then the query again (it takes its answer).
    pub async fn drive<T>(&self, query: impl Future<Output = T>) -> T {
        let mut query = pin!(query);
        std::future::poll_fn(|cx| {
            if let Poll::Ready(done) = query.as_mut().poll(cx) {
                return Poll::Ready(done);
            }
            self.poll_io(cx);
            query.as_mut().poll(cx)
        })
        .await
    }

    /// Polls the I/O half once; when it ends, drops it, so that the requests in flight end with the
    /// connection closed (as a spawned I/O task's end drops them) and the client says it is closed.
    fn poll_io(&self, cx: &mut Context<'_>) {
        let mut io = self.io.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(running) = io.as_mut()
            && Pin::new(running).poll(cx).is_ready()
        {
            *io = None;
        }
    }

    /// Whether the connection is gone: its I/O half ended, or reading what the server sent since the
    /// last query ends it now (the server closed it).
    pub fn is_closed(&self) -> bool {
        self.poll_io(&mut Context::from_waker(std::task::Waker::noop()));
        self.client.is_closed()
    }
}

impl Drop for Inline {
    /// Hands the I/O half to the runtime, when there is one, so that it tells the server goodbye
    /// (PostgreSQL's Terminate) once the client is gone, as a spawned I/O task does; else it just closes.
    fn drop(&mut self) {
        let io = self.io.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let (Some(io), Ok(runtime)) = (io, tokio::runtime::Handle::try_current()) {
            drop(runtime.spawn(async move {
                let _ = io.await;
            }));
        }
    }
}
