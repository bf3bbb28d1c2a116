//! Turning what a run measured into the result document.

use std::time::SystemTime;

use oltpgen_report::model::cycle::RunRecord;
use oltpgen_report::model::descriptor::Descriptor;
use oltpgen_report::model::search::SearchReached;
use oltpgen_report::model::{
    ClientCpu, Cost, IntervalRow, RunResult, SCHEMA_VERSION, Server, Step, Tool, WorkloadName,
};
use oltpgen_report::stats::cap::max_within_cap;
use oltpgen_report::stats::power::{Meter, study_power};
use oltpgen_report::stats::{median_run, steady};

use super::{Measured, RunPlan};

/// Everything about a run that is not a measurement.
pub struct Context {
    /// What the reports say about the workload that ran, as it declared it
    /// ([`Profile::descriptor`](crate::workload::Profile::descriptor)).
    pub descriptor: Descriptor,
    /// The server's engine, version and key settings.
    pub server: Server,
    /// The configuration as given (no secrets: the URL appears only as its label).
    pub config: serde_json::Value,
    /// When the run started.
    pub started_at: SystemTime,
    /// The plan it ran.
    pub plan: RunPlan,
    /// `--system-cost`: what the system under test cost, for cost per TPS and per NOPM/OPM.
    pub system_cost_usd: Option<f64>,
    /// `--power-log`: each meter's readings (or the host's energy counters'), averaged over every run's
    /// idle time and headline step's window.
    pub meters: Vec<Meter>,
    /// How each run began so far (its idle span, over which idle power is averaged, among them).
    pub runs: Vec<RunRecord>,
}

/// The result document: every step with its cap verdict (as the run judged it), the headline taken from the median run when
/// steps were repeated (`--runs`), and power and cost figures when a meter's log or a system cost is given.
pub fn build(ctx: Context, m: Measured) -> RunResult {
    RunResult {
        client: m.client,
        errors_by_kind: m.errors_by_kind,
        interrupted: m.interrupted,
        outages: m.outages,
        ..document(&ctx, m.steps, m.targets, m.timeseries)
    }
}

/// The result document of `steps` (all of a run's, or those judged so far) with the run's context:
/// the headline, power and cost. Without a client's figures and marked interrupted, as a document
/// written while the run goes on is, until the run's end replaces it.
pub fn document(
    ctx: &Context,
    steps: Vec<Step>,
    targets: Vec<String>,
    timeseries: Vec<IntervalRow>,
) -> RunResult {
    let mut steps = steps;
    let interval_s = ctx.plan.report_interval.as_secs_f64();
    for step in &mut steps {
        step.trend = steady::trend(&ctx.descriptor, &timeseries, step.window, interval_s);
    }
    let t0 = ctx.started_at.duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let mut runs = ctx.runs.clone();
    // Power, idle and active, is the median run's.
    let power = study_power(&mut runs, &steps, &ctx.meters, t0);
    let median: Vec<Step> = match median_run(&steps) {
        Some(run) => steps.iter().filter(|s| s.run == run).cloned().collect(),
        None => Vec::new(),
    };
    let headline = max_within_cap(&median).map(|mut h| {
        let answer = median.iter().find(|s| s.index == h.step_index);
        h.search = answer.and_then(|a| SearchReached::of(&median, a));
        h
    });
    // Cost is quoted at the headline step, or at the last step when none kept within the cap.
    let basis = headline.as_ref().and_then(|h| steps.get(h.step_index as usize)).or(steps.last());
    let cost = ctx.system_cost_usd.map(|usd| Cost::new(usd, basis.map(|s| &s.figures)));
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: Tool { name: "oltpgen".into(), version: env!("CARGO_PKG_VERSION").into() },
        workload: WorkloadName::new(ctx.descriptor.name.clone()),
        written_descriptor: Some(ctx.descriptor.clone()),
        started_at: humantime::format_rfc3339_seconds(ctx.started_at).to_string(),
        config: ctx.config.clone(),
        server: ctx.server.clone(),
        targets,
        max_within_cap: headline,
        steps,
        timeseries,
        client: ClientCpu::default(),
        errors_by_kind: Default::default(),
        interrupted: true,
        power,
        cost,
        counters: Vec::new(),
        endurance: None,

        runs,
        outages: Vec::new(),
        fault: None,
        lost_commits: None,
        served_by: Vec::new(),
    }
}
