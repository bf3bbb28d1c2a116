//! A run as a study: idle power before it, the run, then the result document with the plan's
//! configuration, the server, power and cost. Workload-neutral: each workload adds its own settings to
//! the configuration and hands over its prepared workload.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use oltpgen_report::model::{RunResult, Server};

use super::{Progress, Ramp, RunPlan, Workload, drive, energy_sample, result};
use crate::Error;

/// What a study measures around the run: cost and power.
#[derive(Clone, Debug, Default)]
pub struct StudyOptions {
    /// What the system under test cost (USD).
    pub system_cost_usd: Option<f64>,
    /// An external power meter's log, read when the run ends.
    pub power_log: Option<PathBuf>,
    /// Time to sit idle before the run, over which idle power is averaged.
    pub idle_sample: Option<Duration>,
}

impl RunPlan {
    /// The plan's settings as the result's configuration records them; workloads add their own.
    pub fn config(&self) -> serde_json::Map<String, serde_json::Value> {
        let timing = self.timing;
        let ramp = match timing.ramp {
            Ramp::Rate(r) => format!("{r}/s"),
            Ramp::Over(d) => humantime::format_duration(d).to_string(),
        };
        let users: Vec<u32> = self.steps.iter().map(|s| s.users).collect();
        let serde_json::Value::Object(map) = serde_json::json!({
            "users": users,
            "runs": self.steps.iter().map(|s| s.run).max().unwrap_or(1),
            "connections": self.connections,
            "ramp": ramp,
            "warmup_s": timing.warmup.as_secs_f64(),
            "duration_s": timing.duration.as_secs_f64(),
            "window_s": timing.window.map(|(a, b)| [a.as_secs_f64(), b.as_secs_f64()]),
            "rt_cap": self.cap.to_string(),
            "stop_after_breach": self.stop_after_breach,
            "report_interval_s": self.report_interval.as_secs_f64(),
        }) else {
            unreachable!("an object literal")
        };
        map
    }
}

/// Runs `plan` with `workload` as a study and returns the result document (also when Ctrl-C cut the
/// run short: then `interrupted` is set). `config` holds the workload's own settings; the plan's are
/// added to it.
///
/// # Errors
/// [`Error::Usage`] when the power log cannot be read.
pub async fn study<W: Workload>(
    workload: Arc<W>,
    plan: &RunPlan,
    opts: &StudyOptions,
    server: Server,
    mut config: serde_json::Map<String, serde_json::Value>,
    progress: impl FnMut(Progress<'_>),
) -> Result<RunResult, Error> {
    let mut idle_energy = Vec::new();
    let idle_window_s = match opts.idle_sample {
        Some(idle) => {
            let from = unix_s(SystemTime::now());
            idle_energy.extend(energy_sample().map(|(sample, _)| sample));
            tokio::time::sleep(idle).await;
            idle_energy.extend(energy_sample().map(|(sample, _)| sample));
            Some((from, unix_s(SystemTime::now())))
        }
        None => None,
    };
    let started_at = SystemTime::now();
    let measured = drive(workload, plan, progress).await;
    let power_log = match &opts.power_log {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::usage(format!("--power-log: cannot read {}: {e}", path.display())))?;
            Some(
                oltpgen_report::power::parse(&text)
                    .map_err(|e| Error::usage(format!("--power-log {}: {e}", path.display())))?,
            )
        }
        // Without a meter's log, the host's own energy counters where it has them.
        None if !measured.energy.is_empty() => {
            idle_energy.extend(measured.energy.iter().cloned());
            Some(oltpgen_report::power::from_energy(&idle_energy, &measured.energy_max_uj))
        }
        None => None,
    };
    config.extend(plan.config());
    let context = result::Context {
        workload: W::REPORT,
        server,
        config: serde_json::Value::Object(config),
        started_at,
        plan: plan.clone(),
        system_cost_usd: opts.system_cost_usd,
        power_log,
        idle_window_s,
    };
    Ok(result::build(context, measured))
}

fn unix_s(t: SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}
