//! TPC-C consistency conditions (clause 3.3.2) in T-SQL: the SQL shared with MySQL
//! ([`oltpgen_vocab::tpcc_checks`]), which T-SQL runs as written.

/// One query per condition of `oltpgen_driver::tpcc::CHECKS`, in clause order 3.3.2.1 … 3.3.2.12.
pub const QUERIES: [&str; 12] = oltpgen_vocab::tpcc_checks::QUERIES;
