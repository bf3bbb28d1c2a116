//! `oltpgen report show|compare|html|merge`: results read back from their files, rendered, compared,
//! merged; no database.

use std::path::{Path, PathBuf};

use oltpgen_report::model::RunResult;
use oltpgen_report::render::html::{compare as html_compare, result as html};
use oltpgen_report::render::text::compare as compare_text;
use oltpgen_report::render::text::show::{self, AuditView};
use oltpgen_report::stats::{compare, merge};

use super::{Console, Exit};
use crate::Error;
use crate::files::acks;
use crate::files::result_dir::{self, ResultDir, read_result};
use oltpgen_vocab::claim::{self, FileClaim};

/// `report show`: what the result at `path` ran, its steps' details, and last its step table, audit
/// lines and headline; with `full_audit`, every check of every step's audit before the table.
///
/// # Errors
/// A result that cannot be read.
pub fn show(path: &Path, full_audit: bool, console: &mut dyn Console) -> Result<Exit, Error> {
    let result = read_result(path)?;
    let shown = path.display().to_string();
    let audit = if full_audit { AuditView::Full } else { AuditView::Lines { result: &shown } };
    console.out(&show::report(&result, audit));
    Ok(Exit::Success)
}

/// `report compare`: B against A, as a table or as JSON; with `fail_if_slower` (a percentage), a
/// failure when B's headline is below A's by more than it.
///
/// # Errors
/// A result that cannot be read; results of different workloads (a usage error: nothing compares).
pub fn compare(
    a: &Path,
    b: &Path,
    fail_if_slower: Option<f64>,
    json: bool,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    let (a, b) = (read_result(a)?, read_result(b)?);
    let c = compare::compare(&a, &b).map_err(compare_error)?;
    if json {
        console.line(&serde_json::to_string_pretty(&c).expect("a comparison serializes"));
    } else {
        console.out(&compare_text::render(&c));
    }
    let Some(pct) = fail_if_slower else { return Ok(Exit::Success) };
    match c.gate(pct, a.max_within_cap.is_some()) {
        compare::Gate::Pass(why) => console.err_line(&format!("--fail-if-slower {pct}: pass: {why}")),
        compare::Gate::Fail(why) => {
            console.err_line(&format!("--fail-if-slower {pct}: FAIL: {why}"));
            return Ok(Exit::Failure);
        }
    }
    Ok(Exit::Success)
}

/// `report html`: one result's page (beside it unless `out` says where), or a comparison page of
/// several (`out` required: a file, or a directory to write `report.html` into). Never writes over a
/// file, except a result's own `report.html`, rendered again, and with `replace` a page oltpgen wrote
/// at `out` (so that the same command runs twice).
///
/// # Errors
/// A bad `--out`, a result that cannot be read, results of different workloads, a page that cannot be
/// written.
pub fn html(
    results: &[PathBuf],
    out: Option<&Path>,
    replace: bool,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    let (file, make_dir) = match (out, results) {
        // A directory (or a name ending in `/`, made when missing): report.html in it.
        (Some(dir), _) if dir.is_dir() || dir.as_os_str().to_string_lossy().ends_with('/') => {
            claim::check_room(dir).map_err(out_error)?;
            (dir.join("report.html"), Some(dir))
        }
        (Some(file), _) => (file.to_path_buf(), None),
        // Beside the result: its own report.html, rendered again.
        (None, [one]) => {
            let file = result_dir::result_file(one).with_file_name("report.html");
            let page = html::render(&read_result(one)?);
            std::fs::write(&file, page)
                .map_err(|e| Error::failed(format!("cannot write {}: {e}", file.display())))?;
            console.line(&format!("wrote {}", file.display()));
            return Ok(Exit::Success);
        }
        (None, _) => {
            return Err(Error::usage("--out: a comparison page of several results needs --out FILE|DIR"));
        }
    };
    // --out never writes over a file but, with --replace, a page oltpgen wrote: checked before the
    // results are read (a directory to make is made once the page is rendered).
    let over = make_dir.is_none_or(Path::is_dir) && page_to_replace(&file, replace)?;
    let page = match results {
        [one] => html::render(&read_result(one)?),
        several => {
            let named = several
                .iter()
                .map(|p| Ok((result_dir::result_name(p), read_result(p)?)))
                .collect::<Result<Vec<_>, Error>>()?;
            html_compare::render(&named).map_err(compare_error)?
        }
    };
    if let Some(dir) = make_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    if over {
        replace_page(&file, page.as_bytes())?;
    } else {
        FileClaim::write_new(&file, page.as_bytes()).map_err(out_error)?;
    }
    console.line(&format!("wrote {}", file.display()));
    Ok(Exit::Success)
}

/// Whether `report html --out FILE` writes over `file`: `false` for a new file; `true` for a page
/// oltpgen wrote there, given `replace`.
///
/// # Errors
/// A usage error: a file there without `replace`, or one oltpgen did not write (never written over),
/// or `file` a directory or in a directory that does not exist.
fn page_to_replace(file: &Path, replace: bool) -> Result<bool, Error> {
    if file.is_dir() || file.symlink_metadata().is_err() {
        return claim::check_new_file(file).map(|()| false).map_err(out_error);
    }
    if !replace {
        return Err(out_error(format!(
            "{} already exists: name a new file, or pass --replace to write over the page oltpgen wrote there",
            file.display()
        )));
    }
    let ours = std::fs::read_to_string(file).is_ok_and(|text| oltpgen_report::render::html::is_page(&text));
    if !ours {
        return Err(out_error(format!(
            "{} is not a page oltpgen wrote: --replace writes over oltpgen's pages only; name a new file",
            file.display()
        )));
    }
    Ok(true)
}

/// Writes `bytes` over the page at `file` whole: into a file beside it, then renamed over it, so that a
/// failed write leaves the old page.
fn replace_page(file: &Path, bytes: &[u8]) -> Result<(), Error> {
    let name = file.file_name().map_or("report.html".into(), |n| n.to_string_lossy().into_owned());
    let temp = file.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, file));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        Error::failed(format!("cannot write {}: {e}", file.display()))
    })
}

/// `report merge`: the results of one plan (several machines or targets) merged exactly into `out`
/// (written over only with `replace`), and the merged step table said.
///
/// # Errors
/// A bad `--out`, a result that cannot be read, results that are not parts of one plan, a result that
/// cannot be written.
pub fn merge(
    results: &[PathBuf],
    out: &Path,
    replace: bool,
    console: &mut dyn Console,
) -> Result<Exit, Error> {
    // Held until the merged result is written: a second command writing there is refused.
    let _claim = ResultDir::Given(out.to_path_buf()).claim(replace).map_err(out_error)?;
    let all = results.iter().map(|p| read_result(p)).collect::<Result<Vec<RunResult>, _>>()?;
    let merged = merge::merge(&all).map_err(|e| Error::usage(format!("cannot merge these results: {e}")))?;
    result_dir::write_dir(out, &merged)
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", out.display())))?;
    // The parts' acknowledged orders too, for `check --result` of the merged result.
    if let Err(why) = acks::merge(results, out) {
        console.err_line(&format!("warning: the merged result has no {}: {why}", acks::ACKS_FILE));
    }
    console.line(&format!("merged {} results into {}", all.len(), out.display()));
    console.out(&show::render(&merged, &out.display().to_string()));
    Ok(Exit::Success)
}

/// Results that cannot be compared: a usage error, as nothing was wrong but the choice of results.
fn compare_error(e: compare::CompareError) -> Error {
    Error::usage(format!("cannot compare these results: {e}"))
}

/// A bad `--out`: a usage error.
fn out_error(why: String) -> Error {
    Error::usage(format!("--out: {why}"))
}
