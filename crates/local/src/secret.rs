//! The built-in server's password: made at init, kept where only its owner can read it.
//!
//! The server asks every connection, local or TCP, for a password (scram-sha-256), so that no other
//! account on the machine gets in as its superuser. The secret is generated once, when the instance is
//! made, and kept in the instance's [`PASSFILE`] (mode 0600, libpq's `.pgpass` format), which oltpgen
//! reads itself and which `oltpgen local url` names for psql (`?passfile=`).

use std::io::{Read as _, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use super::account::{self, RunAs};
use oltpgen_pg::pgpass;
use oltpgen_vocab::Error;

/// The password file in the instance's directory.
pub const PASSFILE: &str = "passfile";

/// The file that hands the password to `initdb` (removed once it ran).
pub const PWFILE: &str = "initdb-pwfile";

/// The path of the password file of the instance at `root`.
pub fn passfile(root: &Path) -> PathBuf {
    root.join(PASSFILE)
}

/// Makes a new secret, stores it in the instance's password file (readable by its owner only), and
/// writes it for initdb into a file of its own that the server's account can read: that file's path is
/// returned, for the caller to remove once initdb has read it.
///
/// # Errors
/// [`Error::Environment`] when there is no randomness or a file cannot be written.
pub fn create(root: &Path, user: &str, account: Option<RunAs>) -> Result<PathBuf, Error> {
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| Error::environment(format!("cannot read /dev/urandom for a password: {e}")))?;
    let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    write_private(&passfile(root), &pgpass::entry_for_any_database(user, &secret))?;
    let pwfile = root.join(PWFILE);
    write_private(&pwfile, &format!("{secret}\n"))?;
    account::hand_over(&pwfile, account)?;
    Ok(pwfile)
}

/// The password of `user` on the instance at `root`.
///
/// # Errors
/// [`Error::Environment`] when the password file is missing or unreadable.
pub fn read(root: &Path, user: &str) -> Result<String, Error> {
    let path = passfile(root);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::environment(format!(
            "cannot read the built-in PostgreSQL's password from {}: {e}",
            path.display()
        ))
    })?;
    let any = pgpass::Wanted { host: "127.0.0.1", port: 0, dbname: "postgres", user };
    pgpass::lookup(&text, any)
        .ok_or_else(|| Error::environment(format!("{} holds no password for {user}", path.display())))
}

fn write_private(path: &Path, text: &str) -> Result<(), Error> {
    let _ = std::fs::remove_file(path);
    std::fs::File::options()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| Error::environment(format!("cannot write {}: {e}", path.display())))
}
