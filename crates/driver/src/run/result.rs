//! Turning what a run measured into the result document.

use std::collections::BTreeMap;
use std::time::SystemTime;

use oltpgen_report::model::{RunResult, SCHEMA_VERSION, Server, Step, Tool, Window, Workload as Kind};
use oltpgen_report::step::StepPlan;

use super::{Measured, RunPlan};

/// Everything about a run that is not a measurement.
pub struct Context {
    /// Which workload ran.
    pub workload: Kind,
    /// The target's password-free label.
    pub target: String,
    /// The server's engine, version and key settings.
    pub server: Server,
    /// The configuration as given (no secrets: the URL appears only as its label).
    pub config: serde_json::Value,
    /// When the run started.
    pub started_at: SystemTime,
    /// The plan it ran.
    pub plan: RunPlan,
}

/// The result document of one single-step run.
pub fn build(ctx: Context, m: Measured) -> RunResult {
    let (start_s, end_s) = m.window_s;
    let plan = StepPlan {
        index: 0,
        run: 1,
        users: u64::from(ctx.plan.users),
        connections: u64::from(ctx.plan.connections_needed()),
        ramp_up_s: ctx.plan.ramp_up().as_secs_f64(),
        duration_s: end_s - start_s,
        window: Window { start_s, end_s },
    };
    let step = Step::new(ctx.workload, plan, BTreeMap::from([(ctx.target.clone(), m.transactions)]));
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: Tool { name: "oltpgen".into(), version: env!("CARGO_PKG_VERSION").into() },
        workload: ctx.workload,
        started_at: humantime::format_rfc3339_seconds(ctx.started_at).to_string(),
        config: ctx.config,
        server: ctx.server,
        targets: vec![ctx.target],
        steps: vec![step],
        timeseries: m.timeseries,
        client: m.client,
        errors_by_kind: m.errors_by_kind,
        interrupted: m.interrupted,
        max_within_cap: None,
        power: None,
        cost: None,
    }
}
