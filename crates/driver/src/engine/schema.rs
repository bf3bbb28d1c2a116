//! DDL in the target's engine's words, from datagen's table definitions: what a load creates, one arm
//! per engine.

use oltpgen_datagen::schema::TableDef;

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
