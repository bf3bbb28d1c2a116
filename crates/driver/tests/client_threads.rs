//! Users spread over client threads, without a database: a workload whose transactions answer after a
//! millisecond logs which thread ran each user's transactions and opened its connection. The same run
//! on one and on two client threads gives results of the same shape; on two, each user (and its
//! connection) stays on one thread, and the users, and each target's, are spread over both.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use std::sync::LazyLock;

use oltpgen_driver::run::{self, Agent, Driven, Measured, Next, Ops, Ramp, RunPlan, StepSpec, Timing};
use oltpgen_driver::workload::{Kinds, Profile};
use oltpgen_report::stats::cap::Cap;
use oltpgen_vocab::outcome::{Done, TxnError};

/// Two targets, two transaction types; logs each user's threads.
struct Logged {
    targets: Vec<String>,
    /// User → the threads its transactions ran on.
    threads: Mutex<BTreeMap<u32, HashSet<ThreadId>>>,
    /// Transactions that ran on another thread than their session was opened on.
    crossed: Mutex<u64>,
}

static PROFILE: LazyLock<Profile> = LazyLock::new(|| {
    Profile::new(oltpgen_report::model::Workload::Tpcc.descriptor().clone(), Kinds::plain(&["x", "y"]))
});

impl Driven for Logged {
    type User = (u32, u32);
    type Session = ThreadId;
    type Input = u32;

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn targets(&self) -> &[String] {
        &self.targets
    }

    fn user(&self, index: u32) -> Self::User {
        (index, 0)
    }

    fn next(&self, user: &mut Self::User) -> Next<u32> {
        user.1 += 1;
        Next { kind: (user.1 % 2) as usize, input: user.0, keying: Duration::ZERO, think: Duration::ZERO }
    }

    async fn connect(&self, _target: usize) -> Result<ThreadId, TxnError> {
        Ok(std::thread::current().id())
    }

    async fn execute<'a>(
        &'a self,
        session: &'a ThreadId,
        user: &'a u32,
        _ops: &'a mut Ops,
    ) -> Result<Done, TxnError> {
        tokio::time::sleep(Duration::from_millis(1)).await;
        let here = std::thread::current().id();
        self.threads.lock().unwrap().entry(*user).or_default().insert(here);
        if *session != here {
            *self.crossed.lock().unwrap() += 1;
        }
        Ok(Done::default())
    }
}

fn plan(client_threads: u32, connections: Option<u32>) -> RunPlan {
    RunPlan {
        steps: vec![StepSpec { users: 8, run: 1 }],
        connections,
        timing: Timing {
            ramp: Ramp::Rate(1000.0),
            warmup: Duration::from_millis(200),
            duration: Duration::from_secs(1),
            window: None,
            arrivals: None,
        },
        report_interval: Duration::from_millis(250),
        cap: Cap::default(),
        stop_after_breach: None,
        client_threads,
        agent: Agent::WHOLE,
        start_at: None,
        search: None,
    }
}

async fn run_on(client_threads: u32, connections: Option<u32>) -> (Measured, Arc<Logged>) {
    let w = Arc::new(Logged {
        targets: vec!["a".into(), "b".into()],
        threads: Mutex::default(),
        crossed: Mutex::default(),
    });
    let measured = run::drive(w.clone(), &plan(client_threads, connections), |_| {}).await;
    (measured, w)
}

/// A JSON value's shape: its objects' keys and its values' types, numbers and strings left out.
fn shape(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(shape).collect()),
        Value::Number(_) => Value::from("number"),
        Value::String(_) => Value::from("string"),
        other => other.clone(),
    }
}

#[tokio::test]
async fn a_run_on_two_client_threads_keeps_each_user_on_one_and_reports_as_one_thread_does() {
    let (one, _) = run_on(1, None).await;
    let (two, w) = run_on(2, None).await;

    for m in [&one, &two] {
        assert_eq!(m.steps.len(), 1);
        assert!(m.errors_by_kind.is_empty(), "{:?}", m.errors_by_kind);
        assert!(m.steps[0].figures.transactions["x"].count > 50, "both runs measured");
        assert!(m.timeseries.len() >= 8, "intervals of both types: {}", m.timeseries.len());
    }
    assert_eq!(
        shape(&serde_json::to_value(&one.steps).unwrap()),
        shape(&serde_json::to_value(&two.steps).unwrap())
    );
    assert_eq!(one.targets, two.targets);
    assert_eq!(
        one.timeseries.iter().take(4).map(|r| &r.txn).collect::<Vec<_>>(),
        two.timeseries.iter().take(4).map(|r| &r.txn).collect::<Vec<_>>()
    );

    let threads = w.threads.lock().unwrap().clone();
    assert_eq!(threads.len(), 8, "every user ran");
    assert!(threads.values().all(|t| t.len() == 1), "a user never crosses threads: {threads:?}");
    assert_eq!(*w.crossed.lock().unwrap(), 0, "a connection is used on the thread that opened it");
    let user_thread = |u: u32| *threads[&u].iter().next().unwrap();
    let used: HashSet<_> = (0..8).map(user_thread).collect();
    assert_eq!(used.len(), 2, "two client threads ran users");
    for target in 0..2 {
        let on: HashSet<_> = (target..8).step_by(2).map(user_thread).collect();
        assert_eq!(on.len(), 2, "target {target}'s users run on both threads");
    }
    let per_thread = |t| (0..8).filter(|&u| user_thread(u) == t).count();
    assert!(used.iter().all(|&t| per_thread(t) == 4), "users spread evenly");
}

#[tokio::test]
async fn shared_connections_split_over_the_threads_and_stay_on_theirs() {
    let (two, w) = run_on(2, Some(2)).await;
    assert!(two.errors_by_kind.is_empty(), "{:?}", two.errors_by_kind);
    assert!(two.steps[0].figures.transactions["y"].count > 50);
    assert_eq!(two.steps[0].connections, 4, "two per target");
    assert_eq!(*w.crossed.lock().unwrap(), 0, "a pooled connection stays on its thread");
    let threads = w.threads.lock().unwrap();
    assert_eq!(threads.values().flatten().collect::<HashSet<_>>().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn three_agents_run_exactly_the_users_one_process_would_on_one_clock() {
    let start_at = std::time::SystemTime::now() + Duration::from_millis(300);
    let agent = |index| async move {
        let w = Arc::new(Logged {
            targets: vec!["a".into()],
            threads: Mutex::default(),
            crossed: Mutex::default(),
        });
        let plan = RunPlan { agent: Agent { index, count: 3 }, start_at: Some(start_at), ..plan(2, Some(6)) };
        let measured = run::drive(w.clone(), &plan, |_| {}).await;
        (measured, w)
    };
    let (a, b, c) = tokio::join!(agent(0), agent(1), agent(2));
    let mut all = Vec::new();
    for (index, (m, w)) in [a, b, c].iter().enumerate() {
        let users: Vec<u32> = w.threads.lock().unwrap().keys().copied().collect();
        assert_eq!(users, (0..8).filter(|u| u % 3 == index as u32).collect::<Vec<_>>(), "agent {index}");
        assert_eq!(m.steps[0].users, [3, 3, 2][index], "a step counts the agent's own users");
        assert_eq!(m.steps[0].connections, 2, "its share of the 6 shared connections");
        assert!(m.steps[0].figures.transactions["x"].count > 0);
        all.extend(users);
    }
    all.sort_unstable();
    assert_eq!(all, (0..8).collect::<Vec<_>>(), "together, every user of the plan, each once");
}
