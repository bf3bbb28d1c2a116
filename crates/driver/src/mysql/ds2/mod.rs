//! DVD Store 2 on MySQL and MariaDB: not built yet. Its integrity checks are written ([`check`]); its
//! operations (DS2's MySQL build has them as stored procedures, PRODUCTS with a full-text index) are
//! not, so every DS2 command on this engine is refused up front with [`unsupported`], before it loads
//! or reads anything.

pub mod check;

use crate::{Error, Target};

/// The refusal of a DS2 command on `target`: one line, saying what works instead.
pub fn unsupported(target: &Target) -> Error {
    Error::usage(format!(
        "{}: DS2 on MySQL and MariaDB is not built yet (TPC-C is: oltpgen tpcc …); run DS2 on PostgreSQL or \
         SQL Server",
        target.label()
    ))
}
