//! Whether the disk that holds the built-in server's data can take a load, judged before it starts.
//!
//! A load's size is estimated from what loads measured on disk (tables and indexes), plus the WAL it
//! writes on the way (at most the server's `max_wal_size`, since checkpoints recycle it). A load that
//! cannot fit is refused in one line, instead of filling the disk hours later (`--scale 100000` is 12 TB).

use oltpgen_datagen::ds2::size::DbSize;

use super::Placement;
use oltpgen_vocab::Error;
use oltpgen_vocab::space::free_bytes;

/// TPC-C tables and indexes per warehouse: 120 MB measured at scale 1 (PostgreSQL 15), rounded up.
const TPCC_BYTES_PER_WAREHOUSE: u64 = 125 << 20;
/// DS2 tables and indexes per customer (orders, products and history scale with customers): 23 MB
/// measured for 10MB's 20,000 customers, rounded up.
const DS2_BYTES_PER_CUSTOMER: u64 = 1_200;
/// The WAL the server keeps at most (`max_wal_size` in `settings`): a lasting and a throwaway instance.
const WAL_BYTES: (u64, u64) = (8 << 30, 1 << 30);

/// The tables and indexes of a TPC-C load of `scale` warehouses.
pub fn tpcc_bytes(scale: u32) -> u64 {
    TPCC_BYTES_PER_WAREHOUSE * u64::from(scale)
}

/// The tables and indexes of a DS2 load of `size`.
pub fn ds2_bytes(size: DbSize) -> u64 {
    DS2_BYTES_PER_CUSTOMER * u64::from(size.customers().unsigned_abs())
}

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
    let need = data_bytes + data_bytes.min(wal_cap);
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

fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_scale_with_the_load_and_read_in_units() {
        assert_eq!(tpcc_bytes(10), 10 * TPCC_BYTES_PER_WAREHOUSE);
        assert_eq!(ds2_bytes(DbSize::S), 24_000_000);
        assert!(ds2_bytes(DbSize::L) > 100 * ds2_bytes(DbSize::M) / 2);
        assert_eq!(human(13_107_200_000_000), "13.1 TB");
        assert_eq!(human(999), "999.0 B");
        assert!(check(&Placement::Temp, 1).is_ok(), "a byte fits");
        let err = check(&Placement::Dir("/nonexistent/oltpgen".into()), u64::MAX / 4).unwrap_err();
        assert!(err.to_string().contains("on the disk holding /nonexistent/oltpgen"), "{err}");
    }
}
