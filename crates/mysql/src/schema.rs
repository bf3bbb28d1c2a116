//! InnoDB DDL rendered from a workload's schema (tables as data in `oltpgen_datagen`), and the questions
//! the loader asks about what a database already holds (in the connection's database).

use oltpgen_datagen::schema::{ColumnType, Index, TableDef};

use super::Conn;
use oltpgen_vocab::schema::{
    Object, ObjectKind, create_table_as, dependents_refusal, restore_refusal, string_literals,
};
use oltpgen_vocab::{Error, Target};

/// `CREATE TABLE … ENGINE=InnoDB` with its primary key. InnoDB keeps a table's rows in its primary
/// key (the clustered index): adding the key after the data rebuilds the whole table, so unlike the
/// other engines the key is there from the start and [`primary_key`] adds none. Exact `DECIMAL`s,
/// `DATETIME(6)` timestamps.
pub fn create_table(table: &TableDef) -> String {
    let ty = |ty| match ty {
        ColumnType::Int4 => "INT".to_string(),
        ColumnType::Int2 => "SMALLINT".to_string(),
        ColumnType::Numeric { precision, scale } => format!("DECIMAL({precision},{scale})"),
        ColumnType::Char(n) => format!("CHAR({n})"),
        ColumnType::Varchar(n) => format!("VARCHAR({n})"),
        ColumnType::Timestamp => "DATETIME(6)".to_string(),
        ColumnType::Date => "DATE".to_string(),
        ColumnType::Int8 => "BIGINT".to_string(),
        ColumnType::Float8 => "DOUBLE".to_string(),
        ColumnType::Bool => "BOOLEAN".to_string(),
        ColumnType::Text => "TEXT".to_string(),
    };
    let columns = create_table_as(table, ty, " NOT NULL", " NULL");
    let columns = columns.strip_suffix(')').unwrap_or(&columns);
    let key = table.primary_key;
    let key = if key.is_empty() { String::new() } else { format!(", PRIMARY KEY ({})", key.join(", ")) };
    format!("{columns}{key}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
}

/// None: the key came with the table ([`create_table`]).
pub fn primary_key(_table: &TableDef) -> Option<String> {
    None
}

/// The statement dropping `index` where it exists (a resumed load drops what a cut key build left; a
/// restore whose copy failed left the index dropped): see [`drop_index_where_exists`].
pub fn drop_index(index: &Index) -> String {
    drop_index_where_exists(index.name, index.table)
}

/// The statements dropping index `name` of `table` where it exists, as one multi-statement text: MySQL
/// has no `DROP INDEX IF EXISTS` (MariaDB's is its own), so the catalog chooses the statement, which
/// runs prepared.
pub fn drop_index_where_exists(name: &str, table: &str) -> String {
    format!(
        "SET @oltpgen_drop = IF(EXISTS(SELECT 1 FROM information_schema.statistics WHERE \
         table_schema = DATABASE() AND table_name = '{table}' AND index_name = '{name}'), \
         'DROP INDEX {name} ON {table}', 'DO 0'); PREPARE oltpgen_drop FROM @oltpgen_drop; \
         EXECUTE oltpgen_drop; DEALLOCATE PREPARE oltpgen_drop"
    )
}

/// The statement that refreshes `table`'s index statistics after a load.
pub fn statistics(table: &str) -> String {
    format!("ANALYZE TABLE {table}")
}

/// Which of `names` exist as tables in the connection's database.
///
/// # Errors
/// [`Error::Failed`] when the catalog cannot be read.
pub async fn existing_tables(conn: &Conn, target: &Target, names: &[&str]) -> Result<Vec<String>, Error> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT CAST(table_name AS CHAR) FROM information_schema.tables WHERE table_schema = DATABASE() \
         AND table_type = 'BASE TABLE' AND table_name IN ({}) ORDER BY table_name",
        string_literals(names)
    );
    let rows = conn.rows(target, "reading the catalog", &sql).await?;
    Ok(rows.iter().filter_map(|r| r.get::<String, _>(0)).collect())
}

/// Drops a workload's `tables` (unless other objects depend on them: [`drop_tables`]), then the
/// `objects` its load created beside them.
///
/// # Errors
/// [`drop_tables`]' and [`Error::Failed`] when a procedure's drop fails.
pub async fn drop_workload(
    conn: &Conn,
    target: &Target,
    tables: &[&str],
    objects: &[Object],
) -> Result<(), Error> {
    drop_tables(conn, target, tables).await?;
    let statements: Vec<String> = objects
        .iter()
        .filter_map(|o| match o.kind {
            ObjectKind::Function => Some(format!("DROP FUNCTION IF EXISTS {}", o.name)),
            ObjectKind::Procedure => Some(format!("DROP PROCEDURE IF EXISTS {}", o.name)),
            ObjectKind::Sequence => Some(format!("DROP SEQUENCE IF EXISTS {}", o.name)),
            // MySQL keeps full-text indexes with their table.
            ObjectKind::FullTextCatalog => None,
        })
        .collect();
    super::execute_batch(conn, target, "dropping procedures", &statements).await
}

/// Drops `names` where they exist, unless other objects depend on them: a view over one of them (in any
/// database) or another table's foreign key to one. MySQL and MariaDB drop a table under a view (the
/// view stays, broken) and refuse only for foreign keys without naming the view: so the catalog is
/// asked first and the drop refused as on PostgreSQL, naming them. A view counts when its stored text
/// names one of the tables as `` `db`.`table` `` (the servers store views with every name qualified).
///
/// # Errors
/// [`dependents_refusal`] when other objects depend on the tables, with nothing dropped;
/// [`Error::Failed`] when a drop fails.
pub async fn drop_tables(conn: &Conn, target: &Target, names: &[&str]) -> Result<(), Error> {
    if names.is_empty() {
        return Ok(());
    }
    let ours = string_literals(names);
    let dependents = format!(
        "{} UNION SELECT CAST(CONCAT('view ', v.table_schema, '.', v.table_name, ' depends on table ', t.name) AS CHAR) \
         FROM information_schema.views v JOIN (SELECT table_name AS name FROM information_schema.tables \
           WHERE table_schema = DATABASE() AND table_name IN ({ours})) t \
           ON LOCATE(CONCAT('`', DATABASE(), '`.`', t.name, '`'), v.view_definition) > 0",
        foreign_keys(&format!(
            "unique_constraint_schema = DATABASE() AND referenced_table_name IN ({ours}) \
             AND NOT (constraint_schema = DATABASE() AND table_name IN ({ours}))"
        ))
    );
    let found = catalog_lines(conn, target, &dependents).await?;
    if !found.is_empty() {
        let found: Vec<&str> = found.iter().map(String::as_str).collect();
        return Err(dependents_refusal(target, &found));
    }
    let sql = format!("DROP TABLE IF EXISTS {}", names.join(", "));
    super::execute_batch(conn, target, "dropping tables", &[sql]).await
}

/// Refuses a restore of the tables `names` that a foreign key would stop halfway, before anything
/// changes: MySQL commits each `TRUNCATE` and key drop on its own, and refuses to empty a table a foreign
/// key refers to (from a table of the user's, in any database) or to drop an index a foreign key needs
/// (one from a workload's table to a user's too). Views and triggers stop none of it (`TRUNCATE` fires
/// no trigger; a view over the tables reads the restored rows).
///
/// # Errors
/// [`restore_refusal`] naming the foreign keys; [`Error::Failed`] when the catalog cannot be read.
pub async fn refuse_restore_dependents(conn: &Conn, target: &Target, names: &[&str]) -> Result<(), Error> {
    if names.is_empty() {
        return Ok(());
    }
    let ours = string_literals(names);
    let keys = foreign_keys(&format!(
        "(unique_constraint_schema = DATABASE() AND referenced_table_name IN ({ours})) \
         OR (constraint_schema = DATABASE() AND table_name IN ({ours}))"
    ));
    let found = catalog_lines(conn, target, &keys).await?;
    if found.is_empty() {
        return Ok(());
    }
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    Err(restore_refusal(target, &found))
}

/// The foreign keys `condition` picks from `information_schema.referential_constraints`, one line each
/// (`constraint c on table db.t depends on table warehouse`).
fn foreign_keys(condition: &str) -> String {
    format!(
        "SELECT CAST(CONCAT('constraint ', constraint_name, ' on table ', constraint_schema, '.', table_name, \
           ' depends on table ', referenced_table_name) AS CHAR) \
         FROM information_schema.referential_constraints WHERE {condition}"
    )
}

/// The one text column of `query`'s rows.
async fn catalog_lines(conn: &Conn, target: &Target, query: &str) -> Result<Vec<String>, Error> {
    let rows = conn.rows(target, "reading the catalog", query).await?;
    Ok(rows.iter().filter_map(|r| r.get::<String, _>(0)).collect())
}
