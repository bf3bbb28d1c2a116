//! Results built from a few numbers, for the tests of the renderers and of merging.

use std::collections::BTreeMap;

use crate::cap::{Cap, max_within_cap};
use crate::model::{ClientCpu, RunResult, SCHEMA_VERSION, Server, Step, Tool, Workload};
use crate::step::tests::txn;
use crate::step::{StepPlan, Transactions};

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
        workload,
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
    }
}
