//! `tpcc check --sample` against a loaded database of any engine (issue 44): the drawn warehouse and
//! what was skipped named, a corruption in a warehouse not drawn passing (the whole check catches it),
//! one in the drawn warehouse caught, naming its row. The engine's own tests bring the database and
//! the statement that corrupts a warehouse.

use crate::common::oltpgen;

/// `tpcc check --sample 1` on `url` (TPC-C at scale 2): names the drawn warehouse and what it skipped,
/// passes with a corruption (`corrupt`, one customer's balance of the warehouse given) in the other
/// warehouse, which the whole check catches, and fails, naming the row, with one in the drawn warehouse.
pub fn assert_sampled_check_catches_a_drawn_warehouse_only(url: &str, corrupt: &mut dyn FnMut(u32)) {
    let sampled = || oltpgen(&["tpcc", "check", "--url", url, "--sample", "1", "--sample-seed", "7"]);
    let out = sampled();
    assert_eq!(out.code, 0, "{}", out.all());
    let drawn: u32 = (out.stdout.lines())
        .find_map(|l| l.strip_prefix("sampled 1 of 2 warehouses (--sample-seed 7): "))
        .unwrap_or_else(|| panic!("the drawn warehouse is named: {}", out.stdout))
        .parse()
        .unwrap();
    assert!(out.stdout.contains("skipped on the other 1 warehouses: 3.3.2.2 to 3.3.2.12"), "{}", out.stdout);
    let elsewhere = 3 - drawn;
    corrupt(elsewhere);
    assert_eq!(sampled().code, 0, "a warehouse not drawn is not read");
    let whole = oltpgen(&["tpcc", "check", "--url", url]);
    assert_eq!(whole.code, 1, "{}", whole.all());
    corrupt(drawn);
    let out = sampled();
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.all().contains(&format!("w_id={drawn} d_id=1 c_id=1")), "{}", out.all());
    assert!(!out.all().contains(&format!("w_id={elsewhere} d_id=1 c_id=1")), "{}", out.all());
}

/// The statement that corrupts warehouse `w` for [`assert_sampled_check_catches_a_drawn_warehouse_only`]:
/// one customer's balance off by one, which clause 3.3.2.12 catches.
pub fn corruption(w: u32) -> String {
    format!("UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = {w} AND c_d_id = 1 AND c_id = 1")
}
