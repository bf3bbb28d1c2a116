//! The lines `oltpgen io run` prints while it goes, in storage's words: its header ([`header`]), the
//! line per interval ([`interval_line`]) and per judged step ([`step_line`]): I/Os per second, MB/s,
//! and the average and worst latency of reads and of writes apart, as Iometer's study tabled them.

use crate::model::endurance::Endurance;
use crate::model::{IO_READ, IO_WRITE, Step, TxnStats};
use crate::numfmt::thousands;
use crate::stats::io_model::Model;

/// Latency of one kind of I/O in one interval: average and worst, ms (`None` when none completed).
pub type Latency = Option<(f64, f64)>;

/// MB/s (10^6 bytes, as storage's data sheets count them) of `iops` transfers of `block_bytes`.
pub fn mb_per_s(iops: f64, block_bytes: u64) -> f64 {
    iops * block_bytes as f64 / 1e6
}

/// The first line of a run: the access specification, the file, the I/Os in flight per step, how they are
/// issued (`engine`: io_uring or psync), the timing.
pub fn header(
    access: &str,
    file: &str,
    workers: u32,
    outstanding: &[u64],
    engine: &str,
    warmup_s: f64,
    duration_s: f64,
) -> String {
    let each: Vec<String> = outstanding.iter().map(u64::to_string).collect();
    format!(
        "io: {access} on {file}; {workers} worker(s) × {} outstanding ({engine}); ramp {warmup_s:.0} s, measuring \
         {duration_s:.0} s per step",
        each.join(",")
    )
}

fn latency(name: &str, l: Latency) -> String {
    l.map_or(format!("{name} -"), |(avg, max)| format!("{name} avg {avg:.2} max {max:.1} ms"))
}

/// The line printed every report interval: seconds since the start, I/Os in flight, IOPS, MB/s, reads'
/// and writes' latency, failed I/Os.
pub fn interval_line(
    elapsed_s: f64,
    in_flight: u64,
    (iops, mb_s): (f64, f64),
    (read, write): (Latency, Latency),
    errors: u64,
) -> String {
    format!(
        "{elapsed_s:>7.0}s  in flight {in_flight:>4}  IOPS {iops:>9.0}  MB/s {mb_s:>7.1}  {}  {}  errors {errors}",
        latency("read", read),
        latency("write", write)
    )
}

fn kind(name: &str, t: Option<&TxnStats>) -> String {
    t.filter(|t| t.count > 0).map_or(format!("{name} -"), |t| {
        format!("{name} avg {:.2} p99 {:.2} max {:.1} ms", t.avg_ms, t.p99_ms, t.max_ms)
    })
}

/// The line printed when a step is judged: its I/Os in flight, IOPS, MB/s, each kind's average, 99th
/// percentile and worst latency, the cap's verdict.
pub fn step_line(s: &Step, block_bytes: u64) -> String {
    let f = &s.figures;
    format!(
        "step {} (run {}): {} in flight  IOPS {:.0}  MB/s {:.1}  {}  {}  errors {}  cap {}",
        s.index + 1,
        s.run,
        s.users,
        f.tps,
        mb_per_s(f.tps, block_bytes),
        kind("read", f.transactions.get(IO_READ)),
        kind("write", f.transactions.get(IO_WRITE)),
        f.errors,
        super::live::cap_verdict(s)
    )
}

/// The endurance projection in one line: the host's writes a day, the write amplification, the rating
/// and the years it lasts.
pub fn endurance_line(e: &Endurance) -> String {
    // A life under a year reads in days: "0.0 years" would say nothing.
    let life = if e.years < 1.0 {
        format!("about {} days", thousands(e.years * 365.0, 0))
    } else {
        format!("about {:.1} years", e.years)
    };
    format!(
        "endurance: {} GB written a day at the headline's rate, × write amplification {} against {} TB rated: \
         {life}",
        thousands(e.host_write_bytes_per_day / 1e9, 0),
        e.write_amplification,
        thousands(e.rated_bytes / 1e12, 0),
    )
}

/// `io model`'s lines: what was captured, the assumption the counters cannot settle, and the command
/// that replays the model.
pub fn model_lines(c: &Model, command: &str) -> String {
    let ms = c.ms_per_transfer.map_or(String::new(), |ms| format!(", {ms:.2} ms per transfer"));
    format!(
        "model of {} ({}) over step {}: {} transfers/s of {} bytes, {:.0}% reads, queue length {:.1}{ms}\n\
         randomness is not in the kernel's counters: assumed 100% random, as Iometer's study did\n\
         {command}\n",
        c.device,
        c.source,
        c.step,
        thousands(c.iops, 0),
        thousands(c.bytes_per_transfer, 0),
        c.read_pct,
        c.queue_length
    )
}

/// `io run --validate`'s verdict: what pacing cannot force, captured beside replayed: the rate, the
/// latency per transfer and the queue length (the replay's from Little's law: IOPS × mean latency).
pub fn validate_line(iops: (f64, f64), ms: (Option<f64>, f64), queue: (f64, f64)) -> String {
    let captured_ms = ms.0.map_or("-".to_string(), |m| format!("{m:.2}"));
    format!(
        "validate, captured → replayed: IOPS {} → {}; ms per transfer {captured_ms} → {:.2}; queue length {:.1} → \
         {:.1}\n",
        thousands(iops.0, 0),
        thousands(iops.1, 0),
        ms.1,
        queue.0,
        queue.1
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::Workload;
    use crate::model::step::tests::txn;
    use crate::model::step::{StepPlan, Transactions};

    #[test]
    fn with_runs_the_headline_gives_the_runs_mean_beside_the_median_run_s() {
        let cap: crate::stats::cap::Cap = "avg=10ms".parse().unwrap();
        let step = |index, run, reads| {
            let t = Transactions::from([("read".into(), txn(reads, 2_000, 0))]);
            let plan = StepPlan { index, run, users: 16, duration_s: 1.0, ..StepPlan::default() };
            let mut s = Step::new(Workload::Io, plan, BTreeMap::from([("f".into(), t)]));
            s.cap = Some(cap.evaluate(&s.figures));
            s
        };
        // Iometer's study: three runs of 16 I/Os in flight, averaged.
        let r = crate::fixtures::result(
            Workload::Io,
            vec![step(0, 1, 1_840), step(1, 2, 1_855), step(2, 3, 1_858)],
        );
        assert_eq!(
            crate::render::steps::headline(&r),
            "max IOPS within cap avg=10ms: 1,858 at 16 I/Os in flight (step 3), avg 2.00 ms; mean of 3 runs 1,851 IOPS"
        );
    }

    #[test]
    fn io_s_cost_is_per_iops() {
        let t = Transactions::from([("read".into(), txn(2_000, 2_000, 0))]);
        let plan = StepPlan { users: 16, duration_s: 1.0, ..StepPlan::default() };
        let mut r = crate::fixtures::result(
            Workload::Io,
            vec![Step::new(Workload::Io, plan, BTreeMap::from([("f".into(), t)]))],
        );
        r.cost = Some(crate::model::Cost::new(100.0, Some(&r.steps[0].figures)));
        assert_eq!(crate::render::study::cost(&r).unwrap(), "cost: $100.00 system, $0.050 per IOPS");
    }

    #[test]
    fn the_endurance_line_reads_as_the_study_s_arithmetic() {
        let e = Endurance::project(1e15, 3.0, 151e9 / 86_400.0).unwrap();
        assert_eq!(
            endurance_line(&e),
            "endurance: 151 GB written a day at the headline's rate, × write amplification 3 against 1,000 TB \
             rated: about 6.0 years"
        );
        let worn = Endurance::project(1e15, 3.0, 37_797e9 / 86_400.0).unwrap();
        assert!(endurance_line(&worn).ends_with("rated: about 9 days"), "{}", endurance_line(&worn));
    }

    #[test]
    fn the_model_says_what_was_captured_what_is_assumed_and_the_command() {
        let c = Model {
            device: "sdb".into(),
            source: "client".into(),
            step: 2,
            iops: 1_855.0,
            bytes_per_transfer: 16_325.0,
            read_pct: 30.0,
            queue_length: 15.6,
            ms_per_transfer: Some(8.1),
        };
        assert_eq!(
            model_lines(&c, "oltpgen io run …"),
            "model of sdb (client) over step 2: 1,855 transfers/s of 16,325 bytes, 30% reads, queue length 15.6, \
             8.10 ms per transfer\nrandomness is not in the kernel's counters: assumed 100% random, as Iometer's \
             study did\noltpgen io run …\n"
        );
    }

    #[test]
    fn validation_puts_the_replay_beside_the_capture() {
        // The study's validation: 1,850 IOPS replayed against 1,855 in production.
        assert_eq!(
            validate_line((1_855.0, 1_850.0), (Some(8.1), 7.95), (15.6, 14.7)),
            "validate, captured → replayed: IOPS 1,855 → 1,850; ms per transfer 8.10 → 7.95; queue length 15.6 → \
             14.7\n"
        );
    }

    #[test]
    fn lines_speak_iops_mb_s_and_each_kind_s_latency() {
        assert_eq!(
            header("16 KiB, 30% read, 100% random", "/d/io.dat", 4, &[1, 4], "io_uring", 120.0, 600.0),
            "io: 16 KiB, 30% read, 100% random on /d/io.dat; 4 worker(s) × 1,4 outstanding (io_uring); ramp 120 \
             s, measuring 600 s per step"
        );
        assert_eq!(
            interval_line(10.0, 16, (1850.0, mb_per_s(1850.0, 16_384)), (Some((6.0, 40.0)), None), 0),
            "     10s  in flight   16  IOPS      1850  MB/s    30.3  read avg 6.00 max 40.0 ms  write -  errors 0"
        );
        let t = Transactions::from([("read".into(), txn(300, 2_000, 0)), ("write".into(), txn(700, 500, 0))]);
        let plan = StepPlan { run: 1, users: 16, duration_s: 10.0, ..StepPlan::default() };
        let step = Step::new(Workload::Io, plan, BTreeMap::from([("f".into(), t)]));
        assert_eq!(
            step_line(&step, 4096),
            "step 1 (run 1): 16 in flight  IOPS 100  MB/s 0.4  read avg 2.00 p99 2.00 max 2.0 ms  write avg 0.50 \
             p99 0.50 max 0.5 ms  errors 0  cap -"
        );
    }
}
