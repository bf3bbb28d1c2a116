//! PostgreSQL DDL rendered from a workload's schema (tables as data in `oltpgen_datagen`), and the
//! questions the loader asks about what a database already holds.

use oltpgen_datagen::schema::{ColumnType, Index, TableDef};
use tokio_postgres::Client;

use super::failed;
use crate::engine::{Object, ObjectKind};
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

/// Drops `objects` where they exist, in the connection's current schema: each function or procedure
/// in every overload of its name (an older oltpgen's argument lists too), each sequence.
///
/// # Errors
/// [`Error::Failed`] when a drop fails.
pub async fn drop_objects(client: &Client, target: &Target, objects: &[Object]) -> Result<(), Error> {
    let mut routines = Vec::new();
    let mut statements = Vec::new();
    for o in objects {
        match o.kind {
            ObjectKind::Function | ObjectKind::Procedure => routines.push(format!("'{}'", o.name)),
            ObjectKind::Sequence => statements.push(format!("DROP SEQUENCE IF EXISTS {}", o.name)),
            // SQL Server's only: PostgreSQL's full-text indexes go with their tables.
            ObjectKind::FullTextCatalog => {}
        }
    }
    if !routines.is_empty() {
        statements.push(format!(
            "DO $$ DECLARE f regprocedure; BEGIN FOR f IN SELECT oid::regprocedure FROM pg_proc \
               WHERE proname IN ({}) AND pronamespace = current_schema()::regnamespace \
             LOOP EXECUTE 'DROP ROUTINE ' || f; END LOOP; END $$",
            routines.join(", ")
        ));
    }
    if statements.is_empty() {
        return Ok(());
    }
    client.batch_execute(&statements.join(";\n")).await.map_err(|e| failed("dropping functions", target, &e))
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
