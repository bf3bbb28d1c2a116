//! Words said deep inside a command's work reach its standard error through the command's console
//! (issue 38): a password file's warning is said while the URL is read, far below any function that
//! holds the console, by the handle the binary scopes around the command.

use crate::common::oltpgen_env;

#[test]
fn a_password_file_others_can_read_is_said_to_be_ignored() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let pgpass = dir.path().join("pgpass");
    std::fs::write(&pgpass, "127.0.0.1:1:*:bench:s3cret\n").unwrap();
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let url = "postgres://bench@127.0.0.1:1/tpcc";
    let out = oltpgen_env(&["tpcc", "check", "--url", url], &[("PGPASSFILE", pgpass.to_str().unwrap())]);
    let warning = format!(
        "warning: password file {} has group or world access and is ignored (as psql does); chmod 0600 it",
        pgpass.display()
    );
    assert!(out.stderr.contains(&warning), "{}", out.all());
    assert!(!out.all().contains("s3cret"), "{}", out.all());
}
