//! `oltpgen report show`: what ran (title, target, date, scale or size, pacing, transaction mode, the
//! NOPM/OPM headline with its cap, the client's cost), each step's per-transaction table, the counters
//! the studies quote per step (CPU %, disk transfers/s, ms per transfer, queue length, buffer hit %),
//! with `--audit` every audit check of every step; and last, where a terminal leaves it in sight, the
//! steps as one table — users, TPS and NOPM (DS2: OPM and `rt_tot_avg`), mean and p95 response time,
//! errors, cap verdict — why any step failed its cap or was not measured, each step's audit in one
//! line, and the headline.
//!
//! [`report`] is all of it; [`render`] the one-screen view of a user-load sweep — how throughput and
//! response time moved as users grew, where the cap cut in, what the audit flagged — that ends a run
//! and opens [`crate::render::text::summary`]. The table's cells are [`crate::render::steps`]'.

use std::fmt::Write as _;

use crate::model::RunResult;
use crate::model::counters::{split_key, step_keys};
use crate::numfmt::thousands;
use crate::render::counters::{label, value};
use crate::render::describe;
use crate::render::steps::{failure, headline, per_target, step_columns, table_rows, verdict};
use crate::render::text::audit::{self, FULL_AUDIT};
use crate::render::text::transactions::transaction_table;

/// How much of each step's audit `report show` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditView<'a> {
    /// A line per step, and the command that prints the rest for the result at `result`.
    Lines {
        /// The result's path as the user gave it, for the command to name.
        result: &'a str,
    },
    /// Every check of every step (`--audit`), before the step table.
    Full,
}

/// What ran (title, target, date, scale or size, pacing, mode, client threads), each step's
/// per-transaction table, the counters the studies quote per step, the audit as `audit` asks, and
/// last the step table with its failures, each step's audit line and the headline.
pub fn report(r: &RunResult, audit: AuditView) -> String {
    let mut out = header(r);
    for s in &r.steps {
        let _ = writeln!(
            out,
            "step {} run {} ({} users){}",
            s.index + 1,
            s.run,
            thousands(s.users as f64, 0),
            match verdict(s) {
                "FAIL" => ", over the cap",
                "INVALID" => ", not measured as it should have been",
                _ => "",
            }
        );
        if let Some(a) = &s.arrivals {
            let _ = writeln!(out, "  arrivals: {}", a.line());
        }
        transaction_table(&mut out, r.descriptor(), &s.figures, "  ");
        out.push('\n');
    }
    out.push_str(&counters(r));
    let full_audit_at = match audit {
        AuditView::Lines { result } => Some(result),
        AuditView::Full => {
            out.push_str(&full_audit(r));
            None
        }
    };
    out.push_str(&steps_view(r, full_audit_at));
    out
}

/// Every audited step's checks, then the notes they share, once; nothing when no step has an audit.
pub(crate) fn full_audit(r: &RunResult) -> String {
    let mut out = String::new();
    for s in &r.steps {
        out.push_str(&audit::render_all(s));
    }
    let notes = audit::notes(r);
    if !notes.is_empty() {
        out.push_str(&notes);
        out.push('\n');
    }
    out
}

/// The lines saying what ran.
fn header(r: &RunResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", describe::title(r));
    let _ = writeln!(out, "target {}; started {}", r.targets.join(", "), r.started_at);
    let mut facts: Vec<String> = describe::size(r).into_iter().collect();
    facts.extend(describe::pacing(r).map(|p| format!("pacing: {p}")));
    facts.extend(describe::mode(r).map(|m| format!("transactions {m}")));
    facts.extend(
        r.config.get("client_threads").and_then(|t| t.as_u64()).map(|t| format!("{t} client threads")),
    );
    if !facts.is_empty() {
        let _ = writeln!(out, "{}", facts.join("; "));
    }
    let _ = writeln!(out, "{}", headline(r));
    if let Some(e) = &r.endurance {
        let _ = writeln!(out, "{}", crate::render::text::io::endurance_line(e));
    }
    let _ = writeln!(out, "client: {}", describe::client(r));
    if r.interrupted {
        let _ = writeln!(out, "INTERRUPTED: the figures cover the part of the run that happened");
    }
    out.push('\n');
    out
}

/// The counters the studies quote per step (CPU %, disk transfers/s, ms per transfer, queue length,
/// buffer hit %, watts), a row per counter and a column per step; nothing when no step has any.
pub(crate) fn counters(r: &RunResult) -> String {
    let keys = step_keys(&r.steps);
    if keys.is_empty() {
        return String::new();
    }
    let labels: Vec<String> = keys.iter().map(|k| label(k)).collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0).max(22);
    let mut out = format!("{:<width$}", "counters, step average");
    for s in &r.steps {
        let _ = write!(out, "{:>12}", format!("step {}", s.index + 1));
    }
    out.push('\n');
    for (key, label) in keys.iter().zip(&labels) {
        let name = split_key(key).1;
        let _ = write!(out, "{label:<width$}");
        for s in &r.steps {
            let cell = s.counters.get(key).map_or("-".into(), |v| value(name, *v));
            let _ = write!(out, "{cell:>12}");
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// The step table, a line per step that failed its cap or was not measured, each step's audit in one
/// line (with the command that prints it whole, for the result at `result`), then the headline: the
/// one-screen view that ends a run and a merge.
pub fn render(r: &RunResult, result: &str) -> String {
    steps_view(r, Some(result))
}

/// [`render`]'s lines, the full audit's command naming `full_audit_at` (none when the full audit is
/// printed already).
pub(crate) fn steps_view(r: &RunResult, full_audit_at: Option<&str>) -> String {
    let mut out = String::new();
    let w = &mut out;
    let columns = step_columns(r.descriptor());
    let rows: Vec<[String; 9]> = table_rows(r).into_iter().map(|(cells, _)| cells).collect();
    // A column widens to keep two spaces before its widest cell (a million users, "1,000,000").
    let widths: [usize; 9] =
        std::array::from_fn(|i| rows.iter().map(|c| c[i].chars().count() + 2).fold(columns[i].1, usize::max));
    let row = |cells: [&str; 9]| {
        let mut line = String::new();
        for (width, cell) in widths.iter().zip(&cells).take(8) {
            let _ = write!(line, "{cell:>width$}");
        }
        format!("{line}  {}", cells[8])
    };
    let _ = writeln!(w, "{}", row(columns.map(|(title, _)| title)));
    for cells in &rows {
        let _ = writeln!(w, "{}", row(std::array::from_fn(|i| cells[i].as_str())));
    }
    for s in r.steps.iter().filter(|s| s.cap.as_ref().is_some_and(|v| v.rules.iter().any(|r| !r.passed))) {
        let _ = writeln!(w, "{}", failure(s));
    }
    for (s, why) in r.steps.iter().filter_map(|s| Some((s, s.cap.as_ref()?.invalid.as_ref()?))) {
        let _ = writeln!(w, "step {} run {} not measured: {why}", s.index + 1, s.run);
    }
    for line in r.failover_sentences() {
        let _ = writeln!(w, "{line}");
    }
    for s in r.steps.iter().filter(|s| s.targets.len() > 1) {
        let _ = writeln!(w, "{}", per_target(s, r.descriptor()));
    }
    let lines: Vec<String> = r.steps.iter().filter_map(|s| Some(audit::line(s, s.audit.as_ref()?))).collect();
    for line in &lines {
        let _ = writeln!(w, "{line}");
    }
    if let Some(result) = full_audit_at.filter(|_| !lines.is_empty()) {
        let _ = writeln!(w, "every check of the audit: {FULL_AUDIT} {result}");
    }
    let _ = writeln!(w, "{}", headline(r));
    for line in crate::render::study::lines(r) {
        let _ = writeln!(w, "{line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{ds2_step, result, sweep, tpcc_databases_step, tpcc_step, whole_lines};
    use crate::model::step::Transactions;
    use crate::model::{Step, Workload};
    use crate::stats::audit::{TpccAuditPlan, tpcc};
    use crate::stats::cap::Cap;
    use std::collections::BTreeMap;

    #[test]
    fn a_sweep_shows_every_step_the_failures_and_the_headline() {
        let cap: Cap = "avg=1s,new_order.p90=1s,delivery.p90=5s".parse().unwrap();
        let mut steps: Vec<Step> =
            [(2_000, 3_600, 500_000), (4_000, 6_150, 900_000), (14_000, 6_600, 1_500_000)]
                .into_iter()
                .enumerate()
                .map(|(i, (users, n, latency_us))| tpcc_step(i as u32, users, (n, n), latency_us, Some(&cap)))
                .collect();
        steps[2].figures.errors = 12;
        let r = result(Workload::Tpcc, steps);
        insta::assert_snapshot!(whole_lines(render(&r, "RESULT")), @r"
            step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
               1    1    2,000     120.0     3,600     500.1     500.2       0  FAIL
               2    1    4,000     205.0     6,150     899.8     900.1       0  FAIL
               3    1   14,000     220.0     6,600   1,499.6   1,500.2      12  FAIL
            step 1 run 1 over the cap: delivery.p90=5s (nothing measured)
            step 2 run 1 over the cap: delivery.p90=5s (nothing measured)
            step 3 run 1 over the cap: avg=1s (observed 1,499.6 ms), new_order.p90=1s (observed 1,500.2 ms), delivery.p90=5s (nothing measured)
            max NOPM within cap avg=1s,new_order.p90=1s,delivery.p90=5s: none, no step kept within the cap
            ");
    }

    #[test]
    fn the_end_of_a_run_has_an_audit_line_per_step_and_ends_with_the_headline() {
        let mut r = sweep();
        for s in &mut r.steps {
            // A flat-out run, as the README's first command: no pacing, 10 users per warehouse or not.
            s.audit = Some(tpcc(s, BTreeMap::new(), TpccAuditPlan { paced: false, warehouses: 1 }));
        }
        insta::assert_snapshot!(whole_lines(render(&r, "RESULT")), @r"
            step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
               1    1       10      20.0       600     299.9     300.0       0  PASS
               2    1       20      40.0     1,200     599.8     600.1       0  PASS  ← headline
               3    1       30      80.0     2,400   1,199.6   1,200.1       0  FAIL
            step 3 run 1 over the cap: avg=1s (observed 1,199.6 ms)
            step 1 run 1 audit: FLAG Order-Status share, Delivery share, Stock-Level share, Payments by last name; FLAG keying and think times (expected of a run without keying and think times); too few to judge: New-Order rollbacks, Order-Status by last name, skipped Delivery districts; not applicable at one warehouse: remote order lines, remote Payments
            step 2 run 1 audit: FLAG Order-Status share, Delivery share, Stock-Level share, Payments by last name; FLAG keying and think times, users per warehouse (expected of a run without keying and think times); too few to judge: New-Order rollbacks, Order-Status by last name, skipped Delivery districts; not applicable at one warehouse: remote order lines, remote Payments
            step 3 run 1 audit: FLAG Order-Status share, Delivery share, Stock-Level share, Payments by last name; FLAG keying and think times, users per warehouse (expected of a run without keying and think times); too few to judge: New-Order rollbacks, Order-Status by last name, skipped Delivery districts; not applicable at one warehouse: remote order lines, remote Payments
            every check of the audit: oltpgen report show --audit RESULT
            max NOPM within cap avg=1s: 1,200 at 20 users (step 2), 40.0 TPS, avg 599.8 ms
        ");
    }

    #[test]
    fn several_targets_show_each_ones_throughput_and_the_variability() {
        use crate::model::step::tests::txn;
        let per_target = |n| Transactions::from([("new_order".to_string(), txn(n, 1_000, 0))]);
        let plan = crate::model::step::StepPlan { run: 1, users: 64, duration_s: 60.0, ..Default::default() };
        let step = Step::new(
            Workload::Tpcc,
            plan,
            BTreeMap::from([
                ("ds2_1".to_string(), per_target(6_000)),
                ("ds2_2".to_string(), per_target(4_200)),
            ]),
        );
        let text = render(&result(Workload::Tpcc, vec![step]), "RESULT");
        assert!(
            text.contains("step 1 run 1 per target TPS: ds2_1 100.0, ds2_2 70.0; variability 30.0%"),
            "{text}"
        );
    }

    #[test]
    fn several_databases_show_each_ones_row_and_verdict_under_the_total() {
        let dbs = [("h1:5432/fast", 3_000, 100_000), ("h2:1433/slow", 1_000, 1_500_000)];
        let step = tpcc_databases_step(0, 20, &dbs, &Cap::default());
        let r = result(Workload::Tpcc, vec![step]);
        assert!(r.max_within_cap.is_some(), "the total decides the headline");
        insta::assert_snapshot!(whole_lines(render(&r, "RESULT")), @r"
            step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
               1    1       20      66.7     4,000     449.9   1,500.2       0  PASS  total  ← headline
                            10      50.0     3,000     100.0     100.0       0  PASS  h1:5432/fast
                            10      16.7     1,000   1,499.6   1,500.2       0  FAIL  h2:1433/slow
            step 1 run 1 per target TPS: h1:5432/fast 50.0, h2:1433/slow 16.7; variability 66.7%
            max NOPM within cap avg=1s: 4,000 at 20 users (step 1), 66.7 TPS, avg 449.9 ms
            ");
    }

    #[test]
    fn a_step_not_measured_shows_invalid_and_why() {
        let cap = Cap::default();
        let mut lost = tpcc_step(1, 6_000, (6_600, 6_600), 500_000, Some(&cap));
        lost.figures.connections_lost = 4;
        lost.cap = Some(cap.judge(&lost.figures));
        let r = result(Workload::Tpcc, vec![tpcc_step(0, 4_000, (6_150, 6_150), 900_000, Some(&cap)), lost]);
        insta::assert_snapshot!(whole_lines(render(&r, "RESULT")), @r"
            step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
               1    1    4,000     205.0     6,150     899.8     900.1       0  PASS  ← headline
               2    1    6,000     220.0     6,600     500.1     500.2       0  INVALID
            step 2 run 1 not measured: the server was unreachable for part of the window (4 transactions lost their connection)
            max NOPM within cap avg=1s: 6,150 at 4,000 users (step 1), 205.0 TPS, avg 899.8 ms
            ");
    }

    #[test]
    fn headline_names_the_step_and_its_users() {
        let cap = Cap::default();
        let r = result(
            Workload::Tpcc,
            vec![
                tpcc_step(0, 4_000, (6_150, 6_150), 900_000, Some(&cap)),
                tpcc_step(1, 6_000, (6_600, 6_600), 1_500_000, Some(&cap)),
            ],
        );
        insta::assert_snapshot!(whole_lines(render(&r, "RESULT")), @r"
            step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
               1    1    4,000     205.0     6,150     899.8     900.1       0  PASS  ← headline
               2    1    6,000     220.0     6,600   1,499.6   1,500.2       0  FAIL
            step 2 run 1 over the cap: avg=1s (observed 1,499.6 ms)
            max NOPM within cap avg=1s: 6,150 at 4,000 users (step 1), 205.0 TPS, avg 899.8 ms
            ");
    }

    #[test]
    fn ds2_speaks_opm_and_rt_tot_avg_and_ranks_steps_by_opm() {
        let cap = Cap::default_for(Workload::Ds2);
        // The second step has more orders but its whole orders, waits included, break the cap; DS2's
        // rt_tot_avg alone would have passed it.
        let r = result(
            Workload::Ds2,
            vec![
                ds2_step(0, 100, 30_000, (400_000, 300_000), Some(&cap)),
                ds2_step(1, 200, 36_000, (1_200_000, 800_000), Some(&cap)),
            ],
        );
        insta::assert_snapshot!(whole_lines(render(&r, "RESULT")), @r"
            step  run    users       OPM  rt_tot_avg ms  order avg ms  order p95 ms  errors  cap
               1    1      100    30,000          299.9         400.0         400.1       0  PASS  ← headline
               2    1      200    36,000          800.0       1,199.6       1,200.1       0  FAIL
            step 2 run 1 over the cap: order.avg=1s (observed 1,199.6 ms)
            max OPM within cap order.avg=1s: 30,000 at 100 users (step 1), rt_tot_avg 299.9 ms
            ");
        assert_eq!(r.max_within_cap.as_ref().and_then(|h| h.opm), Some(30_000.0));
    }

    #[test]
    fn without_a_cap_there_is_no_verdict_and_no_headline() {
        let r = result(Workload::Tpcc, vec![tpcc_step(0, 8, (60, 0), 2_000, None)]);
        insta::assert_snapshot!(whole_lines(render(&r, "RESULT")), @r"
            step  run    users       TPS      NOPM    avg ms    p95 ms  errors  cap
               1    1        8       1.0        60       2.0       2.0       0  -
            max NOPM within cap: n/a, no response-time cap was set
            ");
    }

    #[test]
    fn a_million_users_keep_to_their_column() {
        let steps = vec![
            tpcc_step(0, 100_000, (60, 60), 2_000, None),
            tpcc_step(1, 1_000_000, (60, 60), 2_000, None),
        ];
        insta::assert_snapshot!(whole_lines(render(&result(Workload::Tpcc, steps), "RESULT")), @r"
            step  run      users       TPS      NOPM    avg ms    p95 ms  errors  cap
               1    1    100,000       2.0        60       2.0       2.0       0  -
               2    1  1,000,000       2.0        60       2.0       2.0       0  -
            max NOPM within cap: n/a, no response-time cap was set
            ");
    }

    /// The counters the studies quote (and one they do not, left out), for step `i` of a sweep.
    fn counters(i: u32) -> BTreeMap<String, f64> {
        let l = f64::from(i + 1);
        BTreeMap::from([
            ("client/cpu_pct".to_string(), 3.5 * l),
            ("node:http://db1:9100/metrics/cpu_pct".to_string(), 31.0 * l),
            ("node:http://db1:9100/metrics/disk_nvme0n1_transfers_per_s".to_string(), 2_100.0 * l),
            ("node:http://db1:9100/metrics/disk_nvme0n1_ms_per_transfer".to_string(), 0.21 * l),
            ("node:http://db1:9100/metrics/disk_nvme0n1_queue_length".to_string(), 0.7 * l * l),
            ("db:postgres://oltpgen@db1:5432/tpcc/buffer_hit_pct".to_string(), 99.4),
            ("db:postgres://oltpgen@db1:5432/tpcc/commits_per_s".to_string(), 900.0 * l),
        ])
    }

    #[test]
    fn show_says_what_ran_then_the_details_and_ends_with_the_steps_and_the_headline() {
        let cap = Cap::default();
        let mut r = result(
            Workload::Tpcc,
            vec![
                tpcc_step(0, 8, (600, 660), 2_000, Some(&cap)),
                tpcc_step(1, 16, (1_020, 1_100), 3_500, Some(&cap)),
            ],
        );
        r.config = serde_json::json!({
            "scale": 10, "keying_time": "spec", "think_time": "spec", "transactions": "server",
            "client_threads": 2, "window_s": null
        });
        r.server.engine = "postgres".into();
        r.server.version = "15.18 (Debian 15.18-0+deb12u1)".into();
        r.targets = vec!["postgres://oltpgen@db1:5432/tpcc".into()];
        r.client = crate::model::ClientCpu {
            peak_rss_bytes: 48_000_000,
            ..crate::model::ClientCpu::new(1.5, 0.5, 3_380)
        };
        for s in &mut r.steps {
            s.counters = counters(s.index);
            s.audit = Some(tpcc(s, BTreeMap::new(), TpccAuditPlan { paced: true, warehouses: 10 }));
        }
        let text = report(&r, AuditView::Lines { result: "results/sweep" });
        assert!(text.ends_with(&render(&r, "results/sweep")), "{text}");
        insta::assert_snapshot!(whole_lines(text));
        let full = report(&r, AuditView::Full);
        assert!(full.contains(&crate::render::text::audit::render_text(
            &r.steps[1],
            r.steps[1].audit.as_ref().unwrap()
        )));
        assert_eq!(full.matches("Delivery runs inline").count(), 1, "the note once, not per step");
        assert!(!full.contains("every check of the audit"), "the audit is printed: no command to print it");
        assert!(full.ends_with(&format!("\n{}\n", headline(&r))), "the headline last: {full}");
    }

    #[test]
    fn show_flags_an_interrupted_ds2_run_on_two_targets() {
        let cap = Cap::default_for(Workload::Ds2);
        let mut steps = vec![
            ds2_step(0, 16, 30_000, (400_000, 300_000), Some(&cap)),
            ds2_step(1, 32, 33_000, (700_000, 500_000), Some(&cap)),
        ];
        let second = steps[0].figures.transactions.clone();
        steps[0] = Step::new(
            Workload::Ds2,
            steps[0].plan(),
            BTreeMap::from([("ds2a".to_string(), second.clone()), ("ds2b".to_string(), second)]),
        );
        cap.judge_step(&mut steps[0]);
        if let Some(v) = steps[1].cap.as_mut() {
            v.invalidate("the run was stopped during the step".into());
        }
        let mut r = result(Workload::Ds2, steps);
        r.interrupted = true;
        r.config = serde_json::json!({"db_size": "10GB", "think_time_s": 0, "n_threads": 16});
        r.server.engine = "sqlserver".into();
        r.server.version = "16.0".into();
        r.targets = vec!["sqlserver://sa@ds2a:1433/ds2".into(), "sqlserver://sa@ds2b:1433/ds2".into()];
        insta::assert_snapshot!(whole_lines(report(&r, AuditView::Lines { result: "ds2" })));
    }
}
