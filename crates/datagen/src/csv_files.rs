//! A workload's database as one CSV file per table, generated on several threads.
//!
//! [`write_csv_files`] exists for engines (or runs) that load from files rather than over a PostgreSQL
//! connection: `COPY warehouse FROM '/dir/warehouse.csv' (FORMAT csv)` and most bulk loaders read them.
//! Threads generate whole chunks into memory in parallel; each table's chunks are then appended to its
//! file in chunk order, so the files are byte-identical whatever the number of threads.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::encode::Csv;
use crate::schema::Dataset;

/// A generated chunk's CSV bytes, waiting for the chunks before it in its table's file.
struct Done {
    csv: Vec<u8>,
    rows: u64,
}

/// One table's file and the chunks that are generated but not yet written.
struct TableFile {
    file: File,
    /// The position (among the table's chunks) of the next chunk to append.
    next: usize,
    /// Generated chunks by position, each later than `next`.
    pending: BTreeMap<usize, Done>,
}

/// Writes every row of `data` as CSV, one file per table: `<dir>/<table>.csv` (such as
/// `dir/order_line.csv`), no header line, columns in generation order, NULL as an empty unquoted
/// field. Existing files of those names are replaced; `dir` must exist.
///
/// `threads` threads generate chunks (0 counts as 1); `progress` is called, from any of them, with the
/// number of rows each time some are written, so the calls add up to [`Dataset::total_rows`]. The files
/// are the same for any number of threads. Chunks are handed out in order, so only a few per thread (a
/// few MB each) wait in memory for an earlier one.
///
/// # Errors
/// The first error creating or writing a file; the other threads then stop, and the files are left
/// incomplete.
pub fn write_csv_files<D: Dataset>(
    data: &D,
    dir: &Path,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> io::Result<()> {
    let chunks = data.chunks();
    // Each chunk's table and position among that table's chunks.
    let mut count = BTreeMap::<&str, usize>::new();
    let positions: Vec<usize> = chunks
        .iter()
        .map(|&c| {
            let n = count.entry(data.table_of(c).name).or_default();
            *n += 1;
            *n - 1
        })
        .collect();
    let mut files = BTreeMap::new();
    for table in data.tables() {
        let file = File::create(dir.join(format!("{}.csv", table.name)))?;
        let file = TableFile { file, next: 0, pending: BTreeMap::new() };
        files.insert(table.name, Mutex::new(file));
    }

    let next_chunk = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let first_error = Mutex::new(None::<io::Error>);
    let spare_buffers = Mutex::new(Vec::<Vec<u8>>::new());
    let worker = || {
        while !failed.load(Ordering::Relaxed) {
            let i = next_chunk.fetch_add(1, Ordering::Relaxed);
            let Some(&chunk) = chunks.get(i) else { break };
            let buf = spare_buffers.lock().expect("no panics").pop().unwrap_or_default();
            let done = generate(data, chunk, buf);
            let mut file = files[data.table_of(chunk).name].lock().expect("no panics");
            file.pending.insert(positions[i], done);
            if let Err(e) = append_ready(&mut file, progress, &spare_buffers) {
                failed.store(true, Ordering::Relaxed);
                first_error.lock().expect("no panics").get_or_insert(e);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, chunks.len().max(1)) {
            scope.spawn(worker);
        }
    });
    match first_error.into_inner().expect("no panics") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// One chunk as CSV, in `buf` (cleared first; reused to avoid reallocating).
fn generate<D: Dataset>(data: &D, chunk: D::Chunk, mut buf: Vec<u8>) -> Done {
    buf.clear();
    let mut csv = Csv::new(buf);
    data.write(chunk, &mut csv);
    let rows = csv.rows();
    Done { csv: csv.into_inner(), rows }
}

/// Appends the table's pending chunks that are next in order, and reports their rows.
fn append_ready(
    file: &mut TableFile,
    progress: &(dyn Fn(u64) + Sync),
    spare_buffers: &Mutex<Vec<Vec<u8>>>,
) -> io::Result<()> {
    while let Some(done) = file.pending.remove(&file.next) {
        file.file.write_all(&done.csv)?;
        file.next += 1;
        progress(done.rows);
        spare_buffers.lock().expect("no panics").push(done.csv);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;

    use super::*;
    use crate::tpcc::rows::{TpccData, TpccParams};
    use crate::tpcc::schema::Table;

    #[test]
    fn one_file_per_table_in_key_order_whatever_the_threads() {
        let data = TpccData::new(TpccParams::new(1, 77));
        let dir = tempfile::tempdir().unwrap();
        let reported = AtomicU64::new(0);
        write_csv_files(&data, dir.path(), 3, &|rows| {
            reported.fetch_add(rows, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(reported.into_inner(), data.total_rows());

        for table in Table::ALL {
            let written = std::fs::read(dir.path().join(format!("{}.csv", table.name()))).unwrap();
            // The same bytes as generating the table's chunks one after another on one thread.
            let mut csv = Csv::new(Vec::new());
            for chunk in data.chunks().into_iter().filter(|c| c.table == table) {
                data.write(chunk, &mut csv);
            }
            assert_eq!(csv.rows(), written.iter().filter(|&&b| b == b'\n').count() as u64);
            assert!(written == csv.into_inner(), "{table:?} differs");
            // Text is alphanumeric, so no field is quoted and every line has one field per column.
            let first = written.split(|&b| b == b'\n').next().unwrap();
            assert_eq!(first.split(|&b| b == b',').count(), table.columns().len(), "{table:?}");
        }
        // NULL is an empty field: undelivered orders end with ",,<o_ol_cnt>,1".
        let orders = std::fs::read_to_string(dir.path().join("orders.csv")).unwrap();
        let last = orders.lines().last().unwrap();
        assert!(last.starts_with("3000,10,1,"), "{last}");
        assert_eq!(last.split(',').nth(5), Some(""), "{last}");

        // One thread writes the same files.
        let again = tempfile::tempdir().unwrap();
        write_csv_files(&data, again.path(), 1, &|_| {}).unwrap();
        for table in [Table::OrderLine, Table::Stock, Table::Customer] {
            let name = format!("{}.csv", table.name());
            let a = std::fs::read(dir.path().join(&name)).unwrap();
            let b = std::fs::read(again.path().join(&name)).unwrap();
            assert!(a == b, "{name} depends on the threads");
        }
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let data = TpccData::new(TpccParams::new(1, 1));
        let err = write_csv_files(&data, &dir.path().join("absent"), 2, &|_| {}).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
