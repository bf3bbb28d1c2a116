//! What a result says about its own workload ([`Descriptor`]): its name and title, its headline unit and
//! figure, its transactions in report order, its audit, its step table's columns and the unit of its
//! work (transactions, I/Os). Every renderer asks the descriptor, not the workload's name, so a workload
//! the report crate does not know (one read from a file at run time) renders like TPC-C does.
//!
//! The driver writes the descriptor into each result from what the workload declares; a result written
//! before it had one (schema 3) reads back with the built-in workload's ([`Workload::descriptor`]).

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::{
    DS2_TRANSACTIONS, Figures, IO_READ, IO_TRANSACTIONS, IO_WRITE, NEW_ORDER, ORDER, RT_TOT,
    TPCC_TRANSACTIONS, Workload,
};

/// The cap oltpgen applies to TPC-C unless told otherwise: the mean response time of all transactions.
pub const DEFAULT_CAP: &str = "avg=1s";

/// The cap oltpgen applies to DS2 unless told otherwise: the mean response time of a whole order from its
/// intended start to its end, which is what a DS2 customer waits for (its operations are each much
/// shorter). It is stricter than DS2's own `rt_tot_avg` (the sum of the operations' times, the
/// transaction `rt_tot`), which leaves out the waits between them; `--rt-cap rt_tot.avg=1s` judges that.
pub const DS2_DEFAULT_CAP: &str = "order.avg=1s";

/// The cap `oltpgen io`'s steps are judged by unless told: an average I/O latency of 10 ms, the
/// figure storage studies judge a disk by (a database's I/O waits add to every transaction's time).
pub const IO_DEFAULT_CAP: &str = "avg=10ms";

/// A workload as its results are rendered: plain data, written into `result.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Descriptor {
    /// The workload's one name (`tpcc`): its command and its name in result.json's `workload`.
    pub name: String,
    /// What a person calls it in a title (`TPC-C`, `DVD Store 2`).
    pub title: String,
    /// The headline figure, which the step table's and the run's best step are quoted in.
    pub headline: Rate,
    /// The headline's unit as the reports print it (`NOPM`, `OPM`, `IOPS`).
    pub unit: String,
    /// The transaction type counted per minute (TPC-C's `new_order`, DS2's `order`).
    pub per_minute_transaction: String,
    /// Transaction names, in report order.
    pub transactions: Vec<String>,
    /// Entries made of other transactions (DS2's `order` and `rt_tot`): left out of TPS, overall
    /// response times and error sums, which count every operation once.
    #[serde(default)]
    pub composite: Vec<String>,
    /// The audit its steps carry, when it has one.
    #[serde(default)]
    pub audit: Option<AuditKind>,
    /// What the driven load is called in sentences (`users`, `I/Os in flight`).
    pub load: String,
    /// The step table's load column's title (`users`, `in flight`) and width.
    pub load_column: (String, usize),
    /// The figure quoted per target of a step driven against several targets.
    pub per_target: Column,
    /// The step table's figure columns, between the load and the errors.
    pub step_columns: Vec<Column>,
    /// The unit of its work, in the words of the client's cost and counts.
    pub work: Work,
    /// The configuration setting that sizes it (`scale`), and how a title quotes it.
    #[serde(default)]
    pub size: Option<SizeSetting>,
    /// The cap its steps are judged by unless told (`avg=1s`).
    pub default_cap: String,
}

/// A workload's headline figure: which of a step's throughputs it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rate {
    /// New-Orders per minute (`nopm`), TPS beside it.
    Nopm,
    /// Orders per minute (`opm`), `rt_tot_avg` beside it.
    Opm,
    /// One transaction's completions per minute (`per_minute`: a workload defined at run time that
    /// names one, `headline = { per_minute = "new_order" }`), under the workload's own words
    /// (`new_order per minute`, never NOPM), TPS beside it.
    #[serde(rename = "per_minute")]
    PerMinute,
    /// Work per second (`tps`: `io`'s IOPS, or the per-second figure of any workload that counts none per
    /// minute, named by its `unit`), the mean response time in two decimals beside it.
    Iops,
}

/// The audit a workload's steps carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditKind {
    /// TPC-C's shares and rates against the specification's bounds.
    Tpcc,
}

/// One column of the step table: its title, its width, and the figure it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// The title.
    pub title: String,
    /// The text table's width (right-aligned).
    pub width: usize,
    /// The figure.
    pub figure: Figure,
    /// Decimals shown.
    pub digits: usize,
}

/// A figure of a step a column shows; `-` where the step has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// Transactions (or I/Os) per second.
    Tps,
    /// The per-minute throughput (NOPM, OPM).
    PerMinute,
    /// Mean response time over every transaction, ms.
    RtAvg,
    /// 95th-percentile response time over every transaction, ms.
    RtP95,
    /// DS2's `rt_tot_avg`, ms.
    RtTotAvg,
    /// One transaction type's mean, ms, when any completed.
    Avg(String),
    /// One transaction type's 95th percentile, ms, when any completed.
    P95(String),
    /// The largest response time of any type, ms.
    Max,
}

impl Figure {
    /// The figure's value in `f`, when it has it.
    pub fn of(&self, f: &Figures) -> Option<f64> {
        let done = |name: &str| f.transactions.get(name).filter(|t| t.count > 0);
        match self {
            Figure::Tps => Some(f.tps),
            Figure::PerMinute => f.per_minute(),
            Figure::RtAvg => Some(f.rt_avg_ms),
            Figure::RtP95 => Some(f.rt_p95_ms),
            Figure::RtTotAvg => f.rt_tot_avg_ms,
            Figure::Avg(name) => done(name).map(|t| t.avg_ms),
            Figure::P95(name) => done(name).map(|t| t.p95_ms),
            Figure::Max => Some(f.transactions.values().map(|t| t.max_ms).fold(0.0, f64::max)),
        }
    }
}

/// The unit of a workload's work, one and many (`transaction`, `transactions`; `I/O`, `I/Os`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// One of it.
    pub one: String,
    /// Many of it.
    pub many: String,
}

/// The setting that sizes a workload, as a title quotes it: `{before}{value}{after}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeSetting {
    /// The configuration's key (`scale`).
    pub key: String,
    /// The words before the value (`scale `).
    pub before: String,
    /// The words after it (` file`).
    pub after: String,
}

impl Descriptor {
    /// Whether `name` is one of the composite entries, left out of sums over every operation.
    pub fn is_composite(&self, name: &str) -> bool {
        self.composite.iter().any(|c| c == name)
    }

    /// Whether `name` is one of its transactions.
    pub fn runs(&self, name: &str) -> bool {
        self.transactions.iter().any(|t| t == name)
    }

    /// The unit of a step's per-second figure (its `tps`) as the reports print it: the headline's own
    /// where the headline is that figure (`io`'s `IOPS`, a defined workload's `TPS`), else `TPS`.
    pub fn per_second_unit(&self) -> &str {
        match self.headline {
            Rate::Iops => &self.unit,
            Rate::Nopm | Rate::Opm | Rate::PerMinute => "TPS",
        }
    }
}

impl Descriptor {
    /// The words of a database workload counted per second, as one defined at run time is: TPS
    /// headlined (no per-minute figure), the mean and 95th percentile of every transaction, the largest;
    /// sized by its scale; judged by [`DEFAULT_CAP`] unless told. Its
    /// transactions are the workload's to fill in.
    pub fn per_second(name: &str) -> Descriptor {
        Descriptor {
            name: name.into(),
            title: name.into(),
            headline: Rate::Iops,
            unit: "TPS".into(),
            per_minute_transaction: String::new(),
            transactions: Vec::new(),
            composite: Vec::new(),
            audit: None,
            load: "users".into(),
            load_column: ("users".into(), 9),
            per_target: column("TPS", 10, Figure::Tps, 1),
            step_columns: vec![
                column("TPS", 10, Figure::Tps, 1),
                column("avg ms", 10, Figure::RtAvg, 2),
                column("p95 ms", 10, Figure::RtP95, 2),
                column("max ms", 10, Figure::Max, 1),
            ],
            work: transactions(),
            size: Some(SizeSetting { key: "scale".into(), before: "scale ".into(), after: String::new() }),
            default_cap: DEFAULT_CAP.into(),
        }
    }
}

impl Descriptor {
    /// The words of a database workload headlined by one of its transactions per minute, as a
    /// workload defined at run time may ask (`headline = { per_minute = "new_order" }`): as
    /// [`per_second`](Self::per_second), with `transaction`'s completions per minute headlined under its
    /// own name (`new_order per minute`), TPS beside it. The transaction's index among the workload's
    /// is the profile's to set.
    pub fn per_minute_of(name: &str, transaction: &str) -> Descriptor {
        let unit = format!("{transaction} per minute");
        let title = format!("{transaction}/min");
        let width = (title.len() + 2).max(10);
        let mut d = Descriptor::per_second(name);
        d.headline = Rate::PerMinute;
        d.unit = unit;
        d.step_columns.insert(1, column(&title, width, Figure::PerMinute, 0));
        d.step_columns.truncate(4);
        d.per_minute_transaction = transaction.into();
        d
    }
}

/// A column of the step table.
pub(crate) fn column(title: &str, width: usize, figure: Figure, digits: usize) -> Column {
    Column { title: title.into(), width, figure, digits }
}

/// Names as owned strings.
fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The unit of work of a database workload.
fn transactions() -> Work {
    Work { one: "transaction".into(), many: "transactions".into() }
}

/// TPC-C's words: NOPM with TPS beside it, the mean and p95 of every transaction, TPC-C's audit.
static TPCC: LazyLock<Descriptor> = LazyLock::new(|| Descriptor {
    name: Workload::Tpcc.name().into(),
    title: "TPC-C".into(),
    headline: Rate::Nopm,
    unit: "NOPM".into(),
    per_minute_transaction: NEW_ORDER.into(),
    transactions: names(&TPCC_TRANSACTIONS),
    composite: Vec::new(),
    audit: Some(AuditKind::Tpcc),
    load: "users".into(),
    load_column: ("users".into(), 9),
    per_target: column("TPS", 10, Figure::Tps, 1),
    step_columns: vec![
        column("TPS", 10, Figure::Tps, 1),
        column("NOPM", 10, Figure::PerMinute, 0),
        column("avg ms", 10, Figure::RtAvg, 1),
        column("p95 ms", 10, Figure::RtP95, 1),
    ],
    work: transactions(),
    size: Some(SizeSetting { key: "scale".into(), before: "scale ".into(), after: String::new() }),
    default_cap: DEFAULT_CAP.into(),
});

/// DS2's words, as DS2 speaks: OPM and `rt_tot_avg`, beside the whole order's mean and p95 from its
/// intended start (what the default cap judges).
static DS2: LazyLock<Descriptor> = LazyLock::new(|| Descriptor {
    name: Workload::Ds2.name().into(),
    title: "DVD Store 2".into(),
    headline: Rate::Opm,
    unit: "OPM".into(),
    per_minute_transaction: ORDER.into(),
    transactions: names(&DS2_TRANSACTIONS),
    composite: names(&[ORDER, RT_TOT]),
    audit: None,
    load: "users".into(),
    load_column: ("users".into(), 9),
    per_target: column("OPM", 10, Figure::PerMinute, 0),
    step_columns: vec![
        column("OPM", 10, Figure::PerMinute, 0),
        column("rt_tot_avg ms", 15, Figure::RtTotAvg, 1),
        column("order avg ms", 14, Figure::Avg(ORDER.into()), 1),
        column("order p95 ms", 14, Figure::P95(ORDER.into()), 1),
    ],
    work: transactions(),
    size: Some(SizeSetting { key: "db_size".into(), before: "size ".into(), after: String::new() }),
    default_cap: DS2_DEFAULT_CAP.into(),
});

/// `io`'s words: IOPS, its reads' and writes' means in two decimals (storage's latencies are fractions of
/// a millisecond), its load the I/Os in flight (workers × outstanding), its work I/Os.
static IO: LazyLock<Descriptor> = LazyLock::new(|| Descriptor {
    name: Workload::Io.name().into(),
    title: "I/O model".into(),
    headline: Rate::Iops,
    unit: "IOPS".into(),
    per_minute_transaction: IO_READ.into(),
    transactions: names(&IO_TRANSACTIONS),
    composite: Vec::new(),
    audit: None,
    load: "I/Os in flight".into(),
    load_column: ("in flight".into(), 10),
    per_target: column("IOPS", 10, Figure::Tps, 0),
    step_columns: vec![
        column("IOPS", 10, Figure::Tps, 0),
        column("read avg ms", 12, Figure::Avg(IO_READ.into()), 2),
        column("write avg ms", 13, Figure::Avg(IO_WRITE.into()), 2),
        column("max ms", 10, Figure::Max, 1),
    ],
    work: Work { one: "I/O".into(), many: "I/Os".into() },
    size: Some(SizeSetting { key: "access".into(), before: String::new(), after: " file".into() }),
    default_cap: IO_DEFAULT_CAP.into(),
});

/// The built-in workloads: the one place their names are matched (and the driver's registry).
impl Workload {
    /// Every built-in workload, in the order `oltpgen --help` lists them.
    pub const ALL: [Workload; 3] = [Workload::Tpcc, Workload::Ds2, Workload::Io];

    /// The workload's one name: its command, its built-in database, its load record's key, its result
    /// directories and its name in result.json (serde's lowercase spelling of the variant, asserted in a test).
    pub const fn name(self) -> &'static str {
        match self {
            Workload::Tpcc => "tpcc",
            Workload::Ds2 => "ds2",
            Workload::Io => "io",
        }
    }

    /// How many of `count` completed transactions of the per-minute type (of which `rollbacks` rolled
    /// back) the per-minute figure counts: all of them. NOPM counts the New-Orders that rolled back by
    /// design (5.4.2 counts them in the throughput, as go-tpc does; HammerDB's NOPM, read from
    /// `d_next_o_id`, leaves them out, so it reads about 1% lower). OPM counts every order, as DS2's
    /// driver does: a purchase rolled back for want of stock was still a customer's whole visit.
    pub fn per_minute_count(self, count: u64, rollbacks: u64) -> u64 {
        debug_assert!(rollbacks <= count, "rollbacks are completed transactions");
        count
    }

    /// The built-in workload's descriptor: what the driver writes for it, and what a result written
    /// before results carried one (schema 3) is read with.
    pub fn descriptor(self) -> &'static Descriptor {
        match self {
            Workload::Tpcc => &TPCC,
            Workload::Ds2 => &DS2,
            Workload::Io => &IO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each built-in descriptor names its workload as result.json does, and reads back as written.
    #[test]
    fn builtins_name_their_workload_and_round_trip() {
        for w in Workload::ALL {
            let d = w.descriptor();
            assert_eq!(serde_json::to_value(w).unwrap(), serde_json::Value::String(d.name.clone()));
            let back: Descriptor = serde_json::from_str(&serde_json::to_string(d).unwrap()).unwrap();
            assert_eq!(&back, d);
            assert!(d.runs(&d.per_minute_transaction), "{}", d.name);
            assert_eq!(d.step_columns.len(), 4, "the step table has four figure columns");
            d.default_cap.parse::<crate::stats::cap::Cap>().expect("the default cap parses");
        }
    }

    /// A result written by 54befc8 (schema 3, no descriptor) of each workload, with what the tree
    /// before the descriptor rendered from it (`report show`, `report show --audit`, `report html`)
    /// and what the run itself wrote (`timeseries.csv`, `counters.csv`, `summary.txt`).
    struct Schema3 {
        result: &'static str,
        show: &'static str,
        html: &'static str,
        timeseries: &'static str,
        counters: &'static str,
        summary: &'static str,
    }

    /// The fixture of `$w` under testdata/schema3.
    macro_rules! schema3 {
        ($w:literal) => {
            Schema3 {
                result: include_str!(concat!("../../testdata/schema3/", $w, "/result.json")),
                show: include_str!(concat!("../../testdata/schema3/", $w, "/show.txt")),
                html: include_str!(concat!("../../testdata/schema3/", $w, "/report.html")),
                timeseries: include_str!(concat!("../../testdata/schema3/", $w, "/timeseries.csv")),
                counters: include_str!(concat!("../../testdata/schema3/", $w, "/counters.csv")),
                summary: include_str!(concat!("../../testdata/schema3/", $w, "/summary.txt")),
            }
        };
    }

    /// Reads `f`'s result and checks every renderer gives what it gave before, with `words` replaced
    /// in the old outputs (the words that changed on purpose).
    fn renders_as_before(f: &Schema3, workload: Workload, words: &[(&str, &str)]) -> crate::model::RunResult {
        use crate::render::{csv, html, text};
        let r: crate::model::RunResult = serde_json::from_str(f.result).expect("a result of schema 3 reads");
        assert_eq!(r.schema_version, 3);
        assert_eq!(r.written_descriptor, None);
        assert_eq!(r.descriptor(), workload.descriptor(), "read with its workload's built-in descriptor");
        let was = |old: &str| words.iter().fold(old.to_string(), |s, (from, to)| s.replace(from, to));
        let show = text::show::report(&r, text::show::AuditView::Lines { result: "result.json" });
        assert_eq!(show.trim_end(), was(f.show).trim_end());
        assert_eq!(html::result::render(&r).trim_end(), was(f.html).trim_end());
        assert_eq!(csv::result::timeseries(&r), f.timeseries);
        assert_eq!(csv::result::counters(&r), f.counters);
        assert_eq!(text::summary::render(&r), was(f.summary));
        r
    }

    #[test]
    fn a_tpcc_result_of_schema_3_renders_as_before() {
        // Issue 39: summary.txt names the settings without a value instead of printing `null`.
        let unset = [
            (" connections=null", ""),
            (" stop_after_breach=null", ""),
            (" window_s=null", " (not set: connections, stop_after_breach, window_s)"),
        ];
        let r = renders_as_before(&schema3!("tpcc"), Workload::Tpcc, &unset);
        let audit = include_str!("../../testdata/schema3/tpcc/show-audit.txt");
        let full = crate::render::text::show::report(&r, crate::render::text::show::AuditView::Full);
        assert_eq!(full.trim_end(), audit.trim_end());
    }

    /// `io`'s work is I/Os: where the reports said "transaction" of it, they say "I/O" (issue 38).
    #[test]
    fn an_io_result_of_schema_3_renders_as_before_in_its_own_words() {
        renders_as_before(
            &schema3!("io"),
            Workload::Io,
            &[
                ("CPU per transaction", "CPU per I/O"),
                ("238,684 transactions", "238,684 I/Os"),
                ("238684 transactions", "238684 I/Os"),
                ("<td>transactions</td>", "<td>I/Os</td>"),
                // Issue 39: summary.txt names the settings without a value instead of printing `null`.
                (" connections=null", ""),
                (" io_uring_refused=null", ""),
                (" iops=null", ""),
                (" stop_after_breach=null", ""),
                (
                    " window_s=null workers=1",
                    " workers=1 (not set: connections, io_uring_refused, iops, stop_after_breach, window_s)",
                ),
            ],
        );
    }

    /// A result carrying its descriptor is rendered in its words, not its workload's built-in ones.
    #[test]
    fn the_written_descriptor_is_the_one_rendered() {
        let mut r: crate::model::RunResult = serde_json::from_str(schema3!("tpcc").result).unwrap();
        let mut d = Workload::Tpcc.descriptor().clone();
        d.unit = "New-Orders/min".into();
        d.work = Work { one: "business transaction".into(), many: "business transactions".into() };
        r.written_descriptor = Some(d.clone());
        r.schema_version = crate::model::SCHEMA_VERSION;
        let written = serde_json::to_string(&r).unwrap();
        let back: crate::model::RunResult = serde_json::from_str(&written).unwrap();
        assert_eq!(back.descriptor(), &d);
        let show = crate::render::text::show::report(&back, crate::render::text::show::AuditView::Full);
        assert!(show.contains("max New-Orders/min within cap"), "{show}");
        assert!(show.contains("CPU per business transaction"), "{show}");
    }
}
