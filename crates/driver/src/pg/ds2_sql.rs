//! DS2 in PostgreSQL's SQL (being written).
