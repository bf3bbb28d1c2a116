//! The CSV writers: the result directory's `timeseries.csv` and `counters.csv` ([`result`]), and DS2's
//! `--csv-output`, a row per progress interval ([`ds2`]).

pub mod ds2;
pub mod result;
