//! stub
#![deny(missing_docs)]
pub mod histogram;
pub mod model;
pub mod step;
