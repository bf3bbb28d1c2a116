//! The initial DS2 database at any [`DbSize`], generated in independent chunks.
//!
//! Values follow the reference generators (`ds2_create_cust.c`, `ds2_create_orders.c`,
//! `ds2_create_prod.c`, `ds2_create_inv.c`); each constant below names the one that sets it. Every value
//! of a [`Chunk`] comes from generators derived from `(seed, stream, part)` with [`Rng::derive`], never
//! from another chunk, so chunks can be generated on any thread, in any order, and the same
//! [`Ds2Params`] always give byte-identical rows.
//!
//! Orders are generated in blocks of at most 20,000 orders of one month. A block's orders,
//! orderlines and cust_hist rows are three chunks that replay the same three streams: the orders' (date,
//! customer, amount), the line counts, and the lines' (product, quantity). So cust_hist repeats the
//! orderlines exactly, each line carries its order's date and customer, and [`Ds2Data::rows_in`] counts a
//! block's lines by replaying only the line-count stream. Inventory's `sales` is the total quantity of
//! each product in the loaded orderlines, as `ds2_create_inv.c` sums them: it is computed once, by
//! replaying every block's lines, the first time an inventory chunk is written.
//!
//! ```
//! use oltpgen_datagen::ds2::rows::{Chunk, Ds2Data, Ds2Params};
//! use oltpgen_datagen::ds2::schema::Table;
//! use oltpgen_datagen::ds2::size::DbSize;
//! use oltpgen_datagen::encode::Csv;
//! use oltpgen_datagen::schema::Dataset;
//! let data = Ds2Data::new(Ds2Params { size: DbSize::S, seed: 42 });
//! assert_eq!((data.customers(), data.orders(), data.products()), (20_000, 12_000, 10_000));
//! let chunk = Chunk { table: Table::Categories, part: 0 };
//! let mut out = Csv::new(Vec::new());
//! data.write(chunk, &mut out);
//! assert_eq!(out.rows(), data.rows_in(chunk));
//! assert!(out.into_inner().starts_with(b"1,Action\n2,Animation\n"));
//! ```
//!
//! The stream layout (which tag, which path, which chunk size) is part of the data: changing any of the
//! constants below changes every generated database, like changing [`Rng`] itself.

use std::fmt;
use std::ops::RangeInclusive;
use std::sync::OnceLock;

use super::POPULAR_EVERY;
use super::schema::{SECONDARY_INDEXES, TABLES, Table};
use super::size::DbSize;
use super::words::{CATEGORY_NAMES, COUNTRIES, STATES, actor, pick, product_title};
use crate::Rng;
use crate::encode::{RowEncoder, push_u64};
use crate::schema::{Dataset, Index, TableDef};
use crate::text::uppercase;

// Stream tags: the first element of every derivation path. Fixed forever (see the module docs).
const STREAM_CUSTOMERS: u64 = 1;
const STREAM_ORDERS: u64 = 2;
const STREAM_LINE_COUNTS: u64 = 3;
const STREAM_LINES: u64 = 4;
const STREAM_PRODUCTS: u64 = 5;
const STREAM_INVENTORY: u64 = 6;

/// Customers per chunk of `customers` (about 8 MB of COPY data).
const CUSTOMERS_PER_PART: u32 = 50_000;
/// Orders per block: one chunk of `orders`, and about 100,000 rows of `orderlines` and of `cust_hist`.
const ORDERS_PER_BLOCK: u32 = 20_000;
/// Products (or inventory rows) per chunk.
const PRODUCTS_PER_PART: u32 = 100_000;

// Set by the reference, not knobs.
/// `ds2_create_orders.c`: every loaded order is of 2009, one month's orders in each month.
const MONTHS: u32 = 12;
/// 2009-01-01 as days since 1970-01-01.
const JAN_1_2009: i32 = 14_245;
/// Days of 2009 before each month.
const DAYS_BEFORE_MONTH: [i32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
/// Days in each month of 2009 (`i_days_in_month` of `ds2_create_orders.c`).
const DAYS_IN_MONTH: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/// `ds2_create_orders.c`: netamount is 0.01 × random(1, 40000), in cents.
const MAX_NETAMOUNT_CENTS: i64 = 40_000;
/// `ds2_create_orders.c`: tax is 8.25% of netamount, in units of 0.01%.
const TAX_BASIS_POINTS: i64 = 825;
/// `ds2_create_orders.c`: random(1, 9) lines per order.
const MAX_LINES: i64 = 9;
/// `ds2_create_orders.c`: each line's quantity is random(1, 3).
const MAX_QUANTITY: i64 = 3;
/// `ds2_create_prod.c`: price is $9.99 to $29.99, a whole number of dollars plus 99 cents.
const PRICE_DOLLARS: RangeInclusive<i64> = 9..=29;
/// `ds2_create_prod.c`: categories 1..=16.
const CATEGORIES: i64 = CATEGORY_NAMES.len() as i64;
/// `ds2_create_prod.c`: catalogues of more products than this put 1 in 10,000 on special, others 1 in 100.
const SMALL_CATALOGUE: i32 = 100_000;
/// `ds2_create_inv.c`: quan_in_stock is random(0, 500) ...
const MAX_QUAN_IN_STOCK: i64 = 500;
/// ... and ten times that for every 10,000th product, the popular titles the driver buys ten-fold.
const POPULAR_STOCK_FACTOR: i32 = 10;
/// `ds2_create_cust.c`: US zip codes are random(10000, 99999); customers elsewhere have zip 0.
const US_ZIPS: RangeInclusive<i64> = 10_000..=99_999;
/// `ds2_create_cust.c`: phone numbers are 10 digits, the first not 0.
const PHONES: RangeInclusive<i64> = 1_000_000_000..=9_999_999_999;
/// `ds2_create_cust.c`: credit card numbers are 16 digits, the first not 0.
const CREDIT_CARDS: RangeInclusive<i64> = 1_000_000_000_000_000..=9_999_999_999_999_999;
/// `ds2_create_cust.c`: credit card types 1..=5.
const CREDIT_CARD_TYPES: i64 = 5;
/// `ds2_create_cust.c`: cards expire in 2008..=2012.
const EXPIRY_YEARS: RangeInclusive<i64> = 2_008..=2_012;
/// `ds2_create_cust.c`: ages 18..=90.
const AGES: RangeInclusive<i64> = 18..=90;
/// `ds2_create_cust.c`: incomes are $20,000 × random(1, 5).
const INCOME_STEP: i64 = 20_000;
/// `ds2_create_cust.c`: see [`INCOME_STEP`].
const INCOME_STEPS: i64 = 5;

/// What to generate: the size and the seed every value derives from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ds2Params {
    /// The database size, which fixes the customers, orders and products.
    pub size: DbSize,
    /// The seed every value derives from.
    pub seed: u64,
}

/// One unit of generation work: a table, and which of its rows.
///
/// | table | `part` | rows |
/// |---|---|---|
/// | customers | 0.. | customers `part * 50,000 + 1 ..`, up to 50,000 |
/// | orders, orderlines, cust_hist | 0.. | block `part` (month `part / blocks a month + 1`): up to 20,000 orders and their lines |
/// | products, inventory | 0.. | products `part * 100,000 + 1 ..`, up to 100,000 |
/// | categories | 0 | all 16 |
/// | reorder | none | empty at load: no chunk |
///
/// Only [`Ds2Data::chunks`] makes chunks; the others are refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// The table the rows belong to.
    pub table: Table,
    /// Which part of the table this is, from 0.
    pub part: u32,
}

/// The initial database of [`Ds2Params`], as independent [`Chunk`]s that any thread can generate.
///
/// `Ds2Data` is `Send + Sync`; its only state is inventory's sales, computed once on first use, so one
/// value can be shared by every generating thread.
#[derive(Clone)]
pub struct Ds2Data {
    params: Ds2Params,
    /// Each product's total quantity in the loaded orderlines, by `prod_id - 1`.
    sales: OnceLock<Vec<i32>>,
}

impl fmt::Debug for Ds2Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ds2Data").field("params", &self.params).finish_non_exhaustive()
    }
}

/// Up to [`ORDERS_PER_BLOCK`] consecutive orders of one month.
#[derive(Clone, Copy, Debug)]
struct Block {
    /// 1..=12.
    month: u32,
    /// The block's position in its month, from 0.
    index: u32,
    /// The first order's id.
    first: i32,
    /// How many orders.
    len: u32,
}

/// One loaded order's values, as its lines need them too.
#[derive(Clone, Copy, Debug)]
struct Order {
    orderid: i32,
    /// Days since 1970-01-01.
    date: i32,
    customerid: i32,
    netamount_cents: i64,
}

/// One order line.
#[derive(Clone, Copy, Debug)]
struct Line {
    /// 1..=9 within the order.
    number: i32,
    prod_id: i32,
    quantity: i32,
}

/// The first and last id of part `part` of a table of `total` rows cut in parts of `per_part`.
fn id_range(part: u32, per_part: u32, total: i32) -> RangeInclusive<i32> {
    let first = i64::from(part) * i64::from(per_part) + 1;
    let last = (first + i64::from(per_part) - 1).min(i64::from(total));
    first as i32..=last as i32
}

/// `ds2_create_orders.c`: tax is 8.25% of netamount, here rounded half up to the cent, so that
/// totalamount = netamount + tax exactly.
fn tax_cents(netamount_cents: i64) -> i64 {
    (netamount_cents * TAX_BASIS_POINTS + 5_000) / 10_000
}

impl Ds2Data {
    /// The database of `params`.
    pub fn new(params: Ds2Params) -> Self {
        Ds2Data { params, sales: OnceLock::new() }
    }

    /// The parameters the data is generated from.
    pub fn params(&self) -> &Ds2Params {
        &self.params
    }

    /// Loaded customers: ids 1..=customers (`user<id>`, the driver's logins).
    pub fn customers(&self) -> i32 {
        self.params.size.customers()
    }

    /// Loaded products: ids 1..=products (what the driver buys).
    pub fn products(&self) -> i32 {
        self.params.size.products()
    }

    /// Loaded orders, 12 months' worth: ids 1..=orders. New orders take the ids after them.
    pub fn orders(&self) -> i32 {
        self.orders_per_month() * MONTHS as i32
    }

    fn orders_per_month(&self) -> i32 {
        self.params.size.orders_per_month()
    }

    /// Blocks of orders in each month.
    fn blocks_per_month(&self) -> u32 {
        (self.orders_per_month() as u32).div_ceil(ORDERS_PER_BLOCK)
    }

    /// How many chunks `table` has.
    fn parts(&self, table: Table) -> u32 {
        match table {
            Table::Customers => (self.customers() as u32).div_ceil(CUSTOMERS_PER_PART),
            Table::Orders | Table::Orderlines | Table::CustHist => MONTHS * self.blocks_per_month(),
            Table::Products | Table::Inventory => (self.products() as u32).div_ceil(PRODUCTS_PER_PART),
            Table::Categories => 1,
            Table::Reorder => 0,
        }
    }

    /// Panics unless `chunk` is one that [`chunks`](Self::chunks) lists.
    fn check(&self, chunk: Chunk) {
        assert!(
            chunk.part < self.parts(chunk.table),
            "{chunk:?} is not a chunk of a DS2 database of size {}",
            self.params.size
        );
    }

    /// A stream named by `path` under the seed.
    #[inline]
    fn rng(&self, path: &[u64]) -> Rng {
        Rng::derive(self.params.seed, path)
    }

    /// Block `part` of the order tables.
    fn block(&self, part: u32) -> Block {
        let per_block = self.blocks_per_month();
        let (month, index) = (part / per_block + 1, part % per_block);
        let per_month = self.orders_per_month() as u32;
        let offset = index * ORDERS_PER_BLOCK;
        Block {
            month,
            index,
            first: ((month - 1) * per_month + offset + 1) as i32,
            len: ORDERS_PER_BLOCK.min(per_month - offset),
        }
    }

    /// Every block, in order id order.
    fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        (0..self.parts(Table::Orders)).map(|part| self.block(part))
    }

    /// The block's orders (`ds2_create_orders.c`): a random day of the block's month, a customer uniform
    /// over all customers, netamount 0.01 × random(1, 40000).
    fn orders_of(&self, block: Block) -> impl Iterator<Item = Order> + use<> {
        let mut rng = self.rng(&[STREAM_ORDERS, u64::from(block.month), u64::from(block.index)]);
        let month = block.month as usize - 1;
        let first_day = JAN_1_2009 + DAYS_BEFORE_MONTH[month];
        let customers = i64::from(self.customers());
        (block.first..block.first + block.len as i32).map(move |orderid| Order {
            orderid,
            date: first_day + rng.below(DAYS_IN_MONTH[month] as u64) as i32,
            customerid: rng.uniform(1, customers) as i32,
            netamount_cents: rng.uniform(1, MAX_NETAMOUNT_CENTS),
        })
    }

    /// The number of lines of each of the block's orders, random(1, 9). Orderlines, cust_hist, sales and
    /// `rows_in` all replay this one stream, so they cannot disagree.
    fn line_counts(&self, block: Block) -> impl Iterator<Item = u32> + use<> {
        let mut rng = self.rng(&[STREAM_LINE_COUNTS, u64::from(block.month), u64::from(block.index)]);
        (0..block.len).map(move |_| rng.uniform(1, MAX_LINES) as u32)
    }

    /// Calls `each` with every line of the block's orders, in (orderid, line number) order: a product
    /// uniform over all products, quantity random(1, 3) (`ds2_create_orders.c`).
    fn for_each_line(&self, block: Block, mut each: impl FnMut(&Order, Line)) {
        let mut rng = self.rng(&[STREAM_LINES, u64::from(block.month), u64::from(block.index)]);
        let products = i64::from(self.products());
        for (order, count) in self.orders_of(block).zip(self.line_counts(block)) {
            for number in 1..=count as i32 {
                let prod_id = rng.uniform(1, products) as i32;
                let quantity = rng.uniform(1, MAX_QUANTITY) as i32;
                each(&order, Line { number, prod_id, quantity });
            }
        }
    }

    /// Each product's total quantity in the loaded orderlines (`ds2_create_inv.c`), computed on first
    /// use by replaying every block's lines.
    fn sales(&self) -> &[i32] {
        self.sales.get_or_init(|| {
            let mut sales = vec![0i32; self.products() as usize];
            for block in self.blocks() {
                self.for_each_line(block, |_, line| sales[line.prod_id as usize - 1] += line.quantity);
            }
            sales
        })
    }

    /// `ds2_create_cust.c`: customers of part `part`. The first half of all customers are in the US
    /// (region 1, a state and a zip code), the rest elsewhere (region 2, no state, zip 0).
    fn write_customers<E: RowEncoder>(&self, part: u32, out: &mut E) {
        let ncols = Table::Customers.def().width();
        let mut rng = self.rng(&[STREAM_CUSTOMERS, u64::from(part)]);
        let in_us = self.customers() / 2;
        let mut text = Vec::with_capacity(32);
        for customerid in id_range(part, CUSTOMERS_PER_PART, self.customers()) {
            let first: [u8; 6] = uppercase(&mut rng);
            let last: [u8; 10] = uppercase(&mut rng);
            let city: [u8; 7] = uppercase(&mut rng);
            let us = customerid <= in_us;
            let (state, zip, country) = if us {
                (Some(pick(&mut rng, STATES)), rng.uniform(*US_ZIPS.start(), *US_ZIPS.end()) as i32, "US")
            } else {
                (None, 0, pick(&mut rng, COUNTRIES))
            };
            let phone = rng.uniform(*PHONES.start(), *PHONES.end()) as u64;
            out.begin_row(ncols);
            out.int4(customerid);
            out.text(&first);
            out.text(&last);
            out.text(compose(&mut text, |t| {
                push_u64(t, phone);
                t.extend_from_slice(b" Dell Way");
            }));
            out.null();
            out.text(&city);
            match state {
                Some(state) => out.text(state.as_bytes()),
                None => out.null(),
            }
            // `ds2_create_cust.c` prints the zip as `%05d`: 00000 outside the US (US zips have five digits).
            out.text(if zip == 0 { &b"00000"[..] } else { compose(&mut text, |t| push_u64(t, zip as u64)) });
            out.text(country.as_bytes());
            out.int2(if us { 1 } else { 2 });
            out.text(compose(&mut text, |t| {
                t.extend_from_slice(&last);
                t.extend_from_slice(b"@dell.com");
            }));
            out.text(compose(&mut text, |t| push_u64(t, phone)));
            out.int4(rng.uniform(1, CREDIT_CARD_TYPES) as i32);
            let card = rng.uniform(*CREDIT_CARDS.start(), *CREDIT_CARDS.end()) as u64;
            out.text(compose(&mut text, |t| push_u64(t, card)));
            let year = rng.uniform(*EXPIRY_YEARS.start(), *EXPIRY_YEARS.end()) as u64;
            let month = rng.uniform(1, 12) as u64;
            out.text(compose(&mut text, |t| {
                push_u64(t, year);
                t.push(b'/');
                if month < 10 {
                    t.push(b'0');
                }
                push_u64(t, month);
            }));
            out.text(compose(&mut text, |t| {
                t.extend_from_slice(b"user");
                push_u64(t, customerid as u64);
            }));
            out.text(b"password");
            out.int2(rng.uniform(*AGES.start(), *AGES.end()) as i16);
            out.int4((INCOME_STEP * rng.uniform(1, INCOME_STEPS)) as i32);
            out.text(if rng.below(2) == 1 { b"M" } else { b"F" });
            out.end_row();
        }
    }

    /// `ds2_create_orders.c`: the block's orders.
    fn write_orders<E: RowEncoder>(&self, block: Block, out: &mut E) {
        let ncols = Table::Orders.def().width();
        for order in self.orders_of(block) {
            let tax = tax_cents(order.netamount_cents);
            out.begin_row(ncols);
            out.int4(order.orderid);
            out.date(order.date);
            out.int4(order.customerid);
            out.numeric(order.netamount_cents, 2);
            out.numeric(tax, 2);
            out.numeric(order.netamount_cents + tax, 2);
            out.end_row();
        }
    }

    /// `ds2_create_orders.c`: the lines of the block's orders, dated as their order.
    fn write_orderlines<E: RowEncoder>(&self, block: Block, out: &mut E) {
        let ncols = Table::Orderlines.def().width();
        self.for_each_line(block, |order, line| {
            out.begin_row(ncols);
            out.int2(line.number as i16);
            out.int4(order.orderid);
            out.int4(line.prod_id);
            out.int2(line.quantity as i16);
            out.date(order.date);
            out.end_row();
        });
    }

    /// `ds2_create_orders.c`: one cust_hist row per line of the block's orders.
    fn write_cust_hist<E: RowEncoder>(&self, block: Block, out: &mut E) {
        let ncols = Table::CustHist.def().width();
        self.for_each_line(block, |order, line| {
            out.begin_row(ncols);
            out.int4(order.customerid);
            out.int4(order.orderid);
            out.int4(line.prod_id);
            out.end_row();
        });
    }

    /// `ds2_create_prod.c`: products of part `part`.
    fn write_products<E: RowEncoder>(&self, part: u32, out: &mut E) {
        let ncols = Table::Products.def().width();
        let mut rng = self.rng(&[STREAM_PRODUCTS, u64::from(part)]);
        let products = self.products();
        let one_special_in = if products > SMALL_CATALOGUE { 10_000 } else { 100 };
        let mut text = Vec::with_capacity(32);
        for prod_id in id_range(part, PRODUCTS_PER_PART, products) {
            out.begin_row(ncols);
            out.int4(prod_id);
            out.int2(rng.uniform(1, CATEGORIES) as i16);
            out.text(two_words(&mut text, product_title(prod_id)));
            out.text(two_words(&mut text, actor(&mut rng)));
            out.numeric(rng.uniform(*PRICE_DOLLARS.start(), *PRICE_DOLLARS.end()) * 100 + 99, 2);
            out.int2(i16::from(rng.below(one_special_in) == 0));
            out.int4(rng.uniform(1, i64::from(products)) as i32);
            out.end_row();
        }
    }

    /// `ds2_create_inv.c`: inventory of part `part`.
    fn write_inventory<E: RowEncoder>(&self, part: u32, out: &mut E) {
        let ncols = Table::Inventory.def().width();
        let mut rng = self.rng(&[STREAM_INVENTORY, u64::from(part)]);
        let sales = self.sales();
        for prod_id in id_range(part, PRODUCTS_PER_PART, self.products()) {
            let stock = rng.uniform(0, MAX_QUAN_IN_STOCK) as i32;
            out.begin_row(ncols);
            out.int4(prod_id);
            out.int4(if prod_id % POPULAR_EVERY == 0 { stock * POPULAR_STOCK_FACTOR } else { stock });
            out.int4(sales[prod_id as usize - 1]);
            out.end_row();
        }
    }

    /// `mysqlds2_create_db.sql`: the 16 categories.
    fn write_categories<E: RowEncoder>(&self, out: &mut E) {
        let ncols = Table::Categories.def().width();
        for (category, name) in (1..).zip(CATEGORY_NAMES) {
            out.begin_row(ncols);
            out.int4(category);
            out.text(name.as_bytes());
            out.end_row();
        }
    }
}

/// `text`, cleared and rebuilt by `build`: one scratch buffer serves every composed field of a chunk.
#[inline]
fn compose(text: &mut Vec<u8>, build: impl FnOnce(&mut Vec<u8>)) -> &[u8] {
    text.clear();
    build(text);
    text
}

/// "FIRST SECOND" in `text`: an actor's name or a title.
#[inline]
fn two_words<'a>(text: &'a mut Vec<u8>, (first, second): (&str, &str)) -> &'a [u8] {
    compose(text, |t| {
        t.extend_from_slice(first.as_bytes());
        t.push(b' ');
        t.extend_from_slice(second.as_bytes());
    })
}

impl Dataset for Ds2Data {
    type Chunk = Chunk;

    fn tables(&self) -> &'static [TableDef] {
        &TABLES
    }

    fn indexes(&self) -> &'static [Index] {
        SECONDARY_INDEXES
    }

    fn table_of(&self, chunk: Chunk) -> &'static TableDef {
        chunk.table.def()
    }

    /// Every chunk of the database, each once: biggest tables first (customers, orderlines, cust_hist,
    /// orders, ...), each table's chunks in key order. Reorder, empty at load, has none.
    fn chunks(&self) -> Vec<Chunk> {
        let plan = [
            Table::Customers,
            Table::Orderlines,
            Table::CustHist,
            Table::Orders,
            Table::Products,
            Table::Inventory,
            Table::Categories,
        ];
        plan.into_iter()
            .flat_map(|table| (0..self.parts(table)).map(move |part| Chunk { table, part }))
            .collect()
    }

    /// Customers by id range and orders (with their lines and history) in blocks spread over the parts;
    /// part 0 loads categories, products and inventory, and so computes inventory's sales, which
    /// replays every order's lines.
    fn share(&self, chunk: Chunk) -> Option<(u32, u32)> {
        matches!(chunk.table, Table::Products | Table::Inventory | Table::Categories).then_some((0, 1))
    }

    /// The exact number of rows [`write`](Self::write) writes for `chunk`. Cheap: orderlines and cust_hist
    /// replay only the block's line-count stream.
    ///
    /// # Panics
    /// When `chunk` is not one of [`chunks`](Self::chunks).
    fn rows_in(&self, chunk: Chunk) -> u64 {
        self.check(chunk);
        let part = chunk.part;
        match chunk.table {
            Table::Customers => id_range(part, CUSTOMERS_PER_PART, self.customers()).count() as u64,
            Table::Orders => u64::from(self.block(part).len),
            Table::Orderlines | Table::CustHist => self.line_counts(self.block(part)).map(u64::from).sum(),
            Table::Products | Table::Inventory => {
                id_range(part, PRODUCTS_PER_PART, self.products()).count() as u64
            }
            Table::Categories => CATEGORY_NAMES.len() as u64,
            Table::Reorder => 0,
        }
    }

    /// Writes the rows of `chunk` to `out`, in the table's key order and column order
    /// ([`Table::def`]).
    ///
    /// # Panics
    /// When `chunk` is not one of [`chunks`](Self::chunks).
    fn write<E: RowEncoder>(&self, chunk: Chunk, out: &mut E) {
        self.check(chunk);
        let part = chunk.part;
        match chunk.table {
            Table::Customers => self.write_customers(part, out),
            Table::Orders => self.write_orders(self.block(part), out),
            Table::Orderlines => self.write_orderlines(self.block(part), out),
            Table::CustHist => self.write_cust_hist(self.block(part), out),
            Table::Products => self.write_products(part, out),
            Table::Inventory => self.write_inventory(part, out),
            Table::Categories => self.write_categories(out),
            Table::Reorder => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::super::words::{ACTOR_FIRST_NAMES, ACTOR_LAST_NAMES};
    use super::*;
    use crate::encode::{Csv, PgBinaryCopy};
    use crate::testing::{Capture, Checker, Rows, V};

    fn data(size: &str, seed: u64) -> Ds2Data {
        Ds2Data::new(Ds2Params { size: size.parse().unwrap(), seed })
    }

    /// Every chunk of `table` read back as one set of rows, in chunk order.
    fn capture_table(data: &Ds2Data, table: Table) -> Rows {
        let mut capture = Capture::default();
        for chunk in data.chunks().into_iter().filter(|c| c.table == table) {
            data.write(chunk, &mut capture);
        }
        Rows { table: table.def(), rows: capture.rows }
    }

    fn binary(data: &Ds2Data, chunk: Chunk) -> Vec<u8> {
        let mut out = PgBinaryCopy::with_capacity(1 << 16);
        data.write(chunk, &mut out);
        out.finish()
    }

    #[test]
    fn every_value_fits_its_column_and_rows_in_is_exact() {
        let data = data("S", 11);
        let mut per_table = HashMap::<Table, u64>::new();
        for chunk in data.chunks() {
            let mut checker = Checker::new(chunk.table.def());
            data.write(chunk, &mut checker);
            assert_eq!(checker.rows, data.rows_in(chunk), "{chunk:?}");
            assert!(checker.rows <= 100_000, "{chunk:?}");
            *per_table.entry(chunk.table).or_default() += checker.rows;
        }
        let fixed = [
            (Table::Customers, 20_000),
            (Table::Orders, 12_000),
            (Table::Products, 10_000),
            (Table::Inventory, 10_000),
            (Table::Categories, 16),
        ];
        for (table, rows) in fixed {
            assert_eq!(per_table[&table], rows, "{table:?}");
        }
        assert!(!per_table.contains_key(&Table::Reorder));
        assert_eq!(data.rows_of("reorder"), 0);
        let lines = per_table[&Table::Orderlines];
        assert_eq!(per_table[&Table::CustHist], lines);
        // 12,000 orders of 1..=9 lines: 60,000 expected, standard deviation 280.
        assert!((58_500..=61_500).contains(&lines), "{lines} lines");
        assert_eq!(data.total_rows(), per_table.values().sum::<u64>());
    }

    #[test]
    fn orders_lines_and_history_agree() {
        let data = data("S", 3);
        let orders = capture_table(&data, Table::Orders);
        let lines = capture_table(&data, Table::Orderlines);
        let history = capture_table(&data, Table::CustHist);
        assert!(orders.ints("orderid").into_iter().eq(1..=12_000));
        let line_order = lines.col("orderid");
        let mut next_line = lines.rows.iter().zip(&history.rows).peekable();
        let mut days = HashSet::new();
        for order in &orders.rows {
            let get = |name: &str| &order[orders.col(name)];
            let id = get("orderid").int();
            let net = get("netamount").num();
            let tax = get("tax").num();
            assert!((1..=40_000).contains(&net));
            assert_eq!(tax, (net * 825 + 5_000) / 10_000, "8.25% rounded half up");
            assert_eq!(get("totalamount").num(), net + tax);
            assert!((1..=20_000).contains(&get("customerid").int()));
            // Orders 1..=1000 are January's, 1001..=2000 February's, ...
            let V::Date(date) = *get("orderdate") else { panic!("orderdate") };
            let month = (id as usize - 1) / 1_000;
            let first = JAN_1_2009 + DAYS_BEFORE_MONTH[month];
            assert!((first..first + DAYS_IN_MONTH[month] as i32).contains(&date), "order {id}");
            days.insert(date);
            let mut count = 0;
            while let Some((line, hist)) = next_line.next_if(|(l, _)| l[line_order].int() == id) {
                count += 1;
                let get_line = |name: &str| &line[lines.col(name)];
                assert_eq!(get_line("orderlineid").int(), count);
                assert_eq!(get_line("orderdate"), get("orderdate"));
                assert!((1..=3).contains(&get_line("quantity").int()));
                assert!((1..=10_000).contains(&get_line("prod_id").int()));
                let expected = [get("customerid"), get_line("orderid"), get_line("prod_id")];
                assert!(hist.iter().eq(expected), "cust_hist repeats the line of order {id}");
            }
            assert!((1..=9).contains(&count), "order {id} has {count} lines");
        }
        assert!(next_line.next().is_none(), "lines of no order");
        assert_eq!(days.len(), 365, "every day of 2009");
    }

    #[test]
    fn blocks_split_months_and_ids_run_on() {
        // 250MB: 25,000 orders a month, in blocks of 20,000 and 5,000.
        let data = data("250MB", 5);
        assert_eq!(data.orders(), 300_000);
        let sizes: Vec<u64> =
            data.chunks().into_iter().filter(|c| c.table == Table::Orders).map(|c| data.rows_in(c)).collect();
        assert_eq!(sizes, [20_000, 5_000].repeat(12));
        let orders = capture_table(&data, Table::Orders);
        assert!(orders.ints("orderid").into_iter().eq(1..=300_000));
        let dates = orders.get("orderdate").map(|v| match v {
            V::Date(d) => *d,
            other => panic!("{other:?}"),
        });
        for (i, date) in dates.enumerate() {
            let month = i / 25_000;
            assert!(date >= JAN_1_2009 + DAYS_BEFORE_MONTH[month], "order {}", i + 1);
            assert!(date < JAN_1_2009 + DAYS_BEFORE_MONTH[month] + DAYS_IN_MONTH[month] as i32);
        }
    }

    #[test]
    fn inventory_counts_the_loaded_sales_and_stocks_popular_titles() {
        let data = data("20MB", 4);
        let lines = capture_table(&data, Table::Orderlines);
        let mut sold = vec![0; 20_001];
        for (prod, quantity) in lines.ints("prod_id").into_iter().zip(lines.ints("quantity")) {
            sold[prod as usize] += quantity;
        }
        let inventory = capture_table(&data, Table::Inventory);
        assert!(inventory.ints("prod_id").into_iter().eq(1..=20_000));
        assert_eq!(inventory.ints("sales"), sold[1..]);
        let stock = inventory.ints("quan_in_stock");
        for (i, &s) in stock.iter().enumerate() {
            let prod_id = i + 1;
            if prod_id % 10_000 == 0 {
                assert!(s % 10 == 0 && (0..=5_000).contains(&s), "{prod_id}: {s}");
            } else {
                assert!((0..=500).contains(&s), "{prod_id}: {s}");
            }
        }
        assert_eq!(stock.iter().filter(|&&s| s > 500).count(), 2, "{:?}", [stock[9_999], stock[19_999]]);
    }

    #[test]
    fn customers_are_half_us_half_elsewhere() {
        let data = data("S", 6);
        let customers = capture_table(&data, Table::Customers);
        assert!(customers.ints("customerid").into_iter().eq(1..=20_000));
        let (mut states, mut countries, mut genders) = (HashSet::new(), HashSet::new(), HashMap::new());
        for (i, r) in customers.rows.iter().enumerate() {
            let id = i as i32 + 1;
            let get = |name: &str| &r[customers.col(name)];
            let text = |name: &str| String::from_utf8(get(name).text().to_vec()).unwrap();
            for (name, len) in [("firstname", 6), ("lastname", 10), ("city", 7)] {
                assert!(text(name).len() == len && text(name).bytes().all(|b| b.is_ascii_uppercase()));
            }
            assert_eq!(get("address2"), &V::Null);
            if id <= 10_000 {
                assert_eq!(get("region").int(), 1);
                assert_eq!(text("country"), "US");
                let zip: i32 = text("zip").parse().unwrap();
                assert!((10_000..=99_999).contains(&zip) && text("zip").len() == 5);
                states.insert(text("state"));
            } else {
                assert_eq!(get("region").int(), 2);
                assert_eq!((get("state"), text("zip").as_str()), (&V::Null, "00000"));
                countries.insert(text("country"));
            }
            let phone = text("phone");
            assert!(
                phone.len() == 10 && phone.bytes().all(|b| b.is_ascii_digit()) && !phone.starts_with('0')
            );
            assert_eq!(text("address1"), format!("{phone} Dell Way"));
            assert_eq!(text("email"), format!("{}@dell.com", text("lastname")));
            assert_eq!(text("username"), format!("user{id}"));
            assert_eq!(text("password"), "password");
            assert!((1..=5).contains(&get("creditcardtype").int()));
            let card = text("creditcard");
            assert!(card.len() == 16 && card.bytes().all(|b| b.is_ascii_digit()) && !card.starts_with('0'));
            let expiry = text("creditcardexpiration");
            let (year, month) = expiry.split_once('/').unwrap();
            assert!((2008..=2012).contains(&year.parse::<i32>().unwrap()), "{expiry}");
            assert!(month.len() == 2 && (1..=12).contains(&month.parse::<i32>().unwrap()), "{expiry}");
            assert!((18..=90).contains(&get("age").int()));
            assert!([20_000, 40_000, 60_000, 80_000, 100_000].contains(&get("income").int()));
            *genders.entry(text("gender")).or_insert(0u32) += 1;
        }
        assert_eq!(states.len(), 51);
        assert_eq!(countries.len(), 10);
        assert_eq!(genders.len(), 2);
        assert!(genders["M"].abs_diff(10_000) < 400, "{genders:?}");
    }

    #[test]
    fn products_follow_the_reference() {
        let data = data("S", 7);
        let products = capture_table(&data, Table::Products);
        assert!(products.ints("prod_id").into_iter().eq(1..=10_000));
        let categories: HashSet<i32> = products.ints("category").into_iter().collect();
        assert_eq!(categories, (1..=16).collect());
        for (i, r) in products.rows.iter().enumerate() {
            let get = |name: &str| &r[products.col(name)];
            let (first, second) = product_title(i as i32 + 1);
            assert_eq!(get("title").text(), format!("{first} {second}").as_bytes());
            let actor = std::str::from_utf8(get("actor").text()).unwrap();
            let (first, last) = actor.split_once(' ').unwrap();
            assert!(ACTOR_FIRST_NAMES.contains(&first) && ACTOR_LAST_NAMES.contains(&last), "{actor}");
            let price = get("price").num();
            assert!((999..=2_999).contains(&price) && price % 100 == 99, "{price}");
            assert!((1..=10_000).contains(&get("common_prod_id").int()));
        }
        let specials = |data: &Ds2Data| {
            let specials = capture_table(data, Table::Products).ints("special");
            assert!(specials.iter().all(|&s| s == 0 || s == 1));
            specials.iter().filter(|&&s| s == 1).count()
        };
        // 1 in 100 of 10,000 (standard deviation 10); 1 in 10,000 of 200,000 (standard deviation 4.5).
        assert!((60..=140).contains(&specials(&data)));
        assert!((5..=40).contains(&specials(&self::data("200MB", 7))));
        let names = capture_table(&data, Table::Categories);
        assert!(names.ints("category").into_iter().eq(1..=16));
        assert_eq!(names.rows[13][1].text(), b"Sci-Fi");
    }

    #[test]
    fn chunks_are_distinct_valid_and_big_tables_come_first() {
        for (size, customers, blocks, products) in
            [("S", 1, 12, 1), ("1GB", 40, 60, 1), ("10GB", 400, 600, 1), ("L", 4_000, 6_000, 10)]
        {
            let data = data(size, 1);
            let chunks = data.chunks();
            assert_eq!(chunks.iter().collect::<HashSet<_>>().len(), chunks.len());
            let count = |t: Table| chunks.iter().filter(|c| c.table == t).count();
            assert_eq!(count(Table::Customers), customers, "{size}");
            for t in [Table::Orders, Table::Orderlines, Table::CustHist] {
                assert_eq!(count(t), blocks, "{size} {t:?}");
            }
            assert_eq!((count(Table::Products), count(Table::Inventory)), (products, products), "{size}");
            assert_eq!((count(Table::Categories), count(Table::Reorder)), (1, 0));
            assert_eq!(chunks[0].table, Table::Customers);
            let mut seen = Vec::new();
            for c in &chunks {
                if seen.last() != Some(&c.table) {
                    assert!(!seen.contains(&c.table), "{:?} split", c.table);
                    seen.push(c.table);
                }
            }
            assert_eq!(data.rows_of("customers"), data.customers() as u64, "{size}");
            assert_eq!(data.rows_of("orders"), data.orders() as u64, "{size}");
        }
        let data = data("S", 1);
        for bad in [
            Chunk { table: Table::Customers, part: 1 },
            Chunk { table: Table::Orders, part: 12 },
            Chunk { table: Table::Reorder, part: 0 },
            Chunk { table: Table::Categories, part: 1 },
        ] {
            assert!(std::panic::catch_unwind(|| data.rows_in(bad)).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn same_params_same_bytes_in_any_order() {
        let chunks: Vec<Chunk> = Table::ALL
            .into_iter()
            .filter(|&t| t != Table::Reorder)
            .map(|table| Chunk { table, part: if table == Table::Orderlines { 7 } else { 0 } })
            .collect();
        let a = data("S", 99);
        let forward: Vec<Vec<u8>> = chunks.iter().map(|&c| binary(&a, c)).collect();
        // A fresh value, the chunks in reverse, with another chunk generated in between.
        let b = data("S", 99);
        let mut backward: Vec<Vec<u8>> = chunks
            .iter()
            .rev()
            .map(|&c| {
                binary(&b, Chunk { table: Table::CustHist, part: 3 });
                binary(&b, c)
            })
            .collect();
        backward.reverse();
        assert!(forward == backward, "a chunk depends on what was generated before it");
        let other_seed = data("S", 100);
        for (i, &c) in chunks.iter().enumerate() {
            if c.table != Table::Categories {
                assert_ne!(forward[i], binary(&other_seed, c), "{c:?}");
            }
        }
        let mut out = Csv::new(Vec::new());
        a.write(Chunk { table: Table::Orders, part: 0 }, &mut out);
        let csv = String::from_utf8(out.into_inner()).unwrap();
        assert!(csv.starts_with("1,2009-01-"), "{}", &csv[..40]);
    }
}
