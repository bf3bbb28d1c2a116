//! The orders a run saw acknowledged, kept beside its result ([`ACKS_FILE`]) so that `tpcc check
//! --result DIR` and `ds2 check --result DIR` compare them with the database serving later, as the end of
//! the run does. Binary rather than CSV: each order is 16 bytes (warehouse, order id and customer as
//! little-endian `u32`, district, line count and target as one byte each, one spare), so a million
//! orders take 16 MB and read back without parsing, after a 16-byte header naming the format. Written
//! at the end of the run, as `result.json` is (a run killed with SIGKILL keeps neither).

use std::path::Path;

use oltpgen_report::model::Workload;

use crate::Error;
use crate::files::claim::RESULT_FILE;
use crate::vocab::outcome::Ack;

/// The file's name in the result's directory.
pub const ACKS_FILE: &str = "acks.bin";

/// The header: the format and its version.
const MAGIC: &[u8; 16] = b"oltpgen acks v1\n";

/// One order's bytes.
const RECORD: usize = 16;

/// Writes `acks` into `dir` (the result's directory, claimed by the run) atomically, as `result.json`
/// is written: the file is the run's own, replaced only with the result it belongs to (`--replace`).
///
/// # Errors
/// The I/O error of the write or the rename.
pub fn write(dir: &Path, acks: &[Ack]) -> std::io::Result<()> {
    let temp = dir.join(format!(".{ACKS_FILE}.tmp"));
    std::fs::write(&temp, encode(acks))?;
    std::fs::rename(&temp, dir.join(ACKS_FILE))
}

/// The acknowledged orders of the `workload` run whose result is in `dir`, with its workload.
///
/// # Errors
/// A usage error naming the directory when it holds no result of `workload` or no [`ACKS_FILE`], or a
/// file that is not one.
pub fn read(dir: &Path, workload: &str) -> Result<(Workload, Vec<Ack>), Error> {
    let said = |why: String| Error::usage(format!("--result {}: {why}", dir.display()));
    if !dir.join(RESULT_FILE).is_file() {
        return Err(said(format!(
            "no {RESULT_FILE} there: name the directory of a run's result (its --out)"
        )));
    }
    let result = crate::files::result_dir::read_result(dir)?;
    if result.workload.name() != workload {
        return Err(said(format!(
            "a {} run's result: check it with `oltpgen {} check --result`",
            result.workload.name(),
            result.workload.name()
        )));
    }
    let file = dir.join(ACKS_FILE);
    let bytes = std::fs::read(&file).map_err(|e| {
        said(format!(
            "cannot read {ACKS_FILE} ({e}): the run kept no acknowledged orders (a run of an older oltpgen?)"
        ))
    })?;
    Ok((result.workload, decode(&bytes).map_err(|e| said(format!("{ACKS_FILE} {e}")))?))
}

/// The file's bytes: the header, then each order.
fn encode(acks: &[Ack]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + acks.len() * RECORD);
    out.extend_from_slice(MAGIC);
    for a in acks {
        out.extend_from_slice(&a.w_id.to_le_bytes());
        out.extend_from_slice(&a.o_id.to_le_bytes());
        out.extend_from_slice(&a.c_id.to_le_bytes());
        out.extend_from_slice(&[a.d_id, a.lines, a.target, 0]);
    }
    out
}

/// The orders in `bytes`, or what is wrong with them.
fn decode(bytes: &[u8]) -> Result<Vec<Ack>, String> {
    let body = bytes.strip_prefix(MAGIC.as_slice()).ok_or("is not a file of acknowledged orders")?;
    if body.len() % RECORD != 0 {
        return Err(format!(
            "is cut short ({} bytes after the header, not whole orders of {RECORD})",
            body.len()
        ));
    }
    let u32_at = |r: &[u8], i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    Ok(body
        .chunks_exact(RECORD)
        .map(|r| Ack {
            w_id: u32_at(r, 0),
            o_id: u32_at(r, 4),
            c_id: u32_at(r, 8),
            d_id: r[12],
            lines: r[13],
            target: r[14],
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_read_back_as_written_and_a_cut_or_foreign_file_is_refused() {
        let acks = [
            Ack { w_id: 3, o_id: 3_001, c_id: 17, d_id: 4, lines: 9, target: 0 },
            Ack { w_id: u32::MAX, o_id: 1, c_id: 70_000, d_id: 10, lines: 15, target: 2 },
        ];
        let bytes = encode(&acks);
        assert_eq!(bytes.len(), 16 + 2 * 16);
        assert_eq!(decode(&bytes).unwrap(), acks);
        assert_eq!(decode(MAGIC).unwrap(), []);
        assert!(decode(&bytes[..bytes.len() - 1]).unwrap_err().contains("cut short"));
        assert!(decode(b"w_id,d_id,o_id\n").unwrap_err().contains("not a file of acknowledged orders"));
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
                Ok(acks) => proptest::prop_assert_eq!(MAGIC.len() + acks.len() * RECORD, file.len()),
                Err(e) => proptest::prop_assert!(!e.is_empty() && !e.contains('\n')),
            }
        }
    }
}
