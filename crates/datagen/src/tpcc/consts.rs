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
pub const LAST_NAME_SYLLABLES: [&str; 10] =
    ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"];

// The run's transaction inputs (clause 2), used by `input.rs`.

/// 2.4.1.3: the fewest order lines a New-Order enters.
pub const MIN_OL_CNT: u32 = 5;
/// 2.4.1.3: the most order lines a New-Order enters.
pub const MAX_OL_CNT: u32 = 15;
/// 2.4.1.4: percent of New-Orders whose last line names an unused item, so that they roll back.
pub const ROLLBACK_PERCENT: u32 = 1;
/// 2.4.1.4: the unused item id those New-Orders use: one past the last item.
pub const UNUSED_ITEM_ID: u32 = ITEMS + 1;
/// 2.4.1.5.2: percent of order lines supplied by a remote warehouse (when there is more than one).
pub const REMOTE_LINE_PERCENT: u32 = 1;
/// 2.4.1.5.3: the largest quantity of an order line (the smallest is 1).
pub const MAX_OL_QUANTITY: u32 = 10;
/// 2.5.1.2: percent of Payments by a customer of a remote warehouse (when there is more than one).
pub const REMOTE_PAYMENT_PERCENT: u32 = 15;
/// 2.5.1.2, 2.6.1.2: percent of Payments and Order-Status transactions that find the customer by last name.
pub const BY_LAST_NAME_PERCENT: u32 = 60;
/// 2.5.1.3: the smallest payment, in cents (1.00).
pub const MIN_PAYMENT_CENTS: i64 = 100;
/// 2.5.1.3: the largest payment, in cents (5,000.00).
pub const MAX_PAYMENT_CENTS: i64 = 500_000;
/// 2.7.1.2: carriers are numbered 1 to this.
pub const CARRIERS: u32 = 10;
/// 2.8.1.2: the smallest Stock-Level threshold.
pub const MIN_STOCK_THRESHOLD: u32 = 10;
/// 2.8.1.2: the largest Stock-Level threshold.
pub const MAX_STOCK_THRESHOLD: u32 = 20;
/// 4.3.2.3: the longest last name, in bytes (three syllables of at most five letters).
pub const MAX_LAST_NAME_LEN: usize = 15;
