//! `oltpgen_meta` on SQL Server: one row per workload loaded into a database, as on PostgreSQL
//! (`oltpgen_pg::meta` says what it is for). No `MERGE` (Babelfish lacks it): an `UPDATE`, then an
//! `INSERT` when it touched nothing, in one batch.

use super::Conn;
use oltpgen_vocab::meta::MetaRow;
pub use oltpgen_vocab::meta::{CHUNKS, PARTS, TABLE};
use oltpgen_vocab::{Error, Target};

/// Reads `workload`'s row, `None` when the table or the row is missing.
///
/// # Errors
/// [`Error::Failed`] when the table exists but cannot be read.
pub async fn read(conn: &Conn, target: &Target, workload: &str) -> Result<Option<MetaRow>, Error> {
    if super::schema::existing_tables(conn, target, &[TABLE]).await?.is_empty() {
        return Ok(None);
    }
    let sql = format!("SELECT state, params, tool_version FROM {TABLE} WHERE workload = @P1");
    let rows = conn
        .with(target, "reading oltpgen_meta", async |c| {
            c.query(sql.as_str(), &[&workload]).await?.into_first_result().await
        })
        .await?;
    Ok(rows.first().map(|r| MetaRow {
        state: r.get::<&str, _>(0).unwrap_or_default().to_string(),
        params: serde_json::from_str(r.get::<&str, _>(1).unwrap_or("null"))
            .unwrap_or(serde_json::Value::Null),
        tool_version: r.get::<&str, _>(2).unwrap_or_default().to_string(),
    }))
}

/// Writes `workload`'s row (creating the table when needed).
///
/// # Errors
/// [`Error::Failed`] when the write fails.
pub async fn write(conn: &Conn, target: &Target, workload: &str, row: &MetaRow) -> Result<(), Error> {
    let create = format!(
        "IF OBJECT_ID('{TABLE}', 'U') IS NULL CREATE TABLE {TABLE} (workload VARCHAR(64) NOT NULL PRIMARY KEY, \
         state VARCHAR(16) NOT NULL, params NVARCHAR(MAX) NOT NULL, tool_version VARCHAR(32) NOT NULL, \
         updated_at DATETIME2 NOT NULL DEFAULT SYSDATETIME())"
    );
    conn.batch(target, "creating oltpgen_meta", &create).await?;
    let upsert = format!(
        "UPDATE {TABLE} SET state = @P2, params = @P3, tool_version = @P4, updated_at = SYSDATETIME() WHERE workload = @P1; \
         IF @@ROWCOUNT = 0 INSERT INTO {TABLE} (workload, state, params, tool_version) VALUES (@P1, @P2, @P3, @P4)"
    );
    let params = row.params.to_string();
    conn.with(target, "writing oltpgen_meta", async |c| {
        c.execute(
            upsert.as_str(),
            &[&workload, &row.state.as_str(), &params.as_str(), &row.tool_version.as_str()],
        )
        .await
    })
    .await?;
    Ok(())
}

/// Removes `workload`'s row, and the table when no row is left.
///
/// # Errors
/// [`Error::Failed`] when the delete fails.
pub async fn remove(conn: &Conn, target: &Target, workload: &str) -> Result<(), Error> {
    remove_from(conn, target, TABLE, workload).await
}

/// Removes `workload`'s rows from oltpgen's bookkeeping table `table`, and the table when no row is
/// left.
async fn remove_from(conn: &Conn, target: &Target, table: &str, workload: &str) -> Result<(), Error> {
    if super::schema::existing_tables(conn, target, &[table]).await?.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "DELETE FROM {table} WHERE workload = @P1; IF NOT EXISTS (SELECT 1 FROM {table}) DROP TABLE {table}"
    );
    conn.with(target, &format!("updating {table}"), async |c| c.execute(sql.as_str(), &[&workload]).await)
        .await?;
    Ok(())
}

/// The statement marking a chunk done (parameters: workload, chunk), run inside the chunk's transaction.
pub const MARK: &str = "INSERT INTO oltpgen_chunks (workload, chunk) VALUES (@P1, @P2)";

/// Creates the chunk-mark table when missing and removes `workload`'s marks: a new load starts with
/// none.
///
/// # Errors
/// [`Error::Failed`] when the table cannot be created or emptied.
pub async fn clear_chunks(conn: &Conn, target: &Target, workload: &str) -> Result<(), Error> {
    let create = format!(
        "IF OBJECT_ID('{CHUNKS}', 'U') IS NULL CREATE TABLE {CHUNKS} (workload VARCHAR(64) NOT NULL, \
         chunk INT NOT NULL, PRIMARY KEY (workload, chunk))"
    );
    conn.batch(target, "creating oltpgen_chunks", &create).await?;
    let sql = format!("DELETE FROM {CHUNKS} WHERE workload = @P1");
    conn.with(target, "clearing oltpgen_chunks", async |c| c.execute(sql.as_str(), &[&workload]).await)
        .await?;
    Ok(())
}

/// The chunks of `workload`'s load marked done (none when the table is missing).
///
/// # Errors
/// [`Error::Failed`] when the table exists but cannot be read.
pub async fn done_chunks(conn: &Conn, target: &Target, workload: &str) -> Result<Vec<u32>, Error> {
    if super::schema::existing_tables(conn, target, &[CHUNKS]).await?.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT chunk FROM {CHUNKS} WHERE workload = @P1");
    let rows = conn
        .with(target, "reading oltpgen_chunks", async |c| {
            c.query(sql.as_str(), &[&workload]).await?.into_first_result().await
        })
        .await?;
    Ok(rows.iter().filter_map(|r| r.get::<i32, _>(0)).map(|c| c as u32).collect())
}

/// Removes `workload`'s marks and its plan in parts, and each table when nothing is left in it: a load
/// that finished, or a workload dropped.
///
/// # Errors
/// [`Error::Failed`] when a delete fails.
pub async fn remove_chunks(conn: &Conn, target: &Target, workload: &str) -> Result<(), Error> {
    remove_from(conn, target, CHUNKS, workload).await?;
    remove_from(conn, target, PARTS, workload).await
}

/// Records `workload`'s load as `parts` parts (replacing an earlier plan).
///
/// # Errors
/// [`Error::Failed`] when the write fails.
pub async fn write_plan(conn: &Conn, target: &Target, workload: &str, parts: u32) -> Result<(), Error> {
    let create = format!(
        "IF OBJECT_ID('{PARTS}', 'U') IS NULL CREATE TABLE {PARTS} (workload VARCHAR(64) NOT NULL, \
         part INT NOT NULL, parts INT NOT NULL, PRIMARY KEY (workload, part))"
    );
    conn.batch(target, "creating oltpgen_parts", &create).await?;
    let values: Vec<String> = (0..parts).map(|p| format!("(@P1, {p}, {parts})")).collect();
    let sql = format!(
        "DELETE FROM {PARTS} WHERE workload = @P1; INSERT INTO {PARTS} (workload, part, parts) VALUES {}",
        values.join(", ")
    );
    conn.with(target, "writing oltpgen_parts", async |c| c.execute(sql.as_str(), &[&workload]).await).await?;
    Ok(())
}

/// The parts `workload`'s load was planned in (`None`: not a load in parts).
///
/// # Errors
/// [`Error::Failed`] when the plan exists but cannot be read.
pub async fn plan(conn: &Conn, target: &Target, workload: &str) -> Result<Option<u32>, Error> {
    if super::schema::existing_tables(conn, target, &[PARTS]).await?.is_empty() {
        return Ok(None);
    }
    let sql = format!("SELECT MAX(parts) FROM {PARTS} WHERE workload = @P1");
    let rows = conn
        .with(target, "reading oltpgen_parts", async |c| {
            c.query(sql.as_str(), &[&workload]).await?.into_first_result().await
        })
        .await?;
    Ok(rows.first().and_then(|r| r.get::<i32, _>(0)).map(|p| p as u32))
}
