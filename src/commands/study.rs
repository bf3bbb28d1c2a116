//! What every workload's run command shares: the plan built from the study's flags, the line printed
//! when a step is judged, and the end: the result directory written, the step table printed, Ctrl-C
//! reported.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use oltpgen_driver::Error;
use oltpgen_driver::run::{Ramp, RunPlan, StepSpec, StudyOptions, Timing};
use oltpgen_report::cap::Cap;
use oltpgen_report::model::{RunResult, Step, Workload};
use oltpgen_report::output::ResultDir;

use crate::cli::StudyArgs;

/// How users start and how long each step lasts: the workload's own flags.
#[derive(Clone, Copy)]
pub struct Pace {
    /// How users start.
    pub ramp: Ramp,
    /// Unmeasured time after a step's users started.
    pub warmup: Duration,
    /// Measured time per step.
    pub duration: Duration,
    /// The live line's period.
    pub report_interval: Duration,
}

/// The cap `workload`'s steps are judged by: `--rt-cap`, or the workload's default. Checked before
/// anything starts.
///
/// # Errors
/// A usage error for a rule naming a transaction the workload does not run.
pub fn cap(workload: Workload, study: &StudyArgs) -> Result<Cap, Error> {
    let cap = study.rt_cap.clone().unwrap_or_else(|| Cap::default_for(workload));
    cap.validate(workload).map_err(|e| Error::usage(format!("--rt-cap: {e}")))?;
    Ok(cap)
}

/// The run plan: every user count of the sweep (`counts`, from the flag named `flag`), `--runs` times
/// each, judged by `cap`.
pub fn plan(
    cap: Cap,
    study: &StudyArgs,
    counts: &[u64],
    flag: &str,
    connections: Option<u32>,
    pace: Pace,
) -> Result<RunPlan, Error> {
    let steps = steps(counts, study.runs, flag)?;
    let timing =
        Timing { ramp: pace.ramp, warmup: pace.warmup, duration: pace.duration, window: study.window };
    check_window(&timing, &steps)?;
    Ok(RunPlan {
        steps,
        connections,
        timing,
        report_interval: pace.report_interval,
        cap,
        stop_after_breach: study.stop_after_breach,
    })
}

/// A window measures a step's steady state: it must not start before every user of the step started.
fn check_window(timing: &Timing, steps: &[StepSpec]) -> Result<(), Error> {
    let Some((a, b)) = timing.window else { return Ok(()) };
    match timing.schedule(steps).iter().find(|s| s.window.0 - s.start < s.ramp) {
        Some(s) => Err(Error::usage(format!(
            "--window {}..{} starts before the {} users of step {} have all started (their ramp takes {:.1} s): \
             start it later or ramp faster",
            humantime::format_duration(a),
            humantime::format_duration(b),
            s.spec.users,
            steps.iter().position(|x| *x == s.spec).map_or(1, |i| i + 1),
            s.ramp.as_secs_f64()
        ))),
        None => Ok(()),
    }
}

/// Prints what the user may not expect of `flag`'s value (a range stopping short of its end, more
/// users than the spec has), on stdout before the run, so that stderr keeps to errors.
pub fn notes(flag: &str, notes: &[String]) {
    for note in notes {
        println!("note: {flag} {note}");
    }
}

/// Where the result goes: `--out`, or a directory named from the run's start time.
fn result_dir(study: &StudyArgs) -> ResultDir {
    study.out.clone().map_or(ResultDir::Dated, ResultDir::Given)
}

/// Checks every path the run writes or reads before anything starts: the result's directory (which
/// must not hold a result unless `--replace`), `--power-log`, and `files` the workload writes (flag,
/// path), so that no run is thrown away at its end for a path that was wrong from the start.
///
/// # Errors
/// A usage error naming the flag and the path at fault.
pub fn check_paths(study: &StudyArgs, files: &[(&str, &Path)]) -> Result<(), Error> {
    result_dir(study).check(study.replace).map_err(|e| Error::usage(format!("--out: {e}")))?;
    if let Some(log) = &study.power_log {
        std::fs::File::open(log)
            .and_then(|f| f.metadata())
            .and_then(|m| if m.is_file() { Ok(()) } else { Err(std::io::Error::other("not a file")) })
            .map_err(|e| Error::usage(format!("--power-log: cannot read {}: {e}", log.display())))?;
    }
    for (flag, file) in files {
        let parent = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if file.is_dir() {
            return Err(Error::usage(format!("{flag}: {} is a directory, not a file", file.display())));
        }
        if !parent.is_dir() {
            return Err(Error::usage(format!("{flag}: {} does not exist", parent.display())));
        }
    }
    Ok(())
}

/// Cost, power and the result's directory, as the study's flags ask.
pub fn options(study: &StudyArgs) -> StudyOptions {
    StudyOptions {
        system_cost_usd: study.system_cost,
        power_log: study.power_log.clone(),
        idle_sample: study.idle_sample,
        result_dir: Some(result_dir(study)),
    }
}

/// The steps of a sweep: every user count `runs` times; counts must not decrease, as users carry over.
fn steps(counts: &[u64], runs: u32, flag: &str) -> Result<Vec<StepSpec>, Error> {
    if let Some(w) = counts.windows(2).find(|w| w[1] < w[0]) {
        return Err(Error::usage(format!(
            "{flag} steps must not decrease (users carry over from step to step): {} comes after {}",
            w[1], w[0]
        )));
    }
    let mut steps = Vec::with_capacity(counts.len() * runs as usize);
    for &c in counts {
        let users =
            u32::try_from(c).map_err(|_| Error::usage(format!("{flag} {c} is more than oltpgen can run")))?;
        steps.extend((1..=runs).map(|run| StepSpec { users, run }));
    }
    Ok(steps)
}

/// The line printed when a step's window closes and it is judged.
pub fn step_line(s: &Step, unit: &str) -> String {
    format!(
        "step {} (run {}): {} users  TPS {:.1}  {unit} {:.0}  avg {:.1} ms  p95 {:.1} ms  errors {}  cap {}{}",
        s.index + 1,
        s.run,
        s.users,
        s.figures.tps,
        s.figures.per_minute().unwrap_or(0.0),
        s.figures.rt_avg_ms,
        s.figures.rt_p95_ms,
        s.figures.errors,
        match oltpgen_report::show::verdict(s) {
            "PASS" => "pass",
            other => other,
        },
        s.cap
            .as_ref()
            .and_then(|c| c.invalid.as_ref())
            .map_or(String::new(), |why| format!(" (not measured: {why})"))
    )
}

/// Writes `result` into the study's `--out` (or `results/<UTC start time>-<workload>`), prints the step table
/// and the client's CPU, then `extra` (the workload's own final lines). A run Ctrl-C cut short exits 130
/// unless `until_stopped` (a run asked to go on until Ctrl-C ends that way as it should).
pub fn finish(
    result: &RunResult,
    study: &StudyArgs,
    extra: &str,
    until_stopped: bool,
) -> Result<ExitCode, Error> {
    let out = result_dir(study).path(result);
    oltpgen_report::output::write_dir(&out, result)
        .map_err(|e| Error::failed(format!("cannot write the result into {}: {e}", out.display())))?;
    print!("{}{extra}", oltpgen_report::show::render(result));
    let c = &result.client;
    let per_txn = c.client_cpu_us_per_txn.map_or("n/a".into(), |us| format!("{us:.0} µs"));
    let per_order = c.client_cpu_us_per_order.map_or(String::new(), |us| format!(", {us:.0} µs per order"));
    println!("client CPU {per_txn} per transaction{per_order}; result in {}", out.display());
    if result.interrupted && !until_stopped {
        return Err(Error::Interrupted(format!(
            "the run stopped early; the result of what ran is in {}",
            out.display()
        )));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_only_grow_and_repeat_each_step() {
        let s = steps(&[4, 8], 2, "--users").unwrap();
        assert_eq!(s.iter().map(|s| (s.users, s.run)).collect::<Vec<_>>(), [(4, 1), (4, 2), (8, 1), (8, 2)]);
        let e = steps(&[8, 4], 1, "--n-threads").unwrap_err().to_string();
        assert!(e.contains("--n-threads steps must not decrease"), "{e}");
    }

    #[test]
    fn a_window_must_not_start_before_the_step_s_users_started() {
        let s = |a, b| Timing {
            ramp: Ramp::Rate(1.0),
            warmup: Duration::ZERO,
            duration: Duration::from_secs(60),
            window: Some((Duration::from_secs(a), Duration::from_secs(b))),
        };
        let e = check_window(&s(5, 20), &steps(&[10], 1, "--users").unwrap()).unwrap_err().to_string();
        assert!(e.contains("--window 5s..20s starts before the 10 users of step 1 have all started"), "{e}");
        let e = check_window(&s(9, 20), &steps(&[1, 20], 1, "--users").unwrap()).unwrap_err().to_string();
        assert!(e.contains("the 20 users of step 2"), "{e}");
        check_window(&s(10, 20), &steps(&[10, 11], 1, "--users").unwrap()).unwrap();
    }
}
