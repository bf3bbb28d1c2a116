//! TPC-B as pgbench makes it (`oltpgen tpcb load|run|check|drop --scale N`): the tables and rows of
//! `pgbench -i -s N` ([`TpcbData`]) through the loader's binary COPY, keys after the data, fillfactor
//! 100; its check is TPC-B's invariant (Σ abalance = Σ tbalance = Σ bbalance = Σ history delta); its
//! run is pgbench's `tpcb-like` script ([`crate::script`]).
//!
//! A database `pgbench -i` made is one too: its scale is read from `pgbench_branches`, so scripts run
//! on it and `check` checks it (oltpgen restores only what it loaded).

use std::path::Path;

use oltpgen_datagen::pgbench::tpcb::{MAX_SCALE, TABLES, TpcbData};
use oltpgen_report::model::checks::{Clause, ClauseOutcome};
use oltpgen_report::model::descriptor::Descriptor;
use serde::{Deserialize, Serialize};

use crate::engine::Conn;
use crate::inventory::{self, Holding};
use crate::load::{self, LoadOptions, LoadSummary, Loading};
use crate::restore::{self, Extras};
use crate::script::Scripts;
use crate::workload::{Kinds, Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::target::Engine;

/// The workload's name, as commands and its load record call it.
pub const NAME: &str = "tpcb";

/// What a load of TPC-B records about itself (a `pgbench -i` database has none: its scale is counted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadedParams {
    /// Branches: every other table's rows follow from it.
    pub scale: u64,
    /// The data's seed (pgbench's rows have no random part; kept for the run seeds).
    pub seed: u64,
    /// Runs driven since the load.
    #[serde(default)]
    pub runs: u32,
}

/// pgbench's database, as the workload family sees it.
#[derive(Clone, Debug)]
pub struct Tpcb {
    profile: Profile,
    /// A user's scripts may query other tables: a database without pgbench's is scale 0, not refused.
    lenient: bool,
}

impl Tpcb {
    /// TPC-B as `oltpgen tpcb` loads, checks and runs it (its transaction `tpcb-like`).
    pub fn new() -> Self {
        static NAMES: [&str; 1] = ["tpcb-like"];
        Tpcb { profile: Profile::new(Descriptor::per_second(NAME), Kinds::plain(&NAMES)), lenient: false }
    }

    /// The database a run of `scripts` drives: pgbench's, required when a built-in script is among
    /// them.
    pub fn for_scripts(scripts: &Scripts) -> Self {
        Tpcb { profile: scripts.profile().clone(), lenient: !scripts.has_builtin() }
    }

    /// Refuses a scale oltpgen cannot load, before anything starts (a database is created, say).
    ///
    /// # Errors
    /// [`Error::Usage`] naming `--scale` and the largest scale loaded.
    pub fn check_scale(scale: u64) -> Result<(), Error> {
        Self::data(scale).map(|_| ())
    }

    fn data(scale: u64) -> Result<TpcbData, Error> {
        TpcbData::new(scale).ok_or_else(|| {
            Error::usage(format!(
                "--scale {scale}: TPC-B's scale is 1 to {MAX_SCALE} (teller ids are int4, as pgbench's): give \
                 a --scale in that range"
            ))
        })
    }

    /// The branches `pgbench_branches` holds.
    async fn count_branches(conn: &Conn, target: &Target) -> Result<u64, Error> {
        Ok(conn
            .offending(target, "counting pgbench_branches", "SELECT bid::text FROM pgbench_branches", 1)
            .await?
            .0)
    }
}

impl Default for Tpcb {
    fn default() -> Self {
        Self::new()
    }
}

/// TPC-B's invariant, as one query whose row (if any) is the sums that disagree.
const INVARIANT: &str = "SELECT format('accounts %s, tellers %s, branches %s, history %s', a, t, b, h) FROM \
     (SELECT (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts) AS a, \
             (SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers) AS t, \
             (SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches) AS b, \
             (SELECT coalesce(sum(delta), 0) FROM pgbench_history) AS h) AS sums \
     WHERE NOT (a = t AND t = b AND b = h)";

impl Stored for Tpcb {
    type Params = LoadedParams;
    type Size = u64;
    type Asked = u64;
    /// Whether oltpgen loaded it (else `pgbench -i` did, or nothing: a user's own tables).
    type Origin = bool;

    fn profile(&self) -> &Profile {
        &self.profile
    }

    fn name(&self) -> &str {
        NAME
    }

    fn tables(&self) -> Vec<&str> {
        TABLES.iter().map(|t| t.name).collect()
    }

    /// pgbench's fillfactor, declared as pgbench declares it.
    fn finish(&self, _engine: Engine) -> Vec<String> {
        ["pgbench_accounts", "pgbench_branches", "pgbench_tellers"]
            .iter()
            .map(|t| format!("ALTER TABLE {t} SET (fillfactor = 100)"))
            .collect()
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

    async fn identify(&self, conn: &Conn, target: &Target) -> Result<(LoadedParams, bool), Error> {
        let tables = self.tables();
        match inventory::inspect(conn, target, NAME, &tables).await? {
            Holding::Loaded(_) => Ok((inventory::loaded(self, conn, target).await?, true)),
            Holding::Foreign(present) if present.iter().any(|t| t == "pgbench_branches") => Ok((
                LoadedParams { scale: Self::count_branches(conn, target).await?, seed: 0, runs: 0 },
                false,
            )),
            _ if self.lenient => Ok((LoadedParams { scale: 0, seed: 0, runs: 0 }, false)),
            _ => Err(Error::usage(format!(
                "{target} holds no pgbench database: make one with oltpgen tpcb load --scale N (or pgbench -i)"
            ))),
        }
    }

    fn records_runs(&self, origin: bool) -> bool {
        origin
    }

    fn mismatch(&self, target: &Target, loaded: &LoadedParams, asked: &u64) -> Option<Error> {
        (*asked != loaded.scale).then(|| {
            Error::usage(format!(
                "{target} holds TPC-B at scale {} but --scale {asked} was asked: run at --scale {}, or reload \
                 with --scale {asked} --replace",
                loaded.scale, loaded.scale
            ))
        })
    }

    fn same_size(&self, a: &LoadedParams, b: &LoadedParams) -> bool {
        a.scale == b.scale
    }

    fn size_words(&self, scale: u64) -> String {
        format!("TPC-B scale {scale}")
    }

    /// pgbench's rule of thumb: about 15 MB a branch, keys included.
    fn size_bytes(&self, scale: u64) -> u64 {
        scale * 15_000_000
    }

    async fn load(
        &self,
        target: &Target,
        scale: u64,
        seed: u64,
        opts: &LoadOptions,
    ) -> Result<LoadSummary, Error> {
        let data = Self::data(scale)?;
        let params = LoadedParams { scale, seed, runs: 0 };
        load::load(
            self,
            target,
            Loading::<Tpcb, _> { data, params, extra_indexes: Vec::new(), extra_dropped: Vec::new() },
            opts,
        )
        .await
    }

    async fn write_csv(&self, dir: &Path, scale: u64, _seed: u64, opts: &LoadOptions) -> Result<u64, Error> {
        load::write_csv(dir, Self::data(scale)?, opts).await
    }

    /// TPC-B's invariant: every transaction adds its delta to one account, teller, branch and history
    /// row, so the four sums stay equal.
    async fn check(&self, target: &Target, _connections: usize) -> Result<Vec<Clause>, Error> {
        let conn = Conn::open(target).await?;
        Tpcb::new().identify(&conn, target).await?;
        let (count, examples) = conn.offending(target, "TPC-B's invariant", INVARIANT, 1).await?;
        Ok(vec![Clause {
            number: "tpcb.1".into(),
            title: "sum(abalance) = sum(tbalance) = sum(bbalance) = sum(history delta)",
            outcome: ClauseOutcome::of(count, examples),
        }])
    }

    /// pgbench_history; none for a user's scripts alone, whose database may hold no pgbench table
    /// (counting one there would end the run before it began).
    fn growing(&self) -> &[&str] {
        if self.lenient { &[] } else { &["pgbench_history"] }
    }

    async fn restore(&self, target: &Target, opts: &LoadOptions) -> Result<(), Error> {
        let (loaded, ours) = self.identify(&Conn::open(target).await?, target).await?;
        if !ours {
            return Err(Error::usage(format!(
                "{target}: --restore puts back what oltpgen loaded, and pgbench -i (or nobody) made this database: \
                 load it with oltpgen tpcb load, or leave out --restore"
            )));
        }
        restore::restore(self, target, Self::data(loaded.scale)?, Extras::default(), opts).await
    }
}
