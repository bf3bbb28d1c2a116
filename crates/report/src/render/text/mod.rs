//! The text renderers, one output per module: `report show` ([`show`]), summary.txt ([`summary`]),
//! the lines a TPC-C run prints as it goes ([`live`]), DS2's lines and final report in its driver's
//! terms ([`ds2`]), `oltpgen io`'s lines ([`io`]), `report compare`'s table ([`compare`]), and the tables they share: each step's
//! transactions ([`transactions`]) and its audit ([`audit`]); and the lines of a consistency check
//! ([`checks`]).

pub mod audit;
pub mod checks;
pub mod compare;
pub mod ds2;
pub mod io;
pub mod live;
pub mod show;
pub mod summary;
pub mod transactions;
