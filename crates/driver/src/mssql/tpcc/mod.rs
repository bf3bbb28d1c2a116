//! TPC-C on SQL Server: the queries of clause 3.3.2's checks ([`check`]).

pub mod check;
