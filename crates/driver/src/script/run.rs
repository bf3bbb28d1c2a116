//! Running pgbench's scripts: each user a pgbench client (its variables kept from one script to the
//! next, `:client_id` its index in the run), each turn one script drawn by weight and run to its end
//! on the user's session, retried whole after a serialization failure or deadlock up to `--max-tries`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oltpgen_datagen::Rng;
use oltpgen_datagen::pgbench::{Script, Step, Value, Vars};

use super::Scripts;
use crate::engine::script::{ScriptConnector, ScriptSession};
use crate::prepare::prepare;
use crate::run::study::{Cycle, Studied, name_targets, run_seed};
use crate::run::{Driven, Next, Ops, RunPlan, StudyOptions, study};
use crate::tpcb::Tpcb;
use crate::workload::Profile;
use crate::{Error, Target};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Done, TxnError};

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

    async fn execute(&self, session: &ScriptSession, turn: &Turn, _ops: &mut Ops) -> Result<Done, TxnError> {
        let taken = turn.client.lock().expect("a client's lock").take();
        let Some(mut client) = taken else { return Err(TxnError { fault: Fault::Fatal }) };
        let script = &self.scripts[turn.script];
        let offset = self.offsets[turn.script];
        let mut tries = 1;
        let outcome = loop {
            // A retry runs the script again from the same variables and draws, as pgbench's does.
            let before = (self.max_tries > 1).then(|| (client.rng.clone(), client.vars.clone()));
            match once(session, script, offset, &mut client).await {
                Ok(()) => break Ok(Done::default()),
                Err(e) => {
                    session.rollback().await;
                    match before {
                        Some((rng, vars)) if e.fault == Fault::Retryable && tries < self.max_tries => {
                            (client.rng, client.vars) = (rng, vars);
                            tries += 1;
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

/// Runs `script` once to its end on `session`.
async fn once(
    session: &ScriptSession,
    script: &Script,
    offset: usize,
    client: &mut Client,
) -> Result<(), TxnError> {
    let fatal = TxnError { fault: Fault::Fatal };
    let mut pc = 0;
    loop {
        match client.vars.step(script, &mut pc, &mut client.rng).map_err(|_| fatal)? {
            Step::Sql(i, sql, params) => {
                let rows = session.run(offset + i, &params, sql.store.is_some()).await?;
                if let (Some(store), Some((columns, rows))) = (&sql.store, rows) {
                    client.vars.store(store, &columns, &rows).map_err(|_| fatal)?;
                }
            }
            Step::Sleep(us) => tokio::time::sleep(Duration::from_micros(us)).await,
            Step::End => return Ok(()),
        }
    }
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
