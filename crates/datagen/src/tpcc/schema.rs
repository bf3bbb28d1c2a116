//! The TPC-C schema as data (clause 1.3): tables, columns in generation order, keys and the secondary
//! indexes the transactions need.
//!
//! Each database backend renders its own DDL from these values, so the generators in
//! [`rows`](super::rows) and every backend agree on one column list. The generators write columns in
//! exactly the order of [`Table::columns`]; a unit test checks every generated value against its column.

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

/// A column's SQL type, in the spec's terms; backends map each to their nearest type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// A 32-bit signed integer (the spec's identifiers and small counts).
    Int4,
    /// An exact decimal with `precision` digits of which `scale` follow the point (money, rates).
    Numeric {
        /// Total significant digits.
        precision: u8,
        /// Digits after the decimal point.
        scale: u8,
    },
    /// Fixed-length text (the spec's "fixed text, size N"); generated values are exactly N bytes.
    Char(u16),
    /// Variable-length text of at most N bytes.
    Varchar(u16),
    /// A date and time without time zone, to the microsecond.
    Timestamp,
}

/// One column of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The spec's column name, lower case (`w_id`).
    pub name: &'static str,
    /// Its type.
    pub ty: ColumnType,
    /// Whether the loader may write NULL (only `o_carrier_id` and `ol_delivery_d`).
    pub nullable: bool,
}

/// A secondary index that the transaction profiles need to avoid full scans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Index {
    /// The index's name, unique in the database.
    pub name: &'static str,
    /// The indexed table.
    pub table: Table,
    /// Indexed columns, in order.
    pub columns: &'static [&'static str],
    /// Whether the index may be declared unique.
    pub unique: bool,
}

/// The secondary indexes (beyond primary keys): Payment and Order-Status find a customer by last name
/// (2.5.2.2, 2.6.2.2), and Order-Status finds a customer's latest order (2.6.2.2).
pub const SECONDARY_INDEXES: &[Index] = &[
    Index {
        name: "customer_last_name",
        table: Table::Customer,
        columns: &["c_w_id", "c_d_id", "c_last", "c_first"],
        unique: false,
    },
    Index {
        name: "orders_customer",
        table: Table::Orders,
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

    /// The table's SQL name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Warehouse => "warehouse",
            Table::District => "district",
            Table::Customer => "customer",
            Table::History => "history",
            Table::NewOrder => "new_order",
            Table::Orders => "orders",
            Table::OrderLine => "order_line",
            Table::Item => "item",
            Table::Stock => "stock",
        }
    }

    /// The columns, in the order the generators write them (the spec's order, 1.3).
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Warehouse => WAREHOUSE,
            Table::District => DISTRICT,
            Table::Customer => CUSTOMER,
            Table::History => HISTORY,
            Table::NewOrder => NEW_ORDER,
            Table::Orders => ORDERS,
            Table::OrderLine => ORDER_LINE,
            Table::Item => ITEM,
            Table::Stock => STOCK,
        }
    }

    /// The primary key's columns (1.3); empty for history, which has none.
    pub fn primary_key(self) -> &'static [&'static str] {
        match self {
            Table::Warehouse => &["w_id"],
            Table::District => &["d_w_id", "d_id"],
            Table::Customer => &["c_w_id", "c_d_id", "c_id"],
            Table::History => &[],
            Table::NewOrder => &["no_w_id", "no_d_id", "no_o_id"],
            Table::Orders => &["o_w_id", "o_d_id", "o_id"],
            Table::OrderLine => &["ol_w_id", "ol_d_id", "ol_o_id", "ol_number"],
            Table::Item => &["i_id"],
            Table::Stock => &["s_w_id", "s_i_id"],
        }
    }
}

const fn int(name: &'static str) -> Column {
    col(name, ColumnType::Int4)
}
const fn num(name: &'static str, precision: u8, scale: u8) -> Column {
    col(name, ColumnType::Numeric { precision, scale })
}
const fn chr(name: &'static str, len: u16) -> Column {
    col(name, ColumnType::Char(len))
}
const fn var(name: &'static str, len: u16) -> Column {
    col(name, ColumnType::Varchar(len))
}
const fn ts(name: &'static str) -> Column {
    col(name, ColumnType::Timestamp)
}
const fn col(name: &'static str, ty: ColumnType) -> Column {
    Column { name, ty, nullable: false }
}
const fn nullable(c: Column) -> Column {
    Column { nullable: true, ..c }
}

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
                assert!(has(ix.table, c), "{} names {c}", ix.name);
            }
        }
    }
}
