//! [`DefinedData`]: a defined workload's initial database, generated in chunks of at most
//! [`CHUNK_ROWS`] rows, each from its own random stream `(seed, table, chunk)`, so that any thread
//! generates any chunk with byte-identical results.

use super::dist::{Sampler, text_len};
use super::{Gen, Value, Workload};
use crate::Rng;
use crate::encode::RowEncoder;
use crate::schema::{ColumnType, Dataset, Index, TableDef};
use crate::text::{ALNUM, DIGITS, fill};
use crate::ycsb::fnv_hash64;

/// The most rows in one chunk: small enough that a table spreads over the load's workers, big enough
/// that a chunk's overhead (a COPY stream, a queue entry) is negligible.
pub const CHUNK_ROWS: u64 = 10_000;

/// A defined workload's database at one scale and seed.
#[derive(Clone, Copy, Debug)]
pub struct DefinedData {
    workload: &'static Workload,
    scale: u64,
    seed: u64,
}

/// One unit of generation work: rows `part × CHUNK_ROWS + 1` onwards of one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Chunk {
    /// The table's index among [`Workload::tables`].
    pub table: u32,
    /// Which [`CHUNK_ROWS`] rows of it, from 0.
    pub part: u64,
}

impl DefinedData {
    /// The database of `workload` at `scale` (every table's rows times `scale`), generated from `seed`.
    ///
    /// # Errors
    /// [`Workload::check_scale`]'s line.
    pub fn new(workload: &'static Workload, scale: u64, seed: u64) -> Result<Self, String> {
        workload.check_scale(scale)?;
        Ok(DefinedData { workload, scale, seed })
    }

    /// The workload it generates.
    pub fn workload(&self) -> &'static Workload {
        self.workload
    }

    /// The rows of table `table` (its index).
    fn rows(&self, table: usize) -> u64 {
        self.workload.rows_at(table, self.scale).expect("checked by new")
    }
}

impl Dataset for DefinedData {
    type Chunk = Chunk;

    fn tables(&self) -> &'static [TableDef] {
        self.workload.tables()
    }

    /// The definition's `indexes`.
    fn indexes(&self) -> &'static [Index] {
        self.workload.indexes()
    }

    /// Every chunk, biggest tables first (so that workers taking them in order finish together), each
    /// table's chunks in key order.
    fn chunks(&self) -> Vec<Chunk> {
        let tables = self.tables();
        let mut order: Vec<usize> = (0..tables.len()).collect();
        order.sort_by_key(|&t| std::cmp::Reverse(self.rows(t).saturating_mul(tables[t].row_bytes())));
        order
            .into_iter()
            .flat_map(|t| {
                (0..self.rows(t).div_ceil(CHUNK_ROWS)).map(move |part| Chunk { table: t as u32, part })
            })
            .collect()
    }

    fn table_of(&self, chunk: Chunk) -> &'static TableDef {
        &self.tables()[chunk.table as usize]
    }

    /// # Panics
    /// When `chunk` is not one of [`chunks`](Self::chunks).
    fn rows_in(&self, chunk: Chunk) -> u64 {
        let rows = self.rows(chunk.table as usize);
        let first = chunk.part * CHUNK_ROWS;
        assert!(first < rows, "{chunk:?} is not a chunk of this database");
        (rows - first).min(CHUNK_ROWS)
    }

    fn write<E: RowEncoder>(&self, chunk: Chunk, out: &mut E) {
        let table = self.table_of(chunk);
        let spec = &self.workload.def().tables[chunk.table as usize];
        let first = chunk.part * CHUNK_ROWS + 1;
        let mut rng = Rng::derive(self.seed, &[u64::from(chunk.table), chunk.part]);
        let longest = spec.columns.iter().map(|c| match c.generator {
            Gen::Text(chars) | Gen::Digits(chars) => chars.len,
            _ => 0,
        });
        let mut text = vec![0u8; usize::from(longest.max().unwrap_or(0))];
        let rows_of = |name: &str| {
            let index = self.workload.def().tables.iter().position(|t| t.name == name).expect("checked");
            self.rows(index) as i64
        };
        let samplers: Vec<Option<Sampler>> =
            spec.columns.iter().map(|c| Sampler::of_column(&c.generator, self.seed, rows_of)).collect();
        for row in first..first + self.rows_in(chunk) {
            out.begin_row(table.width());
            for ((column, c), sampler) in spec.columns.iter().zip(table.columns).zip(&samplers) {
                if let Some(sampler) = sampler {
                    int(out, c.ty, sampler.draw(&mut rng));
                    continue;
                }
                match &column.generator {
                    Gen::Sequence => int(out, c.ty, row as i64),
                    Gen::Text(chars) | Gen::Digits(chars) => {
                        let n = text_len(&mut rng, *chars);
                        let text = &mut text[..n];
                        let alphabet =
                            if matches!(column.generator, Gen::Digits(_)) { &DIGITS } else { &ALNUM };
                        fill(&mut rng, alphabet, text);
                        out.text(text);
                    }
                    Gen::Choice(values) => match &values[rng.below(values.len() as u64) as usize] {
                        Value::Int(v) => int(out, c.ty, *v),
                        Value::Text(v) => out.text(v.as_bytes()),
                    },
                    Gen::Constant(Value::Int(v)) => int(out, c.ty, *v),
                    Gen::Constant(Value::Text(v)) => out.text(v.as_bytes()),
                    Gen::YcsbKey => out.text(format!("user{}", fnv_hash64(row - 1)).as_bytes()),
                    _ => unreachable!("an integer generator has its sampler"),
                }
            }
            out.end_row();
        }
    }
}

/// Writes the integer `v` into a column of type `ty`, as [`Gen`] says integers fill each type (checked
/// to fit by [`WorkloadDef::check`](super::WorkloadDef::check)).
fn int<E: RowEncoder>(out: &mut E, ty: ColumnType, v: i64) {
    match ty {
        ColumnType::Int4 => out.int4(v as i32),
        ColumnType::Int2 => out.int2(v as i16),
        ColumnType::Numeric { scale, .. } => out.numeric(v * 10i64.pow(u32::from(scale)), scale),
        ColumnType::Date => out.date(v as i32),
        ColumnType::Timestamp => out.timestamp_us(v * 1_000_000),
        ColumnType::Int8 => out.int8(v),
        ColumnType::Float8 => out.float8(v as f64),
        ColumnType::Bool => out.bool(v != 0),
        ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text => {
            unreachable!("checked: integers fill no text column")
        }
    }
}
