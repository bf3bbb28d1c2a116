//! The response-time cap: [`Cap`] (parsed from `--rt-cap`), its verdict on a step
//! ([`Cap::evaluate`]), and the study's headline, the highest throughput that kept within it
//! ([`max_within_cap`]).
//!
//! A cap is a comma-joined list of rules, each `[TRANSACTION.]STATISTIC=LIMIT`:
//! - `avg=1s`: the mean response time over all business transactions (the default, after the
//!   Benchmark Factory studies: "the highest TPS whose step kept the average response time at or
//!   under 1 s");
//! - `p90=5s`, `p99.9=800ms`: a percentile of all business transactions together, from the exact
//!   merge of their histograms ([`Figures::overall_histogram`]);
//! - `new_order.p90=5s`, `payment.avg=2s`: one transaction's own histogram;
//! - `p90=tpcc`: TPC-C's five 90th-percentile limits ([`TPCC_P90_LIMITS_MS`]).
//!
//! Limits read `250us`, `800ms`, `1.5s` or `2m`.
//!
//! Judging, so that a reader knows what PASS means:
//! - A step measured *at* its limit passes: observed ≤ limit, and a value the histogram cannot tell
//!   apart from the limit (same bucket, 0.1% resolution) counts as at the limit.
//! - A rule with nothing to judge (no completed transaction of that kind) has no observed value and
//!   **fails**: a headline must not rest on a rule that was never checked.
//!
//! ```
//! use oltpgen_report::stats::cap::Cap;
//! let cap: Cap = "avg=1s,new_order.p90=5s".parse().unwrap();
//! assert_eq!(cap.to_string(), "avg=1s,new_order.p90=5s");
//! assert_eq!("p90=tpcc".parse::<Cap>().unwrap().rules().len(), 5);
//! ```

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::model::descriptor::Descriptor;
use crate::model::histogram::LatencyHistogram;
use crate::model::search::{Judged, best_passing};
use crate::model::{CapVerdict, Figures, Headline, RuleVerdict, Step, Workload};

// The workloads' default caps are their descriptors' words; named here too, where caps are read.
pub use crate::model::descriptor::{DEFAULT_CAP, DS2_DEFAULT_CAP, IO_DEFAULT_CAP};

/// The right-hand side that stands for TPC-C's five limits, as in `p90=tpcc`.
pub const TPCC_PRESET: &str = "tpcc";

/// TPC-C's 90th-percentile response-time limits, in ms (clause 5.2.5.4; the last column of the
/// transaction table in `spec/tpcc.md`). Set by the spec, not knobs.
pub const TPCC_P90_LIMITS_MS: [(&str, u64); 5] = [
    ("new_order", 5_000),
    ("payment", 5_000),
    ("order_status", 5_000),
    ("delivery", 5_000),
    ("stock_level", 20_000),
];

const US_PER_MS: u64 = 1_000;
const US_PER_S: u64 = 1_000_000;
const US_PER_MIN: u64 = 60_000_000;

/// Why a cap could not be parsed or does not fit the workload; each names the rule at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapError {
    /// Nothing was given.
    #[error("no cap rules given: expected e.g. avg=1s, p90=tpcc or new_order.p90=5s")]
    Empty,
    /// A comma with nothing on one side of it.
    #[error("empty rule in `{0}`: separate rules with single commas")]
    EmptyRule(String),
    /// A rule without `=LIMIT`.
    #[error("`{0}` has no limit: write STATISTIC=LIMIT, e.g. avg=1s or new_order.p90=5s")]
    MissingLimit(String),
    /// The statistic is neither `avg` nor `pNN` with 0 < NN ≤ 100.
    #[error("`{statistic}` in `{rule}` is not a statistic: use avg or pNN with 0 < NN <= 100 (p90, p99.9)")]
    UnknownStatistic {
        /// The rule as given.
        rule: String,
        /// The part that is not a statistic.
        statistic: String,
    },
    /// `.p90=5s`: a dot with no transaction name before it.
    #[error("`{0}` has an empty transaction name before the dot")]
    EmptyTransaction(String),
    /// The limit is not a duration.
    #[error("`{duration}` in `{rule}` is not a duration: use e.g. 800ms, 1.5s or 2m")]
    BadDuration {
        /// The rule as given.
        rule: String,
        /// The part that is not a duration.
        duration: String,
    },
    /// A zero limit, which no step can meet.
    #[error("`{0}` has a limit of zero, which no step can meet")]
    ZeroLimit(String),
    /// `tpcc` used anywhere but `p90=tpcc`.
    #[error(
        "`{0}`: `{TPCC_PRESET}` stands for TPC-C's five 90th-percentile limits and is only valid as `p90={TPCC_PRESET}`"
    )]
    MisplacedPreset(String),
    /// `p90=tpcc` given to a workload that does not run TPC-C's transactions.
    #[error(
        "`p90={TPCC_PRESET}` stands for TPC-C's five 90th-percentile limits, and {workload} does not run \
         TPC-C's transactions: give {workload}'s own rules, e.g. {default} (its default)"
    )]
    PresetNotRun {
        /// The workload's name.
        workload: String,
        /// Its default cap.
        default: String,
    },
    /// A per-transaction rule naming a transaction the workload does not have.
    #[error("`{rule}` names `{transaction}`, which this workload does not run; it runs {known}")]
    UnknownTransaction {
        /// The rule, as displayed.
        rule: String,
        /// The unknown name.
        transaction: String,
        /// The workload's transaction names, comma-joined.
        known: String,
    },
}

/// What a rule measures.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Statistic {
    /// The mean response time.
    Avg,
    /// A percentile (0 < p ≤ 100) of the response times.
    Percentile(f64),
}

impl Statistic {
    fn parse(text: &str) -> Option<Self> {
        if text == "avg" {
            return Some(Statistic::Avg);
        }
        let digits = text.strip_prefix('p')?;
        // Digits and a point only: f64's parser would also take `inf`, `1e2` or `-5`.
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return None;
        }
        let p: f64 = digits.parse().ok()?;
        (p > 0.0 && p <= 100.0).then_some(Statistic::Percentile(p))
    }
}

impl fmt::Display for Statistic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Statistic::Avg => f.write_str("avg"),
            Statistic::Percentile(p) => write!(f, "p{p}"),
        }
    }
}

/// One rule of a cap, e.g. `avg=1s` or `new_order.p90=5s`.
///
/// It exists so the driver can judge each step against the study's limits and record, per rule,
/// what was observed. `Display` writes the rule back in `--rt-cap` syntax, and parsing that text
/// gives the same rule, so a [`RuleVerdict::rule`] in a result can be read back (as merging does).
#[derive(Debug, Clone, PartialEq)]
pub struct CapRule {
    /// `None` for all business transactions together.
    transaction: Option<String>,
    statistic: Statistic,
    /// Above zero.
    limit_us: u64,
}

impl CapRule {
    /// Judges `figures` (a step's, or one target's) against this rule.
    pub fn evaluate(&self, figures: &Figures) -> RuleVerdict {
        let observed = self.observe(figures);
        let limit_ms = self.limit_us as f64 / US_PER_MS as f64;
        let passed = observed.as_ref().is_some_and(|(ms, histogram)| {
            *ms <= limit_ms
                || histogram.indistinguishable_us((ms * US_PER_MS as f64).round() as u64, self.limit_us)
        });
        RuleVerdict { rule: self.to_string(), limit_ms, observed_ms: observed.map(|(ms, _)| ms), passed }
    }

    /// The observed value in ms and the histogram it comes from; `None` when nothing was measured.
    fn observe<'f>(&self, figures: &'f Figures) -> Option<(f64, Cow<'f, LatencyHistogram>)> {
        let (histogram, avg_ms) = match &self.transaction {
            None => (Cow::Owned(figures.overall_histogram()), figures.rt_avg_ms),
            Some(name) => {
                let t = figures.transactions.get(name)?;
                (Cow::Borrowed(&t.histogram), t.avg_ms)
            }
        };
        if histogram.is_empty() {
            return None;
        }
        let ms = match self.statistic {
            Statistic::Avg => avg_ms,
            Statistic::Percentile(p) => histogram.percentile_us(p) as f64 / US_PER_MS as f64,
        };
        Some((ms, histogram))
    }
}

impl FromStr for CapRule {
    type Err = CapError;

    /// Parses one rule; the `p90=tpcc` preset stands for five rules and is parsed by [`Cap`].
    ///
    /// # Errors
    /// A [`CapError`] naming the rule.
    fn from_str(rule: &str) -> Result<Self, Self::Err> {
        let rule = rule.trim();
        let (lhs, rhs) = rule.split_once('=').ok_or_else(|| CapError::MissingLimit(rule.to_string()))?;
        let (lhs, rhs) = (lhs.trim(), rhs.trim());
        let (transaction, statistic) = match Statistic::parse(lhs) {
            Some(statistic) => (None, statistic),
            None => {
                let unknown =
                    || CapError::UnknownStatistic { rule: rule.to_string(), statistic: lhs.to_string() };
                let (name, statistic) = lhs.split_once('.').ok_or_else(unknown)?;
                if name.is_empty() {
                    return Err(CapError::EmptyTransaction(rule.to_string()));
                }
                let statistic = Statistic::parse(statistic).ok_or_else(|| CapError::UnknownStatistic {
                    rule: rule.to_string(),
                    statistic: statistic.to_string(),
                })?;
                (Some(name.to_string()), statistic)
            }
        };
        if rhs == TPCC_PRESET {
            return Err(CapError::MisplacedPreset(rule.to_string()));
        }
        let limit_us = parse_duration_us(rhs)
            .ok_or_else(|| CapError::BadDuration { rule: rule.to_string(), duration: rhs.to_string() })?;
        if limit_us == 0 {
            return Err(CapError::ZeroLimit(rule.to_string()));
        }
        Ok(CapRule { transaction, statistic, limit_us })
    }
}

impl fmt::Display for CapRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = &self.transaction {
            write!(f, "{name}.")?;
        }
        write!(f, "{}=", self.statistic)?;
        let us = self.limit_us;
        if us.is_multiple_of(US_PER_MIN) {
            write!(f, "{}m", us / US_PER_MIN)
        } else if us >= US_PER_S && us.is_multiple_of(US_PER_MS) {
            // Whole milliseconds print exactly as decimal seconds: 1.5s, 12.345s.
            write!(f, "{}s", us as f64 / US_PER_S as f64)
        } else if us.is_multiple_of(US_PER_MS) {
            write!(f, "{}ms", us / US_PER_MS)
        } else {
            write!(f, "{us}us")
        }
    }
}

/// `250us`, `800ms`, `1.5s`, `2m` in microseconds (rounded); `None` when not a duration.
fn parse_duration_us(text: &str) -> Option<u64> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let unit_us = match unit {
        "us" | "µs" => 1,
        "ms" => US_PER_MS,
        "s" => US_PER_S,
        "m" => US_PER_MIN,
        _ => return None,
    };
    let value: f64 = number.parse().ok()?;
    let us = (value * unit_us as f64).round();
    // Below 2^63 µs (about 292,000 years) the conversion to u64 is exact.
    (us < 9.2e18).then_some(us as u64)
}

/// Every rule a step must keep; never empty.
///
/// It exists so that "the maximum throughput within the cap" is decided in one place, the same
/// way for every step, and recorded with what each rule observed ([`CapVerdict`]).
#[derive(Debug, Clone)]
pub struct Cap {
    rules: Vec<CapRule>,
    /// Whether `p90=tpcc` was given: its rules are TPC-C's, and a workload that does not run TPC-C's
    /// transactions is told so in those words, not of a rule never typed ([`Cap::validate`]).
    tpcc_preset: bool,
}

impl PartialEq for Cap {
    /// Caps are equal when they judge alike: the same rules, whether `p90=tpcc` or its five rules wrote
    /// them.
    fn eq(&self, other: &Cap) -> bool {
        self.rules == other.rules
    }
}

impl Cap {
    /// The rules, in the order given (`p90=tpcc` expanded in TPC-C's order).
    pub fn rules(&self) -> &[CapRule] {
        &self.rules
    }

    /// Judges a step's (or one target's) figures against every rule.
    pub fn evaluate(&self, figures: &Figures) -> CapVerdict {
        let rules: Vec<RuleVerdict> = self.rules.iter().map(|r| r.evaluate(figures)).collect();
        CapVerdict { passed: rules.iter().all(|r| r.passed), rules, invalid: None }
    }

    /// The verdict on a step (or one target) with `figures`: the rules' verdict, unless it was not
    /// measured as it should have been (see [`not_measured`]: its own lost connections among the reasons).
    pub fn judge(&self, figures: &Figures) -> CapVerdict {
        let mut verdict = self.evaluate(figures);
        if let Some(why) = not_measured(figures) {
            verdict.invalidate(why);
        }
        verdict
    }

    /// Judges `step` ([`judge`](Self::judge)) and, when it drove several targets, each target's figures
    /// alone: the step's verdict (all targets' transactions together) decides the headline, each
    /// target's is shown beside it. Each target's lost connections are its own
    /// ([`Step::count_connections_lost`]), so a database that went away does not pass, and neither does
    /// the step.
    pub fn judge_step(&self, step: &mut Step) {
        step.cap = Some(self.judge(&step.figures));
        step.target_caps = step.targets.iter().map(|(key, f)| (key.clone(), self.judge(f))).collect();
    }

    /// Checks that every per-transaction rule names a transaction `workload` runs, so a misspelt
    /// name is refused before a run instead of failing every step after it.
    ///
    /// # Errors
    /// [`CapError::PresetNotRun`] for `p90=tpcc` on a workload without TPC-C's transactions, else
    /// [`CapError::UnknownTransaction`] for the first rule naming another transaction.
    pub fn validate(&self, workload: &Descriptor) -> Result<(), CapError> {
        if self.tpcc_preset && !TPCC_P90_LIMITS_MS.iter().all(|(name, _)| workload.runs(name)) {
            return Err(CapError::PresetNotRun {
                workload: workload.name.clone(),
                default: workload.default_cap.clone(),
            });
        }
        for rule in &self.rules {
            if let Some(name) = rule.transaction.as_deref().filter(|n| !workload.runs(n)) {
                return Err(CapError::UnknownTransaction {
                    rule: rule.to_string(),
                    transaction: name.to_string(),
                    known: workload.transactions.join(", "),
                });
            }
        }
        Ok(())
    }
}

impl Cap {
    /// The cap `workload` is judged by unless told otherwise, its descriptor's ([`DEFAULT_CAP`],
    /// [`DS2_DEFAULT_CAP`], [`IO_DEFAULT_CAP`]).
    pub fn default_for(workload: Workload) -> Cap {
        Self::default_of(workload.descriptor())
    }

    /// The cap a workload described by `workload` is judged by unless told otherwise: its descriptor's,
    /// or [`DEFAULT_CAP`] when that does not parse (a descriptor written by hand).
    pub fn default_of(workload: &Descriptor) -> Cap {
        workload.default_cap.parse().unwrap_or_default()
    }
}

impl Default for Cap {
    /// [`DEFAULT_CAP`]: the mean response time at or under 1 s.
    fn default() -> Self {
        Cap {
            rules: vec![CapRule { transaction: None, statistic: Statistic::Avg, limit_us: US_PER_S }],
            tpcc_preset: false,
        }
    }
}

impl FromStr for Cap {
    type Err = CapError;

    /// Parses a comma-joined list of rules, expanding `p90=tpcc`.
    ///
    /// # Errors
    /// A [`CapError`] naming the first rule at fault.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err(CapError::Empty);
        }
        let (mut rules, mut tpcc_preset) = (Vec::new(), false);
        for part in spec.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(CapError::EmptyRule(spec.to_string()));
            }
            if part.split_once('=').is_some_and(|(l, r)| l.trim() == "p90" && r.trim() == TPCC_PRESET) {
                tpcc_preset = true;
                rules.extend(TPCC_P90_LIMITS_MS.iter().map(|&(name, limit_ms)| CapRule {
                    transaction: Some(name.to_string()),
                    statistic: Statistic::Percentile(90.0),
                    limit_us: limit_ms * US_PER_MS,
                }));
            } else {
                rules.push(part.parse()?);
            }
        }
        Ok(Cap { rules, tpcc_preset })
    }
}

impl fmt::Display for Cap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, rule) in self.rules.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{rule}")?;
        }
        Ok(())
    }
}

impl CapVerdict {
    /// Marks the step as not measured, for `why`: it does not pass, whatever its rules say.
    pub fn invalidate(&mut self, why: String) {
        self.passed = false;
        self.invalid = Some(why);
    }
}

/// The share of a step's transactions that may fail (after retries) before the step counts as not
/// measured: its response times describe the transactions that got through, not the load asked for.
pub const MAX_ERROR_SHARE: f64 = 0.01;

/// Why a step (or one target) with `figures` does not count, if it does not: transactions lost their
/// connection in its window (`figures.connections_lost`: the server was unreachable for part of it), or
/// more than [`MAX_ERROR_SHARE`] of its transactions failed. DS2's failures are whole orders, so its
/// share is of orders.
pub fn not_measured(figures: &Figures) -> Option<String> {
    let connections_lost = figures.connections_lost;
    if connections_lost > 0 {
        return Some(format!(
            "the server was unreachable for part of the window ({connections_lost} transactions lost their connection)"
        ));
    }
    let completed: u64 = match figures.transactions.get(crate::model::ORDER) {
        Some(orders) => orders.count,
        None => figures.transactions.values().map(|t| t.count).sum(),
    };
    let attempted = completed + figures.errors;
    let share = if attempted == 0 { 0.0 } else { figures.errors as f64 / attempted as f64 };
    (share > MAX_ERROR_SHARE).then(|| {
        format!(
            "{} of {attempted} transactions failed ({:.1}%, over the {:.0}% a measured step allows)",
            figures.errors,
            share * 100.0,
            MAX_ERROR_SHARE * 100.0
        )
    })
}

/// The step behind the headline: the highest throughput (NOPM for TPC-C, OPM for DS2, IOPS for `io`:
/// the workload's own figure) among steps whose cap verdict passed (ties go to the earlier step). A step without a verdict does **not** count: nothing was checked, so it
/// cannot support "kept within the cap" — a run without a cap has no such headline.
///
/// Public so that the figures behind the headline (NOPM/OPM for cost and power) come from the
/// same step.
///
/// A `--find-max` search's probes count the same way, but a load where any probe failed (a
/// confirmation that did not hold) is never the answer ([`best_passing`]).
pub fn best_step_within_cap(steps: &[Step]) -> Option<&Step> {
    best_passing(steps, |s| Judged {
        level: s.probe.map(|_| (s.run, s.level())),
        passed: s.cap.as_ref().is_some_and(|v| v.passed),
        rate: s.figures.headline_figure(),
    })
}

/// The study's headline (Benchmark Factory's rule): the highest throughput whose step kept within the cap;
/// a step over the cap does not count, the next lower passing one does. See [`best_step_within_cap`].
pub fn max_within_cap(steps: &[Step]) -> Option<Headline> {
    best_step_within_cap(steps).map(Headline::from)
}

impl From<&Step> for Headline {
    fn from(step: &Step) -> Self {
        Headline {
            step_index: step.index,
            users: step.users,
            tps: step.figures.tps,
            rt_avg_ms: step.figures.rt_avg_ms,
            nopm: step.figures.nopm,
            opm: step.figures.opm,
            txn_per_minute: step.figures.txn_per_minute,
            rt_tot_avg_ms: step.figures.rt_tot_avg_ms,
            search: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{tpcc_databases_step, tpcc_step};
    use crate::model::step::Transactions;
    use crate::model::step::tests::txn;

    fn figures(transactions: &[(&str, u64, u64)]) -> Figures {
        let t: Transactions = transactions
            .iter()
            .map(|&(name, n, latency_us)| (name.to_string(), txn(n, latency_us, 0)))
            .collect();
        Figures::from_transactions(Workload::Tpcc.descriptor(), t, 60.0)
    }

    fn verdict(cap: &str, f: &Figures) -> CapVerdict {
        cap.parse::<Cap>().unwrap().evaluate(f)
    }

    #[test]
    fn rules_parse_and_display_round_trips() {
        for (given, shown) in [
            ("avg=1s", "avg=1s"),
            ("p90=5s", "p90=5s"),
            ("p99=800ms", "p99=800ms"),
            ("p99.9=1.5s", "p99.9=1.5s"),
            ("new_order.p90=5s", "new_order.p90=5s"),
            ("payment.avg=2m", "payment.avg=2m"),
            ("avg=1500ms", "avg=1.5s"),
            ("avg=0.5ms", "avg=500us"),
            ("avg=250us", "avg=250us"),
            ("avg=250µs", "avg=250us"),
            ("avg=90s", "avg=90s"),
            ("avg=120s", "avg=2m"),
            ("p100=12.345s", "p100=12.345s"),
            (" avg = 1s ", "avg=1s"),
        ] {
            let rule: CapRule = given.parse().unwrap_or_else(|e| panic!("{given}: {e}"));
            assert_eq!(rule.to_string(), shown, "{given}");
            assert_eq!(shown.parse::<CapRule>().unwrap(), rule, "{shown} round-trips");
        }
    }

    #[test]
    fn a_step_not_measured_never_passes_nor_makes_the_headline() {
        let cap = Cap::default();
        let mut f = figures(&[("new_order", 500, 1_000), ("payment", 490, 1_000)]);
        assert!(cap.judge(&f).passed, "fast, and no failures");
        f.errors = 10; // 10 of 1,000: 1%, allowed
        assert!(cap.judge(&f).passed);
        f.errors = 11;
        let v = cap.judge(&f);
        assert!(!v.passed && v.rules.iter().all(|r| r.passed), "the rules pass, the step does not");
        assert_eq!(
            v.invalid.as_deref(),
            Some("11 of 1001 transactions failed (1.1%, over the 1% a measured step allows)")
        );
        f.errors = 0;
        f.connections_lost = 3;
        let v = cap.judge(&f);
        assert!(!v.passed);
        assert!(v.invalid.unwrap().starts_with("the server was unreachable for part of the window (3 "));

        let slow = tpcc_step(0, 10, (60, 60), 5_000, Some(&cap));
        let mut best = tpcc_step(1, 20, (600, 600), 5_000, Some(&cap));
        best.figures.connections_lost = 1;
        best.cap = Some(cap.judge(&best.figures));
        let headline = max_within_cap(&[slow, best]).unwrap();
        assert_eq!(headline.step_index, 0, "the faster step was not measured");
    }

    #[test]
    fn a_database_that_lost_its_connections_fails_its_own_verdict() {
        let cap = Cap::default();
        let mut step = tpcc_databases_step(0, 8, &[("a", 600, 5_000), ("b", 600, 5_000)], &cap);
        assert!(step.target_caps.values().all(|v| v.passed), "both fast, none lost");
        step.count_connections_lost([("a".to_string(), 0), ("b".to_string(), 4)]);
        cap.judge_step(&mut step);
        assert_eq!((step.targets["a"].connections_lost, step.targets["b"].connections_lost), (0, 4));
        assert_eq!(step.figures.connections_lost, 4, "the step's are the sum");
        assert!(step.target_caps["a"].passed, "a kept its connections");
        let b = &step.target_caps["b"];
        assert!(!b.passed, "b went away: it does not pass");
        assert!(b.invalid.as_deref().unwrap().contains("(4 transactions lost their connection)"), "{b:?}");
        assert!(!step.cap.as_ref().unwrap().passed, "nor does the step");

        // With one target, its lost connections are the step's.
        let mut one = tpcc_step(0, 4, (600, 600), 5_000, Some(&cap));
        one.count_connections_lost([("db".to_string(), 2)]);
        cap.judge_step(&mut one);
        assert_eq!(one.figures.connections_lost, 2);
        assert!(!one.cap.unwrap().passed);
    }

    #[test]
    fn the_default_is_avg_1s() {
        assert_eq!(Cap::default(), DEFAULT_CAP.parse().unwrap());
        assert_eq!(Cap::default().to_string(), DEFAULT_CAP);
        assert_eq!(Cap::default_for(Workload::Tpcc), Cap::default());
        let ds2 = Cap::default_for(Workload::Ds2);
        assert_eq!(ds2.to_string(), DS2_DEFAULT_CAP);
        assert_eq!(ds2.validate(Workload::Ds2.descriptor()), Ok(()));
    }

    #[test]
    fn tpcc_expands_to_five_p90_limits() {
        let cap: Cap = "avg=1s, p90=tpcc".parse().unwrap();
        assert_eq!(
            cap.to_string(),
            "avg=1s,new_order.p90=5s,payment.p90=5s,order_status.p90=5s,delivery.p90=5s,stock_level.p90=20s"
        );
        assert_eq!(cap.to_string().parse::<Cap>().unwrap(), cap);
        assert_eq!(cap.validate(Workload::Tpcc.descriptor()), Ok(()));
    }

    #[test]
    fn typed_errors_name_the_rule() {
        use CapError::*;
        let err = |spec: &str| spec.parse::<Cap>().unwrap_err();
        assert_eq!(err(""), Empty);
        assert_eq!(err("avg=1s,,p90=5s"), EmptyRule("avg=1s,,p90=5s".into()));
        assert_eq!(err("avg"), MissingLimit("avg".into()));
        assert_eq!(err("mean=1s"), UnknownStatistic { rule: "mean=1s".into(), statistic: "mean".into() });
        assert_eq!(err("p0=1s"), UnknownStatistic { rule: "p0=1s".into(), statistic: "p0".into() });
        assert_eq!(err("p101=1s"), UnknownStatistic { rule: "p101=1s".into(), statistic: "p101".into() });
        assert_eq!(err("pinf=1s"), UnknownStatistic { rule: "pinf=1s".into(), statistic: "pinf".into() });
        assert_eq!(
            err("new_order.median=1s"),
            UnknownStatistic { rule: "new_order.median=1s".into(), statistic: "median".into() }
        );
        assert_eq!(err(".p90=1s"), EmptyTransaction(".p90=1s".into()));
        assert_eq!(err("avg=1"), BadDuration { rule: "avg=1".into(), duration: "1".into() });
        assert_eq!(err("avg=1h"), BadDuration { rule: "avg=1h".into(), duration: "1h".into() });
        assert_eq!(err("avg=-1s"), BadDuration { rule: "avg=-1s".into(), duration: "-1s".into() });
        assert_eq!(err("avg=s"), BadDuration { rule: "avg=s".into(), duration: "s".into() });
        assert_eq!(err("avg=1e3s"), BadDuration { rule: "avg=1e3s".into(), duration: "1e3s".into() });
        assert_eq!(err("avg=0s"), ZeroLimit("avg=0s".into()));
        assert_eq!(err("p99=tpcc"), MisplacedPreset("p99=tpcc".into()));
        assert_eq!(err("new_order.p90=tpcc"), MisplacedPreset("new_order.p90=tpcc".into()));
        assert_eq!("p90=tpcc".parse::<CapRule>(), Err(MisplacedPreset("p90=tpcc".into())));
    }

    #[test]
    fn validate_refuses_transactions_the_workload_does_not_run() {
        let cap: Cap = "new_order.p90=5s".parse().unwrap();
        let e = cap.validate(Workload::Ds2.descriptor()).unwrap_err();
        assert!(matches!(&e, CapError::UnknownTransaction { transaction, .. } if transaction == "new_order"));
        assert!(e.to_string().contains("browse_category"), "{e}");
        assert_eq!("purchase.avg=1s".parse::<Cap>().unwrap().validate(Workload::Ds2.descriptor()), Ok(()));
    }

    #[test]
    fn p90_tpcc_on_another_workload_is_named_as_typed() {
        for (w, default) in [(Workload::Io, IO_DEFAULT_CAP), (Workload::Ds2, DS2_DEFAULT_CAP)] {
            let e = "avg=1s, p90=tpcc".parse::<Cap>().unwrap().validate(w.descriptor()).unwrap_err();
            assert_eq!(e, CapError::PresetNotRun { workload: w.name().into(), default: default.into() });
            let words = e.to_string();
            assert!(words.starts_with("`p90=tpcc` stands for TPC-C's five") && !words.contains("new_order"));
        }
        let cap: Cap = "p90=tpcc".parse().unwrap();
        assert_eq!(cap.validate(Workload::Tpcc.descriptor()), Ok(()));
        let typed: Cap = cap.to_string().parse().unwrap();
        assert_eq!(typed, cap, "the same rules judge alike, however written");
        assert!(matches!(
            typed.validate(Workload::Io.descriptor()),
            Err(CapError::UnknownTransaction { transaction, .. }) if transaction == "new_order"
        ));
    }

    #[test]
    fn avg_uses_the_step_mean() {
        let f = figures(&[("new_order", 100, 800_000), ("payment", 100, 1_100_000)]);
        let v = verdict("avg=1s", &f);
        assert!(v.passed, "{v:?}");
        assert!((v.rules[0].observed_ms.unwrap() - f.rt_avg_ms).abs() < 1e-12);
        assert_eq!(v.rules[0].limit_ms, 1000.0);
        assert!(!verdict("avg=900ms", &f).passed);
    }

    #[test]
    fn a_step_exactly_at_the_cap_passes_and_just_over_fails() {
        // Every response time exactly 1 s: the histogram stores it in a bucket whose midpoint
        // and top lie a few hundred µs above 1 s.
        let f = figures(&[("new_order", 1_000, 1_000_000)]);
        assert!(f.rt_avg_ms > 1000.0);
        assert!(verdict("avg=1s", &f).passed);
        assert!(verdict("p90=1s,new_order.p90=1s,new_order.avg=1s,p100=1s", &f).passed);
        assert!(!verdict("p90=999ms", &f).passed);
        assert!(!verdict("avg=999ms", &f).passed);
    }

    #[test]
    fn overall_percentiles_merge_every_business_transaction() {
        // 90% of all transactions at 10 ms, the slowest 10% at 3 s: overall p90 is 10 ms,
        // overall p95 about 3 s; new_order alone is fast throughout.
        let f = figures(&[("new_order", 900, 10_000), ("payment", 100, 3_000_000)]);
        let v = verdict("p90=20ms,p95=2s,new_order.p99=20ms,payment.p50=2s", &f);
        let passed: Vec<bool> = v.rules.iter().map(|r| r.passed).collect();
        assert_eq!(passed, [true, false, true, false]);
        assert!(!v.passed);
        assert!((v.rules[1].observed_ms.unwrap() - 3000.0).abs() < 3.0);
    }

    #[test]
    fn ds2_order_is_left_out_of_overall_rules() {
        let t = Transactions::from([
            ("login".into(), txn(10, 1_000, 0)),
            ("order".into(), txn(10, 9_000_000, 0)),
        ]);
        let f = Figures::from_transactions(Workload::Ds2.descriptor(), t, 60.0);
        assert!(verdict("p100=2ms", &f).passed);
        assert!(!verdict("order.avg=2ms", &f).passed);
    }

    #[test]
    fn nothing_measured_fails_with_no_observation() {
        let f = figures(&[("new_order", 10, 1_000)]);
        let v = verdict("delivery.p90=5s,avg=1s", &f);
        assert_eq!(v.rules[0].observed_ms, None);
        assert!(!v.rules[0].passed && v.rules[1].passed && !v.passed);
        let empty = figures(&[("new_order", 0, 1_000)]);
        let v = verdict("avg=1s,new_order.avg=1s", &empty);
        assert_eq!((v.rules[0].observed_ms, v.rules[1].observed_ms, v.passed), (None, None, false));
    }

    #[test]
    fn the_headline_is_the_highest_passing_tps_and_a_step_over_the_cap_does_not_count() {
        // Study 4's shape: TPS grows with users until the average response time crosses 1 s.
        let cap = Cap::default();
        let steps = [
            tpcc_step(0, 2_000, (6_000, 0), 400_000, Some(&cap)),
            tpcc_step(1, 4_000, (12_300, 0), 900_000, Some(&cap)),
            tpcc_step(2, 6_000, (13_200, 0), 1_400_000, Some(&cap)),
            tpcc_step(3, 8_000, (11_000, 0), 2_500_000, Some(&cap)),
        ];
        let h = max_within_cap(&steps).unwrap();
        assert_eq!((h.step_index, h.users, h.tps), (1, 4_000, 205.0));
        assert!((h.rt_avg_ms - 900.0).abs() < 1.0);
        assert_eq!(best_step_within_cap(&steps).map(|s| s.index), Some(1));
    }

    #[test]
    fn steps_without_a_verdict_do_not_count_and_ties_go_to_the_earlier_step() {
        let cap = Cap::default();
        assert_eq!(max_within_cap(&[tpcc_step(0, 10, (600, 0), 1_000, None)]), None);
        assert_eq!(max_within_cap(&[tpcc_step(0, 10, (600, 0), 2_000_000, Some(&cap))]), None);
        assert_eq!(max_within_cap(&[]), None);
        let tie =
            [tpcc_step(0, 10, (600, 0), 1_000, Some(&cap)), tpcc_step(1, 20, (600, 0), 1_000, Some(&cap))];
        assert_eq!(max_within_cap(&tie).map(|h| h.step_index), Some(0));
    }
}
