//! What `report merge` keeps of each part beyond its transactions, as one process keeps it (issue 35):
//! a step's audit, its counts summed over the parts and judged again on the merged step
//! ([`merge_audit`]); and the counters, each part's host counters kept apart, labelled by the part
//! that read them (`client@agent0`, [`part_source`]), and the database's counters, which every part
//! read from the one server, once ([`merge_series`], [`merge_step_counters`]).

use std::collections::BTreeMap;

use crate::model::audit::{Audit, PACING_CHECK, USERS_PER_WAREHOUSE_CHECK};
use crate::model::counters::split_key;
use crate::model::descriptor::{AuditKind, Descriptor};
use crate::model::{CounterSeries, RunResult, Step};
use crate::stats::agents;
use crate::stats::audit::{self, TpccAuditPlan};

/// A database's counters: read from its server, the same whichever part read them.
const DATABASE: &str = "db:";

/// The tag that tells part `r` (the `j`-th given, from 0) apart: `agent<I>` for agent I's part, else
/// `result<j+1>`.
fn part_tag(r: &RunResult, j: usize) -> String {
    agents::index_of(r).map_or_else(|| format!("result{}", j + 1), |i| format!("agent{i}"))
}

/// A counter's source as the merge names it: a database's as it is (read once), any other (the
/// client's host, an exporter) labelled by the part that read it, `client@agent0`.
pub fn part_source(source: &str, tag: &str) -> String {
    if source.starts_with(DATABASE) { source.to_string() } else { format!("{source}@{tag}") }
}

/// Every part's counter series: each part's host counters apart, labelled by part; a database's
/// series once, the first part's that holds it.
pub fn merge_series(results: &[RunResult]) -> Vec<CounterSeries> {
    let mut merged: Vec<CounterSeries> = Vec::new();
    for (j, r) in results.iter().enumerate() {
        let tag = part_tag(r, j);
        for s in &r.counters {
            let source = part_source(&s.source, &tag);
            if !merged.iter().any(|m| m.source == source && m.name == s.name) {
                merged.push(CounterSeries { source, ..s.clone() });
            }
        }
    }
    merged
}

/// A merged step's counter averages from the parts' steps (`parts`: each part with its step): keyed
/// as [`merge_series`] names their sources.
pub fn merge_step_counters(parts: &[(usize, &RunResult, &Step)]) -> BTreeMap<String, f64> {
    let mut merged = BTreeMap::new();
    for &(j, r, s) in parts {
        let tag = part_tag(r, j);
        for (key, v) in &s.counters {
            let (source, name) = split_key(key);
            merged.entry(format!("{}/{name}", part_source(source, &tag))).or_insert(*v);
        }
    }
    merged
}

/// The audit of merged step `step` from its parts' audits (`audits`): their counters summed and
/// judged again on the merged step, as one process judges its step, with the pacing and warehouses
/// the first part's audit was judged by. `None` when a part has none (no audit to merge).
pub fn merge_audit(workload: &Descriptor, step: &Step, audits: &[(&Step, Option<&Audit>)]) -> Option<Audit> {
    let (first_step, first) = audits.first().copied()?;
    let first = first?;
    let mut counters: BTreeMap<String, u64> = BTreeMap::new();
    for (_, a) in audits {
        for (name, n) in &a.as_ref()?.counters {
            *counters.entry(name.clone()).or_default() += n;
        }
    }
    match workload.audit? {
        AuditKind::Tpcc => Some(audit::tpcc(step, counters, recorded_plan(first, first_step.users)?)),
    }
}

/// Each database's TPC-C audit of merged step `step` and the total from those (`tpcc_targets`), as one
/// process audits a step on several databases (`labels`, in the run's order: user i drives database
/// i mod n): each database's counters summed over the parts (`parts`) and judged again on its merged
/// figures, its users and its warehouses. `None` when a part holds no audit of some database, or its
/// plan cannot be read back: the caller then judges the step as one ([`merge_audit`]).
pub fn merge_target_audits(
    step: &Step,
    labels: &[String],
    parts: &[&Step],
) -> Option<(Audit, BTreeMap<String, Audit>)> {
    let n = labels.len() as u64;
    let share = |users: u64, t: usize| users / n + u64::from((t as u64) < users % n);
    let first = parts.first()?;
    let mut each = Vec::with_capacity(labels.len());
    let mut paced = true;
    for (t, label) in labels.iter().enumerate() {
        let mut counters: BTreeMap<String, u64> = BTreeMap::new();
        for part in parts {
            for (name, c) in &part.target_audits.get(label)?.counters {
                *counters.entry(name.clone()).or_default() += c;
            }
        }
        let plan = recorded_plan(first.target_audits.get(label)?, share(first.users, t))?;
        paced &= plan.paced;
        let figures = step.targets.get(label)?;
        each.push((
            label.clone(),
            audit::AuditPart { figures, counters, users: share(step.users, t), warehouses: plan.warehouses },
        ));
    }
    Some(audit::tpcc_targets(each, paced))
}

/// The pacing and warehouses TPC-C audit `a` of a step of `users` users was judged by, from its
/// checks: its pacing check's on/off, and its users per warehouse (warehouses = users / that).
fn recorded_plan(a: &Audit, users: u64) -> Option<TpccAuditPlan> {
    let check = |name: &str| a.checks.iter().find(|c| c.name == name);
    let paced = check(PACING_CHECK)?.value == 1.0;
    let per_warehouse = check(USERS_PER_WAREHOUSE_CHECK)?.value;
    let warehouses = (per_warehouse > 0.0).then(|| (users as f64 / per_warehouse).round() as u32)?;
    Some(TpccAuditPlan { paced, warehouses })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::Workload;
    use crate::model::audit::REMOTE_PAYMENTS;

    fn part(agent: &str, users: u64, remote: u64) -> RunResult {
        let mut step = tpcc_step(0, users, (600, 600), 1_000, None);
        step.window.end_s = 60.0;
        let counters = BTreeMap::from([(REMOTE_PAYMENTS.to_string(), remote)]);
        step.audit = Some(audit::tpcc(&step, counters, TpccAuditPlan { paced: false, warehouses: 3 }));
        step.counters = BTreeMap::from([
            ("client/cpu_pct".to_string(), 40.0 + users as f64),
            ("db:built-in/tpcc/commits_per_s".to_string(), 99.0),
        ]);
        let mut r = result(Workload::Tpcc, vec![step]);
        r.config = serde_json::json!({"agent": agent, "start_at": "2026-11-26T23:00:00Z"});
        r.counters = ["client", "db:built-in/tpcc"]
            .map(|source| CounterSeries {
                source: source.into(),
                name: "cpu_pct".into(),
                points: vec![[1.0, 5.0]],
            })
            .to_vec();
        r
    }

    #[test]
    fn the_audit_is_the_parts_counts_judged_again_on_the_merged_step() {
        let parts = [part("0/3", 10, 80), part("1/3", 10, 90), part("2/3", 10, 100)];
        let merged = crate::stats::merge::merge(&parts).unwrap();
        let a = merged.steps[0].audit.as_ref().expect("the merged step keeps its audit");
        assert_eq!(a.counters[REMOTE_PAYMENTS], 270, "every part's count, summed");
        let per = a.checks.iter().find(|c| c.name == USERS_PER_WAREHOUSE_CHECK).unwrap();
        assert_eq!(per.shown, "10.00", "30 users on 3 warehouses, as one process judges them");
        assert_eq!(per.verdict, crate::model::audit::Verdict::Pass);
        let part_per = parts[0].steps[0].audit.as_ref().unwrap().checks.iter();
        let part_per = part_per.clone().find(|c| c.name == USERS_PER_WAREHOUSE_CHECK).unwrap();
        assert_eq!(part_per.verdict, crate::model::audit::Verdict::Flag, "each part alone: 10 users on 3");
        let remote = a.checks.iter().find(|c| c.name == "remote Payments").unwrap();
        assert_eq!(remote.shown, "15.00% (270/1800)");
    }

    #[test]
    fn two_databases_merged_are_audited_each_on_its_own_and_the_total_from_those() {
        // Two agents on two one-warehouse databases (issue 35, items 9 and 10): as one process audits
        // them, a remote share is not applicable on either database nor in the total.
        let cap = crate::stats::cap::Cap::default_for(Workload::Tpcc);
        let labels = ["a".to_string(), "b".to_string()];
        let part = |agent: &str| {
            let mut step =
                crate::fixtures::tpcc_databases_step(0, 4, &[("a", 600, 1_000), ("b", 600, 1_000)], &cap);
            let parts = labels
                .iter()
                .map(|l| {
                    let counters = BTreeMap::from([(crate::model::audit::ORDER_LINES.to_string(), 6_000)]);
                    let figures = &step.targets[l];
                    (l.clone(), audit::AuditPart { figures, counters, users: 2, warehouses: 1 })
                })
                .collect();
            let (total, each) = audit::tpcc_targets(parts, false);
            (step.audit, step.target_audits) = (Some(total), each);
            let mut r = result(Workload::Tpcc, vec![step]);
            r.targets = labels.to_vec();
            r.config = serde_json::json!({"agent": agent, "start_at": "2026-11-26T23:00:00Z"});
            r
        };
        let merged = crate::stats::merge::merge(&[part("0/2"), part("1/2")]).unwrap();
        let step = &merged.steps[0];
        assert_eq!(step.target_audits.keys().collect::<Vec<_>>(), ["a", "b"], "each database's audit kept");
        let verdict = |a: &Audit, name: &str| a.checks.iter().find(|c| c.name == name).unwrap().verdict;
        for a in step.target_audits.values().chain(step.audit.as_ref()) {
            assert_eq!(
                verdict(a, "remote order lines"),
                crate::model::audit::Verdict::NotApplicable,
                "{a:?}"
            );
        }
        assert_eq!(step.target_audits["a"].counters[crate::model::audit::ORDER_LINES], 12_000, "both parts'");
        let total = step.audit.as_ref().unwrap();
        let with_user = total.checks.iter().find(|c| c.name == "warehouses with a user").unwrap();
        assert_eq!(with_user.shown, "100.00% (2/2)", "each database's one warehouse, not one of two");
    }

    #[test]
    fn host_counters_stay_apart_by_agent_and_the_database_s_come_once() {
        let parts = [part("0/2", 4, 0), part("1/2", 4, 0)];
        let merged = crate::stats::merge::merge(&parts).unwrap();
        let sources: Vec<&str> = merged.counters.iter().map(|s| s.source.as_str()).collect();
        assert_eq!(sources, ["client@agent0", "db:built-in/tpcc", "client@agent1"]);
        let keys: Vec<&String> = merged.steps[0].counters.keys().collect();
        assert_eq!(
            keys,
            ["client@agent0/cpu_pct", "client@agent1/cpu_pct", "db:built-in/tpcc/commits_per_s"],
            "each agent's host once, the database once"
        );
        let csv = crate::render::csv::result::counters(&merged);
        assert!(csv.contains(",client@agent0,cpu_pct,") && csv.contains(",client@agent1,cpu_pct,"), "{csv}");
        let mut without = part("1/2", 4, 0);
        without.steps[0].audit = None;
        let merged = crate::stats::merge::merge(&[part("0/2", 4, 0), without]).unwrap();
        assert!(merged.steps[0].audit.is_none(), "no audit from a part without one");
    }
}
