//! A workload kept in a database ([`Stored`]): its tables, what its load records, how a run finds and
//! refuses it, how it is loaded, checked and restored, and how its acknowledged orders are looked for
//! after a failover. One trait with `&self` methods, so a workload defined at run time is one as TPC-C
//! and DS2 are; the machinery written once (loading, inventory, the checks before a run, restoring,
//! the lost-commit comparison, the commands) asks it and names no workload.

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;

use oltpgen_report::model::checks::Clause;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Profile;
use crate::engine::Conn;
use crate::load::{LoadOptions, LoadSummary};
use crate::{Error, Target};
use oltpgen_vocab::outcome::Ack;
use oltpgen_vocab::target::Engine;

/// A workload whose data lives in a database oltpgen loads.
pub trait Stored: Send + Sync + 'static {
    /// What a load records about itself, for later commands.
    type Params: Clone + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// How big a load is, in the workload's own measure (TPC-C's warehouses, DS2's `--db-size`).
    type Size: Copy + Send + Sync + fmt::Debug + 'static;
    /// The size the user asked a run to find (`--scale`, `--db-size`), in the flag's terms.
    type Asked: ?Sized + Sync;
    /// Who built the database's server-side code: oltpgen, or (DS2) the benchmark's own installer,
    /// whose databases are driven as they are and never written to.
    type Origin: Copy + PartialEq + Send + Sync + 'static;

    /// Who the workload is: its name (its load record's key, its built-in database, its command).
    fn profile(&self) -> &Profile;

    /// The workload's one name.
    fn name(&self) -> &str {
        self.profile().name()
    }

    /// The workload's tables.
    fn tables(&self) -> Vec<&str>;

    /// The statements a load runs on `engine` once the tables' keys and indexes exist, in order on one
    /// connection: the functions, procedures, triggers and sequences the workload creates. `drop` removes
    /// what they create ([`created_objects`](oltpgen_vocab::schema::created_objects)): one list for both.
    fn finish(&self, engine: Engine) -> Vec<String>;

    /// The workload as a load recorded it in `params`, when that differs from `self` and the record
    /// says (a workload file changed since its load): what `drop` removes, so that it removes exactly
    /// what the load made, not what the file names today. `None`: `self`'s objects are the load's.
    fn as_loaded(&self, params: &Self::Params) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = params;
        None
    }

    /// How a loaded database of this workload is described in a refusal (e.g. `scale 10`).
    fn describe(&self, params: &Self::Params) -> String;

    /// The load's seed.
    fn seed(&self, params: &Self::Params) -> u64;

    /// Runs driven since the load (as recorded, before the one starting).
    fn runs(&self, params: &Self::Params) -> u32;

    /// The seed of the run about to start on a database loaded with `params`: `asked` when the user
    /// gave one; else each run draws new streams, reproducibly, from the load's seed and the run's
    /// number (counting from 1: the recorded runs, plus this one).
    fn run_seed(&self, params: &Self::Params, asked: Option<u64>) -> u64 {
        asked.unwrap_or_else(|| {
            oltpgen_datagen::Rng::derive(self.seed(params), &[u64::from(self.runs(params)) + 1]).next_u64()
        })
    }

    /// What `target` holds, and who built it.
    ///
    /// # Errors
    /// [`Error::Usage`] for an empty, half-loaded or foreign database.
    fn identify(
        &self,
        conn: &Conn,
        target: &Target,
    ) -> impl Future<Output = Result<(Self::Params, Self::Origin), Error>> + Send;

    /// Whether a run is recorded in a database of `origin` (the run seed counts runs).
    fn records_runs(&self, origin: Self::Origin) -> bool;

    /// The refusal when `target` holds `loaded` but the user asked for `asked`: what it holds, what
    /// was asked, and the flags that fix it.
    fn mismatch(&self, target: &Target, loaded: &Self::Params, asked: &Self::Asked) -> Option<Error>;

    /// Whether two databases hold the same data size (targets driven side by side must).
    fn same_size(&self, a: &Self::Params, b: &Self::Params) -> bool;

    /// What a line about a load of `size` calls it, e.g. `tpcc scale 10`.
    fn size_words(&self, size: Self::Size) -> String;

    /// The disk a load of `size` takes on the built-in server, roughly.
    fn size_bytes(&self, size: Self::Size) -> u64;

    /// Loads `target` at `size` from `seed`.
    ///
    /// # Errors
    /// As [`load::load`](crate::load::load).
    fn load(
        &self,
        target: &Target,
        size: Self::Size,
        seed: u64,
        opts: &LoadOptions,
    ) -> impl Future<Output = Result<LoadSummary, Error>> + Send;

    /// Writes the rows a load of `size` from `seed` would load as CSV files into `dir`; their count.
    ///
    /// # Errors
    /// A file that cannot be written.
    fn write_csv(
        &self,
        dir: &Path,
        size: Self::Size,
        seed: u64,
        opts: &LoadOptions,
    ) -> impl Future<Output = Result<u64, Error>> + Send;

    /// The workload's own checks of `target` (TPC-C's consistency conditions, DS2's integrity
    /// checks) over `connections` connections.
    ///
    /// # Errors
    /// A query that fails.
    fn check(
        &self,
        target: &Target,
        connections: usize,
    ) -> impl Future<Output = Result<Vec<Clause>, Error>> + Send;

    /// The workload's checks of `target` on a sample of `k` of its units drawn from `seed` (TPC-C's
    /// warehouses, `check --sample`), with the lines saying what was drawn, which checks ran where and
    /// which were skipped. By default refused: a workload samples only where its checks have a
    /// per-unit form.
    ///
    /// # Errors
    /// [`Error::Usage`] when the workload (or the engine) has no sampled form; as [`Stored::check`].
    fn check_sampled(
        &self,
        target: &Target,
        connections: usize,
        k: u32,
        seed: u64,
    ) -> impl Future<Output = Result<(Vec<Clause>, Vec<String>), Error>> + Send {
        let _ = (target, connections, k, seed);
        let refusal = format!(
            "--sample: {}'s checks have no sampled form: check it whole (without --sample)",
            self.name()
        );
        async move { Err(Error::usage(refusal)) }
    }

    /// The tables a run grows (TPC-C's orders and order lines, DS2's orders): their rows at a run's
    /// start show how far the database has drifted from its load.
    fn growing(&self) -> &[&str];

    /// Puts `target`'s tables back to the rows its recorded load generated, over `opts.workers`
    /// connections.
    ///
    /// # Errors
    /// [`Error::Usage`] for a database oltpgen must not write (not loaded by it); [`Error::Failed`] when
    /// a statement or the copy fails.
    fn restore(&self, target: &Target, opts: &LoadOptions) -> impl Future<Output = Result<(), Error>> + Send;

    /// How this workload's acknowledged orders are looked for after a failover, if it acknowledges
    /// any.
    fn acknowledged(&self) -> Option<AckLookup> {
        None
    }
}

/// How a workload's acknowledged commits ([`Ack`]) are looked for in its database after a failover,
/// in the workload's own words: the one thing about them only the workload knows is the query that
/// reads them back and how one is said. The comparison itself ([`lost_commits`](crate::lost_commits))
/// is written once.
#[derive(Clone)]
pub struct AckLookup {
    /// What the comparison is called in an error (`comparing the acknowledged orders`).
    pub what: &'static str,
    /// The query, on an `Engine`'s target, that reads back the rows `acks` (one target's, of one kind,
    /// at least one) can be, as one text column of the key's values joined by commas in the key's
    /// order (e.g. `w_id,d_id,o_id,customer,lines`), with how many rows it can yield at most.
    pub query: Arc<AckQuery>,
    /// An acknowledged commit in one line, in the workload's words (`w_id=3 d_id=4 o_id=3001 (c_id=17,
    /// 9 lines)`).
    pub say: Arc<dyn Fn(&Ack) -> String + Send + Sync>,
    /// Whether alike keys are counted (two acknowledged need two rows held: keys with no uniqueness
    /// of their own, as pgbench's history rows), or one row held stands for every ack of its key
    /// (TPC-C's orders, whose key is unique in the database: an id handed out again with the same
    /// customer and line count is held, as before).
    pub counted: bool,
}

/// How a workload's acknowledgements of one kind and target are read back on an engine: the query and
/// how many rows it can yield ([`AckLookup::query`]).
pub type AckQuery = dyn Fn(&[Ack], Engine) -> (String, i64) + Send + Sync;

impl AckLookup {
    /// The lookup called `what` in an error, reading back with `query` and saying an ack with `say`.
    pub fn new(
        what: &'static str,
        query: impl Fn(&[Ack], Engine) -> (String, i64) + Send + Sync + 'static,
        say: impl Fn(&Ack) -> String + Send + Sync + 'static,
    ) -> Self {
        AckLookup { what, query: Arc::new(query), say: Arc::new(say), counted: false }
    }

    /// The lookup with alike keys counted ([`counted`](Self::counted)).
    pub fn counted(self) -> Self {
        AckLookup { counted: true, ..self }
    }
}

impl fmt::Debug for AckLookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AckLookup").field("what", &self.what).finish_non_exhaustive()
    }
}
