//! Acknowledged commits lost in a failover. Every order the database acknowledged (TPC-C's New-Order:
//! its warehouse, district and id, its customer and line count; DS2's purchase: its order id, customer
//! and line count) is remembered as an [`Ack`] of 16
//! bytes — always, since a failover is not announced, and compact: 16 MB for a million orders. At the
//! end of a run in which connections were lost, the database now serving is asked for each
//! ([`check`]): an acknowledged order that is missing, or present with another customer or line count
//! (its id handed out again by a new primary that never had it), is a lost commit.

use oltpgen_report::model::Workload;
use oltpgen_report::model::outage::LostCommits;

use std::collections::HashMap;

use crate::engine::Conn;
use crate::vocab::ds2_checks::purchases_between;
pub use crate::vocab::outcome::Ack;
use crate::{Error, Target};

/// How many lost commits the result lists.
pub const LISTED: usize = 10;

/// Compares `acks` (every target's orders of `workload`) with the databases now serving `targets`:
/// each target's acknowledged orders missing there, or there with another customer or line count.
///
/// # Errors
/// Orders of more databases than `targets` (a check given fewer than the run had), a database that
/// cannot be reached or queried.
pub async fn check(targets: &[Target], workload: Workload, acks: &[Ack]) -> Result<LostCommits, Error> {
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
        let conn = Conn::open(target).await?;
        let missing = match workload {
            Workload::Tpcc => conn.missing_new_orders(target, &mine).await?,
            Workload::Ds2 => missing_purchases(&conn, target, &mine).await?,
            // `io` drives no database: it acknowledges no order.
            Workload::Io => Vec::new(),
        };
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

/// Of DS2's acknowledged purchases `acks` (one target's), those the database does not hold as
/// acknowledged: the orders in their id range read back in the same SQL on every engine
/// ([`purchases_between`]), through the checks' own query runner.
async fn missing_purchases(conn: &Conn, target: &Target, acks: &[Ack]) -> Result<Vec<Ack>, Error> {
    let (lo, hi) = acks.iter().fold((u32::MAX, 0), |(lo, hi), a| (lo.min(a.o_id), hi.max(a.o_id)));
    let what = "comparing the acknowledged purchases";
    let room = i64::from(hi.saturating_sub(lo)) + 1;
    let (_, held) = conn.offending(target, what, &purchases_between(lo, hi), room).await?;
    Ok(not_held(acks, &held))
}

/// The purchases of `acks` that `held` (`orderid,customerid,lines` rows) lacks or holds with another
/// customer or line count, in order id order.
fn not_held(acks: &[Ack], held: &[String]) -> Vec<Ack> {
    let held: HashMap<u32, (u32, u64)> = held
        .iter()
        .filter_map(|row| {
            let mut fields = row.split(',').map(|f| f.trim().parse::<u64>().ok());
            let (o, c, n) = (fields.next()??, fields.next()??, fields.next()??);
            Some((u32::try_from(o).ok()?, (u32::try_from(c).ok()?, n)))
        })
        .collect();
    let mut missing: Vec<Ack> =
        acks.iter().filter(|a| held.get(&a.o_id) != Some(&(a.c_id, u64::from(a.lines)))).copied().collect();
    missing.sort_by_key(|a| a.o_id);
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn orders_of_more_databases_than_given_are_refused_before_any_is_asked() {
        let a = Ack { w_id: 1, o_id: 3_001, c_id: 1, d_id: 1, lines: 5, target: 1 };
        let target: Target = "postgres://u@127.0.0.1:1/tpcc".parse().unwrap();
        let e = check(&[target], Workload::Tpcc, &[a]).await.unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e}");
        assert!(e.to_string().contains("are of 2 databases: give the check the run's 2 URLs"), "{e}");
    }

    #[test]
    fn a_purchase_missing_or_held_with_another_customer_or_line_count_is_lost() {
        let ack = |o_id, c_id, lines| Ack { w_id: 0, o_id, c_id, d_id: 0, lines, target: 0 };
        let acks = [ack(7, 1, 3), ack(5, 2, 1), ack(9, 3, 2), ack(11, 4, 4)];
        // 5 held as acknowledged; 7 under another customer; 9 with another line count; 11 missing.
        let held = ["5,2,1", "7,8,3", "9,3,5", "10,1,1"].map(String::from);
        let lost: Vec<u32> = not_held(&acks, &held).iter().map(|a| a.o_id).collect();
        assert_eq!(lost, [7, 9, 11]);
    }

    #[test]
    fn an_acknowledged_order_takes_16_bytes_and_says_itself() {
        assert_eq!(std::mem::size_of::<Ack>(), 16);
        let a = Ack { w_id: 3, o_id: 3_001, c_id: 17, d_id: 4, lines: 9, target: 0 };
        assert_eq!(a.to_string(), "w_id=3 d_id=4 o_id=3001 (c_id=17, 9 lines)");
        let purchase = Ack { w_id: 0, o_id: 20_001, c_id: 5, d_id: 0, lines: 3, target: 0 };
        assert_eq!(purchase.to_string(), "orderid=20001 (customerid=5, 3 lines)");
    }
}
