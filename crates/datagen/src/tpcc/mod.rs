//! The TPC-C-style workload's data: the spec's random functions, constants, schema and row generators.

pub mod consts;
pub mod random;
