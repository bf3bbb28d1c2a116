//! Progress shown while long work runs (loads, checks): a bar with rate and ETA on a terminal; when
//! stderr is not a terminal (a script, a CI log, `nohup`), a plain line every [`LINE_EVERY`] instead, so a
//! log shows the work moving; nothing with `--quiet`.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use oltpgen_report::numfmt::thousands;

use crate::console::ErrLines;

/// How often a progress line is printed when stderr is not a terminal (the run's live lines' default period).
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// A handle on one progress bar; cheap to clone into the threads and tasks that advance it.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
    lines: Option<Arc<Lines>>,
}

/// The plain lines printed in place of the bar where stderr is not a terminal.
struct Lines {
    /// Where they go: the standard error of the command that made the bar.
    said: ErrLines,
    unit: String,
    started: Instant,
    /// The label and when the last line was printed.
    state: Mutex<(String, Instant)>,
}

impl Progress {
    /// A bar counting `total` `unit`s (e.g. "rows"), labelled `what`; hidden when `quiet`. Made on a
    /// command's task (or in its [`ErrLines::sync_scope`]): its plain lines go to that command's
    /// standard error, whichever thread advances it.
    pub fn new(what: &str, total: u64, unit: &str, quiet: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let target =
            if quiet || !terminal { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        let template = format!(
            "{{msg:12}} [{{bar:30}}] {{percent:>3}}% {{human_pos}}/{{human_len}} {unit} \
             {{rate}} {unit}/s ETA {{eta}}"
        );
        // A whole number of units a second, grouped as the counts are (indicatif's own {per_sec}
        // prints four decimals: 796,906.0662/s).
        let rate = |state: &ProgressState, out: &mut dyn std::fmt::Write| {
            let _ = out.write_str(&thousands(state.per_sec(), 0));
        };
        bar.set_style(
            ProgressStyle::with_template(&template)
                .expect("the template is valid")
                .with_key("rate", rate)
                .progress_chars("=> "),
        );
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(250));
        let now = Instant::now();
        let lines = (!quiet && !terminal).then(|| {
            Arc::new(Lines {
                said: ErrLines::current(),
                unit: unit.to_string(),
                started: now,
                state: Mutex::new((what.to_string(), now)),
            })
        });
        Progress { bar, lines }
    }

    /// Adds `n` finished units.
    pub fn advance(&self, n: u64) {
        self.bar.inc(n);
        if let Some(lines) = &self.lines {
            let mut state = lines.state.lock().unwrap_or_else(|e| e.into_inner());
            if state.1.elapsed() >= LINE_EVERY {
                state.1 = Instant::now();
                let total = self.bar.length().unwrap_or(0);
                lines.said.line(&line(
                    &state.0,
                    self.bar.position(),
                    total,
                    &lines.unit,
                    lines.started.elapsed(),
                ));
            }
        }
    }

    /// Changes the label, for a new phase of the same work (e.g. "indexes").
    pub fn phase(&self, what: &str) {
        self.bar.set_message(what.to_string());
        if let Some(lines) = &self.lines {
            lines.state.lock().unwrap_or_else(|e| e.into_inner()).0 = what.to_string();
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// One plain progress line: `loading: 45% 1,215,000/2,700,000 rows, 121,500 rows/s, ETA 12s`.
fn line(what: &str, done: u64, total: u64, unit: &str, elapsed: Duration) -> String {
    let percent = done.saturating_mul(100).checked_div(total).unwrap_or(100);
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
    let eta =
        if rate > 0.0 { format!("{:.0}s", total.saturating_sub(done) as f64 / rate) } else { "?".into() };
    let n = |v: f64| thousands(v, 0);
    format!(
        "{what}: {percent}% {}/{} {unit}, {} {unit}/s, ETA {eta}",
        n(done as f64),
        n(total as f64),
        n(rate)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_line_says_how_far_how_fast_and_how_long_still() {
        let l = line("loading", 1_215_000, 2_700_000, "rows", Duration::from_secs(10));
        assert_eq!(l, "loading: 45% 1,215,000/2,700,000 rows, 121,500 rows/s, ETA 12s");
        assert_eq!(
            line("indexing", 0, 4, "steps", Duration::ZERO),
            "indexing: 0% 0/4 steps, 0 steps/s, ETA ?"
        );
    }
}
