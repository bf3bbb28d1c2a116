//! The SQL Server suites (Babelfish, whose URL CI exports as `OLTPGEN_TEST_MSSQL_URL`): TPC-C and DS2
//! loaded, driven, killed and restarted there, and the client-side and server-side modes. A binary of
//! its own: SQL Server tests take turns on the one server ([`common::mssql_turn`], a lock across
//! processes), so they make a long chain that `.ci/run` runs beside the other test binaries rather than
//! inside the `cli` binary's threads. The modules live in `tests/cli/` with the helpers they share.

// The shared helpers: each binary uses a part of them.
#[allow(dead_code)]
#[path = "../cli/checksums.rs"]
mod checksums;
#[allow(dead_code)]
#[path = "../cli/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../cli/mariadb_common.rs"]
mod mariadb_common;
#[path = "../cli/mssql_common.rs"]
mod mssql_common;
#[path = "../cli/mssql_ds2.rs"]
mod mssql_ds2;
#[path = "../cli/mssql_load_parts.rs"]
mod mssql_load_parts;
#[path = "../cli/mssql_modes.rs"]
mod mssql_modes;
#[path = "../cli/mssql_tpcc.rs"]
mod mssql_tpcc;
#[allow(dead_code)]
#[path = "../cli/sampled_check.rs"]
mod sampled_check;
#[allow(dead_code)]
#[path = "../cli/tpcc_stream.rs"]
mod tpcc_stream;
