//! `oltpgen_meta`: one row per workload loaded into a database, saying how it was loaded and whether the
//! load finished. The run reads it to know the scale and the load's C constants (TPC-C 2.1.6.1), and
//! every command reads it to refuse a half-finished or foreign database.

use tokio_postgres::Client;

use super::failed;
use oltpgen_vocab::meta::MetaRow;
use oltpgen_vocab::{Error, Target};

/// The table's name, which the loader treats as one of each workload's tables.
pub const TABLE: &str = "oltpgen_meta";

/// Reads `workload`'s row, `None` when the table or the row is missing.
///
/// # Errors
/// [`Error::Failed`] when the table exists but cannot be read.
pub async fn read(client: &Client, target: &Target, workload: &str) -> Result<Option<MetaRow>, Error> {
    if super::schema::existing_tables(client, target, &[TABLE]).await?.is_empty() {
        return Ok(None);
    }
    let row = client
        .query_opt(
            &format!("SELECT state, params::text, tool_version FROM {TABLE} WHERE workload = $1"),
            &[&workload],
        )
        .await
        .map_err(|e| failed("reading oltpgen_meta", target, &e))?;
    Ok(row.map(|r| MetaRow {
        state: r.get(0),
        params: serde_json::from_str(r.get::<_, &str>(1)).unwrap_or(serde_json::Value::Null),
        tool_version: r.get(2),
    }))
}

/// Writes `workload`'s row (creating the table when needed).
///
/// # Errors
/// [`Error::Failed`] when the write fails.
pub async fn write(client: &Client, target: &Target, workload: &str, row: &MetaRow) -> Result<(), Error> {
    client
        .batch_execute(&format!(
            "CREATE TABLE IF NOT EXISTS {TABLE} (workload text PRIMARY KEY, state text NOT NULL, \
             params jsonb NOT NULL, tool_version text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())"
        ))
        .await
        .map_err(|e| failed("creating oltpgen_meta", target, &e))?;
    client
        .execute(
            &format!(
                "INSERT INTO {TABLE} (workload, state, params, tool_version) VALUES ($1, $2, $3::text::jsonb, $4) \
                 ON CONFLICT (workload) DO UPDATE SET state = excluded.state, params = excluded.params, \
                 tool_version = excluded.tool_version, updated_at = now()"
            ),
            &[&workload, &row.state, &row.params.to_string(), &row.tool_version],
        )
        .await
        .map_err(|e| failed("writing oltpgen_meta", target, &e))?;
    Ok(())
}

/// Removes `workload`'s row, and the table when no row is left.
///
/// # Errors
/// [`Error::Failed`] when the delete fails.
pub async fn remove(client: &Client, target: &Target, workload: &str) -> Result<(), Error> {
    if super::schema::existing_tables(client, target, &[TABLE]).await?.is_empty() {
        return Ok(());
    }
    client
        .execute(&format!("DELETE FROM {TABLE} WHERE workload = $1"), &[&workload])
        .await
        .map_err(|e| failed("updating oltpgen_meta", target, &e))?;
    client
        .batch_execute(&format!(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM {TABLE}) THEN DROP TABLE {TABLE}; END IF; END $$"
        ))
        .await
        .map_err(|e| failed("dropping oltpgen_meta", target, &e))
}
