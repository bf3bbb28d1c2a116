//! A workload defined at run time: its tables, their rows and its weighted transactions come from a
//! [`WorkloadDef`] (a file a user wrote, or a value made in code), and it is loaded, driven, checked,
//! restored and reported exactly as TPC-C is, through the workload family ([`Stored`], [`Driven`](crate::run::Driven)).
//!
//! Its statements are the user's own SQL, with oltpgen's `$1` placeholders, in each engine's dialect
//! where the definition gives one ([`engine::defined`](crate::engine::defined)). Its load is the
//! loader's, so its tables, keys and rows go to any engine alike.

mod locate;
mod run;
mod ycsb;

use std::path::Path;
use std::sync::Arc;

use oltpgen_datagen::defined::{DefinedData, WorkloadDef};
use oltpgen_report::model::checks::{Clause, ClauseOutcome};
use oltpgen_report::model::descriptor::Descriptor;
use serde::{Deserialize, Serialize};

pub use run::{DefinedDriver, RunOptions, run};

use crate::engine::Conn;
use crate::engine::defined::dialect;
use crate::inventory;
use crate::load::{self, LoadOptions, LoadSummary, Loading};
use crate::restore::{self, Extras};
use crate::workload::{Kinds, Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::target::Engine;

/// A workload defined at run time, checked and ready: its definition interned for the process's life
/// (see [`oltpgen_datagen::defined`]) and its profile made from it.
#[derive(Clone, Debug)]
pub struct Defined {
    workload: &'static oltpgen_datagen::defined::Workload,
    profile: Profile,
    /// The definition's fingerprint, recorded by a load: a run or restore with another definition of
    /// the same name is refused.
    fingerprint: u64,
    /// The file it was read from, as written: what a run's result embeds (`None` for one built in code).
    source: Option<Arc<str>>,
    /// The file's path, to name it and the line at fault when the server refuses a part of it.
    path: Option<Arc<Path>>,
}

/// What a load of a defined workload records about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedParams {
    /// The scale loaded: every table holds its rows times this.
    pub scale: u64,
    /// The data's seed.
    pub seed: u64,
    /// The fingerprint of the definition loaded.
    pub definition: u64,
    /// Runs driven since the load.
    #[serde(default)]
    pub runs: u32,
    /// The definition loaded, so that a run with another can name what changed (absent in the records of
    /// loads before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_definition: Option<WorkloadDef>,
}

impl Defined {
    /// The workload `def` defines, checked.
    ///
    /// # Errors
    /// [`Error::Usage`] with the definition's fault in one line.
    pub fn new(def: WorkloadDef) -> Result<Self, Error> {
        let fingerprint = fingerprint(&def);
        let name = def.name.clone();
        let workload = def.intern().map_err(|e| Error::usage(format!("workload {name}: {e}")))?;
        let kinds = Kinds::plain(workload.txn_names());
        let profile = match workload.per_minute() {
            Some(per_minute) => Profile::new(
                Descriptor::per_minute_of(workload.name(), workload.txn_names()[per_minute]),
                Kinds { per_minute, ..kinds },
            ),
            None => Profile::new(Descriptor::per_second(workload.name()), kinds),
        };
        Ok(Defined { workload, profile, fingerprint, source: None, path: None })
    }

    /// The workload the TOML file at `path` defines.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the file and what is wrong with it.
    pub fn read(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::usage(format!("--file: cannot read {}: {e}", path.display())))?;
        let def: WorkloadDef = toml::from_str(&text).map_err(|e| {
            let line = e.span().map_or(1, |at| text[..at.start].matches('\n').count() + 1);
            Error::usage(format!("--file: {}: line {line}: {}", path.display(), one_line(e.message())))
        })?;
        let defined = Self::new(def).map_err(|e| Error::usage(at_line(path, &text, &e.to_string())))?;
        Ok(Defined { source: Some(text.into()), path: Some(path.into()), ..defined })
    }

    /// The definition's data at `scale` from `seed`.
    fn data(&self, scale: u64, seed: u64) -> Result<DefinedData, Error> {
        DefinedData::new(self.workload, scale, seed).map_err(|e| Error::usage(format!("--scale: {e}")))
    }

    /// The statements a session on `engine` prepares, in its dialect, in the order a draw numbers them.
    fn statements(&self, engine: Engine) -> Vec<String> {
        self.workload.statements_in(dialect(engine)).into_iter().map(str::to_string).collect()
    }
}

/// Every workload defined in a file (or shipped as one, YCSB) whose load record `target` holds, by
/// name, with the definition the record keeps: what `custom drop` without `--file` drops.
///
/// # Errors
/// [`Error::Failed`] when the record cannot be read.
pub async fn loaded(target: &Target) -> Result<Vec<(String, WorkloadDef)>, Error> {
    let conn = Conn::open(target).await?;
    let mut found = Vec::new();
    for name in crate::engine::defined::loaded_workloads(&conn, target).await? {
        let Some(row) = conn.read_meta(target, &name).await? else { continue };
        // A built-in workload's record is not a defined one's: it keeps no definition.
        if let Ok(LoadedParams { loaded_definition: Some(def), .. }) = serde_json::from_value(row.params) {
            found.push((name, def));
        }
    }
    Ok(found)
}

/// `error`, about the workload file `path` holding `text`, as `--file: PATH:LINE: error` (the line of
/// the part the error names, where it can be found).
fn at_line(path: &Path, text: &str, error: &str) -> String {
    match locate::line_of(text, error) {
        Some(line) => format!("--file: {}:{line}: {error}", path.display()),
        None => format!("--file: {}: {error}", path.display()),
    }
}

impl Defined {
    /// A usage error about a part of the workload the server refused, at the part's line of the file
    /// it was read from; other errors as they are.
    pub(crate) fn in_file(&self, e: Error) -> Error {
        match (e, &self.path, &self.source) {
            (Error::Usage(msg), Some(path), Some(text)) => Error::usage(at_line(path, text, &msg)),
            (e, ..) => e,
        }
    }
}

/// What differs between the definition `was` loaded and `now`: each table, transaction or check by
/// name, changed, added or removed.
fn changes(was: &WorkloadDef, now: &WorkloadDef) -> Vec<String> {
    fn diff<T: PartialEq>(what: &str, was: &[T], now: &[T], name: impl Fn(&T) -> &str) -> Vec<String> {
        let find = |list: &'_ [T], n: &str| list.iter().position(|t| name(t) == n);
        let mut out = Vec::new();
        for t in was {
            match find(now, name(t)) {
                None => out.push(format!("{what} {} removed", name(t))),
                Some(i) if now[i] != *t => out.push(format!("{what} {} changed", name(t))),
                Some(_) => {}
            }
        }
        out.extend(
            now.iter().filter(|t| find(was, name(t)).is_none()).map(|t| format!("{what} {} added", name(t))),
        );
        out
    }
    let mut out = diff("table", &was.tables, &now.tables, |t| &t.name);
    out.extend(diff("transaction", &was.transactions, &now.transactions, |t| &t.name));
    out.extend(diff("check", &was.checks, &now.checks, |c| &c.name));
    if was.headline != now.headline {
        out.push("headline changed".into());
    }
    out
}

/// A TOML error's message on one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A stable fingerprint of a definition (FNV-1a over its JSON form).
fn fingerprint(def: &WorkloadDef) -> u64 {
    let json = serde_json::to_string(def).expect("a definition serializes");
    json.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

impl Stored for Defined {
    type Params = LoadedParams;
    type Size = u64;
    type Asked = u64;
    type Origin = ();

    fn profile(&self) -> &Profile {
        &self.profile
    }

    fn tables(&self) -> Vec<&str> {
        self.workload.tables().iter().map(|t| t.name).collect()
    }

    /// Nothing beside its tables and keys.
    fn finish(&self, _engine: Engine) -> Vec<String> {
        Vec::new()
    }

    /// The definition the load recorded, when it is another than this one: its tables (and with them
    /// their keys and indexes) are what the load made.
    fn as_loaded(&self, params: &LoadedParams) -> Option<Self> {
        let def = params.loaded_definition.as_ref().filter(|_| params.definition != self.fingerprint)?;
        Defined::new(def.clone()).ok()
    }

    fn describe(&self, p: &LoadedParams) -> String {
        format!("scale {}", p.scale)
    }

    fn seed(&self, p: &LoadedParams) -> u64 {
        p.seed
    }

    fn runs(&self, p: &LoadedParams) -> u32 {
        p.runs
    }

    async fn identify(&self, conn: &Conn, target: &Target) -> Result<(LoadedParams, ()), Error> {
        let loaded: LoadedParams = inventory::loaded(self, conn, target).await?;
        if loaded.definition != self.fingerprint {
            let changed =
                loaded.loaded_definition.as_ref().map(|was| changes(was, self.workload.source_def()));
            let changed =
                changed.filter(|c| !c.is_empty()).map_or(String::new(), |c| format!(" ({})", c.join(", ")));
            return Err(Error::usage(format!(
                "{target} holds {} loaded from another definition of it{changed}: reload it with this one \
                 (oltpgen custom load --file FILE --replace)",
                self.name()
            )));
        }
        Ok((loaded, ()))
    }

    fn records_runs(&self, (): ()) -> bool {
        true
    }

    fn mismatch(&self, target: &Target, loaded: &LoadedParams, asked: &u64) -> Option<Error> {
        (*asked != loaded.scale).then(|| {
            Error::usage(format!(
                "{target} holds {} at scale {} but --scale {asked} was asked: run at --scale {}, or reload \
                 with --scale {asked} --replace",
                self.name(),
                loaded.scale,
                loaded.scale
            ))
        })
    }

    fn same_size(&self, a: &LoadedParams, b: &LoadedParams) -> bool {
        a.scale == b.scale
    }

    fn size_words(&self, scale: u64) -> String {
        format!("{} scale {scale}", self.name())
    }

    /// The rows' width on the wire, twice over for keys and the table's own overhead.
    fn size_bytes(&self, scale: u64) -> u64 {
        let tables = self.workload.tables().iter().enumerate();
        tables.map(|(i, t)| 2 * t.row_bytes() * self.workload.rows_at(i, scale).unwrap_or(0)).sum()
    }

    async fn load(
        &self,
        target: &Target,
        scale: u64,
        seed: u64,
        opts: &LoadOptions,
    ) -> Result<LoadSummary, Error> {
        let data = self.data(scale, seed)?;
        let params = LoadedParams {
            scale,
            seed,
            definition: self.fingerprint,
            runs: 0,
            loaded_definition: Some(self.workload.source_def().clone()),
        };
        load::load(
            self,
            target,
            Loading::<Defined, _> { data, params, extra_indexes: Vec::new(), extra_dropped: Vec::new() },
            opts,
        )
        .await
    }

    async fn write_csv(&self, dir: &Path, scale: u64, seed: u64, opts: &LoadOptions) -> Result<u64, Error> {
        load::write_csv(dir, self.data(scale, seed)?, opts).await
    }

    /// The definition's own checks, each a query whose rows are what breaks it.
    async fn check(&self, target: &Target, _connections: usize) -> Result<Vec<Clause>, Error> {
        let conn = Conn::open(target).await?;
        self.identify(&conn, target).await?;
        let mut clauses = Vec::new();
        for (i, check) in self.workload.def().checks.iter().enumerate() {
            let sql = check.sql_in(dialect(target.engine()));
            let what = format!("check {} ({})", i + 1, check.name);
            let (count, examples) = conn.offending(target, &what, sql, 5).await.map_err(|e| match e {
                // The server refused the check's SQL: a fault of the file's, said at its line.
                Error::Failed(msg) => self.in_file(Error::usage(format!(
                    "{msg}: correct its SQL (a check returns one text column named k; sql_mysql or sql_mssql \
                     give an engine's own)"
                ))),
                other => other,
            })?;
            let outcome = ClauseOutcome::of(count, examples);
            clauses.push(Clause {
                number: format!("{}.{}", self.name(), i + 1),
                title: check.name.as_str(),
                outcome,
            });
        }
        Ok(clauses)
    }

    /// Its transactions' `ack`s, read back as a run reads them after a failover: what `custom check
    /// --result DIR` compares a run's acknowledgements with.
    fn acknowledged(&self) -> Option<crate::workload::AckLookup> {
        run::lookup(self.workload.def())
    }

    /// The tables it loads empty: those its transactions fill.
    fn growing(&self) -> &[&str] {
        self.workload.filled()
    }

    async fn restore(&self, target: &Target, opts: &LoadOptions) -> Result<(), Error> {
        let (loaded, ()) = self.identify(&Conn::open(target).await?, target).await?;
        let data = self.data(loaded.scale, loaded.seed)?;
        restore::restore(self, target, data, Extras::default(), opts).await
    }
}
