//! End-to-end tests of the `oltpgen` binary against real PostgreSQL servers that the tests start
//! themselves (the built-in PostgreSQL, through `--temp-db` or a throwaway `--data-dir`), and against
//! a SQL Server–compatible server (Babelfish) whose URL CI exports as `OLTPGEN_TEST_MSSQL_URL`
//! (SQL Server cases in `bad_input`, `study`, `tpcc_databases`, the custom and YCSB workloads; each
//! creates and drops its own database). Without that variable when the tests are built, those are
//! listed as ignored with the reason (`build.rs`, `mssql_common`); and against MariaDB servers the
//! tests start themselves (`mariadb_*`, the MySQL engine), listed as ignored where the package is not
//! installed (`mariadb_common`).
//!
//! `io` drives a file of its own with direct I/O.
//!
//! The study cycle around repeated runs (restore, hooks, idle, meters, the median run) is `study`.
//!
//! One test binary for most suites, so the binary and its dependencies link once. Two long chains of
//! tests that take turns have binaries of their own, which `.ci/run` runs beside this one: the SQL
//! Server suites (`tests/sql_server`) and the searches for the maximum (`tests/find_max`); their
//! modules live here, beside the helpers they share, as the matrix's (`tests/matrix`) do.

mod agents;
mod agents_merge;
mod any_workload;
mod bad_input;
mod check_sample;
mod check_sample_refusals;
mod checked_first;
mod checks;
// Its MariaDB and SQL Server sums serve the matrix (`tests/matrix`), which drives every engine.
#[allow(dead_code)]
mod checksums;
mod common;
mod console_words;
mod corruptions;
mod counters;
mod custom;
mod custom_ack_row;
mod custom_check_result;
mod custom_drop;
mod custom_drop_name;
mod custom_engines;
mod custom_files;
mod custom_study;
mod descriptor;
mod drop_dependents;
mod ds2;
mod ds2_dropin;
mod failover;
mod failover_any;
mod figures;
mod first_hook;
mod help_flags;
mod io;
mod io_kernels;
mod load_parts;
mod load_resume;
mod load_stop;
mod local;
mod mariadb_common;
mod mariadb_ds2;
mod mariadb_load_parts;
mod mariadb_restore;
mod mariadb_tpcc;
mod memory_cgroup;
mod newcomer_words;
mod pair;
mod pgbench;
mod pgbench_more;
mod pristine_window;
mod rate;
mod report_cli;
mod report_figures;
mod report_html;
mod report_pages;
mod runs_lost_commits;
mod sampled_check;
mod session_names;
mod slurm;
mod slurm_load;
mod tpcc_databases;

mod custom_text;
mod custom_types;
mod study;
mod study_common;
mod tpcc_load;
mod tpcc_run;
mod tpcc_server_side;
mod tpcc_spec;
mod tpcc_stream;
mod ycsb;
mod ycsb_fields;
