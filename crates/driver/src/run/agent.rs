//! One run's plan on many client machines (issue 25): agent I of N runs the users whose index modulo N
//! is I ([`Agent`]), each keeping the identity it has in one process, with its share of each database's
//! shared connections; every agent lays the plan on one clock, the instant `--start-at` names
//! ([`parse_start_at`]), and draws from one run seed ([`agents_seed`]). Where I and N come from: the
//! flag, `OLTPGEN_AGENT`, or with `auto` the orchestrator's own variables ([`resolve`]). There is no
//! coordinator and no traffic between agents: `report merge` makes the study of their results.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::Error;

/// `--agent`'s environment variable.
pub const AGENT_VAR: &str = "OLTPGEN_AGENT";
/// `--start-at`'s environment variable.
pub const START_AT_VAR: &str = "OLTPGEN_START_AT";
/// With `--agent auto` on Kubernetes: the agents of the Indexed Job (its completions).
pub const AGENTS_VAR: &str = "OLTPGEN_AGENTS";
/// Kubernetes' index of an Indexed Job's pod.
const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
/// Slurm's rank of a task, and its tasks.
const SLURM_INDEX: &str = "SLURM_PROCID";
const SLURM_COUNT: &str = "SLURM_NTASKS";

/// Which share of a run's plan this process runs: agent `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agent {
    /// This agent, from 0.
    pub index: u32,
    /// The agents running the plan together.
    pub count: u32,
}

impl Agent {
    /// One process running the whole plan.
    pub const WHOLE: Agent = Agent { index: 0, count: 1 };

    /// Whether this is one part of several.
    pub fn is_part(self) -> bool {
        self.count > 1
    }

    /// Whether user `user` (its index in the run) is this agent's.
    pub fn runs(self, user: u32) -> bool {
        user % self.count == self.index
    }

    /// How many of users `0..users` are this agent's.
    pub fn users_of(self, users: u32) -> u32 {
        users / self.count + u32::from(self.index < users % self.count)
    }

    /// How many of users `0..users` are this agent's and drive target `target` of `targets` (user `i`
    /// drives target `i % targets`).
    pub fn users_on(self, users: u32, target: usize, targets: usize) -> u32 {
        let targets = targets.max(1) as u32;
        (target as u32..users).step_by(targets as usize).filter(|&i| self.runs(i)).count() as u32
    }

    /// This agent's share of target `target`'s `connections` (of `targets`, with `users` users at
    /// most): the target's connections are dealt over the agents that run users on it, in the order
    /// its users come to them, so an agent with none of its users gets none, and every step opens on
    /// each target what one process would (`min(connections, its users)`). Agents are `N`, targets `T`:
    /// user `i` is agent `i mod N`'s and target `i mod T`'s, so a target's users reach only the agents
    /// congruent to it modulo `gcd(N, T)`.
    pub fn connections_on(self, connections: u32, users: u32, target: usize, targets: usize) -> u32 {
        let mut holders: Vec<u32> = Vec::new();
        for i in (target as u32..users).step_by(targets.max(1)) {
            let agent = i % self.count;
            if !holders.contains(&agent) {
                holders.push(agent);
            }
            if holders.len() as u32 == self.count {
                break;
            }
        }
        holders
            .iter()
            .position(|&a| a == self.index)
            .map_or(0, |p| super::shard::connections_of(connections, p, holders.len()))
    }

    /// `I/N` as `--agent` writes it (and the result records it).
    pub fn name(self) -> String {
        format!("{}/{}", self.index, self.count)
    }
}

/// The agent `flag` (`--agent`, else [`AGENT_VAR`]) names: `I/N`, or `auto` for the orchestrator's
/// index and count (Kubernetes' `JOB_COMPLETION_INDEX` with [`AGENTS_VAR`], or Slurm's `SLURM_PROCID`
/// and `SLURM_NTASKS`), read from `env`; [`Agent::WHOLE`] when neither is given. Opt-in only: a command
/// inside a Slurm job without it is not an agent.
///
/// # Errors
/// A usage error naming the flag or variable and the value at fault.
pub fn resolve(flag: Option<&str>, env: impl Fn(&str) -> Option<String>) -> Result<Agent, Error> {
    let (source, text) = match flag {
        Some(text) => ("--agent", text.to_string()),
        None => match env(AGENT_VAR).filter(|v| !v.trim().is_empty()) {
            Some(text) => (AGENT_VAR, text),
            None => return Ok(Agent::WHOLE),
        },
    };
    let text = text.trim();
    if text != "auto" {
        return parse(text).map_err(|why| Error::usage(format!("{source} {text}: {why}")));
    }
    let pair = |index: &str, count: &str| Some((env(index)?, env(count)?, format!("{index} and {count}")));
    let (index, count, from) =
        pair(K8S_INDEX, AGENTS_VAR).or_else(|| pair(SLURM_INDEX, SLURM_COUNT)).ok_or_else(|| {
            Error::usage(format!(
                "{source} auto: neither {K8S_INDEX} with {AGENTS_VAR} (a Kubernetes Indexed Job) nor \
                 {SLURM_INDEX} with {SLURM_COUNT} (srun) is set: give --agent I/N"
            ))
        })?;
    parse(&format!("{}/{}", index.trim(), count.trim()))
        .map_err(|why| Error::usage(format!("{source} auto: {from} give {index}/{count}: {why}")))
}

/// `I/N` with 0 <= I < N.
fn parse(text: &str) -> Result<Agent, String> {
    let (i, n) = text.split_once('/').ok_or("give I/N, e.g. 0/3 for the first of three agents")?;
    let number = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("{s} is not a whole number"));
    let (index, count) = (number(i)?, number(n)?);
    if count == 0 || index >= count {
        return Err(format!("agents are numbered 0 to N-1: {index} is not one of {count}"));
    }
    Ok(Agent { index, count })
}

impl super::RunPlan {
    /// The run seed: `asked` (`--run-seed`); else, for an agent, one every agent of the plan draws alike
    /// from the plan and the common start ([`agents_seed`]); else `None` (the workload derives one from
    /// the load and the run's number).
    pub fn run_seed(&self, asked: Option<u64>) -> Option<u64> {
        asked.or_else(|| {
            let at = self.start_at.filter(|_| self.agent.is_part())?;
            let mut plan = self.config();
            // Each machine's own choice, not the plan's.
            plan.remove("client_threads");
            Some(agents_seed(&serde_json::Value::Object(plan).to_string(), at))
        })
    }
}

/// Refuses a share of a plan that cannot run: several agents without one clock (`start_at`), an agent
/// none of whose users the plan (`most` users at most) has, or fewer shared `connections` per database
/// than agents.
///
/// # Errors
/// One usage error saying what to change.
pub fn check_share(
    agent: Agent,
    start_at: Option<SystemTime>,
    most: u32,
    connections: Option<u32>,
) -> Result<(), Error> {
    if !agent.is_part() {
        return Ok(());
    }
    let name = agent.name();
    if start_at.is_none() {
        return Err(Error::usage(format!(
            "--agent {name} runs one part of a plan {} agents run together: give them one clock with \
             --start-at TIME (or {START_AT_VAR}), e.g. a minute from now in RFC 3339",
            agent.count
        )));
    }
    if agent.users_of(most) == 0 {
        return Err(Error::usage(format!(
            "--agent {name} has no user: the plan's {most} users are fewer than its {} agents; run fewer \
             agents or more users",
            agent.count
        )));
    }
    if let Some(c) = connections.filter(|&c| c < agent.count) {
        return Err(Error::usage(format!(
            "--connections {c} shares fewer connections per database than the {} agents, each of which \
             needs one of its own: give at least --connections {}",
            agent.count, agent.count
        )));
    }
    Ok(())
}

/// How late this agent reached the common start `at` (zero when early: it then waits for it).
///
/// # Errors
/// A usage error when it is later than `warmup`: its first step's users would start so late that the
/// step would not be measured as the other agents' is.
pub fn lateness(at: SystemTime, warmup: Duration) -> Result<Duration, Error> {
    let late = SystemTime::now().duration_since(at).unwrap_or(Duration::ZERO);
    if late > warmup {
        return Err(Error::usage(format!(
            "--start-at {}: this agent was ready {:.1} s after it, later than the {:.1} s warmup, so its \
             first step would not be measured with the others': give a later --start-at",
            humantime::format_rfc3339_seconds(at),
            late.as_secs_f64(),
            warmup.as_secs_f64()
        )));
    }
    Ok(late)
}

/// The instant `text` names in RFC 3339 (`2026-11-26T23:00:00Z`, or with an offset, `…+01:00`).
///
/// # Errors
/// One line saying what is wrong, naming `flag`.
pub fn parse_start_at(flag: &str, text: &str) -> Result<SystemTime, Error> {
    // jiff reads RFC 3339 with `Z` or any offset; it refuses a time without one (whose zone is unknown)
    // and never panics on what it is given (issue 36: a hand-written reader cut a multi-byte character).
    let at: jiff::Timestamp = text.trim().parse().map_err(|_| {
        Error::usage(format!("{flag} {text}: give an RFC 3339 time, e.g. 2026-11-26T23:00:00Z"))
    })?;
    Ok(SystemTime::from(at))
}

/// The run seed every agent of one plan draws alike, without talking to each other or to a counter in
/// the database that they would race on: from the plan as the flags fixed it (`plan`, the same text
/// on every agent) and the common start.
pub fn agents_seed(plan: &str, start_at: SystemTime) -> u64 {
    let start_ms = start_at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let fnv =
        plan.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    oltpgen_datagen::Rng::derive(start_ms, &[fnv]).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| vars.iter().find(|(name, _)| name == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn agents_split_the_users_exactly_and_each_keeps_its_index() {
        for n in 1..=5 {
            for users in [0, 1, 7, 10, 12] {
                let agents: Vec<Agent> = (0..n).map(|index| Agent { index, count: n }).collect();
                let shares: u32 = agents.iter().map(|a| a.users_of(users)).sum();
                assert_eq!(shares, users, "{n} agents run exactly the users one process would");
                for user in 0..users {
                    assert_eq!(agents.iter().filter(|a| a.runs(user)).count(), 1);
                }
                for a in &agents {
                    assert_eq!(a.users_of(users) as usize, (0..users).filter(|&u| a.runs(u)).count());
                }
            }
        }
        let conns: u32 = (0..3).map(|index| Agent { index, count: 3 }.connections_on(10, 12, 0, 1)).sum();
        assert_eq!(conns, 10, "each agent its share of a database's shared connections");
    }

    #[test]
    fn each_database_s_connections_go_to_the_agents_with_users_on_it() {
        // Two agents, two databases, 16 users, 4 connections: agent 0 runs users 0, 2, 4… (all on
        // database 0), agent 1 users 1, 3, 5… (all on database 1); each database's 4 to its one agent.
        let two = |index| Agent { index, count: 2 };
        assert_eq!([0, 1].map(|t| two(0).connections_on(4, 16, t, 2)), [4, 0]);
        assert_eq!([0, 1].map(|t| two(1).connections_on(4, 16, t, 2)), [0, 4]);
        assert_eq!([0, 1].map(|t| two(0).users_on(16, t, 2)), [8, 0]);
        for (n, t, users, c) in [(2, 2, 16, 4), (3, 2, 12, 3), (2, 3, 12, 2), (4, 2, 9, 5), (3, 3, 7, 3)] {
            for target in 0..t {
                let agents = (0..n).map(|index| Agent { index, count: n });
                let shares: Vec<(u32, u32)> = agents
                    .map(|a| (a.connections_on(c, users, target, t), a.users_on(users, target, t)))
                    .collect();
                let total: u32 = shares.iter().map(|s| s.0).sum();
                assert_eq!(total, c, "{n} agents, {t} targets: every connection of target {target} once");
                assert!(shares.iter().all(|&(conns, users)| (conns > 0) == (users > 0)), "{shares:?}");
                // Each step (its first `u` users) opens on the target what one process would.
                for u in 1..=users {
                    let opened: u32 = (0..n)
                        .map(|index| Agent { index, count: n })
                        .map(|a| a.connections_on(c, users, target, t).min(a.users_on(u, target, t)))
                        .sum();
                    let theirs = Agent::WHOLE.users_on(u, target, t);
                    assert_eq!(opened, c.min(theirs), "{n} agents, {t} targets, {u} users, target {target}");
                }
            }
        }
    }

    #[test]
    fn the_agent_comes_from_the_flag_the_variable_or_the_orchestrator() {
        let whole = resolve(None, env(&[("SLURM_PROCID", "1"), ("SLURM_NTASKS", "3")])).unwrap();
        assert_eq!(whole, Agent::WHOLE, "inside a Slurm job, only --agent makes an agent");
        assert_eq!(resolve(Some("2/3"), env(&[])).unwrap(), Agent { index: 2, count: 3 });
        assert_eq!(resolve(None, env(&[(AGENT_VAR, "1/4")])).unwrap(), Agent { index: 1, count: 4 });
        let k8s = env(&[(AGENT_VAR, "auto"), ("JOB_COMPLETION_INDEX", "2"), (AGENTS_VAR, "5")]);
        assert_eq!(resolve(None, k8s).unwrap(), Agent { index: 2, count: 5 });
        let slurm = env(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "3")]);
        assert_eq!(resolve(Some("auto"), slurm).unwrap(), Agent { index: 0, count: 3 });
        let refused = |flag, vars: &[(&str, &str)]| resolve(flag, env(vars)).unwrap_err().to_string();
        assert!(refused(Some("3/3"), &[]).contains("--agent 3/3: agents are numbered 0 to N-1"));
        assert!(refused(Some("x"), &[]).contains("--agent x: give I/N"));
        assert!(refused(None, &[(AGENT_VAR, "1/0")]).contains("OLTPGEN_AGENT 1/0"));
        assert!(refused(Some("auto"), &[]).contains("neither JOB_COMPLETION_INDEX with OLTPGEN_AGENTS"));
        let bad = refused(Some("auto"), &[("JOB_COMPLETION_INDEX", "4"), (AGENTS_VAR, "4")]);
        assert!(bad.contains("JOB_COMPLETION_INDEX and OLTPGEN_AGENTS give 4/4"), "{bad}");
    }

    #[test]
    fn start_times_read_as_rfc_3339_with_or_without_an_offset() {
        let z = parse_start_at("--start-at", "2026-11-26T23:00:00Z").unwrap();
        assert_eq!(parse_start_at("--start-at", "2026-11-27T00:30:00+01:30").unwrap(), z);
        assert_eq!(parse_start_at("--start-at", "2026-11-26T21:00:00-02:00").unwrap(), z);
        let e = parse_start_at("OLTPGEN_START_AT", "tomorrow").unwrap_err().to_string();
        assert!(e.starts_with("OLTPGEN_START_AT tomorrow: give an RFC 3339 time"), "{e}");
        // Issue 36: a multi-byte character where the offset would be panicked the hand-written reader.
        let e = parse_start_at("--start-at", "€aaaaa").unwrap_err().to_string();
        assert!(e.starts_with("--start-at €aaaaa: give an RFC 3339 time"), "{e}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// Any text, and any text shaped like a time: an instant or one line naming the flag, never a panic.
        #[test]
        fn any_start_at_is_an_instant_or_one_line(
            text in proptest::prop_oneof![
                proptest::prelude::any::<String>(),
                "[0-9]{1,5}-[0-9]{1,2}-[0-9]{1,2}[T ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\\.[0-9]{0,12})?(Z|[+-€][0-9]{1,2}:?[0-9]{0,2}|.{0,3})",
            ]
        ) {
            if let Err(e) = parse_start_at("--start-at", &text) {
                let e = e.to_string();
                proptest::prop_assert!(e.starts_with("--start-at ") && e.contains("RFC 3339"), "{}", e);
            }
        }

        /// Every agent text: an agent of its count, or one line naming the flag.
        #[test]
        fn any_agent_is_one_of_its_count_or_one_line(
            text in proptest::prop_oneof![proptest::prelude::any::<String>(), "[0-9 ]{0,12}/[0-9 -]{0,12}"]
        ) {
            match resolve(Some(&text), |_| None) {
                Ok(a) => proptest::prop_assert!(a.index < a.count),
                Err(e) => proptest::prop_assert!(e.to_string().starts_with("--agent"), "{}", e),
            }
        }
    }

    #[test]
    fn agents_of_one_plan_and_start_draw_one_seed() {
        let at = parse_start_at("--start-at", "2026-11-26T23:00:00Z").unwrap();
        assert_eq!(agents_seed("users 10", at), agents_seed("users 10", at));
        assert_ne!(agents_seed("users 10", at), agents_seed("users 20", at));
        assert_ne!(agents_seed("users 10", at), agents_seed("users 10", at + Duration::from_secs(1)));
    }
}
