//! Steps that go down as well as up, without a database: a workload whose transactions answer after a
//! millisecond counts the sessions open and logs when each user's transactions start. A list that goes
//! 4 → 16 → 8 stops the surplus users at the third step's start (their own connections closed, none of
//! them starting a transaction after it); a stepper that reads verdicts has each step laid once the one
//! before is judged, which is as soon as the turns that began in its window have ended.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::sync::LazyLock;

use oltpgen_driver::run::{
    self, Agent, Driven, Measured, Next, Ops, Progress, Ramp, RunPlan, StepSpec, Stepper, Sweep, Timing,
};
use oltpgen_driver::workload::{Kinds, Profile};
use oltpgen_report::model::Step;
use oltpgen_report::stats::cap::Cap;
use oltpgen_vocab::outcome::{Done, TxnError};
use tokio::time::Instant;

/// One target, one transaction type; counts open sessions and logs each transaction's start.
struct Counted {
    targets: Vec<String>,
    open: Arc<AtomicI64>,
    /// (user, when its transaction started, from `zero`).
    started: Mutex<Vec<(u32, Duration)>>,
    zero: Instant,
    /// Each user's think time.
    think: Duration,
    /// How long each transaction takes.
    busy: Duration,
}

/// A session that counts itself open until it is dropped.
struct Session(Arc<AtomicI64>);

impl Drop for Session {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

static PROFILE: LazyLock<Profile> = LazyLock::new(|| {
    Profile::new(oltpgen_report::model::Workload::Tpcc.descriptor().clone(), Kinds::plain(&["x"]))
});

impl Driven for Counted {
    type User = u32;
    type Session = Session;
    type Input = u32;

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn targets(&self) -> &[String] {
        &self.targets
    }

    fn user(&self, index: u32) -> u32 {
        index
    }

    fn next(&self, user: &mut u32) -> Next<u32> {
        Next { kind: 0, input: *user, keying: Duration::ZERO, think: self.think }
    }

    async fn connect(&self, _target: usize) -> Result<Session, TxnError> {
        self.open.fetch_add(1, Ordering::SeqCst);
        Ok(Session(self.open.clone()))
    }

    async fn execute<'a>(
        &'a self,
        _s: &'a Session,
        user: &'a u32,
        _ops: &'a mut Ops,
    ) -> Result<Done, TxnError> {
        self.started.lock().unwrap().push((*user, self.zero.elapsed()));
        tokio::time::sleep(self.busy).await;
        Ok(Done::default())
    }
}

fn plan(users: &[u32], connections: Option<u32>) -> RunPlan {
    RunPlan {
        steps: users.iter().map(|&users| StepSpec { users, run: 1 }).collect(),
        connections,
        timing: Timing {
            ramp: Ramp::Rate(1000.0),
            warmup: Duration::from_millis(200),
            duration: Duration::from_millis(800),
            window: None,
            arrivals: None,
        },
        report_interval: Duration::from_millis(100),
        cap: Cap::default(),
        stop_after_breach: None,
        client_threads: 2,
        agent: Agent::WHOLE,
        start_at: None,
        search: None,
    }
}

/// What a run measured, the workload it ran, and the sessions open at each interval's end (seconds
/// from the run's start).
async fn run(
    plan: &RunPlan,
    stepper: &mut impl Stepper,
    think: Duration,
) -> (Measured, Arc<Counted>, Vec<(f64, i64)>) {
    run_busy(plan, stepper, think, Duration::from_millis(1)).await
}

/// [`run`], each transaction taking `busy`.
async fn run_busy(
    plan: &RunPlan,
    stepper: &mut impl Stepper,
    think: Duration,
    busy: Duration,
) -> (Measured, Arc<Counted>, Vec<(f64, i64)>) {
    let w = Arc::new(Counted {
        targets: vec!["a".into()],
        open: Arc::default(),
        started: Mutex::default(),
        zero: Instant::now(),
        think,
        busy,
    });
    let mut open = Vec::new();
    let measured = run::drive_stepped(w.clone(), plan, stepper, |p| {
        if let Progress::Interval(f) = p {
            open.push((f.elapsed_s, w.open.load(Ordering::SeqCst)));
        }
    })
    .await;
    (measured, w, open)
}

/// Every step measured, with the users asked.
fn assert_steps(m: &Measured, users: &[u64]) {
    assert_eq!(m.steps.iter().map(|s| s.users).collect::<Vec<_>>(), users);
    assert!(m.errors_by_kind.is_empty(), "{:?}", m.errors_by_kind);
    for s in &m.steps {
        assert!(s.figures.transactions["x"].count > 100, "step {} measured: {:?}", s.index, s.figures);
    }
}

#[tokio::test]
async fn a_list_that_goes_down_stops_the_surplus_users_at_the_step_s_start() {
    let plan = plan(&[4, 16, 8], None);
    let (m, w, open) = run(&plan, &mut Sweep::of(&plan.steps), Duration::from_millis(2)).await;
    assert_steps(&m, &[4, 16, 8]);
    let third = &m.steps[2];
    // The third step begins where the second's window ends: its surplus users start nothing after
    // it (a few ms for the shards to come round).
    let edge = Duration::from_secs_f64(m.steps[1].window.end_s + 0.05);
    let late: Vec<_> =
        w.started.lock().unwrap().iter().filter(|(u, at)| *u >= 8 && *at > edge).copied().collect();
    let some = &late[..late.len().min(4)];
    assert!(
        late.is_empty(),
        "users 8-15 started {} transactions after the step's start: {some:?}…",
        late.len()
    );
    let in_third = |at: f64| at > third.window.start_s && at <= third.window.end_s;
    let during: Vec<i64> = open.iter().filter(|(at, _)| in_third(*at)).map(|&(_, n)| n).collect();
    assert!(!during.is_empty() && during.iter().all(|&n| n == 8), "their connections closed: {during:?}");
    let during_second: Vec<i64> = open
        .iter()
        .filter(|(at, _)| *at > m.steps[1].window.start_s && *at <= m.steps[1].window.end_s)
        .map(|&(_, n)| n)
        .collect();
    assert!(during_second.iter().all(|&n| n == 16), "{during_second:?}");
    let users = m.timeseries.iter().filter(|r| in_third(r.elapsed_s)).map(|r| r.users);
    assert!(users.clone().count() > 0 && users.clone().all(|u| u == 8), "{:?}", users.collect::<Vec<_>>());
}

#[tokio::test]
async fn a_list_that_goes_down_and_up_on_shared_connections_measures_every_step() {
    let plan = plan(&[16, 4, 12], Some(6));
    let (m, _, _) = run(&plan, &mut Sweep::of(&plan.steps), Duration::from_millis(2)).await;
    assert_steps(&m, &[16, 4, 12]);
    assert_eq!(m.steps.iter().map(|s| s.connections).collect::<Vec<_>>(), [6, 4, 6]);
}

/// A search on the evidence of each step: from 4 users, up fourfold while the last step kept its mean
/// response time within twice the first step's, else down by half; three steps.
struct Search;

impl Stepper for Search {
    fn next(&mut self, judged: &[Step]) -> Option<u32> {
        let (Some(first), Some(last)) = (judged.first(), judged.last()) else { return Some(4) };
        if judged.len() >= 3 {
            return None;
        }
        let users = last.users as u32;
        Some(if last.figures.rt_avg_ms <= 2.0 * first.figures.rt_avg_ms { users * 4 } else { users / 2 })
    }
}

#[tokio::test]
async fn a_stepper_that_reads_verdicts_lays_each_step_once_the_one_before_is_judged() {
    // Four shared connections: sixteen users wait in line for them, and their response time shows it.
    let plan = plan(&[16], Some(4));
    let (m, _, _) = run(&plan, &mut Search, Duration::ZERO).await;
    assert_steps(&m, &[4, 16, 8]);
    for pair in m.steps.windows(2) {
        // Each transaction takes a millisecond: the verdict comes as the window closes, not the 2 s
        // grace after it, and the next step begins then.
        let after = decided(&pair[1]) - pair[0].window.end_s;
        assert!((0.0..0.5).contains(&after), "the next step is laid once the verdict is in: {after} s");
    }
    assert!(m.steps[1].figures.rt_avg_ms > 2.0 * m.steps[0].figures.rt_avg_ms, "{:?}", m.steps[1].figures);
}

/// TPC-C on the built-in PostgreSQL (one warehouse, four shared connections, no keying or think time):
/// the search goes 4 → 16 → 8 users on the evidence of each 3 s step (sixteen users wait in line for
/// the four connections, and their response time shows it), every step measured, and the database
/// passes TPC-C's consistency conditions after it.
#[cfg(feature = "local")]
#[tokio::test(flavor = "multi_thread")]
async fn tpcc_on_the_built_in_postgres_goes_4_16_8_on_the_evidence_and_stays_consistent() {
    use oltpgen_datagen::tpcc::mix::{KeyingTime, Pacing, ThinkTime};
    use oltpgen_driver::local::{LocalPg, Placement};
    use oltpgen_driver::tpcc::{self, Tpcc, TpccDriver};

    let said = oltpgen_vocab::console::ErrLines::new(|line| eprintln!("{line}"));
    let pg = LocalPg::start(&Placement::Temp, 40, &said).expect("a server");
    let target = pg.target("tpcc");
    oltpgen_driver::engine::create_database(&target).await.expect("the database");
    let load = oltpgen_driver::load::LoadOptions {
        workers: 2,
        replace: false,
        quiet: true,
        resume: false,
        step: Default::default(),
    };
    tpcc::load(&target, 1, 42, &load).await.expect("a load");
    let mut plan = plan(&[16], Some(4));
    plan.timing = Timing {
        ramp: Ramp::Rate(100.0),
        warmup: Duration::from_millis(500),
        duration: Duration::from_secs(3),
        window: None,
        arrivals: None,
    };
    plan.report_interval = Duration::from_secs(1);
    let targets = std::slice::from_ref(&target);
    let prepared = oltpgen_driver::prepare::prepare(&Tpcc, targets, Some(&1), &plan).await.expect("ready");
    let how = oltpgen_driver::engine::tpcc::default_transactions(target.engine());
    let pacing = Pacing { keying: KeyingTime::Off, think: ThinkTime::Off };
    let w = Arc::new(TpccDriver::new(vec![(target.clone(), how)], &prepared.each, pacing, 7));
    let m = run::drive_stepped(w, &plan, &mut Search, |_| {}).await;

    assert_eq!(m.steps.iter().map(|s| s.users).collect::<Vec<_>>(), [4, 16, 8], "{:?}", m.steps);
    for s in &m.steps {
        assert!(s.figures.transactions["new_order"].count > 0, "step {} measured: {:?}", s.index, s.figures);
    }
    assert!(!m.interrupted);
    let clauses = tpcc::check(&target, 2).await.expect("the checks ran");
    let failed = oltpgen_report::model::checks::failed(&clauses);
    assert!(failed.is_empty(), "consistency after the run: {failed:?}");
}

/// When `step` was decided and began, seconds on the run's clock: before its ramp and warmup.
fn decided(step: &Step) -> f64 {
    step.window.start_s - step.ramp_up_s - 0.2
}

/// Two steps of four users, each laid once the one before is judged.
struct Twice(u32);

impl Stepper for Twice {
    fn next(&mut self, _judged: &[Step]) -> Option<u32> {
        self.0 += 1;
        (self.0 <= 2).then_some(4)
    }
}

#[tokio::test]
async fn a_verdict_waits_for_the_turns_that_began_in_its_window_and_no_longer() {
    // Transactions of 300 ms: at the first window's end, every user is in one that began in it.
    let plan = plan(&[4], None);
    let (m, w, _) = run_busy(&plan, &mut Twice(0), Duration::ZERO, Duration::from_millis(300)).await;
    assert_eq!(m.steps.len(), 2, "{:?}", m.steps);
    let end = m.steps[0].window.end_s;
    let began = w.started.lock().unwrap().clone();
    let last_end =
        began.iter().filter(|(_, at)| at.as_secs_f64() < end).map(|(_, at)| at.as_secs_f64() + 0.3);
    let last_end = last_end.fold(0.0, f64::max);
    let at = decided(&m.steps[1]);
    assert!(last_end > end + 0.1, "turns ran past the window's end: {began:?}");
    assert!(
        at >= last_end - 0.05,
        "judged at {at} s, before the turn that ran at {end} s ended ({last_end} s)"
    );
    assert!(at < end + 1.0, "judged at {at} s, not the 2 s grace after the window's end at {end} s");
    assert!(m.steps.iter().all(|s| s.figures.transactions["x"].count > 0), "{:?}", m.steps);
}
