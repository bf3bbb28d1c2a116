//! The files a command writes and reads besides the database: the result directory ([`result_dir`]:
//! writing `result.json` and the files rendered from it, and reading a result back), and the orders a
//! run saw acknowledged, kept beside its result ([`acks`]). Whether an output path may be written, the
//! claim a command holds on it and the free space a big file needs are the vocabulary's
//! (`oltpgen_vocab::claim`, `oltpgen_vocab::space`), since the built-in server uses them too. Kept apart
//! from the report crate, which renders results and knows no file system.

pub mod acks;
pub mod result_dir;
