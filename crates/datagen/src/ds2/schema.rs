//! The DS2 schema as data (`ds2_schema.txt`, `mysqlds2_create_db.sql`): eight tables, columns in
//! generation order, keys, and the secondary indexes the operations need.
//!
//! Column types are the reference PostgreSQL build's where a client reads them (`pgsqlds2_create_tbl.sql`):
//! `zip` is varchar(9), and `region`, `age`, `orderlineid`, `quantity`, `category` and `special` are
//! smallint, so that DS2's own driver, which reads a browse's category and special with `GetInt16`, runs
//! against a database oltpgen loaded.
//!
//! Names are lower case, so that SQL written against them needs no quoting. The generators in
//! [`rows`](super::rows) write columns in exactly the order of each [`Table::def`]; a unit test checks
//! every generated value against its column. Full-text indexes are each engine's own, not listed here.

pub use crate::schema::{Column, ColumnType, Index, TableDef};
use crate::schema::{date, int, nullable, num, small, var};

/// One of the eight DS2 tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// The store's registered users: half in the US, half elsewhere.
    Customers,
    /// Twelve months of past orders.
    Orders,
    /// 1 to 9 lines per order.
    Orderlines,
    /// One row per order line: what Login shows of a customer's past purchases. No primary key.
    CustHist,
    /// The DVDs.
    Products,
    /// One row per product: stock and sales.
    Inventory,
    /// Filled by a trigger when stock runs low; empty at load. No primary key.
    Reorder,
    /// The 16 categories' names.
    Categories,
}

/// The secondary indexes (beyond primary keys): Login finds a customer by user name (and New customer
/// relies on its uniqueness to refuse a taken name), Login finds a customer's orders and past
/// purchases, and Browse by category finds a category's products on special.
pub const SECONDARY_INDEXES: &[Index] = &[
    Index { name: "ix_cust_username", table: "customers", columns: &["username"], unique: true },
    Index { name: "ix_order_custid", table: "orders", columns: &["customerid"], unique: false },
    Index { name: "ix_cust_hist_customerid", table: "cust_hist", columns: &["customerid"], unique: false },
    Index { name: "ix_prod_category", table: "products", columns: &["category"], unique: false },
    Index { name: "ix_prod_special", table: "products", columns: &["special"], unique: false },
];

impl Table {
    /// Every table, in the reference's order.
    pub const ALL: [Table; 8] = [
        Table::Customers,
        Table::Orders,
        Table::Orderlines,
        Table::CustHist,
        Table::Products,
        Table::Inventory,
        Table::Reorder,
        Table::Categories,
    ];

    /// The table as data: name, columns in the order the generators write them, primary key.
    pub fn def(self) -> &'static TableDef {
        &TABLES[self as usize]
    }
}

/// The eight tables, in [`Table::ALL`]'s order.
pub const TABLES: [TableDef; 8] = [
    TableDef { name: "customers", columns: CUSTOMERS, primary_key: &["customerid"] },
    TableDef { name: "orders", columns: ORDERS, primary_key: &["orderid"] },
    TableDef { name: "orderlines", columns: ORDERLINES, primary_key: &["orderid", "orderlineid"] },
    TableDef { name: "cust_hist", columns: CUST_HIST, primary_key: &[] },
    TableDef { name: "products", columns: PRODUCTS, primary_key: &["prod_id"] },
    TableDef { name: "inventory", columns: INVENTORY, primary_key: &["prod_id"] },
    TableDef { name: "reorder", columns: REORDER, primary_key: &[] },
    TableDef { name: "categories", columns: CATEGORIES, primary_key: &["category"] },
];

/// Text columns are all varchar(50) in the reference, whatever they hold.
const TEXT: u16 = 50;

const CUSTOMERS: &[Column] = &[
    int("customerid"),
    var("firstname", TEXT),
    var("lastname", TEXT),
    var("address1", TEXT),
    nullable(var("address2", TEXT)),
    var("city", TEXT),
    nullable(var("state", TEXT)),
    nullable(var("zip", 9)),
    var("country", TEXT),
    small("region"),
    nullable(var("email", TEXT)),
    nullable(var("phone", TEXT)),
    int("creditcardtype"),
    var("creditcard", TEXT),
    var("creditcardexpiration", TEXT),
    var("username", TEXT),
    var("password", TEXT),
    nullable(small("age")),
    nullable(int("income")),
    nullable(var("gender", 1)),
];

const ORDERS: &[Column] = &[
    int("orderid"),
    date("orderdate"),
    int("customerid"),
    num("netamount", 12, 2),
    num("tax", 12, 2),
    num("totalamount", 12, 2),
];

const ORDERLINES: &[Column] =
    &[small("orderlineid"), int("orderid"), int("prod_id"), small("quantity"), date("orderdate")];

const CUST_HIST: &[Column] = &[int("customerid"), int("orderid"), int("prod_id")];

const PRODUCTS: &[Column] = &[
    int("prod_id"),
    small("category"),
    var("title", TEXT),
    var("actor", TEXT),
    num("price", 12, 2),
    small("special"),
    int("common_prod_id"),
];

const INVENTORY: &[Column] = &[int("prod_id"), int("quan_in_stock"), int("sales")];

const REORDER: &[Column] = &[
    int("prod_id"),
    date("date_low"),
    int("quan_low"),
    nullable(date("date_reordered")),
    nullable(int("quan_reordered")),
    nullable(date("date_expected")),
];

const CATEGORIES: &[Column] = &[int("category"), var("categoryname", TEXT)];

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn tables_follow_all_and_keys_and_indexes_name_their_columns() {
        assert!(Table::ALL.iter().zip(&TABLES).all(|(t, def)| t.def() == def));
        let names: HashSet<_> = TABLES.iter().map(|t| t.name).collect();
        assert_eq!(names.len(), TABLES.len());
        let column_names = |table: &str| -> HashSet<&str> {
            let def = TABLES.iter().find(|t| t.name == table).expect("a ds2 table");
            let names: HashSet<_> = def.column_names().into_iter().collect();
            assert_eq!(names.len(), def.columns.len(), "{table} repeats a column");
            names
        };
        let keys = TABLES.iter().map(|t| (t.name, t.primary_key));
        let indexed = SECONDARY_INDEXES.iter().map(|ix| (ix.table, ix.columns));
        for (table, columns) in keys.chain(indexed) {
            let known = column_names(table);
            assert!(columns.iter().all(|c| known.contains(c)), "{table}: {columns:?}");
        }
        assert_eq!(Table::Customers.def().columns.len(), 20);
    }
}
