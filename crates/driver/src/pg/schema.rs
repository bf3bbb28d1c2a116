//! PostgreSQL DDL rendered from a workload's schema (tables as data in `oltpgen_datagen`), and the
//! questions the loader asks about what a database already holds.

use oltpgen_datagen::schema::{ColumnType, Index, TableDef};
use tokio_postgres::Client;

use super::failed;
use crate::{Error, Target};

/// `CREATE TABLE` without keys: keys and indexes are built after the data, which is faster.
pub fn create_table(table: &TableDef) -> String {
    let ty = |ty| match ty {
        ColumnType::Int4 => "integer".to_string(),
        ColumnType::Int2 => "smallint".to_string(),
        ColumnType::Numeric { precision, scale } => format!("numeric({precision},{scale})"),
        ColumnType::Char(n) => format!("char({n})"),
        ColumnType::Varchar(n) => format!("varchar({n})"),
        ColumnType::Timestamp => "timestamp".to_string(),
        ColumnType::Date => "date".to_string(),
    };
    crate::engine::create_table_as(table, ty, " NOT NULL", "")
}

/// The primary key of `table`, or `None` (TPC-C's history has none).
pub fn primary_key(table: &TableDef) -> Option<String> {
    let key = table.primary_key;
    (!key.is_empty()).then(|| {
        format!("ALTER TABLE {t} ADD CONSTRAINT {t}_pkey PRIMARY KEY ({})", key.join(", "), t = table.name)
    })
}

/// `CREATE INDEX` for a secondary index.
pub fn create_index(index: &Index) -> String {
    let unique = if index.unique { "UNIQUE " } else { "" };
    format!("CREATE {unique}INDEX {} ON {} ({})", index.name, index.table, index.columns.join(", "))
}

/// Which of `names` exist as tables in the connection's current schema.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn existing_tables(client: &Client, target: &Target, names: &[&str]) -> Result<Vec<String>, Error> {
    let rows = client
        .query(
            "SELECT c.relname::text FROM pg_class c \
             WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') \
             AND c.relname = ANY($1) ORDER BY 1",
            &[&names],
        )
        .await
        .map_err(|e| failed("reading the catalog", target, &e))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Drops `names` where they exist.
///
/// # Errors
/// [`Error::Failed`] when a drop fails (e.g. the tables are in use).
pub async fn drop_tables(client: &Client, target: &Target, names: &[&str]) -> Result<(), Error> {
    if names.is_empty() {
        return Ok(());
    }
    client
        .batch_execute(&format!("DROP TABLE IF EXISTS {} CASCADE", names.join(", ")))
        .await
        .map_err(|e| failed("dropping tables", target, &e))
}
