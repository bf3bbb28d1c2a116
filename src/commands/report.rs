//! `oltpgen report show|compare|html|merge`: results read back from their files, no database.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use oltpgen_driver::Error;
use oltpgen_report::claim::{self, FileClaim};
use oltpgen_report::model::RunResult;
use oltpgen_report::output;
use oltpgen_report::output::ResultDir;
use oltpgen_report::render::html::{compare as html_compare, result as html};
use oltpgen_report::render::text::{compare as compare_text, show};
use oltpgen_report::stats::{compare, merge};

use crate::cli::ReportAction;

/// Runs one report command.
pub fn run(action: ReportAction) -> Result<ExitCode, Error> {
    match action {
        ReportAction::Show { result } => print!("{}", show::report(&read(&result)?)),
        ReportAction::Compare { a, b, fail_if_slower, json } => {
            let (a, b) = (read(&a)?, read(&b)?);
            let c = compare::compare(&a, &b);
            match json {
                true => println!("{}", serde_json::to_string_pretty(&c).expect("a comparison serializes")),
                false => print!("{}", compare_text::render(&c)),
            }
            if let Some(pct) = fail_if_slower {
                match c.gate(pct, a.max_within_cap.is_some()) {
                    compare::Gate::Pass(why) => eprintln!("--fail-if-slower {pct}: pass: {why}"),
                    compare::Gate::Fail(why) => {
                        eprintln!("--fail-if-slower {pct}: FAIL: {why}");
                        return Ok(ExitCode::FAILURE);
                    }
                }
            }
        }
        ReportAction::Html { results, out } => {
            let (file, make_dir) = match (out, results.as_slice()) {
                // A directory (or a name ending in `/`, made when missing): report.html in it.
                (Some(dir), _) if dir.is_dir() || dir.as_os_str().to_string_lossy().ends_with('/') => {
                    claim::check_room(&dir).map_err(out_error)?;
                    (dir.join("report.html"), Some(dir))
                }
                (Some(file), _) => (file, None),
                // Beside the result: its own report.html, rendered again.
                (None, [one]) => {
                    let file = result_file(one).with_file_name("report.html");
                    let page = html::render(&read(one)?);
                    std::fs::write(&file, page)
                        .map_err(|e| Error::failed(format!("cannot write {}: {e}", file.display())))?;
                    println!("wrote {}", file.display());
                    return Ok(ExitCode::SUCCESS);
                }
                (None, _) => {
                    return Err(Error::usage(
                        "--out: a comparison page of several results needs --out FILE|DIR".to_string(),
                    ));
                }
            };
            // --out never writes over a file: checked before the results are read (a directory to
            // make is made once the page is rendered).
            if make_dir.as_ref().is_none_or(|d| d.is_dir()) {
                claim::check_new_file(&file).map_err(out_error)?;
            }
            let page = match results.as_slice() {
                [one] => html::render(&read(one)?),
                several => {
                    let named = several
                        .iter()
                        .map(|p| Ok((name_of(p), read(p)?)))
                        .collect::<Result<Vec<_>, Error>>()?;
                    html_compare::render(&named)
                }
            };
            if let Some(dir) = &make_dir {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
            }
            FileClaim::write_new(&file, page.as_bytes()).map_err(out_error)?;
            println!("wrote {}", file.display());
        }
        ReportAction::Merge { results, out, replace } => {
            // Held until the merged result is written: a second command writing there is refused.
            let _claim = ResultDir::Given(out.clone()).claim(replace).map_err(out_error)?;
            let all = results.iter().map(|p| read(p)).collect::<Result<Vec<_>, _>>()?;
            let merged =
                merge::merge(&all).map_err(|e| Error::usage(format!("cannot merge these results: {e}")))?;
            output::write_dir(&out, &merged)
                .map_err(|e| Error::failed(format!("cannot write {}: {e}", out.display())))?;
            println!("merged {} results into {}", all.len(), out.display());
            print!("{}", show::render(&merged));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A bad `--out`: a usage error.
fn out_error(why: String) -> Error {
    Error::usage(format!("--out: {why}"))
}

/// What a comparison page calls a result: its directory's name (`result.json`'s parent), or its file's.
fn name_of(path: &Path) -> String {
    let file = result_file(path);
    let named = if file.file_name().is_some_and(|n| n == "result.json") {
        file.parent()
    } else {
        Some(file.as_path())
    };
    named
        .and_then(|p| p.file_name())
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// A result's file: `path`, or `result.json` in the directory `path`.
fn result_file(path: &Path) -> PathBuf {
    if path.is_dir() { path.join("result.json") } else { path.to_path_buf() }
}

/// Reads a result, from its file or from the directory holding `result.json`.
fn read(path: &Path) -> Result<RunResult, Error> {
    let file = result_file(path);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Error::usage(format!("cannot read {}: {e}", file.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Error::usage(format!("{} is not an oltpgen result: {e}", file.display())))
}
