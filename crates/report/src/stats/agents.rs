//! The parts N agents wrote of one plan (`--agent I/N`, issue 25), checked before `report merge` makes
//! the study of them: every part names its agent (`config.agent`, `I/N`), all of one plan and one start
//! (`config.start_at`, and every other setting of the plan alike), agents 0 to N−1 each exactly once.
//! A part missing, given twice or of another plan is refused naming it: a merge never passes with a
//! part missing. A part that stopped early (its agent interrupted) is kept: the steps it did not finish
//! are INVALID in the merge ([`missing_from`]).

use crate::model::RunResult;

/// Settings that differ between the agents of one plan by design: the agent itself, how late it
/// started, its clock's offset from the servers', each machine's client threads, and the counters its
/// machine could not read (an exporter missing one reading on one agent).
const PER_AGENT: [&str; 5] =
    ["agent", "start_late_ms", "clock_offset_ms", "client_threads", COUNTERS_UNAVAILABLE];

/// The configuration's list of counters that could not be read, per result; the merge's names each
/// agent's ([`merged_config`]).
const COUNTERS_UNAVAILABLE: &str = "counters_unavailable";

/// Why the results are not the parts of one plan. Results are numbered from 1, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartsError {
    /// One result is an agent's part and another is not.
    #[error(
        "result {result} is not an agent's part (no config.agent) but result {part} is agent {agent}'s: merge the parts of one plan"
    )]
    NotAPart {
        /// The result that is no part.
        result: usize,
        /// A result that is.
        part: usize,
        /// Its agent, `I/N`.
        agent: String,
    },
    /// A part's agent does not read as `I/N`.
    #[error("result {result} names its agent `{agent}`, not I/N")]
    BadAgent {
        /// The result at fault.
        result: usize,
        /// What it names.
        agent: String,
    },
    /// A part of another plan, or of another start, or of another number of agents.
    #[error(
        "result {result} (agent {agent}) is a part of another plan: its {setting} differs from result 1's"
    )]
    Foreign {
        /// The result at fault.
        result: usize,
        /// Its agent.
        agent: String,
        /// The setting that differs.
        setting: String,
    },
    /// Two parts of one agent.
    #[error("results {first} and {result} are both agent {agent}'s part: give each agent's once")]
    Twice {
        /// The second.
        result: usize,
        /// The first.
        first: usize,
        /// Their agent.
        agent: String,
    },
    /// A part of a study of several runs (`--runs`), whose later runs the agents did not lay on one
    /// clock: merged, it would not be what one process's study gives.
    #[error(
        "result {result} (agent {agent}) holds run {run} of a study: agents' parts of --runs 2 or more do not merge as one process's study; run the agents once per run and merge each run's parts"
    )]
    Runs {
        /// The result at fault.
        result: usize,
        /// Its agent.
        agent: String,
        /// A run after the first it holds.
        run: u32,
    },
    /// An agent's part is missing.
    #[error(
        "agent {agent}'s part is missing (its agent failed, or its result was not given): merge the parts of agents 0 to {last}, each once"
    )]
    Missing {
        /// The agent whose part is missing, `I/N`.
        agent: String,
        /// The last agent's index.
        last: u32,
    },
}

/// Agent `(index, count)` of a result, from `config.agent`; `None` for a result no agent wrote.
fn agent_of(r: &RunResult) -> Option<&str> {
    r.config.get("agent")?.as_str()
}

/// The index of the agent that wrote `r` (`I` of `config.agent`'s `I/N`); `None` for no agent's part.
pub fn index_of(r: &RunResult) -> Option<u32> {
    agent_of(r).and_then(parse).map(|(i, _)| i)
}

/// `I/N` as numbers.
fn parse(agent: &str) -> Option<(u32, u32)> {
    let (i, n) = agent.split_once('/')?;
    Some((i.parse().ok()?, n.parse().ok()?))
}

/// The agents' count when `results` are the parts of one plan, every agent's once; `None` when no result
/// is an agent's part (a plain merge).
///
/// # Errors
/// [`PartsError`] naming the result or the agent at fault.
pub fn check(results: &[RunResult]) -> Result<Option<u32>, PartsError> {
    let Some((part, agent)) = results.iter().enumerate().find_map(|(j, r)| Some((j + 1, agent_of(r)?)))
    else {
        return Ok(None);
    };
    // Each agent's part by index, and the count result 1 names: a map, not a slot per agent, so that a
    // part claiming 4294967295 agents costs no more than the parts given (issue 36).
    let mut seen: std::collections::BTreeMap<u32, usize> = std::collections::BTreeMap::new();
    let mut agents: Option<u32> = None;
    let first = &results[0];
    for (j, r) in results.iter().enumerate() {
        let result = j + 1;
        let name =
            agent_of(r).ok_or_else(|| PartsError::NotAPart { result, part, agent: agent.to_string() })?;
        let bad = || PartsError::BadAgent { result, agent: name.to_string() };
        let (index, count) = parse(name).filter(|(i, n)| i < n).ok_or_else(bad)?;
        let foreign =
            |setting: &str| PartsError::Foreign { result, agent: name.to_string(), setting: setting.into() };
        if *agents.get_or_insert(count) != count {
            return Err(foreign("number of agents"));
        }
        if let Some(setting) = differing_setting(first, r) {
            return Err(foreign(&setting));
        }
        if let Some(run) = r.steps.iter().map(|s| s.run).find(|&run| run > 1) {
            return Err(PartsError::Runs { result, agent: name.to_string(), run });
        }
        if let Some(earlier) = seen.insert(index, result) {
            return Err(PartsError::Twice { result, first: earlier, agent: name.to_string() });
        }
    }
    let count = agents.unwrap_or(0);
    // The first agent without a part: at most one past the parts given.
    match (0..count).find(|i| !seen.contains_key(i)) {
        Some(missing) => Err(PartsError::Missing { agent: format!("{missing}/{count}"), last: count - 1 }),
        None => Ok(Some(count)),
    }
}

/// The first setting of the plan (`config`, the agent's own left out) in which `a` and `b` differ.
fn differing_setting(a: &RunResult, b: &RunResult) -> Option<String> {
    let (Some(x), Some(y)) = (a.config.as_object(), b.config.as_object()) else {
        return (a.config != b.config).then(|| "configuration".to_string());
    };
    let keys = x.keys().chain(y.keys()).filter(|k| !PER_AGENT.contains(&k.as_str()));
    keys.into_iter().find(|k| x.get(*k) != y.get(*k)).map(|k| format!("config.{k}"))
}

/// Why step `index` of the merge is not measured: the agents whose part holds no such step (they
/// stopped before it), or `None` when every part holds it.
pub fn missing_from(results: &[RunResult], index: usize) -> Option<String> {
    let short: Vec<&str> = results.iter().filter(|r| r.steps.len() <= index).filter_map(agent_of).collect();
    (!short.is_empty()).then(|| format!("agent {} stopped before this step", short.join(", agent ")))
}

/// The merged configuration of the agents' parts: the plan's settings, without one agent's own, and
/// by agent index how late each started (`start_late_ms_by_agent`: the skew between them) and its
/// clock's offset from the servers' (`clock_offset_ms_by_agent`); what each agent could not read
/// (`counters_unavailable`, each line naming its agent).
pub fn merged_config(results: &[RunResult], count: u32) -> serde_json::Value {
    let mut unavailable: Vec<(u32, String)> = Vec::new();
    for r in results {
        let notes = r.config.get(COUNTERS_UNAVAILABLE).and_then(|v| v.as_array());
        let (Some(i), Some(notes)) = (index_of(r), notes) else { continue };
        unavailable.extend(notes.iter().filter_map(|n| Some((i, n.as_str()?.to_string()))));
    }
    unavailable.sort();
    let mut config = results[0].config.clone();
    let by_agent = |key: &str| {
        let mut values = vec![serde_json::Value::Null; count as usize];
        for r in results {
            if let Some((i, _)) = agent_of(r).and_then(parse) {
                values[i as usize] = r.config.get(key).cloned().unwrap_or_default();
            }
        }
        serde_json::Value::from(values)
    };
    let (late, offsets) = (by_agent("start_late_ms"), by_agent("clock_offset_ms"));
    if let Some(map) = config.as_object_mut() {
        for key in PER_AGENT {
            map.remove(key);
        }
        map.insert("agents".into(), count.into());
        map.insert("start_late_ms_by_agent".into(), late);
        map.insert("clock_offset_ms_by_agent".into(), offsets);
        if !unavailable.is_empty() {
            let notes = unavailable.into_iter().map(|(i, note)| format!("agent {i}/{count}: {note}"));
            map.insert(COUNTERS_UNAVAILABLE.into(), notes.collect::<Vec<_>>().into());
        }
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{result, tpcc_step};
    use crate::model::Workload;

    fn part(agent: &str, start_at: &str) -> RunResult {
        let mut r = result(Workload::Tpcc, vec![tpcc_step(0, 3, (60, 60), 1_000, None)]);
        r.config =
            serde_json::json!({"agent": agent, "start_at": start_at, "users": [8], "start_late_ms": 3.0});
        r
    }

    const AT: &str = "2026-11-26T23:00:00Z";

    #[test]
    fn the_parts_of_one_plan_are_every_agent_once() {
        let parts = [part("1/3", AT), part("0/3", AT), part("2/3", AT)];
        assert_eq!(check(&parts), Ok(Some(3)));
        let plain = [result(Workload::Tpcc, vec![]), result(Workload::Tpcc, vec![])];
        assert_eq!(check(&plain), Ok(None), "results no agent wrote merge as before");
        let config = merged_config(&parts, 3);
        assert_eq!(config["agents"], 3);
        assert_eq!(config["start_late_ms_by_agent"], serde_json::json!([3.0, 3.0, 3.0]));
        assert!(config.get("agent").is_none() && config.get("start_late_ms").is_none());
    }

    #[test]
    fn what_one_agent_could_not_read_is_no_other_plan_and_the_merge_names_it() {
        let mut parts = [part("0/2", AT), part("1/2", AT)];
        parts[1].config["counters_unavailable"] = serde_json::json!(["node:http://h:9100: no disk counters"]);
        assert_eq!(check(&parts), Ok(Some(2)), "one exporter missing a reading on one agent");
        let config = merged_config(&parts, 2);
        assert_eq!(
            config["counters_unavailable"],
            serde_json::json!(["agent 1/2: node:http://h:9100: no disk counters"])
        );
        assert!(merged_config(&[part("0/2", AT), part("1/2", AT)], 2).get("counters_unavailable").is_none());
    }

    #[test]
    fn a_missing_duplicated_or_foreign_part_is_refused_naming_it() {
        let refused = |parts: &[RunResult]| check(parts).unwrap_err().to_string();
        assert_eq!(
            refused(&[part("0/3", AT), part("2/3", AT)]),
            "agent 1/3's part is missing (its agent failed, or its result was not given): merge the parts of \
             agents 0 to 2, each once"
        );
        assert_eq!(
            refused(&[part("0/2", AT), part("0/2", AT), part("1/2", AT)]),
            "results 1 and 2 are both agent 0/2's part: give each agent's once"
        );
        assert_eq!(
            refused(&[part("0/2", AT), part("1/2", "2026-11-26T23:05:00Z")]),
            "result 2 (agent 1/2) is a part of another plan: its config.start_at differs from result 1's"
        );
        assert!(refused(&[part("0/2", AT), part("1/3", AT)]).contains("its number of agents differs"));
        let plain = result(Workload::Tpcc, vec![]);
        assert!(refused(&[part("0/2", AT), plain]).starts_with("result 2 is not an agent's part"));
        let mut second_run = part("1/2", AT);
        second_run.steps[0].run = 2;
        assert!(
            refused(&[part("0/2", AT), second_run])
                .contains("agents' parts of --runs 2 or more do not merge"),
            "a study's later runs were not laid on one clock"
        );
    }

    #[test]
    fn the_merge_sums_the_agents_users_and_a_part_cut_short_leaves_its_missing_steps_invalid() {
        let cap = crate::stats::cap::Cap::default();
        let two_steps = |agent: &str, users: u64| {
            let steps = vec![
                tpcc_step(0, users, (60, 60), 1_000, Some(&cap)),
                tpcc_step(1, 2 * users, (90, 90), 1_000, Some(&cap)),
            ];
            let mut r = result(Workload::Tpcc, steps);
            r.config = serde_json::json!({"agent": agent, "start_at": AT});
            r
        };
        let mut short = two_steps("1/2", 3);
        short.steps.pop();
        short.interrupted = true;
        let merged = crate::stats::merge::merge(&[two_steps("0/2", 4), short]).unwrap();
        assert_eq!(merged.steps.len(), 2);
        assert_eq!(merged.steps[0].users, 7, "each agent's share, summed");
        assert_eq!(merged.steps[0].figures.transactions["new_order"].count, 120);
        assert!(merged.steps[0].cap.as_ref().unwrap().passed);
        let verdict = merged.steps[1].cap.as_ref().unwrap();
        assert_eq!(verdict.invalid.as_deref(), Some("agent 1/2 stopped before this step"));
        assert!(!verdict.passed, "never a pass with a part missing");
        assert_eq!(merged.max_within_cap.unwrap().users, 7);
        assert_eq!(merged.config["agents"], 2);
    }

    #[test]
    fn a_step_an_agent_did_not_reach_names_it() {
        let mut short = part("1/2", AT);
        short.steps.clear();
        let parts = [part("0/2", AT), short];
        assert_eq!(missing_from(&parts, 0).as_deref(), Some("agent 1/2 stopped before this step"));
        assert_eq!(missing_from(&parts[..1], 0), None);
    }
}
