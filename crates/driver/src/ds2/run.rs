//! Running DS2: the workload as the run machinery sees it (one whole order per transaction, its
//! operations timed one by one; several databases side by side), and the checks before a run.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use oltpgen_datagen::Rng;
use oltpgen_datagen::ds2::input::{Arrival, Browse, OrderGen, OrderInput, OrderParams, Registration};
use oltpgen_report::ds2::{Ds2Interval, Ds2Progress, OpCounts};
use oltpgen_report::model::DS2_TRANSACTIONS;

use super::{Functions, LoadedParams, WORKLOAD, identify};
use crate::error::pg_fault;
use crate::pg::ds2_ops::{self, Ds2Statements, Purchase};
use crate::pg::{self, ServerInfo};
use crate::run::collector::{IntervalFigures, KindInterval};
use crate::run::since_reset::SinceReset;
use crate::run::{Done, Next, Ops, RunPlan, StudyOptions, TxnError, Workload, study};
use crate::{Error, Target};

/// Indexes into [`DS2_TRANSACTIONS`] (checked by a test).
const LOGIN: usize = 0;
const NEW_CUSTOMER: usize = 1;
const BROWSE_CATEGORY: usize = 2;
const BROWSE_ACTOR: usize = 3;
const BROWSE_TITLE: usize = 4;
const PURCHASE: usize = 5;
const ORDER: usize = 6;
const RT_TOT: usize = 7;

/// Tags that keep the run's random streams apart from the load's.
const RUN_STREAM: u64 = 0x0044_5332;
/// The stream of replacement user names, for registrations whose name was taken.
const RENAME_STREAM: u64 = 0x4e41_4d45;
/// Registrations give up after this many taken names in a row (a database full of `newuser` names).
const MAX_RENAMES: u32 = 100;

/// DS2 as the run machinery drives it.
pub struct Ds2 {
    targets: Vec<Target>,
    /// Per target, whose server functions it has.
    functions: Vec<Functions>,
    labels: Vec<String>,
    orders: OrderGen,
    think_mean: Duration,
    seed: u64,
}

/// One DS2 user: its random stream.
pub struct Ds2User {
    rng: Rng,
}

/// A connection with the five operations prepared.
pub struct Ds2Session {
    client: tokio_postgres::Client,
    statements: Ds2Statements,
}

fn txn_error(e: &tokio_postgres::Error) -> TxnError {
    TxnError { fault: pg_fault(e) }
}

impl Ds2 {
    /// The workload over `targets` (all loaded at the same size, `loaded`; each served by its
    /// `functions`), drawing orders as `params` says, thinking `think_mean` on average between orders;
    /// `seed` picks the run's random streams.
    pub fn new(
        targets: Vec<Target>,
        functions: Vec<Functions>,
        loaded: &LoadedParams,
        params: OrderParams,
        think_mean: Duration,
        seed: u64,
    ) -> Self {
        let labels = targets.iter().map(|t| t.label().to_string()).collect();
        let orders = OrderGen::new(loaded.customers, loaded.products, params);
        Ds2 { targets, functions, labels, orders, think_mean, seed }
    }

    /// The run's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Registers a new customer, retrying taken user names with fresh ones as DS2's driver does. The
    /// whole registration is one operation, timed over every attempt: what the new customer waited for.
    /// Returns the new id and when its last attempt began (DS2's driver counts only that one in the
    /// order's `rt_tot`).
    async fn register(
        &self,
        s: &Ds2Session,
        registration: &Registration,
    ) -> Result<(i32, Instant), TxnError> {
        let mut form = registration.clone();
        // Replacement names come from the name that was taken, so a run stays reproducible.
        let mut rng = Rng::derive(self.seed, &[RENAME_STREAM, name_key(&form.username)]);
        for _ in 0..MAX_RENAMES {
            let attempt = Instant::now();
            let id = ds2_ops::register(&s.client, &s.statements, &form).await.map_err(|e| txn_error(&e))?;
            if let Some(id) = id {
                return Ok((id, attempt));
            }
            form.username = self.orders.new_username(&mut rng);
        }
        Err(TxnError { fault: crate::error::Fault::Fatal })
    }
}

/// The reference's think time (ds2xdriver.cs): once per order, a whole number of milliseconds uniform
/// in [0, 2 × ⌊1000 × mean⌋); none for a mean of 0.
fn think(mean: Duration, rng: &mut Rng) -> Duration {
    let span_ms = 2 * mean.as_millis() as u64;
    Duration::from_millis(if span_ms == 0 { 0 } else { rng.below(span_ms) })
}

/// A stable number for a user name (FNV-1a), to seed its replacements.
fn name_key(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

impl Workload for Ds2 {
    const REPORT: oltpgen_report::model::Workload = oltpgen_report::model::Workload::Ds2;
    const KINDS: &'static [&'static str] = &DS2_TRANSACTIONS;
    const PER_MINUTE_KIND: usize = ORDER;
    const SUM_KIND: Option<usize> = Some(RT_TOT);
    type User = Ds2User;
    type Session = Ds2Session;
    type Input = OrderInput;

    fn targets(&self) -> &[String] {
        &self.labels
    }

    fn user(&self, index: u32) -> Ds2User {
        Ds2User { rng: Rng::derive(self.seed, &[RUN_STREAM, u64::from(index)]) }
    }

    fn next(&self, u: &mut Ds2User) -> Next<OrderInput> {
        let input = self.orders.next(&mut u.rng);
        Next { kind: ORDER, input, keying: Duration::ZERO, think: think(self.think_mean, &mut u.rng) }
    }

    async fn connect(&self, target: usize) -> Result<Ds2Session, TxnError> {
        let client = pg::connect(&self.targets[target]).await.map_err(|_| TxnError::LOST)?;
        let statements =
            Ds2Statements::prepare(&client, self.functions[target]).await.map_err(|e| txn_error(&e))?;
        Ok(Ds2Session { client, statements })
    }

    async fn execute(&self, s: &Ds2Session, order: &OrderInput, ops: &mut Ops) -> Result<Done, TxnError> {
        let (client, st) = (&s.client, &s.statements);
        let customer = match &order.arrival {
            Arrival::Login { customer_id } => {
                let found = ops
                    .run(
                        LOGIN,
                        || async {
                            ds2_ops::login(client, st, *customer_id).await.map_err(|e| txn_error(&e))
                        },
                        |_| false,
                    )
                    .await?;
                // A loaded customer is always there: a miss means the database is not what was loaded.
                found.ok_or(TxnError { fault: crate::error::Fault::Fatal })?
            }
            Arrival::Register(form) => {
                let (id, last_attempt) = ops.run(NEW_CUSTOMER, || self.register(s, form), |_| false).await?;
                ops.count_last_from(last_attempt);
                id
            }
        };
        for browse in &order.browses {
            let kind = match browse {
                Browse::Category { .. } => BROWSE_CATEGORY,
                Browse::Actor { .. } => BROWSE_ACTOR,
                Browse::Title { .. } => BROWSE_TITLE,
            };
            ops.run(
                kind,
                || async { ds2_ops::browse(client, st, browse).await.map_err(|e| txn_error(&e)) },
                |_| false,
            )
            .await?;
        }
        let bought = ops
            .run(
                PURCHASE,
                || async {
                    ds2_ops::purchase(client, st, customer, &order.lines).await.map_err(|e| txn_error(&e))
                },
                |p| *p == Purchase::RolledBack,
            )
            .await?;
        Ok(Done { rolled_back: bought == Purchase::RolledBack })
    }
}

/// A progress tick in DS2's terms ([`Ds2Progress`]): over every target, then per target (empty with
/// one target).
pub fn progress(f: &IntervalFigures) -> (Ds2Progress, Vec<Ds2Progress>) {
    let n = f.targets.len().max(1) as u64;
    let one = |kinds: &[KindInterval], since: &SinceReset, users: u64| {
        let total = |i: usize| since.kinds[i];
        let (order, rt_tot) = (kinds[ORDER], kinds[RT_TOT]);
        Ds2Progress {
            run_s: f.elapsed_s,
            et_s: since.elapsed_s,
            users,
            n_overall: total(ORDER).count,
            rollbacks: total(ORDER).rollbacks,
            errors: total(ORDER).errors,
            rt_tot_avg_ms: total(RT_TOT).avg_ms,
            rt_tot_lastn_max_ms: total(RT_TOT).last_n_max_ms,
            order_rt_avg_ms: total(ORDER).avg_ms,
            ops: op_counts(|i| total(i).count),
            interval: Ds2Interval {
                span_s: f.span_s,
                orders: order.count,
                rollbacks: order.rollbacks,
                errors: order.errors,
                rt_tot_avg_ms: rt_tot.avg_ms,
                rt_tot_max_ms: rt_tot.max_ms,
                order_avg_ms: order.avg_ms,
                order_max_ms: order.max_ms,
                ops: op_counts(|i| kinds[i].count),
            },
        }
    };
    let all = one(&f.kinds, &f.since_reset, f.users);
    let each = f.targets.iter().zip(&f.targets_since_reset).map(|(k, s)| one(k, s, f.users / n)).collect();
    (all, each)
}

/// DS2's operation counts from a count per kind index.
fn op_counts(count: impl Fn(usize) -> u64) -> OpCounts {
    OpCounts {
        logins: count(LOGIN),
        new_customers: count(NEW_CUSTOMER),
        browses: count(BROWSE_CATEGORY) + count(BROWSE_ACTOR) + count(BROWSE_TITLE),
        purchases: count(PURCHASE),
    }
}

/// What a run needs to know before it starts, checked once on every target.
pub struct Prepared {
    /// The load's parameters (the same size on every target).
    pub loaded: LoadedParams,
    /// The first target's server version and key settings, for the result.
    pub server: ServerInfo,
    /// Per target, whose server functions serve it.
    pub functions: Vec<Functions>,
}

/// Checks that every target holds a finished DS2 load of one size (`size`, when given) and can take
/// the run's connections, records that a run starts, and returns what the run needs.
///
/// # Errors
/// [`Error::Usage`] naming the target, the problem and the flag that fixes it.
pub async fn prepare(targets: &[Target], size: Option<&str>, plan: &RunPlan) -> Result<Prepared, Error> {
    let first = targets.first().ok_or_else(|| Error::usage("no database to drive: give --url"))?;
    let per_target = plan.max_users().div_ceil(targets.len() as u32);
    let needed = plan.connections.map_or(per_target, |c| c.min(per_target));
    let mut clients = Vec::with_capacity(targets.len());
    let mut expected: Option<LoadedParams> = None;
    let mut functions = Vec::with_capacity(targets.len());
    // Every target is checked before any is touched: a refusal leaves them all as they were.
    for target in targets {
        let client = pg::connect(target).await?;
        let super::Identified { loaded, functions: served_by } = identify(&client, target).await?;
        functions.push(served_by);
        if let Some(asked) = size.filter(|s| !s.eq_ignore_ascii_case(&loaded.db_size)) {
            return Err(Error::usage(format!(
                "{target} holds ds2 at --db-size {} but --db-size {asked} was asked: run at --db-size {}, \
                 or reload it with oltpgen ds2 load --db-size {asked} --replace",
                loaded.db_size, loaded.db_size
            )));
        }
        if let Some(e) = &expected
            && (e.customers, e.products) != (loaded.customers, loaded.products)
        {
            return Err(Error::usage(format!(
                "{target} holds ds2 at --db-size {} and {first} at {}: load every database at one size",
                loaded.db_size, e.db_size
            )));
        }
        let room = pg::connection_room(&client, target).await?;
        let fix = format!("share fewer with --connections {}", room.available.max(1));
        room.require(target, needed, &fix)?;
        expected.get_or_insert(loaded);
        clients.push(client);
    }
    // A database DS2's installer built is left as it is: no run is counted in it.
    for ((client, target), _) in
        clients.iter().zip(targets).zip(&functions).filter(|(_, f)| **f == Functions::Oltpgen)
    {
        crate::inventory::count_run(client, target, WORKLOAD).await?;
    }
    let server = pg::server_info(&clients[0], first).await?;
    Ok(Prepared { loaded: expected.expect("at least one target was checked"), server, functions })
}

/// Which functions served the run, as the result records it: one name when every target had the same,
/// else each target's.
fn implementation(functions: &[Functions], labels: &[String]) -> serde_json::Value {
    match functions {
        [first, rest @ ..] if rest.iter().all(|f| f == first) => first.name().into(),
        _ => labels
            .iter()
            .zip(functions)
            .map(|(l, f)| (l.clone(), serde_json::Value::from(f.name())))
            .collect(),
    }
}

/// A DS2 run as asked for.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Users (per target), timing, cap.
    pub plan: RunPlan,
    /// What orders look like.
    pub orders: OrderParams,
    /// Mean think time between a user's orders.
    pub think_mean: Duration,
    /// The size the user expects every target to hold, when they said.
    pub db_size: Option<String>,
    /// The run's seed; `None` derives one from the load's seed and the run's number.
    pub seed: Option<u64>,
    /// Cost and power.
    pub study: StudyOptions,
}

/// Runs DS2 against `targets` side by side and returns the result document (also when Ctrl-C cut the
/// run short: then `interrupted` is set). `progress` hears every reporting interval and every step.
///
/// # Errors
/// [`Error::Usage`] when a database is not ready for the run (see [`prepare`]).
pub async fn run(
    targets: &[Target],
    opts: &RunOptions,
    progress: impl FnMut(crate::run::Progress<'_>),
) -> Result<oltpgen_report::model::RunResult, Error> {
    let prepared = prepare(targets, opts.db_size.as_deref(), &opts.plan).await?;
    let loaded = &prepared.loaded;
    // By default each run draws new streams, reproducibly: the load's seed and the run's number.
    let seed =
        opts.seed.unwrap_or_else(|| Rng::derive(loaded.seed, &[u64::from(loaded.runs + 1)]).next_u64());
    let functions = prepared.functions.clone();
    let workload =
        Arc::new(Ds2::new(targets.to_vec(), functions.clone(), loaded, opts.orders, opts.think_mean, seed));
    let o = &opts.orders;
    let serde_json::Value::Object(config) = serde_json::json!({
        "targets": workload.targets(),
        "db_size": loaded.db_size,
        "n_threads_per_target": opts.plan.steps.iter().map(|s| s.users as usize / targets.len().max(1)).collect::<Vec<_>>(),
        "think_time_s": opts.think_mean.as_secs_f64(),
        "pct_newcustomers": o.pct_newcustomers,
        "n_searches": o.n_searches,
        "search_batch_size": o.search_batch_size,
        "n_line_items": o.n_line_items,
        "seed": seed,
        "load_seed": loaded.seed,
        "implementation": implementation(&functions, workload.targets()),
    }) else {
        unreachable!("an object literal")
    };
    let mut config = config;
    if functions.contains(&Functions::Reference) {
        config.insert("known_defects".into(), ds2_ops::REFERENCE_DEFECTS.into());
    }
    let server = prepared.server.into_result();
    study(workload, &opts.plan, &opts.study, server, config, progress).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_indexes_name_the_operations() {
        let at = |i: usize| DS2_TRANSACTIONS[i];
        assert_eq!(
            [
                at(LOGIN),
                at(NEW_CUSTOMER),
                at(BROWSE_CATEGORY),
                at(BROWSE_ACTOR),
                at(BROWSE_TITLE),
                at(PURCHASE)
            ],
            ["login", "new_customer", "browse_category", "browse_actor", "browse_title", "purchase"]
        );
        assert_eq!(at(ORDER), oltpgen_report::model::ORDER);
        assert_eq!(at(RT_TOT), oltpgen_report::model::RT_TOT);
    }

    #[test]
    fn think_time_is_uniform_over_twice_the_mean_in_whole_milliseconds() {
        let mut rng = Rng::new(3);
        let mean = Duration::from_millis(100);
        let draws: Vec<Duration> = (0..20_000).map(|_| think(mean, &mut rng)).collect();
        assert!(draws.iter().all(|d| *d < Duration::from_millis(200) && d.subsec_micros() % 1000 == 0));
        let avg = draws.iter().sum::<Duration>().as_secs_f64() / draws.len() as f64;
        assert!((avg - 0.0995).abs() < 0.002, "{avg}");
        assert_eq!(think(Duration::ZERO, &mut rng), Duration::ZERO);
    }
}
