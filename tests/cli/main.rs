//! End-to-end tests of the `oltpgen` binary against real PostgreSQL servers that the tests start
//! themselves (the built-in PostgreSQL, through `--temp-db` or a throwaway `--data-dir`).
//!
//! One test binary, so the binary and its dependencies link once.

mod bad_input;
mod checks;
mod common;
mod corruptions;
mod ds2;
mod ds2_dropin;
mod figures;
mod local;
mod mssql_common;
mod mssql_ds2;
mod report_cli;
mod report_html;
mod tpcc_load;
mod tpcc_run;
mod tpcc_spec;
