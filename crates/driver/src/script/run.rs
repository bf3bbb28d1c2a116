//! Running pgbench's scripts: each user a pgbench client (its variables kept from one script to the
//! next, `:client_id` its index in the run), each turn one script drawn by weight and run to its end
//! on the user's session, retried whole after a serialization failure or deadlock up to `--max-tries`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oltpgen_datagen::Rng;
use oltpgen_datagen::pgbench::{AckFrom, Script, Step, Value, Vars};

use super::Scripts;
use crate::engine::script::{Rows, ScriptConnector, ScriptSession};
use crate::prepare::prepare;
use crate::run::study::{Cycle, Studied, name_targets, run_seed};
use crate::run::{Driven, Next, Ops, RunPlan, StudyOptions, study};
use crate::tpcb::Tpcb;
use crate::workload::{AckLookup, Profile};
use crate::{Error, Target};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Ack, Done, TxnError};

/// Tags that keep the run's random streams apart from the load's.
const RUN_STREAM: u64 = 0x5047_4245;

/// A pgbench client's own state: its random stream and its variables.
pub struct Client {
    rng: Rng,
    vars: Vars,
}

/// A user's client, shared with the turn it runs (a turn takes it and gives it back).
pub type Shared = Arc<Mutex<Option<Client>>>;

/// One turn: the script drawn, and the client that runs it.
pub struct Turn {
    script: usize,
    client: Shared,
}

/// pgbench's scripts as one run drives them.
pub struct ScriptDriver {
    profile: Profile,
    connectors: Arc<[ScriptConnector]>,
    labels: Vec<String>,
    scripts: Arc<[Script]>,
    /// Where each script's statements start among the prepared ones.
    offsets: Vec<usize>,
    /// The scripts' weights, summed as they go.
    cumulative: Vec<u64>,
    /// Every client's variables before its first script (`:scale`, `:random_seed`, `-D`).
    vars: Vars,
    max_tries: u32,
    seed: u64,
    /// How the scripts' acknowledgements are read back, when one names any.
    acks: Option<AckLookup>,
}

impl Driven for ScriptDriver {
    type User = Shared;
    type Session = ScriptSession;
    type Input = Turn;

    fn profile(&self) -> &Profile {
        &self.profile
    }

    fn targets(&self) -> &[String] {
        &self.labels
    }

    fn acknowledged(&self) -> Option<AckLookup> {
        self.acks.clone()
    }

    /// A script is tried as `--max-tries` says (pgbench's default: once), never again by the user loop.
    fn retries_itself(&self) -> bool {
        true
    }

    fn no_acknowledgement(&self) -> Option<String> {
        Some(crate::lost_commits::NO_ACK_SCRIPT.to_string())
    }

    fn user(&self, index: u32) -> Shared {
        let mut vars = self.vars.clone();
        vars.set("client_id", Value::Int(i64::from(index)));
        let rng = Rng::derive(self.seed, &[RUN_STREAM, u64::from(index)]);
        Arc::new(Mutex::new(Some(Client { rng, vars })))
    }

    fn next(&self, user: &mut Shared) -> Next<Turn> {
        let total = *self.cumulative.last().expect("a script");
        let draw = {
            let mut guard = user.lock().expect("a client's lock");
            guard.as_mut().map_or(0, |c| c.rng.below(total))
        };
        let script = self.cumulative.iter().position(|&c| draw < c).unwrap_or(0);
        Next {
            kind: script,
            input: Turn { script, client: user.clone() },
            keying: Duration::ZERO,
            think: Duration::ZERO,
        }
    }

    async fn connect(&self, target: usize) -> Result<ScriptSession, TxnError> {
        self.connectors[target].open().await
    }

    async fn execute(&self, session: &ScriptSession, turn: &Turn, ops: &mut Ops) -> Result<Done, TxnError> {
        let taken = turn.client.lock().expect("a client's lock").take();
        let Some(mut client) = taken else { return Err(TxnError { fault: Fault::Fatal }) };
        let script = &self.scripts[turn.script];
        let offset = self.offsets[turn.script];
        let mut tries = 1;
        let outcome = loop {
            // A retry runs the script again from the same variables and draws, as pgbench's does.
            let before = (self.max_tries > 1).then(|| (client.rng.clone(), client.vars.clone()));
            match once(session, script, offset, &mut client).await {
                Ok(ack) => {
                    if let Some(values) = ack {
                        ops.acknowledge(Ack::new(turn.script as u8, &values));
                    }
                    break Ok(Done::default());
                }
                Err(e) => {
                    session.rollback().await;
                    match before {
                        Some((rng, vars)) if e.fault == Fault::Retryable && tries < self.max_tries => {
                            (client.rng, client.vars) = (rng, vars);
                            tries += 1;
                            ops.retried();
                        }
                        _ => break Err(e),
                    }
                }
            }
        };
        *turn.client.lock().expect("a client's lock") = Some(client);
        outcome
    }
}

/// Runs `script` once to its end on `session`; the key of its acknowledgement, when it names one and
/// its statement gave one ([`ack_key`]).
async fn once(
    session: &ScriptSession,
    script: &Script,
    offset: usize,
    client: &mut Client,
) -> Result<Option<Vec<i64>>, TxnError> {
    let fatal = TxnError { fault: Fault::Fatal };
    let mut pc = 0;
    let mut acked = None;
    loop {
        match client.vars.step(script, &mut pc, &mut client.rng).map_err(|_| fatal)? {
            Step::Sql(i, sql, params) => {
                let ack = script.ack.as_ref().filter(|a| a.sql == i);
                let keep = sql.store.is_some() || ack.is_some_and(|a| a.from == AckFrom::Row);
                let rows = session.run(offset + i, &params, keep).await?;
                if let Some(ack) = ack {
                    acked = ack_key(ack.from, &params, rows.as_ref());
                }
                if let (Some(store), Some((columns, rows))) = (&sql.store, rows) {
                    client.vars.store(store, &columns, &rows).map_err(|_| fatal)?;
                }
            }
            Step::Sleep(us) => tokio::time::sleep(Duration::from_micros(us)).await,
            Step::End => return Ok(acked),
        }
    }
}

/// The key an acknowledging statement gave: its parameters, or its first row (none when it returned
/// none), each value as [`Ack::value_of_text`] keeps it.
fn ack_key(from: AckFrom, params: &[Option<String>], rows: Option<&Rows>) -> Option<Vec<i64>> {
    let values = match from {
        AckFrom::Params => params,
        AckFrom::Row => rows?.1.first()?.as_slice(),
    };
    Some(values.iter().map(|v| Ack::value_of_text(v.as_deref())).collect())
}

/// A run of scripts as asked for.
#[derive(Clone, Debug)]
pub struct ScriptRunOptions {
    /// Users, connections and timing.
    pub plan: RunPlan,
    /// The run's seed; `None` derives one from the database and the run's number.
    pub seed: Option<u64>,
    /// `--scale`: `:scale` for a user's scripts.
    pub scale: Option<u64>,
    /// `--max-tries`: tries of a script that meets a serialization failure or deadlock.
    pub max_tries: u32,
    /// Cost and power.
    pub study: StudyOptions,
}

/// Runs `scripts` against `targets` side by side as a study and returns the result document.
///
/// # Errors
/// [`Error::Usage`] when a database is not ready for the run, or a statement does not prepare there
/// (naming its script and line).
pub async fn run(
    scripts: &Scripts,
    targets: &[Target],
    opts: &ScriptRunOptions,
    cycle: &mut impl Cycle,
    progress: impl FnMut(crate::run::Progress<'_>),
) -> Result<Studied, Error> {
    let db = Tpcb::for_scripts(scripts);
    let prepared = prepare(&db, targets, None, &opts.plan).await?;
    let mut statements = Vec::new();
    let mut names = Vec::new();
    let mut offsets = Vec::new();
    for s in &scripts.scripts {
        offsets.push(statements.len());
        for q in &s.sql {
            statements.push(q.text.clone());
            names.push(format!("{} line {}", s.name, q.line));
        }
    }
    let mut connectors = Vec::with_capacity(targets.len());
    for target in targets {
        connectors.push(ScriptConnector::ready(target, statements.clone(), &names).await?);
    }
    let connectors: Arc<[ScriptConnector]> = connectors.into();
    let loaded = prepared.loaded.scale;
    let scale = scripts.scale(opts.scale, (loaded > 0).then_some(loaded));
    let seed = opts
        .seed
        .unwrap_or_else(|| run_seed(prepared.loaded.seed ^ 0x0070_6762_656e_6368, prepared.loaded.runs + 1));
    let cumulative: Vec<u64> = scripts
        .weights
        .iter()
        .scan(0u64, |sum, &w| {
            *sum += u64::from(w);
            Some(*sum)
        })
        .collect();
    let labels: Vec<String> = targets.iter().map(Target::key).collect();
    let acks = lookup(&scripts.scripts, scripts.profile.kinds.names);
    let scripts_arc: Arc<[Script]> = scripts.scripts.clone().into();
    let driver = |run| {
        let seed = run_seed(seed, run);
        let mut vars = Vars::default();
        vars.set("scale", scale);
        vars.set("random_seed", Value::Int(seed as i64));
        vars.set("default_seed", Value::Int(Rng::derive(seed, &[RUN_STREAM]).next_u64() as i64));
        for (name, value) in &scripts.defines {
            vars.set_text(name, value.clone());
        }
        let driver = ScriptDriver {
            profile: scripts.profile.clone(),
            connectors: connectors.clone(),
            labels: labels.clone(),
            scripts: scripts_arc.clone(),
            offsets: offsets.clone(),
            cumulative: cumulative.clone(),
            vars,
            max_tries: opts.max_tries.max(1),
            seed,
            acks: acks.clone(),
        };
        (seed, Arc::new(driver))
    };
    let serde_json::Value::Object(mut config) = serde_json::json!({
        "scale": scale.to_text(),
        "scripts": scripts.scripts.iter().zip(&scripts.weights).map(|(s, w)| format!("{}@{w}", s.name)).collect::<Vec<_>>(),
        "max_tries": opts.max_tries,
        "seed": seed,
        "query_mode": "prepared",
    }) else {
        unreachable!("an object literal")
    };
    name_targets(targets, &labels, &mut config);
    let about = prepared.about(scripts.profile.clone(), &labels, config);
    study(driver, cycle, targets, &opts.plan, &opts.study, about, progress).await
}

/// How `scripts`' acknowledgements are read back after a failover, when one names any: each script's
/// own lookup (by the acknowledgement's kind, the script's index), its rows turned into the key's text
/// on the server; an ack said by its script's name in the run (`names`, as its transaction type is
/// named: a file's stem, not its path) and its values (text values by their hash).
fn lookup(scripts: &[Script], names: &[&str]) -> Option<AckLookup> {
    let checks: Vec<Option<String>> =
        scripts.iter().map(|s| s.ack.as_ref().map(|a| a.check.clone())).collect();
    checks.iter().any(Option::is_some).then_some(())?;
    // A built-in's values by its parameters' names; a row's by position, up to its last not 0.
    let said: Vec<(String, Vec<String>)> = scripts
        .iter()
        .zip(names)
        .map(|(s, name)| {
            let named =
                s.ack.as_ref().filter(|a| a.from == AckFrom::Params).map(|a| s.sql[a.sql].params.clone());
            (name.to_string(), named.unwrap_or_default())
        })
        .collect();
    Some(
        AckLookup::new(
            "comparing the scripts' acknowledged rows",
            move |acks, _| {
                let check = checks[usize::from(acks[0].kind)].as_deref().unwrap_or("SELECT NULL WHERE false");
                // Each row's columns, in order, as text joined by commas: the key as the script saw it.
                let query = format!(
                    "SELECT (SELECT string_agg(coalesce(j.value, ''), ',' ORDER BY j.n) \
                 FROM json_each_text(row_to_json(r)) WITH ORDINALITY j(key, value, n)) FROM ({check}) r"
                );
                (query, i64::MAX)
            },
            move |a| {
                let (script, names) = &said[usize::from(a.kind)];
                if !names.is_empty() {
                    let values: Vec<String> =
                        names.iter().zip(a.key).map(|(n, v)| format!("{n}={v}")).collect();
                    return format!("{script}: {}", values.join(" "));
                }
                let n = a.key.iter().rposition(|&v| v != 0).map_or(1, |i| i + 1);
                let values: Vec<String> = a.key[..n].iter().map(i64::to_string).collect();
                format!("{script}: ({})", values.join(", "))
            },
        )
        .counted(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_commit_is_said_by_its_script_s_name_in_the_run_not_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("orders.sql");
        let text = "BEGIN;\n-- oltpgen: ack\nINSERT INTO o (cid) VALUES (1) RETURNING id, cid;\nEND;\n\
                    -- oltpgen: ack-check SELECT id, cid FROM o\n";
        std::fs::write(&file, text).unwrap();
        let scripts = Scripts::read(&[file.display().to_string()], &["tpcb-like".into()], &[]).unwrap();
        let acks = lookup(&scripts.scripts, scripts.profile.kinds.names).unwrap();
        assert_eq!((acks.say)(&Ack::new(1, &[6_183, 124])), "orders: (6183, 124)");
        assert_eq!((acks.say)(&Ack::new(0, &[3, 1, 17, -40])), "tpcb-like: tid=3 bid=1 aid=17 delta=-40");
    }
}
