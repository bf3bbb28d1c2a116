//! The files a command writes and reads besides the database: whether an output path may be written
//! and the claim a command holds on it ([`claim`]), and the result directory ([`result_dir`]: writing
//! `result.json` and the files rendered from it, and reading a result back), and the orders a run saw
//! acknowledged, kept beside its result ([`acks`]); and the free space a big file needs ([`space`]). Kept
//! apart from the
//! report crate, which renders results and knows no file system.

pub mod acks;
pub mod claim;
pub mod result_dir;
pub mod space;
