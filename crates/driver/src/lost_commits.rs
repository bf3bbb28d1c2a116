//! Acknowledged commits lost in a failover. Every order the database acknowledged (TPC-C's New-Order:
//! its warehouse, district and id, its customer and line count; DS2's purchase: its order id, customer
//! and line count) is remembered as an [`Ack`] of 16
//! bytes — always, since a failover is not announced, and compact: 16 MB for a million orders. At the
//! end of a run in which connections were lost, the database now serving is asked for each
//! ([`check`]): an acknowledged order that is missing, or present with another customer or line count
//! (its id handed out again by a new primary that never had it), is a lost commit.

use std::time::Duration;

use oltpgen_report::model::outage::{AckComparison, LISTED, LostCommits};

use std::collections::HashMap;

use crate::engine::Conn;
use crate::workload::AckLookup;
use crate::{Error, Target};
pub use oltpgen_vocab::outcome::Ack;

/// Compares `acks` (every target's orders of `workload`) with the databases now serving `targets`:
/// each target's acknowledged orders missing there, or there with another customer or line count. A
/// database that refuses the connection is asked again, every half second, for up to `wait`.
///
/// # Errors
/// Orders of more databases than `targets` (a check given fewer than the run had), a database that
/// cannot be reached or queried.
pub async fn check(
    targets: &[Target],
    workload: AckLookup,
    acks: &[Ack],
    wait: Duration,
) -> Result<LostCommits, Error> {
    let databases = acks.iter().map(|a| usize::from(a.target) + 1).max().unwrap_or(0);
    if databases > targets.len() {
        return Err(Error::usage(format!(
            "the run's acknowledged orders are of {databases} databases: give the check the run's {databases} \
             URLs, in the run's order"
        )));
    }
    let mut lost = LostCommits { checked: acks.len() as u64, lost: 0, first: Vec::new() };
    for (i, target) in targets.iter().enumerate() {
        let mine: Vec<Ack> = acks.iter().filter(|a| usize::from(a.target) == i).copied().collect();
        if mine.is_empty() {
            continue;
        }
        let conn = serving(target, wait).await?;
        let (query, room) = (workload.query)(&mine);
        let (_, held) = conn.offending(target, workload.what, &query, room).await?;
        let missing = not_held(&mine, &held);
        lost.lost += missing.len() as u64;
        let room = LISTED.saturating_sub(lost.first.len());
        lost.first.extend(
            missing
                .iter()
                .take(room)
                .map(|a| if targets.len() > 1 { format!("{}: {a}", target.label()) } else { a.to_string() }),
        );
    }
    Ok(lost)
}

/// How long a run's own comparison, at its end, waits for the database now serving: right after a
/// failover the promoted standby may still be leaving recovery (a URL that asks for a writable server
/// finds none yet). `check --result`, asked later by a user, does not wait.
pub const AFTER_A_RUN: Duration = Duration::from_secs(30);

/// A connection to the database now serving `target`, asked again every half second for up to `wait`
/// while the server refuses it.
///
/// # Errors
/// The last refusal, when no server answered in time.
async fn serving(target: &Target, wait: Duration) -> Result<Conn, Error> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match Conn::open(target).await {
            Err(Error::Environment(_)) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            outcome => return outcome,
        }
    }
}

/// [`check`] as a run's end records it, waiting [`AFTER_A_RUN`] for the database: the figures, or why the comparison could not be made (never a 0
/// that would read as "nothing lost").
pub async fn compare(targets: &[Target], workload: AckLookup, acks: &[Ack]) -> AckComparison {
    match check(targets, workload, acks, AFTER_A_RUN).await {
        Ok(lost) => AckComparison::Compared(lost),
        Err(e) => AckComparison::NotMeasured { not_measured: e.to_string() },
    }
}

/// The lowest and highest of `field` over `acks`.
pub fn span(acks: &[Ack], field: fn(&Ack) -> u32) -> (u32, u32) {
    acks.iter().map(field).fold((u32::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// How many values `lo..=hi` holds.
pub fn width((lo, hi): (u32, u32)) -> i64 {
    i64::from(hi.saturating_sub(lo)) + 1
}

/// The acknowledged orders of `acks` that `held` (the database's rows, as `orderid,customer,lines` for
/// DS2's purchases or `w_id,d_id,o_id,customer,lines` for TPC-C's orders) does not hold as acknowledged
/// (missing, or another customer or line count under the key), in key order.
fn not_held(acks: &[Ack], held: &[String]) -> Vec<Ack> {
    let held: HashMap<(u32, u32, u32), (u32, u32)> = held
        .iter()
        .filter_map(|row| {
            let fields: Option<Vec<u32>> = row.split(',').map(|f| f.trim().parse().ok()).collect();
            match fields?[..] {
                // DS2's purchases are kept without warehouse or district.
                [o, c, n] => Some(((0, 0, o), (c, n))),
                [w, d, o, c, n] => Some(((w, d, o), (c, n))),
                _ => None,
            }
        })
        .collect();
    let key = |a: &Ack| (a.w_id, u32::from(a.d_id), a.o_id);
    let mut missing: Vec<Ack> =
        acks.iter().filter(|a| held.get(&key(a)) != Some(&(a.c_id, u32::from(a.lines)))).copied().collect();
    missing.sort_by_key(key);
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn orders_of_more_databases_than_given_are_refused_before_any_is_asked() {
        let a = Ack { w_id: 1, o_id: 3_001, c_id: 1, d_id: 1, lines: 5, target: 1, run: 0 };
        let target: Target = crate::engine::parse_url("postgres://u@127.0.0.1:1/tpcc").unwrap();
        let e = check(&[target], crate::tpcc::ACKS, &[a], Duration::ZERO).await.unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e}");
        assert!(e.to_string().contains("are of 2 databases: give the check the run's 2 URLs"), "{e}");
    }

    #[tokio::test]
    async fn a_refused_connection_is_asked_again_for_the_wait_and_not_past_it() {
        let target: Target = crate::engine::parse_url("postgres://u@127.0.0.1:1/tpcc").unwrap();
        let started = std::time::Instant::now();
        assert!(matches!(serving(&target, Duration::ZERO).await, Err(Error::Environment(_))));
        assert!(started.elapsed() < Duration::from_millis(900), "no wait asked, none made");
        let started = std::time::Instant::now();
        assert!(matches!(serving(&target, Duration::from_millis(1_200)).await, Err(Error::Environment(_))));
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(1_200) && waited < Duration::from_secs(5), "{waited:?}");
    }

    #[test]
    fn a_purchase_missing_or_held_with_another_customer_or_line_count_is_lost() {
        let ack = |o_id, c_id, lines| Ack { w_id: 0, o_id, c_id, d_id: 0, lines, target: 0, run: 0 };
        let acks = [ack(7, 1, 3), ack(5, 2, 1), ack(9, 3, 2), ack(11, 4, 4)];
        // 5 held as acknowledged; 7 under another customer; 9 with another line count; 11 missing.
        let held = ["5,2,1", "7,8,3", "9,3,5", "10,1,1"].map(String::from);
        let lost: Vec<u32> = not_held(&acks, &held).iter().map(|a| a.o_id).collect();
        assert_eq!(lost, [7, 9, 11]);
    }

    #[test]
    fn a_new_order_is_known_by_its_warehouse_district_and_id() {
        let ack = |w_id, d_id, o_id| Ack { w_id, o_id, c_id: 5, d_id, lines: 7, target: 0, run: 0 };
        let acks = [ack(2, 1, 3_001), ack(1, 2, 3_001), ack(1, 1, 3_002), ack(1, 1, 3_001)];
        // The same id in another district or warehouse is another order; 2/1/3001 is missing.
        let held = ["1,1,3001,5,7", "1,2,3001,5,7", "1,1,3002,6,7", "2,2,3001,5,7"].map(String::from);
        let lost: Vec<(u32, u8, u32)> =
            not_held(&acks, &held).iter().map(|a| (a.w_id, a.d_id, a.o_id)).collect();
        assert_eq!(lost, [(1, 1, 3_002), (2, 1, 3_001)]);
    }

    #[test]
    fn an_acknowledged_order_takes_16_bytes_and_says_itself() {
        assert_eq!(std::mem::size_of::<Ack>(), 16);
        let a = Ack { w_id: 3, o_id: 3_001, c_id: 17, d_id: 4, lines: 9, target: 0, run: 0 };
        assert_eq!(a.to_string(), "w_id=3 d_id=4 o_id=3001 (c_id=17, 9 lines)");
        let purchase = Ack { w_id: 0, o_id: 20_001, c_id: 5, d_id: 0, lines: 3, target: 0, run: 0 };
        assert_eq!(purchase.to_string(), "orderid=20001 (customerid=5, 3 lines)");
    }
}
