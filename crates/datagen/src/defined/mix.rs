//! [`Mix`]: which transaction a user of a defined workload runs next, and its parameters.
//!
//! Transactions are drawn by weight, each independently (`weight / Σ weights` of the time in
//! expectation), not dealt from a deck as TPC-C's exact mix is: weights are any `u32`s, and a deck of
//! `Σ weights` cards per user could be arbitrarily big.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::Value;
use super::Workload;
use super::dist::{Inserts, ParamSampler};
use crate::Rng;

/// How many records one insert range holds: a YCSB insert takes record numbers past the loaded ones,
/// in range `slot` (see [`Mix::new`]) from `loaded + slot × INSERT_RANGE`.
pub const INSERT_RANGE: u64 = 1 << 28;

/// The seed of the run's NURand constants (the load's come from the load's seed, so they differ, as
/// TPC-C's C_load and C_run do).
const RUN_NURAND: u64 = 0x52_554e;

/// A defined workload's mix at one scale: the transactions' cumulative weights and every parameter's
/// range, resolved once so that a draw is a few random numbers.
#[derive(Clone, Debug)]
pub struct Mix {
    workload: &'static Workload,
    /// Per transaction, the sum of the weights up to and including it.
    cumulative: Vec<u64>,
    /// Per transaction, each of its parameters' generator, in [`Slot::params`](super::Slot::params) order.
    params: Vec<Vec<ParamSampler>>,
}

/// One drawn transaction: which, and the values of its statements' parameters.
#[derive(Clone, Debug)]
pub struct Draw {
    workload: &'static Workload,
    /// The transaction's index, among [`Workload::txn_names`].
    pub txn: usize,
    /// Every parameter of its statements, the first statement's `$1` first (see [`Draw::calls`]).
    pub values: Vec<Value>,
    /// Whether it rolls back on purpose (its transaction's `rollback_pct`) rather than commit.
    pub rollback: bool,
    /// Per statement, which of its choices runs (0 for a statement that picks nothing).
    pub picks: Vec<usize>,
}

impl Mix {
    /// The mix of `workload` at `scale`, whose `rows_of` parameters reach the rows loaded at that scale;
    /// its YCSB inserts take insert range `slot` (one a run and an agent own, so that no two insert the
    /// same record).
    ///
    /// # Errors
    /// [`Workload::check_scale`]'s line.
    pub fn new(workload: &'static Workload, scale: u64, slot: u64) -> Result<Self, String> {
        workload.check_scale(scale)?;
        let def = workload.def();
        let cumulative = def
            .transactions
            .iter()
            .scan(0u64, |sum, t| {
                *sum += u64::from(t.weight);
                Some(*sum)
            })
            .collect();
        let top = |min: i64, max: Option<i64>, rows_of: Option<&str>| {
            let Some(max) = max else {
                let table = rows_of.expect("checked: max or rows_of");
                let index = def.tables.iter().position(|t| t.name == table).expect("checked");
                let rows = workload.rows_at(index, scale).expect("checked by check_scale") as i64;
                return rows.max(min);
            };
            max
        };
        // One count of inserted records per table, shared by its inserts and its `latest` draws.
        let counts: Vec<Arc<AtomicU64>> = def.tables.iter().map(|_| Arc::default()).collect();
        let inserts = |table: &str| {
            let index = def.tables.iter().position(|t| t.name == table).expect("checked");
            let loaded = workload.rows_at(index, scale).expect("checked by check_scale");
            let first = loaded.saturating_add(slot.saturating_mul(INSERT_RANGE));
            Inserts { loaded, first, count: counts[index].clone() }
        };
        let params = def
            .transactions
            .iter()
            .map(|t| {
                let params = t.statements.iter().flat_map(|s| &s.params);
                params
                    .map(|p| {
                        let top = p.range().map_or(0, |(min, max, rows_of)| top(min, max, rows_of));
                        ParamSampler::of(p, top, RUN_NURAND, inserts)
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Mix { workload, cumulative, params })
    }

    /// Draws the next transaction by weight, and its parameters.
    pub fn next(&self, rng: &mut Rng) -> Draw {
        let total = *self.cumulative.last().expect("checked: at least one transaction");
        let card = rng.below(total);
        let txn = self.cumulative.partition_point(|&sum| sum <= card);
        let links = self.workload.links(txn);
        let mut values: Vec<Value> = Vec::with_capacity(links.len());
        for (sampler, link) in self.params[txn].iter().zip(links) {
            let v = match link {
                Some(earlier) => values[*earlier].clone(),
                None => sampler.draw(rng),
            };
            values.push(v);
        }
        // A draw only for a statement that picks: the others' streams stay as they were.
        let slots = self.workload.slots(txn);
        let picks = slots
            .iter()
            .map(|s| if s.choices > 1 { rng.below(s.choices as u64) as usize } else { 0 })
            .collect();
        let pct = self.workload.def().transactions[txn].rollback_pct.unwrap_or(0.0);
        // No draw for a transaction that never rolls back: the other draws stay as they were.
        let rollback = pct > 0.0 && rng.unit_f64() * 100.0 < pct;
        Draw { workload: self.workload, txn, values, rollback, picks }
    }
}

impl Draw {
    /// The transaction's statements as a session runs them: each one's index among
    /// [`Workload::statements`] and its parameters' values, in order.
    pub fn calls(&self) -> Vec<(usize, &[Value])> {
        let slots = self.workload.slots(self.txn);
        let picked = slots.iter().zip(&self.picks);
        picked.map(|(s, pick)| (s.statement + pick, &self.values[s.params.clone()])).collect()
    }
}
