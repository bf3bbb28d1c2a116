//! One DS2 order as the driver runs it, drawn before any SQL runs: how the customer arrives (a login,
//! or a registration), what they browse, and what they buy.
//!
//! [`OrderGen`] draws whole orders from a virtual user's own [`Rng`], exactly as the reference driver
//! (`ds2xdriver.cs`, `User.Emulate`) draws them, with the same ranges, proportions and popular-product
//! skew; the SQL layer only executes them. Keeping the two apart lets the parameter stream be tested
//! without a database.
//!
//! ```
//! use oltpgen_datagen::Rng;
//! use oltpgen_datagen::ds2::input::{Arrival, OrderGen, OrderParams};
//! let orders = OrderGen::new(20_000, 10_000, OrderParams::default());
//! let mut rng = Rng::new(7);
//! let order = orders.next(&mut rng);
//! assert!((1..=10).contains(&order.lines.len()));
//! assert!((1..=5).contains(&order.browses.len()));
//! if let Arrival::Login { customer_id } = order.arrival {
//!     assert!((1..=20_000).contains(&customer_id));
//! }
//! ```

use super::POPULAR_EVERY;
use super::words::{CATEGORY_NAMES, COUNTRIES, STATES, actor, pick, title_words};
use crate::Rng;
use crate::text::uppercase;

/// A new customer's registration form (the reference driver's New customer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// First name.
    pub firstname: String,
    /// Last name.
    pub lastname: String,
    /// Street address.
    pub address1: String,
    /// Second address line (often empty).
    pub address2: String,
    /// City.
    pub city: String,
    /// US state (empty outside the US).
    pub state: String,
    /// Zip code, as DS2's driver sends it: unpadded digits, empty outside the US.
    pub zip: String,
    /// Country name.
    pub country: String,
    /// 1 for the US, 2 elsewhere (a smallint, as DS2's `new_customer` takes it).
    pub region: i16,
    /// E-mail address.
    pub email: String,
    /// Phone number.
    pub phone: String,
    /// Credit card type, 1..=5.
    pub creditcardtype: i32,
    /// Credit card number.
    pub creditcard: String,
    /// Expiration, `YYYY/MM`.
    pub creditcardexpiration: String,
    /// The user name to register, `newuser<n>` (see [`OrderGen::new_username`]); a taken name is retried
    /// with another.
    pub username: String,
    /// The password.
    pub password: String,
    /// Age in years (a smallint, as DS2's `new_customer` takes it).
    pub age: i16,
    /// Yearly income in dollars.
    pub income: i32,
    /// `M` or `F`.
    pub gender: String,
}

/// How a customer arrives at the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A returning customer logs in as `user<customer_id>` with password `password`.
    Login {
        /// The customer's id, uniform over the loaded customers.
        customer_id: i32,
    },
    /// A new customer registers.
    Register(Box<Registration>),
}

/// One browse of the catalogue, returning at most `batch` products.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Browse {
    /// Products of a category (1..=16) that are on special.
    Category {
        /// The category.
        category: i32,
        /// At most this many rows.
        batch: i32,
    },
    /// Full-text search over actors.
    Actor {
        /// The words searched for.
        words: String,
        /// At most this many rows.
        batch: i32,
    },
    /// Full-text search over titles.
    Title {
        /// The words searched for.
        words: String,
        /// At most this many rows.
        batch: i32,
    },
}

/// One line of a purchase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PurchaseLine {
    /// The product.
    pub prod_id: i32,
    /// How many, 1..=3.
    pub quantity: i32,
}

/// One customer's whole order: the unit DS2 counts in orders per minute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderInput {
    /// Login or registration.
    pub arrival: Arrival,
    /// The browses, in order.
    pub browses: Vec<Browse>,
    /// The purchase's lines (1..=10). A product may appear on two lines, as in the reference.
    pub lines: Vec<PurchaseLine>,
}

/// The driver's knobs that shape an order (`ds2xdriver.cs` parameters). The last three are means: the
/// counts drawn are uniform in `1..=2 × mean - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderParams {
    /// Percent of orders by a new customer, who registers instead of logging in.
    pub pct_newcustomers: u32,
    /// Mean browses per order, at least 1.
    pub n_searches: u32,
    /// Mean rows asked of each browse, at least 1.
    pub search_batch_size: u32,
    /// Mean lines per purchase, at least 1 (at most 10 are bought).
    pub n_line_items: u32,
}

/// The reference driver's defaults: 20% new customers, 3 browses of 5 rows, 5 lines.
impl Default for OrderParams {
    fn default() -> Self {
        OrderParams { pct_newcustomers: 20, n_searches: 3, search_batch_size: 5, n_line_items: 5 }
    }
}

// Set by the reference, not knobs.
/// `ds2pgsqlfns.cs`: a purchase has at most 10 lines (the stored procedure's slots).
const MAX_CART_LINES: usize = 10;
/// `ds2xdriver.cs` `prod_array`: a popular product is bought this many times as often as another.
const POPULAR_WEIGHT: u64 = 10;
/// `ds2xdriver.cs` `MAX_CATEGORY`: browse by category picks 1..=16.
const CATEGORIES: u64 = CATEGORY_NAMES.len() as u64;
/// `ds2xdriver.cs` `CreateUserData`: US zip codes are `r.Next(100000)`, unpadded.
const ZIPS: u64 = 100_000;
/// `ds2xdriver.cs`: new customers' states are `states[r.Next(50)]`, so never the 51st, WY.
const NEW_CUSTOMER_STATES: usize = 50;
/// `ds2xdriver.cs`: card types 1..=5.
const CREDIT_CARD_TYPES: u64 = 5;
/// `ds2xdriver.cs`: cards expire in 2008 + `r.Next(5)`.
const FIRST_EXPIRY_YEAR: u64 = 2_008;
/// `ds2xdriver.cs`: see [`FIRST_EXPIRY_YEAR`].
const EXPIRY_YEARS: u64 = 5;
/// `ds2xdriver.cs`: ages `r.Next(18, 100)`.
const AGES: (i64, i64) = (18, 99);
/// `ds2xdriver.cs`: incomes are 20,000 × `r.Next(1, 6)`.
const INCOME_STEP: i32 = 20_000;
/// `ds2xdriver.cs`: see [`INCOME_STEP`].
const INCOME_STEPS: i64 = 5;

/// Draws DS2 orders for a loaded database of `customers` and `products`: one value per run, shared by
/// every virtual user (each brings its own [`Rng`]).
#[derive(Clone, Debug)]
pub struct OrderGen {
    customers: i32,
    products: i32,
    params: OrderParams,
    /// The reference's `prod_array_size`: every product once, plus 9 more picks of each popular one.
    product_picks: u64,
}

impl OrderGen {
    /// Orders against a database of `customers` and `products` (the loaded counts), shaped by `params`.
    ///
    /// # Panics
    /// When `customers` or `products` is below 1, or a mean of `params` is 0 (the reference refuses
    /// them too).
    pub fn new(customers: i32, products: i32, params: OrderParams) -> Self {
        assert!(
            customers >= 1 && products >= 1,
            "DS2 needs customers and products, not {customers} and {products}"
        );
        assert!(
            params.n_searches >= 1 && params.search_batch_size >= 1 && params.n_line_items >= 1,
            "n_searches, search_batch_size and n_line_items must be at least 1: {params:?}"
        );
        let popular = u64::from(products as u32 / POPULAR_EVERY as u32);
        OrderGen {
            customers,
            products,
            params,
            product_picks: products as u64 + (POPULAR_WEIGHT - 1) * popular,
        }
    }

    /// One whole order, exactly as the reference driver draws it (`ds2xdriver.cs` `Emulate`): a login as
    /// a customer uniform over the loaded ones, or for `pct_newcustomers`% of orders a registration; then
    /// 1..=2×`n_searches`-1 browses; then 1..=2×`n_line_items`-1 lines (at most 10) of products with the
    /// popular-title skew, each of quantity 1..=3.
    pub fn next(&self, rng: &mut Rng) -> OrderInput {
        let arrival = if rng.percent(self.params.pct_newcustomers) {
            Arrival::Register(Box::new(self.registration(rng)))
        } else {
            Arrival::Login { customer_id: rng.uniform(1, i64::from(self.customers)) as i32 }
        };
        let browses = (0..around(rng, self.params.n_searches)).map(|_| self.browse(rng)).collect();
        let lines = (0..around(rng, self.params.n_line_items).min(MAX_CART_LINES))
            .map(|_| PurchaseLine { prod_id: self.product(rng), quantity: rng.uniform(1, 3) as i32 })
            .collect();
        OrderInput { arrival, browses, lines }
    }

    /// A `newuser<n>` name, `n` uniform over 1..=2^31-1. DS2's driver draws `n` over the loaded
    /// customers only, so a long run at a small size runs out of free names (at size S, 20,000 names
    /// against some 20,000 registrations a minute): registrations then cost more and more attempts, a
    /// figure of the driver rather than of the database. Over the whole int4 range, a day at 20,000
    /// registrations a minute (29 M names) leaves a new name taken about once in 75 (1.3%).
    pub fn new_username(&self, rng: &mut Rng) -> String {
        format!("newuser{}", rng.uniform(1, i64::from(i32::MAX)))
    }

    /// `ds2xdriver.cs` `CreateUserData`, in its draw order, then the user name.
    fn registration(&self, rng: &mut Rng) -> Registration {
        let text = |letters: &[u8]| String::from_utf8(letters.to_vec()).expect("ASCII letters");
        let firstname = text(&uppercase::<6>(rng));
        let lastname = text(&uppercase::<10>(rng));
        let city = text(&uppercase::<7>(rng));
        let (zip, state, country, region) = if rng.below(2) == 1 {
            (String::new(), String::new(), pick(rng, COUNTRIES), 2)
        } else {
            let zip = rng.below(ZIPS).to_string();
            (zip, pick(rng, &STATES[..NEW_CUSTOMER_STATES]).to_owned(), "US", 1)
        };
        let phone = format!("{}{}", rng.uniform(100, 999), rng.below(10_000_000));
        let creditcardtype = rng.uniform(1, CREDIT_CARD_TYPES as i64) as i32;
        let card_half = |rng: &mut Rng| rng.uniform(10_000_000, 99_999_999);
        let creditcard = format!("{}{}", card_half(rng), card_half(rng));
        let month = 1 + rng.below(12);
        let year = FIRST_EXPIRY_YEAR + rng.below(EXPIRY_YEARS);
        let age = rng.uniform(AGES.0, AGES.1) as i16;
        let income = INCOME_STEP * rng.uniform(1, INCOME_STEPS) as i32;
        let gender = if rng.below(2) == 1 { "M" } else { "F" };
        Registration {
            firstname,
            address1: format!("{phone} Dell Way"),
            address2: String::new(),
            city,
            state,
            zip,
            country: country.to_owned(),
            region,
            email: format!("{lastname}@dell.com"),
            lastname,
            phone,
            creditcardtype,
            creditcard,
            creditcardexpiration: format!("{year:04}/{month:02}"),
            username: self.new_username(rng),
            password: "password".to_owned(),
            age,
            income,
            gender: gender.to_owned(),
        }
    }

    /// One browse: the batch size first, then the kind, each a third of browses, then its argument.
    fn browse(&self, rng: &mut Rng) -> Browse {
        let batch = around(rng, self.params.search_batch_size) as i32;
        match rng.below(3) {
            0 => Browse::Category { category: 1 + rng.below(CATEGORIES) as i32, batch },
            1 => Browse::Actor { words: words(actor(rng)), batch },
            _ => Browse::Title { words: words(title_words(rng)), batch },
        }
    }

    /// A product with the reference's skew: a uniform pick from `prod_array`, which lists every product
    /// once and every 10,000th ten times. Computed, not stored: the array is a repeat of blocks of
    /// 10,009 picks, products `10,000 k + 1 ..= 10,000 k + 9,999` once each then `10,000 (k + 1)` ten
    /// times, and a tail of single picks.
    fn product(&self, rng: &mut Rng) -> i32 {
        self.product_at(rng.below(self.product_picks))
    }

    /// The product at position `pick` of the reference's `prod_array`.
    fn product_at(&self, pick: u64) -> i32 {
        let every = POPULAR_EVERY as u64;
        let block = every - 1 + POPULAR_WEIGHT;
        let (k, at) = (pick / block, pick % block);
        let product = if at < every - 1 { k * every + at + 1 } else { (k + 1) * every };
        debug_assert!(product <= self.products as u64);
        product as i32
    }
}

/// A count with mean `mean`: uniform in `1..=2 × mean - 1` (`1 + r.Next(2 * mean - 1)`).
fn around(rng: &mut Rng, mean: u32) -> usize {
    1 + rng.below(2 * u64::from(mean) - 1) as usize
}

/// "FIRST SECOND": a search string.
fn words((first, second): (&str, &str)) -> String {
    format!("{first} {second}")
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::words::{ACTOR_FIRST_NAMES, ACTOR_LAST_NAMES, TITLE_WORDS};
    use super::*;

    fn orders(params: OrderParams, n: usize, seed: u64) -> Vec<OrderInput> {
        let orders = OrderGen::new(20_000, 10_000, params);
        let mut rng = Rng::new(seed);
        (0..n).map(|_| orders.next(&mut rng)).collect()
    }

    /// The mean of `values`, which must all lie in `range`.
    fn mean_within(values: impl Iterator<Item = usize>, range: std::ops::RangeInclusive<usize>) -> f64 {
        let (mut sum, mut n) = (0, 0);
        for v in values {
            assert!(range.contains(&v), "{v} outside {range:?}");
            sum += v;
            n += 1;
        }
        sum as f64 / n as f64
    }

    #[test]
    fn a_fifth_register_and_logins_are_uniform_over_customers() {
        let drawn = orders(OrderParams::default(), 10_000, 1);
        let mut registrations = 0;
        let mut low_half = 0;
        for order in &drawn {
            match &order.arrival {
                Arrival::Login { customer_id } => {
                    assert!((1..=20_000).contains(customer_id));
                    low_half += usize::from(*customer_id <= 10_000);
                }
                Arrival::Register(form) => {
                    registrations += 1;
                    let n: i32 = form.username.strip_prefix("newuser").unwrap().parse().unwrap();
                    assert!(n >= 1, "{n}");
                }
            }
        }
        // Expected 2,000, standard deviation 40.
        assert!((1_850..=2_150).contains(&registrations), "{registrations}");
        let logins = 10_000 - registrations;
        assert!(low_half.abs_diff(logins / 2) < 200, "{low_half} of {logins}");
        let always = orders(OrderParams { pct_newcustomers: 100, ..OrderParams::default() }, 100, 2);
        assert!(always.iter().all(|o| matches!(o.arrival, Arrival::Register(_))));
        let never = orders(OrderParams { pct_newcustomers: 0, ..OrderParams::default() }, 100, 2);
        assert!(never.iter().all(|o| matches!(o.arrival, Arrival::Login { .. })));
    }

    #[test]
    fn browses_have_the_reference_counts_kinds_and_words() {
        let drawn = orders(OrderParams::default(), 20_000, 3);
        // n_searches 3: 1..=5 browses, mean 3; batch 5: 1..=9 rows, mean 5.
        let per_order = mean_within(drawn.iter().map(|o| o.browses.len()), 1..=5);
        assert!((per_order - 3.0).abs() < 0.05, "{per_order}");
        let all: Vec<&Browse> = drawn.iter().flat_map(|o| &o.browses).collect();
        let batch = |b: &Browse| match b {
            Browse::Category { batch, .. } | Browse::Actor { batch, .. } | Browse::Title { batch, .. } => {
                *batch as usize
            }
        };
        let rows = mean_within(all.iter().map(|b| batch(b)), 1..=9);
        assert!((rows - 5.0).abs() < 0.05, "{rows}");
        let mut kinds = [0usize; 3];
        let mut categories = HashMap::<i32, usize>::new();
        let is_pair = |words: &str, first: &[&str], second: &[&str]| {
            let (a, b) = words.split_once(' ').unwrap();
            first.contains(&a) && second.contains(&b)
        };
        for b in &all {
            match b {
                Browse::Category { category, .. } => {
                    kinds[0] += 1;
                    *categories.entry(*category).or_default() += 1;
                }
                Browse::Actor { words, .. } => {
                    kinds[1] += 1;
                    assert!(is_pair(words, ACTOR_FIRST_NAMES, ACTOR_LAST_NAMES), "{words}");
                }
                Browse::Title { words, .. } => {
                    kinds[2] += 1;
                    assert!(is_pair(words, TITLE_WORDS, TITLE_WORDS), "{words}");
                }
            }
        }
        // About 60,000 browses: 20,000 of each kind expected, standard deviation 115.
        assert!(kinds.iter().all(|&k| k.abs_diff(all.len() / 3) < 600), "{kinds:?}");
        assert_eq!(categories.keys().min(), Some(&1));
        assert_eq!(categories.keys().max(), Some(&16));
        assert_eq!(categories.len(), 16);
    }

    #[test]
    fn purchases_are_capped_at_ten_lines_of_one_to_three() {
        let drawn = orders(OrderParams::default(), 10_000, 4);
        let lines = mean_within(drawn.iter().map(|o| o.lines.len()), 1..=9);
        assert!((lines - 5.0).abs() < 0.1, "{lines}");
        assert!(drawn.iter().flat_map(|o| &o.lines).all(|l| (1..=3).contains(&l.quantity)));
        assert!(drawn.iter().flat_map(|o| &o.lines).all(|l| (1..=10_000).contains(&l.prod_id)));
        // A mean of 8 draws 1..=15 lines: 10 or more (6 of 15) become exactly 10.
        let big = orders(OrderParams { n_line_items: 8, ..OrderParams::default() }, 3_000, 5);
        let at_cap = big.iter().filter(|o| o.lines.len() == 10).count();
        assert!(big.iter().all(|o| o.lines.len() <= 10));
        // Expected 1,200, standard deviation 27.
        assert!((1_100..=1_300).contains(&at_cap), "{at_cap}");
    }

    #[test]
    fn the_skew_picks_exactly_as_the_reference_array() {
        for products in [1, 9_999, 10_000, 10_001, 25_000, 30_000] {
            let orders = OrderGen::new(100, products, OrderParams::default());
            // ds2xdriver.cs: prod_array, built as the reference builds it.
            let mut array = Vec::new();
            for j in 1..=products {
                let copies = if j % 10_000 == 0 { 10 } else { 1 };
                array.extend(std::iter::repeat_n(j, copies));
            }
            assert_eq!(orders.product_picks, array.len() as u64, "{products}");
            for (pick, &expected) in array.iter().enumerate() {
                assert_eq!(orders.product_at(pick as u64), expected, "{products} at {pick}");
            }
        }
    }

    #[test]
    fn popular_products_are_bought_ten_times_as_often() {
        let orders = OrderGen::new(20_000, 10_000, OrderParams::default());
        let mut rng = Rng::new(6);
        let mut counts = vec![0u32; 10_001];
        for _ in 0..2_000_000 {
            counts[orders.product(&mut rng) as usize] += 1;
        }
        // 10/10,009 and 1/10,009 of 2,000,000: expected 1,998 and 200.
        let (popular, other) = (counts[10_000], counts[9_999]);
        assert!((1_850..=2_150).contains(&popular), "{popular}");
        assert!((150..=250).contains(&other), "{other}");
        let ordinary = counts[1..10_000].iter().sum::<u32>() as f64 / 9_999.0;
        let ratio = f64::from(popular) / ordinary;
        assert!((9.0..=11.0).contains(&ratio), "{ratio}");
    }

    #[test]
    fn registrations_fill_the_form_as_the_reference() {
        let orders = OrderGen::new(20_000, 10_000, OrderParams::default());
        let mut rng = Rng::new(8);
        let mut regions = [0usize; 3];
        let mut states = std::collections::HashSet::new();
        for _ in 0..2_000 {
            let r = orders.registration(&mut rng);
            regions[r.region as usize] += 1;
            let letters = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_uppercase());
            assert!(letters(&r.firstname, 6) && letters(&r.lastname, 10) && letters(&r.city, 7), "{r:?}");
            if r.region == 1 {
                assert_eq!(r.country, "US");
                assert!((0..100_000).contains(&r.zip.parse::<i32>().unwrap()));
                assert!(STATES[..50].contains(&r.state.as_str()));
                states.insert(r.state.clone());
            } else {
                assert_eq!(r.region, 2);
                assert!(COUNTRIES.contains(&r.country.as_str()));
                assert_eq!((r.zip.as_str(), r.state.as_str()), ("", ""));
            }
            assert!(r.phone.bytes().all(|b| b.is_ascii_digit()) && (4..=10).contains(&r.phone.len()));
            assert_eq!(r.address1, format!("{} Dell Way", r.phone));
            assert_eq!(r.address2, "");
            assert_eq!(r.email, format!("{}@dell.com", r.lastname));
            assert!((1..=5).contains(&r.creditcardtype));
            assert!(r.creditcard.len() == 16 && r.creditcard.bytes().all(|b| b.is_ascii_digit()));
            let (year, month) = r.creditcardexpiration.split_once('/').unwrap();
            assert!((2008..=2012).contains(&year.parse::<i32>().unwrap()) && month.len() == 2);
            assert!((1..=12).contains(&month.parse::<i32>().unwrap()));
            assert_eq!(r.password, "password");
            assert!((18..=99).contains(&r.age));
            assert!([20_000, 40_000, 60_000, 80_000, 100_000].contains(&r.income));
            assert!(r.gender == "M" || r.gender == "F");
        }
        assert!(regions[1].abs_diff(1_000) < 100, "{regions:?}");
        assert_eq!(states.len(), 50, "WY is never drawn");
    }

    #[test]
    fn the_same_stream_draws_the_same_orders() {
        assert_eq!(orders(OrderParams::default(), 500, 9), orders(OrderParams::default(), 500, 9));
        assert_ne!(orders(OrderParams::default(), 50, 9), orders(OrderParams::default(), 50, 10));
    }
}
