//! What every run does before its first user starts, written once for every workload: each target is
//! opened and identified (a finished load, of the size asked, the same on every target), checked for
//! room for the run's connections, and only then — every target checked, none touched yet — the run is
//! recorded in the databases oltpgen loaded. A refusal leaves every target as it was.

use crate::engine::Conn;
use crate::inventory;
use crate::run::RunPlan;
use crate::run::study::About;
use crate::workload::{Profile, Stored};
use crate::{Error, Target};
use oltpgen_vocab::server::ServerInfo;

/// What a run needs to know before it starts, checked once on every target.
pub struct Prepared<W: Stored> {
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

impl<W: Stored> Prepared<W> {
    /// What the study's result says about the run of `profile` it prepared: the first server, and
    /// `config` (the workload's own settings) with the servers' clock offsets (`clock_offset_ms`: one
    /// value, or one per target key in `labels`) when they were read.
    pub fn about(
        &self,
        profile: Profile,
        labels: &[String],
        mut config: serde_json::Map<String, serde_json::Value>,
    ) -> About {
        if !self.clock_offsets_ms.is_empty() {
            config.insert("clock_offset_ms".into(), crate::run::one_or_each(labels, &self.clock_offsets_ms));
        }
        About { profile, server: self.server.clone().into_result(), config }
    }
}

/// Checks that every target holds a finished load of `W`, all of one size (`asked`, when given), with
/// room for the run's connections; then records that a run starts (in databases oltpgen loaded) and
/// returns what the run needs.
///
/// # Errors
/// [`Error::Usage`] naming the target, the problem and the flag that fixes it.
pub async fn prepare<W: Stored>(
    w: &W,
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
        let (loaded, origin) = w.identify(&conn, target).await?;
        if let Some(refusal) = asked.and_then(|a| w.mismatch(target, &loaded, a)) {
            return Err(refusal);
        }
        if let Some(e) = each.first()
            && !w.same_size(e, &loaded)
        {
            return Err(Error::usage(format!(
                "{target} holds {} at {} and {first} at {}: load every database at one size",
                w.name(),
                w.describe(&loaded),
                w.describe(e)
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
        if w.records_runs(*origin) {
            inventory::count_run(conn, target, w.name()).await?;
        }
    }
    let server = conns[0].server_info(first).await?;
    Ok(Prepared { loaded: each[0].clone(), each, server, origins, clock_offsets_ms })
}
