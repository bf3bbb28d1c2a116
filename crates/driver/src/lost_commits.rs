//! Acknowledged commits lost in a failover. Every order the database acknowledged (TPC-C's New-Order:
//! its warehouse, district and id, its customer and line count; DS2's purchase: its order id, customer
//! and line count) is remembered as an [`Ack`] of 16
//! bytes — always, since a failover is not announced, and compact: 16 MB for a million orders. At the
//! end of a run in which connections were lost, the database now serving is asked for each
//! ([`check`]): an acknowledged order that is missing, or present with another customer or line count
//! (its id handed out again by a new primary that never had it), is a lost commit.

use oltpgen_report::model::Workload;
use oltpgen_report::model::outage::LostCommits;

use crate::engine::Conn;
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
        let missing = conn.missing_orders(target, workload, &mine).await?;
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
    fn an_acknowledged_order_takes_16_bytes_and_says_itself() {
        assert_eq!(std::mem::size_of::<Ack>(), 16);
        let a = Ack { w_id: 3, o_id: 3_001, c_id: 17, d_id: 4, lines: 9, target: 0 };
        assert_eq!(a.to_string(), "w_id=3 d_id=4 o_id=3001 (c_id=17, 9 lines)");
        let purchase = Ack { w_id: 0, o_id: 20_001, c_id: 5, d_id: 0, lines: 3, target: 0 };
        assert_eq!(purchase.to_string(), "orderid=20001 (customerid=5, 3 lines)");
    }
}
