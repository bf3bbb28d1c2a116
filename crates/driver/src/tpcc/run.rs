//! Running TPC-C: the workload as the run machinery sees it (users bound to home warehouses, the exact
//! deck, keying and think times, the five transactions on each target's engine through the seam's
//! session; several databases side by side, as DS2 drives them), and the checks before a run.

use std::collections::BTreeMap;
use std::sync::Arc;

use oltpgen_datagen::Rng;
use oltpgen_datagen::tpcc::input::{CustomerSelector, InputGen, Terminal, TxnInput};
use oltpgen_datagen::tpcc::mix::{Deck, KeyingTime, Pacing, ThinkTime};
use oltpgen_datagen::tpcc::random::CConstants;
use oltpgen_report::model::Step;

use oltpgen_report::stats::audit::{self, AuditPart, TpccAuditPlan};

use super::{LoadedParams, PROFILE, Tpcc};
use crate::engine::tpcc::{self as seam, TpccConnector, TpccSession};
use crate::prepare::prepare;
use crate::run::study::{Cycle, Studied, name_targets, run_seed};
use crate::run::{AuditCounts, Driven, Next, Ops, RunPlan, StudyOptions, one_or_each, study};
use crate::workload::{AckLookup, Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::outcome::{Ack, Done, TxnError};
use oltpgen_vocab::tpcc::{Outcome, Transactions};

/// Tags that keep the run's random streams apart from the load's.
const RUN_STREAM: u64 = 0x0052_554e;

/// TPC-C as one run drives it.
pub struct TpccDriver {
    /// Per target: opens the run's sessions.
    connectors: Vec<TpccConnector>,
    /// Per target: its stable key.
    labels: Vec<String>,
    /// Warehouses, the same in every target.
    scale: u32,
    seed: u64,
    /// Per target: its inputs, with run constants that obey the C-delta rule against its own load's.
    inputs: Vec<InputGen>,
    pacing: Pacing,
}

/// One TPC-C user: its target, its home (terminal) there, its deck and its random stream.
pub struct TpccUser {
    target: usize,
    terminal: Terminal,
    deck: Deck,
    rng: Rng,
}

impl TpccDriver {
    /// The workload over `targets` (each with how its transactions run), loaded with `loaded` (in the
    /// same order, all at one scale), paced by `pacing`; `seed` picks the run's random streams and its
    /// NURand constants (which obey the C-delta rule against each target's load).
    ///
    /// # Panics
    /// When `targets` is empty or `loaded` does not hold one entry per target.
    pub fn new(
        targets: Vec<(Target, Transactions)>,
        loaded: &[LoadedParams],
        pacing: Pacing,
        seed: u64,
    ) -> Self {
        assert!(!targets.is_empty() && targets.len() == loaded.len(), "one load per target");
        let scale = loaded[0].scale;
        let inputs = loaded
            .iter()
            .map(|l| InputGen::new(scale, CConstants::for_run(&l.c(), &mut Rng::derive(seed, &[RUN_STREAM]))))
            .collect();
        let labels = targets.iter().map(|(t, _)| t.key()).collect();
        let connectors = targets.into_iter().map(|(t, how)| TpccConnector::new(t, how)).collect();
        TpccDriver { connectors, labels, scale, seed, inputs, pacing }
    }
}

/// Positions in [`TPCC_COUNTERS`] (checked by a test).
const LINES: usize = 0;
const REMOTE_LINES: usize = 1;
const REMOTE_PAYMENTS: usize = 2;
const BY_NAME_PAYMENTS: usize = 3;
const BY_NAME_ORDER_STATUS: usize = 4;
const SKIPPED_DISTRICTS: usize = 5;

/// What a completed transaction adds to [`TPCC_COUNTERS`], from its input (known before it ran) and
/// its outcome (a Delivery's skipped districts).
fn audit_counts(input: &TxnInput, outcome: &Outcome) -> AuditCounts {
    let by_name = |c: &CustomerSelector| u8::from(matches!(c, CustomerSelector::ByLastName(_)));
    let mut counts = AuditCounts::default();
    match input {
        TxnInput::NewOrder(i) => {
            counts[LINES] = i.lines.len() as u8;
            counts[REMOTE_LINES] = i.lines.iter().filter(|l| l.supply_w_id != i.w_id).count() as u8;
        }
        TxnInput::Payment(i) => {
            counts[REMOTE_PAYMENTS] = u8::from(i.c_w_id != i.w_id);
            counts[BY_NAME_PAYMENTS] = by_name(&i.customer);
        }
        TxnInput::OrderStatus(i) => counts[BY_NAME_ORDER_STATUS] = by_name(&i.customer),
        TxnInput::Delivery(_) => counts[SKIPPED_DISTRICTS] = outcome.skipped_districts,
        TxnInput::StockLevel(_) => {}
    }
    counts
}

impl Driven for TpccDriver {
    type User = TpccUser;
    type Session = TpccSession;
    type Input = TxnInput;

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn acknowledged(&self) -> Option<AckLookup> {
        Some(super::acks())
    }

    fn targets(&self) -> &[String] {
        &self.labels
    }

    /// User `index` drives target `index % n` as that target's user `index / n`: each database's
    /// users cover its warehouses as one database's would.
    fn user(&self, index: u32) -> TpccUser {
        let n = self.labels.len() as u32;
        TpccUser {
            target: (index % n) as usize,
            terminal: Terminal::for_user(self.scale, index / n),
            deck: Deck::new(),
            rng: Rng::derive(self.seed, &[RUN_STREAM, u64::from(index)]),
        }
    }

    fn next(&self, u: &mut TpccUser) -> Next<TxnInput> {
        let kind = u.deck.next(&mut u.rng);
        let input = self.inputs[u.target].next(kind, &mut u.rng, &u.terminal);
        Next {
            kind: kind.index(),
            input,
            keying: self.pacing.keying(kind),
            think: self.pacing.think(kind, &mut u.rng),
        }
    }

    async fn connect(&self, target: usize) -> Result<TpccSession, TxnError> {
        self.connectors[target].open().await
    }

    async fn execute(&self, s: &TpccSession, input: &TxnInput, ops: &mut Ops) -> Result<Done, TxnError> {
        let outcome = s.execute(input).await?;
        ops.count(audit_counts(input, &outcome));
        if let (TxnInput::NewOrder(i), Some(o_id), false) = (input, outcome.o_id, outcome.done.rolled_back) {
            let (w_id, d_id, c_id, lines) = (i.w_id, i.d_id, i.c_id, i.lines.len());
            ops.acknowledge(Ack::new(0, &[w_id.into(), d_id.into(), o_id.into(), c_id.into(), lines as i64]));
        }
        Ok(outcome.done)
    }

    /// Each database is audited on its own warehouses, and the step's total made from those: two
    /// one-warehouse databases are not one of two warehouses.
    fn audit(&self, step: &mut Step, counters: Vec<BTreeMap<String, u64>>) {
        let paced = self.pacing.keying == KeyingTime::Spec && self.pacing.think == ThinkTime::Spec;
        let warehouses = self.scale;
        if step.targets.is_empty() {
            let counters = counters.into_iter().next().unwrap_or_default();
            step.audit = Some(audit::tpcc(step, counters, TpccAuditPlan { paced, warehouses }));
            return;
        }
        // User i drives target i % n (see `user`): each target's share of the step's users.
        let n = self.labels.len() as u64;
        let parts = (self.labels.iter().zip(counters).enumerate())
            .filter_map(|(t, (label, counters))| {
                let users = step.users / n + u64::from((t as u64) < step.users % n);
                let figures = step.targets.get(label)?;
                Some((label.clone(), AuditPart { figures, counters, users, warehouses }))
            })
            .collect();
        let (total, each) = audit::tpcc_targets(parts, paced);
        (step.audit, step.target_audits) = (Some(total), each);
    }
}

/// How each run on `targets` runs its transactions: `asked`, or each engine's default.
fn transactions_of(targets: &[Target], asked: Option<Transactions>) -> Vec<(Target, Transactions)> {
    targets
        .iter()
        .map(|t| (t.clone(), asked.unwrap_or_else(|| seam::default_transactions(t.engine()))))
        .collect()
}

/// A TPC-C run as asked for.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Users, connections and timing.
    pub plan: RunPlan,
    /// Keying and think times.
    pub pacing: Pacing,
    /// The run's seed; `None` derives one from the load's seed and the run's number.
    pub seed: Option<u64>,
    /// The scale the user expects the database to hold, when they said.
    pub scale: Option<u32>,
    /// Server-side or client-side transactions; `None` takes the engine's default
    /// ([`seam::default_transactions`]).
    pub transactions: Option<Transactions>,
    /// Cost and power.
    pub study: StudyOptions,
}

/// Runs TPC-C against `targets` side by side as a study (`--runs` times over, each run readied by
/// `cycle`) and returns the result document (also when Ctrl-C, a restore or a hook cut it short).
/// `progress` hears every reporting interval and every finished step.
///
/// # Errors
/// [`Error::Usage`] when a database is not ready for the run (see [`prepare`](crate::prepare::prepare)).
pub async fn run(
    targets: &[Target],
    opts: &RunOptions,
    cycle: &mut impl Cycle,
    progress: impl FnMut(crate::run::Progress<'_>),
) -> Result<Studied, Error> {
    let prepared = prepare(&Tpcc, targets, opts.scale.as_ref(), &opts.plan).await?;
    let each = transactions_of(targets, opts.transactions);
    for (target, transactions) in &each {
        seam::ready(target, *transactions).await?;
    }
    let seed = Tpcc.run_seed(&prepared.loaded, opts.seed);
    let workload = |run| {
        let seed = run_seed(seed, run);
        (seed, Arc::new(TpccDriver::new(each.clone(), &prepared.each, opts.pacing, seed)))
    };
    let labels: Vec<String> = targets.iter().map(Target::key).collect();
    let names: Vec<&str> = each.iter().map(|(_, t)| t.name()).collect();
    let isolation: Vec<&str> = targets.iter().map(|t| seam::isolation(t.engine())).collect();
    let n = targets.len() as u32;
    let serde_json::Value::Object(mut config) = serde_json::json!({
        "scale": prepared.loaded.scale,
        "keying_time": opts.pacing.keying.to_string(),
        "think_time": opts.pacing.think.to_string(),
        "seed": seed,
        "load_seed": prepared.loaded.seed,
        "terminals_per_warehouse": f64::from(opts.plan.max_users() / n) / f64::from(prepared.loaded.scale),
        "isolation": one_or_each(&labels, &isolation),
        "transactions": one_or_each(&labels, &names),
        // 2.7.2 lets Delivery be queued and run deferred; it runs inline, as HammerDB, BenchBase and
        // go-tpc run it, and its response time is the whole transaction's.
        "delivery": "inline",
    }) else {
        unreachable!("an object literal")
    };
    name_targets(targets, &labels, &mut config);
    let about = prepared.about(PROFILE.clone(), &labels, config);
    study(workload, cycle, targets, &opts.plan, &opts.study, about, progress).await
}

#[cfg(test)]
mod tests {
    use oltpgen_datagen::tpcc::mix::TxnKind;
    use oltpgen_report::model::TPCC_TRANSACTIONS;
    use oltpgen_report::model::audit::{self, TPCC_COUNTERS};

    use super::super::KIND_NAMES;

    use super::*;

    #[test]
    fn audit_counts_land_on_the_counters_report_names() {
        let names = [
            (LINES, audit::ORDER_LINES),
            (REMOTE_LINES, audit::REMOTE_ORDER_LINES),
            (REMOTE_PAYMENTS, audit::REMOTE_PAYMENTS),
            (BY_NAME_PAYMENTS, audit::BY_NAME_PAYMENTS),
            (BY_NAME_ORDER_STATUS, audit::BY_NAME_ORDER_STATUS),
            (SKIPPED_DISTRICTS, audit::SKIPPED_DISTRICTS),
        ];
        for (index, name) in names {
            assert_eq!(TPCC_COUNTERS[index], name);
        }
        assert!(TPCC_COUNTERS.len() <= crate::run::MAX_AUDIT);
    }

    #[test]
    fn a_run_seed_counts_the_run_about_to_start() {
        let loaded = LoadedParams { scale: 1, seed: 7, c_last: 0, c_id: 0, ol_i_id: 0, runs: 2 };
        // The third run since the load: the recorded two, plus this one.
        assert_eq!(Tpcc.run_seed(&loaded, None), Rng::derive(7, &[3]).next_u64());
        assert_eq!(Tpcc.run_seed(&loaded, Some(42)), 42, "a seed the user gave wins");
    }

    #[test]
    fn the_kinds_are_the_enums_names_as_results_name_them() {
        assert_eq!(KIND_NAMES, TPCC_TRANSACTIONS);
        assert!(TxnKind::ALL.iter().enumerate().all(|(i, k)| k.index() == i));
    }
}
