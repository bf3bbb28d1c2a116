//! The file `oltpgen io` measures, and nothing else: made by oltpgen (a path that exists and is not
//! one of its files, a block device or a directory is refused), marked as its own in its first MiB,
//! filled with incompressible data, written over `--precondition` times, opened for direct I/O, and
//! removed when the command ends unless `--keep-file` (the mark then lets the next run reuse it, its
//! preconditioning included).

use std::fs::File;
use std::io::ErrorKind;
use std::os::unix::fs::{FileExt as _, FileTypeExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use oltpgen_datagen::Rng;
use serde::{Deserialize, Serialize};

use super::spec::{AccessSpec, bytes_phrase};
use crate::Error;
use oltpgen_vocab::progress::Progress;

/// The first bytes of every file `oltpgen io` makes: what tells its files from anyone else's.
const MAGIC: &[u8] = b"oltpgen io file: made by oltpgen io run, safe to delete\n";

/// The head of the file holds the mark; the I/Os fall after it. A MiB keeps every I/O offset aligned
/// for any transfer size up to a MiB.
pub const HEAD_BYTES: u64 = 1 << 20;

/// Memory that direct I/O reads into and writes from starts on a page (the strictest devices' sector).
const ALIGN: usize = 4096;

/// The fill writes this much at a time.
const FILL_CHUNK: u64 = 1 << 20;

/// What the mark records: the region it was made for, and how often it was written whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// The I/O region's bytes (after the head).
    pub region_bytes: u64,
    /// Whole writes of the region so far: the fill is the first, each preconditioning pass one more.
    pub passes: u32,
}

/// How the file is prepared and opened.
#[derive(Clone, Copy, Debug)]
pub struct FileOptions {
    /// Direct I/O (else through the page cache: `--buffered`).
    pub direct: bool,
    /// `--precondition N`: whole writes of the region after the fill, before measuring.
    pub precondition: u32,
    /// `--keep-file`: leave the file when the command ends.
    pub keep: bool,
    /// `--quiet`: no progress bar.
    pub quiet: bool,
}

/// The file, ready for I/O; removed when dropped unless it is kept.
#[derive(Debug)]
pub struct TestFile {
    path: PathBuf,
    keep: bool,
    /// Whether this command made it (a file reused from a kept run is ours too).
    remove: bool,
    /// Whole writes done when it was opened (`passes` of its mark).
    pub passes: u32,
    /// Whether this command filled or preconditioned it.
    pub written: bool,
}

impl TestFile {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        if self.remove && !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Opens `path` for reading and writing, with `O_DIRECT` when `direct`.
pub(super) fn open(path: &Path, direct: bool) -> std::io::Result<File> {
    let flags = if direct { rustix::fs::OFlags::DIRECT.bits() as i32 } else { 0 };
    File::options().read(true).write(true).custom_flags(flags).open(path)
}

/// A page-aligned buffer for direct I/O, made without unsafe code: a longer vector, used from its first
/// aligned byte.
pub struct AlignedBuf {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    /// `len` zero bytes, page-aligned.
    pub fn new(len: usize) -> Self {
        let bytes = vec![0u8; len + ALIGN];
        let start = bytes.as_ptr().align_offset(ALIGN);
        AlignedBuf { bytes, start, len }
    }

    /// The buffer.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + self.len]
    }
}

/// Fills `buf` with the next bytes of `rng`: data no compression shrinks, and none that deduplication
/// finds again. Whole words at a time (xoshiro256++: 1.3 µs of CPU per 16 KiB, against 3.1 µs a word's
/// bytes at a time, on the project's VM).
pub fn fill_random(buf: &mut [u8], rng: &mut Rng) {
    let mut words = buf.chunks_exact_mut(8);
    for word in &mut words {
        word.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let rest = words.into_remainder();
    if !rest.is_empty() {
        let len = rest.len();
        rest.copy_from_slice(&rng.next_u64().to_le_bytes()[..len]);
    }
}

/// Makes (or reuses) the file at `path` for `spec`: checks it is oltpgen's or new, that the disk has room,
/// that direct I/O is accepted, then fills and preconditions it with a progress bar, stopping when
/// `stop` is set (then the file is removed, unless kept: its mark says how far it got).
///
/// # Errors
/// A usage error naming `--file` for a path that is not oltpgen's, a disk without room, a filesystem
/// that refuses direct I/O; a failure for a write that fails; [`Error::Interrupted`] when stopped.
pub fn prepare(
    path: &Path,
    spec: &AccessSpec,
    opts: FileOptions,
    stop: &AtomicBool,
) -> Result<TestFile, Error> {
    let found = existing(path)?;
    let total = HEAD_BYTES + spec.size_bytes;
    let have = found.map_or(0, |(_, len)| len);
    check_room(path, total.saturating_sub(have))?;
    if found.is_none() {
        File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::usage(format!("--file {}: cannot create it: {e}", path.display())))?;
    }
    // From here the file is ours: a failure removes it (unless kept).
    let mut file =
        TestFile { path: path.to_path_buf(), keep: opts.keep, remove: true, passes: 0, written: false };
    let reusable = found.and_then(|(mark, _)| mark).filter(|m| m.region_bytes == spec.size_bytes);
    let mut mark = reusable.unwrap_or(Mark { region_bytes: spec.size_bytes, passes: 0 });
    write_mark(path, &mark)?;
    check_direct(path, opts.direct, spec.block_bytes)?;
    let wanted = 1 + opts.precondition;
    if mark.passes < wanted {
        let passes = wanted - mark.passes;
        let what = if mark.passes == 0 { "filling" } else { "preconditioning" };
        let bar =
            Progress::new(what, spec.size_bytes.div_ceil(1 << 20) * u64::from(passes), "MiB", opts.quiet);
        for _ in 0..passes {
            if mark.passes >= 1 {
                bar.phase("preconditioning");
            }
            write_region(path, spec.size_bytes, opts.direct, mark.passes, &bar, stop)?;
            mark.passes += 1;
            write_mark(path, &mark)?;
        }
        bar.finish();
        file.written = true;
    }
    file.passes = mark.passes;
    Ok(file)
}

/// What is at `path`: nothing (`None`), or an oltpgen file with its mark (`None` when the mark cannot be
/// read: a fill that was cut short) and its length.
///
/// # Errors
/// A usage error for anything else at `path`.
fn existing(path: &Path) -> Result<Option<(Option<Mark>, u64)>, Error> {
    let refuse = |why: String| Error::usage(format!("--file {}: {why}", path.display()));
    let meta = match path.symlink_metadata() {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !parent.is_dir() {
                return Err(refuse(format!("the directory {} does not exist", parent.display())));
            }
            return Ok(None);
        }
        Err(e) => return Err(refuse(format!("cannot look at it: {e}"))),
        Ok(meta) => meta,
    };
    let kind = meta.file_type();
    if kind.is_block_device() || kind.is_char_device() {
        return Err(refuse(
            "is a device: oltpgen io writes only into a file it made; give a new file's path on the device's \
             filesystem"
                .into(),
        ));
    }
    if !kind.is_file() {
        return Err(refuse("is not a plain file: give a new file's path".into()));
    }
    let mut head = vec![0u8; 4096];
    let n = File::open(path)
        .and_then(|f| f.read_at(&mut head, 0))
        .map_err(|e| refuse(format!("cannot read it: {e}")))?;
    let head = &head[..n];
    if !head.starts_with(MAGIC) {
        return Err(refuse(
            "exists and is not a file oltpgen io made: oltpgen never writes into anyone else's file; name a new \
             file"
                .into(),
        ));
    }
    let json = &head[MAGIC.len()..];
    let json = &json[..json.iter().position(|&b| b == b'\n').unwrap_or(json.len())];
    Ok(Some((serde_json::from_slice(json).ok(), meta.len())))
}

/// Writes the mark (oltpgen's words, then `mark` as JSON) into the head, and syncs it.
fn write_mark(path: &Path, mark: &Mark) -> Result<(), Error> {
    let mut head = MAGIC.to_vec();
    head.extend(serde_json::to_vec(mark).expect("a mark serializes"));
    head.push(b'\n');
    head.resize(4096, 0);
    File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.write_all_at(&head, 0).and_then(|()| f.sync_data()))
        .map_err(|e| Error::failed(format!("--file {}: cannot write its mark: {e}", path.display())))
}

/// Refuses a disk without `need` more bytes free where `path` goes.
fn check_room(path: &Path, need: u64) -> Result<(), Error> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match oltpgen_vocab::space::free_bytes(dir) {
        Some(free) if free < need => Err(Error::usage(format!(
            "--file {}: the file needs {} more and its disk has {} free: give a smaller --size or a path on a \
             larger disk",
            path.display(),
            bytes_phrase(need),
            bytes_phrase(free)
        ))),
        _ => Ok(()),
    }
}

/// Checks that the file takes direct I/O of `block_bytes` (one read at the region's start), naming
/// the filesystem that refuses it.
fn check_direct(path: &Path, direct: bool, block_bytes: u64) -> Result<(), Error> {
    if !direct {
        return Ok(());
    }
    let refused = |why: String| {
        Error::usage(format!(
            "--file {}: the {} filesystem there {why}: put --file on another filesystem, or give --buffered \
             (the page cache then answers reads, and the figures are the cache's as much as the disk's)",
            path.display(),
            filesystem_of(path).unwrap_or_else(|| "file's".into())
        ))
    };
    let file = open(path, true).map_err(|e| refused(format!("refuses direct I/O (O_DIRECT: {e})")))?;
    let mut buf = AlignedBuf::new(block_bytes as usize);
    match file.read_at(buf.bytes_mut(), HEAD_BYTES) {
        Err(e) if e.kind() == ErrorKind::InvalidInput => Err(refused(format!(
            "refuses direct I/O of {} at a time (its sectors are larger: give a --block of whole sectors)",
            bytes_phrase(block_bytes)
        ))),
        Err(e) => Err(Error::failed(format!("--file {}: cannot read it: {e}", path.display()))),
        Ok(_) => Ok(()),
    }
}

/// The type of the filesystem holding `path` (`ext4`, `tmpfs`), from the mount table.
pub fn filesystem_of(path: &Path) -> Option<String> {
    let dir = std::fs::canonicalize(path.parent()?).ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split(' ');
            let (_, at, kind) = (f.next()?, f.next()?, f.next()?);
            dir.starts_with(at.replace("\\040", " ")).then(|| (at.len(), kind.to_string()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, kind)| kind)
}

/// Writes the whole region once, in order, with data unique to this pass (and to this fill: the seed
/// is the clock's), advancing `bar` by MiB; stops when `stop` is set.
fn write_region(
    path: &Path,
    region: u64,
    direct: bool,
    pass: u32,
    bar: &Progress,
    stop: &AtomicBool,
) -> Result<(), Error> {
    let failed =
        |e: std::io::Error| Error::failed(format!("--file {}: cannot write it: {e}", path.display()));
    let file = open(path, direct).map_err(failed)?;
    let seed =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut buf = AlignedBuf::new(FILL_CHUNK as usize);
    let mut at = 0;
    while at < region {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted(format!("the file {} was not filled", path.display())));
        }
        let len = FILL_CHUNK.min(region - at) as usize;
        let chunk = &mut buf.bytes_mut()[..len];
        fill_random(chunk, &mut Rng::derive(seed, &[u64::from(pass), at]));
        file.write_all_at(chunk, HEAD_BYTES + at).map_err(failed)?;
        at += len as u64;
        bar.advance(1);
    }
    file.sync_data().map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(keep: bool) -> FileOptions {
        FileOptions { direct: false, precondition: 0, keep, quiet: true }
    }

    #[test]
    fn only_a_file_oltpgen_made_is_written_and_it_is_removed_unless_kept() {
        let dir = tempfile::tempdir().unwrap();
        let spec = AccessSpec::new(4 << 20, 16_384, 30, 100).unwrap();
        let stop = AtomicBool::new(false);
        let foreign = dir.path().join("data.db");
        std::fs::write(&foreign, b"someone's data").unwrap();
        let e = prepare(&foreign, &spec, opts(false), &stop).unwrap_err().to_string();
        assert!(e.contains("is not a file oltpgen io made"), "{e}");
        assert_eq!(std::fs::read(&foreign).unwrap(), b"someone's data", "left as it was");
        let e = prepare(dir.path(), &spec, opts(false), &stop).unwrap_err().to_string();
        assert!(e.contains("is not a plain file"), "{e}");
        let e = prepare(Path::new("/dev/null"), &spec, opts(false), &stop).unwrap_err().to_string();
        assert!(e.contains("is a device"), "{e}");
        let e = prepare(&dir.path().join("no/such/f"), &spec, opts(false), &stop).unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");

        let path = dir.path().join("io.dat");
        let file = prepare(&path, &spec, opts(false), &stop).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), HEAD_BYTES + (4 << 20));
        assert_eq!((file.passes, file.written), (1, true));
        drop(file);
        assert!(!path.exists(), "removed at the end");

        let kept = prepare(&path, &spec, FileOptions { precondition: 1, ..opts(true) }, &stop).unwrap();
        assert_eq!(kept.passes, 2, "filled, then written over once");
        drop(kept);
        assert!(path.exists(), "--keep-file");
        let again = prepare(&path, &spec, FileOptions { precondition: 1, ..opts(false) }, &stop).unwrap();
        assert_eq!((again.passes, again.written), (2, false), "reused with its preconditioning");
        drop(again);
        assert!(!path.exists());
    }

    #[test]
    fn a_stopped_fill_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("io.dat");
        let spec = AccessSpec::new(4 << 20, 4096, 0, 100).unwrap();
        let e = prepare(&path, &spec, opts(false), &AtomicBool::new(true)).unwrap_err();
        assert!(matches!(e, Error::Interrupted(_)), "{e}");
        assert!(!path.exists());
    }

    #[test]
    fn the_data_neither_compresses_nor_repeats() {
        let mut a = AlignedBuf::new(16_384);
        assert_eq!(a.bytes_mut().as_ptr() as usize % ALIGN, 0);
        // Two writes' data, each from its own stream (as two writes of a session get theirs).
        fill_random(a.bytes_mut(), &mut Rng::derive(1, &[7, 1]));
        let mut b = AlignedBuf::new(16_384);
        fill_random(b.bytes_mut(), &mut Rng::derive(1, &[7, 2]));
        // No two sectors alike, nor alike in any 64 bytes at the same place.
        let (a, b) = (a.bytes_mut().to_vec(), b.bytes_mut().to_vec());
        let mut pieces: Vec<&[u8]> = a.chunks(64).chain(b.chunks(64)).collect();
        let n = pieces.len();
        pieces.sort();
        pieces.dedup();
        assert_eq!(pieces.len(), n, "no 64 bytes of two writes alike");
        // Random bytes: about one in 256 is zero.
        let zeros = a.iter().filter(|&&x| x == 0).count();
        assert!(zeros < 16_384 / 128, "random bytes, not a pattern: {zeros} zeros");
    }
}
