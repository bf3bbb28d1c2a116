//! What every run does before its first user starts, written once for every workload: each target is
//! opened and identified (a finished load, of the size asked, the same on every target), checked for
//! room for the run's connections, and only then — every target checked, none touched yet — the run is
//! recorded in the databases oltpgen loaded. A refusal leaves every target as it was.

use std::future::Future;

use crate::engine::Conn;
use crate::inventory::{self, Definition};
use crate::run::RunPlan;
use crate::{Error, Target};
use oltpgen_vocab::server::ServerInfo;

/// A workload as a run finds it in a database: what the database holds, whose code serves it, and how
/// that is refused when it is not what the run asked for.
pub trait Drivable: Definition {
    /// The size the user asked to find (`--scale`, `--db-size`), in the flag's terms.
    type Asked: ?Sized;
    /// Who built the database's server-side code: oltpgen, or (DS2) the benchmark's own installer,
    /// whose databases are driven as they are and never written to.
    type Origin: Copy + PartialEq;

    /// What `target` holds, and who built it.
    ///
    /// # Errors
    /// [`Error::Usage`] for an empty, half-loaded or foreign database.
    fn identify(
        conn: &Conn,
        target: &Target,
    ) -> impl Future<Output = Result<(Self::Params, Self::Origin), Error>>;

    /// Whether a run is recorded in a database of `origin` (the run seed counts runs).
    fn records_runs(origin: Self::Origin) -> bool;

    /// The refusal when `target` holds `loaded` but the user asked for `asked`: what it holds, what
    /// was asked, and the flags that fix it.
    fn mismatch(target: &Target, loaded: &Self::Params, asked: &Self::Asked) -> Option<Error>;

    /// Whether two databases hold the same data size (targets driven side by side must).
    fn same_size(a: &Self::Params, b: &Self::Params) -> bool;
}

/// What a run needs to know before it starts, checked once on every target.
pub struct Prepared<W: Drivable> {
    /// The load's parameters (the same size on every target): the first target's.
    pub loaded: W::Params,
    /// Each target's load parameters, in the targets' order (their seeds and constants may differ).
    pub each: Vec<W::Params>,
    /// The first target's server version and key settings, for the result.
    pub server: ServerInfo,
    /// Per target, who built it.
    pub origins: Vec<W::Origin>,
    /// Per target, how far its server's clock is ahead of this machine's (ms), read when the run is
    /// laid on a common clock (`--start-at`), so that a machine whose clock is off shows; else empty.
    pub clock_offsets_ms: Vec<f64>,
}

impl<W: Drivable> Prepared<W> {
    /// Records the servers' clock offsets in `config` (`clock_offset_ms`: one value, or one per target
    /// key in `labels`), when they were read.
    pub fn record_clock(&self, labels: &[String], config: &mut serde_json::Map<String, serde_json::Value>) {
        if !self.clock_offsets_ms.is_empty() {
            config.insert("clock_offset_ms".into(), crate::run::one_or_each(labels, &self.clock_offsets_ms));
        }
    }
}

/// Checks that every target holds a finished load of `W`, all of one size (`asked`, when given), with
/// room for the run's connections; then records that a run starts (in databases oltpgen loaded) and
/// returns what the run needs.
///
/// # Errors
/// [`Error::Usage`] naming the target, the problem and the flag that fixes it.
pub async fn prepare<W: Drivable>(
    targets: &[Target],
    asked: Option<&W::Asked>,
    plan: &RunPlan,
) -> Result<Prepared<W>, Error> {
    let first = targets.first().ok_or_else(|| Error::usage("no database to drive: give --url"))?;
    let needed = plan.connections_for(plan.max_users().div_ceil(targets.len() as u32));
    let mut conns = Vec::with_capacity(targets.len());
    let mut origins = Vec::with_capacity(targets.len());
    let mut each: Vec<W::Params> = Vec::with_capacity(targets.len());
    let mut clock_offsets_ms = Vec::new();
    for target in targets {
        let conn = Conn::open(target).await?;
        let (loaded, origin) = W::identify(&conn, target).await?;
        if let Some(refusal) = asked.and_then(|a| W::mismatch(target, &loaded, a)) {
            return Err(refusal);
        }
        if let Some(e) = each.first()
            && !W::same_size(e, &loaded)
        {
            return Err(Error::usage(format!(
                "{target} holds {} at {} and {first} at {}: load every database at one size",
                W::NAME,
                W::describe(&loaded),
                W::describe(e)
            )));
        }
        let room = conn.connection_room(target).await?;
        room.require(target, needed, &format!("share fewer with --connections {}", room.available.max(1)))?;
        if plan.start_at.is_some() {
            clock_offsets_ms.push(conn.clock_offset_ms(target).await?);
        }
        each.push(loaded);
        origins.push(origin);
        conns.push(conn);
    }
    for ((conn, target), origin) in conns.iter().zip(targets).zip(&origins) {
        if W::records_runs(*origin) {
            inventory::count_run(conn, target, W::NAME).await?;
        }
    }
    let server = conns[0].server_info(first).await?;
    Ok(Prepared { loaded: each[0].clone(), each, server, origins, clock_offsets_ms })
}
