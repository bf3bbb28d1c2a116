//! The TPC-C-style workload's data: the spec's random functions, constants, schema, row generators,
//! and the run's transaction inputs.

pub mod consts;
pub mod input;
pub mod mix;
pub mod random;
pub mod rows;
pub mod schema;
