//! End-to-end tests of the `oltpgen` binary against real PostgreSQL servers that the tests start
//! themselves (the built-in PostgreSQL, through `--temp-db` or a throwaway `--data-dir`).
//!
//! One test binary, so the binary and its dependencies link once.

mod bad_input;
mod checks;
mod common;
mod corruptions;
mod counters;
mod ds2;
mod ds2_dropin;
mod figures;
mod local;
mod report_cli;
mod report_html;
mod report_pages;
mod tpcc_load;
mod tpcc_run;
mod tpcc_server_side;
mod tpcc_spec;
