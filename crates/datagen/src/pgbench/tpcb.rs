//! The database `pgbench -i -s N` makes, as a [`Dataset`]: the same tables, columns and rows (branches
//! and tellers with NULL fillers, accounts with an empty one, blank-padded by `char(84)`, history empty,
//! every balance 0), so that `oltpgen tpcb load` and `pgbench -i` hold the same rows.

use crate::encode::RowEncoder;
use crate::schema::{Dataset, Index, TableDef, chr, int, nullable, ts};

/// Accounts per branch, tellers per branch (pgbench's `naccounts`, `ntellers`).
pub const ACCOUNTS_PER_BRANCH: u64 = 100_000;
/// Tellers per branch.
pub const TELLERS_PER_BRANCH: u64 = 10;
/// The largest scale whose account ids fit in `int4` (pgbench switches `aid` to `bigint` from 20,000).
pub const MAX_INT4_SCALE: u64 = 19_999;

/// pgbench's tables, in the order it creates them.
pub static TABLES: [TableDef; 4] = [
    TableDef {
        name: "pgbench_accounts",
        columns: &[int("aid"), nullable(int("bid")), nullable(int("abalance")), nullable(chr("filler", 84))],
        primary_key: &["aid"],
    },
    TableDef {
        name: "pgbench_branches",
        columns: &[int("bid"), nullable(int("bbalance")), nullable(chr("filler", 88))],
        primary_key: &["bid"],
    },
    TableDef {
        name: "pgbench_history",
        columns: &[
            nullable(int("tid")),
            nullable(int("bid")),
            nullable(int("aid")),
            nullable(int("delta")),
            nullable(ts("mtime")),
            nullable(chr("filler", 22)),
        ],
        primary_key: &[],
    },
    TableDef {
        name: "pgbench_tellers",
        columns: &[int("tid"), nullable(int("bid")), nullable(int("tbalance")), nullable(chr("filler", 84))],
        primary_key: &["tid"],
    },
];

/// A part of the database: the branches, the tellers, or one branch's accounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// Every branch.
    Branches,
    /// Every teller.
    Tellers,
    /// The accounts of branch `bid` (1-based).
    Accounts(u64),
}

/// pgbench's database at a scale (branches).
#[derive(Clone, Copy, Debug)]
pub struct TpcbData {
    scale: u64,
}

impl TpcbData {
    /// The database `pgbench -i -s scale` makes; `None` above [`MAX_INT4_SCALE`] (bigint keys).
    pub fn new(scale: u64) -> Option<TpcbData> {
        (1..=MAX_INT4_SCALE).contains(&scale).then_some(TpcbData { scale })
    }
}

impl Dataset for TpcbData {
    type Chunk = Chunk;

    fn tables(&self) -> &'static [TableDef] {
        &TABLES
    }

    /// None: pgbench makes only the primary keys.
    fn indexes(&self) -> &'static [Index] {
        &[]
    }

    fn chunks(&self) -> Vec<Chunk> {
        let mut chunks: Vec<Chunk> = (1..=self.scale).map(Chunk::Accounts).collect();
        chunks.extend([Chunk::Tellers, Chunk::Branches]);
        chunks
    }

    fn table_of(&self, chunk: Chunk) -> &'static TableDef {
        match chunk {
            Chunk::Accounts(_) => &TABLES[0],
            Chunk::Branches => &TABLES[1],
            Chunk::Tellers => &TABLES[3],
        }
    }

    fn rows_in(&self, chunk: Chunk) -> u64 {
        match chunk {
            Chunk::Accounts(_) => ACCOUNTS_PER_BRANCH,
            Chunk::Branches => self.scale,
            Chunk::Tellers => TELLERS_PER_BRANCH * self.scale,
        }
    }

    fn write<E: RowEncoder>(&self, chunk: Chunk, out: &mut E) {
        match chunk {
            Chunk::Branches => {
                for bid in 1..=self.scale {
                    out.begin_row(3);
                    out.int4(bid as i32);
                    out.int4(0);
                    out.null();
                    out.end_row();
                }
            }
            Chunk::Tellers => {
                for tid in 1..=TELLERS_PER_BRANCH * self.scale {
                    out.begin_row(4);
                    out.int4(tid as i32);
                    out.int4(((tid - 1) / TELLERS_PER_BRANCH + 1) as i32);
                    out.int4(0);
                    out.null();
                    out.end_row();
                }
            }
            Chunk::Accounts(bid) => {
                let first = (bid - 1) * ACCOUNTS_PER_BRANCH + 1;
                for aid in first..first + ACCOUNTS_PER_BRANCH {
                    out.begin_row(4);
                    out.int4(aid as i32);
                    out.int4(bid as i32);
                    out.int4(0);
                    out.text(&[b' '; 84]);
                    out.end_row();
                }
            }
        }
    }
}
