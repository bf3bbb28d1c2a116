//! DS2's output in its driver's terms (ds2xdriver.cs), so that people who read DS2 output, or scripts
//! that parse it, find what they expect:
//! - the progress line ([`progress_line`]): `et=… n_overall=… opm=… rt_tot_lastn_max_msec=…
//!   rt_tot_avg_msec=… rt_tot_sampled=… rollbacks: n=… %=…`, running totals since the statistics were
//!   last reset, then oltpgen's own figures under their own names;
//! - the run's first line ([`header`]);
//! - the line printed as each step is judged ([`step_line`]);
//! - the final report ([`final_report`]): `Final: et=… n_overall=… opm=… rt_tot_avg=…` per step, and
//!   with several databases each one and the variability across them; the detailed view adds every
//!   operation's counts and response-time percentiles.
//!
//! Where a DS2 name is printed it means what DS2 means: `rt_tot` is the sum of an order's operations'
//! response times (a registration counting its last attempt), not the order's time from its intended
//! start, which oltpgen prints beside it as `order_rt_avg` and its default cap judges.
//!
//! The figures of a progress tick are [`crate::model::ds2_progress`]'s; the per-interval rows of
//! `--csv-output` are [`crate::render::csv::ds2`]'s.

use std::fmt::Write as _;
use std::time::Duration;

use crate::model::ds2_progress::Ds2Progress;
use crate::model::histogram::LatencyHistogram;
use crate::model::{Figures, ORDER, RT_TOT, RunResult, Step, TxnStats};
use crate::numfmt::fixed;
use crate::render::text::live::{cap_verdict, steps_and_runs};
use crate::render::text::transactions::transaction_table;
use crate::stats::variability as spread;

/// What the progress line says after the statistics were reset (ds2xdriver.cs prints it when its
/// warmup ends; oltpgen resets at each edge of a measured window).
pub const STATS_RESET: &str = "Stats reset";

/// DS2's whole milliseconds, rounded down as its driver rounds them.
fn msec(ms: f64) -> u64 {
    ms.max(0.0).floor() as u64
}

/// `part` of `whole` in percent (0 when there is no whole).
fn percent(part: u64, whole: u64) -> f64 {
    if whole > 0 { 100.0 * part as f64 / whole as f64 } else { 0.0 }
}

/// The progress line: DS2's own (ds2xdriver.cs: `et=… n_overall=… opm=… rt_tot_lastn_max_msec=…
/// rt_tot_avg_msec=… rt_tot_sampled=… rollbacks: n=… %=…`, totals since the reset), then oltpgen's
/// figures under their own names: users, failed orders, the whole order's mean from its intended start,
/// and the operations' counts since the reset.
pub fn progress_line(p: &Ds2Progress) -> String {
    format!(
        "et={:7.1} n_overall={} opm={} rt_tot_lastn_max_msec={} rt_tot_avg_msec={} rt_tot_sampled={} \
         rollbacks: n={} %={:5.1} users={} errors={} order_rt_avg_msec={} logins={} newcust={} browses={} \
         purchases={}",
        p.et_s,
        p.n_overall,
        p.opm(),
        msec(p.rt_tot_lastn_max_ms),
        msec(p.rt_tot_avg_ms),
        msec(p.interval.rt_tot_avg_ms),
        p.rollbacks,
        percent(p.rollbacks, p.n_overall),
        p.users,
        p.errors,
        msec(p.order_rt_avg_ms),
        p.ops.logins,
        p.ops.new_customers,
        p.ops.browses,
        p.ops.purchases
    )
}

/// The line printed when a DS2 step is judged: OPM and `rt_tot_avg`, the whole order's mean and p95
/// from its intended start, failed orders, the verdict.
pub fn step_line(s: &Step) -> String {
    let f = &s.figures;
    // No order completed: no order means (absent, not 0).
    let order = f.transactions.get(ORDER).filter(|o| o.count > 0);
    let arrivals = s.arrivals.as_ref().map_or_else(String::new, |a| format!("\n  arrivals: {}", a.line()));
    format!(
        "step {} (run {}): {} users  OPM {}  rt_tot_avg {} ms  order avg {} ms  order p95 {} ms  \
         errors {}  cap {}{arrivals}",
        s.index + 1,
        s.run,
        s.users,
        fixed(f.opm, 0),
        fixed(f.rt_tot_avg_ms, 1),
        fixed(order.map(|o| o.avg_ms), 1),
        fixed(order.map(|o| o.p95_ms), 1),
        f.errors,
        cap_verdict(s)
    )
}

/// What a DS2 run's first line says it will do.
pub struct Ds2Header<'a> {
    /// Every database's label (no password), in order.
    pub labels: &'a [String],
    /// Threads per database, for each step of the sweep.
    pub threads: &'a [u64],
    /// Steps of one run: the sweep's.
    pub steps: usize,
    /// How many times the sweep runs (`--runs`).
    pub runs: u32,
    /// `--ramp-rate`, threads per second.
    pub ramp_rate: f64,
    /// `--warmup-time`.
    pub warmup: Duration,
    /// `--run-time` per step; `None` runs until Ctrl-C.
    pub run_time: Option<Duration>,
    /// `--window`, from each step's start: measured instead of `warmup` and `run_time`.
    pub window: Option<(Duration, Duration)>,
    /// `--think-time`, the mean.
    pub think: Duration,
    /// `--pct-newcustomers`.
    pub pct_newcustomers: u32,
    /// The cap, as `--rt-cap` writes it.
    pub cap: &'a str,
}

/// The line a DS2 run starts with.
pub fn header(h: &Ds2Header<'_>) -> String {
    let threads: Vec<String> = h.threads.iter().map(u64::to_string).collect();
    let run_time = h.run_time.map_or("until Ctrl-C".to_string(), secs);
    let measured = match h.window {
        Some((a, b)) => format!("measuring {}..{} of each step", secs(a), secs(b)),
        None => format!("warmup {}, run {run_time} per step", secs(h.warmup)),
    };
    format!(
        "running ds2 on {}: {} thread(s) per database in {}, ramp {}/s, {measured} \
         (think {}, {}% new customers, cap {}; DS2's rt_tot_avg printed beside it)",
        h.labels.join(" + "),
        threads.join(","),
        steps_and_runs(h.steps, h.runs),
        h.ramp_rate,
        secs(h.think),
        h.pct_newcustomers,
        cap_meaning(h.cap)
    )
}

/// Seconds, as the header line shows times.
fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// What a DS2 cap's rules judge, for the run's header: `cap` as `--rt-cap` writes it.
pub fn cap_meaning(cap: &str) -> String {
    let mut parts = Vec::new();
    if cap.split(',').any(|r| r.starts_with("order.")) {
        parts.push("order = a whole order from its intended start to its end, not DS2's rt_tot");
    }
    if cap.split(',').any(|r| r.starts_with("rt_tot.")) {
        parts.push("rt_tot = DS2's sum of an order's operations' times");
    }
    if cap.split(',').any(|r| r.starts_with("avg=") || r.starts_with('p')) {
        parts.push("avg/pNN = every operation");
    }
    format!("{cap}: {}", parts.join("; "))
}

/// The browse operations, reported together as DS2's `n_browse_overall`.
const BROWSES: [&str; 3] = ["browse_category", "browse_actor", "browse_title"];

/// The final report of a DS2 result (empty for other workloads).
pub fn final_report(r: &RunResult, detailed: bool) -> String {
    let mut out = String::new();
    // DS2's own report: of the results its driver's figures (`rt_tot`, OPM) are written for.
    if r.descriptor().name != "ds2" {
        return out;
    }
    let w = &mut out;
    // A database DS2's own installer built is driven through its own functions, defects included.
    if let Some(defects) = r.config.get("known_defects").and_then(|d| d.as_str()) {
        let _ = writeln!(w, "implementation: {}; known defects: {defects}", implementation(r));
    }
    for s in &r.steps {
        let _ = writeln!(
            w,
            "Final (step {} run {}): {}",
            s.index + 1,
            s.run,
            final_line(s.duration_s, &s.figures)
        );
        for (label, f) in &s.targets {
            let _ = writeln!(w, "  {label}: {}", final_line(s.duration_s, f));
        }
        if let Some(v) = variability(s) {
            let _ = writeln!(w, "  variability across databases (max - min) / max: OPM {:.1}%", v * 100.0);
        }
        if detailed {
            transaction_table(w, r.descriptor(), &s.figures, "  ");
            for (label, f) in &s.targets {
                let _ = writeln!(w, "  {label}:");
                transaction_table(w, r.descriptor(), f, "  ");
            }
        }
    }
    out
}

/// Which server functions served the run, as its configuration records it.
fn implementation(r: &RunResult) -> String {
    match r.config.get("implementation") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "oltpgen".to_string(),
    }
}

/// OPM's variability across a step's databases, (max − min) / max; `None` with one database.
fn variability(s: &Step) -> Option<f64> {
    let opm: Vec<f64> = s.targets.values().filter_map(|f| f.opm).collect();
    (opm.len() > 1).then(|| spread(&opm)).flatten()
}

/// Mean response time of the named operations together, ms, and how many ran.
fn merged(f: &Figures, names: &[&str]) -> (u64, f64) {
    let mut h = LatencyHistogram::new();
    for t in names.iter().filter_map(|n| f.transactions.get(*n)) {
        h.add(&t.histogram);
    }
    (h.count(), h.mean_us() / 1e3)
}

/// DS2's final line for figures measured over `duration_s`, then oltpgen's own: failed orders and the
/// whole order's mean from its intended start. `rt_tot_max` is the largest `rt_tot` of the step (DS2
/// prints the largest of its last 100 orders). A registration's time spans its renames (DS2 counts
/// only the last attempt in `rt_newcust_avg_msec`; names are drawn over the int4 range, so renames are
/// rare).
fn final_line(duration_s: f64, f: &Figures) -> String {
    let op = |name: &str| merged(f, &[name]);
    let (orders, rollbacks) = f.transactions.get(ORDER).map_or((0, 0), |o: &TxnStats| (o.count, o.rollbacks));
    let max_ms = f.transactions.get(RT_TOT).map_or(0.0, |t| t.max_ms);
    let (login, newcust, browse, purchase) =
        (op("login"), op("new_customer"), merged(f, &BROWSES), op("purchase"));
    let rate = if orders > 0 { 100.0 * rollbacks as f64 / orders as f64 } else { 0.0 };
    format!(
        "et={duration_s:.1} n_overall={orders} opm={:.0} rt_tot_max={:.0} rt_tot_avg={:.0} n_login_overall={} \
         n_newcust_overall={} n_browse_overall={} n_purchase_overall={} rt_login_avg_msec={:.0} \
         rt_newcust_avg_msec={:.0} rt_browse_avg_msec={:.0} rt_purchase_avg_msec={:.0} n_rollbacks_overall={rollbacks} \
         rollback_rate = {rate:.1}% errors={} order_rt_avg={:.0}",
        f.opm.unwrap_or(0.0),
        max_ms,
        f.rt_tot_avg_ms.unwrap_or(0.0),
        login.0,
        newcust.0,
        browse.0,
        purchase.0,
        login.1,
        newcust.1,
        browse.1,
        purchase.1,
        f.errors,
        f.order_rt_avg_ms.unwrap_or(0.0)
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::{ds2_progress, result, whole_lines};
    use crate::model::Workload;
    use crate::model::step::tests::txn;
    use crate::model::step::{StepPlan, Transactions};

    /// `orders` orders, each timed `order_us` from its intended start and 11.4 ms by DS2's sum.
    fn ds2(orders: u64, rollbacks: u64, order_us: u64) -> Transactions {
        Transactions::from([
            ("login".into(), txn(orders * 4 / 5, 2_000, 0)),
            ("new_customer".into(), txn(orders / 5, 4_000, 0)),
            ("browse_category".into(), txn(orders, 1_000, 0)),
            ("browse_title".into(), txn(orders, 3_000, 0)),
            ("purchase".into(), txn(orders, 6_000, rollbacks)),
            (ORDER.into(), txn(orders, order_us, rollbacks)),
            (RT_TOT.into(), txn(orders, 11_400, rollbacks)),
        ])
    }

    fn step(per_target: BTreeMap<String, Transactions>) -> Step {
        let plan = StepPlan { run: 1, users: 64, connections: 64, duration_s: 60.0, ..StepPlan::default() };
        Step::new(Workload::Ds2, plan, per_target)
    }

    #[test]
    fn the_header_says_what_the_run_does() {
        let labels = ["pg1".to_string(), "pg2".to_string()];
        let mut h = Ds2Header {
            labels: &labels,
            threads: &[4, 8],
            steps: 2,
            runs: 1,
            ramp_rate: 10.0,
            warmup: Duration::from_secs(60),
            run_time: Some(Duration::from_secs(90)),
            window: None,
            think: Duration::ZERO,
            pct_newcustomers: 20,
            cap: "order.avg=1s",
        };
        insta::assert_snapshot!(header(&h), @"running ds2 on pg1 + pg2: 4,8 thread(s) per database in 2 steps, ramp 10/s, warmup 60 s, run 90 s per step (think 0 s, 20% new customers, cap order.avg=1s: order = a whole order from its intended start to its end, not DS2's rt_tot; DS2's rt_tot_avg printed beside it)");
        h.run_time = None;
        assert!(header(&h).contains(", run until Ctrl-C per step "), "{}", header(&h));
        insta::assert_snapshot!(header(&h), @"running ds2 on pg1 + pg2: 4,8 thread(s) per database in 2 steps, ramp 10/s, warmup 60 s, run until Ctrl-C per step (think 0 s, 20% new customers, cap order.avg=1s: order = a whole order from its intended start to its end, not DS2's rt_tot; DS2's rt_tot_avg printed beside it)");
        h.window = Some((Duration::from_secs(100), Duration::from_secs(120)));
        assert!(
            header(&h).contains(", ramp 10/s, measuring 100 s..120 s of each step (think"),
            "{}",
            header(&h)
        );
        insta::assert_snapshot!(header(&h), @"running ds2 on pg1 + pg2: 4,8 thread(s) per database in 2 steps, ramp 10/s, measuring 100 s..120 s of each step (think 0 s, 20% new customers, cap order.avg=1s: order = a whole order from its intended start to its end, not DS2's rt_tot; DS2's rt_tot_avg printed beside it)");
        // Issue 39: one step run three times is one step, and three runs.
        (h.threads, h.steps, h.runs) = (&[16], 1, 3);
        assert!(header(&h).contains(": 16 thread(s) per database in 1 step, 3 runs, ramp"), "{}", header(&h));
    }

    #[test]
    fn the_final_line_speaks_ds2() {
        let mut r = result(Workload::Ds2, vec![step(BTreeMap::from([("db".into(), ds2(1000, 10, 15_000))]))]);
        let text = final_report(&r, false);
        assert!(text.starts_with("Final (step 1 run 1): et=60.0 n_overall=1000 opm=1000 "), "{text}");
        for needle in [
            "rt_tot_max=11 rt_tot_avg=11 ",
            "errors=0 order_rt_avg=15\n",
            "n_login_overall=800 ",
            "n_newcust_overall=200 ",
            "n_browse_overall=2000 ",
            "n_purchase_overall=1000 ",
            "rt_browse_avg_msec=2 ",
            "n_rollbacks_overall=10 rollback_rate = 1.0%",
        ] {
            assert!(text.contains(needle), "{needle} in {text}");
        }
        assert!(!text.contains("variability"), "one database");
        assert!(
            final_report(&r, true).contains("  purchase              1000        10"),
            "{}",
            final_report(&r, true)
        );
        assert!(!text.contains("known defects"), "oltpgen's own functions: {text}");
        insta::assert_snapshot!("final_report_of_one_database", whole_lines(text.clone()));
        insta::assert_snapshot!("final_report_of_one_database_detailed", whole_lines(final_report(&r, true)));
        r.config =
            serde_json::json!({"implementation": "ds2-reference", "known_defects": "title searches actors"});
        assert!(
            final_report(&r, false).starts_with(
                "implementation: ds2-reference; known defects: title searches actors\nFinal (step 1 "
            ),
            "{}",
            final_report(&r, false)
        );
        r.workload = Workload::Tpcc.into();
        assert_eq!(final_report(&r, true), "");
    }

    #[test]
    fn the_progress_line_is_ds2s_then_ours() {
        insta::assert_snapshot!(progress_line(&ds2_progress()), @"et=   15.0 n_overall=1234 opm=4949 rt_tot_lastn_max_msec=40 rt_tot_avg_msec=12 rt_tot_sampled=11 rollbacks: n=13 %=  1.1 users=16 errors=1 order_rt_avg_msec=13 logins=990 newcust=244 browses=3702 purchases=1234");
        let fresh = Ds2Progress::default();
        assert_eq!(fresh.opm(), 0, "nothing since the reset divides by nothing");
        assert!(progress_line(&fresh).contains("rollbacks: n=0 %=  0.0 "), "{}", progress_line(&fresh));
        insta::assert_snapshot!(progress_line(&fresh), @"et=    0.0 n_overall=0 opm=0 rt_tot_lastn_max_msec=0 rt_tot_avg_msec=0 rt_tot_sampled=0 rollbacks: n=0 %=  0.0 users=0 errors=0 order_rt_avg_msec=0 logins=0 newcust=0 browses=0 purchases=0");
        insta::assert_snapshot!(STATS_RESET, @"Stats reset");
    }

    #[test]
    fn a_judged_step_speaks_opm_and_rt_tot_avg() {
        let mut s = step(BTreeMap::from([("db".into(), ds2(600, 0, 20_000))]));
        // No cap was set.
        insta::assert_snapshot!(step_line(&s), @"step 1 (run 1): 64 users  OPM 600  rt_tot_avg 11.4 ms  order avg 20.0 ms  order p95 20.0 ms  errors 0  cap -");
        let mut verdict = crate::stats::cap::Cap::default_for(Workload::Ds2).evaluate(&s.figures);
        verdict.invalidate("the run was stopped during the step".into());
        s.cap = Some(verdict);
        assert!(
            step_line(&s).ends_with("cap INVALID (not measured: the run was stopped during the step)"),
            "as TPC-C's live line says it: {}",
            step_line(&s)
        );
        insta::assert_snapshot!(step_line(&s), @"step 1 (run 1): 64 users  OPM 600  rt_tot_avg 11.4 ms  order avg 20.0 ms  order p95 20.0 ms  errors 0  cap INVALID (not measured: the run was stopped during the step)");
        insta::assert_snapshot!(cap_meaning("order.avg=1s"), @"order.avg=1s: order = a whole order from its intended start to its end, not DS2's rt_tot");
        assert!(
            cap_meaning("rt_tot.avg=1s,p95=2s")
                .ends_with("sum of an order's operations' times; avg/pNN = every operation")
        );
        insta::assert_snapshot!(cap_meaning("rt_tot.avg=1s,p95=2s"), @"rt_tot.avg=1s,p95=2s: rt_tot = DS2's sum of an order's operations' times; avg/pNN = every operation");
    }

    #[test]
    fn several_databases_each_get_a_line_and_their_variability() {
        // Study 3's first scenario: 5,567 / 6,055 / 4,823 / 4,291 OPM vary by 29.1%.
        let targets = [5_567, 6_055, 4_823, 4_291]
            .into_iter()
            .enumerate()
            .map(|(i, opm)| (format!("vm{}", i + 1), ds2(opm, 0, 10_000)))
            .collect();
        let r = result(Workload::Ds2, vec![step(targets)]);
        let text = final_report(&r, false);
        assert!(text.contains("  vm2: et=60.0 n_overall=6055 opm=6055 "), "{text}");
        assert!(text.contains("n_overall=20736 opm=20736"), "the total: {text}");
        assert!(text.contains("variability across databases (max - min) / max: OPM 29.1%"), "{text}");
        insta::assert_snapshot!("final_report_of_four_databases", whole_lines(text));
        insta::assert_snapshot!(
            "final_report_of_four_databases_detailed",
            whole_lines(final_report(&r, true))
        );
    }
}
