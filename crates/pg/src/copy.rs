//! Bulk loading through PostgreSQL's binary COPY.

use bytes::Bytes;
use futures_util::SinkExt;
use tokio_postgres::Client;

use super::failed;
use oltpgen_vocab::{Error, Target};

/// Sends one complete binary COPY stream (header, rows, trailer) into `table`'s `columns`.
///
/// # Errors
/// [`Error::Failed`] when the server rejects the data or the connection drops.
pub async fn copy_binary(
    client: &Client,
    target: &Target,
    table: &str,
    columns: &[&str],
    data: Bytes,
) -> Result<u64, Error> {
    let statement = format!("COPY {table} ({}) FROM STDIN (FORMAT binary)", columns.join(", "));
    let cannot = |e: tokio_postgres::Error| failed(&format!("COPY into {table}"), target, &e);
    let running = super::CancelOnDrop::arm(client);
    let copied = async {
        let sink = client.copy_in::<_, Bytes>(&statement).await.map_err(cannot)?;
        futures_util::pin_mut!(sink);
        sink.send(data).await.map_err(cannot)?;
        sink.finish().await.map_err(cannot)
    }
    .await;
    running.disarm();
    copied
}
