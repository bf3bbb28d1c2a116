//! The commits a run saw acknowledged, kept beside its result ([`ACKS_FILE`]) so that `tpcc check
//! --result DIR`, `ds2 check --result DIR` and `custom check --result DIR` compare them with the database serving later, as the end of
//! each run does. Binary rather than CSV, after a 16-byte header naming the format. TPC-C's and DS2's
//! orders are written as they always were (`oltpgen acks v2`): 16 bytes each (warehouse, order id and
//! customer as little-endian `u32`, district, line count, target and the study's run as one byte each;
//! DS2's purchase with no warehouse or district), so a million orders take 16 MB and any oltpgen reads
//! them. Keys that do not fit that (a script's or a workload file's, of another kind, wider values)
//! make the file `oltpgen acks v3`: each acknowledgement its kind, target, run and value count (one
//! byte each), then each value as a zigzag LEB128 varint. Written at the end of the run, as
//! `result.json` is (a run killed with SIGKILL keeps neither). A file of the first format (`oltpgen acks
//! v1`: the run's byte spare, 0) still reads, its orders of no known run.

use std::path::{Path, PathBuf};

use oltpgen_report::model::WorkloadName;
use oltpgen_report::model::cycle::RunRecord;
use oltpgen_report::model::outage::AckComparison;
use oltpgen_report::stats::merge::MERGED_RESULTS;

use crate::Error;
use oltpgen_vocab::claim::RESULT_FILE;
use oltpgen_vocab::outcome::{ACK_VALUES, Ack, Acks, Order};

/// The file's name in the result's directory.
pub const ACKS_FILE: &str = "acks.bin";

/// The header: the format and its version (3: each acknowledgement its workload's key, of any values).
const MAGIC: &[u8; 16] = b"oltpgen acks v3\n";

/// The second format's header: TPC-C's and DS2's orders of 16 bytes, each tagged with its run.
const MAGIC_V2: &[u8; 16] = b"oltpgen acks v2\n";

/// The first format's header: as the second, the run byte spare (0).
const MAGIC_V1: &[u8; 16] = b"oltpgen acks v1\n";

/// One order's bytes in the first two formats.
const RECORD_V2: usize = 16;

/// Writes `acks` into `dir` (the result's directory, claimed by the run) atomically, as `result.json`
/// is written: the file is the run's own, replaced only with the result it belongs to (`--replace`).
///
/// # Errors
/// The I/O error of the write or the rename.
pub fn write(dir: &Path, acks: &Acks) -> std::io::Result<()> {
    let temp = dir.join(format!(".{ACKS_FILE}.tmp"));
    // Orders only (TPC-C's, DS2's) are written as they are kept, without making each whole first.
    let bytes = match acks.as_orders() {
        Some(orders) => encode_orders(orders),
        None => encode(&acks.iter().collect::<Vec<_>>()),
    };
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, dir.join(ACKS_FILE))
}

/// The file beside the result that names every acknowledged commit the run found lost, one a line in
/// the workload's words (`tpcb-like: tid=3 bid=1 aid=17 delta=-40`), so that a count is checkable key
/// by key against the database; written whenever the run compared (empty when none was lost).
pub const LOST_FILE: &str = "lost_commits.txt";

/// Writes into `dir` (the result's directory, claimed by the run) the lost commits `compared` names
/// ([`LOST_FILE`]), atomically as [`write()`] does; nothing when the run made no comparison.
///
/// # Errors
/// The I/O error of the write or the rename.
pub fn write_lost(dir: &Path, compared: Option<&AckComparison>) -> std::io::Result<()> {
    let Some(AckComparison::Compared(lost)) = compared else { return Ok(()) };
    let temp = dir.join(format!(".{LOST_FILE}.tmp"));
    std::fs::write(&temp, lost.all.iter().map(|l| format!("{l}\n")).collect::<String>())?;
    std::fs::rename(&temp, dir.join(LOST_FILE))
}

/// The acknowledged orders a `check --result` compares, with the line that says which when not all.
pub struct Held {
    /// The run's workload (a built-in one's name, or a workload file's).
    pub workload: WorkloadName,
    /// The orders the database can still hold: those of the runs since the last restore.
    pub acks: Acks,
    /// Which runs' orders those are, in one line, when a restore took the others away.
    pub which: Option<String>,
}

/// The acknowledged orders of the `workload` run whose result is in `dir` that the database can still
/// hold: those of the runs since the last `--restore` (every run's when none was restored after the
/// first), with the line that says which.
///
/// # Errors
/// A usage error naming the directory when it holds no result of `workload` or no [`ACKS_FILE`], or a
/// file that is not one, or one of an older oltpgen whose orders a restore mixed up; a merged result
/// without one is named as merged.
pub fn read(dir: &Path, workload: &str) -> Result<Held, Error> {
    let said = |why: String| Error::usage(format!("--result {}: {why}", dir.display()));
    if !dir.join(RESULT_FILE).is_file() {
        return Err(said(format!(
            "no {RESULT_FILE} there: name the directory of a run's result (its --out)"
        )));
    }
    let result = crate::files::result_dir::read_result(dir)?;
    if result.workload.name() != workload {
        let name = result.workload.name();
        let command = match result.workload.builtin() {
            Some(_) => format!("oltpgen {name} check --result"),
            // A workload file's (or YCSB's) run: checked by the file that defines it.
            None => "oltpgen custom check --result` and the file that defines it, `--file".to_string(),
        };
        return Err(said(format!("a {name} run's result: check it with `{command}`")));
    }
    let merged = result.config.get(MERGED_RESULTS).and_then(serde_json::Value::as_u64);
    let acks = match (read_file(dir), merged) {
        (Ok(acks), _) => acks,
        // A merge keeps the parts' orders only when every part kept its own: no run of an older
        // oltpgen is to blame, but the parts.
        (Err(_), Some(n)) => {
            return Err(said(format!(
                "a merged result (report merge of {n} results) without the parts' acknowledged orders \
                 ({ACKS_FILE}: a part kept none): give --result each part's own result directory, \
                 checked against the database it ran on"
            )));
        }
        (Err(why), None) => return Err(said(why)),
    };
    let (acks, which) = since_last_restore(&result.runs, acks).map_err(said)?;
    Ok(Held { workload: result.workload, acks: acks.into_iter().collect(), which })
}

/// The orders in `dir`'s [`ACKS_FILE`], or why they cannot be read.
fn read_file(dir: &Path) -> Result<Vec<Ack>, String> {
    let bytes = std::fs::read(dir.join(ACKS_FILE)).map_err(|e| {
        format!(
            "cannot read {ACKS_FILE} ({e}): the run kept no acknowledged orders (a run of an older oltpgen?)"
        )
    })?;
    decode(&bytes).map_err(|e| format!("{ACKS_FILE} {e}"))
}

/// Of a study's `acks` (its `runs` as the result recorded them), those the database can still hold:
/// the orders of the last run `--restore` put the database back before, and of the runs after it
/// (every order when none was restored after the first), and which runs those are in one line when
/// not all.
///
/// # Errors
/// Orders of no known run (a file of the first format) when a restore took some of them away.
fn since_last_restore(runs: &[RunRecord], acks: Vec<Ack>) -> Result<(Vec<Ack>, Option<String>), String> {
    let restored = runs.iter().filter(|r| r.restored.is_some()).map(|r| r.run).max();
    let Some(from) = restored.filter(|&run| run > 1) else { return Ok((acks, None)) };
    if acks.iter().any(|a| a.run == 0) {
        return Err(format!(
            "{ACKS_FILE} is of an older oltpgen, which did not tag each order with its run, and --restore \
             put the database back before run {from}, taking the earlier runs' orders away: they cannot be \
             told apart; compare each run at its end (result.json's runs[].lost_commits)"
        ));
    }
    let last = runs.iter().map(|r| r.run).max().unwrap_or(from);
    let runs =
        if last == from { format!("the last run's (run {from})") } else { format!("runs {from} to {last}") };
    let which = format!(
        "comparing {runs} acknowledged orders only: --restore put the database back before run {from}, \
         taking the earlier runs' orders away (each run was compared at its end: result.json's \
         runs[].lost_commits)"
    );
    let held = acks.into_iter().filter(|a| u32::from(a.run) >= from).collect();
    Ok((held, Some(which)))
}

/// Writes into `out` the orders of every part's [`ACKS_FILE`] (`report merge` of agents' `parts`, each
/// a result's directory or its file), one after another, each still tagged with its run and target.
///
/// # Errors
/// A part whose file cannot be read (named), or the write's I/O error.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<(), String> {
    let mut all = Vec::new();
    for part in parts {
        let file = crate::files::result_dir::result_file(part);
        let dir = file.parent().unwrap_or(Path::new("."));
        all.extend(read_file(dir).map_err(|e| format!("{}: {e}", dir.display()))?);
    }
    write(out, &all.into_iter().collect())
        .map_err(|e| format!("cannot write {}: {e}", out.join(ACKS_FILE).display()))
}

/// The file's bytes: the header, then each acknowledgement, in 16 bytes when every one fits TPC-C's or
/// DS2's order ([`Order::of`]), else as its key's values up to its last that is not 0.
fn encode(acks: &[Ack]) -> Vec<u8> {
    if let Some(orders) = acks.iter().map(Order::of).collect::<Option<Vec<_>>>() {
        return encode_orders(&orders);
    }
    let mut out = Vec::with_capacity(MAGIC.len() + acks.len() * 16);
    out.extend_from_slice(MAGIC);
    for a in acks {
        let n = a.key.iter().rposition(|&v| v != 0).map_or(0, |i| i + 1);
        out.extend_from_slice(&[a.kind, a.target, a.run, n as u8]);
        for &v in &a.key[..n] {
            // Zigzag: small negative values (pgbench's deltas) take few bytes too.
            let mut z = ((v << 1) ^ (v >> 63)) as u64;
            while z >= 0x80 {
                out.push((z as u8) | 0x80);
                z >>= 7;
            }
            out.push(z as u8);
        }
    }
    out
}

/// The second format's bytes: the header, then each order's 16 ([`Order::to_bytes`]).
fn encode_orders(orders: &[Order]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC_V2.len() + orders.len() * RECORD_V2);
    out.extend_from_slice(MAGIC_V2);
    orders.iter().for_each(|o| out.extend_from_slice(&o.to_bytes()));
    out
}

/// The acknowledgements in `bytes` (any format), or what is wrong with them.
fn decode(bytes: &[u8]) -> Result<Vec<Ack>, String> {
    if let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) {
        return decode_v3(body);
    }
    let body = bytes
        .strip_prefix(MAGIC_V2.as_slice())
        .or_else(|| bytes.strip_prefix(MAGIC_V1.as_slice()))
        .ok_or("is not a file of acknowledged orders")?;
    if body.len() % RECORD_V2 != 0 {
        return Err(format!(
            "is cut short ({} bytes after the header, not whole orders of {RECORD_V2})",
            body.len()
        ));
    }
    // The first format wrote 0 for the run.
    Ok(body.as_chunks::<RECORD_V2>().0.iter().map(|r| Order::from_bytes(r).ack()).collect())
}

/// The acknowledgements of a third-format file's `body`.
fn decode_v3(mut body: &[u8]) -> Result<Vec<Ack>, String> {
    let cut = || "is cut short (an acknowledgement's bytes end early)".to_string();
    let mut acks = Vec::new();
    while let [kind, target, run, n, rest @ ..] = body {
        let n = usize::from(*n);
        if n > ACK_VALUES {
            return Err(format!(
                "holds a key of {n} values (at most {ACK_VALUES}): not a file oltpgen wrote"
            ));
        }
        let mut ack = Ack { target: *target, run: *run, ..Ack::new(*kind, &[]) };
        let mut at = rest;
        for value in &mut ack.key[..n] {
            let mut z = 0u64;
            let mut shift = 0;
            loop {
                let (&b, after) = at.split_first().ok_or_else(cut)?;
                at = after;
                if shift > 63 {
                    return Err("holds a value longer than 64 bits: not a file oltpgen wrote".into());
                }
                z |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b & 0x80 == 0 {
                    break;
                }
            }
            *value = ((z >> 1) as i64) ^ -((z & 1) as i64);
        }
        acks.push(ack);
        body = at;
    }
    if !body.is_empty() {
        return Err(cut());
    }
    Ok(acks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oltpgen_report::model::cycle::Restored;

    #[test]
    fn orders_read_back_as_written_and_a_cut_or_foreign_file_is_refused() {
        let acks = [
            Ack { run: 1, ..Ack::new(0, &[3, 4, 3_001, 17, 9]) },
            Ack { target: 2, run: 100, ..Ack::new(0, &[u32::MAX.into(), 10, 1, 70_000, 15]) },
            Ack { target: 1, run: 3, ..Ack::new(2, &[i64::MIN, -5_000, i64::MAX, 0, -1]) },
            Ack::new(1, &[]),
        ];
        let bytes = encode(&acks);
        assert_eq!(decode(&bytes).unwrap(), acks);
        // TPC-C's orders and DS2's purchases in 16 bytes each, as any oltpgen wrote and reads them.
        let orders = [acks[0], acks[1], Ack::new(0, &[20_001, 5, 3])];
        let bytes_v2 = encode(&orders);
        assert_eq!((&bytes_v2[..16], bytes_v2.len()), (MAGIC_V2.as_slice(), 16 + 3 * 16));
        assert_eq!(decode(&bytes_v2).unwrap(), orders);
        // A key of another kind, or wider: its values as varints (here 4 bytes, then 1 + 1 + 2 + 1 + 1).
        assert_eq!(encode(&[Ack { kind: 1, ..acks[0] }]).len(), 16 + 10);
        assert_eq!(decode(MAGIC).unwrap(), []);
        assert!(decode(&bytes[..bytes.len() - 5]).unwrap_err().contains("cut short"));
        assert!(decode(b"w_id,d_id,o_id\n").unwrap_err().contains("not a file of acknowledged orders"));
    }

    #[test]
    fn files_of_the_first_formats_read_their_orders_and_purchases() {
        let mut bytes = MAGIC_V1.to_vec();
        bytes.extend_from_slice(&[3, 0, 0, 0, 0xb9, 0x0b, 0, 0, 17, 0, 0, 0, 4, 9, 1, 0]);
        let read = decode(&bytes).unwrap();
        assert_eq!(read, [Ack { target: 1, ..Ack::new(0, &[3, 4, 3_001, 17, 9]) }]);
        // DS2's purchase in the second format: no warehouse or district, tagged with its run.
        let mut bytes = MAGIC_V2.to_vec();
        bytes.extend_from_slice(&[0, 0, 0, 0, 0x21, 0x4e, 0, 0, 5, 0, 0, 0, 0, 3, 0, 2]);
        assert_eq!(decode(&bytes).unwrap(), [Ack { run: 2, ..Ack::new(0, &[20_001, 5, 3]) }]);
    }

    /// `n` runs, restored before each when `restored`.
    fn runs(n: u32, restored: bool) -> Vec<RunRecord> {
        (1..=n)
            .map(|run| RunRecord {
                run,
                seed: 0,
                start_s: 0.0,
                restored: restored.then(|| Restored { method: "generator".into(), duration_s: 1.0 }),
                start_rows: Default::default(),
                idle_window_s: None,
                idle_counters: Default::default(),
                meters: Default::default(),
                power: None,
                lost_commits: None,
            })
            .collect()
    }

    fn of_runs(runs: &[u8]) -> Vec<Ack> {
        runs.iter().map(|&run| Ack { run, ..Ack::new(0, &[1, 1, 3_001, 1, 5]) }).collect()
    }

    #[test]
    fn only_the_orders_since_the_last_restore_are_compared_and_that_is_said() {
        let acks = of_runs(&[1, 1, 2, 3, 3]);
        let (held, which) = since_last_restore(&runs(3, true), acks.clone()).unwrap();
        assert_eq!(held, of_runs(&[3, 3]));
        let which = which.unwrap();
        assert!(
            which.starts_with("comparing the last run's (run 3) acknowledged orders only: --restore"),
            "{which}"
        );
        // Without a restore after the first run, the database still holds every run's orders.
        assert_eq!(since_last_restore(&runs(3, false), acks.clone()).unwrap(), (acks.clone(), None));
        assert_eq!(since_last_restore(&runs(1, true), of_runs(&[1])).unwrap(), (of_runs(&[1]), None));
        // A file of the first format: fine for one run, refused when a restore mixed the runs' ids.
        assert_eq!(since_last_restore(&runs(1, true), of_runs(&[0])).unwrap(), (of_runs(&[0]), None));
        let e = since_last_restore(&runs(2, true), of_runs(&[0, 0])).unwrap_err();
        assert!(e.contains("is of an older oltpgen, which did not tag each order with its run"), "{e}");
    }

    #[test]
    fn every_lost_commit_is_written_one_a_line_and_nothing_when_none_was_compared() {
        use oltpgen_report::model::outage::LostCommits;
        let dir = tempfile::tempdir().unwrap();
        let all: Vec<String> = (1..=12).map(|i| format!("tpcb-like: tid=1 bid=1 aid={i} delta=-4")).collect();
        let lost = LostCommits { checked: 20, lost: 12, first: all[..10].to_vec(), all: all.clone() };
        write_lost(dir.path(), Some(&AckComparison::NotMeasured { not_measured: "gone".into() })).unwrap();
        write_lost(dir.path(), None).unwrap();
        assert!(!dir.path().join(LOST_FILE).exists(), "no comparison, no file");
        write_lost(dir.path(), Some(&AckComparison::Compared(lost))).unwrap();
        let text = std::fs::read_to_string(dir.path().join(LOST_FILE)).unwrap();
        assert_eq!(text.lines().collect::<Vec<_>>(), all, "all twelve, not the first ten");
        // Not in result.json: a million would swell it.
        let json = serde_json::to_value(LostCommits { checked: 1, lost: 1, first: vec![], all }).unwrap();
        assert!(json.get("all").is_none(), "{json}");
    }

    #[test]
    fn parts_merge_into_one_file_of_all_their_orders_each_keeping_its_run() {
        let dir = tempfile::tempdir().unwrap();
        let [a, b, out] = ["a", "b", "out"].map(|d| dir.path().join(d));
        for d in [&a, &b, &out] {
            std::fs::create_dir(d).unwrap();
        }
        write(&a, &of_runs(&[1, 2]).into_iter().collect()).unwrap();
        write(&b, &of_runs(&[2]).into_iter().collect()).unwrap();
        merge(&[a.clone(), b], &out).unwrap();
        assert_eq!(read_file(&out).unwrap(), of_runs(&[1, 2, 2]));
        let e = merge(&[a, dir.path().join("none/result.json")], &out).unwrap_err();
        assert!(e.contains("none: cannot read acks.bin"), "{e}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// Any bytes, and any bytes after the header: the orders, or what is wrong with the file (issue 36).
        #[test]
        fn any_file_is_its_orders_or_one_line(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            headed in proptest::prelude::any::<bool>(),
        ) {
            let file = if headed { [MAGIC.as_slice(), &bytes].concat() } else { bytes };
            match decode(&file) {
                // What reads back writes again as it reads.
                Ok(acks) => proptest::prop_assert_eq!(decode(&encode(&acks)).unwrap(), acks),
                Err(e) => proptest::prop_assert!(!e.is_empty() && !e.contains('\n')),
            }
        }
    }
}
