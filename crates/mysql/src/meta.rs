//! `oltpgen_meta` on MySQL: one row per workload loaded into a database, as on PostgreSQL
//! (`oltpgen_pg::meta` says what it is for), written with `INSERT … ON DUPLICATE KEY UPDATE`.

use mysql_async::prelude::Queryable;

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
    let sql = format!("SELECT state, params, tool_version FROM {TABLE} WHERE workload = ?");
    let row: Option<(String, String, String)> = conn
        .with(target, "reading oltpgen_meta", async |c| c.exec_first(sql.as_str(), (workload,)).await)
        .await?;
    Ok(row.map(|(state, params, tool_version)| MetaRow {
        state,
        params: serde_json::from_str(&params).unwrap_or(serde_json::Value::Null),
        tool_version,
    }))
}

/// Writes `workload`'s row (creating the table when needed).
///
/// # Errors
/// [`Error::Failed`] when the write fails.
pub async fn write(conn: &Conn, target: &Target, workload: &str, row: &MetaRow) -> Result<(), Error> {
    let create = format!(
        "CREATE TABLE IF NOT EXISTS {TABLE} (workload VARCHAR(64) NOT NULL PRIMARY KEY, \
         state VARCHAR(16) NOT NULL, params LONGTEXT NOT NULL, tool_version VARCHAR(32) NOT NULL, \
         updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB"
    );
    let upsert = format!(
        "INSERT INTO {TABLE} (workload, state, params, tool_version) VALUES (?, ?, ?, ?) \
         ON DUPLICATE KEY UPDATE state = VALUES(state), params = VALUES(params), \
         tool_version = VALUES(tool_version), updated_at = CURRENT_TIMESTAMP(6)"
    );
    let params = (workload, row.state.as_str(), row.params.to_string(), row.tool_version.as_str());
    conn.with(target, "writing oltpgen_meta", async |c| {
        c.query_drop(create.as_str()).await?;
        c.exec_drop(upsert.as_str(), params).await
    })
    .await
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
    conn.with(target, &format!("updating {table}"), async |c| {
        c.exec_drop(format!("DELETE FROM {table} WHERE workload = ?"), (workload,)).await?;
        let left: Option<i64> = c.query_first(format!("SELECT COUNT(*) FROM {table}")).await?;
        if left == Some(0) {
            c.query_drop(format!("DROP TABLE {table}")).await?;
        }
        Ok(())
    })
    .await
}

/// The statement marking a chunk done (parameters: workload, chunk), run inside the chunk's transaction.
pub const MARK: &str = "INSERT INTO oltpgen_chunks (workload, chunk) VALUES (?, ?)";

/// Creates the chunk-mark table when missing and removes `workload`'s marks: a new load starts with
/// none.
///
/// # Errors
/// [`Error::Failed`] when the table cannot be created or emptied.
pub async fn clear_chunks(conn: &Conn, target: &Target, workload: &str) -> Result<(), Error> {
    let create = format!(
        "CREATE TABLE IF NOT EXISTS {CHUNKS} (workload VARCHAR(64) NOT NULL, chunk INT NOT NULL, \
         PRIMARY KEY (workload, chunk)) ENGINE=InnoDB"
    );
    conn.with(target, "clearing oltpgen_chunks", async |c| {
        c.query_drop(create.as_str()).await?;
        c.exec_drop(format!("DELETE FROM {CHUNKS} WHERE workload = ?"), (workload,)).await
    })
    .await
}

/// The chunks of `workload`'s load marked done (none when the table is missing).
///
/// # Errors
/// [`Error::Failed`] when the table exists but cannot be read.
pub async fn done_chunks(conn: &Conn, target: &Target, workload: &str) -> Result<Vec<u32>, Error> {
    if super::schema::existing_tables(conn, target, &[CHUNKS]).await?.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT chunk FROM {CHUNKS} WHERE workload = ?");
    let done: Vec<i32> = conn
        .with(target, "reading oltpgen_chunks", async |c| c.exec(sql.as_str(), (workload,)).await)
        .await?;
    Ok(done.into_iter().map(|c| c as u32).collect())
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
        "CREATE TABLE IF NOT EXISTS {PARTS} (workload VARCHAR(64) NOT NULL, part INT NOT NULL, \
         parts INT NOT NULL, PRIMARY KEY (workload, part)) ENGINE=InnoDB"
    );
    let rows: Vec<(&str, u32, u32)> = (0..parts).map(|p| (workload, p, parts)).collect();
    let insert = format!("INSERT INTO {PARTS} (workload, part, parts) VALUES (?, ?, ?)");
    conn.with(target, "writing oltpgen_parts", async |c| {
        c.query_drop(create.as_str()).await?;
        c.exec_drop(format!("DELETE FROM {PARTS} WHERE workload = ?"), (workload,)).await?;
        c.exec_batch(insert.as_str(), rows).await
    })
    .await
}

/// The parts `workload`'s load was planned in (`None`: not a load in parts).
///
/// # Errors
/// [`Error::Failed`] when the plan exists but cannot be read.
pub async fn plan(conn: &Conn, target: &Target, workload: &str) -> Result<Option<u32>, Error> {
    if super::schema::existing_tables(conn, target, &[PARTS]).await?.is_empty() {
        return Ok(None);
    }
    let sql = format!("SELECT MAX(parts) FROM {PARTS} WHERE workload = ?");
    let parts: Option<Option<i64>> = conn
        .with(target, "reading oltpgen_parts", async |c| c.exec_first(sql.as_str(), (workload,)).await)
        .await?;
    Ok(parts.flatten().map(|p| p as u32))
}
