//! DDL in the target's engine's words, from datagen's table definitions: what a load creates, one arm
//! per engine.

use oltpgen_datagen::schema::{Index, TableDef};

use crate::vocab::target::Engine;
use crate::{mssql, mysql, pg, vocab};

/// The engine's `CREATE TABLE` for `table`.
pub fn create_table(engine: Engine, table: &TableDef) -> String {
    match engine {
        Engine::Postgres => pg::schema::create_table(table),
        Engine::SqlServer => mssql::schema::create_table(table),
        Engine::MySql => mysql::schema::create_table(table),
    }
}

/// The engine's statement adding `table`'s primary key, if it has one.
pub fn primary_key(engine: Engine, table: &TableDef) -> Option<String> {
    match engine {
        Engine::Postgres => pg::schema::primary_key(table),
        Engine::SqlServer => mssql::schema::primary_key(table),
        Engine::MySql => mysql::schema::primary_key(table),
    }
}

/// The engine's statement dropping `table`'s primary key where it exists (the one [`primary_key`]
/// adds), so that a restore copies into a bare table and builds the key after, as the load does.
pub fn drop_primary_key(engine: Engine, table: &TableDef) -> Option<String> {
    match engine {
        Engine::Postgres | Engine::SqlServer => vocab::schema::drop_primary_key(table),
        // InnoDB keeps a table's rows in its key, created with the table: it stays.
        Engine::MySql => None,
    }
}

/// The engine's statement dropping a workload's `index` where it exists, before a restore copies into
/// its table (the index is built again after the copy, as the load builds it).
pub fn drop_index(engine: Engine, index: &Index) -> String {
    match engine {
        Engine::Postgres => pg::schema::drop_index(index),
        Engine::SqlServer => mssql::schema::drop_index(index),
        Engine::MySql => mysql::schema::drop_index(index),
    }
}

/// The engine's statements that empty `tables` (and nothing else: a table of the user's that refers to
/// one of them makes them fail rather than be emptied too), before a restore loads their rows again.
pub fn truncate(engine: Engine, tables: &[&str]) -> Vec<String> {
    match engine {
        Engine::Postgres => pg::schema::truncate(tables),
        Engine::SqlServer | Engine::MySql => vocab::schema::truncate_each(tables),
    }
}

/// The engine's statement that gathers the planner's statistics of `table` after a load.
pub fn statistics(engine: Engine, table: &str) -> String {
    match engine {
        Engine::Postgres => pg::schema::statistics(table),
        Engine::SqlServer => mssql::schema::statistics(table),
        Engine::MySql => mysql::schema::statistics(table),
    }
}
