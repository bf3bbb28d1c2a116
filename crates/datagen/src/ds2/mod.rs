//! DVD Store 2 (DS2): the schema as data, the initial database at any size, and the driver's inputs.
//!
//! - [`input`] draws one customer's whole order (login or registration, browses, purchase) before any
//!   SQL runs, so the parameter stream is testable without a database.

pub mod input;
