//! Results built from a few numbers, for the tests of the renderers and of merging.

use std::collections::BTreeMap;

use crate::model::descriptor::{Descriptor, Figure, Rate, SizeSetting, Work, column};
use crate::model::ds2_progress::{Ds2Interval, Ds2Progress, OpCounts};
use crate::model::step::tests::txn;
use crate::model::step::{StepPlan, Transactions};
use crate::model::{
    ClientCpu, IntervalRow, RunResult, SCHEMA_VERSION, Server, Step, Tool, Window, Workload, WorkloadName,
};
use crate::stats::cap::{Cap, max_within_cap};

/// One minute of TPC-C on target `db`: `new_orders` New-Orders (so NOPM = `new_orders`) and
/// `payments` Payments, all at `latency_us`, judged by `cap` when given.
pub(crate) fn tpcc_step(
    index: u32,
    users: u64,
    (new_orders, payments): (u64, u64),
    latency_us: u64,
    cap: Option<&Cap>,
) -> Step {
    let plan = StepPlan { index, run: 1, users, connections: users, duration_s: 60.0, ..StepPlan::default() };
    let t = Transactions::from([
        ("new_order".to_string(), txn(new_orders, latency_us, 0)),
        ("payment".to_string(), txn(payments, latency_us, 0)),
    ]);
    let mut step = Step::new(Workload::Tpcc, plan, BTreeMap::from([("db".to_string(), t)]));
    step.cap = cap.map(|c| c.evaluate(&step.figures));
    step
}

/// One minute of TPC-C on several databases side by side: per database key, its New-Orders, all at
/// `latency_us`; the step and each database judged by `cap`.
pub(crate) fn tpcc_databases_step(index: u32, users: u64, dbs: &[(&str, u64, u64)], cap: &Cap) -> Step {
    let plan = StepPlan { index, run: 1, users, connections: users, duration_s: 60.0, ..StepPlan::default() };
    let per_db = dbs
        .iter()
        .map(|&(key, n, latency_us)| {
            (key.to_string(), Transactions::from([("new_order".to_string(), txn(n, latency_us, 0))]))
        })
        .collect();
    let mut step = Step::new(Workload::Tpcc, plan, per_db);
    cap.judge_step(&mut step);
    step
}

/// One minute of DS2 on target `db`: `orders` orders (so OPM = `orders`), each `order_us` from its
/// intended start and `rt_tot_us` by DS2's sum of its operations (a login and a purchase), judged by
/// `cap` when given.
pub(crate) fn ds2_step(
    index: u32,
    users: u64,
    orders: u64,
    (order_us, rt_tot_us): (u64, u64),
    cap: Option<&Cap>,
) -> Step {
    let plan = StepPlan { index, run: 1, users, connections: users, duration_s: 60.0, ..StepPlan::default() };
    let t = Transactions::from([
        ("login".to_string(), txn(orders, rt_tot_us / 4, 0)),
        ("purchase".to_string(), txn(orders, rt_tot_us * 3 / 4, 0)),
        ("order".to_string(), txn(orders, order_us, 0)),
        ("rt_tot".to_string(), txn(orders, rt_tot_us, 0)),
    ]);
    let mut step = Step::new(Workload::Ds2, plan, BTreeMap::from([("db".to_string(), t)]));
    step.cap = cap.map(|c| c.evaluate(&step.figures));
    step
}

/// A result of `workload` holding `steps`, its headline derived from them.
pub(crate) fn result(workload: Workload, steps: Vec<Step>) -> RunResult {
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: Tool { name: "oltpgen".into(), version: "0.1.0".into() },
        workload: workload.into(),
        // As a result of schema 3 reads: the renderers find the workload's built-in descriptor (tests
        // change `workload` after building one); the driver's results carry their own.
        written_descriptor: None,
        started_at: "2025-01-01T00:00:00Z".into(),
        config: serde_json::json!({}),
        server: Server::default(),
        targets: vec!["db".into()],
        max_within_cap: max_within_cap(&steps),
        steps,
        timeseries: Vec::new(),
        client: ClientCpu::default(),
        errors_by_kind: BTreeMap::new(),
        interrupted: false,
        power: None,
        cost: None,
        counters: Vec::new(),
        endurance: None,

        runs: Vec::new(),
        outages: Vec::new(),
        fault: None,
        lost_commits: None,
        served_by: Vec::new(),
    }
}

/// A `--find-max` search of TPC-C as the driver records it: 4 users pass, 8 fail, bisection to 6
/// (pass) and 7 (fail), 5 beside it, 6 confirmed; each probe with its role and the headline's search.
/// `confirmed`: whether 6's confirmation passed.
pub(crate) fn search_result(confirmed: bool) -> RunResult {
    use crate::model::search::{ProbeRole::*, SearchReached};
    let cap: Cap = "avg=1s".parse().unwrap();
    let probe = |index, users, new_orders, passed: bool, role| {
        let latency_us = if passed { 100_000 } else { 2_000_000 };
        Step {
            probe: Some(role),
            ..tpcc_step(index, users, (new_orders, new_orders), latency_us, Some(&cap))
        }
    };
    let steps = vec![
        probe(0, 4, 1_000, true, Grow),
        probe(1, 8, 1_500, false, Grow),
        probe(2, 6, 1_200, true, Bisect),
        probe(3, 7, 1_300, false, Bisect),
        probe(4, 5, 1_100, true, Neighbour),
        probe(5, 6, 1_150, confirmed, Confirm),
    ];
    let mut r = result(Workload::Tpcc, steps);
    if let Some(h) = r.max_within_cap.as_mut() {
        let answer = r.steps.iter().find(|s| s.index == h.step_index).unwrap();
        h.search = SearchReached::of(&r.steps, answer);
    }
    r
}

/// A DS2 progress tick 75 s into a run, 15 s after the reset: every figure set, none round.
pub(crate) fn ds2_progress() -> Ds2Progress {
    Ds2Progress {
        run_s: 75.0,
        et_s: 14.96,
        users: 16,
        n_overall: 1_234,
        rollbacks: 13,
        errors: 1,
        rt_tot_avg_ms: 12.89,
        rt_tot_lastn_max_ms: 40.2,
        order_rt_avg_ms: 13.5,
        ops: OpCounts { logins: 990, new_customers: 244, browses: 3_702, purchases: 1_234 },
        interval: Ds2Interval {
            span_s: 10.0,
            orders: 800,
            rollbacks: 9,
            errors: 0,
            rt_tot_avg_ms: 11.25,
            rt_tot_max_ms: 35.5,
            order_avg_ms: 12.0,
            order_max_ms: 36.0,
            ops: OpCounts { logins: 640, new_customers: 160, browses: 2_400, purchases: 800 },
        },
    }
}

/// A report interval's row of `txn`: `count` transactions in 10 s at the given mean and p95.
pub(crate) fn interval_row(elapsed_s: f64, txn: &str, count: u64, avg_ms: f64, p95_ms: f64) -> IntervalRow {
    let tps = count as f64 / 10.0;
    IntervalRow { elapsed_s, users: 10, txn: txn.into(), count, tps, avg_ms, p95_ms, errors: 0 }
}

/// Three steps judged by the default cap (`avg=1s`), the last over it, and a minute of intervals.
pub(crate) fn sweep() -> RunResult {
    let cap = Cap::default();
    let steps =
        (0..3).map(|i| tpcc_step(i, 10 * (u64::from(i) + 1), (600 << i, 600 << i), 300_000 << i, Some(&cap)));
    let mut r = result(Workload::Tpcc, steps.collect());
    r.targets = vec!["postgres://u@h:5432/<tpcc>".into()];
    r.timeseries = (1..=6)
        .flat_map(|i| {
            let t = f64::from(i) * 10.0;
            [interval_row(t, "new_order", 100, 2.0, 4.0), interval_row(t, "payment", 300, 6.0, 9.0)]
        })
        .collect();
    r
}

/// Study 4's baseline: 205 TPS at 4,000 users is the last step within `avg=1s`.
pub(crate) fn baseline() -> RunResult {
    let cap = Cap::default();
    result(
        Workload::Tpcc,
        vec![
            tpcc_step(0, 2_000, (3_600, 3_600), 500_000, Some(&cap)),
            tpcc_step(1, 4_000, (6_150, 6_150), 900_000, Some(&cap)),
            tpcc_step(2, 6_000, (6_600, 6_600), 1_500_000, Some(&cap)),
        ],
    )
}

/// Study 4's accelerated storage: 689 TPS at 14,000 users; it ran a fourth step.
pub(crate) fn accelerated() -> RunResult {
    let cap = Cap::default();
    result(
        Workload::Tpcc,
        vec![
            tpcc_step(0, 4_000, (6_150, 6_150), 100_000, Some(&cap)),
            tpcc_step(1, 9_000, (13_800, 13_800), 300_000, Some(&cap)),
            tpcc_step(2, 14_000, (20_670, 20_670), 700_000, Some(&cap)),
            tpcc_step(3, 18_000, (21_000, 21_000), 1_300_000, Some(&cap)),
        ],
    )
}

/// `n` repetitions of a one-step plan at `users`, run `r`'s New-Orders given by `nopm(r)`.
pub(crate) fn repeated(users: u64, nopm: &[u64]) -> RunResult {
    let cap = Cap::default();
    let steps = nopm
        .iter()
        .enumerate()
        .map(|(r, &n)| {
            let mut s = tpcc_step(0, users, (n, n), 5_000, Some(&cap));
            s.run = r as u32 + 1;
            s
        })
        .collect();
    result(Workload::Tpcc, steps)
}

/// `text` once checked to end its last line, and only once: a snapshot compares text without its
/// trailing newlines, so the tests of renderers that print whole lines check them here.
pub(crate) fn whole_lines(text: String) -> String {
    assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "not whole lines: {text:?}");
    text
}

/// An HTML page as its snapshot shows it, a line per tag (the page runs its tags together), the page's
/// own line ends marked `↵`: the view stays exact, as the page can be read back from it.
pub(crate) fn tag_lines(page: &str) -> String {
    page.replace('\n', "↵\n").replace("><", ">\n<")
}

/// The sweep, with a failover 31.2 s in.
pub(crate) fn failed_over() -> RunResult {
    let mut r = sweep();
    r.outages = vec![crate::model::outage::Outage {
        lost_s: 31.23,
        committed_again_s: Some(36.03),
        recovered_s: Some(43.23),
        before_tps: 100.0,
        failed: [("new_order".to_string(), 20), ("payment".to_string(), 17)].into(),
        per_second: vec![[32.0, 40.0], [33.0, 0.0]],
    }];
    r.fault = Some(crate::model::outage::FaultCommand { at_s: 30.02, ended_s: 31.5, failed: None });
    r
}

/// A workload the report crate does not know, as one defined at run time declares itself (issue 38):
/// `kv`, a key-value store's puts and gets, counted per second (TPS), with no audit and no figure per
/// minute.
pub(crate) fn kv_descriptor() -> Descriptor {
    Descriptor {
        name: "kv".into(),
        title: "key-value".into(),
        headline: Rate::Iops,
        unit: "TPS".into(),
        per_minute_transaction: "put".into(),
        transactions: vec!["put".into(), "get".into()],
        composite: Vec::new(),
        audit: None,
        load: "clients".into(),
        load_column: ("clients".into(), 9),
        per_target: column("TPS", 10, Figure::Tps, 1),
        step_columns: vec![
            column("TPS", 10, Figure::Tps, 1),
            column("put avg ms", 11, Figure::Avg("put".into()), 2),
            column("get avg ms", 11, Figure::Avg("get".into()), 2),
            column("p95 ms", 10, Figure::RtP95, 2),
        ],
        work: Work { one: "operation".into(), many: "operations".into() },
        size: Some(SizeSetting { key: "keys".into(), before: String::new(), after: " keys".into() }),
        default_cap: "avg=1s".into(),
    }
}

/// One minute of `kv` on target `db`: `puts` puts and `gets` gets, all at `latency_us`, judged by `cap`
/// when given.
pub(crate) fn kv_step(index: u32, users: u64, (puts, gets): (u64, u64), latency_us: u64, cap: &Cap) -> Step {
    let start_s = 10.0 + 60.0 * f64::from(index);
    let window = Window { start_s, end_s: start_s + 60.0 };
    let plan = StepPlan {
        index,
        run: 1,
        users,
        connections: users,
        duration_s: 60.0,
        window,
        ..StepPlan::default()
    };
    let t = Transactions::from([
        ("put".to_string(), txn(puts, latency_us, 0)),
        ("get".to_string(), txn(gets, latency_us / 2, 0)),
    ]);
    let mut step = Step::described(&kv_descriptor(), plan, BTreeMap::from([("db".to_string(), t)]));
    step.cap = Some(cap.evaluate(&step.figures));
    step
}

/// A `kv` sweep as its run writes it, its descriptor in it: three steps under `avg=1s`, the last over
/// it, a minute of intervals per step, a counter, power and cost.
pub(crate) fn kv() -> RunResult {
    let cap: Cap = kv_descriptor().default_cap.parse().expect("kv's default cap parses");
    let steps: Vec<Step> =
        (0..3).map(|i| kv_step(i, 8 << i, (6_000 << i, 18_000 << i), 500_000 << i, &cap)).collect();
    let mut r = result(Workload::Tpcc, Vec::new());
    r.workload = WorkloadName::new("kv");
    r.written_descriptor = Some(kv_descriptor());
    r.config = serde_json::json!({ "keys": 1_000_000, "users": "8,16,32", "rt_cap": "avg=1s" });
    r.targets = vec!["postgres://u@h:5432/kv".into()];
    r.server = Server { engine: "postgresql".into(), version: "15.18".into(), settings: BTreeMap::new() };
    r.timeseries = steps
        .iter()
        .flat_map(|s| {
            (1..=6).flat_map(move |i| {
                let t = s.window.start_s + f64::from(i) * 10.0;
                let (put, get) = (&s.figures.transactions["put"], &s.figures.transactions["get"]);
                [
                    interval_row(t, "put", put.count / 6, put.avg_ms, put.p95_ms),
                    interval_row(t, "get", get.count / 6, get.avg_ms, get.p95_ms),
                ]
            })
        })
        .collect();
    r.counters = vec![crate::model::CounterSeries {
        source: "client".into(),
        name: "cpu_pct".into(),
        points: (1..=18).map(|i| [10.0 + f64::from(i) * 10.0, 20.0 + f64::from(i)]).collect(),
    }];
    r.client = ClientCpu::new(3.0, 1.0, 96_000);
    r.max_within_cap = max_within_cap(&steps);
    r.power = crate::model::Power::new(Some(90.0), 180.0, &steps[1].figures);
    r.cost = Some(crate::model::Cost::new(5_000.0, Some(&steps[1].figures)));
    r.steps = steps;
    r
}

/// `kv` run three times (`--runs 3`), one step each, every run restored first.
pub(crate) fn kv_study() -> RunResult {
    let cap = Cap::default();
    let mut r = kv();
    r.steps = [6_000, 9_000, 7_500]
        .into_iter()
        .zip(1..)
        .map(|(puts, run)| Step { run, ..kv_step(0, 8, (puts, 3 * puts), 400_000, &cap) })
        .collect();
    r.runs = (1..=3)
        .map(|run| crate::model::cycle::RunRecord {
            run,
            seed: u64::from(run),
            start_s: 0.0,
            restored: Some(crate::model::cycle::Restored { method: "generator".into(), duration_s: 2.0 }),
            start_rows: BTreeMap::from([("kv".to_string(), 1_000_000)]),
            idle_window_s: None,
            idle_counters: BTreeMap::new(),
            meters: BTreeMap::new(),
            power: None,
            lost_commits: None,
        })
        .collect();
    let median = crate::stats::median_run(&r.steps);
    let median: Vec<Step> = r.steps.iter().filter(|s| Some(s.run) == median).cloned().collect();
    r.max_within_cap = max_within_cap(&median);
    r
}
