//! A run as a study: idle power before it, the run, then the result document with the plan's
//! configuration, the server, power and cost. Workload-neutral: each workload adds its own settings to
//! the configuration and hands over its prepared workload.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use oltpgen_report::model::{IntervalRow, RunResult, Server, Step};
use oltpgen_report::output::{ResultDir, write_result};

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
    /// Where `result.json` is written after every judged step, so that a run killed part-way keeps
    /// what it judged (`None`: only the caller writes the result, at the end).
    pub result_dir: Option<ResultDir>,
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
            "client_threads": self.client_threads_used(),
        }) else {
            unreachable!("an object literal")
        };
        map
    }
}

/// Runs `plan` with `workload` as a study and returns the result document (also when Ctrl-C cut the
/// run short: then `interrupted` is set). `config` holds the workload's own settings; the plan's are
/// added to it. A power log that cannot be read at the end is warned about, and the result has no
/// power figures: the run is never thrown away for it.
///
/// # Errors
/// None today; the signature leaves room for a study that cannot start.
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
    config.extend(plan.config());
    let mut context = result::Context {
        workload: W::REPORT,
        server,
        config: serde_json::Value::Object(config),
        started_at,
        plan: plan.clone(),
        system_cost_usd: opts.system_cost_usd,
        power_log: None,
        idle_window_s,
    };
    let targets = workload.targets().to_vec();
    let mut checkpoint = Checkpoint { context: &context, targets, steps: Vec::new(), timeseries: Vec::new() };
    let mut progress = progress;
    let measured = drive(workload, plan, |p| {
        if let Some(dir) = &opts.result_dir {
            checkpoint.record(&p, dir);
        }
        progress(p);
    })
    .await;
    let power_log = match &opts.power_log {
        // A meter's log that cannot be read now costs the power figures, never the run's result.
        Some(path) => match read_power_log(path) {
            Ok(readings) => Some(readings),
            Err(e) => {
                eprintln!("warning: {e}: the result has no power figures");
                None
            }
        },
        // Without a meter's log, the host's own energy counters where it has them.
        None if !measured.energy.is_empty() => {
            idle_energy.extend(measured.energy.iter().cloned());
            Some(oltpgen_report::power::from_energy(&idle_energy, &measured.energy_max_uj))
        }
        None => None,
    };
    context.power_log = power_log;
    Ok(result::build(context, measured))
}

/// The meter's readings in `path`, or one line saying why there are none.
fn read_power_log(path: &std::path::Path) -> Result<Vec<oltpgen_report::power::Reading>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--power-log: cannot read {}: {e}", path.display()))?;
    oltpgen_report::power::parse(&text).map_err(|e| format!("--power-log {}: {e}", path.display()))
}

/// The result as judged so far, written after every judged step.
struct Checkpoint<'a> {
    context: &'a result::Context,
    targets: Vec<String>,
    steps: Vec<Step>,
    timeseries: Vec<IntervalRow>,
}

impl Checkpoint<'_> {
    /// Takes in what `p` reports; after a judged step, writes the result so far into `dir` (a write
    /// that fails is said once on stderr: the run goes on, and its end writes the result again).
    fn record(&mut self, p: &Progress<'_>, dir: &ResultDir) {
        match p {
            Progress::Interval(f) => self.timeseries.extend(f.rows.iter().cloned()),
            Progress::Step(s) => {
                self.steps.push((*s).clone());
                let doc = result::document(
                    self.context,
                    self.steps.clone(),
                    self.targets.clone(),
                    self.timeseries.clone(),
                );
                if let Err(e) = write_result(&dir.path(&doc), &doc) {
                    eprintln!(
                        "warning: cannot write the result so far into {}: {e}",
                        dir.path(&doc).display()
                    );
                }
            }
            Progress::Started => {}
        }
    }
}

fn unix_s(t: SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}
