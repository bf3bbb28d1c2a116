//! What every workload's run command shares: notes on the flags' values printed before the run, and
//! the end: the result directory written, the step table printed, Ctrl-C reported.

use std::process::ExitCode;

use oltpgen_driver::Error;
use oltpgen_report::model::RunResult;

use crate::cli::StudyArgs;

/// Prints what the user may not expect of `flag`'s value (a range stopping short of its end, more
/// users than the spec has), on stdout before the run, so that stderr keeps to errors.
pub fn notes(flag: &str, notes: &[String]) {
    for note in notes {
        println!("note: {flag} {note}");
    }
}

/// Writes `result` into the study's `--out` (or `results/<UTC start time>-<workload>`), prints the step table
/// and the client's CPU, then `extra` (the workload's own final lines). A run Ctrl-C cut short exits 130
/// unless `until_stopped` (a run asked to go on until Ctrl-C ends that way as it should).
pub fn finish(
    result: &RunResult,
    study: &StudyArgs,
    extra: &str,
    until_stopped: bool,
) -> Result<ExitCode, Error> {
    let out = study.flags().result_dir().path(result);
    oltpgen_report::output::write_dir(&out, result)
        .map_err(|e| Error::failed(format!("cannot write the result into {}: {e}", out.display())))?;
    print!("{}{extra}", oltpgen_report::show::render(result));
    println!("{}", oltpgen_report::live::client_line(&result.client, &out));
    if result.interrupted && !until_stopped {
        return Err(Error::Interrupted(format!(
            "the run stopped early; the result of what ran is in {}",
            out.display()
        )));
    }
    Ok(ExitCode::SUCCESS)
}
