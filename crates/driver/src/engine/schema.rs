//! DDL in the target's engine's words, from datagen's table definitions: what a load creates, one arm
//! per engine.

use oltpgen_datagen::schema::{Index, TableDef};

use oltpgen_vocab::schema as vocab_schema;
use oltpgen_vocab::target::Engine;

/// The engine's `CREATE TABLE` for `table`.
pub fn create_table(engine: Engine, table: &TableDef) -> String {
    each_engine!(engine, m => m::schema::create_table(table))
}

/// The engine's statement adding `table`'s primary key, if it has one.
pub fn primary_key(engine: Engine, table: &TableDef) -> Option<String> {
    each_engine!(engine, m => m::schema::primary_key(table))
}

/// The engine's statement dropping `table`'s primary key where it exists (the one [`primary_key`]
/// adds), so that a restore copies into a bare table and builds the key after, as the load does.
pub fn drop_primary_key(engine: Engine, table: &TableDef) -> Option<String> {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => vocab_schema::drop_primary_key(table),
        #[cfg(feature = "mssql")]
        Engine::SqlServer => vocab_schema::drop_primary_key(table),
        // InnoDB keeps a table's rows in its key, created with the table: it stays.
        #[cfg(feature = "mysql")]
        Engine::MySql => None,
    }
}

/// The engine's statement dropping a workload's `index` where it exists, before a restore copies into
/// its table (the index is built again after the copy, as the load builds it).
pub fn drop_index(engine: Engine, index: &Index) -> String {
    each_engine!(engine, m => m::schema::drop_index(index))
}

/// The engine's statements that empty `tables` (and nothing else: a table of the user's that refers to
/// one of them makes them fail rather than be emptied too), before a restore loads their rows again.
pub fn truncate(engine: Engine, tables: &[&str]) -> Vec<String> {
    match engine {
        #[cfg(feature = "postgres")]
        Engine::Postgres => oltpgen_pg::schema::truncate(tables),
        #[cfg(feature = "mssql")]
        Engine::SqlServer => vocab_schema::truncate_each(tables),
        #[cfg(feature = "mysql")]
        Engine::MySql => vocab_schema::truncate_each(tables),
    }
}

/// The engine's statement that gathers the planner's statistics of `table` after a load.
pub fn statistics(engine: Engine, table: &str) -> String {
    each_engine!(engine, m => m::schema::statistics(table))
}
