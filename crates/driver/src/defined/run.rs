//! Running a workload defined at run time: users drawing its transactions by weight, each run in one
//! database transaction on the target's session; several databases side by side, as TPC-C drives them.

use std::sync::Arc;
use std::time::Duration;

use oltpgen_datagen::Rng;
use oltpgen_datagen::defined::{Draw, Mix, Value, WorkloadDef};

use super::Defined;
use crate::engine::defined::{DefinedConnector, DefinedSession};
use crate::prepare::prepare;
use crate::run::study::{Cycle, Studied, name_targets, run_seed};
use crate::run::{Driven, Next, Ops, RunPlan, StudyOptions, study};
use crate::workload::{AckLookup, Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::outcome::{Ack, Done, TxnError};

/// Tags that keep the run's random streams apart from the load's.
const RUN_STREAM: u64 = 0x4445_4649;

/// A defined workload as one run drives it.
pub struct DefinedDriver {
    profile: Profile,
    connectors: Arc<[DefinedConnector]>,
    labels: Vec<String>,
    mix: Mix,
    /// The definition, for each transaction's own keying and think times.
    definition: &'static WorkloadDef,
    think_mean: Duration,
    seed: u64,
    /// How its transactions' acknowledgements are read back, when one names any.
    acks: Option<AckLookup>,
}

impl Driven for DefinedDriver {
    type User = Rng;
    type Session = DefinedSession;
    type Input = Draw;

    fn profile(&self) -> &Profile {
        &self.profile
    }

    fn targets(&self) -> &[String] {
        &self.labels
    }

    fn acknowledged(&self) -> Option<AckLookup> {
        self.acks.clone()
    }

    fn no_acknowledgement(&self) -> Option<String> {
        Some(crate::lost_commits::NO_ACK_FILE.to_string())
    }

    fn user(&self, index: u32) -> Rng {
        Rng::derive(self.seed, &[RUN_STREAM, u64::from(index)])
    }

    fn next(&self, rng: &mut Rng) -> Next<Draw> {
        let input = self.mix.next(rng);
        let spec = &self.definition.transactions[input.txn];
        let keying = spec.keying_s.map_or(Duration::ZERO, Duration::from_secs_f64);
        let mean = spec.think_s.map_or(self.think_mean, Duration::from_secs_f64);
        Next { kind: input.txn, input, keying, think: think(mean, rng) }
    }

    async fn connect(&self, target: usize) -> Result<DefinedSession, TxnError> {
        self.connectors[target].open().await
    }

    async fn execute(&self, session: &DefinedSession, draw: &Draw, ops: &mut Ops) -> Result<Done, TxnError> {
        let calls = draw.calls();
        let (done, returned) = session.run(&calls, draw.rollback).await?;
        let ack = self.definition.transactions[draw.txn].ack.as_ref();
        if let (Some(ack), false) = (ack, done.rolled_back) {
            if ack.row {
                // The row its statement returned: a key the server made.
                ops.acknowledge(Ack::new(draw.txn as u8, returned.as_deref().unwrap_or_default()));
                return Ok(done);
            }
            // Its statement's parameters as drawn: the key of what it committed.
            // A text keeps its value as the text read back does.
            let values = calls.get(ack.statement - 1).map_or(&[][..], |c| c.1);
            let values: Vec<i64> = values
                .iter()
                .map(|v| match v {
                    Value::Int(v) => *v,
                    Value::Text(t) => Ack::value_of_text(Some(t)),
                })
                .collect();
            ops.acknowledge(Ack::new(draw.txn as u8, &values));
        }
        Ok(done)
    }
}

/// An engine's refusal of "statement K (…)" (K counting every transaction's statements) as the
/// definition names it: "transaction T, statement J (…)".
fn label_statement(workload: &Defined, e: Error) -> Error {
    let Error::Usage(msg) = e else { return e };
    let Some(at) = msg.find("statement ") else { return Error::Usage(msg) };
    let digits: String = msg[at + 10..].chars().take_while(char::is_ascii_digit).collect();
    let label =
        digits.parse::<usize>().ok().and_then(|k| workload.workload.statement_label(k.checked_sub(1)?));
    match label {
        Some(label) => Error::usage(format!("{}{label}{}", &msg[..at], &msg[at + 10 + digits.len()..])),
        None => Error::Usage(msg),
    }
}

/// How `definition`'s acknowledgements are read back after a failover, when a transaction names one:
/// its `ack`'s lookup in the target's dialect (by the acknowledgement's kind, the transaction's
/// index), all rows; an ack said by its transaction's name and its statement's parameters (a
/// returned row's values: as many as up to its last that is not 0, the row's width unknown here).
pub(super) fn lookup(definition: &'static WorkloadDef) -> Option<AckLookup> {
    definition.transactions.iter().any(|t| t.ack.is_some()).then_some(())?;
    Some(
        AckLookup::new(
            "comparing the acknowledged transactions",
            move |acks, engine| {
                let txn = &definition.transactions[usize::from(acks[0].kind)];
                let check =
                    txn.ack.as_ref().map_or("", |a| a.check_in(crate::engine::defined::dialect(engine)));
                (check.to_string(), i64::MAX)
            },
            move |a| {
                let txn = &definition.transactions[usize::from(a.kind)];
                let n = txn.ack.as_ref().and_then(|ack| {
                    if ack.row {
                        return Some(a.key.iter().rposition(|v| *v != 0).map_or(1, |i| i + 1));
                    }
                    Some(txn.statements.get(ack.statement - 1)?.params.len())
                });
                let values: Vec<String> =
                    a.key[..n.unwrap_or(0).min(a.key.len())].iter().map(i64::to_string).collect();
                format!("{}: ({})", txn.name, values.join(", "))
            },
        )
        .counted(),
    )
}

/// A think time of mean `mean`, negative exponential as TPC-C's (cut at ten times the mean); none for
/// a mean of 0.
fn think(mean: Duration, rng: &mut Rng) -> Duration {
    if mean.is_zero() {
        return Duration::ZERO;
    }
    let u = rng.unit_f64().max(f64::MIN_POSITIVE);
    mean.mul_f64((-u.ln()).min(10.0))
}

/// A run of a defined workload as asked for.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Users, connections and timing.
    pub plan: RunPlan,
    /// Mean think time after each transaction (0: none).
    pub think_mean: Duration,
    /// The run's seed; `None` derives one from the load's seed and the run's number.
    pub seed: Option<u64>,
    /// The scale the user expects the databases to hold, when they said.
    pub scale: Option<u64>,
    /// Cost and power.
    pub study: StudyOptions,
}

/// Runs `workload` against `targets` side by side as a study (`--runs` times over, each run readied by
/// `cycle`) and returns the result document (also when Ctrl-C, a restore or a hook cut it short).
///
/// # Errors
/// [`Error::Usage`] when a database is not ready for the run (see [`prepare`]), or a statement of the
/// definition does not prepare there.
pub async fn run(
    workload: &Defined,
    targets: &[Target],
    opts: &RunOptions,
    cycle: &mut impl Cycle,
    progress: impl FnMut(crate::run::Progress<'_>),
) -> Result<Studied, Error> {
    let prepared = prepare(workload, targets, opts.scale.as_ref(), &opts.plan).await?;
    let mut connectors = Vec::with_capacity(targets.len());
    for target in targets {
        let (expected, kinds) = (workload.workload.expected_rows(), workload.workload.param_kinds());
        let statements = workload.statements(target.engine());
        let ready =
            DefinedConnector::ready(target, statements, expected, kinds, workload.workload.returning()).await;
        connectors.push(ready.map_err(|e| workload.in_file(label_statement(workload, e)))?);
    }
    let connectors: Arc<[DefinedConnector]> = connectors.into();
    // YCSB inserts: a range of this run's and this agent's own (4096 agents a run).
    let slot = u64::from(prepared.loaded.runs) << 12 | u64::from(opts.plan.agent.index);
    let mix = Mix::new(workload.workload, prepared.loaded.scale, slot)
        .map_err(|e| Error::usage(format!("--scale: {e}")))?;
    let seed = workload.run_seed(&prepared.loaded, opts.seed);
    let labels: Vec<String> = targets.iter().map(Target::key).collect();
    let acks = lookup(workload.workload.def());
    let driver = |run| {
        let seed = run_seed(seed, run);
        let driver = DefinedDriver {
            profile: workload.profile.clone(),
            connectors: connectors.clone(),
            labels: labels.clone(),
            mix: mix.clone(),
            definition: workload.workload.def(),
            think_mean: opts.think_mean,
            seed,
            acks: acks.clone(),
        };
        (seed, Arc::new(driver))
    };
    let serde_json::Value::Object(mut config) = serde_json::json!({
        "scale": prepared.loaded.scale,
        "think_time_s": opts.think_mean.as_secs_f64(),
        "seed": seed,
        "load_seed": prepared.loaded.seed,
        "definition": format!("{:016x}", prepared.loaded.definition),
    }) else {
        unreachable!("an object literal")
    };
    if let Some(text) = &workload.source {
        // The file as written, so that a result says exactly what ran.
        config.insert("workload_file".into(), serde_json::Value::String(text.to_string()));
    }
    name_targets(targets, &labels, &mut config);
    let about = prepared.about(workload.profile.clone(), &labels, config);
    study(driver, cycle, targets, &opts.plan, &opts.study, about, progress).await
}
