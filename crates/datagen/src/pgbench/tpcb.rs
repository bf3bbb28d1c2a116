//! The database `pgbench -i -s N` makes, as a [`Dataset`]: the same tables, columns and rows (branches
//! and tellers with NULL fillers, accounts with an empty one, blank-padded by `char(84)`, history empty,
//! every balance 0), so that `oltpgen tpcb load` and `pgbench -i` hold the same rows.

use crate::encode::RowEncoder;
use crate::schema::{ColumnType, Dataset, Index, TableDef, big, chr, int, nullable, ts};

/// Accounts per branch, tellers per branch (pgbench's `naccounts`, `ntellers`).
pub const ACCOUNTS_PER_BRANCH: u64 = 100_000;
/// Tellers per branch.
pub const TELLERS_PER_BRANCH: u64 = 10;
/// The largest scale whose account ids fit in `int4` (pgbench switches `aid` to `bigint` from 20,000).
pub const MAX_INT4_SCALE: u64 = 19_999;
/// The largest scale whose teller ids (`10 × scale`) fit in `int4`, which pgbench keeps at every scale.
pub const MAX_SCALE: u64 = i32::MAX as u64 / TELLERS_PER_BRANCH;

/// The type of the account id columns (`pgbench_accounts.aid`, `pgbench_history.aid`) at a scale:
/// `int4` up to [`MAX_INT4_SCALE`], `bigint` above, as `pgbench -i` chooses (its `SCALE_32BIT_THRESHOLD`).
pub fn aid_type(scale: u64) -> ColumnType {
    if scale > MAX_INT4_SCALE { ColumnType::Int8 } else { ColumnType::Int4 }
}

/// pgbench's tables at a scale: [`TABLES`], or [`TABLES_BIGINT_AID`] where [`aid_type`] is `bigint`.
pub fn tables(scale: u64) -> &'static [TableDef; 4] {
    match aid_type(scale) {
        ColumnType::Int8 => &TABLES_BIGINT_AID,
        _ => &TABLES,
    }
}

/// pgbench's tables, in the order it creates them, their account ids made by `aid` (`int` or `big`).
macro_rules! tables_with {
    ($aid:ident) => {
        [
            TableDef {
                name: "pgbench_accounts",
                columns: &[
                    $aid("aid"),
                    nullable(int("bid")),
                    nullable(int("abalance")),
                    nullable(chr("filler", 84)),
                ],
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
                    nullable($aid("aid")),
                    nullable(int("delta")),
                    nullable(ts("mtime")),
                    nullable(chr("filler", 22)),
                ],
                primary_key: &[],
            },
            TableDef {
                name: "pgbench_tellers",
                columns: &[
                    int("tid"),
                    nullable(int("bid")),
                    nullable(int("tbalance")),
                    nullable(chr("filler", 84)),
                ],
                primary_key: &["tid"],
            },
        ]
    };
}

/// pgbench's tables, in the order it creates them, up to [`MAX_INT4_SCALE`].
pub static TABLES: [TableDef; 4] = tables_with!(int);

/// pgbench's tables from scale 20,000: [`TABLES`] with `bigint` account ids.
pub static TABLES_BIGINT_AID: [TableDef; 4] = tables_with!(big);

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
    /// The database `pgbench -i -s scale` makes; `None` at 0 or above [`MAX_SCALE`] (teller ids past
    /// `int4`, which pgbench refuses too).
    pub fn new(scale: u64) -> Option<TpcbData> {
        (1..=MAX_SCALE).contains(&scale).then_some(TpcbData { scale })
    }
}

impl Dataset for TpcbData {
    type Chunk = Chunk;

    fn tables(&self) -> &'static [TableDef] {
        tables(self.scale)
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
            Chunk::Accounts(_) => &tables(self.scale)[0],
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
                let bigint = aid_type(self.scale) == ColumnType::Int8;
                for aid in first..first + ACCOUNTS_PER_BRANCH {
                    out.begin_row(4);
                    if bigint {
                        out.int8(aid as i64);
                    } else {
                        out.int4(aid as i32);
                    }
                    out.int4(bid as i32);
                    out.int4(0);
                    out.text(&[b' '; 84]);
                    out.end_row();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Checker;

    #[test]
    fn account_ids_are_bigint_from_scale_20000_as_pgbenchs() {
        assert_eq!(aid_type(1), ColumnType::Int4);
        assert_eq!(aid_type(MAX_INT4_SCALE), ColumnType::Int4);
        assert_eq!(aid_type(20_000), ColumnType::Int8);
        for (scale, ty) in [(19_999, ColumnType::Int4), (20_000, ColumnType::Int8)] {
            let data = TpcbData::new(scale).unwrap();
            let aid = |table: &TableDef| table.columns.iter().find(|c| c.name == "aid").unwrap().ty;
            let by_name = |name| data.tables().iter().find(|t| t.name == name).unwrap();
            assert_eq!(aid(by_name("pgbench_accounts")), ty, "{scale}");
            assert_eq!(aid(by_name("pgbench_history")), ty, "{scale}");
            // Every other column keeps pgbench's int4 at any scale.
            let wide =
                data.tables().iter().flat_map(|t| t.columns).filter(|c| c.ty == ColumnType::Int8).count();
            assert_eq!(wide, usize::from(ty == ColumnType::Int8) * 2, "{scale}");
        }
    }

    #[test]
    fn the_last_branchs_accounts_fit_their_column_at_any_scale() {
        for scale in [MAX_INT4_SCALE, 20_000, 21_475] {
            let data = TpcbData::new(scale).unwrap();
            let chunk = Chunk::Accounts(scale);
            let mut checker = Checker::new(data.table_of(chunk));
            data.write(chunk, &mut checker);
            assert_eq!(checker.rows, ACCOUNTS_PER_BRANCH, "{scale}");
        }
        assert!(TpcbData::new(0).is_none());
        assert!(TpcbData::new(MAX_SCALE).is_some());
        assert!(TpcbData::new(MAX_SCALE + 1).is_none());
    }
}
