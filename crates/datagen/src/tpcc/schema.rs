//! The TPC-C schema as data (clause 1.3): tables, columns in generation order, keys and the secondary
//! indexes the transactions need.
//!
//! The types are the shared ones of [`crate::schema`]. The generators in [`rows`](super::rows) write
//! columns in exactly the order of [`Table::columns`]; a unit test checks every generated value against
//! its column.

pub use crate::schema::{Column, ColumnType, Index, TableDef};
use crate::schema::{chr, int, nullable, num, ts, var};

/// One of the nine TPC-C tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// One row per warehouse: the unit of scale.
    Warehouse,
    /// Ten per warehouse.
    District,
    /// 3,000 per district.
    Customer,
    /// One per customer at load; no primary key.
    History,
    /// The undelivered orders: 900 per district at load (orders 2101..=3000).
    NewOrder,
    /// 3,000 per district.
    Orders,
    /// 5 to 15 per order.
    OrderLine,
    /// 100,000 items, whatever the scale.
    Item,
    /// 100,000 per warehouse.
    Stock,
}

/// The secondary indexes (beyond primary keys): Payment and Order-Status find a customer by last name
/// (2.5.2.2, 2.6.2.2), and Order-Status finds a customer's latest order (2.6.2.2).
pub const SECONDARY_INDEXES: &[Index] = &[
    Index {
        name: "customer_last_name",
        table: "customer",
        columns: &["c_w_id", "c_d_id", "c_last", "c_first"],
        unique: false,
    },
    Index {
        name: "orders_customer",
        table: "orders",
        columns: &["o_w_id", "o_d_id", "o_c_id", "o_id"],
        unique: true,
    },
];

impl Table {
    /// Every table, in the spec's order (1.3).
    pub const ALL: [Table; 9] = [
        Table::Warehouse,
        Table::District,
        Table::Customer,
        Table::History,
        Table::NewOrder,
        Table::Orders,
        Table::OrderLine,
        Table::Item,
        Table::Stock,
    ];

    /// The table as data: name, columns, primary key.
    pub fn def(self) -> &'static TableDef {
        &TABLES[self as usize]
    }

    /// The table's SQL name.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// The columns, in the order the generators write them (the spec's order, 1.3).
    pub fn columns(self) -> &'static [Column] {
        self.def().columns
    }

    /// The primary key's columns (1.3); empty for history, which has none.
    pub fn primary_key(self) -> &'static [&'static str] {
        self.def().primary_key
    }
}

/// The nine tables (1.3), in [`Table::ALL`]'s order.
pub const TABLES: [TableDef; 9] = [
    TableDef { name: "warehouse", columns: WAREHOUSE, primary_key: &["w_id"] },
    TableDef { name: "district", columns: DISTRICT, primary_key: &["d_w_id", "d_id"] },
    TableDef { name: "customer", columns: CUSTOMER, primary_key: &["c_w_id", "c_d_id", "c_id"] },
    TableDef { name: "history", columns: HISTORY, primary_key: &[] },
    TableDef { name: "new_order", columns: NEW_ORDER, primary_key: &["no_w_id", "no_d_id", "no_o_id"] },
    TableDef { name: "orders", columns: ORDERS, primary_key: &["o_w_id", "o_d_id", "o_id"] },
    TableDef {
        name: "order_line",
        columns: ORDER_LINE,
        primary_key: &["ol_w_id", "ol_d_id", "ol_o_id", "ol_number"],
    },
    TableDef { name: "item", columns: ITEM, primary_key: &["i_id"] },
    TableDef { name: "stock", columns: STOCK, primary_key: &["s_w_id", "s_i_id"] },
];

const WAREHOUSE: &[Column] = &[
    int("w_id"),
    var("w_name", 10),
    var("w_street_1", 20),
    var("w_street_2", 20),
    var("w_city", 20),
    chr("w_state", 2),
    chr("w_zip", 9),
    num("w_tax", 4, 4),
    num("w_ytd", 12, 2),
];

const DISTRICT: &[Column] = &[
    int("d_id"),
    int("d_w_id"),
    var("d_name", 10),
    var("d_street_1", 20),
    var("d_street_2", 20),
    var("d_city", 20),
    chr("d_state", 2),
    chr("d_zip", 9),
    num("d_tax", 4, 4),
    num("d_ytd", 12, 2),
    int("d_next_o_id"),
];

const CUSTOMER: &[Column] = &[
    int("c_id"),
    int("c_d_id"),
    int("c_w_id"),
    var("c_first", 16),
    chr("c_middle", 2),
    var("c_last", 16),
    var("c_street_1", 20),
    var("c_street_2", 20),
    var("c_city", 20),
    chr("c_state", 2),
    chr("c_zip", 9),
    chr("c_phone", 16),
    ts("c_since"),
    chr("c_credit", 2),
    num("c_credit_lim", 12, 2),
    num("c_discount", 4, 4),
    num("c_balance", 12, 2),
    num("c_ytd_payment", 12, 2),
    int("c_payment_cnt"),
    int("c_delivery_cnt"),
    var("c_data", 500),
];

const HISTORY: &[Column] = &[
    int("h_c_id"),
    int("h_c_d_id"),
    int("h_c_w_id"),
    int("h_d_id"),
    int("h_w_id"),
    ts("h_date"),
    num("h_amount", 6, 2),
    var("h_data", 24),
];

const NEW_ORDER: &[Column] = &[int("no_o_id"), int("no_d_id"), int("no_w_id")];

const ORDERS: &[Column] = &[
    int("o_id"),
    int("o_d_id"),
    int("o_w_id"),
    int("o_c_id"),
    ts("o_entry_d"),
    nullable(int("o_carrier_id")),
    int("o_ol_cnt"),
    int("o_all_local"),
];

const ORDER_LINE: &[Column] = &[
    int("ol_o_id"),
    int("ol_d_id"),
    int("ol_w_id"),
    int("ol_number"),
    int("ol_i_id"),
    int("ol_supply_w_id"),
    nullable(ts("ol_delivery_d")),
    int("ol_quantity"),
    num("ol_amount", 6, 2),
    chr("ol_dist_info", 24),
];

const ITEM: &[Column] =
    &[int("i_id"), int("i_im_id"), var("i_name", 24), num("i_price", 5, 2), var("i_data", 50)];

const STOCK: &[Column] = &[
    int("s_i_id"),
    int("s_w_id"),
    int("s_quantity"),
    chr("s_dist_01", 24),
    chr("s_dist_02", 24),
    chr("s_dist_03", 24),
    chr("s_dist_04", 24),
    chr("s_dist_05", 24),
    chr("s_dist_06", 24),
    chr("s_dist_07", 24),
    chr("s_dist_08", 24),
    chr("s_dist_09", 24),
    chr("s_dist_10", 24),
    int("s_ytd"),
    int("s_order_cnt"),
    int("s_remote_cnt"),
    var("s_data", 50),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_keys_and_indexes_name_real_columns() {
        let names: HashSet<_> = Table::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names.len(), 9);
        for t in Table::ALL {
            assert_eq!(TABLES[t as usize].name, t.name(), "TABLES follows Table::ALL");
        }
        let has = |t: Table, c: &str| t.columns().iter().any(|col| col.name == c);
        for t in Table::ALL {
            let cols: HashSet<_> = t.columns().iter().map(|c| c.name).collect();
            assert_eq!(cols.len(), t.columns().len(), "{t:?} repeats a column");
            for k in t.primary_key() {
                assert!(has(t, k), "{t:?} key {k}");
            }
        }
        assert!(Table::History.primary_key().is_empty());
        for ix in SECONDARY_INDEXES {
            for c in ix.columns {
                let table = Table::ALL.into_iter().find(|t| t.name() == ix.table).expect("a tpcc table");
                assert!(has(table, c), "{} names {c}", ix.name);
            }
        }
    }
}
