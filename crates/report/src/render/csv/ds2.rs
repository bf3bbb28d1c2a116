//! DS2's `--csv-output`: the per-interval figures of a run, a row per progress interval (and per
//! database with several) under [`CSV_HEADER`] ([`csv_row`]), written and flushed by [`CsvOutput`].

use std::io::Write as IoWrite;

use crate::model::ds2_progress::Ds2Progress;

/// The header of `--csv-output`: one row per progress interval (and per database with several), the
/// interval's own figures. `run_s` is the interval's end on the run's clock, which goes on across
/// `Stats reset`; `et_s` is the progress line's `et=`, DS2's: the seconds since the statistics were last
/// reset, as DS2's driver restarts it there (its `opm` is orders over `et`). `rt_tot_*` are DS2's (the
/// sum of an order's operations' times), `order_*` oltpgen's (the whole order from its intended start).
pub const CSV_HEADER: &str = "run_s,et_s,target,users,opm,rt_tot_avg_ms,rt_tot_max_ms,orders,rollbacks,\
                              logins,new_customers,browses,purchases,errors,order_avg_ms,order_max_ms";

/// One `--csv-output` row: interval `p.interval` of `target` (`all` for the total), ending `p.run_s`
/// into the run and `p.et_s` after the last reset.
pub fn csv_row(target: &str, p: &Ds2Progress) -> String {
    let i = &p.interval;
    let opm = if i.span_s > 0.0 { i.orders as f64 * 60.0 / i.span_s } else { 0.0 };
    format!(
        "{:.1},{:.1},{target},{},{opm:.1},{:.3},{:.3},{},{},{},{},{},{},{},{:.3},{:.3}",
        p.run_s,
        p.et_s,
        p.users,
        i.rt_tot_avg_ms,
        i.rt_tot_max_ms,
        i.orders,
        i.rollbacks,
        i.ops.logins,
        i.ops.new_customers,
        i.ops.browses,
        i.ops.purchases,
        i.errors,
        i.order_avg_ms,
        i.order_max_ms
    )
}

/// `--csv-output`: a row per progress interval (and per database with several), flushed as it is
/// written so that a run that dies leaves what it measured.
pub struct CsvOutput<W: IoWrite> {
    out: W,
    labels: Vec<String>,
}

impl<W: IoWrite> CsvOutput<W> {
    /// Writes the header into `out`; `labels` name the databases of each interval's rows.
    ///
    /// # Errors
    /// The header could not be written.
    pub fn new(mut out: W, labels: Vec<String>) -> std::io::Result<Self> {
        writeln!(out, "{CSV_HEADER}")?;
        out.flush()?;
        Ok(CsvOutput { out, labels })
    }

    /// Writes an interval: the total (`all`), then each database's (`each`, with several).
    ///
    /// # Errors
    /// The rows could not be written.
    pub fn write(&mut self, all: &Ds2Progress, each: &[Ds2Progress]) -> std::io::Result<()> {
        writeln!(self.out, "{}", csv_row("all", all))?;
        for (label, p) in self.labels.iter().zip(each) {
            writeln!(self.out, "{}", csv_row(label, p))?;
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::ds2_progress;

    #[test]
    fn csv_output_writes_the_header_then_all_and_each_database_per_interval() {
        let p = |users| Ds2Progress { run_s: 70.0, et_s: 10.0, users, ..Ds2Progress::default() };
        let mut out = CsvOutput::new(Vec::new(), vec!["pg1".into(), "pg2".into()]).unwrap();
        out.write(&p(8), &[p(4), p(4)]).unwrap();
        let text = String::from_utf8(out.out).unwrap();
        assert!(text.starts_with(&format!("{CSV_HEADER}\n")), "{text}");
        assert_eq!(text.matches('\n').count(), 4, "every row ends its line: {text}");
        insta::assert_snapshot!(text, @r"
            run_s,et_s,target,users,opm,rt_tot_avg_ms,rt_tot_max_ms,orders,rollbacks,logins,new_customers,browses,purchases,errors,order_avg_ms,order_max_ms
            70.0,10.0,all,8,0.0,0.000,0.000,0,0,0,0,0,0,0,0.000,0.000
            70.0,10.0,pg1,4,0.0,0.000,0.000,0,0,0,0,0,0,0,0.000,0.000
            70.0,10.0,pg2,4,0.0,0.000,0.000,0,0,0,0,0,0,0,0.000,0.000
            ");
    }

    #[test]
    fn a_row_s_et_is_the_progress_line_s() {
        // Issue 39: the screen's `et=` restarts at `Stats reset`, as DS2's driver's does, while the
        // CSV's `et_s` went on: now `et_s` is the screen's and the run's clock is `run_s`.
        let p = ds2_progress();
        let row = csv_row("all", &p);
        let screen = crate::render::text::ds2::progress_line(&p);
        let et: f64 = row.split(',').nth(1).unwrap().parse().unwrap();
        assert!(screen.starts_with(&format!("et={et:7.1} ")), "{row} / {screen}");
        assert!(row.starts_with("75.0,15.0,"), "{row}");
    }

    #[test]
    fn csv_rows_hold_the_interval_alone() {
        assert_eq!(CSV_HEADER.split(',').count(), csv_row("all", &ds2_progress()).split(',').count());
        insta::assert_snapshot!(csv_row("vm1", &ds2_progress()), @"75.0,15.0,vm1,16,4800.0,11.250,35.500,800,9,640,160,2400,800,0,12.000,36.000");
    }
}
