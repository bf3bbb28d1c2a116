//! A result directory: `result.json` (the document everything else is rendered from), `summary.txt`,
//! `timeseries.csv`, `counters.csv` and `report.html`. `result.json` is written after every judged step and replaced
//! atomically (a temporary file renamed over it), so a run killed part-way keeps every step it judged;
//! the whole directory is written when a run ends, interrupted or not, and read back by the report
//! commands. Whether a directory may be written, and the command's hold on it, are `oltpgen_vocab::claim`'s.

use std::path::{Path, PathBuf};

use oltpgen_report::model::RunResult;
use oltpgen_report::render::csv::result as csv;
use oltpgen_report::render::html::result as html;
use oltpgen_report::render::text::summary;

use crate::Error;
use oltpgen_vocab::claim::{self, DirClaim, RESULT_FILE, TEMP_FILE};

/// Writes the result files into `dir` (created when missing).
///
/// # Errors
/// The I/O error of the first file that cannot be written.
pub fn write_dir(dir: &Path, result: &RunResult) -> std::io::Result<()> {
    write_result(dir, result)?;
    std::fs::write(dir.join("summary.txt"), summary::render(result))?;
    std::fs::write(dir.join("timeseries.csv"), csv::timeseries(result))?;
    std::fs::write(dir.join("counters.csv"), csv::counters(result))?;
    std::fs::write(dir.join("report.html"), html::render(result))
}

/// Writes `result.json` into `dir` (created when missing) atomically: a reader, or a run killed while
/// it writes, sees the previous document or the new one, never half of one.
///
/// # Errors
/// The I/O error of the write or the rename.
pub fn write_result(dir: &Path, result: &RunResult) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(result).map_err(std::io::Error::other)?;
    let temp = dir.join(TEMP_FILE);
    std::fs::write(&temp, json + "\n")?;
    std::fs::rename(&temp, dir.join(RESULT_FILE))
}

/// Where a run's result directory is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultDir {
    /// The directory the user named (`--out`).
    Given(PathBuf),
    /// `results/<start time in UTC>-<workload>` in the current directory, named when the run starts
    /// (`…-<workload>-agent<I>` for agent I of several, whose common start would name them alike).
    Dated,
}

impl ResultDir {
    /// The directory `result`'s files go to: the one given, or one named from the run's start time
    /// (`started_at`, so every write of one run lands in one directory).
    pub fn path(&self, result: &RunResult) -> PathBuf {
        match self {
            ResultDir::Given(dir) => dir.clone(),
            ResultDir::Dated => {
                let workload = result.workload.name();
                let agent = match result.config.get("agent").and_then(|a| a.as_str()?.split_once('/')) {
                    Some((index, _)) => format!("-agent{index}"),
                    None => String::new(),
                };
                let name = format!("{}-{workload}{agent}", result.started_at.replace(':', ""));
                Path::new(DATED_PARENT).join(name)
            }
        }
    }

    /// Checks before a run starts, creating nothing, that its result can be written: nothing in the
    /// way of the directory, which takes a file and holds nothing but a result, and that only with
    /// `replace` (which lets it be written over); the parent of dated directories need only take one.
    ///
    /// # Errors
    /// One line naming the directory and what is wrong with it.
    pub fn check(&self, replace: bool) -> Result<(), String> {
        match self {
            ResultDir::Given(dir) => claim::check_dir(dir, replace),
            ResultDir::Dated => claim::check_room(Path::new(DATED_PARENT)),
        }
    }

    /// Claims the directory when the command starts work, so that a second command writing there is
    /// refused at its start ([`DirClaim::take`]); a dated directory, named only when the run starts,
    /// is made then.
    ///
    /// # Errors
    /// One line naming the directory and what is wrong with it.
    pub fn claim(&self, replace: bool) -> Result<DirClaim, String> {
        match self {
            ResultDir::Given(dir) => DirClaim::take(dir, replace),
            ResultDir::Dated => Ok(DirClaim::none()),
        }
    }
}

/// Where dated result directories go.
const DATED_PARENT: &str = "results";

/// A result's file: `path`, or [`RESULT_FILE`] in the directory `path`.
pub fn result_file(path: &Path) -> PathBuf {
    if path.is_dir() { path.join(RESULT_FILE) } else { path.to_path_buf() }
}

/// Reads a result back, from its file or from the directory holding [`RESULT_FILE`].
///
/// # Errors
/// A usage error naming the file that cannot be read or is not an oltpgen result.
pub fn read_result(path: &Path) -> Result<RunResult, Error> {
    let file = result_file(path);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Error::usage(format!("cannot read {}: {e}", file.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Error::usage(format!("{} is not an oltpgen result: {e}", file.display())))
}

/// What a comparison page calls a result: its directory's name ([`RESULT_FILE`]'s parent), or its
/// file's.
pub fn result_name(path: &Path) -> String {
    let file = result_file(path);
    let named =
        if file.file_name().is_some_and(|n| n == RESULT_FILE) { file.parent() } else { Some(file.as_path()) };
    named
        .and_then(|p| p.file_name())
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use oltpgen_report::model::{ClientCpu, SCHEMA_VERSION, Server, Tool, Workload};

    /// A result of `workload` with no steps.
    fn result(workload: Workload, steps: Vec<oltpgen_report::model::Step>) -> RunResult {
        RunResult {
            schema_version: SCHEMA_VERSION,
            tool: Tool { name: "oltpgen".into(), version: "0.1.0".into() },
            workload: workload.into(),
            written_descriptor: Some(workload.descriptor().clone()),
            started_at: "2025-01-01T00:00:00Z".into(),
            config: serde_json::json!({}),
            server: Server::default(),
            targets: vec!["db".into()],
            max_within_cap: None,
            steps,
            timeseries: Vec::new(),
            client: ClientCpu::default(),
            errors_by_kind: Default::default(),
            interrupted: false,
            power: None,
            cost: None,
            counters: Vec::new(),
            endurance: None,

            runs: Vec::new(),
            outages: Vec::new(),
            fault: None,
            lost_commits: None,
            served_by: Vec::new(),
        }
    }

    #[test]
    fn result_json_is_replaced_whole_and_an_existing_result_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = ResultDir::Given(dir.path().join("run"));
        out.check(false).unwrap();
        assert!(!out.path(&result(Workload::Tpcc, Vec::new())).exists(), "a check creates nothing");
        let mut r = result(Workload::Tpcc, Vec::new());
        write_result(&out.path(&r), &r).unwrap();
        r.interrupted = true;
        write_result(&out.path(&r), &r).unwrap();
        let names: Vec<_> =
            std::fs::read_dir(out.path(&r)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["result.json"], "no temporary file is left");
        let back: RunResult =
            serde_json::from_str(&std::fs::read_to_string(out.path(&r).join(RESULT_FILE)).unwrap()).unwrap();
        assert!(back.interrupted);
        let e = out.check(false).unwrap_err();
        assert!(e.contains("already holds a result") && e.contains("--replace"), "{e}");
        out.check(true).unwrap();
        std::fs::write(dir.path().join("file"), "").unwrap();
        let e = ResultDir::Given(dir.path().join("file")).check(true).unwrap_err();
        assert!(e.contains("is a file, not a directory"), "{e}");
    }

    #[test]
    fn a_dated_directory_is_named_from_the_start() {
        let mut r = result(Workload::Ds2, Vec::new());
        r.started_at = "2026-01-02T03:04:05Z".into();
        assert_eq!(ResultDir::Dated.path(&r), Path::new("results/2026-01-02T030405Z-ds2"));
    }
}
