//! Turning what a run measured into the result document.

use std::time::SystemTime;

use oltpgen_report::cap::max_within_cap;
use oltpgen_report::model::{RunResult, SCHEMA_VERSION, Server, Step, Tool, Workload as Kind};
use oltpgen_report::stats::median_run;

use super::{Measured, RunPlan, step_result};

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

/// The result document: every step with its cap verdict, and the headline taken from the median run
/// when steps were repeated (`--runs`).
pub fn build(ctx: Context, m: Measured) -> RunResult {
    let steps: Vec<Step> = m
        .steps
        .into_iter()
        .enumerate()
        .map(|(i, s)| step_result(ctx.workload, &ctx.plan, &s.scheduled, i, s.transactions, Some(s.window_s)))
        .collect();
    let median: Vec<Step> = match median_run(&steps) {
        Some(run) => steps.iter().filter(|s| s.run == run).cloned().collect(),
        None => Vec::new(),
    };
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: Tool { name: "oltpgen".into(), version: env!("CARGO_PKG_VERSION").into() },
        workload: ctx.workload,
        started_at: humantime::format_rfc3339_seconds(ctx.started_at).to_string(),
        config: ctx.config,
        server: ctx.server,
        targets: vec![ctx.target],
        max_within_cap: max_within_cap(&median),
        steps,
        timeseries: m.timeseries,
        client: m.client,
        errors_by_kind: m.errors_by_kind,
        interrupted: m.interrupted,
        power: None,
        cost: None,
    }
}
