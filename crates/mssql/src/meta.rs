//! `oltpgen_meta` on SQL Server: one row per workload loaded into a database, as on PostgreSQL
//! (`oltpgen_pg::meta` says what it is for). No `MERGE` (Babelfish lacks it): an `UPDATE`, then an
//! `INSERT` when it touched nothing, in one batch.

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
    if super::schema::existing_tables(conn, target, &[TABLE]).await?.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "DELETE FROM {TABLE} WHERE workload = @P1; IF NOT EXISTS (SELECT 1 FROM {TABLE}) DROP TABLE {TABLE}"
    );
    conn.with(target, "updating oltpgen_meta", async |c| c.execute(sql.as_str(), &[&workload]).await).await?;
    Ok(())
}
