//! Running the binary and judging its output.

use std::path::Path;
use std::process::Command;

use oltpgen_driver::Target;
use oltpgen_driver::local::{LocalPg, Placement};

/// What one run of the binary did.
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// Everything the user saw.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs `oltpgen args…` to completion.
pub fn oltpgen(args: &[&str]) -> Outcome {
    oltpgen_env(args, &[])
}

/// Runs `oltpgen args…` with extra environment variables.
pub fn oltpgen_env(args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_oltpgen"))
        .args(args)
        .envs(env.iter().copied())
        .env_remove("OLTPGEN_URL")
        .output()
        .expect("the oltpgen binary runs");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Asserts a clean refusal: exit 2, one line on stderr that contains `needle`, no panic, no secret.
#[track_caller]
pub fn assert_refused(out: &Outcome, needle: &str) {
    assert_eq!(out.code, 2, "exit code; output:\n{}", out.all());
    let lines: Vec<&str> = out.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line on stderr, got:\n{}", out.stderr);
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    assert!(lines[0].contains(needle), "expected '{needle}' in: {}", lines[0]);
    assert_no_secret(out);
}

/// The password used in every test URL; it must never be shown.
pub const SECRET: &str = "s3cr3t-Pa55";

#[track_caller]
pub fn assert_no_secret(out: &Outcome) {
    assert!(!out.all().contains(SECRET), "the password leaked:\n{}", out.all());
    assert!(!out.all().contains("panicked"), "a panic:\n{}", out.all());
}

/// A data directory for a lasting built-in instance that the server's account can reach.
pub fn data_dir() -> (tempfile::TempDir, String) {
    let dir = tempfile::Builder::new().prefix("oltpgen-test-").tempdir().expect("a temporary directory");
    open_to_server_account(dir.path());
    let root = dir.path().join("pg").to_string_lossy().into_owned();
    (dir, root)
}

fn open_to_server_account(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Starts the built-in instance at `root` for the test's own SQL (it stops when the guard drops).
pub fn start_server(root: &str) -> LocalPg {
    LocalPg::start(&Placement::Dir(root.into()), 50).expect("the built-in PostgreSQL starts")
}

/// Opens a connection to `target`, waiting for a server that is still starting.
pub async fn sql(target: &Target) -> tokio_postgres::Client {
    for _ in 0..100 {
        if let Ok((client, conn)) = target.pg_config().connect(tokio_postgres::NoTls).await {
            tokio::spawn(conn);
            return client;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("cannot connect to {target}");
}
