//! PostgreSQL DDL rendered from a workload's schema (tables as data in `oltpgen_datagen`), and the
//! questions the loader asks about what a database already holds.

use oltpgen_datagen::schema::{ColumnType, Index, TableDef};
use tokio_postgres::Client;

use super::failed;
use oltpgen_vocab::schema::{Object, ObjectKind, create_table_as, dependents_refusal};
use oltpgen_vocab::{Error, Target};

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
        ColumnType::Int8 => "bigint".to_string(),
        ColumnType::Float8 => "double precision".to_string(),
        ColumnType::Bool => "boolean".to_string(),
        ColumnType::Text => "text".to_string(),
    };
    create_table_as(table, ty, " NOT NULL", "")
}

/// The primary key of `table`, or `None` (TPC-C's history has none).
pub fn primary_key(table: &TableDef) -> Option<String> {
    let key = table.primary_key;
    (!key.is_empty()).then(|| {
        format!("ALTER TABLE {t} ADD CONSTRAINT {t}_pkey PRIMARY KEY ({})", key.join(", "), t = table.name)
    })
}

/// The statement dropping `index` where it exists.
pub fn drop_index(index: &Index) -> String {
    format!("DROP INDEX IF EXISTS {}", index.name)
}

/// The statement that empties `tables` before a restore.
pub fn truncate(tables: &[&str]) -> Vec<String> {
    // One statement for all: no CASCADE, so a user's table referring to one of them stops it.
    vec![format!("TRUNCATE {}", tables.join(", "))]
}

/// The statement that gathers the planner's statistics of `table` after a load.
pub fn statistics(table: &str) -> String {
    format!("ANALYZE {table}")
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

/// The statements that drop `objects` where they exist, in the connection's current schema: each
/// sequence, each function or procedure with the arguments the load gave it, and one of oltpgen's own
/// prefix in every overload (an older oltpgen's argument lists too).
fn drop_object_statements(objects: &[Object]) -> Vec<String> {
    let mut routines = Vec::new();
    let mut statements = Vec::new();
    for o in objects {
        match (o.kind, &o.args) {
            // A name of oltpgen's own prefix is oltpgen's in every overload (an older version's
            // argument list included); any other name (DS2's `login`, …) only with the arguments the
            // load gave it, so that a user's own overload stays.
            (ObjectKind::Function | ObjectKind::Procedure, Some(args)) if !o.name.starts_with("oltpgen_") => {
                statements.push(format!("DROP ROUTINE IF EXISTS {}{}", o.name, identity(args)));
            }
            (ObjectKind::Function | ObjectKind::Procedure, _) => routines.push(format!("'{}'", o.name)),
            (ObjectKind::Sequence, _) => statements.push(format!("DROP SEQUENCE IF EXISTS {}", o.name)),
            // SQL Server's only: PostgreSQL's full-text indexes go with their tables.
            (ObjectKind::FullTextCatalog, _) => {}
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
    statements
}

/// An argument list as created, in the form `DROP ROUTINE` takes: without the `DEFAULT` clauses
/// (DS2's `purchase` has ten pairs of defaulted arguments).
fn identity(args: &str) -> String {
    let inner = args.strip_prefix('(').and_then(|a| a.strip_suffix(')')).unwrap_or(args);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in inner.char_indices().chain([(inner.len(), ',')]) {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                let arg = &inner[start..at];
                let upper = arg.to_ascii_uppercase();
                let end =
                    [" DEFAULT ", " = "].iter().filter_map(|w| upper.find(w)).min().unwrap_or(arg.len());
                parts.push(arg[..end].trim().to_string());
                start = at + 1;
            }
            _ => {}
        }
    }
    format!("({})", parts.join(", "))
}

/// Drops a workload's `tables` and the `objects` its load created beside them, in one transaction
/// and without `CASCADE`, so that either all of it goes or nothing does: the triggers on the tables
/// first (their functions are among `objects`), then the routines (DS2's browse functions return rows
/// of its tables' types), then the tables in one statement (PostgreSQL accepts foreign keys among the
/// listed tables), then the sequences their columns' defaults used. When anything else depends on them
/// (a user's view over a table, a user table's foreign key to one, a user's function over one of
/// oltpgen's), PostgreSQL refuses, and so does oltpgen, naming the dependents.
///
/// # Errors
/// [`dependents_refusal`] when other objects depend on what would be dropped, naming
/// them from the server's detail, with nothing dropped; [`Error::Failed`] when the drop fails otherwise
/// (e.g. the tables are in use).
pub async fn drop_workload(
    client: &Client,
    target: &Target,
    tables: &[&str],
    objects: &[Object],
) -> Result<(), Error> {
    let mut statements = Vec::new();
    if !tables.is_empty() {
        let names: Vec<String> = tables.iter().map(|t| format!("'{t}'")).collect();
        statements.push(format!(
            "DO $$ DECLARE t record; BEGIN FOR t IN SELECT tgname, tgrelid::regclass AS rel FROM pg_trigger \
               WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class \
                 WHERE relnamespace = current_schema()::regnamespace AND relname IN ({})) \
             LOOP EXECUTE format('DROP TRIGGER %I ON %s', t.tgname, t.rel); END LOOP; END $$",
            names.join(", ")
        ));
    }
    // Sequences after the tables: a table's column default uses its sequence (and an owned one goes
    // with its table).
    let (sequences, others): (Vec<Object>, Vec<Object>) =
        objects.iter().cloned().partition(|o| o.kind == ObjectKind::Sequence);
    statements.extend(drop_object_statements(&others));
    if !tables.is_empty() {
        statements.push(format!("DROP TABLE IF EXISTS {}", tables.join(", ")));
    }
    statements.extend(drop_object_statements(&sequences));
    if statements.is_empty() {
        return Ok(());
    }
    // One simple query: PostgreSQL runs its statements as one transaction, rolled back at the first error.
    let Err(e) = client.batch_execute(&statements.join(";\n")).await else {
        return Ok(());
    };
    match e.as_db_error() {
        // 2BP01: the detail lists the dependents, one a line ("view v depends on table warehouse").
        Some(db) if *db.code() == tokio_postgres::error::SqlState::DEPENDENT_OBJECTS_STILL_EXIST => {
            let dependents: Vec<&str> = db.detail().unwrap_or_default().lines().collect();
            Err(dependents_refusal(target, &dependents))
        }
        _ => Err(failed("dropping tables", target, &e)),
    }
}

#[cfg(test)]
mod tests {
    use super::{create_table, identity};
    use oltpgen_datagen::pgbench::tpcb;

    #[test]
    fn pgbench_accounts_aid_is_bigint_from_scale_20000_as_pgbench_i_makes_it() {
        let aid = |scale| {
            let ddl = create_table(&tpcb::tables(scale)[0]);
            ddl.split([',', '(']).map(str::trim).find(|c| c.starts_with("aid ")).unwrap().to_string()
        };
        assert!(aid(19_999).starts_with("aid integer"), "{}", aid(19_999));
        assert!(aid(20_000).starts_with("aid bigint"), "{}", aid(20_000));
        assert!(create_table(&tpcb::tables(20_000)[2]).contains("aid bigint"), "pgbench_history too");
    }

    #[test]
    fn an_argument_list_loses_its_defaults_and_keeps_its_types() {
        assert_eq!(identity("(a int4, b text)"), "(a int4, b text)");
        assert_eq!(identity("()"), "()");
        assert_eq!(
            identity("(n numeric(12,2), p0 int4 DEFAULT 0, q0 int4 default 0, r int4 = 1)"),
            "(n numeric(12,2), p0 int4, q0 int4, r int4)"
        );
    }
}
