//! `--find-max` end to end (issue 42): the searches on servers whose capacity a trigger fixes, on
//! PostgreSQL, MariaDB and SQL Server, and the refusals. A binary of its own: its searches take turns
//! (each measures a capacity, and two at once would measure each other), so they make a long chain that
//! `.ci/run` runs beside the other test binaries rather than inside the `cli` binary's threads. The
//! modules live in `tests/cli/` with the helpers they share.

// The shared helpers: each binary uses a part of them.
#[allow(dead_code)]
#[path = "../cli/common.rs"]
mod common;
#[path = "../cli/find_max.rs"]
mod find_max;
#[path = "../cli/find_max_more.rs"]
mod find_max_more;
#[allow(dead_code)]
#[path = "../cli/mariadb_common.rs"]
mod mariadb_common;
#[allow(dead_code)]
#[path = "../cli/mssql_common.rs"]
mod mssql_common;
