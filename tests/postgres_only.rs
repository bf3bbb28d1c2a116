//! The build that speaks PostgreSQL only (`cargo build --no-default-features --features postgres`):
//! what it was built without is refused in one line that names the feature, exit 2, before any work.
//! CI runs this binary under that feature set (`cargo test --no-default-features --features postgres
//! --test postgres_only`); in the default build, which has every feature, it holds no test.
#![cfg(all(
    feature = "postgres",
    not(feature = "mssql"),
    not(feature = "mysql"),
    not(feature = "io"),
    not(feature = "local")
))]

use std::process::Command;

/// Runs the PostgreSQL-only binary with `args` in a fresh directory; its exit code, stdout and stderr.
fn oltpgen(args: &[&str]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_oltpgen"))
        .args(args)
        .current_dir(dir.path())
        .env_remove("OLTPGEN_URL")
        .env("OLTPGEN_DATA_DIR", dir.path().join("data"))
        .output()
        .expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn what_the_build_lacks_is_refused_in_one_line_naming_the_feature() {
    let ado = "Server=tcp:db1,1433;Database=tpcc;User Id=sa;Password=s3cret";
    for (args, feature) in [
        (vec!["tpcc", "run", "--url", "sqlserver://sa:s3cret@db1:1433/tpcc"], "`mssql`"),
        (vec!["tpcc", "load", "--scale", "1", "--url", "mssql://sa:s3cret@db1/tpcc"], "`mssql`"),
        (vec!["ds2", "check", "--url", ado], "`mssql`"),
        (vec!["tpcc", "--url", "mysql://root:s3cret@db1:3306/tpcc"], "`mysql`"),
        (vec!["ds2", "run", "--url", "mariadb://root:s3cret@db1/ds2"], "`mysql`"),
        (vec!["io", "run", "--file", "io.dat", "--size", "64M"], "`io`"),
        (vec!["io", "model", "result.json"], "`io`"),
        (vec!["io", "--help"], "`io`"),
        (vec!["local", "status"], "`local`"),
        (vec!["tpcc", "load", "--scale", "1"], "`local`"),
        (vec!["ds2", "--temp-db"], "`local`"),
    ] {
        let (code, stdout, stderr) = oltpgen(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stdout, "", "{args:?}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("built without the {feature} feature")), "{args:?}: {stderr}");
        assert!(stderr.contains("cargo build --release --features"), "{args:?}: {stderr}");
        assert!(!stderr.contains("s3cret") && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn what_the_build_has_still_works() {
    let (code, stdout, _) = oltpgen(&["tpcc", "--help"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("--url"), "{stdout}");
    // A PostgreSQL URL is taken: the refusal is the server's absence, not the build's.
    let (code, _, stderr) = oltpgen(&["tpcc", "run", "--url", "postgres://bench:s3cret@127.0.0.1:1/tpcc"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stderr.contains("built without"), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
    let (code, _, stderr) = oltpgen(&["report", "show", "missing.json"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stderr.contains("built without"), "{stderr}");
}
