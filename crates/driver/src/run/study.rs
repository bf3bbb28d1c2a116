//! A run as a study: idle power before it, the run, then the result document with the plan's
//! configuration, the server, power and cost. Workload-neutral: each workload adds its own settings to
//! the configuration and hands over its prepared workload.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::files::result_dir::{ResultDir, write_result};
use oltpgen_report::model::{IntervalRow, RunResult, Server, Step};

use super::metrics::{Endpoint, Live};
use super::{Progress, Ramp, RunPlan, Workload, drive, energy_sample, result};
use crate::counters::{self, Sampler, Sources};
use crate::{Error, Target};

/// What a study measures around the run: cost, power, host and database counters, live metrics.
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
    /// `--no-counters`: sample no host or database counters.
    pub no_counters: bool,
    /// `--node-exporter`: node_exporter URLs scraped every interval for the database hosts' counters.
    pub node_exporters: Vec<String>,
    /// `--metrics-listen`: where the live figures are served in Prometheus' text format.
    pub metrics_listen: Option<SocketAddr>,
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

/// A setting the result's configuration records once when every target has the same value, else
/// per target, keyed by `labels` (the targets' keys, in the order of `values`).
pub fn one_or_each<T: Into<serde_json::Value> + PartialEq + Copy>(
    labels: &[String],
    values: &[T],
) -> serde_json::Value {
    match values {
        [first, rest @ ..] if rest.iter().all(|v| v == first) => (*first).into(),
        _ => labels.iter().zip(values).map(|(l, v)| (l.clone(), (*v).into())).collect(),
    }
}

/// Runs `plan` with `workload` as a study and returns the result document (also when Ctrl-C cut the
/// run short: then `interrupted` is set). `config` holds the workload's own settings; the plan's are
/// added to it. A power log that cannot be read at the end is warned about, and the result has no
/// power figures: the run is never thrown away for it. Host and database counters (of `targets`, over
/// connections of their own) are sampled from before the idle sample to the run's end, and the live
/// figures are served while it goes on, as `opts` asks.
///
/// # Errors
/// A usage error when `--metrics-listen`'s address cannot be listened on.
pub async fn study<W: Workload>(
    workload: Arc<W>,
    targets: &[Target],
    plan: &RunPlan,
    opts: &StudyOptions,
    server: Server,
    mut config: serde_json::Map<String, serde_json::Value>,
    progress: impl FnMut(Progress<'_>),
) -> Result<RunResult, Error> {
    let watch = Watch::start(targets, plan, opts).await?;
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
    // On one clock with other agents: the common start, how late this one reached it (refused past
    // the warmup, before any user starts).
    let started_at = match plan.start_at {
        Some(at) => {
            let late = super::agent::lateness(at, plan.timing.warmup)?;
            config.insert("start_at".into(), humantime::format_rfc3339_millis(at).to_string().into());
            config.insert("start_late_ms".into(), (late.as_secs_f64() * 1e3).into());
            at
        }
        None => SystemTime::now(),
    };
    if plan.agent.is_part() {
        config.insert("agent".into(), plan.agent.name().into());
    }
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
    let mut checkpoint = Checkpoint {
        context: &context,
        targets,
        steps: Vec::new(),
        timeseries: Vec::new(),
        sampler: watch.sampler.as_ref(),
    };
    let mut progress = progress;
    let measured = drive(workload, plan, |p| {
        watch.hear(&p);
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
            Some(oltpgen_report::stats::power::from_energy(&idle_energy, &measured.energy_max_uj))
        }
        None => None,
    };
    context.power_log = power_log;
    let mut result = result::build(context, measured);
    watch.finish(&mut result, plan.report_interval.as_secs_f64()).await;
    Ok(result)
}

/// What watches a study besides its users, each on its own task: the counters' sampler and the live
/// metrics' endpoint (served until the study ends).
struct Watch {
    sampler: Option<Sampler>,
    live: Arc<Mutex<Live>>,
    _endpoint: Option<Endpoint>,
}

impl Watch {
    /// Starts sampling what `opts` asks for (this machine and `targets` unless `--no-counters`, every
    /// `--node-exporter`) and listens on `--metrics-listen`.
    async fn start(targets: &[Target], plan: &RunPlan, opts: &StudyOptions) -> Result<Watch, Error> {
        let sources = Sources {
            client: !opts.no_counters,
            targets: if opts.no_counters { Vec::new() } else { targets.to_vec() },
            node_exporters: opts.node_exporters.clone(),
        };
        let sampler =
            if sources.is_empty() { None } else { Some(Sampler::start(sources, plan.report_interval).await) };
        let live = Arc::new(Mutex::new(Live::of(plan.agent)));
        let endpoint = match opts.metrics_listen {
            Some(addr) => {
                Some(Endpoint::listen(addr, live.clone(), sampler.as_ref().map(Sampler::reader)).await?)
            }
            None => None,
        };
        Ok(Watch { sampler, live, _endpoint: endpoint })
    }

    /// Takes in what the run reports: its start (the counters' clock's zero), intervals and steps.
    fn hear(&self, p: &Progress<'_>) {
        let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match p {
            Progress::Started => self.sampler.iter().for_each(Sampler::run_started),
            Progress::Interval(f) => live.interval(f),
            Progress::Step(s) => live.step(s),
        }
    }

    /// Stops sampling and puts the counters into `result` (points `interval_s` apart).
    async fn finish(self, result: &mut RunResult, interval_s: f64) {
        if let Some(sampler) = self.sampler {
            let (series, notes) = sampler.finish().await;
            counters::attach(result, series, notes, interval_s);
        }
    }
}

/// The meter's readings in `path`, or one line saying why there are none.
fn read_power_log(path: &std::path::Path) -> Result<Vec<oltpgen_report::stats::power::Reading>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--power-log: cannot read {}: {e}", path.display()))?;
    oltpgen_report::stats::power::parse(&text).map_err(|e| format!("--power-log {}: {e}", path.display()))
}

/// The result as judged so far, written after every judged step.
struct Checkpoint<'a> {
    context: &'a result::Context,
    targets: Vec<String>,
    steps: Vec<Step>,
    timeseries: Vec<IntervalRow>,
    /// The counters sampled so far, written with every step.
    sampler: Option<&'a Sampler>,
}

impl Checkpoint<'_> {
    /// Takes in what `p` reports; after a judged step, writes the result so far into `dir` (a write
    /// that fails is said once on stderr: the run goes on, and its end writes the result again).
    fn record(&mut self, p: &Progress<'_>, dir: &ResultDir) {
        match p {
            Progress::Interval(f) => self.timeseries.extend(f.rows.iter().cloned()),
            Progress::Step(s) => {
                self.steps.push((*s).clone());
                let mut doc = result::document(
                    self.context,
                    self.steps.clone(),
                    self.targets.clone(),
                    self.timeseries.clone(),
                );
                if let Some(sampler) = self.sampler {
                    let interval_s = self.context.plan.report_interval.as_secs_f64();
                    counters::attach(&mut doc, sampler.series(), sampler.notes(), interval_s);
                }
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
