//! Progress shown while long work runs (loads, checks): a bar with rate and ETA on a terminal, nothing
//! when `--quiet` or when stderr is not a terminal (scripts get the summary line the command prints at the end).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A handle on one progress bar; cheap to clone into the threads and tasks that advance it.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar counting `total` `unit`s (e.g. "rows"), labelled `what`; hidden when `quiet`.
    pub fn new(what: &str, total: u64, unit: &str, quiet: bool) -> Self {
        let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        let template = format!(
            "{{msg:12}} [{{bar:30}}] {{percent:>3}}% {{human_pos}}/{{human_len}} {unit} \
             {{per_sec}} ETA {{eta}}"
        );
        bar.set_style(
            ProgressStyle::with_template(&template).expect("the template is valid").progress_chars("=> "),
        );
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress { bar }
    }

    /// Adds `n` finished units.
    pub fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Changes the label, for a new phase of the same work (e.g. "indexes").
    pub fn phase(&self, what: &str) {
        self.bar.set_message(what.to_string());
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
