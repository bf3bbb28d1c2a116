//! Loading DS2: its data at any size, its full-text indexes, sequences, trigger and functions, handed
//! to the workload-neutral loader; and restoring it, the same data generated again.

use std::path::Path;

use oltpgen_datagen::ds2::rows::{Ds2Data, Ds2Params};
use oltpgen_datagen::ds2::size::DbSize;

use super::{Ds2, LoadedParams};
use crate::engine::{self, Conn};
use crate::load::{self, LoadOptions, LoadSummary, Loading};
use crate::restore::{self, Extras};
use crate::{Error, Target};
use oltpgen_vocab::ds2::Functions;

/// Loads DS2 at `size` from `seed` into `target`.
///
/// # Errors
/// See [`load::load`].
pub async fn load(
    target: &Target,
    size: DbSize,
    seed: u64,
    opts: &LoadOptions,
) -> Result<LoadSummary, Error> {
    let data = Ds2Data::new(Ds2Params { size, seed });
    let params = LoadedParams {
        db_size: size.to_string(),
        seed,
        customers: data.customers(),
        products: data.products(),
        orders: data.orders(),
        runs: 0,
    };
    let extra_indexes = engine::ds2::extra_indexes(target.engine());
    let extra_dropped = engine::ds2::dropped_for_restore(target.engine());
    let loading = Loading::<Ds2, _> { data, params, extra_indexes, extra_dropped };
    load::load(&Ds2, target, loading, opts).await
}

/// Writes DS2 at `size` from `seed` as one CSV file per table in `dir`.
///
/// # Errors
/// See [`load::write_csv`].
pub async fn write_csv(dir: &Path, size: DbSize, seed: u64, opts: &LoadOptions) -> Result<u64, Error> {
    load::write_csv(dir, Ds2Data::new(Ds2Params { size, seed }), opts).await
}

/// Puts `target`'s DS2 tables back to the rows its recorded load generated.
///
/// # Errors
/// [`Error::Usage`] for a database DS2's installer built; else see [`restore::restore`].
pub async fn restore(target: &Target, opts: &LoadOptions) -> Result<(), Error> {
    let (loaded, functions) = super::identify(&Conn::open(target).await?, target).await?;
    if functions == Functions::Reference {
        // DS2's installer built it: oltpgen drives such a database as it is and never writes to it.
        return Err(Error::usage(format!(
            "--restore: {target} holds a DS2 database its own installer built, which oltpgen never writes \
             to: restore it as you built it (a --before-run hook), or load one with oltpgen ds2 load"
        )));
    }
    let size: DbSize = loaded.db_size.parse().map_err(|e| {
        Error::usage(format!(
            "--restore: {target}: the load's recorded size {} is unreadable: {e}",
            loaded.db_size
        ))
    })?;
    let data = Ds2Data::new(Ds2Params { size, seed: loaded.seed });
    let engine = target.engine();
    let extras = Extras {
        dropped: engine::ds2::dropped_for_restore(engine),
        indexes: engine::ds2::extra_indexes(engine),
        after: engine::ds2::after_restore(engine),
    };
    restore::restore(&Ds2, target, data, extras, opts).await
}
