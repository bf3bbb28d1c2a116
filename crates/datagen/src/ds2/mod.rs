//! DVD Store 2 (DS2): the schema as data, the initial database at any size, and the driver's inputs.
//!
//! - [`size`] parses a database size (`S`, `M`, `L`, `20GB`, `30MB`) into the reference's row counts,
//!   which both the loader and the driver need.
//! - [`schema`] holds the eight tables and their secondary indexes as data.
//! - [`words`] holds the reference's word lists, from which products' titles and actors are made and the
//!   driver's searches are drawn.
//! - [`rows`] generates the initial database in independent chunks, deterministically from a seed.
//! - [`input`] draws one customer's whole order (login or registration, browses, purchase) before any
//!   SQL runs, so the parameter stream is testable without a database.

pub mod input;
pub mod rows;
pub mod schema;
pub mod size;
pub mod words;

/// Every 10,000th product is a popular title: loaded with ten times the stock (`ds2_create_inv.c`) and
/// bought ten times as often by the driver (`ds2xdriver.cs` `prod_array`). Set by the reference.
const POPULAR_EVERY: i32 = 10_000;
