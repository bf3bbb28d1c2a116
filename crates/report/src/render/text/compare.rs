//! `report compare`'s text ([`render`]): the warnings, the caps when they differ, the headline with its
//! change (and Welch's test over the runs, when both repeated the plan), the caveats (one run a side,
//! the two run differently), the per-watt and cost lines,
//! then one table per step both results ran, a row per figure and per quoted counter. The figures are
//! [`crate::stats::compare`]'s.

use std::fmt::Write as _;

use crate::model::counters::split_key;
use crate::numfmt::{factor, figure, percent, thousands};
use crate::render::counters::{label, value};
use crate::stats::compare::{Caps, Change, Comparison, StepComparison};

/// The comparison as text: the headline, per-watt and cost lines, then one table per step.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let w = &mut out;
    let unit = c.per_minute_unit;
    for warning in &c.warnings {
        let _ = writeln!(w, "warning: {warning}: the changes are not the systems' alone");
    }
    if let Some(caps) = &c.caps {
        let _ = writeln!(w, "{}", caps_line(caps));
    }
    headline(w, c, unit);
    for caveat in &c.caveats {
        let _ = writeln!(w, "caution: {caveat}");
    }
    for (label, ch, currency) in power_and_cost(c) {
        let _ = writeln!(
            w,
            "{label} {currency}{} → {currency}{}, {} ({})",
            figure(ch.before),
            figure(ch.after),
            factor(ch.ratio),
            percent(ch.percent)
        );
    }
    if let Some(line) = sentence(c) {
        let _ = writeln!(w, "{line}");
    }
    for s in &c.steps {
        step_table(w, s, unit);
    }
    if !c.unmatched_steps.is_empty() {
        let steps: Vec<String> =
            c.unmatched_steps.iter().map(|(r, i)| format!("{r} step {}", i + 1)).collect();
        let _ = writeln!(w, "\nuser loads in only one result, not compared: {}", steps.join(", "));
    }
    if !c.unmatched_counters.is_empty() {
        let keys: Vec<String> = c.unmatched_counters.iter().map(|(r, k)| format!("{r} {k}")).collect();
        let _ = writeln!(w, "\ncounters in only one result, not compared: {}", keys.join(", "));
    }
    out
}

/// The per-watt, watts and cost changes the comparison holds, in the order the reports list them under
/// the headline, each with its label and its currency's sign (text and HTML alike).
pub fn power_and_cost(c: &Comparison) -> Vec<(String, Change, &'static str)> {
    let unit = c.per_minute_unit;
    [
        (format!("{unit} per watt"), c.per_watt, ""),
        ("active watts".to_string(), c.active_w, ""),
        ("idle watts".to_string(), c.idle_w, ""),
        (format!("cost per {}", c.per_second_unit), c.cost_per_tps_usd, "$"),
        (format!("cost per {unit}"), c.cost_per_minute_unit_usd, "$"),
    ]
    .into_iter()
    .filter_map(|(label, change, currency)| change.map(|ch| (label, ch, currency)))
    .collect()
}

/// The change as the studies put it in one sentence, when power was measured: "+91.8% OPM, +184% OPM per
/// watt, 32.5% less active power, 51.1% less idle power" (each figure to three significant digits).
pub fn sentence(c: &Comparison) -> Option<String> {
    let per_watt = c.per_watt?;
    let unit = c.per_minute_unit;
    let signed = |p: f64| format!("{}{}%", if p >= 0.0 { "+" } else { "-" }, figure(p.abs()));
    let watts = |ch: Change, what: &str| {
        let p = ch.percent?;
        Some(format!("{}% {} {what}", figure(p.abs()), if p <= 0.0 { "less" } else { "more" }))
    };
    let mut parts = Vec::new();
    parts.extend(
        c.headline.as_ref().and_then(|h| h.throughput.percent).map(|p| format!("{} {unit}", signed(p))),
    );
    parts.extend(per_watt.percent.map(|p| format!("{} {unit} per watt", signed(p))));
    parts.extend(c.active_w.and_then(|ch| watts(ch, "active power")));
    parts.extend(c.idle_w.and_then(|ch| watts(ch, "idle power")));
    Some(format!("in short: {}", parts.join(", ")))
}

/// The line saying that A and B were judged by different caps, each named.
pub fn caps_line(caps: &Caps) -> String {
    let cap = |c: &Option<String>| c.clone().unwrap_or_else(|| "none".into());
    format!(
        "the caps differ: A {}, B {}: each headline is the best step within its own cap",
        cap(&caps.a),
        cap(&caps.b)
    )
}

/// The headline's line: both results' highest throughput within the cap, the change, the user loads
/// it was reached at (and DS2's `rt_tot_avg`), then Welch's verdict over the runs when both repeated
/// them; or why there is no headline to compare.
fn headline(w: &mut String, c: &Comparison, unit: &str) {
    match &c.headline {
        Some(h) => {
            let rt_tot = h.rt_tot_avg_ms.map_or(String::new(), |ch| {
                format!("; rt_tot_avg {} → {} ms", figure(ch.before), figure(ch.after))
            });
            let _ = writeln!(
                w,
                "max {} within cap {} → {}, {} ({}); at {} → {} users{rt_tot}",
                h.unit,
                figure(h.throughput.before),
                figure(h.throughput.after),
                factor(h.throughput.ratio),
                percent(h.throughput.percent),
                thousands(h.users.before, 0),
                thousands(h.users.after, 0)
            );
            if let Some(sig) = &h.significance {
                let _ = writeln!(w, "over the runs: {}", sig.statement("faster", "slower"));
            }
        }
        None => {
            let _ = writeln!(w, "max {unit} within cap: n/a (not both results have a step within a cap)");
        }
    }
}

/// One matched step's table: a row per figure (and per quoted counter), the first column as wide as
/// its longest label so that no two columns run together, then the t-test's verdict when there are runs.
fn step_table(w: &mut String, s: &StepComparison, unit: &str) {
    type Row = (String, String, String, Option<Change>);
    let mut rows: Vec<Row> =
        vec![("step".into(), (s.index + 1).to_string(), (s.b_index + 1).to_string(), None)];
    let figures = [
        ("TPS", Some(s.tps)),
        (unit, s.per_minute),
        ("rt_tot_avg ms", s.rt_tot_avg_ms),
        ("avg ms", Some(s.rt_avg_ms)),
        ("p95 ms", Some(s.rt_p95_ms)),
    ];
    for (label, ch) in figures {
        if let Some(ch) = ch {
            rows.push((label.into(), figure(ch.before), figure(ch.after), Some(ch)));
        }
    }
    for (key, t) in &s.targets {
        let each = [
            ("TPS", Some(t.tps)),
            (unit, t.per_minute),
            ("avg ms", Some(t.rt_avg_ms)),
            ("p95 ms", Some(t.rt_p95_ms)),
        ];
        for (label, ch) in each.into_iter().filter_map(|(l, ch)| Some((l, ch?))) {
            rows.push((format!("{key} {label}"), figure(ch.before), figure(ch.after), Some(ch)));
        }
    }
    for (key, ch) in &s.counters {
        let name = split_key(key).1;
        let value = |v| value(name, v);
        rows.push((label(key), value(ch.before), value(ch.after), Some(*ch)));
    }
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0).max(13);
    let users = format!("{} users", thousands(s.users.before, 0));
    let _ =
        writeln!(w, "\n{users:<wide$}{:>12}{:>12}{:>9}{:>10}", "a", "b", "b/a", "change", wide = width + 2);
    for (label, before, after, ch) in rows {
        let (f, p) = ch.map_or((String::new(), String::new()), |ch| (factor(ch.ratio), percent(ch.percent)));
        let line = format!("  {label:<width$}{before:>12}{after:>12}{f:>9}{p:>10}");
        let _ = writeln!(w, "{}", line.trim_end());
    }
    if let Some(sig) = &s.significance {
        let _ = writeln!(w, "  over the runs: {}", sig.statement("faster", "slower"));
    }
    if !s.unmatched_targets.is_empty() {
        let keys: Vec<String> = s.unmatched_targets.iter().map(|(r, k)| format!("{r} {k}")).collect();
        let _ = writeln!(w, "  databases in only one result, not compared: {}", keys.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixtures::{
        accelerated, baseline, repeated, result, tpcc_databases_step, tpcc_step, whole_lines,
    };
    use crate::model::{Cost, Power, Workload};
    use crate::stats::cap::Cap;
    use crate::stats::compare::{CompareError, compare};

    #[test]
    fn databases_match_by_key_and_one_in_only_one_result_is_named() {
        let cap = Cap::default();
        let a = result(
            Workload::Tpcc,
            vec![tpcc_databases_step(0, 20, &[("h1:5432/a", 600, 1_000), ("h2:5432/b", 300, 1_000)], &cap)],
        );
        let b = result(
            Workload::Tpcc,
            vec![tpcc_databases_step(0, 20, &[("h1:5432/a", 900, 1_000), ("h3:5432/c", 300, 1_000)], &cap)],
        );
        let c = compare(&a, &b).unwrap();
        let step = &c.steps[0];
        assert_eq!(step.targets.keys().collect::<Vec<_>>(), ["h1:5432/a"]);
        assert_eq!(step.targets["h1:5432/a"].per_minute.unwrap().ratio, Some(1.5));
        assert_eq!(step.unmatched_targets, [('a', "h2:5432/b".to_string()), ('b', "h3:5432/c".to_string())]);
        let text = render(&c);
        assert!(text.contains("\n  h1:5432/a NOPM           600         900    1.50×"), "{text}");
        assert!(
            text.contains("databases in only one result, not compared: a h2:5432/b, b h3:5432/c"),
            "{text}"
        );
    }

    #[test]
    fn repeated_user_loads_match_in_order_and_differences_in_the_load_are_warned() {
        let cap = Cap::default();
        let step = |i, users, n| tpcc_step(i, users, (n, n), 1_000, Some(&cap));
        let mut a = result(Workload::Tpcc, vec![step(0, 8, 600), step(1, 8, 660), step(2, 16, 900)]);
        let mut b = result(Workload::Tpcc, vec![step(0, 8, 700), step(1, 16, 1_200), step(2, 16, 1_300)]);
        a.config = serde_json::json!({"scale": 1, "think_time": "spec", "seed": 1});
        b.config = serde_json::json!({"scale": 2, "think_time": "0", "seed": 2});
        let c = compare(&a, &b).unwrap();
        let pairs: Vec<(u32, u32)> = c.steps.iter().map(|s| (s.index, s.b_index)).collect();
        assert_eq!(pairs, [(0, 0), (2, 1)]);
        assert_eq!(c.unmatched_steps, [('a', 1), ('b', 2)]);
        assert_eq!(c.warnings, ["scale differs: 1 against 2", "think_time differs: \"spec\" against \"0\""]);
        let text = render(&c);
        assert!(
            text.starts_with("warning: scale differs: 1 against 2: the changes are not the systems' alone\n")
        );
        assert!(text.contains("\n16 users"), "{text}");
        assert!(
            text.ends_with("user loads in only one result, not compared: a step 2, b step 3\n"),
            "{text}"
        );
    }

    #[test]
    fn renders_headline_then_a_table_per_step() {
        // Results that ran two steps each, their headlines derived from the steps they hold.
        let mut a = result(Workload::Tpcc, baseline().steps[..2].to_vec());
        let mut b = result(Workload::Tpcc, accelerated().steps[..2].to_vec());
        for r in [&a, &b] {
            let headline = r.max_within_cap.as_ref().expect("a step within the cap");
            assert!(
                r.steps.iter().any(|s| s.index == headline.step_index),
                "the headline is a step it holds"
            );
        }
        a.power = Power::new(None, 400.0, &a.steps[1].figures);
        b.power = Power::new(None, 500.0, &b.steps[1].figures);
        a.cost = Some(Cost::new(10_250.0, Some(&a.steps[1].figures)));
        b.cost = Some(Cost::new(20_700.0, Some(&b.steps[1].figures)));
        insta::assert_snapshot!(whole_lines(render(&compare(&a, &b).unwrap())), @r"
            max NOPM within cap 6,150 → 13,800, 2.24× (+124.4%); at 4,000 → 9,000 users
            caution: A holds one run and B one run: one run cannot show its run-to-run noise, so no difference can be told from it; run each with --runs 3 or more to test one
            NOPM per watt 15.4 → 27.6, 1.80× (+79.5%)
            active watts 400 → 500, 1.25× (+25.0%)
            cost per TPS $50.0 → $45.0, 0.90× (-10.0%)
            cost per NOPM $1.67 → $1.50, 0.90× (-10.0%)
            in short: +124% NOPM, +79.5% NOPM per watt, 25.0% more active power

            4,000 users               a           b      b/a    change
              step                    2           1
              TPS                   205         205    1.00×     +0.0%
              NOPM                6,150       6,150    1.00×     +0.0%
              avg ms                900         100    0.11×    -88.9%
              p95 ms                900         100    0.11×    -88.9%

            user loads in only one result, not compared: a step 1, b step 2
            ");
    }

    #[test]
    fn different_workloads_are_refused() {
        let a = baseline();
        let mut b = accelerated();
        b.workload = Workload::Ds2.into();
        let refused = compare(&a, &b).expect_err("TPC-C against DS2 has no meaning");
        let (a, b) = (Workload::Tpcc.into(), Workload::Ds2.into());
        let (a_unit, b_unit) = ("NOPM".into(), "OPM".into());
        assert_eq!(refused, CompareError::Workloads { a, b, a_unit, b_unit });
        assert_eq!(
            refused.to_string(),
            "A ran tpcc and B ran ds2: their throughputs (NOPM and OPM) count different work, so no change \
             between them means anything; compare results of one workload"
        );
    }

    #[test]
    fn different_caps_are_said_above_the_table() {
        let a = baseline();
        let mut b = accelerated();
        let cap: Cap = "p90=6ms".parse().unwrap();
        for s in &mut b.steps {
            s.cap = Some(cap.evaluate(&s.figures));
        }
        let c = compare(&a, &b).unwrap();
        assert_eq!(c.caps, Some(Caps { a: Some("avg=1s".into()), b: Some("p90=6ms".into()) }));
        let text = render(&c);
        assert!(
            text.starts_with(
                "the caps differ: A avg=1s, B p90=6ms: each headline is the best step within its own cap\n\
                 max NOPM within cap"
            ),
            "{text}"
        );
        assert_eq!(serde_json::to_value(&c).unwrap()["caps"]["b"], "p90=6ms", "and in --json");
        let same = compare(&a, &accelerated()).unwrap();
        assert_eq!(same.caps, None, "the same cap says nothing");
        assert!(!render(&same).contains("caps differ"));
        assert_eq!(serde_json::to_value(&same).unwrap()["caps"], serde_json::Value::Null);
    }

    #[test]
    fn repeated_runs_say_whether_the_change_is_more_than_noise() {
        let a = repeated(16, &[6_000, 6_120, 5_940]);
        let faster = repeated(16, &[6_720, 6_700, 6_760]);
        let c = compare(&a, &faster).unwrap();
        let sig = c.headline.as_ref().and_then(|h| h.significance).expect("three runs each");
        assert!(sig.significant && sig.p_value < 0.01, "{sig:?}");
        assert_eq!(c.steps[0].significance, Some(sig), "the one step is the headline");
        insta::assert_snapshot!(render(&c), @r"
        max NOPM within cap 6,000 → 6,720, 1.12× (+12.0%); at 16 → 16 users
        over the runs: B is 11.7% faster, p < 0.01

        16 users                  a           b      b/a    change
          step                    1           1
          TPS                   200         224    1.12×    +12.0%
          NOPM                6,000       6,720    1.12×    +12.0%
          avg ms               5.00        5.00    1.00×     +0.0%
          p95 ms               5.00        5.00    1.00×     +0.0%
          over the runs: B is 11.7% faster, p < 0.01
        ");
        let noisy = compare(&a, &repeated(16, &[5_400, 6_900, 6_200])).unwrap();
        let text = render(&noisy);
        assert!(text.contains("over the runs: no significant difference (p = "), "{text}");
    }

    #[test]
    fn ds2_compares_by_opm_and_rt_tot_avg_and_counters_per_step() {
        let cap = Cap::default_for(Workload::Ds2);
        let step = |orders, cpu: f64| {
            let mut s = crate::fixtures::ds2_step(0, 32, orders, (400_000, 300_000), Some(&cap));
            s.counters = BTreeMap::from([
                ("db:pg/cpu_pct".to_string(), cpu),
                ("node:http://h:9100/metrics/disk_vda_transfers_per_s".to_string(), 1_200.0),
                ("db:pg/commits_per_s".to_string(), 900.0),
            ]);
            s
        };
        let a = result(Workload::Ds2, vec![step(30_000, 60.0)]);
        let b = result(Workload::Ds2, vec![step(36_000, 75.0)]);
        let c = compare(&a, &b).unwrap();
        assert_eq!(c.headline.as_ref().map(|h| (h.unit, h.throughput.after)), Some(("OPM", 36_000.0)));
        assert_eq!(c.steps[0].counters.len(), 2, "the studies' counters only, not commits/s");
        insta::assert_snapshot!(render(&c), @r"
        max OPM within cap 30,000 → 36,000, 1.20× (+20.0%); at 32 → 32 users; rt_tot_avg 300 → 300 ms
        caution: A holds one run and B one run: one run cannot show its run-to-run noise, so no difference can be told from it; run each with --runs 3 or more to test one

        32 users                                a           b      b/a    change
          step                                  1           1
          TPS                               1,000       1,200    1.20×    +20.0%
          OPM                              30,000      36,000    1.20×    +20.0%
          rt_tot_avg ms                       300         300    1.00×     +0.0%
          avg ms                              150         150    1.00×     +0.0%
          p95 ms                              225         225    1.00×     +0.0%
          db:pg CPU %                        60.0        75.0    1.25×    +25.0%
          node:h:9100 vda transfers/s       1,200       1,200    1.00×     +0.0%
        ");
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["headline"]["unit"], "OPM");
        assert_eq!(json["steps"][0]["counters"]["db:pg/cpu_pct"]["after"], 75.0);
        assert!(c.unmatched_counters.is_empty(), "{:?}", c.unmatched_counters);
    }

    #[test]
    fn counters_in_only_one_result_are_named() {
        let cap = Cap::default_for(Workload::Ds2);
        let step = |db: &str| {
            let mut s = crate::fixtures::ds2_step(0, 32, 30_000, (400_000, 300_000), Some(&cap));
            s.counters =
                BTreeMap::from([(format!("db:{db}/cpu_pct"), 60.0), ("client/cpu_pct".to_string(), 20.0)]);
            s
        };
        let a = result(Workload::Ds2, vec![step("127.0.0.1:46357/ds2")]);
        let b = result(Workload::Ds2, vec![step("127.0.0.1:44539/ds2")]);
        let c = compare(&a, &b).unwrap();
        assert_eq!(
            c.unmatched_counters,
            [
                ('a', "db:127.0.0.1:46357/ds2/cpu_pct".to_string()),
                ('b', "db:127.0.0.1:44539/ds2/cpu_pct".to_string())
            ]
        );
        assert_eq!(c.steps[0].counters.len(), 1, "the client's CPU matches");
        assert!(
            render(&c).ends_with(
                "\ncounters in only one result, not compared: a db:127.0.0.1:46357/ds2/cpu_pct, \
                 b db:127.0.0.1:44539/ds2/cpu_pct\n"
            ),
            "{}",
            render(&c)
        );
    }
}
