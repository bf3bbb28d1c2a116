//! `oltpgen report show|compare|html|merge`: results read back from their files, no database.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use oltpgen_driver::Error;
use oltpgen_report::model::RunResult;
use oltpgen_report::output::ResultDir;
use oltpgen_report::{compare, html, merge, output, show};

use crate::cli::ReportAction;

/// Runs one report command.
pub fn run(action: ReportAction) -> Result<ExitCode, Error> {
    match action {
        ReportAction::Show { result } => print!("{}", show::render(&read(&result)?)),
        ReportAction::Compare { a, b } => {
            print!("{}", compare::render(&compare::compare(&read(&a)?, &read(&b)?)))
        }
        ReportAction::Html { result, out } => {
            let file = match out {
                // A directory (or a name ending in `/`, made when missing): report.html in it.
                Some(dir) if dir.is_dir() || dir.as_os_str().to_string_lossy().ends_with('/') => {
                    std::fs::create_dir_all(&dir)
                        .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
                    dir.join("report.html")
                }
                Some(file) => file,
                None => result_file(&result).with_file_name("report.html"),
            };
            std::fs::write(&file, html::render(&read(&result)?))
                .map_err(|e| Error::failed(format!("cannot write {}: {e}", file.display())))?;
            println!("wrote {}", file.display());
        }
        ReportAction::Merge { results, out, replace } => {
            ResultDir::Given(out.clone()).check(replace).map_err(|e| Error::usage(format!("--out: {e}")))?;
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
