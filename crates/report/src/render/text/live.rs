//! The lines a run prints while it goes, as renderers of plain figures so that they are tested here
//! and the CLI only prints them: a run's header ([`TpccHeader`]), the line per interval
//! ([`interval_line`]), the line per judged step ([`step_line`]), the client's cost at the end
//! ([`client_line`]) and a finished load's line ([`load_line`]). DS2's own lines are in [`crate::render::text::ds2`].

use std::fmt::Display;
use std::path::Path;
use std::time::Duration;

use crate::model::descriptor::Work;
use crate::model::{ClientCpu, Step};
use crate::numfmt::fixed;

/// The line printed every report interval (TPC-C's: the per-minute figure is NOPM): seconds since the
/// run began, users running, transactions per second, the per-minute figure, average and 95th
/// percentile response times (ms), failed transactions.
pub fn interval_line(
    elapsed_s: f64,
    users: u64,
    tps: f64,
    per_minute: f64,
    avg_ms: f64,
    p95_ms: f64,
    errors: u64,
) -> String {
    let nopm = format!("  NOPM {per_minute:>8.0}");
    interval_line_with(elapsed_s, users, tps, &nopm, avg_ms, p95_ms, errors)
}

/// The line printed every interval of a workload counted per second (one defined at run time): TPS,
/// with no per-minute figure.
pub fn per_second_interval_line(
    elapsed_s: f64,
    users: u64,
    tps: f64,
    avg_ms: f64,
    p95_ms: f64,
    errors: u64,
) -> String {
    interval_line_with(elapsed_s, users, tps, "", avg_ms, p95_ms, errors)
}

/// An interval's line, `per_minute` (the per-minute figure as it is said, or nothing) after its TPS.
fn interval_line_with(
    elapsed_s: f64,
    users: u64,
    tps: f64,
    per_minute: &str,
    avg_ms: f64,
    p95_ms: f64,
    errors: u64,
) -> String {
    format!(
        "{elapsed_s:>7.0}s  users {users:>7}  TPS {tps:>8.1}{per_minute}  avg {avg_ms:>7.1} ms  \
         p95 {p95_ms:>7.1} ms  errors {errors}"
    )
}

/// The line printed when a step's window closes and it is judged (`unit`: the per-minute figure's name).
pub fn step_line(s: &Step, unit: &str) -> String {
    step_line_with(s, &format!("  {unit} {}", fixed(s.figures.per_minute(), 0)))
}

/// The line printed when a step of a workload counted per second is judged: TPS, no per-minute figure.
pub fn per_second_step_line(s: &Step) -> String {
    step_line_with(s, "")
}

/// A judged step's line, `per_minute` (its per-minute figure as it is said, or nothing) after its TPS.
fn step_line_with(s: &Step, per_minute: &str) -> String {
    let arrivals = s.arrivals.as_ref().map_or_else(String::new, |a| format!("\n  arrivals: {}", a.line()));
    format!(
        "step {} (run {}): {} users  TPS {:.1}{per_minute}  avg {:.1} ms  p95 {:.1} ms  errors {}  cap {}{arrivals}",
        s.index + 1,
        s.run,
        s.users,
        s.figures.tps,
        s.figures.rt_avg_ms,
        s.figures.rt_p95_ms,
        s.figures.errors,
        cap_verdict(s)
    )
}

/// What an interval's line adds for an open loop (`--rate`): its arrivals' lag (99th percentile and
/// longest, ms) and the arrivals dropped; nothing for a closed loop (`None`).
pub fn arrivals_note(lag_ms: Option<(f64, f64)>, dropped: Option<u64>) -> String {
    match (lag_ms, dropped) {
        (None, None) => String::new(),
        (lag, dropped) => {
            let lag = lag.map_or_else(|| "-".into(), |(p99, max)| format!("p99 {p99:.1} max {max:.1} ms"));
            format!("  lag {lag}  dropped {}", dropped.unwrap_or(0))
        }
    }
}

/// A judged step's verdict as the live lines of both workloads print it: `pass`, `FAIL`, or `INVALID`
/// with the reason it was not measured.
pub fn cap_verdict(s: &Step) -> String {
    let word = match crate::render::steps::verdict(s) {
        "PASS" => "pass",
        other => other,
    };
    match s.cap.as_ref().and_then(|c| c.invalid.as_ref()) {
        Some(why) => format!("{word} (not measured: {why})"),
        None => word.to_string(),
    }
}

/// What a TPC-C run's first line says it will do.
pub struct TpccHeader<'a> {
    /// The database, as its label (no password).
    pub target: &'a dyn Display,
    /// The users of each step of the sweep.
    pub users: &'a [u64],
    /// Steps of one run: the sweep's.
    pub steps: usize,
    /// How many times the sweep runs (`--runs`).
    pub runs: u32,
    /// Connections opened at most.
    pub connections: u32,
    /// Unmeasured seconds per step.
    pub warmup_s: f64,
    /// Measured seconds per step.
    pub duration_s: f64,
    /// `--window`, seconds from each step's start: measured instead of `warmup_s` and `duration_s`.
    pub window_s: Option<(f64, f64)>,
    /// Keying time, as `--keying-time` writes it.
    pub keying: &'a dyn Display,
    /// Think time, as `--think-time` writes it.
    pub think: &'a dyn Display,
    /// The cap, as `--rt-cap` writes it.
    pub cap: &'a dyn Display,
}

/// The line between two runs of a study (`--runs`), where the next one starts: its live lines follow
/// under the header the first run printed.
pub fn run_line(run: u32, runs: u32) -> String {
    format!("-- run {run} of {runs} --")
}

/// How much a study runs, as its first line says it: the sweep's `steps`, and its `runs` when more
/// than one (`1 step, 3 runs`): a step run three times is still one step.
pub fn steps_and_runs(steps: usize, runs: u32) -> String {
    let plural = |n: usize, one: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") };
    match runs {
        0 | 1 => plural(steps, "step"),
        n => format!("{}, {}", plural(steps, "step"), plural(n as usize, "run")),
    }
}

/// The line a run of a database workload (`workload`, its name: `tpcc`, a defined one's) starts with.
pub fn run_header(workload: &str, h: &TpccHeader<'_>) -> String {
    let users: Vec<String> = h.users.iter().map(u64::to_string).collect();
    let measured = match h.window_s {
        Some((a, b)) => format!("measuring {a:.0} s..{b:.0} s of each step"),
        None => format!("warmup {:.0} s, measuring {:.0} s per step", h.warmup_s, h.duration_s),
    };
    format!(
        "running {workload} on {}: {} users in {}, up to {} connections, {measured} (keying {}, think {}, \
         cap {})",
        h.target,
        users.join(","),
        steps_and_runs(h.steps, h.runs),
        h.connections,
        h.keying,
        h.think,
        h.cap
    )
}

/// The line a run ends with: the client's own CPU per unit of its work (`work`: a transaction, an I/O),
/// and per order where the workload has orders, so a reader knows the driver was not the bottleneck,
/// and where the result went.
pub fn client_line(c: &ClientCpu, work: &Work, out: &Path) -> String {
    let per_txn = c.client_cpu_us_per_txn.map_or("n/a".into(), |us| format!("{us:.0} µs"));
    let per_order = c.client_cpu_us_per_order.map_or(String::new(), |us| format!(", {us:.0} µs per order"));
    format!("client CPU {per_txn} per {}{per_order}; result in {}", work.one, out.display())
}

/// The line a finished load prints: `what` (e.g. "tpcc scale 10") into `target`, its `rows`, the whole
/// load's time, and its two phases: generating and copying the rows, then keys and ANALYZE.
pub fn load_line(
    what: &str,
    target: &dyn Display,
    rows: u64,
    total: Duration,
    copy: Duration,
    indexes: Duration,
) -> String {
    format!(
        "loaded {what} into {target}: {} rows in {:.1} s ({:.0} rows/s; copy {:.1} s, keys and ANALYZE {:.1} s)",
        rows,
        total.as_secs_f64(),
        rows as f64 / copy.as_secs_f64().max(1e-9),
        copy.as_secs_f64(),
        indexes.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::tpcc_step;
    use crate::model::Workload;
    use crate::stats::cap::Cap;

    #[test]
    fn the_interval_line() {
        insta::assert_snapshot!(interval_line(10.0, 8, 123.45, 3210.4, 12.34, 40.0, 2), @"     10s  users       8  TPS    123.5  NOPM     3210  avg    12.3 ms  p95    40.0 ms  errors 2");
    }

    #[test]
    fn the_line_between_runs() {
        insta::assert_snapshot!(run_line(2, 3), @"-- run 2 of 3 --");
    }

    #[test]
    fn the_step_line_with_its_verdict() {
        let cap = Cap::default();
        let s = tpcc_step(1, 20, (600, 600), 300_000, Some(&cap));
        let line = step_line(&s, "NOPM");
        assert!(line.starts_with("step 2 (run 1): 20 users  TPS "), "{line}");
        assert!(line.ends_with("  cap pass"), "{line}");
        insta::assert_snapshot!(line, @"step 2 (run 1): 20 users  TPS 20.0  NOPM 600  avg 299.9 ms  p95 300.0 ms  errors 0  cap pass");
        let over = tpcc_step(2, 40, (600, 600), 3_000_000, Some(&cap));
        assert!(step_line(&over, "NOPM").ends_with("  cap FAIL"), "{}", step_line(&over, "NOPM"));
        insta::assert_snapshot!(step_line(&over, "NOPM"), @"step 3 (run 1): 40 users  TPS 20.0  NOPM 600  avg 2999.3 ms  p95 3000.3 ms  errors 0  cap FAIL");
        let mut lost = tpcc_step(3, 80, (600, 600), 300_000, Some(&cap));
        lost.figures.connections_lost = 4;
        lost.cap = Some(cap.judge(&lost.figures));
        insta::assert_snapshot!(step_line(&lost, "NOPM"), @"step 4 (run 1): 80 users  TPS 20.0  NOPM 600  avg 299.9 ms  p95 300.0 ms  errors 0  cap INVALID (not measured: the server was unreachable for part of the window (4 transactions lost their connection))");
        insta::assert_snapshot!(step_line(&tpcc_step(0, 8, (60, 60), 2_000, None), "NOPM"), @"step 1 (run 1): 8 users  TPS 2.0  NOPM 60  avg 2.0 ms  p95 2.0 ms  errors 0  cap -");
    }

    #[test]
    fn the_cap_verdict_of_each_kind_of_step() {
        let cap = Cap::default();
        let mut lost = tpcc_step(0, 8, (60, 60), 2_000, Some(&cap));
        lost.figures.connections_lost = 4;
        lost.cap = Some(cap.judge(&lost.figures));
        let verdicts = [
            cap_verdict(&tpcc_step(0, 8, (60, 60), 2_000, Some(&cap))),
            cap_verdict(&tpcc_step(0, 8, (60, 60), 2_000_000, Some(&cap))),
            cap_verdict(&lost),
            cap_verdict(&tpcc_step(0, 8, (60, 60), 2_000, None)),
        ];
        insta::assert_snapshot!(verdicts.join("\n"), @r"
            pass
            FAIL
            INVALID (not measured: the server was unreachable for part of the window (4 transactions lost their connection))
            -
            ");
    }

    #[test]
    fn the_tpcc_header() {
        let mut h = TpccHeader {
            target: &"postgres://u@h:5432/tpcc",
            users: &[4, 8],
            steps: 2,
            runs: 1,
            connections: 8,
            warmup_s: 10.0,
            duration_s: 60.0,
            window_s: None,
            keying: &"spec",
            think: &"0",
            cap: &"avg=1s",
        };
        insta::assert_snapshot!(run_header("tpcc", &h), @"running tpcc on postgres://u@h:5432/tpcc: 4,8 users in 2 steps, up to 8 connections, warmup 10 s, measuring 60 s per step (keying spec, think 0, cap avg=1s)");
        h.window_s = Some((100.0, 120.0));
        insta::assert_snapshot!(run_header("tpcc", &h), @"running tpcc on postgres://u@h:5432/tpcc: 4,8 users in 2 steps, up to 8 connections, measuring 100 s..120 s of each step (keying spec, think 0, cap avg=1s)");
        // Issue 39: a step run three times (`--users 16 --runs 3`) is one step, not three.
        (h.users, h.steps, h.runs) = (&[16], 1, 3);
        assert!(
            run_header("tpcc", &h).contains(": 16 users in 1 step, 3 runs, up to"),
            "{}",
            run_header("tpcc", &h)
        );
    }

    #[test]
    fn steps_and_runs_are_counted_apart() {
        assert_eq!(steps_and_runs(1, 1), "1 step");
        assert_eq!(steps_and_runs(3, 1), "3 steps");
        assert_eq!(steps_and_runs(1, 3), "1 step, 3 runs");
        assert_eq!(steps_and_runs(2, 2), "2 steps, 2 runs");
    }

    #[test]
    fn the_load_line() {
        let s = Duration::from_secs_f64;
        insta::assert_snapshot!(
            load_line("tpcc scale 1", &"postgres://u@h/db", 500_000, s(12.34), s(8.0), s(4.0)),
            @"loaded tpcc scale 1 into postgres://u@h/db: 500000 rows in 12.3 s (62500 rows/s; copy 8.0 s, keys and ANALYZE 4.0 s)"
        );
    }

    #[test]
    fn the_client_line() {
        let mut c = ClientCpu { client_cpu_us_per_txn: Some(41.6), ..ClientCpu::default() };
        insta::assert_snapshot!(client_line(&c, &Workload::Tpcc.descriptor().work, Path::new("results/x")), @"client CPU 42 µs per transaction; result in results/x");
        c.client_cpu_us_per_order = Some(200.2);
        c.client_cpu_us_per_txn = None;
        insta::assert_snapshot!(client_line(&c, &Workload::Ds2.descriptor().work, Path::new("r")), @"client CPU n/a per transaction, 200 µs per order; result in r");
        // `io`'s work is I/Os, not transactions.
        let c = ClientCpu { client_cpu_us_per_txn: Some(16.2), ..ClientCpu::default() };
        insta::assert_snapshot!(client_line(&c, &Workload::Io.descriptor().work, Path::new("r")), @"client CPU 16 µs per I/O; result in r");
    }
}
