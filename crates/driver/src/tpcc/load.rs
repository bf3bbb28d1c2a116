//! Loading TPC-C: its data and what the load records, handed to the workload-neutral loader; and
//! restoring it, the same data generated again.

use std::path::Path;

use oltpgen_datagen::tpcc::rows::{TpccData, TpccParams};

use super::{LoadedParams, Tpcc};
use crate::engine::Conn;
use crate::inventory;
use crate::load::{self, LoadOptions, LoadSummary, Loading};
use crate::restore::{self, Extras};
use crate::{Error, Target};

/// Loads TPC-C at `scale` warehouses from `seed` into `target`.
///
/// # Errors
/// See [`load::load`].
pub async fn load(target: &Target, scale: u32, seed: u64, opts: &LoadOptions) -> Result<LoadSummary, Error> {
    let data = TpccData::new(TpccParams::new(scale, seed));
    let c = data.params().c;
    let params = LoadedParams { scale, seed, c_last: c.c_last, c_id: c.c_id, ol_i_id: c.ol_i_id, runs: 0 };
    let loading = Loading::<Tpcc, _> { data, params, extra_indexes: Vec::new(), extra_dropped: Vec::new() };
    load::load(&Tpcc, target, loading, opts).await
}

/// Writes TPC-C at `scale` from `seed` as one CSV file per table in `dir`.
///
/// # Errors
/// See [`load::write_csv`].
pub async fn write_csv(dir: &Path, scale: u32, seed: u64, opts: &LoadOptions) -> Result<u64, Error> {
    load::write_csv(dir, TpccData::new(TpccParams::new(scale, seed)), opts).await
}

/// Puts `target`'s TPC-C tables back to the rows its recorded load generated.
///
/// # Errors
/// See [`restore::restore`].
pub async fn restore(target: &Target, opts: &LoadOptions) -> Result<(), Error> {
    let loaded = inventory::loaded(&Tpcc, &Conn::open(target).await?, target).await?;
    // The load's own seed and scale: the same rows, and the same NURand constants the run's obey.
    let data = TpccData::new(TpccParams::new(loaded.scale, loaded.seed));
    restore::restore(&Tpcc, target, data, Extras::default(), opts).await
}
