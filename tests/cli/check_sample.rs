//! `tpcc check --sample K` (issue 44): clause 3.3.2's per-warehouse conditions on K warehouses drawn
//! from a seed and named, 3.3.2.1 on every warehouse, and what was skipped said; a corruption in a
//! sampled warehouse is caught, one elsewhere is (by design) not, and the whole check still catches it.

use crate::common::{oltpgen, sql};

#[tokio::test(flavor = "multi_thread")]
async fn a_sampled_check_catches_a_corruption_in_a_drawn_warehouse_and_names_what_it_skipped() {
    let (pg, urls) = crate::common::server_with(&["sampled"]).await;
    let out = oltpgen(&["tpcc", "load", "--scale", "4", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let sampled = || oltpgen(&["tpcc", "check", "--url", &urls[0], "--sample", "2", "--sample-seed", "7"]);
    let out = sampled();
    assert_eq!(out.code, 0, "{}", out.all());
    let drawn_line = (out.stdout.lines())
        .find_map(|l| l.strip_prefix("sampled 2 of 4 warehouses (--sample-seed 7): "))
        .unwrap_or_else(|| panic!("the drawn warehouses are named: {}", out.stdout));
    let drawn: Vec<u32> = drawn_line.split(", ").map(|w| w.parse().unwrap()).collect();
    assert_eq!(drawn.len(), 2, "{drawn_line}");
    assert!(
        out.stdout.contains(
            "ran on every warehouse: 3.3.2.1; ran on the sampled warehouses only: 3.3.2.2 to 3.3.2.12"
        ),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("skipped on the other 2 warehouses: 3.3.2.2 to 3.3.2.12"), "{}", out.stdout);
    assert_eq!(sampled().stdout, out.stdout, "the same seed draws the same warehouses");

    let client = sql(&pg.target("sampled")).await;
    let corrupt = |w: u32| {
        format!(
            "UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = {w} AND c_d_id = 1 AND c_id = 1"
        )
    };
    let elsewhere = (1..=4).find(|w| !drawn.contains(w)).unwrap();
    client.batch_execute(&corrupt(elsewhere)).await.unwrap();
    assert_eq!(sampled().code, 0, "a warehouse not drawn is not read");
    let whole = oltpgen(&["tpcc", "check", "--url", &urls[0]]);
    assert_eq!(whole.code, 1, "{}", whole.all());
    client.batch_execute(&corrupt(drawn[1])).await.unwrap();
    let out = sampled();
    assert_eq!(out.code, 1, "{}", out.all());
    let caught = format!("w_id={} d_id=1 c_id=1", drawn[1]);
    assert!(out.all().contains(&caught), "{}", out.all());
    assert!(!out.all().contains(&format!("w_id={elsewhere} d_id=1 c_id=1")), "{}", out.all());
}
