//! The `oltpgen` binary: parse the command line, run the command, map the outcome to an exit code.
//!
//! Exit codes: 0 done, 1 the work failed (or a consistency check failed), 2 bad usage or configuration,
//! 130, 143 or 129 when Ctrl-C, SIGTERM or SIGHUP stopped it. Every error is one line on stderr, never a panic or a backtrace.

mod cli;
mod commands;

use std::io::Write as _;
use std::process::ExitCode;

use clap::error::ErrorKind;
use oltpgen_driver::command::{Console, ErrLines, Exit};

/// The terminal: what a command says goes to standard output, warnings to standard error. Output into
/// a closed pipe (`oltpgen … | head -2`) stops quietly, as other command-line tools do, and the command
/// goes on to its end (its result written, its exit code its own) instead of panicking.
#[derive(Default)]
struct Stdio {
    /// Standard output was closed by its reader: nothing more is written to it.
    stdout_closed: bool,
}

impl Console for Stdio {
    fn out(&mut self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        if !self.stdout_closed && stdout.write_all(text.as_bytes()).is_err() {
            self.stdout_closed = true;
        }
    }

    fn err_line(&mut self, line: &str) {
        to_stderr(line);
    }

    fn err_lines(&self) -> ErrLines {
        ErrLines::new(to_stderr)
    }
}

/// One line on standard error, whoever says it: the command, or a task or thread it started.
fn to_stderr(line: &str) {
    // Standard error closed too: nothing is left to tell.
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn main() -> ExitCode {
    // SIGINT, SIGTERM and SIGHUP stop the work cleanly from the first instant: a signal arriving while
    // the command starts is remembered, never the default action that ends oltpgen without a word.
    oltpgen_vocab::stop::listen();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {} (see --help)", one_line(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let mut stdio = Stdio::default();
    // What the command's work says without the command calling it (the study's sampler, its planned
    // fault, a password file's warning) finds the terminal's standard error too.
    let outcome = runtime.block_on(stdio.err_lines().scope(commands::dispatch(cli.command, &mut stdio)));
    // Blocking tasks (generators) may still be parked on a channel whose other end is gone.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    match outcome {
        Ok(Exit::Success) => ExitCode::SUCCESS,
        Ok(Exit::Failure) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// clap's whole message on one line: the error, the arguments it names and its tips ("a similar
/// argument exists", "did you mean"), without the usage block that follows them.
fn one_line(clap_message: &str) -> String {
    let mut out = String::new();
    for line in clap_message.lines().map(str::trim).take_while(|l| !l.starts_with("Usage:")) {
        // Said once, by the caller's "(see --help)".
        if line.is_empty() || line.starts_with("For more information, try") {
            continue;
        }
        let line = line.strip_prefix("error: ").unwrap_or(line);
        if !out.is_empty() {
            out.push_str(if out.ends_with(':') { " " } else { "; " });
        }
        out.push_str(line);
    }
    if out.is_empty() { "bad arguments".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(args: &[&str]) -> String {
        one_line(&cli::Cli::try_parse_from(args).unwrap_err().to_string())
    }

    #[test]
    fn argument_errors_keep_clap_s_names_and_tips_on_one_line() {
        let m = message(&["oltpgen", "tpcc", "run", "--user", "5"]);
        assert_eq!(m, "unexpected argument '--user' found; tip: a similar argument exists: '--users'");
        let m = message(&["oltpgen", "report", "merge"]);
        assert!(m.contains("not provided: --out <DIR>; <RESULTS>"), "{m}");
        assert!(!m.contains('\n') && !m.contains("Usage"), "{m}");
        // (`2..8` parses now, as --find-max's range; a sweep refuses it after parsing.)
        let m = message(&["oltpgen", "tpcc", "run", "--users", "2..x"]);
        assert!(!m.contains("For more information"), "the hint is said once, by main: {m}");
    }
}
