//! `oltpgen_meta`: one row per workload loaded into a database, saying how it was loaded and whether the
//! load finished. The run reads it to know the scale and the load's C constants (TPC-C 2.1.6.1), and
//! every command reads it to refuse a half-finished or foreign database.

use tokio_postgres::Client;

use super::failed;
use oltpgen_vocab::meta::MetaRow;
pub use oltpgen_vocab::meta::{CHUNKS, PARTS, TABLE};
use oltpgen_vocab::{Error, Target};

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
    remove_from(client, target, TABLE, workload).await
}

/// Removes `workload`'s rows from oltpgen's bookkeeping table `table`, and the table when no row is
/// left.
async fn remove_from(client: &Client, target: &Target, table: &str, workload: &str) -> Result<(), Error> {
    if super::schema::existing_tables(client, target, &[table]).await?.is_empty() {
        return Ok(());
    }
    client
        .execute(&format!("DELETE FROM {table} WHERE workload = $1"), &[&workload])
        .await
        .map_err(|e| failed(&format!("updating {table}"), target, &e))?;
    client
        .batch_execute(&format!(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM {table}) THEN DROP TABLE {table}; END IF; END $$"
        ))
        .await
        .map_err(|e| failed(&format!("dropping {table}"), target, &e))
}

/// Creates the chunk-mark table when missing and removes `workload`'s marks: a new load starts with
/// none.
///
/// # Errors
/// [`Error::Failed`] when the table cannot be created or emptied.
pub async fn clear_chunks(client: &Client, target: &Target, workload: &str) -> Result<(), Error> {
    client
        .batch_execute(&format!(
            "CREATE TABLE IF NOT EXISTS {CHUNKS} (workload text NOT NULL, chunk int4 NOT NULL, \
             PRIMARY KEY (workload, chunk))"
        ))
        .await
        .map_err(|e| failed("creating oltpgen_chunks", target, &e))?;
    client
        .execute(&format!("DELETE FROM {CHUNKS} WHERE workload = $1"), &[&workload])
        .await
        .map_err(|e| failed("clearing oltpgen_chunks", target, &e))?;
    Ok(())
}

/// The chunks of `workload`'s load marked done (none when the table is missing).
///
/// # Errors
/// [`Error::Failed`] when the table exists but cannot be read.
pub async fn done_chunks(client: &Client, target: &Target, workload: &str) -> Result<Vec<u32>, Error> {
    if super::schema::existing_tables(client, target, &[CHUNKS]).await?.is_empty() {
        return Ok(Vec::new());
    }
    let rows = client
        .query(&format!("SELECT chunk FROM {CHUNKS} WHERE workload = $1"), &[&workload])
        .await
        .map_err(|e| failed("reading oltpgen_chunks", target, &e))?;
    Ok(rows.iter().map(|r| r.get::<_, i32>(0) as u32).collect())
}

/// Marks chunk `chunk` of `workload`'s load done, inside the transaction that copied its rows.
///
/// # Errors
/// [`Error::Failed`] when the write fails.
pub async fn mark(client: &Client, target: &Target, workload: &str, chunk: u32) -> Result<(), Error> {
    client
        .execute(
            &format!("INSERT INTO {CHUNKS} (workload, chunk) VALUES ($1, $2)"),
            &[&workload, &(chunk as i32)],
        )
        .await
        .map_err(|e| failed("marking a chunk done in oltpgen_chunks", target, &e))?;
    Ok(())
}

/// Removes `workload`'s marks, and the table when no mark is left: a load that finished, or a
/// workload dropped.
///
/// # Errors
/// [`Error::Failed`] when the delete fails.
pub async fn remove_chunks(client: &Client, target: &Target, workload: &str) -> Result<(), Error> {
    remove_from(client, target, CHUNKS, workload).await
}

/// Records `workload`'s load as `parts` parts (replacing an earlier plan).
///
/// # Errors
/// [`Error::Failed`] when the write fails.
pub async fn write_plan(client: &Client, target: &Target, workload: &str, parts: u32) -> Result<(), Error> {
    let parts = parts as i32;
    let cannot = |e: tokio_postgres::Error| failed("writing oltpgen_parts", target, &e);
    client
        .batch_execute(&format!(
            "CREATE TABLE IF NOT EXISTS {PARTS} (workload text NOT NULL, part int4 NOT NULL, \
             parts int4 NOT NULL, PRIMARY KEY (workload, part))"
        ))
        .await
        .map_err(cannot)?;
    client
        .execute(&format!("DELETE FROM {PARTS} WHERE workload = $1"), &[&workload])
        .await
        .map_err(cannot)?;
    let insert = format!("INSERT INTO {PARTS} SELECT $1, p, $2 FROM generate_series(0, $2 - 1) p");
    client.execute(&insert, &[&workload, &parts]).await.map_err(cannot)?;
    Ok(())
}

/// The parts `workload`'s load was planned in (`None`: not a load in parts).
///
/// # Errors
/// [`Error::Failed`] when the plan exists but cannot be read.
pub async fn plan(client: &Client, target: &Target, workload: &str) -> Result<Option<u32>, Error> {
    if super::schema::existing_tables(client, target, &[PARTS]).await?.is_empty() {
        return Ok(None);
    }
    let row = client
        .query_opt(&format!("SELECT max(parts) FROM {PARTS} WHERE workload = $1"), &[&workload])
        .await
        .map_err(|e| failed("reading oltpgen_parts", target, &e))?;
    Ok(row.and_then(|r| r.get::<_, Option<i32>>(0)).map(|p| p as u32))
}

/// Removes `workload`'s plan (its load finished, or was dropped), and the table when no plan is left.
///
/// # Errors
/// [`Error::Failed`] when the delete fails.
pub async fn remove_plan(client: &Client, target: &Target, workload: &str) -> Result<(), Error> {
    remove_from(client, target, PARTS, workload).await
}
