//! `oltpgen report merge`: one result from the results of one plan run at the same time on several
//! machines (or against several targets), as if one client had driven them all.
//!
//! Step figures are merged *exactly*: per step, every result's per-target transactions are merged
//! histogram by histogram ([`merge_transactions`]) and every figure is derived again ([`Step::new`]),
//! so merging the two halves of a run gives the whole run's steps. The cap is judged again on the
//! merged figures, from the rules recorded in the steps' verdicts, and the headline follows from that.
//!
//! What cannot be exact, or needs a choice, and what was chosen:
//! - **Plan.** Results must share workload, number of steps, and per step its index, run, user count
//!   and cap rules ([`MergeError`] otherwise). The merged step runs the *sum* of the users and
//!   connections; its window spans all the windows, and rates are per the longest window, which for
//!   results of one plan (equal windows) is the exact sum.
//! - **Targets.** Each result's figures are keyed by its own target labels; a label in several results
//!   (machines driving one database) is one target, merged.
//! - **Time series.** Each machine ticks on its own clock, so rows are matched by their interval's
//!   position (the k-th report interval of every result) and transaction: counts, TPS, users and
//!   errors summed, mean response time weighted by count, elapsed time the latest. The p95 of the
//!   merged interval is the largest of the inputs' p95s — an upper bound (no part has more than 5% of
//!   its values above it, so neither has the whole), because rows keep no histogram.
//! - **Audit and counters** ([`merge_kept`]): a step's audit counts summed and judged again on the
//!   merged step; each part's host counters kept apart, labelled by the part (`client@agent0`), a
//!   database's once; with several targets, each target's connections summed over the parts.
//! - **Client.** CPU times and transaction counts summed; peak memory and wake-up lateness are the
//!   worst single process's.
//! - **Power and cost**, when every result has them, are taken as separate systems under test: watts
//!   and costs summed, throughput per watt over the summed watts, cost per unit of the merged headline.
//! - The tool, server and configuration are the first result's, the configuration saying how many
//!   results were merged ([`MERGED_RESULTS`]); the start time is the earliest.
//! - **Agents' parts** (`--agent I/N`) are checked to be every agent's part of one plan and one start
//!   ([`crate::stats::agents`]); their steps match by index and run (each agent ran its share of the
//!   users, summed here), a part that stopped early leaves the steps it did not reach INVALID, and the
//!   configuration drops each agent's own settings for the agents' count and start lateness.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::model::arrivals::StepArrivals;
use crate::model::step::{Transactions, merge_transactions};
use crate::model::{
    ClientCpu, Cost, IntervalRow, Power, RunResult, SCHEMA_VERSION, Step, Window, WorkloadName,
};
use crate::stats::agents::{self, PartsError};
use crate::stats::cap::{Cap, CapError, best_step_within_cap, max_within_cap};
use crate::stats::{merge_kept, ratio};

/// Which step a result holds at a position: what must agree between results of one plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepKey {
    /// The step's index.
    pub index: u32,
    /// Its repetition number.
    pub run: u32,
    /// Its user load.
    pub users: u64,
}

impl fmt::Display for StepKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {} of run {} with {} users", self.index + 1, self.run, self.users)
    }
}

impl From<&Step> for StepKey {
    fn from(s: &Step) -> Self {
        StepKey { index: s.index, run: s.run, users: s.users }
    }
}

/// Why results could not be merged. Results are numbered from 1, in the order given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// No results were given.
    #[error("no results to merge")]
    Empty,
    /// A result ran another benchmark.
    #[error("result {result} ran {found}, result 1 ran {expected}: only results of one plan merge")]
    Workload {
        /// The result at fault.
        result: usize,
        /// The first result's workload.
        expected: WorkloadName,
        /// This result's.
        found: WorkloadName,
    },
    /// A result has another number of steps.
    #[error("result {result} has {found} steps, result 1 has {expected}: only results of one plan merge")]
    StepCount {
        /// The result at fault.
        result: usize,
        /// The first result's number of steps.
        expected: usize,
        /// This result's.
        found: usize,
    },
    /// A step differs in index, run or users.
    #[error("result {result} holds {found} where result 1 holds {expected}: only results of one plan merge")]
    Step {
        /// The result at fault.
        result: usize,
        /// The first result's step at that position.
        expected: StepKey,
        /// This result's.
        found: StepKey,
    },
    /// A step was judged by other cap rules (or by none where result 1 had some).
    #[error("result {result} judged {step} by cap `{found}`, result 1 by `{expected}`")]
    Cap {
        /// The result at fault.
        result: usize,
        /// The step.
        step: StepKey,
        /// The first result's rules, comma-joined (`none` without a cap).
        expected: String,
        /// This result's.
        found: String,
    },
    /// A result given twice (the same run: equal in every part), which would count its
    /// transactions twice.
    #[error("result {result} is the same run as result {first}: a result merges once")]
    Duplicate {
        /// The result given again.
        result: usize,
        /// The one it repeats.
        first: usize,
    },
    /// The results are agents' parts, but not every agent's of one plan, once.
    #[error(transparent)]
    Parts(#[from] PartsError),
    /// A recorded cap rule does not parse, so the cap cannot be judged again.
    #[error("{step} of result 1 records a cap that does not parse: {source}")]
    CapRule {
        /// The step.
        step: StepKey,
        /// Why the rule does not parse.
        source: CapError,
    },
}

/// Merges results of one plan into one (see the module overview for how each part is merged).
///
/// # Errors
/// [`MergeError`] when there is nothing to merge, when the plans differ, or when a recorded cap
/// rule cannot be read back.
pub fn merge(results: &[RunResult]) -> Result<RunResult, MergeError> {
    let first = results.first().ok_or(MergeError::Empty)?;
    let agents = agents::check(results)?;
    check_plans(results, agents.is_some())?;
    for (j, r) in results.iter().enumerate() {
        if let Some(i) = results[..j].iter().position(|earlier| earlier == r) {
            return Err(MergeError::Duplicate { result: j + 1, first: i + 1 });
        }
    }
    // Agents' parts that stopped early hold fewer steps: the merge has every step any part holds.
    let count = results.iter().map(|r| r.steps.len()).max().unwrap_or(0);
    let steps = (0..count).map(|i| merge_step(results, i)).collect::<Result<Vec<_>, _>>()?;
    let mut targets: Vec<String> = Vec::new();
    for label in results.iter().flat_map(|r| &r.targets) {
        if !targets.contains(label) {
            targets.push(label.clone());
        }
    }
    let mut errors_by_kind = BTreeMap::new();
    for (kind, n) in results.iter().flat_map(|r| &r.errors_by_kind) {
        *errors_by_kind.entry(kind.clone()).or_default() += n;
    }
    let cost = results
        .iter()
        .map(|r| r.cost.map(|c| c.system_cost_usd))
        .sum::<Option<f64>>()
        .map(|usd| Cost::new(usd, best_step_within_cap(&steps).map(|s| &s.figures)));
    Ok(RunResult {
        schema_version: SCHEMA_VERSION,
        tool: first.tool.clone(),
        workload: first.workload.clone(),
        written_descriptor: Some(first.descriptor().clone()),
        started_at: results.iter().map(|r| &r.started_at).min().unwrap_or(&first.started_at).clone(),
        config: merged_from(
            agents.map_or_else(|| first.config.clone(), |n| agents::merged_config(results, n)),
            results.len(),
        ),
        server: first.server.clone(),
        targets,
        max_within_cap: max_within_cap(&steps),
        steps,
        timeseries: merge_timeseries(results),
        client: merge_client(results),
        errors_by_kind,
        interrupted: results.iter().any(|r| r.interrupted),
        power: merge_power(results),
        cost,
        // Each agent's host counters apart, labelled by agent; the database's once.
        counters: merge_kept::merge_series(results),
        // A projection is of one drive's rate; the merged rate is several drives'.
        endurance: None,

        // The parts ran one plan on one clock: the first part's account of how each run began stands,
        // each run's lost commits every part's added up.
        runs: crate::model::cycle::runs_of_parts(results),
        // Each agent met the outage on its own connections: each one's account of it, side by side.
        outages: results.iter().flat_map(|r| r.outages.iter().cloned()).collect(),
        fault: first.fault.clone(),
        // Each agent compared its own orders: their counts add up.
        lost_commits: merge_lost(results),
        // Each agent read the servers over its own connections: the first part's account stands.
        served_by: first.served_by.clone(),
    })
}

/// The key of a merged result's configuration that says how many results it was merged from: what
/// tells a merged result from a run's (`check --result` names it so).
pub const MERGED_RESULTS: &str = "merged_results";

/// `config` saying it is that of a merge of `parts` results ([`MERGED_RESULTS`]).
fn merged_from(mut config: serde_json::Value, parts: usize) -> serde_json::Value {
    if let Some(map) = config.as_object_mut() {
        map.insert(MERGED_RESULTS.into(), parts.into());
    }
    config
}

/// Every agent's lost commits added up, the first ten of them all; `None` when none compared.
fn merge_lost(results: &[RunResult]) -> Option<crate::model::outage::AckComparison> {
    results.iter().filter_map(|r| r.lost_commits.clone()).reduce(crate::model::outage::AckComparison::plus)
}

/// The cap rules a step was judged by, comma-joined; `None` without a verdict.
fn cap_rules(s: &Step) -> Option<String> {
    s.cap.as_ref().map(|v| v.rules.iter().map(|r| r.rule.as_str()).collect::<Vec<_>>().join(","))
}

/// Checks that `results` share a plan; agents' `parts` each ran their share of the users (so steps
/// match by index and run), and one interrupted may hold fewer steps.
fn check_plans(results: &[RunResult], parts: bool) -> Result<(), MergeError> {
    let Some((first, rest)) = results.split_first() else { return Ok(()) };
    for (r, result) in rest.iter().zip(2..) {
        if r.workload != first.workload {
            let (expected, found) = (first.workload.clone(), r.workload.clone());
            return Err(MergeError::Workload { result, expected, found });
        }
        let cut_short = parts && (r.interrupted || first.interrupted);
        if r.steps.len() != first.steps.len() && !cut_short {
            let (expected, found) = (first.steps.len(), r.steps.len());
            return Err(MergeError::StepCount { result, expected, found });
        }
        for (a, b) in first.steps.iter().zip(&r.steps) {
            let (expected, found) = (StepKey::from(a), StepKey::from(b));
            let users = if parts { found.users } else { expected.users };
            if (StepKey { users, ..expected }) != found {
                return Err(MergeError::Step { result, expected, found });
            }
            let (expected, found) = (cap_rules(a), cap_rules(b));
            if expected != found {
                let none = || "none".to_string();
                let (expected, found) = (expected.unwrap_or_else(none), found.unwrap_or_else(none));
                return Err(MergeError::Cap { result, step: StepKey::from(a), expected, found });
            }
        }
    }
    Ok(())
}

/// Step `i` of every result that holds it, merged (the plans were checked to agree); not measured when
/// an agent's part stopped before it.
fn merge_step(results: &[RunResult], i: usize) -> Result<Step, MergeError> {
    let parts: Vec<(usize, &RunResult, &Step)> =
        results.iter().enumerate().filter_map(|(j, r)| Some((j, r, r.steps.get(i)?))).collect();
    let (holding, steps): (Vec<&RunResult>, Vec<&Step>) = parts.iter().map(|&(_, r, s)| (r, s)).unzip();
    let first = steps[0];
    let mut plan = first.plan();
    plan.users = steps.iter().map(|s| s.users).sum();
    plan.connections = steps.iter().map(|s| s.connections).sum();
    plan.ramp_up_s = steps.iter().map(|s| s.ramp_up_s).fold(0.0, f64::max);
    plan.duration_s = steps.iter().map(|s| s.duration_s).fold(0.0, f64::max);
    plan.window = Window {
        start_s: steps.iter().map(|s| s.window.start_s).fold(f64::INFINITY, f64::min),
        end_s: steps.iter().map(|s| s.window.end_s).fold(f64::NEG_INFINITY, f64::max),
    };
    let mut per_target: BTreeMap<String, Transactions> = BTreeMap::new();
    let mut connections: BTreeMap<String, u64> = BTreeMap::new();
    let mut lost: BTreeMap<String, u64> = BTreeMap::new();
    for (r, s) in holding.iter().zip(&steps) {
        for (label, f) in s.target_figures(&r.targets.join(",")) {
            merge_transactions(per_target.entry(label.clone()).or_default(), &f.transactions);
            *lost.entry(label).or_default() += f.connections_lost;
        }
        // Each part's connections on each target (a part of one target: all of its connections).
        let opened = match s.target_connections.is_empty() {
            true => BTreeMap::from([(r.targets.join(","), s.connections)]),
            false => s.target_connections.clone(),
        };
        for (label, n) in opened {
            *connections.entry(label).or_default() += n;
        }
    }
    let mut step = Step::described(results[0].descriptor(), plan, per_target);
    if !step.targets.is_empty() {
        step.target_connections = connections;
    }
    step.count_connections_lost(lost);
    // Several databases: each audited on its own and the total from those, as one process does.
    let labels = &results[0].targets;
    match merge_kept::merge_target_audits(&step, labels, &steps).filter(|_| labels.len() > 1) {
        Some((total, each)) => (step.audit, step.target_audits) = (Some(total), each),
        None => {
            let audits: Vec<_> = steps.iter().map(|s| (*s, s.audit.as_ref())).collect();
            step.audit = merge_kept::merge_audit(results[0].descriptor(), &step, &audits);
        }
    }
    step.counters = merge_kept::merge_step_counters(&parts);
    step.arrivals = StepArrivals::merge(steps.iter().filter_map(|s| s.arrivals.as_ref()), step.duration_s);
    if let Some(rules) = cap_rules(first) {
        let cap: Cap =
            rules.parse().map_err(|source| MergeError::CapRule { step: StepKey::from(first), source })?;
        cap.judge_step(&mut step);
        step.judge_arrivals();
        // A part that was not measured, or missing, leaves the whole step unmeasured.
        let invalid = steps.iter().find_map(|s| s.cap.as_ref().and_then(|v| v.invalid.clone()));
        if let Some(why) = invalid.or_else(|| agents::missing_from(results, i))
            && let Some(verdict) = step.cap.as_mut()
        {
            verdict.invalidate(why);
        }
    }
    Ok(step)
}

/// The time series, matched by interval position and transaction (see the module overview).
fn merge_timeseries(results: &[RunResult]) -> Vec<IntervalRow> {
    let mut merged: Vec<(usize, IntervalRow)> = Vec::new();
    let mut at: HashMap<(usize, &str), usize> = HashMap::new();
    for r in results {
        let mut tick = 0;
        let mut last_elapsed = None;
        for row in &r.timeseries {
            if last_elapsed.is_some_and(|e| e != row.elapsed_s) {
                tick += 1;
            }
            last_elapsed = Some(row.elapsed_s);
            match at.get(&(tick, row.txn.as_str())) {
                Some(&i) => add_row(&mut merged[i].1, row),
                None => {
                    at.insert((tick, row.txn.as_str()), merged.len());
                    merged.push((tick, row.clone()));
                }
            }
        }
    }
    // Stable: within an interval, transactions keep the order they first appeared in.
    merged.sort_by_key(|&(tick, _)| tick);
    merged.into_iter().map(|(_, row)| row).collect()
}

fn add_row(into: &mut IntervalRow, row: &IntervalRow) {
    let count = into.count + row.count;
    into.avg_ms =
        ratio(into.avg_ms * into.count as f64 + row.avg_ms * row.count as f64, count as f64).unwrap_or(0.0);
    into.elapsed_s = into.elapsed_s.max(row.elapsed_s);
    into.users += row.users;
    into.count = count;
    into.tps += row.tps;
    into.p95_ms = into.p95_ms.max(row.p95_ms);
    into.errors += row.errors;
}

fn merge_client(results: &[RunResult]) -> ClientCpu {
    merge_clients(&results.iter().map(|r| r.client).collect::<Vec<_>>())
}

/// The client's figures of several processes or runs as one: CPU and transactions summed (CPU per
/// order over the orders each counted), the largest memory and the latest wake-ups.
pub fn merge_clients(clients: &[ClientCpu]) -> ClientCpu {
    let sum = |f: fn(&ClientCpu) -> f64| clients.iter().map(f).sum::<f64>();
    let worst = |f: fn(&ClientCpu) -> Option<f64>| clients.iter().filter_map(f).reduce(f64::max);
    let mut client = ClientCpu::new(
        sum(|c| c.cpu_user_s),
        sum(|c| c.cpu_sys_s),
        clients.iter().map(|c| c.transactions).sum(),
    );
    client.peak_rss_bytes = clients.iter().map(|c| c.peak_rss_bytes).max().unwrap_or(0);
    client.wake_late_p99_ms = worst(|c| c.wake_late_p99_ms);
    client.wake_late_max_ms = worst(|c| c.wake_late_max_ms);
    // Each one's orders, from its CPU and its CPU per order.
    let orders: Option<f64> =
        clients.iter().map(|c| c.client_cpu_us_per_order.map(|us| c.cpu_s * 1e6 / us)).sum();
    client.client_cpu_us_per_order = orders.and_then(|n| ratio(client.cpu_s * 1e6, n));
    client
}

/// Power of separate systems under test: watts summed, throughput per watt over the sum.
fn merge_power(results: &[RunResult]) -> Option<Power> {
    let powers = results.iter().map(|r| r.power).collect::<Option<Vec<Power>>>()?;
    let active_w: f64 = powers.iter().map(|p| p.active_w).sum();
    let throughput: f64 = powers.iter().map(|p| p.per_watt * p.active_w).sum();
    Some(Power {
        idle_w: powers.iter().map(|p| p.idle_w).sum(),
        active_w,
        per_watt: ratio(throughput, active_w)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::result;
    use crate::model::histogram::LatencyHistogram;
    use crate::model::step::StepPlan;
    use crate::model::{TxnCounters, TxnStats, Workload};

    const CAP: &str = "avg=1s,new_order.p90=5s";

    /// A deterministic spread of latencies from 100 µs to about 1.2 s.
    fn latency_us(i: u64) -> u64 {
        100 + (i * 7_919) % 1_200_000
    }

    /// Transactions of one step: samples `0..n` of each kind, keeping those `keep` selects.
    fn transactions(step: u64, n: u64, keep: impl Fn(u64) -> bool) -> Transactions {
        ["new_order", "payment", "delivery"]
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let mut h = LatencyHistogram::new();
                let mut rollbacks = 0;
                for i in (0..n * (step + 1)).filter(|&i| keep(i)) {
                    h.record_us(latency_us(i * (k as u64 + 1)));
                    rollbacks += u64::from(k == 0 && i % 100 == 0);
                }
                let counters =
                    TxnCounters { rollbacks, errors: u64::from(keep(1)), retries: u64::from(keep(2)) };
                (name.to_string(), TxnStats::new(h, counters))
            })
            .collect()
    }

    /// A two-step TPC-C result at `users` per step driving `labels`, each target with the samples
    /// `keep` selects (split again between targets by `i / 7 % labels.len()`).
    fn run(users: u64, labels: &[&str], keep: impl Fn(u64) -> bool + Copy) -> RunResult {
        let cap: Cap = CAP.parse().unwrap();
        let steps = (0..2u32)
            .map(|index| {
                let plan = StepPlan {
                    index,
                    run: 1,
                    users: users * u64::from(index + 1),
                    connections: users * u64::from(index + 1),
                    ramp_up_s: 5.0,
                    duration_s: 60.0,
                    window: Window {
                        start_s: 65.0 * f64::from(index + 1),
                        end_s: 65.0 * f64::from(index + 1) + 60.0,
                    },
                };
                let per_target = labels
                    .iter()
                    .enumerate()
                    .map(|(t, label)| {
                        let mine = move |i: u64| keep(i) && (i / 7) as usize % labels.len() == t;
                        (label.to_string(), transactions(u64::from(index), 3_000, mine))
                    })
                    .collect();
                let mut s = Step::new(Workload::Tpcc, plan, per_target);
                cap.judge_step(&mut s);
                s
            })
            .collect();
        let mut r = result(Workload::Tpcc, steps);
        r.targets = labels.iter().map(|l| l.to_string()).collect();
        r
    }

    fn row(
        elapsed_s: f64,
        users: u64,
        txn: &str,
        count: u64,
        avg_ms: f64,
        p95_ms: f64,
        errors: u64,
    ) -> IntervalRow {
        IntervalRow {
            elapsed_s,
            users,
            txn: txn.into(),
            count,
            tps: count as f64 / 10.0,
            avg_ms,
            p95_ms,
            errors,
        }
    }

    #[test]
    fn merging_two_halves_equals_the_whole() {
        let whole = run(10, &["db"], |_| true);
        let mut halves = [run(5, &["db"], |i| i % 2 == 0), run(5, &["db"], |i| i % 2 == 1)];
        halves[1].started_at = "2024-12-31T23:59:59Z".into();
        let merged = merge(&halves).unwrap();
        assert_eq!(merged.steps, whole.steps);
        assert!(merged.steps.iter().all(|s| s.cap.is_some() && s.targets.is_empty()));
        assert_eq!(merged.max_within_cap, whole.max_within_cap);
        assert_eq!(merged.targets, ["db"]);
        assert_eq!(merged.started_at, "2024-12-31T23:59:59Z");
        assert!(!merged.interrupted);
        assert_eq!(merged.config[MERGED_RESULTS], 2, "a merged result says it is one");
    }

    #[test]
    fn several_targets_keep_their_own_figures_and_sum_to_the_whole() {
        let whole = run(10, &["a", "b", "c"], |_| true);
        let ab = run(5, &["a", "b"], |i| (i / 7) % 3 != 2);
        let c = run(5, &["c"], |i| (i / 7) % 3 == 2);
        let merged = merge(&[ab.clone(), c.clone()]).unwrap();
        assert_eq!(merged.targets, ["a", "b", "c"]);
        for (i, (m, w)) in merged.steps.iter().zip(&whole.steps).enumerate() {
            assert_eq!(m.figures, w.figures);
            assert_eq!(m.cap, w.cap);
            assert_eq!(m.targets.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
            // Each database judged again on its merged figures: as its own part judged it.
            assert_eq!(m.target_caps["a"], ab.steps[i].target_caps["a"]);
            assert_eq!(Some(&m.target_caps["c"]), c.steps[i].cap.as_ref());
        }
        assert_eq!(merged.steps[1].targets["a"], ab.steps[1].targets["a"]);
        assert_eq!(merged.steps[1].targets["c"], c.steps[1].figures);
    }

    #[test]
    fn time_series_sum_by_interval_position_and_the_rest_adds_up() {
        let mut a = run(5, &["a"], |_| true);
        let mut b = run(5, &["b"], |_| true);
        a.timeseries = vec![
            row(10.002, 5, "new_order", 100, 5.0, 9.0, 1),
            row(10.002, 5, "payment", 50, 2.0, 3.0, 0),
            row(20.001, 5, "new_order", 120, 6.0, 9.5, 0),
        ];
        b.timeseries = vec![
            row(10.004, 5, "new_order", 300, 7.0, 12.0, 0),
            row(10.004, 5, "delivery", 10, 40.0, 60.0, 0),
            row(19.998, 5, "new_order", 0, 0.0, 0.0, 2),
        ];
        a.client = ClientCpu::new(1.5, 0.25, 1_000);
        (a.client.peak_rss_bytes, a.client.wake_late_p99_ms) = (30_000_000, Some(2.0));
        b.client = ClientCpu::new(2.5, 0.75, 1_500);
        (b.client.peak_rss_bytes, b.client.wake_late_max_ms) = (20_000_000, Some(9.0));
        a.errors_by_kind = BTreeMap::from([("deadlock".into(), 2), ("connection_lost".into(), 1)]);
        b.errors_by_kind = BTreeMap::from([("deadlock".into(), 3)]);
        b.interrupted = true;
        a.power = Some(Power { idle_w: Some(100.0), active_w: 200.0, per_watt: 10.0 });
        b.power = Some(Power { idle_w: Some(150.0), active_w: 300.0, per_watt: 20.0 });
        a.cost = Some(Cost::new(1_000.0, None));
        b.cost = Some(Cost::new(3_000.0, None));

        let m = merge(&[a, b]).unwrap();
        assert_eq!(
            m.timeseries,
            [
                row(10.004, 10, "new_order", 400, 6.5, 12.0, 1),
                row(10.002, 5, "payment", 50, 2.0, 3.0, 0),
                row(10.004, 5, "delivery", 10, 40.0, 60.0, 0),
                row(20.001, 10, "new_order", 120, 6.0, 9.5, 2),
            ]
        );
        let mut client = ClientCpu::new(4.0, 1.0, 2_500);
        (client.peak_rss_bytes, client.wake_late_p99_ms, client.wake_late_max_ms) =
            (30_000_000, Some(2.0), Some(9.0));
        assert_eq!(m.client, client);
        assert_eq!(m.errors_by_kind, BTreeMap::from([("connection_lost".into(), 1), ("deadlock".into(), 5)]));
        assert!(m.interrupted);
        assert_eq!(m.power, Some(Power { idle_w: Some(250.0), active_w: 500.0, per_watt: 16.0 }));
        let headline = best_step_within_cap(&m.steps).unwrap();
        assert_eq!(m.cost, Some(Cost::new(4_000.0, Some(&headline.figures))));
        assert!(m.cost.unwrap().per_tps_usd.is_some());
    }

    #[test]
    fn power_and_cost_need_every_result_to_have_them() {
        let mut a = run(5, &["a"], |_| true);
        a.power = Some(Power { idle_w: None, active_w: 200.0, per_watt: 10.0 });
        a.cost = Some(Cost::new(1_000.0, None));
        let m = merge(&[a, run(5, &["b"], |_| true)]).unwrap();
        assert_eq!((m.power, m.cost), (None, None));
    }

    #[test]
    fn results_of_different_plans_are_refused() {
        let base = run(5, &["a"], |_| true);
        assert_eq!(merge(&[]), Err(MergeError::Empty));

        let mut other = base.clone();
        other.workload = Workload::Ds2.into();
        let e = merge(&[base.clone(), other]).unwrap_err();
        let (expected, found) = (Workload::Tpcc.into(), Workload::Ds2.into());
        assert_eq!(e, MergeError::Workload { result: 2, expected, found });
        assert_eq!(e.to_string(), "result 2 ran ds2, result 1 ran tpcc: only results of one plan merge");

        let mut other = base.clone();
        other.steps.pop();
        assert_eq!(
            merge(&[base.clone(), base.clone(), other]),
            Err(MergeError::StepCount { result: 3, expected: 2, found: 1 })
        );

        let e = merge(&[base.clone(), run(6, &["b"], |_| true)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "result 2 holds step 1 of run 1 with 6 users where result 1 holds step 1 of run 1 with 5 users: only results of one plan merge"
        );

        let mut other = base.clone();
        other.steps[1].cap = None;
        let e = merge(&[base.clone(), other]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("result 2 judged step 2 of run 1 with 10 users by cap `none`, result 1 by `{CAP}`")
        );

        let e = merge(&[base.clone(), run(5, &["b"], |_| true), base.clone()]).unwrap_err();
        assert_eq!(e, MergeError::Duplicate { result: 3, first: 1 });
        assert_eq!(e.to_string(), "result 3 is the same run as result 1: a result merges once");

        let mut bad = base.clone();
        bad.steps[0].cap.as_mut().unwrap().rules[0].rule = "avg=soon".into();
        assert!(matches!(
            merge(&[bad]),
            Err(MergeError::CapRule { source: CapError::BadDuration { .. }, .. })
        ));
    }
}
