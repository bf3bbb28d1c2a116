//! T-SQL DDL rendered from a workload's schema (tables as data in `oltpgen_datagen`), and the questions
//! the loader asks about what a database already holds (in the connection's default schema, `dbo`).

use oltpgen_datagen::schema::{ColumnType, Index, TableDef};

use super::Conn;
use oltpgen_vocab::schema::{Object, ObjectKind, create_table_as, dependents_refusal, string_literals};
use oltpgen_vocab::{Error, Target};

/// `CREATE TABLE` without keys: keys and indexes are built after the data, which is faster. Exact
/// `DECIMAL`s; timestamps as `DATETIME2` (tiberius cannot bulk-insert `DATE`, so a date is a
/// `DATETIME2(0)` at midnight, as DS2's own SQL Server scripts keep order dates in a `DATETIME`).
pub fn create_table(table: &TableDef) -> String {
    let ty = |ty| match ty {
        ColumnType::Int4 => "INT".to_string(),
        ColumnType::Int2 => "SMALLINT".to_string(),
        ColumnType::Numeric { precision, scale } => format!("DECIMAL({precision},{scale})"),
        ColumnType::Char(n) => format!("CHAR({n})"),
        ColumnType::Varchar(n) => format!("VARCHAR({n})"),
        ColumnType::Timestamp => "DATETIME2(6)".to_string(),
        ColumnType::Date => "DATETIME2(0)".to_string(),
        ColumnType::Int8 => "BIGINT".to_string(),
        ColumnType::Float8 => "FLOAT".to_string(),
        ColumnType::Bool => "BIT".to_string(),
        ColumnType::Text => "VARCHAR(MAX)".to_string(),
    };
    create_table_as(table, ty, " NOT NULL", " NULL")
}

/// The clustered primary key of `table`, or `None` (TPC-C's history has none).
pub fn primary_key(table: &TableDef) -> Option<String> {
    let key = table.primary_key;
    (!key.is_empty()).then(|| {
        format!(
            "ALTER TABLE {t} ADD CONSTRAINT {t}_pkey PRIMARY KEY CLUSTERED ({})",
            key.join(", "),
            t = table.name
        )
    })
}

/// The statement dropping `index` where it exists.
pub fn drop_index(index: &Index) -> String {
    format!("DROP INDEX IF EXISTS {} ON {}", index.name, index.table)
}

/// The statement that refreshes `table`'s statistics after a load. Babelfish lacks `UPDATE STATISTICS`
/// (its PostgreSQL analyses tables on its own): dynamic SQL is parsed only where it runs, so the same
/// batch skips it there.
pub fn statistics(table: &str) -> String {
    format!("IF SERVERPROPERTY('Babelfish') IS NULL EXEC('UPDATE STATISTICS {table}')")
}

/// Which of `names` exist as tables in the connection's default schema.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn existing_tables(conn: &Conn, target: &Target, names: &[&str]) -> Result<Vec<String>, Error> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT CAST(name AS nvarchar(128)) FROM sys.tables WHERE schema_id = SCHEMA_ID() AND name IN ({}) ORDER BY name",
        string_literals(names)
    );
    let rows = conn.batch(target, "reading the catalog", &sql).await?;
    Ok(rows.into_iter().flatten().filter_map(|r| r.get::<&str, _>(0).map(str::to_string)).collect())
}

/// Drops a workload's `tables` (unless other objects depend on them: [`drop_tables`]), then the
/// `objects` its load created beside them: a trigger's function can go once its trigger has gone with
/// its table.
///
/// # Errors
/// [`drop_tables`]' and [`drop_objects`]'.
pub async fn drop_workload(
    conn: &Conn,
    target: &Target,
    tables: &[&str],
    objects: &[Object],
) -> Result<(), Error> {
    drop_tables(conn, target, tables).await?;
    drop_objects(conn, target, objects).await
}

/// Drops `objects` where they exist, as one batch. A full-text catalog only where the server has
/// full-text search (Babelfish has neither it nor `sys.fulltext_catalogs`, hence the `EXEC`).
///
/// # Errors
/// [`Error::Failed`] when a drop fails.
pub async fn drop_objects(conn: &Conn, target: &Target, objects: &[Object]) -> Result<(), Error> {
    let statements: Vec<String> = objects
        .iter()
        .map(|o| match o.kind {
            ObjectKind::Function => format!("DROP FUNCTION IF EXISTS {}", o.name),
            ObjectKind::Procedure => format!("DROP PROCEDURE IF EXISTS {}", o.name),
            ObjectKind::Sequence => format!("DROP SEQUENCE IF EXISTS {}", o.name),
            ObjectKind::FullTextCatalog => format!(
                "IF FULLTEXTSERVICEPROPERTY('IsFullTextInstalled') = 1 EXEC ('IF EXISTS (SELECT 1 FROM \
                 sys.fulltext_catalogs WHERE name = ''{0}'') DROP FULLTEXT CATALOG {0}')",
                o.name
            ),
        })
        .collect();
    if statements.is_empty() {
        return Ok(());
    }
    conn.batch(target, "dropping procedures", &statements.join(";\n")).await?;
    Ok(())
}

/// Drops `names` where they exist, unless other objects depend on them: a view over one of them or
/// another table's foreign key to one. SQL Server would drop a table under a view that is not schema
/// bound (the view breaks); Babelfish refuses as PostgreSQL does, without naming them, and records no
/// view in `sys.sql_expression_dependencies`: a view whose text names one of the tables as a word
/// counts too (refusing is the safe side of a doubt). So the catalog is asked first and the drop
/// refused as on PostgreSQL, naming them (where the catalog cannot say, the server's own refusal
/// stands).
///
/// # Errors
/// [`dependents_refusal`] when other objects depend on the tables, with nothing
/// dropped; [`Error::Failed`] when a drop fails (e.g. the tables are in use).
pub async fn drop_tables(conn: &Conn, target: &Target, names: &[&str]) -> Result<(), Error> {
    if names.is_empty() {
        return Ok(());
    }
    let ours = string_literals(names);
    let dependents = format!(
        "SELECT CAST(CONCAT('constraint ', fk.name, ' on table ', OBJECT_NAME(fk.parent_object_id), \
           ' depends on table ', OBJECT_NAME(fk.referenced_object_id)) AS nvarchar(400)) \
         FROM sys.foreign_keys fk WHERE OBJECT_NAME(fk.referenced_object_id) IN ({ours}) \
           AND OBJECT_NAME(fk.parent_object_id) NOT IN ({ours}) \
         UNION SELECT CAST(CONCAT('view ', v.name, ' depends on table ', d.referenced_entity_name) AS nvarchar(400)) \
         FROM sys.sql_expression_dependencies d JOIN sys.views v ON v.object_id = d.referencing_id \
         WHERE d.referenced_entity_name IN ({ours}) \
         UNION SELECT CAST(CONCAT('view ', v.name, ' depends on table ', t.name) AS nvarchar(400)) \
         FROM sys.views v JOIN sys.sql_modules m ON m.object_id = v.object_id \
         JOIN sys.tables t ON t.name IN ({ours}) \
           AND CONCAT(' ', m.definition, ' ') LIKE CONCAT('%[^a-z0-9_]', t.name, '[^a-z0-9_]%')"
    );
    if let Ok(rows) = conn.batch(target, "reading the catalog", &dependents).await {
        let found: Vec<&str> = rows.iter().flatten().filter_map(|r| r.get::<&str, _>(0)).collect();
        if !found.is_empty() {
            return Err(dependents_refusal(target, &found));
        }
    }
    conn.batch(target, "dropping tables", &format!("DROP TABLE IF EXISTS {}", names.join(", "))).await?;
    Ok(())
}
