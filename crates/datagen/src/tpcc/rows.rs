//! The initial TPC-C database (clause 4.3.3.1), generated in independent chunks.
//!
//! [`TpccData`] splits the population into [`Chunk`]s of at most about 100,000 rows. Every value of a
//! chunk comes from generators derived from `(seed, stream, warehouse, district or part)` with
//! [`Rng::derive`], never from another chunk, so chunks can be generated on any thread, in any order,
//! and the same [`TpccParams`] always give byte-identical rows. Where two tables must agree, they read
//! the same derived stream: `orders` and `order_line` both draw each order's `o_ol_cnt` from the
//! district's line-count stream, which is also how [`TpccData::rows_in`] counts order lines exactly
//! without generating them.
//!
//! Rows go field by field into a [`RowEncoder`]; text is built in stack buffers, so the hot loops
//! neither allocate nor format.
//!
//! ```
//! use oltpgen_datagen::encode::Csv;
//! use oltpgen_datagen::schema::Dataset;
//! use oltpgen_datagen::tpcc::rows::{Chunk, TpccData, TpccParams};
//! use oltpgen_datagen::tpcc::schema::Table;
//! let data = TpccData::new(TpccParams::new(1, 42));
//! let chunk = Chunk { table: Table::District, warehouse: 0, part: 0 };
//! let mut out = Csv::new(Vec::new());
//! data.write(chunk, &mut out);
//! assert_eq!(out.rows(), data.rows_in(chunk));
//! assert_eq!(out.rows(), 10);
//! ```
//!
//! The stream layout (which tag, which path, which chunk size) is part of the data: changing any of the
//! constants below changes every generated database, like changing [`Rng`] itself.

use std::ops::Range;

use super::consts::{
    CARRIERS, CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE, FIRST_UNDELIVERED_O_ID, ITEMS,
    MAX_LAST_NAME_LEN, MAX_OL_CNT, MIN_OL_CNT, ORDERS_PER_DISTRICT,
};
use super::random::{CConstants, last_name};
use super::schema::{SECONDARY_INDEXES, TABLES, Table};
use crate::Rng;
use crate::encode::RowEncoder;
use crate::schema::{Dataset, Index, TableDef};
use crate::text::{ALNUM, Alphabet, UPPERCASE, fill};

/// 2026-01-01 00:00:00 UTC in microseconds since the Unix epoch: the load's "current date/time"
/// (4.3.3.1 `c_since`, `h_date`, `o_entry_d`). Fixed, not read from the clock, so that rows are identical
/// on every machine and every day.
pub const DEFAULT_LOAD_TIME_US: i64 = 1_767_225_600_000_000;

// Stream tags: the first element of every derivation path. Fixed forever (see the module docs).
const STREAM_C_LOAD: u64 = 1;
const STREAM_WAREHOUSE: u64 = 2;
const STREAM_DISTRICT: u64 = 3;
const STREAM_CUSTOMER: u64 = 4;
const STREAM_HISTORY: u64 = 5;
const STREAM_ORDERS: u64 = 6;
const STREAM_O_C_ID: u64 = 7;
const STREAM_OL_CNT: u64 = 8;
const STREAM_ORDER_LINE: u64 = 9;
const STREAM_ITEM: u64 = 10;
const STREAM_STOCK: u64 = 11;

/// Parts `item` is split into, and `stock` per warehouse; each holds [`ITEMS_PER_PART`] rows.
const ITEM_PARTS: u32 = 10;
/// Items (or one warehouse's stock rows) per part.
const ITEMS_PER_PART: u32 = ITEMS / ITEM_PARTS;
/// Warehouses per chunk of `warehouse` (one row each).
const WAREHOUSES_PER_WAREHOUSE_CHUNK: u32 = 10_000;
/// Warehouses per chunk of `district` (ten rows each).
const WAREHOUSES_PER_DISTRICT_CHUNK: u32 = 1_000;
/// Orders 2101..=3000 of each district are undelivered and have a new_order row (4.3.3.1).
const NEW_ORDERS_PER_DISTRICT: u32 = ORDERS_PER_DISTRICT - FIRST_UNDELIVERED_O_ID + 1;

/// 4.3.3.1: w_ytd = 300,000.00, in cents.
const W_YTD_CENTS: i64 = 30_000_000;
/// 4.3.3.1: d_ytd = 30,000.00, in cents.
const D_YTD_CENTS: i64 = 3_000_000;
/// 4.3.3.1: d_next_o_id = 3,001.
const D_NEXT_O_ID: i32 = ORDERS_PER_DISTRICT as i32 + 1;
/// 4.3.3.1: w_tax and d_tax are random within [0.0000 .. 0.2000], in units of 0.0001.
const MAX_TAX: i64 = 2_000;
/// 4.3.3.1: c_credit_lim = 50,000.00, in cents.
const C_CREDIT_LIM_CENTS: i64 = 5_000_000;
/// 4.3.3.1: c_discount is random within [0.0000 .. 0.5000], in units of 0.0001.
const MAX_C_DISCOUNT: i64 = 5_000;
/// 4.3.3.1: c_balance = -10.00, in cents.
const C_BALANCE_CENTS: i64 = -1_000;
/// 4.3.3.1: c_ytd_payment = 10.00, in cents.
const C_YTD_PAYMENT_CENTS: i64 = 1_000;
/// 4.3.3.1: h_amount = 10.00, in cents.
const H_AMOUNT_CENTS: i64 = 1_000;
/// 4.3.3.1: c_credit is "BC" (bad credit) for 10% of customers, "GC" for the rest.
const BAD_CREDIT_PERCENT: u32 = 10;
/// 4.3.3.1: 10% of i_data and s_data hold "ORIGINAL".
const ORIGINAL_PERCENT: u32 = 10;
/// 4.3.3.1: the customers of a district whose last names are the numbers 0..999 in order.
const SEQUENTIAL_LAST_NAMES: u32 = 1_000;
/// 4.3.3.1: ol_quantity = 5 at load.
const OL_QUANTITY: i32 = 5;
/// 4.3.3.1: undelivered lines have ol_amount random within [0.01 .. 9,999.99], in cents.
const MAX_OL_AMOUNT_CENTS: i64 = 999_999;
/// 4.3.3.1: i_price is random within [1.00 .. 100.00], in cents.
const MIN_I_PRICE_CENTS: i64 = 100;
/// See [`MIN_I_PRICE_CENTS`].
const MAX_I_PRICE_CENTS: i64 = 10_000;
/// 4.3.3.1: i_im_id is random within [1 .. 10,000].
const MAX_I_IM_ID: i64 = 10_000;
/// 4.3.3.1: s_quantity is random within [10 .. 100].
const MIN_S_QUANTITY: i64 = 10;
/// See [`MIN_S_QUANTITY`].
const MAX_S_QUANTITY: i64 = 100;

/// 4.3.2.2: n-strings are digits.
const DIGITS: Alphabet = Alphabet::new(b"0123456789");
/// 4.3.3.1: states are "a-strings of 2 letters".
const LETTERS: Alphabet = UPPERCASE;

/// The most warehouses oltpgen generates (not a spec constant): a load lists its 33 chunks per warehouse
/// up front, 12 bytes each and held up to three times while they are ordered (about 1.2 KB a warehouse),
/// so 1,000,000 warehouses ask about 1.2 GB of the client, and 125 TB of the server, more than any one
/// database this drives holds. Ten times more would ask 12 GB of the client before a row is sent.
pub const MAX_WAREHOUSES: u32 = 1_000_000;

/// What to generate: the scale, the seed, the load's timestamp and the load's NURand constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpccParams {
    /// Warehouses (W), at least 1.
    pub scale: u32,
    /// The seed every value derives from.
    pub seed: u64,
    /// The load's "current date/time" (4.3.3.1: `c_since`, `h_date`, `o_entry_d`, and `ol_delivery_d` of
    /// delivered lines), in microseconds since the Unix epoch. [`DEFAULT_LOAD_TIME_US`] unless changed, so
    /// that the data does not depend on the machine's clock.
    pub load_time_us: i64,
    /// The load's NURand constants (C_load, 2.1.6): c_last of customers 1001..3000 uses `c.c_last`. The run
    /// must know them to choose its own (2.1.6.1), so the loader stores them with the data.
    pub c: CConstants,
}

impl TpccParams {
    /// Parameters for `scale` warehouses from `seed`: the load's NURand constants are drawn from the seed
    /// (so the same seed always loads the same last names), and the load time is
    /// [`DEFAULT_LOAD_TIME_US`].
    pub fn new(scale: u32, seed: u64) -> Self {
        let mut rng = Rng::derive(seed, &[STREAM_C_LOAD]);
        TpccParams { scale, seed, load_time_us: DEFAULT_LOAD_TIME_US, c: CConstants::for_load(&mut rng) }
    }
}

/// One unit of generation work: a table, and which of its rows.
///
/// What `warehouse` and `part` mean depends on the table:
///
/// | table | `warehouse` | `part` | rows |
/// |---|---|---|---|
/// | order_line, customer | 1..=W | 0..10: district `part + 1` | one district's |
/// | stock | 1..=W | 0..10 | items `part * 10,000 + 1 ..= (part + 1) * 10,000` |
/// | history, orders, new_order | 1..=W | 0 | one warehouse's (30,000, 30,000, 9,000) |
/// | item | 0 | 0..10 | items `part * 10,000 + 1 ..= (part + 1) * 10,000` |
/// | district | 0 | 0.. | the districts of warehouses `part * 1,000 + 1 ..`, up to 1,000 warehouses |
/// | warehouse | 0 | 0.. | warehouses `part * 10,000 + 1 ..`, up to 10,000 |
///
/// Only [`TpccData::chunks`] makes chunks; the others are refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// The table the rows belong to.
    pub table: Table,
    /// The warehouse whose rows these are, or 0 for chunks that are not one warehouse's (see above).
    pub warehouse: u32,
    /// Which part of the table (or of the warehouse's rows) this is, from 0.
    pub part: u32,
}

/// The initial database of [`TpccParams`], as independent [`Chunk`]s that any thread can generate.
///
/// `TpccData` is `Send + Sync` and holds no mutable state, so one value can be shared by every
/// generating thread.
#[derive(Clone, Debug)]
pub struct TpccData {
    params: TpccParams,
}

/// A stack buffer big enough for the longest generated text (c_data, 500 bytes).
type TextBuf = [u8; 512];

/// 4.3.2.2: a random a-string of random length in `[lo, hi]`, in `buf`.
#[inline]
fn astring<'a>(rng: &mut Rng, buf: &'a mut TextBuf, lo: usize, hi: usize) -> &'a mut [u8] {
    let len = rng.uniform(lo as i64, hi as i64) as usize;
    let text = &mut buf[..len];
    fill(rng, &ALNUM, text);
    text
}

/// 4.3.3.1: i_data and s_data: an a-string of [26 .. 50] characters, of which 10% hold "ORIGINAL" at a
/// random position.
#[inline]
fn data_field<'a>(rng: &mut Rng, buf: &'a mut TextBuf) -> &'a [u8] {
    let text = astring(rng, buf, 26, 50);
    if rng.percent(ORIGINAL_PERCENT) {
        let at = rng.below((text.len() - 8 + 1) as u64) as usize;
        text[at..at + 8].copy_from_slice(b"ORIGINAL");
    }
    text
}

/// 4.3.2.7: a zip code: 4 random digits, then "11111".
#[inline]
fn zip(rng: &mut Rng) -> [u8; 9] {
    let mut zip = *b"000011111";
    fill(rng, &DIGITS, &mut zip[..4]);
    zip
}

/// The street_1, street_2, city, state and zip columns that warehouse, district and customer share
/// (4.3.3.1).
#[inline]
fn address<E: RowEncoder>(rng: &mut Rng, buf: &mut TextBuf, out: &mut E) {
    out.text(astring(rng, buf, 10, 20));
    out.text(astring(rng, buf, 10, 20));
    out.text(astring(rng, buf, 10, 20));
    let mut state = [0u8; 2];
    fill(rng, &LETTERS, &mut state);
    out.text(&state);
    out.text(&zip(rng));
}

/// A table's column count, as `begin_row` takes it.
#[inline]
fn columns(table: Table) -> u16 {
    table.columns().len() as u16
}

/// An identifier as the int4 its column holds (ids are checked against the scale in [`TpccData::new`]).
#[inline]
fn id(v: u32) -> i32 {
    v as i32
}

impl TpccData {
    /// The database of `params`.
    ///
    /// # Panics
    /// When `params.scale` is 0 or above [`MAX_WAREHOUSES`].
    pub fn new(params: TpccParams) -> Self {
        assert!(
            (1..=MAX_WAREHOUSES).contains(&params.scale),
            "a TPC-C database has 1 to {MAX_WAREHOUSES} warehouses, not {}",
            params.scale
        );
        TpccData { params }
    }

    /// The parameters the data is generated from (the loader records `c` and `seed` with the data).
    pub fn params(&self) -> &TpccParams {
        &self.params
    }

    /// Panics unless `chunk` is one that [`chunks`](Self::chunks) lists.
    fn check(&self, chunk: Chunk) {
        let scale = self.params.scale;
        let (w_ok, parts) = match chunk.table {
            Table::Warehouse => (chunk.warehouse == 0, scale.div_ceil(WAREHOUSES_PER_WAREHOUSE_CHUNK)),
            Table::District => (chunk.warehouse == 0, scale.div_ceil(WAREHOUSES_PER_DISTRICT_CHUNK)),
            Table::Item => (chunk.warehouse == 0, ITEM_PARTS),
            Table::Customer | Table::OrderLine => {
                ((1..=scale).contains(&chunk.warehouse), DISTRICTS_PER_WAREHOUSE)
            }
            Table::Stock => ((1..=scale).contains(&chunk.warehouse), ITEM_PARTS),
            Table::History | Table::Orders | Table::NewOrder => ((1..=scale).contains(&chunk.warehouse), 1),
        };
        assert!(w_ok && chunk.part < parts, "{chunk:?} is not a chunk of a tpcc database of scale {scale}");
    }

    /// The warehouses of part `part` of the warehouse table.
    fn warehouse_range(&self, part: u32) -> Range<u32> {
        let first = part * WAREHOUSES_PER_WAREHOUSE_CHUNK + 1;
        first..(first + WAREHOUSES_PER_WAREHOUSE_CHUNK).min(self.params.scale + 1)
    }

    /// The warehouses whose districts part `part` of the district table holds.
    fn district_range(&self, part: u32) -> Range<u32> {
        let first = part * WAREHOUSES_PER_DISTRICT_CHUNK + 1;
        first..(first + WAREHOUSES_PER_DISTRICT_CHUNK).min(self.params.scale + 1)
    }

    /// A stream named by `path` under the seed.
    #[inline]
    fn rng(&self, path: &[u64]) -> Rng {
        Rng::derive(self.params.seed, path)
    }

    /// o_ol_cnt of orders 1..=3000 of district (w, d), in o_id order: random [5 .. 15] (4.3.3.1). orders,
    /// order_line and `rows_in` all replay this one stream, so they cannot disagree.
    fn ol_counts(&self, w: u32, d: u32) -> impl Iterator<Item = u32> + use<> {
        let mut rng = self.rng(&[STREAM_OL_CNT, u64::from(w), u64::from(d)]);
        (0..ORDERS_PER_DISTRICT)
            .map(move |_| rng.uniform(i64::from(MIN_OL_CNT), i64::from(MAX_OL_CNT)) as u32)
    }

    /// 4.3.3.1 WAREHOUSE.
    fn warehouses<E: RowEncoder>(&self, part: u32, out: &mut E) {
        let ncols = columns(Table::Warehouse);
        let mut buf: TextBuf = [0; 512];
        for w in self.warehouse_range(part) {
            let mut rng = self.rng(&[STREAM_WAREHOUSE, u64::from(w)]);
            out.begin_row(ncols);
            out.int4(id(w));
            out.text(astring(&mut rng, &mut buf, 6, 10));
            address(&mut rng, &mut buf, out);
            out.numeric(rng.uniform(0, MAX_TAX), 4);
            out.numeric(W_YTD_CENTS, 2);
            out.end_row();
        }
    }

    /// 4.3.3.1 DISTRICT.
    fn districts<E: RowEncoder>(&self, part: u32, out: &mut E) {
        let ncols = columns(Table::District);
        let mut buf: TextBuf = [0; 512];
        for w in self.district_range(part) {
            for d in 1..=DISTRICTS_PER_WAREHOUSE {
                let mut rng = self.rng(&[STREAM_DISTRICT, u64::from(w), u64::from(d)]);
                out.begin_row(ncols);
                out.int4(id(d));
                out.int4(id(w));
                out.text(astring(&mut rng, &mut buf, 6, 10));
                address(&mut rng, &mut buf, out);
                out.numeric(rng.uniform(0, MAX_TAX), 4);
                out.numeric(D_YTD_CENTS, 2);
                out.int4(D_NEXT_O_ID);
                out.end_row();
            }
        }
    }

    /// 4.3.3.1 CUSTOMER, for district (w, d).
    fn customers<E: RowEncoder>(&self, w: u32, d: u32, out: &mut E) {
        let ncols = columns(Table::Customer);
        let mut buf: TextBuf = [0; 512];
        let mut name = Vec::with_capacity(MAX_LAST_NAME_LEN);
        let mut rng = self.rng(&[STREAM_CUSTOMER, u64::from(w), u64::from(d)]);
        let now = self.params.load_time_us;
        for c_id in 1..=CUSTOMERS_PER_DISTRICT {
            out.begin_row(ncols);
            out.int4(id(c_id));
            out.int4(id(d));
            out.int4(id(w));
            out.text(astring(&mut rng, &mut buf, 8, 16));
            out.text(b"OE");
            // 4.3.2.3: the first 1,000 customers take the numbers 0..999 in turn, so every name exists in
            // every district; the rest take NURand(255, 0, 999) with C_load.
            let number = if c_id <= SEQUENTIAL_LAST_NAMES {
                i64::from(c_id - 1)
            } else {
                self.params.c.last_name_number(&mut rng)
            };
            name.clear();
            last_name(number, &mut name);
            out.text(&name);
            address(&mut rng, &mut buf, out);
            let mut phone = [0u8; 16];
            fill(&mut rng, &DIGITS, &mut phone);
            out.text(&phone);
            out.timestamp_us(now);
            out.text(if rng.percent(BAD_CREDIT_PERCENT) { b"BC" } else { b"GC" });
            out.numeric(C_CREDIT_LIM_CENTS, 2);
            out.numeric(rng.uniform(0, MAX_C_DISCOUNT), 4);
            out.numeric(C_BALANCE_CENTS, 2);
            out.numeric(C_YTD_PAYMENT_CENTS, 2);
            out.int4(1);
            out.int4(0);
            out.text(astring(&mut rng, &mut buf, 300, 500));
            out.end_row();
        }
    }

    /// 4.3.3.1 HISTORY: one row per customer of warehouse `w`.
    fn history<E: RowEncoder>(&self, w: u32, out: &mut E) {
        let ncols = columns(Table::History);
        let mut buf: TextBuf = [0; 512];
        let now = self.params.load_time_us;
        for d in 1..=DISTRICTS_PER_WAREHOUSE {
            let mut rng = self.rng(&[STREAM_HISTORY, u64::from(w), u64::from(d)]);
            for c_id in 1..=CUSTOMERS_PER_DISTRICT {
                out.begin_row(ncols);
                out.int4(id(c_id));
                out.int4(id(d));
                out.int4(id(w));
                out.int4(id(d));
                out.int4(id(w));
                out.timestamp_us(now);
                out.numeric(H_AMOUNT_CENTS, 2);
                out.text(astring(&mut rng, &mut buf, 12, 24));
                out.end_row();
            }
        }
    }

    /// 4.3.3.1 ORDERS: the 3,000 orders of each district of warehouse `w`.
    fn orders<E: RowEncoder>(&self, w: u32, out: &mut E) {
        let ncols = columns(Table::Orders);
        let now = self.params.load_time_us;
        let mut customers = [0u32; CUSTOMERS_PER_DISTRICT as usize];
        for d in 1..=DISTRICTS_PER_WAREHOUSE {
            // o_c_id is "selected sequentially from a random permutation of [1 .. 3,000]".
            for (slot, c_id) in customers.iter_mut().zip(1..) {
                *slot = c_id;
            }
            self.rng(&[STREAM_O_C_ID, u64::from(w), u64::from(d)]).shuffle(&mut customers);
            let mut rng = self.rng(&[STREAM_ORDERS, u64::from(w), u64::from(d)]);
            for ((o_id, ol_cnt), &c_id) in (1..).zip(self.ol_counts(w, d)).zip(&customers) {
                out.begin_row(ncols);
                out.int4(id(o_id));
                out.int4(id(d));
                out.int4(id(w));
                out.int4(id(c_id));
                out.timestamp_us(now);
                if o_id < FIRST_UNDELIVERED_O_ID {
                    out.int4(rng.uniform(1, i64::from(CARRIERS)) as i32);
                } else {
                    out.null();
                }
                out.int4(id(ol_cnt));
                out.int4(1);
                out.end_row();
            }
        }
    }

    /// 4.3.3.1 NEW-ORDER: orders 2,101..=3,000 of each district of warehouse `w`.
    fn new_orders<E: RowEncoder>(&self, w: u32, out: &mut E) {
        let ncols = columns(Table::NewOrder);
        for d in 1..=DISTRICTS_PER_WAREHOUSE {
            for o_id in FIRST_UNDELIVERED_O_ID..=ORDERS_PER_DISTRICT {
                out.begin_row(ncols);
                out.int4(id(o_id));
                out.int4(id(d));
                out.int4(id(w));
                out.end_row();
            }
        }
    }

    /// 4.3.3.1 ORDER-LINE: the lines of district (w, d)'s 3,000 orders.
    fn order_lines<E: RowEncoder>(&self, w: u32, d: u32, out: &mut E) {
        let ncols = columns(Table::OrderLine);
        let now = self.params.load_time_us;
        let mut rng = self.rng(&[STREAM_ORDER_LINE, u64::from(w), u64::from(d)]);
        let mut dist_info = [0u8; 24];
        for (o_id, ol_cnt) in (1..).zip(self.ol_counts(w, d)) {
            let delivered = o_id < FIRST_UNDELIVERED_O_ID;
            for number in 1..=ol_cnt {
                out.begin_row(ncols);
                out.int4(id(o_id));
                out.int4(id(d));
                out.int4(id(w));
                out.int4(id(number));
                out.int4(rng.uniform(1, i64::from(ITEMS)) as i32);
                out.int4(id(w));
                if delivered {
                    out.timestamp_us(now);
                } else {
                    out.null();
                }
                out.int4(OL_QUANTITY);
                out.numeric(if delivered { 0 } else { rng.uniform(1, MAX_OL_AMOUNT_CENTS) }, 2);
                fill(&mut rng, &ALNUM, &mut dist_info);
                out.text(&dist_info);
                out.end_row();
            }
        }
    }

    /// 4.3.3.1 ITEM, part `part`.
    fn items<E: RowEncoder>(&self, part: u32, out: &mut E) {
        let ncols = columns(Table::Item);
        let mut buf: TextBuf = [0; 512];
        let mut rng = self.rng(&[STREAM_ITEM, u64::from(part)]);
        let first = part * ITEMS_PER_PART + 1;
        for i_id in first..first + ITEMS_PER_PART {
            out.begin_row(ncols);
            out.int4(id(i_id));
            out.int4(rng.uniform(1, MAX_I_IM_ID) as i32);
            out.text(astring(&mut rng, &mut buf, 14, 24));
            out.numeric(rng.uniform(MIN_I_PRICE_CENTS, MAX_I_PRICE_CENTS), 2);
            out.text(data_field(&mut rng, &mut buf));
            out.end_row();
        }
    }

    /// 4.3.3.1 STOCK of warehouse `w`, part `part`.
    fn stock<E: RowEncoder>(&self, w: u32, part: u32, out: &mut E) {
        let ncols = columns(Table::Stock);
        let mut buf: TextBuf = [0; 512];
        let mut rng = self.rng(&[STREAM_STOCK, u64::from(w), u64::from(part)]);
        let mut dist = [0u8; 24];
        let first = part * ITEMS_PER_PART + 1;
        for i_id in first..first + ITEMS_PER_PART {
            out.begin_row(ncols);
            out.int4(id(i_id));
            out.int4(id(w));
            out.int4(rng.uniform(MIN_S_QUANTITY, MAX_S_QUANTITY) as i32);
            for _ in 0..DISTRICTS_PER_WAREHOUSE {
                fill(&mut rng, &ALNUM, &mut dist);
                out.text(&dist);
            }
            out.int4(0);
            out.int4(0);
            out.int4(0);
            out.text(data_field(&mut rng, &mut buf));
            out.end_row();
        }
    }
}

impl Dataset for TpccData {
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

    /// Every chunk of the database, each once: biggest tables first (order_line, stock, customer, ...),
    /// so that workers taking chunks in this order finish together. Each table's chunks are in key order.
    fn chunks(&self) -> Vec<Chunk> {
        let scale = self.params.scale;
        // (table, per warehouse, parts): per-warehouse tables have `parts` chunks per warehouse.
        let plan = [
            (Table::OrderLine, true, DISTRICTS_PER_WAREHOUSE),
            (Table::Stock, true, ITEM_PARTS),
            (Table::Customer, true, DISTRICTS_PER_WAREHOUSE),
            (Table::History, true, 1),
            (Table::Orders, true, 1),
            (Table::Item, false, ITEM_PARTS),
            (Table::NewOrder, true, 1),
            (Table::District, false, scale.div_ceil(WAREHOUSES_PER_DISTRICT_CHUNK)),
            (Table::Warehouse, false, scale.div_ceil(WAREHOUSES_PER_WAREHOUSE_CHUNK)),
        ];
        let mut chunks = Vec::with_capacity(scale as usize * 33 + 12);
        for (table, per_warehouse, parts) in plan {
            let warehouses = if per_warehouse { 1..=scale } else { 0..=0 };
            for warehouse in warehouses {
                for part in 0..parts {
                    chunks.push(Chunk { table, warehouse, part });
                }
            }
        }
        chunks
    }

    fn share(&self, chunk: Chunk) -> Option<(u32, u32)> {
        match chunk.table {
            // Not one warehouse's: item is part 0's; warehouse and district come in few chunks, spread
            // in order.
            Table::Item => Some((0, 1)),
            Table::Warehouse | Table::District => None,
            _ => Some((chunk.warehouse - 1, self.params.scale)),
        }
    }

    /// The exact number of rows [`write`](Self::write) writes for `chunk`. Cheap: order_line replays only
    /// the district's line-count stream (3,000 draws).
    ///
    /// # Panics
    /// When `chunk` is not one of [`chunks`](Self::chunks).
    fn rows_in(&self, chunk: Chunk) -> u64 {
        self.check(chunk);
        let per_district = u64::from(DISTRICTS_PER_WAREHOUSE);
        match chunk.table {
            Table::Warehouse => self.warehouse_range(chunk.part).len() as u64,
            Table::District => self.district_range(chunk.part).len() as u64 * per_district,
            Table::Customer => u64::from(CUSTOMERS_PER_DISTRICT),
            Table::History => u64::from(CUSTOMERS_PER_DISTRICT) * per_district,
            Table::Orders => u64::from(ORDERS_PER_DISTRICT) * per_district,
            Table::NewOrder => u64::from(NEW_ORDERS_PER_DISTRICT) * per_district,
            Table::OrderLine => self.ol_counts(chunk.warehouse, chunk.part + 1).map(u64::from).sum(),
            Table::Item | Table::Stock => u64::from(ITEMS_PER_PART),
        }
    }

    /// Writes the rows of `chunk` to `out`, in the table's key order and column order
    /// ([`Table::columns`]).
    ///
    /// # Panics
    /// When `chunk` is not one of [`chunks`](Self::chunks).
    fn write<E: RowEncoder>(&self, chunk: Chunk, out: &mut E) {
        self.check(chunk);
        let (w, part) = (chunk.warehouse, chunk.part);
        match chunk.table {
            Table::Warehouse => self.warehouses(part, out),
            Table::District => self.districts(part, out),
            Table::Customer => self.customers(w, part + 1, out),
            Table::History => self.history(w, out),
            Table::Orders => self.orders(w, out),
            Table::NewOrder => self.new_orders(w, out),
            Table::OrderLine => self.order_lines(w, part + 1, out),
            Table::Item => self.items(part, out),
            Table::Stock => self.stock(w, part, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::super::random::last_name_string;
    use super::*;
    use crate::encode::{Csv, PgBinaryCopy};
    use crate::testing::{Capture, Checker, Rows, V};

    fn capture(data: &TpccData, table: Table, warehouse: u32, part: u32) -> Rows {
        let mut c = Capture::default();
        data.write(Chunk { table, warehouse, part }, &mut c);
        Rows { table: table.def(), rows: c.rows }
    }

    /// Every chunk of `table` (all warehouses) read back as one set of rows.
    fn capture_table(data: &TpccData, table: Table) -> Rows {
        let mut rows = Vec::new();
        for chunk in data.chunks().into_iter().filter(|c| c.table == table) {
            rows.extend(capture(data, table, chunk.warehouse, chunk.part).rows);
        }
        Rows { table: table.def(), rows }
    }

    fn binary(data: &TpccData, chunk: Chunk) -> Vec<u8> {
        let mut out = PgBinaryCopy::with_capacity(1 << 16);
        data.write(chunk, &mut out);
        out.finish()
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack.windows(needle.len()).position(|w| w == needle)
    }

    #[test]
    fn zip_codes_are_four_random_digits_then_11111() {
        let mut rng = Rng::new(12);
        let mut digits = [0u32; 10];
        let mut zips = 0;
        while zips < 10_000 {
            let z = zip(&mut rng);
            assert_eq!(&z[4..], b"11111");
            for d in &z[..4] {
                digits[usize::from(d - b'0')] += 1;
            }
            zips += 1;
        }
        assert!(digits.iter().all(|&c| (3_700..=4_300).contains(&c)), "{digits:?}");
    }

    #[test]
    fn every_value_fits_its_column_and_rows_in_is_exact() {
        // Scale 1 is the whole database of one warehouse: every chunk, every value.
        let data = TpccData::new(TpccParams::new(1, 11));
        let mut per_table = HashMap::<Table, u64>::new();
        for chunk in data.chunks() {
            let mut checker = Checker::new(chunk.table.def());
            data.write(chunk, &mut checker);
            assert_eq!(checker.rows, data.rows_in(chunk), "{chunk:?}");
            assert!(checker.rows <= 100_000, "{chunk:?}");
            *per_table.entry(chunk.table).or_default() += checker.rows;
        }
        // 1.2.1 cardinalities.
        let fixed = [
            (Table::Warehouse, 1),
            (Table::District, 10),
            (Table::Customer, 30_000),
            (Table::History, 30_000),
            (Table::Orders, 30_000),
            (Table::NewOrder, 9_000),
            (Table::Item, 100_000),
            (Table::Stock, 100_000),
        ];
        for (table, rows) in fixed {
            assert_eq!(per_table[&table], rows, "{table:?}");
        }
        let lines = per_table[&Table::OrderLine];
        assert!((297_000..=303_000).contains(&lines), "{lines} order lines");
        assert_eq!(data.total_rows(), per_table.values().sum::<u64>());
    }

    #[test]
    fn chunks_are_distinct_valid_and_big_tables_come_first() {
        for scale in [1, 3, 1_001, 10_001] {
            let data = TpccData::new(TpccParams::new(scale, 1));
            let chunks = data.chunks();
            let distinct: HashSet<_> = chunks.iter().collect();
            assert_eq!(distinct.len(), chunks.len());
            assert_eq!(
                chunks.len(),
                scale as usize * 33 + 10 + scale.div_ceil(1_000) as usize + scale.div_ceil(10_000) as usize
            );
            assert_eq!(chunks[0].table, Table::OrderLine);
            assert_eq!(chunks.last().unwrap().table, Table::Warehouse);
            // Each table's chunks are consecutive, so per-table output in chunk order is key order.
            let mut seen = Vec::new();
            for c in &chunks {
                if seen.last() != Some(&c.table) {
                    assert!(!seen.contains(&c.table), "{:?} split", c.table);
                    seen.push(c.table);
                }
            }
            assert_eq!(seen.len(), 9);
            let rows =
                |t: Table| -> u64 { chunks.iter().filter(|c| c.table == t).map(|&c| data.rows_in(c)).sum() };
            assert_eq!(rows(Table::Warehouse), u64::from(scale));
            assert_eq!(rows(Table::District), u64::from(scale) * 10);
            assert_eq!(rows(Table::Item), 100_000);
        }
        let data = TpccData::new(TpccParams::new(2, 1));
        for bad in [
            Chunk { table: Table::Stock, warehouse: 3, part: 0 },
            Chunk { table: Table::Stock, warehouse: 1, part: 10 },
            Chunk { table: Table::Item, warehouse: 1, part: 0 },
            Chunk { table: Table::Warehouse, warehouse: 0, part: 1 },
            Chunk { table: Table::Orders, warehouse: 0, part: 0 },
        ] {
            let refused = std::panic::catch_unwind(|| data.rows_in(bad)).is_err();
            assert!(refused, "{bad:?} accepted");
        }
    }

    #[test]
    fn same_params_same_bytes_in_any_order() {
        let params = TpccParams::new(3, 99);
        let chunks = [
            Chunk { table: Table::OrderLine, warehouse: 2, part: 7 },
            Chunk { table: Table::Stock, warehouse: 3, part: 9 },
            Chunk { table: Table::Customer, warehouse: 1, part: 4 },
            Chunk { table: Table::History, warehouse: 2, part: 0 },
            Chunk { table: Table::Orders, warehouse: 3, part: 0 },
            Chunk { table: Table::Item, warehouse: 0, part: 5 },
            Chunk { table: Table::NewOrder, warehouse: 1, part: 0 },
            Chunk { table: Table::District, warehouse: 0, part: 0 },
            Chunk { table: Table::Warehouse, warehouse: 0, part: 0 },
        ];
        let a = TpccData::new(params);
        let forward: Vec<Vec<u8>> = chunks.iter().map(|&c| binary(&a, c)).collect();
        // A fresh value, the chunks in reverse, with other chunks generated in between.
        let b = TpccData::new(params);
        let mut backward: Vec<Vec<u8>> = chunks
            .iter()
            .rev()
            .map(|&c| {
                binary(&b, Chunk { table: Table::Stock, warehouse: 1, part: 0 });
                binary(&b, c)
            })
            .collect();
        backward.reverse();
        assert!(forward == backward, "a chunk depends on what was generated before it");
        // The seed matters for every table with random values; the scale does not change a warehouse's rows.
        let other_seed = TpccData::new(TpccParams::new(3, 100));
        for (i, &c) in chunks.iter().enumerate() {
            if c.table != Table::NewOrder {
                assert_ne!(forward[i], binary(&other_seed, c), "{c:?}");
            }
        }
        let bigger = TpccData::new(TpccParams::new(5, 99));
        assert_eq!(forward[0], binary(&bigger, chunks[0]));
        // CSV too.
        let csv = |data: &TpccData| {
            let mut out = Csv::new(Vec::new());
            data.write(chunks[2], &mut out);
            out.into_inner()
        };
        assert_eq!(csv(&a), csv(&b));
    }

    #[test]
    fn load_constants_and_time_are_fixed_by_the_seed() {
        let p = TpccParams::new(1, 5);
        assert_eq!(p.c, TpccParams::new(40, 5).c);
        assert_eq!(p.load_time_us, DEFAULT_LOAD_TIME_US);
        assert!((0..=16).any(|seed| TpccParams::new(1, seed).c != p.c));
        let mut out = Csv::new(Vec::new());
        out.begin_row(1);
        out.timestamp_us(p.load_time_us);
        out.end_row();
        assert_eq!(out.into_inner(), b"2026-01-01 00:00:00.000000\n");
    }

    #[test]
    fn orders_and_order_lines_agree() {
        let data = TpccData::new(TpccParams::new(2, 3));
        let w = 2;
        let orders = capture(&data, Table::Orders, w, 0);
        assert_eq!(orders.rows.len(), 30_000);
        let (o_d, o_id, o_c) = (orders.col("o_d_id"), orders.col("o_id"), orders.col("o_c_id"));
        let (o_cnt, o_carrier) = (orders.col("o_ol_cnt"), orders.col("o_carrier_id"));
        let o_entry = orders.col("o_entry_d");
        let mut carriers = HashSet::new();
        for d in 1..=10 {
            let lines = capture(&data, Table::OrderLine, w, d - 1);
            let of_d: Vec<&Vec<V>> = orders.rows.iter().filter(|r| r[o_d].int() == d as i32).collect();
            assert_eq!(of_d.len(), 3_000);
            // o_c_id is a permutation of 1..=3000.
            let mut customers: Vec<i32> = of_d.iter().map(|r| r[o_c].int()).collect();
            customers.sort_unstable();
            assert!(customers.iter().copied().eq(1..=3_000), "district {d}");
            // Lines come in (o_id, ol_number) order: walk both tables together.
            let mut next_line = lines.rows.iter();
            for order in of_d {
                let id = order[o_id].int();
                let cnt = order[o_cnt].int();
                assert!((5..=15).contains(&cnt));
                assert_eq!(order[orders.col("o_all_local")], V::Int(1));
                assert_eq!(order[orders.col("o_w_id")], V::Int(w as i32));
                let delivered = id < 2_101;
                if delivered {
                    let carrier = order[o_carrier].int();
                    assert!((1..=10).contains(&carrier));
                    carriers.insert(carrier);
                } else {
                    assert_eq!(order[o_carrier], V::Null);
                }
                for number in 1..=cnt {
                    let line = next_line.next().expect("as many lines as o_ol_cnt");
                    let get = |name: &str| &line[lines.col(name)];
                    assert_eq!(get("ol_o_id").int(), id);
                    assert_eq!(get("ol_number").int(), number);
                    assert_eq!((get("ol_d_id").int(), get("ol_w_id").int()), (d as i32, w as i32));
                    assert_eq!(get("ol_supply_w_id").int(), w as i32);
                    assert_eq!(get("ol_quantity").int(), 5);
                    assert!((1..=100_000).contains(&get("ol_i_id").int()));
                    let amount = get("ol_amount").num();
                    if delivered {
                        assert_eq!(get("ol_delivery_d"), &order[o_entry]);
                        assert_eq!(amount, 0);
                    } else {
                        assert_eq!(get("ol_delivery_d"), &V::Null);
                        assert!((1..=999_999).contains(&amount));
                    }
                }
            }
            assert!(next_line.next().is_none(), "more lines than o_ol_cnt in district {d}");
        }
        assert_eq!(carriers.len(), 10);
    }

    #[test]
    fn the_loaded_database_is_consistent() {
        // The consistency conditions of 3.3.2 (numbered as in the spec notes), on warehouse 1 of 2.
        let data = TpccData::new(TpccParams::new(2, 8));
        let w: u32 = 1;
        let warehouse = capture_table(&data, Table::Warehouse);
        let w_ytd = warehouse.get("w_ytd").map(V::num).next().unwrap();
        assert_eq!(warehouse.ints("w_id"), [1, 2]);
        let districts = capture_table(&data, Table::District);
        assert_eq!(districts.rows.len(), 20);
        let district_rows = || districts.rows.iter().filter(|r| r[districts.col("d_w_id")].int() == w as i32);
        let d_ytd: HashMap<i32, i64> = district_rows()
            .map(|r| (r[districts.col("d_id")].int(), r[districts.col("d_ytd")].num()))
            .collect();
        let d_next: HashMap<i32, i32> = district_rows()
            .map(|r| (r[districts.col("d_id")].int(), r[districts.col("d_next_o_id")].int()))
            .collect();
        // 3.3.2.1: w_ytd = sum(d_ytd).
        assert_eq!(w_ytd, d_ytd.values().sum::<i64>(), "3.3.2.1");
        assert_eq!(w_ytd, 30_000_000);

        let orders = capture(&data, Table::Orders, w, 0);
        let new_orders = capture(&data, Table::NewOrder, w, 0);
        let history = capture(&data, Table::History, w, 0);
        let mut customers = Vec::new();
        for d in 0..10 {
            customers.extend(capture(&data, Table::Customer, w, d).rows);
        }
        let customers = Rows { table: Table::Customer.def(), rows: customers };
        let with_new_order: HashSet<(i32, i32)> = new_orders
            .rows
            .iter()
            .map(|r| (r[new_orders.col("no_d_id")].int(), r[new_orders.col("no_o_id")].int()))
            .collect();
        assert!(new_orders.ints("no_w_id").iter().all(|&x| x == w as i32));
        for d in 1..=10 {
            let o_ids: Vec<i32> = orders
                .rows
                .iter()
                .filter(|r| r[orders.col("o_d_id")].int() == d)
                .map(|r| r[orders.col("o_id")].int())
                .collect();
            let no_ids: Vec<i32> = with_new_order.iter().filter(|k| k.0 == d).map(|k| k.1).collect();
            let (no_min, no_max) = (no_ids.iter().min().unwrap(), no_ids.iter().max().unwrap());
            // 3.3.2.2: d_next_o_id - 1 = max(o_id) = max(no_o_id).
            assert_eq!(d_next[&d] - 1, *o_ids.iter().max().unwrap(), "3.3.2.2");
            assert_eq!(d_next[&d] - 1, *no_max, "3.3.2.2");
            // 3.3.2.3: max(no_o_id) - min(no_o_id) + 1 = count(new_order).
            assert_eq!((no_max - no_min + 1) as usize, no_ids.len(), "3.3.2.3");
            // 3.3.2.11: count(orders) - count(new_order) = 2100.
            assert_eq!(o_ids.len() - no_ids.len(), 2_100, "3.3.2.11");
        }

        // Per order: its lines (count) and the amount of its delivered lines; per district the line count.
        let mut lines_of = HashMap::<(i32, i32), (i32, i64)>::new();
        let mut lines_in = HashMap::<i32, i64>::new();
        let mut carrier_null = HashMap::<(i32, i32), bool>::new();
        for r in &orders.rows {
            let key = (r[orders.col("o_d_id")].int(), r[orders.col("o_id")].int());
            carrier_null.insert(key, r[orders.col("o_carrier_id")] == V::Null);
        }
        for d in 1..=10 {
            let lines = capture(&data, Table::OrderLine, w, d - 1);
            lines_in.insert(d as i32, lines.rows.len() as i64);
            for r in &lines.rows {
                let key = (d as i32, r[lines.col("ol_o_id")].int());
                let entry = lines_of.entry(key).or_default();
                entry.0 += 1;
                let undelivered = r[lines.col("ol_delivery_d")] == V::Null;
                // 3.3.2.7: ol_delivery_d is NULL exactly when o_carrier_id is NULL.
                assert_eq!(undelivered, carrier_null[&key], "3.3.2.7 {key:?}");
                if !undelivered {
                    entry.1 += r[lines.col("ol_amount")].num();
                }
            }
        }
        let mut ol_cnt_sum = HashMap::<i32, i64>::new();
        let mut delivered_amount = HashMap::<(i32, i32), i64>::new();
        for r in &orders.rows {
            let d = r[orders.col("o_d_id")].int();
            let key = (d, r[orders.col("o_id")].int());
            let cnt = r[orders.col("o_ol_cnt")].int();
            *ol_cnt_sum.entry(d).or_default() += i64::from(cnt);
            // 3.3.2.5: o_carrier_id is NULL exactly when a new_order row exists.
            assert_eq!(carrier_null[&key], with_new_order.contains(&key), "3.3.2.5 {key:?}");
            // 3.3.2.6: o_ol_cnt = the order's lines.
            assert_eq!(lines_of[&key].0, cnt, "3.3.2.6 {key:?}");
            *delivered_amount.entry((d, r[orders.col("o_c_id")].int())).or_default() += lines_of[&key].1;
        }
        // 3.3.2.4: sum(o_ol_cnt) = count(order_line), per district.
        assert_eq!(ol_cnt_sum, lines_in, "3.3.2.4");

        // 3.3.2.8 and 3.3.2.9: w_ytd and d_ytd = the history's amounts.
        let h_w = history.ints("h_w_id");
        let h_d = history.ints("h_d_id");
        let h_amount: Vec<i64> = history.get("h_amount").map(V::num).collect();
        assert!(h_w.iter().all(|&x| x == w as i32));
        assert_eq!(h_amount.iter().sum::<i64>(), w_ytd, "3.3.2.8");
        for d in 1..=10 {
            let sum: i64 = (0..h_d.len()).filter(|&i| h_d[i] == d).map(|i| h_amount[i]).sum();
            assert_eq!(sum, d_ytd[&d], "3.3.2.9");
        }
        let mut paid = HashMap::<(i32, i32), i64>::new();
        let h_c_d = history.ints("h_c_d_id");
        for (i, c) in history.ints("h_c_id").into_iter().enumerate() {
            *paid.entry((h_c_d[i], c)).or_default() += h_amount[i];
        }
        // 3.3.2.10 and 3.3.2.12, per customer.
        let (c_d, c_id) = (customers.col("c_d_id"), customers.col("c_id"));
        let (bal, ytd) = (customers.col("c_balance"), customers.col("c_ytd_payment"));
        assert_eq!(customers.rows.len(), 30_000);
        for r in &customers.rows {
            let key = (r[c_d].int(), r[c_id].int());
            let delivered = delivered_amount[&key];
            assert_eq!(r[bal].num(), delivered - paid[&key], "3.3.2.10 {key:?}");
            assert_eq!(r[bal].num() + r[ytd].num(), delivered, "3.3.2.12 {key:?}");
        }
    }

    #[test]
    fn original_is_in_ten_percent_of_item_and_stock_data() {
        let data = TpccData::new(TpccParams::new(1, 21));
        for (table, column) in [(Table::Item, "i_data"), (Table::Stock, "s_data")] {
            let rows = capture_table(&data, table);
            assert_eq!(rows.rows.len(), 100_000);
            let mut positions = HashSet::new();
            let mut lengths = HashSet::new();
            let mut original = 0;
            for v in rows.get(column) {
                let text = v.text();
                lengths.insert(text.len());
                assert!(text.iter().all(u8::is_ascii_alphanumeric), "{column}");
                if let Some(at) = contains(text, b"ORIGINAL") {
                    original += 1;
                    positions.insert(at);
                }
            }
            // Expected 10,000 with a standard deviation of 95.
            assert!((9_500..=10_500).contains(&original), "{column}: {original}");
            // Anywhere in the string: at its start and at its very end.
            assert!(positions.contains(&0) && positions.contains(&42), "{column}");
            assert_eq!(lengths, (26..=50).collect::<HashSet<_>>(), "{column}");
        }
        let items = capture_table(&data, Table::Item);
        assert!(items.ints("i_id").into_iter().eq(1..=100_000));
        let prices: Vec<i64> = items.get("i_price").map(V::num).collect();
        assert!(prices.iter().all(|p| (100..=10_000).contains(p)));
        assert!(items.ints("i_im_id").iter().all(|i| (1..=10_000).contains(i)));
        let stock = capture_table(&data, Table::Stock);
        assert!(stock.ints("s_i_id").into_iter().eq(1..=100_000));
        assert!(stock.ints("s_quantity").iter().all(|q| (10..=100).contains(q)));
        for zero in ["s_ytd", "s_order_cnt", "s_remote_cnt"] {
            assert!(stock.ints(zero).iter().all(|&v| v == 0), "{zero}");
        }
    }

    #[test]
    fn customers_follow_4_3_3_1() {
        let params = TpccParams::new(1, 4);
        let data = TpccData::new(params);
        let mut bad_credit = 0;
        let mut last_numbers = vec![0u32; 1_000];
        let names: HashMap<Vec<u8>, usize> =
            (0..1_000).map(|n| (last_name_string(n as i64).into_bytes(), n)).collect();
        for d in 1..=10 {
            let rows = capture(&data, Table::Customer, 1, d - 1);
            assert!(rows.ints("c_id").into_iter().eq(1..=3_000));
            assert!(rows.ints("c_d_id").iter().all(|&x| x == d as i32));
            for (i, r) in rows.rows.iter().enumerate() {
                let get = |name: &str| &r[rows.col(name)];
                let number = names[get("c_last").text()];
                if i < 1_000 {
                    // 4.3.2.3: the first 1,000 customers take the names of 0..999 in order.
                    assert_eq!(number, i);
                } else {
                    last_numbers[number] += 1;
                }
                let zip = get("c_zip").text();
                assert!(zip[..4].iter().all(u8::is_ascii_digit) && &zip[4..] == b"11111");
                assert!(get("c_phone").text().iter().all(u8::is_ascii_digit));
                assert_eq!(get("c_middle").text(), b"OE");
                assert!((8..=16).contains(&get("c_first").text().len()));
                assert!((300..=500).contains(&get("c_data").text().len()));
                assert!(get("c_state").text().iter().all(u8::is_ascii_uppercase));
                assert!((0..=5_000).contains(&get("c_discount").num()));
                assert_eq!(get("c_since"), &V::Ts(params.load_time_us));
                let fixed = [("c_credit_lim", 5_000_000), ("c_balance", -1_000), ("c_ytd_payment", 1_000)];
                for (name, v) in fixed {
                    assert_eq!(get(name).num(), v, "{name}");
                }
                assert_eq!((get("c_payment_cnt").int(), get("c_delivery_cnt").int()), (1, 0));
                match get("c_credit").text() {
                    b"BC" => bad_credit += 1,
                    b"GC" => {}
                    other => panic!("c_credit {other:?}"),
                }
            }
        }
        // 10% bad credit: expected 3,000 of 30,000, standard deviation 52.
        assert!((2_750..=3_250).contains(&bad_credit), "{bad_credit} BC");
        // NURand(255, 0, 999) with C_load: some names far more common than the uniform 20.
        assert!(*last_numbers.iter().max().unwrap() > 60, "c_last is not skewed");
        // The same draws as the run's NURand with C_load.
        let mut rng = Rng::new(1);
        let expected_common = (0..200_000).map(|_| params.c.last_name_number(&mut rng) as usize).fold(
            vec![0u32; 1_000],
            |mut v, n| {
                v[n] += 1;
                v
            },
        );
        let top = |counts: &[u32]| (0..1_000).max_by_key(|&n| counts[n]).unwrap();
        assert!(expected_common[top(&last_numbers)] > 200, "c_last does not use C_load");
    }

    #[test]
    fn warehouses_districts_history_and_new_orders_hold_the_load_values() {
        let data = TpccData::new(TpccParams::new(2, 6));
        let warehouses = capture_table(&data, Table::Warehouse);
        for r in &warehouses.rows {
            let get = |name: &str| &r[warehouses.col(name)];
            assert!((6..=10).contains(&get("w_name").text().len()));
            assert!((0..=2_000).contains(&get("w_tax").num()));
            assert_eq!(get("w_ytd").num(), 30_000_000);
        }
        let districts = capture_table(&data, Table::District);
        let keys: Vec<(i32, i32)> = districts
            .rows
            .iter()
            .map(|r| (r[districts.col("d_w_id")].int(), r[districts.col("d_id")].int()))
            .collect();
        assert!(keys.iter().copied().eq((1..=2).flat_map(|w| (1..=10).map(move |d| (w, d)))));
        for r in &districts.rows {
            let get = |name: &str| &r[districts.col(name)];
            assert!((0..=2_000).contains(&get("d_tax").num()));
            assert_eq!(get("d_ytd").num(), 3_000_000);
            assert_eq!(get("d_next_o_id").int(), 3_001);
            assert!(get("d_zip").text().ends_with(b"11111"));
        }
        let history = capture(&data, Table::History, 2, 0);
        for r in &history.rows {
            let get = |name: &str| &r[history.col(name)];
            assert_eq!(get("h_c_d_id"), get("h_d_id"));
            assert_eq!((get("h_c_w_id").int(), get("h_w_id").int()), (2, 2));
            assert_eq!(get("h_amount").num(), 1_000);
            assert!((12..=24).contains(&get("h_data").text().len()));
        }
        let new_orders = capture(&data, Table::NewOrder, 2, 0);
        let keys: Vec<(i32, i32)> = new_orders
            .rows
            .iter()
            .map(|r| (r[new_orders.col("no_d_id")].int(), r[new_orders.col("no_o_id")].int()))
            .collect();
        assert!(keys.into_iter().eq((1..=10).flat_map(|d| (2_101..=3_000).map(move |o| (d, o)))));
    }
}
