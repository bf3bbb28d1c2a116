//! One DS2 order as the driver runs it, drawn before any SQL runs: how the customer arrives (a login,
//! or a registration), what they browse, and what they buy.

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
    /// Zip code (0 outside the US).
    pub zip: i32,
    /// Country name.
    pub country: String,
    /// 1 for the US, 2 elsewhere.
    pub region: i32,
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
    /// The user name to register (`ds2` + random digits in the reference); taken names are retried.
    pub username: String,
    /// The password.
    pub password: String,
    /// Age in years.
    pub age: i32,
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
    /// The purchase's lines (1..=10), distinct products.
    pub lines: Vec<PurchaseLine>,
}
