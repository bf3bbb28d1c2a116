//! Whether the disk that holds the built-in server's data can take a load, judged before it starts.
//!
//! A load's size is the workload's estimate from what its loads measured on disk (tables and indexes), plus the WAL it
//! writes on the way (at most the server's `max_wal_size`, since checkpoints recycle it). A load that
//! cannot fit is refused in one line, instead of filling the disk hours later (`--scale 100000` is 12 TB).

use super::Placement;
use oltpgen_vocab::Error;
use oltpgen_vocab::space::{free_bytes, human, load_need};

/// The WAL the server keeps at most (`max_wal_size` in `settings`): a lasting and a throwaway instance.
const WAL_BYTES: (u64, u64) = (8 << 30, 1 << 30);

/// Refuses a load of `data_bytes` (tables and indexes) into the built-in instance at `placement` when
/// the disk that would hold it has less room than the load and its WAL need.
///
/// # Errors
/// [`Error::Usage`] saying how much is needed and how much is free, and where.
pub fn check(placement: &Placement, data_bytes: u64) -> Result<(), Error> {
    let (dir, wal_cap) = match placement {
        Placement::Dir(d) => (d.clone(), WAL_BYTES.0),
        Placement::Temp => (std::env::temp_dir(), WAL_BYTES.1),
    };
    let need = load_need(data_bytes, wal_cap);
    let Some(free) = free_bytes(&dir) else { return Ok(()) };
    if need <= free {
        return Ok(());
    }
    Err(Error::usage(format!(
        "this load needs about {} (tables, indexes and WAL) on the disk holding {}, which has {} free: \
         free some space, give a --data-dir on a larger disk, or load less",
        human(need),
        dir.display(),
        human(free)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_units_and_a_load_that_cannot_fit_is_refused() {
        assert_eq!(human(13_107_200_000_000), "13.1 TB");
        assert_eq!(human(999), "999.0 B");
        assert!(check(&Placement::Temp, 1).is_ok(), "a byte fits");
        let err = check(&Placement::Dir("/nonexistent/oltpgen".into()), u64::MAX / 4).unwrap_err();
        assert!(err.to_string().contains("on the disk holding /nonexistent/oltpgen"), "{err}");
    }
}
