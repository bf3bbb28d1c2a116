//! The end of every workload's run: the result directory written, the step table and the client's
//! CPU said, an interruption or a server that went away turned into the command's verdict.

use std::time::Duration;

use oltpgen_report::model::outage::AckComparison;
use oltpgen_report::render::text::show;

use super::{Console, Exit};
use crate::engine::Conn;
use crate::files::{acks, result_dir};
use crate::run::StudyFlags;
use crate::run::hooks::{self, HookLogMark};
use crate::run::study::Studied;
use crate::{Error, Target};
use oltpgen_vocab::error::Fault;

/// How long a server that went away during the run gets to answer again at its end.
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// Writes `studied`'s result into the study's `--out` (or `results/<UTC start time>-<workload>`), and
/// beside it the orders the run saw acknowledged (`acks.bin`, for `check --result`), says
/// the step table and the client's CPU, then `extra` (the workload's own final lines). A study a restore
/// or a hook stopped ends in that error, naming where the result of what ran is. A run Ctrl-C cut short
/// ends interrupted (one asked to go on until Ctrl-C is not cut short by it). An acknowledged commit
/// lost fails the run, and so does a comparison that could not be made. A run during which `targets`
/// went away says so: a failure when one still cannot be reached, a warning when they came back. A run
/// that measured nothing (no step completed a transaction, or every step is INVALID) fails, saying why.
///
/// # Errors
/// A result that cannot be written, the interruption, a lost commit or one not compared, a server
/// still gone, nothing measured.
pub(super) async fn finish(
    studied: Studied,
    study: &StudyFlags,
    extra: &str,
    targets: &[Target],
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    let Studied { result, mut stopped, acks, hook_log } = studied;
    if result.steps.is_empty()
        && let Some(e) = stopped.take()
    {
        return Err(nothing_ran(e, hook_log.as_ref(), console));
    }
    let lost = result.errors_by_kind.get(Fault::ConnectionLost.name()).copied().unwrap_or(0);
    let result = &result;
    let out = study.result_dir().path(result);
    result_dir::write_dir(&out, result)
        .map_err(|e| Error::failed(format!("cannot write the result into {}: {e}", out.display())))?;
    // Beside the result, for `check --result` to compare with the database serving later.
    acks::write(&out, &acks).map_err(|e| {
        Error::failed(format!("cannot write the acknowledged orders into {}: {e}", out.display()))
    })?;
    acks::write_lost(&out, result.lost_commits.as_ref())
        .map_err(|e| Error::failed(format!("cannot write the lost commits into {}: {e}", out.display())))?;
    console.out(&format!("{}{extra}", show::render(result, &out.display().to_string())));
    console.line(&oltpgen_report::render::text::live::client_line(
        &result.client,
        &result.descriptor().work,
        &out,
    ));
    if let Some(e) = stopped {
        return Err(reworded(e, |m| format!("{m}; the result of what ran is in {}", out.display())));
    }
    if result.interrupted {
        return Err(Error::Interrupted(format!(
            "the run stopped early; the result of what ran is in {}",
            out.display()
        )));
    }
    if let Some(compared) = result.lost_commits.as_ref().filter(|l| l.lost().is_some_and(|n| n > 0)) {
        return Err(Error::failed(format!("{}; the result is in {}", compared.sentence(), out.display())));
    }
    for target in targets.iter().filter(|_| lost > 0) {
        if let Some(why) = unreachable(target).await {
            return Err(Error::failed(format!(
                "the server went away during the run ({lost} transactions lost their connection) and \
                 still cannot be reached: {why}; the steps it cut are not measured, and the result of \
                 what ran is in {}",
                out.display()
            )));
        }
    }
    // A comparison that could not be made is no "nothing lost": the run fails, saying why.
    let counted = |l: &&AckComparison| !crate::lost_commits::unacknowledged(l);
    if let Some(not) = result.lost_commits.as_ref().filter(|l| l.lost().is_none()).filter(counted) {
        return Err(Error::failed(format!("{}; the result is in {}", not.sentence(), out.display())));
    }
    if let Some(why) = result.nothing_measured() {
        return Err(Error::failed(format!(
            "nothing was measured: {why}; the result is in {}",
            out.display()
        )));
    }
    if lost == 0 {
        return Ok(Exit::Success);
    }
    console.err_line(&format!(
        "warning: {lost} transactions lost their connection during the run (the server was unreachable \
         for a while); the steps it happened in are marked not measured"
    ));
    Ok(Exit::Success)
}

/// The most lines of the hooks' output said on stderr when a study stopped before its first run.
const HOOK_LINES: usize = 20;

/// A study a restore or a hook stopped before any step ran (`stopped`): nothing to keep, so no result
/// is written and no empty step table said; what its hooks wrote into `hooks.log` is taken back (the
/// log cut back to what it held, or removed, so that a `--out` the command made goes with its claim,
/// and one that was there is left as it was), and its last lines are said on stderr instead.
fn nothing_ran(stopped: Error, hook_log: Option<&HookLogMark>, console: &mut dyn Console) -> Error {
    let said = hook_log.map(HookLogMark::take_back).unwrap_or_default();
    let mut output_is = None;
    let lines: Vec<&str> = said.lines().collect();
    if let Some(log) = hook_log.filter(|_| !lines.is_empty()) {
        let kept = &lines[lines.len().saturating_sub(HOOK_LINES)..];
        console.err_line(&format!(
            "the hooks' output ({}last {} line(s); {} is not kept, as no result is):",
            if kept.len() < lines.len() { "its " } else { "" },
            kept.len(),
            log.path().display()
        ));
        kept.iter().for_each(|line| console.err_line(&format!("  {line}")));
        output_is = log.path().parent().map(hooks::output_is_in);
    }
    reworded(stopped, |m| {
        let m = match &output_is {
            Some(said) => m.replace(said, "its output is above"),
            None => m,
        };
        format!("{m}; no run began, so no result was written")
    })
}

/// `e` of the same kind, its message reworded by `f`.
fn reworded(e: Error, f: impl FnOnce(String) -> String) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(f(m)),
        Error::Environment(m) => Error::Environment(f(m)),
        Error::Failed(m) => Error::Failed(f(m)),
        Error::Interrupted(m) => Error::Interrupted(f(m)),
    }
}

/// Why `target` cannot be reached now, or `None` when it answers within [`PROBE_TIMEOUT`].
async fn unreachable(target: &Target) -> Option<String> {
    match tokio::time::timeout(PROBE_TIMEOUT, Conn::open(target)).await {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(_) => Some(format!("no answer within {} s", PROBE_TIMEOUT.as_secs())),
    }
}
