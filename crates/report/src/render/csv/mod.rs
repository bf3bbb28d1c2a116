//! The CSV writers: DS2's `--csv-output`, a row per progress interval ([`ds2`]).

pub mod ds2;
