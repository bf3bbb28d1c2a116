//! Tells the integration tests, when they are built, whether MariaDB's server is installed (`mariadbd`
//! and `mariadb-install-db` on the `PATH` or in `/usr/sbin`: the MariaDB tests start one of their own;
//! `cfg(oltpgen_test_mariadb)`, else they are listed as ignored, needing the package) and whether a SQL
//! Server is at hand: with
//! `OLTPGEN_TEST_MSSQL_URL` set (and not empty) they are built with `cfg(oltpgen_test_mssql)` and the
//! SQL Server tests run; without it those tests are built `#[ignore]`d with the reason, so that
//! `cargo test` lists them as `ignored, needs a SQL Server: …` rather than as passed. Cargo's test
//! harness cannot skip a test at run time, hence the decision here, where cargo reruns it whenever the
//! variable changes. The binary itself never looks at the flag. Likewise `SLURM_CONF` (a running Slurm)
//! for the agents' tests under Slurm, `cfg(oltpgen_test_slurm)`.

/// The variable that names the SQL Server the tests may use (`.ci/run` exports it before building).
const URL_VAR: &str = "OLTPGEN_TEST_MSSQL_URL";

/// The variable that names a running Slurm's configuration (`../shared/slurm/start` prints it, `.ci/run`
/// exports it): with it, the agents' tests under real Slurm (`cfg(oltpgen_test_slurm)`) run.
const SLURM_VAR: &str = "SLURM_CONF";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed={URL_VAR}");
    println!("cargo:rustc-check-cfg=cfg(oltpgen_test_mssql)");
    println!("cargo:rerun-if-env-changed=PATH");
    println!("cargo:rustc-check-cfg=cfg(oltpgen_test_mariadb)");
    if ["mariadbd", "mariadb-install-db", "mariadb"].iter().all(|b| installed(b)) {
        println!("cargo:rustc-cfg=oltpgen_test_mariadb");
    }
    if std::env::var_os(URL_VAR).is_some_and(|url| !url.is_empty()) {
        println!("cargo:rustc-cfg=oltpgen_test_mssql");
    }
    println!("cargo:rerun-if-env-changed={SLURM_VAR}");
    println!("cargo:rustc-check-cfg=cfg(oltpgen_test_slurm)");
    if std::env::var_os(SLURM_VAR).is_some_and(|conf| !conf.is_empty()) {
        println!("cargo:rustc-cfg=oltpgen_test_slurm");
    }
}

/// Whether the program `name` is on the `PATH` or in `/usr/sbin` (where Debian puts `mariadbd`).
fn installed(name: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([std::path::PathBuf::from("/usr/sbin")])
        .any(|dir| dir.join(name).is_file())
}
