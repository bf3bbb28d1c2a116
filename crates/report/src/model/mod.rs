//! The result document (`result.json`): [`RunResult`] and what it holds, here and in its modules:
//! the exact-merge latency histograms ([`histogram::LatencyHistogram`]), how every figure of a step
//! is derived from them ([`step`]), a step's audit ([`audit::Audit`]) and counters ([`counters`]);
//! beside it, the plain figures the driver hands the renderers as a run goes ([`ds2_progress`]) and
//! the user counts of a schedule ([`users::UserLoad`]).
//!
//! Names carry their units (`_s`, `_ms`, `_us`, `_w`, `_usd`); maps whose order shows in
//! the output are `BTreeMap`s so the JSON and the renderers are stable.

pub mod arrivals;
pub mod audit;
pub mod checks;
pub mod counters;
pub mod cycle;
pub mod descriptor;
pub mod ds2_progress;
pub mod endurance;
pub mod histogram;
pub mod measured;
pub mod outage;
pub mod search;
pub mod step;
pub mod users;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use self::audit::Audit;
use self::histogram::LatencyHistogram;

/// Version of the `result.json` layout; bumped when a field changes meaning or is removed, or when
/// one readers rely on is added (4: [`RunResult::descriptor`]; a result of 3 reads back with its
/// workload's built-in descriptor).
pub const SCHEMA_VERSION: u32 = 4;

impl RunResult {
    /// The workload's descriptor: the one the result was written with, or (a result of schema 3) the
    /// built-in workload's, so every renderer can rely on it.
    ///
    /// # Panics
    /// When the result names a workload that is not built in and carries no descriptor: a result read
    /// from JSON never does ([`RunResult::described`] refuses it), so only code building one that way.
    pub fn descriptor(&self) -> &descriptor::Descriptor {
        self.written_descriptor.as_ref().unwrap_or_else(|| {
            let workload = self.workload.builtin();
            workload.expect("a result of a workload not built in carries its descriptor").descriptor()
        })
    }

    /// Whether the result can be rendered: it carries its workload's descriptor, naming that workload,
    /// or it is of a built-in workload (a result of schema 3). Checked on every read of a result.
    ///
    /// # Errors
    /// One line saying which workload the result names and what it lacks.
    pub fn described(&self) -> Result<(), String> {
        let name = self.workload.name();
        match &self.written_descriptor {
            Some(d) if d.name != name => {
                Err(format!("its workload is {name} but its descriptor describes {}", d.name))
            }
            Some(_) => Ok(()),
            None if self.workload.builtin().is_some() => Ok(()),
            None => Err(format!(
                "its workload {name} is not built in and it carries no descriptor of it, so its figures \
                 cannot be named; only an oltpgen result of schema {SCHEMA_VERSION} or later holds one"
            )),
        }
    }
}

/// `result.json` is read as written (the derived reading, `RunResult::deserialize`, which serde's
/// `remote = "Self"` makes an inherent function), then checked ([`RunResult::described`]): a result
/// naming a workload it cannot be rendered for is refused when read, with one line, never later in a
/// renderer.
impl<'de> Deserialize<'de> for RunResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let result = RunResult::deserialize(deserializer)?;
        result.described().map_err(serde::de::Error::custom)?;
        Ok(result)
    }
}

/// Written as derived (`remote = "Self"` makes the derived writing the inherent `RunResult::serialize`).
impl Serialize for RunResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RunResult::serialize(self, serializer)
    }
}

/// One run of oltpgen: everything the text, CSV and HTML reports are rendered from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Derived as inherent functions, which the `Serialize` and `Deserialize` above call: reading checks after.
#[serde(remote = "Self")]
pub struct RunResult {
    /// Layout version ([`SCHEMA_VERSION`]), so readers can refuse documents they do not know.
    pub schema_version: u32,
    /// The oltpgen that produced the result.
    pub tool: Tool,
    /// Which workload ran: a built-in one ([`Workload`]) or one defined at run time, by its name.
    pub workload: WorkloadName,
    /// What the renderers say about the workload (its headline, transactions, step columns, unit of
    /// work), as the driver declared it; absent in results of schema 3, which read with the built-in
    /// workload's: ask [`RunResult::descriptor`].
    #[serde(default, rename = "descriptor", skip_serializing_if = "Option::is_none")]
    pub written_descriptor: Option<descriptor::Descriptor>,
    /// When the run started, RFC 3339 (passed in by the driver; this crate reads no clock).
    pub started_at: String,
    /// The exact configuration, secrets removed, as the driver resolved it.
    pub config: serde_json::Value,
    /// The database server that was driven.
    pub server: Server,
    /// Labels of the targets driven (URLs without passwords).
    pub targets: Vec<String>,
    /// Every measured step, in the order run.
    pub steps: Vec<Step>,
    /// One row per report interval and transaction type.
    pub timeseries: Vec<IntervalRow>,
    /// The load generator's own CPU use, to show it was not the bottleneck.
    pub client: ClientCpu,
    /// Errors by kind (e.g. `serialization_failure`, `connection_lost`) over the whole run.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Whether the run was stopped early (Ctrl-C, fatal error): the steps hold what ran.
    pub interrupted: bool,
    /// The headline: the highest-throughput step that kept within the cap, or `null`.
    pub max_within_cap: Option<Headline>,
    /// Idle and active power and throughput per watt, when power was measured.
    #[serde(default)]
    pub power: Option<Power>,
    /// System cost and cost per unit of throughput, when `--system-cost` was given.
    #[serde(default)]
    pub cost: Option<Cost>,
    /// Host and database counters sampled every report interval, on the run's clock (what the studies
    /// put beside throughput: CPU %, disk transfers/s, buffer hit %, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterSeries>,
    /// `io`: the flash's projected life at the headline's write rate, when `--rated-endurance` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endurance: Option<endurance::Endurance>,

    /// How each run of the sweep began (`--runs`): its seed, restore, starting size and idle time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<cycle::RunRecord>,
    /// Each outage (connections lost, a failover) on the run's clock: how long without a commit, how
    /// long until throughput was back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<outage::Outage>,
    /// The planned fault's command (`--fault-at`, `--fault-cmd`), when one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<outage::FaultCommand>,
    /// Acknowledged orders compared, after a run in which connections were lost, with the database then
    /// serving, and those it no longer held, or why they could not be compared. In a study of several
    /// runs, the sum of the runs' own (`runs[].lost_commits`, each compared at its run's end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_commits: Option<outage::AckComparison>,
    /// Which server answered each database's counters' connection, from when on the run's clock: a
    /// database named by several hosts (a primary and its standbys) shows the failover's new primary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub served_by: Vec<outage::ServedBy>,
}

/// One counter sampled through a run: where it was read, what it measures, and its values over time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterSeries {
    /// Where it was read: `client` (oltpgen's host), `db:<target label>`, `node:<exporter URL>`.
    pub source: String,
    /// What it measures, with its unit in the name as elsewhere (`cpu_pct`, `disk_vda_ms_per_transfer`).
    pub name: String,
    /// `[elapsed_s, value]` per interval; a missing sample is left out, never written as zero.
    pub points: Vec<[f64; 2]>,
}

/// The tool that wrote a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `oltpgen` for results we write.
    pub name: String,
    /// The crate version of the binary (`CARGO_PKG_VERSION`).
    pub version: String,
}

/// The benchmark a result comes from; decides which throughput figure is the headline unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// TPC-C style: throughput in New-Orders per minute (NOPM).
    Tpcc,
    /// DVD Store 2: throughput in orders per minute (OPM).
    Ds2,
    /// `oltpgen io`: a storage model (Iometer's access specification) on a file, no database; its
    /// transactions are the reads and writes, its throughput I/Os per second (IOPS).
    Io,
}

/// The name of the workload a result comes from, as result.json writes it (`"tpcc"`): a built-in
/// workload's ([`Workload`]) or any other's, a workload defined at run time, whose result renders from
/// the descriptor it carries ([`RunResult::descriptor`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WorkloadName(String);

impl WorkloadName {
    /// A workload's name, as its descriptor gives it.
    pub fn new(name: impl Into<String>) -> Self {
        WorkloadName(name.into())
    }

    /// The name, as result.json and the reports write it.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// The built-in workload of this name, when it is one.
    pub fn builtin(&self) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == self.0)
    }
}

impl From<Workload> for WorkloadName {
    fn from(w: Workload) -> Self {
        WorkloadName(w.name().into())
    }
}

impl PartialEq<Workload> for WorkloadName {
    fn eq(&self, w: &Workload) -> bool {
        self.0 == w.name()
    }
}

impl std::fmt::Display for WorkloadName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// TPC-C's five transactions, in the spec's order.
pub const TPCC_TRANSACTIONS: [&str; 5] = ["new_order", "payment", "order_status", "delivery", "stock_level"];

/// `oltpgen io`'s two kinds of I/O, as its results name them.
pub const IO_TRANSACTIONS: [&str; 2] = [IO_READ, IO_WRITE];

/// A read of one block (`io`).
pub const IO_READ: &str = "read";

/// A write of one block (`io`).
pub const IO_WRITE: &str = "write";

/// DVD Store 2's operations, then its two views of one whole customer order (login … purchase):
/// [`ORDER`] and [`RT_TOT`].
pub const DS2_TRANSACTIONS: [&str; 8] =
    ["login", "new_customer", "browse_category", "browse_actor", "browse_title", "purchase", ORDER, RT_TOT];

/// DS2's composite entry: one customer's whole order, timed from its intended start to its end, so
/// that the time the user waited for a connection or the server stalled it counts (oltpgen's honest
/// figure, judged by DS2's default cap). It is made of the other operations, so it is left out of TPS
/// and overall response times to avoid counting them twice.
pub const ORDER: &str = "order";

/// The same orders as DS2's driver times them (ds2xdriver.cs, `rt_tot`): the sum of the order's
/// operations' response times, a registration counting only its last attempt. Its mean is DS2's
/// `rt_tot_avg`. A composite entry like [`ORDER`], left out of the sums.
pub const RT_TOT: &str = "rt_tot";

/// Whether `name` is a composite entry ([`ORDER`], [`RT_TOT`]): made of other transactions, so
/// left out of TPS, overall response times and error sums, which count every operation once.
pub fn is_composite(name: &str) -> bool {
    name == ORDER || name == RT_TOT
}

/// The TPC-C transaction whose completions are counted in NOPM.
pub const NEW_ORDER: &str = "new_order";

/// The database server that was driven.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Server {
    /// Engine name, e.g. `postgresql`.
    pub engine: String,
    /// The server's own version string.
    pub version: String,
    /// Settings that shape performance (e.g. `shared_buffers`), as the server reports them.
    pub settings: BTreeMap<String, String>,
}

/// One step of a schedule: a user load held for a measured window, and what it achieved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Position in the schedule, from 0; equal across repetitions and machines of one plan.
    pub index: u32,
    /// Repetition number (from 1) when `--runs` repeats the schedule.
    pub run: u32,
    /// Virtual users running during the measured window.
    pub users: u64,
    /// Database connections they shared (equal to `users` unless pooled).
    pub connections: u64,
    /// Time spent starting users before measuring, in seconds.
    pub ramp_up_s: f64,
    /// Length of the measured window, in seconds.
    pub duration_s: f64,
    /// Where the measured window lies, relative to the run's start.
    pub window: Window,
    /// Throughput, response times and per-transaction statistics of the whole step.
    #[serde(flatten)]
    pub figures: Figures,
    /// The same figures per target, when several targets were driven.
    pub targets: BTreeMap<String, Figures>,
    /// The cap verdict, when a cap was set.
    pub cap: Option<CapVerdict>,
    /// Each target's own verdict under the same cap, when several targets were driven: shown beside
    /// the step's, which judges all of them together and decides the headline (Benchmark Factory's
    /// rule for several databases).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub target_caps: BTreeMap<String, CapVerdict>,
    /// The connections opened on each target, keyed as `targets` is, when several targets were driven:
    /// their sum is `connections`; agents' parts record their own, which a merge sums per target.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub target_connections: BTreeMap<String, u64>,
    /// The workload's audit figures (TPC-C's shares against the spec's bounds), when it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<Audit>,
    /// Each target's own audit, on its own warehouses, when several targets were driven (keyed as
    /// `targets`); `audit` is then their total, made from these.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub target_audits: BTreeMap<String, Audit>,
    /// Each counter's average over the step's window, keyed `<source>/<name>` (see [`CounterSeries`]):
    /// the figures the studies' tables quote per step.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, f64>,
    /// Whether the step was steady: its throughput's trend across its window, measured against the
    /// per-interval noise ([`crate::stats::steady::trend`]); `None` with too few intervals to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trend: Option<Trend>,
    /// The part the step played in a `--find-max` search; `None` in a sweep (and in results written
    /// before the search existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<search::ProbeRole>,
    /// A part the search also took this step for without measuring its load again (a neighbour of
    /// the best passing probe that the grow or bisect phase had measured): named in the path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_too: Option<search::ProbeRole>,
    /// An open loop's arrivals (`--rate`): offered and achieved rates, lag, drops; absent in a closed
    /// loop (and in results written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<arrivals::StepArrivals>,
}

/// A step's throughput trend across its window: the studies chose their steady window by eye.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    /// The least-squares slope of the per-interval throughput, in percent of the step's mean per minute.
    pub pct_per_min: f64,
    /// The two-sided p-value of that slope against the intervals' scatter around it (Student's t).
    pub p_value: f64,
    /// The intervals it was measured over.
    pub intervals: u32,
    /// Whether the trend is more than the noise (`p_value` under 0.05): the step was not steady.
    pub significant: bool,
}

/// The measured window of a step, in seconds since the run started.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Window {
    /// Start of measurement.
    pub start_s: f64,
    /// End of measurement.
    pub end_s: f64,
}

/// What a step (or one target within it) achieved. Built by [`Figures::from_transactions`],
/// so every figure is derived the same way from the histograms and counters.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Figures {
    /// Business transactions completed (committed or rolled back) per second.
    pub tps: f64,
    /// TPC-C: completed New-Orders per minute, the 1% rolled back included (5.4.2).
    pub nopm: Option<f64>,
    /// DS2: orders per minute (every completed order, as DS2 counts them).
    pub opm: Option<f64>,
    /// A workload defined at run time whose headline is one transaction per minute
    /// ([`Rate::PerMinute`](descriptor::Rate::PerMinute)): that transaction's completions per minute,
    /// rolled back or not, named by the descriptor's `unit` (`new_order per minute`), never NOPM.
    #[serde(default, rename = "per_minute", skip_serializing_if = "Option::is_none")]
    pub txn_per_minute: Option<f64>,
    /// Mean response time over all transactions, in milliseconds.
    pub rt_avg_ms: f64,
    /// 95th-percentile response time over all transactions, in milliseconds.
    pub rt_p95_ms: f64,
    /// DS2: mean response time of an order as DS2's driver computes it, `rt_tot_avg`: the mean of
    /// [`RT_TOT`], the sum of each order's operations' response times (schema 2; in schema 1 this was
    /// the whole order's mean, now [`order_rt_avg_ms`](Self::order_rt_avg_ms)).
    pub rt_tot_avg_ms: Option<f64>,
    /// DS2: mean response time of a whole order from its intended start to its end ([`ORDER`]), which
    /// also counts the waits between operations (for a connection, for the client): what the default
    /// cap judges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_rt_avg_ms: Option<f64>,
    /// Transactions that failed (after retries).
    pub errors: u64,
    /// Expected rollbacks (TPC-C's 1% New-Order, DS2's out-of-stock purchase).
    pub rollbacks: u64,
    /// Retries after serialization failures or deadlocks.
    pub retries: u64,
    /// Transactions (or DS2 operations) that lost their connection within the window: the server was
    /// unreachable for part of it, so the figures were not measured as asked and the verdict does not
    /// pass. Counted per target, so that a database that went away fails its own verdict. Left out
    /// when none did.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub connections_lost: u64,
    /// Per-transaction statistics, by transaction name.
    pub transactions: BTreeMap<String, TxnStats>,
}

/// Whether a count is zero: a count left out of a result when none happened.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Statistics of one transaction type in one step, with its full histogram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TxnStats {
    /// Completed transactions (committed and rolled back): the histogram's count.
    pub count: u64,
    /// Of `count`, how many rolled back as an expected outcome.
    pub rollbacks: u64,
    /// Failed transactions (not in `count`, not in the histogram).
    pub errors: u64,
    /// Retries after serialization failures or deadlocks.
    pub retries: u64,
    /// Mean response time, ms.
    pub avg_ms: f64,
    /// Median response time, ms.
    pub p50_ms: f64,
    /// 90th-percentile response time, ms.
    pub p90_ms: f64,
    /// 95th-percentile response time, ms.
    pub p95_ms: f64,
    /// 99th-percentile response time, ms.
    pub p99_ms: f64,
    /// Largest response time, ms.
    pub max_ms: f64,
    /// The response times themselves, for exact merging and percentile curves.
    pub histogram: LatencyHistogram,
}

/// Counters kept beside a transaction's histogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxnCounters {
    /// Expected rollbacks among the recorded transactions.
    pub rollbacks: u64,
    /// Failed transactions (not recorded in the histogram).
    pub errors: u64,
    /// Retries.
    pub retries: u64,
}

/// One report interval of one transaction type: a row of `timeseries.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRow {
    /// End of the interval, seconds since the run started.
    pub elapsed_s: f64,
    /// Users running during the interval.
    pub users: u64,
    /// Transaction name.
    pub txn: String,
    /// Completed transactions in the interval.
    pub count: u64,
    /// Completed transactions per second in the interval.
    pub tps: f64,
    /// Mean response time in the interval, ms.
    pub avg_ms: f64,
    /// 95th-percentile response time in the interval, ms.
    pub p95_ms: f64,
    /// Failed transactions in the interval.
    pub errors: u64,
}

/// The load generator's own CPU time, so a reader can see the client was not the bottleneck.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientCpu {
    /// User-mode CPU seconds of the oltpgen process.
    pub cpu_user_s: f64,
    /// Kernel-mode CPU seconds of the oltpgen process.
    pub cpu_sys_s: f64,
    /// `cpu_user_s + cpu_sys_s`.
    pub cpu_s: f64,
    /// Transactions completed over the same time.
    pub transactions: u64,
    /// Client CPU microseconds per transaction; `null` when no transaction completed.
    pub client_cpu_us_per_txn: Option<f64>,
    /// DS2: client CPU microseconds per whole order (login, browses, purchase); absent for TPC-C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cpu_us_per_order: Option<f64>,
    /// Peak resident memory of the oltpgen process, bytes (0 when unknown).
    #[serde(default)]
    pub peak_rss_bytes: u64,
    /// How late users woke from keying and think times in the measured window: 99th percentile, ms
    /// (`null` without waits). Large values mean the client, not the server, set the pace.
    #[serde(default)]
    pub wake_late_p99_ms: Option<f64>,
    /// The same, the worst case, ms.
    #[serde(default)]
    pub wake_late_max_ms: Option<f64>,
}

impl ClientCpu {
    /// Derives the total and per-transaction figures from the process's CPU times.
    pub fn new(cpu_user_s: f64, cpu_sys_s: f64, transactions: u64) -> Self {
        let cpu_s = cpu_user_s + cpu_sys_s;
        let client_cpu_us_per_txn = (transactions > 0).then(|| cpu_s * 1e6 / transactions as f64);
        Self { cpu_user_s, cpu_sys_s, cpu_s, transactions, client_cpu_us_per_txn, ..Self::default() }
    }
}

/// Whether one step kept within the response-time cap, rule by rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapVerdict {
    /// True when every rule passed.
    pub passed: bool,
    /// One entry per rule, in the order given.
    pub rules: Vec<RuleVerdict>,
    /// Why the step does not count, when it was not measured as it should have been (the server was
    /// unreachable for part of its window, or too many of its transactions failed): then `passed` is
    /// false whatever the rules say, and the step is never the headline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

/// The outcome of one cap rule on one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleVerdict {
    /// The rule in `--rt-cap` syntax, e.g. `avg=1s` or `new_order.p90=5s`.
    pub rule: String,
    /// The limit, ms.
    pub limit_ms: f64,
    /// What the step measured, ms; `null` when the step completed no such transaction.
    pub observed_ms: Option<f64>,
    /// Observed at or under the limit (a step with nothing measured fails).
    pub passed: bool,
}

/// The study's headline: the highest-throughput step that kept within the cap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// The step's `index`.
    pub step_index: u32,
    /// Its user load.
    pub users: u64,
    /// Its throughput.
    pub tps: f64,
    /// Its mean response time, ms.
    pub rt_avg_ms: f64,
    /// TPC-C: its New-Orders per minute (TPC-C's headline is the highest NOPM within the cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nopm: Option<f64>,
    /// DS2: its orders per minute (DS2's headline is the highest OPM within the cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opm: Option<f64>,
    /// A defined workload headlined per minute: its transaction's completions per minute
    /// ([`Figures::txn_per_minute`]).
    #[serde(default, rename = "per_minute", skip_serializing_if = "Option::is_none")]
    pub txn_per_minute: Option<f64>,
    /// DS2: its `rt_tot_avg`, ms ([`Figures::rt_tot_avg_ms`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rt_tot_avg_ms: Option<f64>,
    /// How a `--find-max` search's answer stands (its probes, the resolution it reached); `None` for a
    /// sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<search::SearchReached>,
}

/// Power drawn by the system under test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Power {
    /// Mean watts before the run (`--idle-sample`).
    pub idle_w: Option<f64>,
    /// Mean watts over the measured window.
    pub active_w: f64,
    /// Throughput per active watt: NOPM/W or OPM/W (TPS/W when neither applies).
    pub per_watt: f64,
}

/// What the system under test cost, and per unit of throughput.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// `--system-cost`, US dollars.
    pub system_cost_usd: f64,
    /// Dollars per TPS of the headline (or best) step.
    pub per_tps_usd: Option<f64>,
    /// Dollars per NOPM or OPM of the same step.
    pub per_minute_unit_usd: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_s_name_is_its_name_in_results() {
        for w in Workload::ALL {
            assert_eq!(serde_json::to_value(w).unwrap(), w.name());
        }
    }
}
