//! Acknowledged commits lost in a failover. Every commit the database acknowledged is remembered by
//! the key its workload names (TPC-C's New-Order: its warehouse, district and id, its customer and line
//! count; DS2's purchase: its order id, customer and line count; a pgbench script's acknowledged row)
//! as an [`Ack`] — always, since a failover is not announced; a run keeps them in [`Acks`], TPC-C's and
//! DS2's in 16 bytes each (16 MB for a million), others in 48. At the end of a run in which connections were lost, the database now serving is asked for
//! them ([`check`]): an acknowledged key that is missing, or present with other values (an order's id
//! handed out again by a new primary that never had it), is a lost commit. Where a workload's keys are
//! not unique in its database (a script's, a workload file's: [`AckLookup::counted`]), alike keys are
//! counted: two commits acknowledged with the same key (two pgbench history rows alike) need two rows.

use std::time::Duration;

use oltpgen_report::model::outage::{AckComparison, LISTED, LostCommits};

use std::collections::HashMap;

use crate::engine::Conn;
use crate::workload::AckLookup;
use crate::{Error, Target};
use oltpgen_vocab::outcome::ACK_VALUES;
pub use oltpgen_vocab::outcome::{Ack, Acks};

/// Compares `acks` (every target's orders of `workload`) with the databases now serving `targets`:
/// each target's acknowledged orders missing there, or there with another customer or line count. A
/// database that refuses the connection is asked again, every half second, for up to `wait`.
///
/// # Errors
/// Orders of more databases than `targets` (a check given fewer than the run had), a database that
/// cannot be reached or queried.
pub async fn check(
    targets: &[Target],
    workload: &AckLookup,
    acks: &Acks,
    wait: Duration,
) -> Result<LostCommits, Error> {
    let databases = acks.iter().map(|a| usize::from(a.target) + 1).max().unwrap_or(0);
    if databases > targets.len() {
        return Err(Error::usage(format!(
            "the run's acknowledged orders are of {databases} databases: give the check the run's {databases} \
             URLs, in the run's order"
        )));
    }
    let mut lost = LostCommits { checked: acks.len() as u64, lost: 0, first: Vec::new(), all: Vec::new() };
    for (i, target) in targets.iter().enumerate() {
        let mine: Vec<Ack> = acks.iter().filter(|a| usize::from(a.target) == i).collect();
        if mine.is_empty() {
            continue;
        }
        let conn = serving(target, wait).await?;
        let mut kinds: Vec<u8> = mine.iter().map(|a| a.kind).collect();
        kinds.sort_unstable();
        kinds.dedup();
        for kind in kinds {
            let of_kind: Vec<Ack> = mine.iter().filter(|a| a.kind == kind).copied().collect();
            let (query, room) = (workload.query)(&of_kind, target.engine());
            let (_, held) = conn.offending(target, workload.what, &query, room).await?;
            let missing = not_held(&of_kind, &held, workload.counted);
            lost.lost += missing.len() as u64;
            lost.all.extend(missing.iter().map(|a| {
                let said = (workload.say)(a);
                if targets.len() > 1 { format!("{}: {said}", target.label()) } else { said }
            }));
        }
    }
    lost.first = lost.all.iter().take(LISTED).cloned().collect();
    Ok(lost)
}

/// Why a pgbench script run's lost commits are not counted when no script names its acknowledgement
/// (`-- oltpgen: ack`): said in the result as "not measured", yet no failure of the run (the user
/// chose not to count them).
pub const NO_ACK_SCRIPT: &str = "the script names no acknowledgement";

/// Why a workload file's run's lost commits are not counted when no transaction names its
/// acknowledgement (`ack = { … }`): as [`NO_ACK_SCRIPT`].
pub const NO_ACK_FILE: &str = "the workload's transactions name no acknowledgement";

/// Whether `comparison` is not measured because the workload names no acknowledgement
/// ([`NO_ACK_SCRIPT`], [`NO_ACK_FILE`]), which does not fail a run.
pub fn unacknowledged(comparison: &AckComparison) -> bool {
    matches!(comparison, AckComparison::NotMeasured { not_measured } if [NO_ACK_SCRIPT, NO_ACK_FILE].contains(&not_measured.as_str()))
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
pub async fn compare(targets: &[Target], workload: &AckLookup, acks: &Acks) -> AckComparison {
    match check(targets, workload, acks, AFTER_A_RUN).await {
        Ok(lost) => AckComparison::Compared(lost),
        Err(e) => AckComparison::NotMeasured { not_measured: e.to_string() },
    }
}

/// The lowest and highest of the key's value `at` over `acks`.
pub fn span(acks: &[Ack], at: usize) -> (i64, i64) {
    acks.iter().map(|a| a.key[at]).fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// How many values `lo..=hi` holds.
pub fn width((lo, hi): (i64, i64)) -> i64 {
    hi.saturating_sub(lo).saturating_add(1).max(0)
}

/// The key a row read back (`held`: the key's values as text, joined by commas) stands for, as an
/// acknowledgement of `kind` keeps it ([`Ack::value_of_text`] each).
fn key_of(held: &str) -> [i64; ACK_VALUES] {
    let mut key = [0; ACK_VALUES];
    key.iter_mut().zip(held.split(',')).for_each(|(k, v)| *k = Ack::value_of_text(Some(v.trim())));
    key
}

/// The acknowledgements of `acks` (one kind's) that `held` (the database's rows, each the key's values
/// joined by commas: `orderid,customer,lines` for DS2's purchases, `w_id,d_id,o_id,customer,lines` for
/// TPC-C's orders) does not hold (missing, or other values under the key), in key order. When
/// `counted`, a key acknowledged twice needs two rows; else one row holds every ack of its key.
fn not_held(acks: &[Ack], held: &[String], counted: bool) -> Vec<Ack> {
    let mut rows: HashMap<[i64; ACK_VALUES], u64> = HashMap::with_capacity(held.len());
    for row in held {
        *rows.entry(key_of(row)).or_default() += 1;
    }
    let mut sorted = acks.to_vec();
    sorted.sort_by_key(|a| a.key);
    sorted
        .into_iter()
        .filter(|a| match rows.get_mut(&a.key) {
            Some(n) if *n > 0 => {
                *n -= u64::from(counted);
                false
            }
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TPC-C's New-Order: `w_id, d_id, o_id, c_id, lines`.
    fn order(w: i64, d: i64, o: i64, c: i64, lines: i64) -> Ack {
        Ack::new(0, &[w, d, o, c, lines])
    }

    #[tokio::test]
    async fn orders_of_more_databases_than_given_are_refused_before_any_is_asked() {
        let a = Ack { target: 1, ..order(1, 1, 3_001, 1, 5) };
        let target: Target = crate::engine::parse_url("postgres://u@127.0.0.1:1/tpcc").unwrap();
        let e = check(&[target], &crate::tpcc::acks(), &[a].into_iter().collect(), Duration::ZERO)
            .await
            .unwrap_err();
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
        let ack = |o_id, c_id, lines| Ack::new(0, &[o_id, c_id, lines]);
        let acks = [ack(7, 1, 3), ack(5, 2, 1), ack(9, 3, 2), ack(11, 4, 4)];
        // 5 held as acknowledged; 7 under another customer; 9 with another line count; 11 missing.
        let held = ["5,2,1", "7,8,3", "9,3,5", "10,1,1"].map(String::from);
        let lost: Vec<i64> = not_held(&acks, &held, false).iter().map(|a| a.key[0]).collect();
        assert_eq!(lost, [7, 9, 11]);
    }

    #[test]
    fn a_new_order_is_known_by_its_warehouse_district_and_id() {
        let ack = |w, d, o| order(w, d, o, 5, 7);
        let acks = [ack(2, 1, 3_001), ack(1, 2, 3_001), ack(1, 1, 3_002), ack(1, 1, 3_001)];
        // The same id in another district or warehouse is another order; 2/1/3001 is missing.
        let held = ["1,1,3001,5,7", "1,2,3001,5,7", "1,1,3002,6,7", "2,2,3001,5,7"].map(String::from);
        let lost: Vec<[i64; 3]> =
            not_held(&acks, &held, false).iter().map(|a| [a.key[0], a.key[1], a.key[2]]).collect();
        assert_eq!(lost, [[1, 1, 3_002], [2, 1, 3_001]]);
    }

    #[test]
    fn a_key_acknowledged_twice_needs_two_rows_and_text_values_compare_as_text() {
        // pgbench's history rows (tid, bid, aid, delta) have no key of their own: two alike are two.
        let row =
            |v: &[&str]| Ack::new(1, &v.iter().map(|t| Ack::value_of_text(Some(t))).collect::<Vec<_>>());
        let acks = [row(&["3", "1", "17", "-40"]), row(&["3", "1", "17", "-40"]), row(&["alice", "9"])];
        let held = ["3, 1, 17, -40", "alice,9"].map(String::from);
        let lost = not_held(&acks, &held, true);
        assert_eq!(lost, [row(&["3", "1", "17", "-40"])]);
        // Uncounted (a key unique in the database, as TPC-C's): one row holds both.
        assert_eq!(not_held(&acks, &held, false), []);
        let held = ["3,1,17,-40", "3,1,17,-40", "bob,9"].map(String::from);
        assert_eq!(not_held(&acks, &held, true), [row(&["alice", "9"])]);
        assert_eq!(Ack::value_of_text(None), 0);
        assert_ne!(Ack::value_of_text(Some("alice")), Ack::value_of_text(Some("bob")));
    }

    /// An acknowledgement whole: 48 bytes (five 64-bit values, the kind, the target and the run),
    /// inline; a run keeps TPC-C's and DS2's in 16 (`Acks`, tested beside it).
    #[test]
    fn an_acknowledgement_takes_48_bytes_and_each_workload_says_it_in_its_words() {
        assert_eq!(std::mem::size_of::<Ack>(), 48);
        assert_eq!(
            (crate::tpcc::acks().say)(&order(3, 4, 3_001, 17, 9)),
            "w_id=3 d_id=4 o_id=3001 (c_id=17, 9 lines)"
        );
        let purchase = Ack::new(0, &[20_001, 5, 3]);
        assert_eq!((crate::ds2::acks().say)(&purchase), "orderid=20001 (customerid=5, 3 lines)");
    }
}
