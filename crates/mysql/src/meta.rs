//! `oltpgen_meta` on MySQL: one row per workload loaded into a database, as on PostgreSQL
//! (`oltpgen_pg::meta` says what it is for), written with `INSERT … ON DUPLICATE KEY UPDATE`.

use mysql_async::prelude::Queryable;

use super::Conn;
use oltpgen_vocab::meta::MetaRow;
use oltpgen_vocab::{Error, Target};

/// The table's name.
pub const TABLE: &str = "oltpgen_meta";

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
    if super::schema::existing_tables(conn, target, &[TABLE]).await?.is_empty() {
        return Ok(());
    }
    conn.with(target, "updating oltpgen_meta", async |c| {
        c.exec_drop(format!("DELETE FROM {TABLE} WHERE workload = ?"), (workload,)).await?;
        let left: Option<i64> = c.query_first(format!("SELECT COUNT(*) FROM {TABLE}")).await?;
        if left == Some(0) {
            c.query_drop(format!("DROP TABLE {TABLE}")).await?;
        }
        Ok(())
    })
    .await
}
