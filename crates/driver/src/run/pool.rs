//! Where a user gets its connection: its own (the default), or a shared pool when `--connections` is
//! below `--users`. Waiting for a pooled connection happens after the transaction's intended start, so
//! the wait is part of its response time.

use std::sync::Mutex;

use tokio::sync::{Semaphore, SemaphorePermit};

/// A fixed number of sessions shared by many users; sessions are opened on first need and reopened
/// after a connection is lost.
pub struct Pool<S> {
    idle: Mutex<Vec<S>>,
    permits: Semaphore,
}

/// A session slot borrowed from a [`Pool`]: empty when the slot's connection is not open (yet, or any
/// more); what it holds goes back to the pool when the lease drops.
pub struct Lease<'a, S> {
    pool: &'a Pool<S>,
    /// The borrowed session; set it after connecting, clear it when the connection is lost.
    pub session: Option<S>,
    _permit: SemaphorePermit<'a>,
}

impl<S> Pool<S> {
    /// A pool of `size` slots.
    pub fn new(size: u32) -> Self {
        Pool { idle: Mutex::new(Vec::new()), permits: Semaphore::new(size as usize) }
    }

    /// Waits for a free slot.
    pub async fn acquire(&self) -> Lease<'_, S> {
        let permit = self.permits.acquire().await.expect("the pool's semaphore is never closed");
        let session = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        Lease { pool: self, session, _permit: permit }
    }
}

impl<S> Drop for Lease<'_, S> {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            self.pool.idle.lock().unwrap_or_else(|p| p.into_inner()).push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sessions_are_reused_and_slots_bounded() {
        let pool = Pool::<u32>::new(2);
        let mut a = pool.acquire().await;
        assert!(a.session.is_none(), "opened on first need");
        a.session = Some(7);
        let b = pool.acquire().await;
        let third = tokio::time::timeout(std::time::Duration::from_millis(20), pool.acquire()).await;
        assert!(third.is_err(), "two slots, two leases");
        drop(a);
        drop(b);
        assert_eq!(pool.acquire().await.session, Some(7));
    }
}
