//! What every workload's run command shares: notes on the flags' values printed before the run, and
//! the end: the result directory written, the step table printed, Ctrl-C reported.

use std::process::ExitCode;

use oltpgen_driver::Error;
use oltpgen_driver::Target;
use oltpgen_driver::engine::Conn;
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
/// (one asked to go on until Ctrl-C is not cut short by it). A run during which `targets` went away
/// says so: a failure (exit 1) when one still cannot be reached, a warning when they came back.
pub async fn finish(
    result: &RunResult,
    study: &StudyArgs,
    extra: &str,
    targets: &[Target],
) -> Result<ExitCode, Error> {
    let out = study.flags().result_dir().path(result);
    oltpgen_report::output::write_dir(&out, result)
        .map_err(|e| Error::failed(format!("cannot write the result into {}: {e}", out.display())))?;
    print!("{}{extra}", oltpgen_report::show::render(result));
    println!("{}", oltpgen_report::live::client_line(&result.client, &out));
    if result.interrupted {
        return Err(Error::Interrupted(format!(
            "the run stopped early; the result of what ran is in {}",
            out.display()
        )));
    }
    let lost = result.errors_by_kind.get("connection_lost").copied().unwrap_or(0);
    if lost > 0 {
        for target in targets {
            let probe = tokio::time::timeout(std::time::Duration::from_secs(15), Conn::open(target)).await;
            if let Some(why) = match probe {
                Ok(Ok(_)) => None,
                Ok(Err(e)) => Some(e.to_string()),
                Err(_) => Some("no answer within 15 s".to_string()),
            } {
                return Err(Error::failed(format!(
                    "the server went away during the run ({lost} transactions lost their connection) and \
                     still cannot be reached: {why}; the steps it cut are not measured, and the result of \
                     what ran is in {}",
                    out.display()
                )));
            }
        }
        eprintln!(
            "warning: {lost} transactions lost their connection during the run (the server was unreachable \
             for a while); the steps it happened in are marked not measured"
        );
    }
    Ok(ExitCode::SUCCESS)
}
