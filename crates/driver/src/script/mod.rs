//! pgbench's scripts as a workload (`oltpgen custom run --pgbench-script FILE[@W]`,
//! `--pgbench-builtin NAME[@W]`): each script one transaction type, drawn by weight, run verbatim by
//! [`oltpgen_datagen::pgbench`]'s interpreter on one connection from its start to its end.
//!
//! The database is pgbench's (`pgbench -i` or `oltpgen tpcb load`, [`Tpcb`](crate::tpcb::Tpcb)) for the
//! built-in scripts, or whatever a user's scripts query.

mod run;

use std::path::Path;

use oltpgen_datagen::pgbench::{self, AckFrom, Script, ScriptAck, Value};
use oltpgen_report::model::descriptor::Descriptor;

pub use run::{ScriptDriver, ScriptRunOptions, run};

use crate::Error;
use crate::workload::{Kinds, Profile};

/// pgbench's `--max-tries` default: a transaction that meets a serialization failure or a deadlock is
/// tried once, not again (pgbench 15 retries only when `--max-tries` asks).
pub const DEFAULT_MAX_TRIES: u32 = 1;

/// The scripts of a run, read and checked, with their weights and the variables `-D` set.
#[derive(Clone, Debug)]
pub struct Scripts {
    scripts: Vec<Script>,
    weights: Vec<u32>,
    /// Whether a built-in script is among them (then `:scale` is read from `pgbench_branches`).
    builtin: bool,
    /// `-D name=value`, in order.
    defines: Vec<(String, String)>,
    profile: Profile,
}

impl Scripts {
    /// The scripts `files` (`FILE[@WEIGHT]`) and `builtins` (`NAME[@WEIGHT]`) name, with `defines`
    /// (`name=value`).
    ///
    /// # Errors
    /// [`Error::Usage`] naming the flag, the file and line, and what is wrong.
    pub fn read(files: &[String], builtins: &[String], defines: &[String]) -> Result<Self, Error> {
        let mut scripts = Vec::new();
        let mut weights = Vec::new();
        for spec in builtins {
            let (name, weight) = weighted("--pgbench-builtin", spec)?;
            let (full, text) = pgbench::builtin(name).ok_or_else(|| {
                Error::usage(format!(
                    "--pgbench-builtin {name}: no such built-in script (or several start so): give tpcb-like, \
                     simple-update or select-only"
                ))
            })?;
            let mut script =
                Script::parse(full, text).map_err(|e| Error::usage(format!("--pgbench-builtin: {e}")))?;
            script.ack = builtin_ack(&script);
            scripts.push(script);
            weights.push(weight);
        }
        for spec in files {
            let (file, weight) = weighted("--pgbench-script", spec)?;
            let text = std::fs::read_to_string(Path::new(file))
                .map_err(|e| Error::usage(format!("--pgbench-script: cannot read {file}: {e}")))?;
            scripts.push(
                Script::parse(file, &text).map_err(|e| Error::usage(format!("--pgbench-script: {e}")))?,
            );
            weights.push(weight);
        }
        if weights.iter().all(|&w| w == 0) {
            return Err(Error::usage(
                "--pgbench-script/--pgbench-builtin: the scripts' weights add up to 0: give one a weight",
            ));
        }
        let mut names: Vec<String> = Vec::new();
        for s in &scripts {
            // A file's stem (`mine` for `dir/mine.sql`), so that `--rt-cap mine.p95=…` reads.
            let stem = Path::new(&s.name).file_stem().map(|f| f.to_string_lossy().into_owned());
            let base = stem.unwrap_or_else(|| s.name.clone());
            let mut name = base.clone();
            let mut n = 2;
            while names.contains(&name) {
                name = format!("{base}-{n}");
                n += 1;
            }
            names.push(name);
        }
        let defines = defines
            .iter()
            .map(|d| match d.split_once('=') {
                Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
                _ => Err(Error::usage(format!("--define {d}: give name=value"))),
            })
            .collect::<Result<_, _>>()?;
        // The names live as long as the process, as a defined workload's do.
        let names: &'static [&'static str] = Box::leak(
            names.into_iter().map(|n| &*Box::leak(n.into_boxed_str())).collect::<Vec<_>>().into_boxed_slice(),
        );
        let profile = Profile::new(Descriptor::per_second("pgbench"), Kinds::plain(names));
        Ok(Scripts { builtin: !builtins.is_empty(), scripts, weights, defines, profile })
    }

    /// The run's profile: one transaction type per script, named by its file's stem or built-in name.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Whether a built-in script is among them.
    pub fn has_builtin(&self) -> bool {
        self.builtin
    }

    /// The value `-D` gave `name`, if it did.
    fn defined(&self, name: &str) -> Option<&str> {
        self.defines.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// `:scale` as pgbench sets it: `-D scale=N`; else, with a built-in script, what the database holds
    /// (`loaded`, pgbench_branches' rows); else `--scale`; else 1.
    fn scale(&self, asked: Option<u64>, loaded: Option<u64>) -> Value {
        if let Some(v) = self.defined("scale") {
            return Value::from_text(v).unwrap_or(Value::Int(1));
        }
        let scale = if self.builtin { loaded.or(asked) } else { asked };
        Value::Int(scale.unwrap_or(1) as i64)
    }
}

/// A built-in script's acknowledgement, named by oltpgen's wrapper (pgbench's text stays verbatim): its
/// history insert, keyed by what it inserts (`tid, bid, aid, delta`: the row of `pgbench_history`,
/// which has no key of its own, so alike rows are counted), read back from `pgbench_history`; none
/// for `select-only`, which commits nothing.
fn builtin_ack(script: &Script) -> Option<ScriptAck> {
    let sql = script.sql.iter().position(|q| q.text.starts_with("INSERT INTO pgbench_history"))?;
    let columns = script.sql[sql].params.join(", ");
    Some(ScriptAck { sql, from: AckFrom::Params, check: format!("SELECT {columns} FROM pgbench_history") })
}

fn weighted<'a>(flag: &str, spec: &'a str) -> Result<(&'a str, u32), Error> {
    pgbench::split_weight(spec)
        .ok_or_else(|| Error::usage(format!("{flag} {spec}: the weight after @ must be a whole number")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_named_by_their_files_stems_and_built_in_names() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mine.sql");
        std::fs::write(&file, "SELECT 1;\n").unwrap();
        let f = file.to_str().unwrap().to_string();
        let s = Scripts::read(&[format!("{f}@2"), f], &["select".into()], &[]).unwrap();
        assert_eq!(s.profile().kinds.names, ["select-only", "mine", "mine-2"]);
        assert_eq!(s.weights, [1, 2, 1]);
        assert!(s.has_builtin());
    }

    #[test]
    fn a_builtin_that_commits_is_acknowledged_by_its_history_insert_its_text_verbatim() {
        let s = Scripts::read(&[], &["tpcb-like".into(), "simple-update".into(), "select-only".into()], &[])
            .unwrap();
        for (script, insert) in s.scripts.iter().zip([5, 3]) {
            let ack = script.ack.as_ref().unwrap();
            assert_eq!((ack.sql, ack.from), (insert, AckFrom::Params), "{}", script.name);
            assert_eq!(ack.check, "SELECT tid, bid, aid, delta FROM pgbench_history");
            let (_, text) = pgbench::builtin(&script.name).unwrap();
            assert!(!text.contains("oltpgen"), "pgbench's text as it ships");
        }
        assert_eq!(s.scripts[2].ack, None, "select-only commits nothing");
    }
}
