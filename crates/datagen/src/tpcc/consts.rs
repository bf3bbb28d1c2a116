//! Constants set by the TPC-C specification (v5.11), not knobs. Clause numbers name where each comes from.

/// 1.2.1: districts per warehouse.
pub const DISTRICTS_PER_WAREHOUSE: u32 = 10;
/// 1.2.1: customers per district.
pub const CUSTOMERS_PER_DISTRICT: u32 = 3_000;
/// 1.2.1: orders per district at load.
pub const ORDERS_PER_DISTRICT: u32 = 3_000;
/// 4.3.3.1: the first order id that is still undelivered (has a new_order row) at load.
pub const FIRST_UNDELIVERED_O_ID: u32 = 2_101;
/// 1.2.1: rows of item (fixed, whatever the scale); also the stock rows per warehouse.
pub const ITEMS: u32 = 100_000;
/// 2.1.6: NURand's A for C_LAST.
pub const A_C_LAST: i64 = 255;
/// 2.1.6: NURand's A for C_ID.
pub const A_C_ID: i64 = 1_023;
/// 2.1.6: NURand's A for OL_I_ID.
pub const A_OL_I_ID: i64 = 8_191;
/// 4.3.2.3: the syllables that make a customer's last name.
pub const LAST_NAME_SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];
