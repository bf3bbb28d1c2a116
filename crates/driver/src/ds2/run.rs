//! Running DS2: the workload as the run machinery sees it (one whole order per transaction, its
//! operations timed one by one; several databases side by side), and the checks before a run.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use oltpgen_datagen::Rng;
use oltpgen_datagen::ds2::input::{Arrival, Browse, OrderGen, OrderInput, OrderParams, Registration};
use oltpgen_report::model::ds2_progress::{Ds2Interval, Ds2Progress, OpCounts};

use super::{Ds2, LoadedParams, PROFILE};
use crate::engine::ds2::{self as seam, Ds2Session};
use crate::prepare::prepare;
use crate::run::collector::{IntervalFigures, KindInterval};
use crate::run::since_reset::SinceReset;
use crate::run::study::{Cycle, Studied, run_seed};
use crate::run::{Driven, Next, Ops, RunPlan, StudyOptions, one_or_each, study};
use crate::workload::{AckLookup, Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::ds2::{Functions, Purchase};
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::{Ack, Done, TxnError};
use oltpgen_vocab::tpcc::Transactions;

/// DS2's transaction types as samples index them: its five operations (a browse by each of its three
/// keys), then its two views of one whole order. Their names are the results' ([`DS2_TRANSACTIONS`](oltpgen_report::model::DS2_TRANSACTIONS)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ds2Op {
    /// A returning customer logs in (and reads their recent purchases).
    Login,
    /// A new customer registers.
    NewCustomer,
    /// A browse by category.
    BrowseCategory,
    /// A browse by actor.
    BrowseActor,
    /// A browse by title.
    BrowseTitle,
    /// The purchase that ends the order.
    Purchase,
    /// The whole order, from its intended start to its end ([`oltpgen_report::model::ORDER`]).
    Order,
    /// The whole order as DS2's driver times it ([`oltpgen_report::model::RT_TOT`]).
    RtTot,
}

impl Ds2Op {
    /// Every type, in index order.
    pub const ALL: [Ds2Op; 8] = [
        Ds2Op::Login,
        Ds2Op::NewCustomer,
        Ds2Op::BrowseCategory,
        Ds2Op::BrowseActor,
        Ds2Op::BrowseTitle,
        Ds2Op::Purchase,
        Ds2Op::Order,
        Ds2Op::RtTot,
    ];

    /// The index samples and results use.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The name results use.
    pub const fn name(self) -> &'static str {
        match self {
            Ds2Op::Login => "login",
            Ds2Op::NewCustomer => "new_customer",
            Ds2Op::BrowseCategory => "browse_category",
            Ds2Op::BrowseActor => "browse_actor",
            Ds2Op::BrowseTitle => "browse_title",
            Ds2Op::Purchase => "purchase",
            Ds2Op::Order => oltpgen_report::model::ORDER,
            Ds2Op::RtTot => oltpgen_report::model::RT_TOT,
        }
    }
}

/// The types' names in index order, from [`Ds2Op`] (the results' [`DS2_TRANSACTIONS`](oltpgen_report::model::DS2_TRANSACTIONS), checked by a test).
pub(crate) const KIND_NAMES: [&str; Ds2Op::ALL.len()] = crate::kind_names!(Ds2Op::ALL);

/// Tags that keep the run's random streams apart from the load's.
const RUN_STREAM: u64 = 0x0044_5332;
/// The stream of replacement user names, for registrations whose name was taken.
const RENAME_STREAM: u64 = 0x4e41_4d45;
/// Registrations give up after this many taken names in a row (a database full of `newuser` names).
const MAX_RENAMES: u32 = 100;

/// DS2 as one run drives it.
pub struct Ds2Driver {
    targets: Vec<Target>,
    /// Per target, whose server functions it has.
    functions: Vec<Functions>,
    /// Per target, where its operations run.
    transactions: Vec<Transactions>,
    labels: Vec<String>,
    orders: OrderGen,
    think_mean: Duration,
    seed: u64,
}

/// One DS2 user: its random stream.
pub struct Ds2User {
    rng: Rng,
}

impl Ds2Driver {
    /// The workload over `targets` (all loaded at the same size, `loaded`; each served by its
    /// `functions`, its operations run as its `transactions` say), drawing orders as `params` says, thinking `think_mean` on average between orders;
    /// `seed` picks the run's random streams.
    pub fn new(
        targets: Vec<Target>,
        functions: Vec<Functions>,
        transactions: Vec<Transactions>,
        loaded: &LoadedParams,
        params: OrderParams,
        think_mean: Duration,
        seed: u64,
    ) -> Self {
        let labels = targets.iter().map(Target::key).collect();
        let orders = OrderGen::new(loaded.customers, loaded.products, params);
        Ds2Driver { targets, functions, transactions, labels, orders, think_mean, seed }
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
            let id = s.register(&form).await?;
            if let Some(id) = id {
                return Ok((id, attempt));
            }
            form.username = self.orders.new_username(&mut rng);
        }
        Err(TxnError { fault: Fault::Fatal })
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

impl Driven for Ds2Driver {
    type User = Ds2User;
    type Session = Ds2Session;
    type Input = OrderInput;

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn acknowledged(&self) -> Option<AckLookup> {
        Some(super::acks())
    }

    fn targets(&self) -> &[String] {
        &self.labels
    }

    fn user(&self, index: u32) -> Ds2User {
        Ds2User { rng: Rng::derive(self.seed, &[RUN_STREAM, u64::from(index)]) }
    }

    fn next(&self, u: &mut Ds2User) -> Next<OrderInput> {
        let input = self.orders.next(&mut u.rng);
        Next {
            kind: Ds2Op::Order.index(),
            input,
            keying: Duration::ZERO,
            think: think(self.think_mean, &mut u.rng),
        }
    }

    async fn connect(&self, target: usize) -> Result<Ds2Session, TxnError> {
        Ds2Session::open(&self.targets[target], self.functions[target], self.transactions[target]).await
    }

    async fn execute(&self, s: &Ds2Session, order: &OrderInput, ops: &mut Ops) -> Result<Done, TxnError> {
        let customer = match &order.arrival {
            Arrival::Login { customer_id } => {
                let found = ops
                    .run(Ds2Op::Login.index(), || async { s.login(*customer_id).await }, |_| false)
                    .await?;
                // A loaded customer is always there: a miss means the database is not what was loaded.
                found.ok_or(TxnError { fault: Fault::Fatal })?
            }
            Arrival::Register(form) => {
                let (id, last_attempt) =
                    ops.run(Ds2Op::NewCustomer.index(), || self.register(s, form), |_| false).await?;
                ops.count_last_from(last_attempt);
                id
            }
        };
        for browse in &order.browses {
            let kind = match browse {
                Browse::Category { .. } => Ds2Op::BrowseCategory.index(),
                Browse::Actor { .. } => Ds2Op::BrowseActor.index(),
                Browse::Title { .. } => Ds2Op::BrowseTitle.index(),
            };
            ops.run(kind, || s.browse(browse), |_| false).await?;
        }
        let bought = ops
            .run(
                Ds2Op::Purchase.index(),
                || s.purchase(customer, &order.lines),
                |p| *p == Purchase::RolledBack,
            )
            .await?;
        if let Purchase::Ordered { orderid } = bought {
            let lines = order.lines.len() as i64;
            ops.acknowledge(Ack::new(0, &[orderid as i64, customer as i64, lines]));
        }
        Ok(Done { rolled_back: bought == Purchase::RolledBack })
    }
}

/// A progress tick in DS2's terms ([`Ds2Progress`]): over every target, then per target (empty with
/// one target).
pub fn progress(f: &IntervalFigures) -> (Ds2Progress, Vec<Ds2Progress>) {
    let n = f.targets.len().max(1) as u64;
    let one = |kinds: &[KindInterval], since: &SinceReset, users: u64| {
        let total = |i: usize| since.kinds[i];
        let (order, rt_tot) = (kinds[Ds2Op::Order.index()], kinds[Ds2Op::RtTot.index()]);
        Ds2Progress {
            run_s: f.elapsed_s,
            et_s: since.elapsed_s,
            users,
            n_overall: total(Ds2Op::Order.index()).count,
            rollbacks: total(Ds2Op::Order.index()).rollbacks,
            errors: total(Ds2Op::Order.index()).errors,
            rt_tot_avg_ms: total(Ds2Op::RtTot.index()).avg_ms,
            rt_tot_lastn_max_ms: total(Ds2Op::RtTot.index()).last_n_max_ms,
            order_rt_avg_ms: total(Ds2Op::Order.index()).avg_ms,
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
        logins: count(Ds2Op::Login.index()),
        new_customers: count(Ds2Op::NewCustomer.index()),
        browses: count(Ds2Op::BrowseCategory.index())
            + count(Ds2Op::BrowseActor.index())
            + count(Ds2Op::BrowseTitle.index()),
        purchases: count(Ds2Op::Purchase.index()),
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
    /// Server-side or client-side operations (`--transactions`); `None` runs them server-side.
    pub transactions: Option<Transactions>,
    /// Cost and power.
    pub study: StudyOptions,
}

/// Runs DS2 against `targets` side by side as a study (`--runs` times over, each run readied by
/// `cycle`) and returns the result document (also when Ctrl-C, a restore or a hook cut it short).
/// `progress` hears every reporting interval and every step.
///
/// # Errors
/// [`Error::Usage`] when a database is not ready for the run (see [`prepare`](crate::prepare::prepare)).
pub async fn run(
    targets: &[Target],
    opts: &RunOptions,
    cycle: &mut impl Cycle,
    progress: impl FnMut(crate::run::Progress<'_>),
) -> Result<Studied, Error> {
    let transactions: Vec<Transactions> =
        targets.iter().map(|t| seam::transactions(t, opts.transactions)).collect::<Result<_, _>>()?;
    let prepared = prepare(&Ds2, targets, opts.db_size.as_deref(), &opts.plan).await?;
    let loaded = &prepared.loaded;
    let seed = Ds2.run_seed(loaded, opts.seed);
    let functions = prepared.origins.clone();
    let workload = |run| {
        let seed = run_seed(seed, run);
        let ds2 = Ds2Driver::new(
            targets.to_vec(),
            functions.clone(),
            transactions.clone(),
            loaded,
            opts.orders,
            opts.think_mean,
            seed,
        );
        (seed, Arc::new(ds2))
    };
    let labels: Vec<String> = targets.iter().map(Target::key).collect();
    let o = &opts.orders;
    let serde_json::Value::Object(config) = serde_json::json!({
        "targets": labels,
        "db_size": loaded.db_size,
        "n_threads_per_target": opts.plan.of_run(1).steps.iter().map(|s| s.users as usize / targets.len().max(1)).collect::<Vec<_>>(),
        "think_time_s": opts.think_mean.as_secs_f64(),
        "pct_newcustomers": o.pct_newcustomers,
        "n_searches": o.n_searches,
        "search_batch_size": o.search_batch_size,
        "n_line_items": o.n_line_items,
        "seed": seed,
        "load_seed": loaded.seed,
        "implementation": one_or_each(&labels, &functions.iter().map(|f| f.name()).collect::<Vec<_>>()),
        "transactions": one_or_each(&labels, &transactions.iter().map(|t| t.name()).collect::<Vec<_>>()),
    }) else {
        unreachable!("an object literal")
    };
    let mut config = config;
    if functions.contains(&Functions::Reference) {
        // DS2 drives targets of one engine side by side: the first's (`prepare` refused none at all).
        config.insert("known_defects".into(), seam::reference_defects(targets[0].engine()).into());
    }
    if let Some(search) = seam::browse_search(&targets[0]).await? {
        config.insert("browse_search".into(), search.into());
    }
    let about = prepared.about(PROFILE.clone(), &labels, config);
    study(workload, cycle, targets, &opts.plan, &opts.study, about, progress).await
}

#[cfg(test)]
mod tests {
    use oltpgen_report::model::DS2_TRANSACTIONS;

    use super::*;

    #[test]
    fn kind_indexes_name_the_operations() {
        let at = |i: usize| DS2_TRANSACTIONS[i];
        assert_eq!(
            [
                at(Ds2Op::Login.index()),
                at(Ds2Op::NewCustomer.index()),
                at(Ds2Op::BrowseCategory.index()),
                at(Ds2Op::BrowseActor.index()),
                at(Ds2Op::BrowseTitle.index()),
                at(Ds2Op::Purchase.index())
            ],
            ["login", "new_customer", "browse_category", "browse_actor", "browse_title", "purchase"]
        );
        assert_eq!(at(Ds2Op::Order.index()), oltpgen_report::model::ORDER);
        assert_eq!(at(Ds2Op::RtTot.index()), oltpgen_report::model::RT_TOT);
        assert_eq!(KIND_NAMES, DS2_TRANSACTIONS, "the enum names the results' types, in order");
        assert!(Ds2Op::ALL.iter().enumerate().all(|(i, op)| op.index() == i));
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
