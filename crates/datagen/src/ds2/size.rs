//! DS2's database sizes: `S`, `M`, `L` or any size such as `30MB` or `20GB`, and the row counts each
//! implies.
//!
//! The reference scales three tables from three base sizes (`ds2xdriver.cs` `CalculateNumberOfRows`,
//! `Install_DVDStore.pl`): a size in MB scales the 10MB database, `1GB` is the 1GB database, and a size of
//! 2GB or more scales the 100GB database. So `2GB` has fewer products (20,000) than `1GB` (100,000): the
//! reference's discontinuity, kept because the driver and the data must agree with every other DS2.
//!
//! ```
//! use oltpgen_datagen::ds2::size::DbSize;
//! let size: DbSize = "20 gb".parse().unwrap();
//! assert_eq!(size.to_string(), "20GB");
//! assert_eq!((size.customers(), size.orders_per_month(), size.products()), (40_000_000, 2_000_000, 200_000));
//! ```

use std::fmt;
use std::str::FromStr;

/// The unit a size is written in, which picks the base database it scales.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Unit {
    /// Megabytes: multiples of a tenth of the 10MB (`S`) database.
    Mb,
    /// Gigabytes: `1GB` is the `M` database, more is a multiple of a hundredth of the 100GB (`L`) one.
    Gb,
}

/// A DS2 database size, such as `10MB` (`S`), `1GB` (`M`), `100GB` (`L`) or `20GB`: it fixes how many
/// customers, orders and products the database holds, which the loader generates and the driver draws
/// ids from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DbSize {
    amount: u32,
    unit: Unit,
}

/// Rows of a size's base database: (customers, orders per month, products) and the amount of the unit
/// they belong to. Set by the reference (`ds2xdriver.cs`, `Install_DVDStore.pl`), not knobs.
struct Base {
    amount: u64,
    customers: u64,
    orders_per_month: u64,
    products: u64,
}

/// 10MB: 20,000 customers, 1,000 orders a month, 10,000 products.
const BASE_MB: Base = Base { amount: 10, customers: 20_000, orders_per_month: 1_000, products: 10_000 };
/// 1GB: 2,000,000 customers, 100,000 orders a month, 100,000 products.
const BASE_1GB: Base = Base { amount: 1, customers: 2_000_000, orders_per_month: 100_000, products: 100_000 };
/// 100GB: 200,000,000 customers, 10,000,000 orders a month, 1,000,000 products.
const BASE_GB: Base =
    Base { amount: 100, customers: 200_000_000, orders_per_month: 10_000_000, products: 1_000_000 };

/// Why a text is not a DS2 size. Each reads as one line for the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbSizeError {
    /// Not `S`, `M`, `L` or a whole number followed by `MB` or `GB`.
    NotASize(String),
    /// A size of zero.
    Zero(String),
    /// So big that customer ids would not fit an int4.
    TooBig {
        /// The size as written.
        text: String,
        /// The customers it would hold.
        customers: u64,
    },
}

impl fmt::Display for DbSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbSizeError::NotASize(text) => {
                write!(f, "'{text}' is not a DS2 size: write S, M, L or a size like 10GB or 500MB")
            }
            DbSizeError::Zero(text) => write!(f, "'{text}' is not a DS2 size: the smallest is 1MB"),
            DbSizeError::TooBig { text, customers } => write!(
                f,
                "'{text}' is too big for DS2: its {customers} customer ids would not fit an int4 (sizes up to \
                 {} do)",
                DbSize::LARGEST
            ),
        }
    }
}

impl std::error::Error for DbSizeError {}

impl DbSize {
    /// `S`: the 10MB database (20,000 customers, 1,000 orders a month, 10,000 products).
    pub const S: DbSize = DbSize { amount: 10, unit: Unit::Mb };
    /// `M`: the 1GB database (2,000,000 customers, 100,000 orders a month, 100,000 products).
    pub const M: DbSize = DbSize { amount: 1, unit: Unit::Gb };
    /// `L`: the 100GB database (200,000,000 customers, 10,000,000 orders a month, 1,000,000 products).
    pub const L: DbSize = DbSize { amount: 100, unit: Unit::Gb };
    /// The largest size in GB whose customer ids fit an int4 (2,146,000,000 customers).
    const LARGEST: DbSize = DbSize { amount: 1_073, unit: Unit::Gb };

    /// The base database this size scales (see the module docs).
    fn base(self) -> &'static Base {
        match (self.unit, self.amount) {
            (Unit::Mb, _) => &BASE_MB,
            (Unit::Gb, 1) => &BASE_1GB,
            (Unit::Gb, _) => &BASE_GB,
        }
    }

    /// `rows` of the base database, scaled to this size: `rows × amount / base amount`, truncated as the
    /// reference truncates. Exact integer arithmetic, as `Install_DVDStore.pl` generates the data; the
    /// reference driver's floating-point product is one row short at a few sizes (such as 29GB).
    fn scale(self, rows: u64) -> u64 {
        rows * u64::from(self.amount) / self.base().amount
    }

    /// Customers: ids 1..=customers. Half are in the US (the first half), half elsewhere.
    pub fn customers(self) -> i32 {
        self.fits(self.scale(self.base().customers))
    }

    /// Orders loaded for each of the 12 months of 2009.
    pub fn orders_per_month(self) -> i32 {
        self.fits(self.scale(self.base().orders_per_month))
    }

    /// Products (and inventory rows): ids 1..=products.
    pub fn products(self) -> i32 {
        self.fits(self.scale(self.base().products))
    }

    /// `rows` as an int4: every count of a size that parsed fits, since customers outnumber the rest
    /// (12 months of orders included) and are checked when parsing.
    fn fits(self, rows: u64) -> i32 {
        i32::try_from(rows).unwrap_or_else(|_| panic!("{self} was checked to fit an int4"))
    }
}

/// The driver's default size, `S`.
impl Default for DbSize {
    fn default() -> Self {
        DbSize::S
    }
}

/// The canonical text: `10MB`, `1GB`, `100GB` (so `S` prints as `10MB`, as the reference driver echoes it).
impl fmt::Display for DbSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.unit {
            Unit::Mb => "MB",
            Unit::Gb => "GB",
        };
        write!(f, "{}{unit}", self.amount)
    }
}

/// `S`, `M`, `L`, or a whole number of `MB` or `GB`, in any case and with spaces anywhere (` 20 gb`).
impl FromStr for DbSize {
    type Err = DbSizeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let compact: String =
            text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_uppercase();
        let not_a_size = || DbSizeError::NotASize(text.trim().to_owned());
        let size = match compact.as_str() {
            "S" => DbSize::S,
            "M" => DbSize::M,
            "L" => DbSize::L,
            _ => {
                let (digits, unit) = if let Some(d) = compact.strip_suffix("MB") {
                    (d, Unit::Mb)
                } else if let Some(d) = compact.strip_suffix("GB") {
                    (d, Unit::Gb)
                } else {
                    return Err(not_a_size());
                };
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(not_a_size());
                }
                // More digits than a u32 holds are too big either way.
                let amount = digits.parse::<u32>().unwrap_or(u32::MAX);
                DbSize { amount, unit }
            }
        };
        if size.amount == 0 {
            return Err(DbSizeError::Zero(text.trim().to_owned()));
        }
        let customers = size.scale(size.base().customers);
        if i32::try_from(customers).is_err() {
            return Err(DbSizeError::TooBig { text: text.trim().to_owned(), customers });
        }
        Ok(size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(text: &str) -> (i32, i32, i32) {
        let size: DbSize = text.parse().unwrap_or_else(|e| panic!("{e}"));
        (size.customers(), size.orders_per_month(), size.products())
    }

    #[test]
    fn standard_sizes_have_the_reference_counts() {
        assert_eq!(counts("S"), (20_000, 1_000, 10_000));
        assert_eq!(counts("m"), (2_000_000, 100_000, 100_000));
        assert_eq!(counts(" L "), (200_000_000, 10_000_000, 1_000_000));
        assert_eq!("S".parse::<DbSize>().unwrap(), "10mb".parse().unwrap());
        assert_eq!("L".parse::<DbSize>().unwrap(), "100GB".parse().unwrap());
        assert_eq!(DbSize::default(), DbSize::S);
    }

    #[test]
    fn any_size_scales_its_base() {
        assert_eq!(counts("10GB"), (20_000_000, 1_000_000, 100_000));
        assert_eq!(counts("20 gb"), (40_000_000, 2_000_000, 200_000));
        assert_eq!(counts("40Gb"), (80_000_000, 4_000_000, 400_000));
        assert_eq!(counts("30MB"), (60_000, 3_000, 30_000));
        assert_eq!(counts("1mb"), (2_000, 100, 1_000));
        assert_eq!(counts("1024MB"), (2_048_000, 102_400, 1_024_000));
        // Exact where the reference driver's floating point is one short (57,999,999).
        assert_eq!(counts("29GB").0, 58_000_000);
    }

    #[test]
    fn two_gb_has_fewer_products_than_one_gb() {
        assert_eq!(counts("1GB"), (2_000_000, 100_000, 100_000));
        assert_eq!(counts("2GB"), (4_000_000, 200_000, 20_000));
    }

    #[test]
    fn display_is_canonical_and_parses_back() {
        for (text, shown) in
            [("S", "10MB"), ("M", "1GB"), ("L", "100GB"), (" 20 gb", "20GB"), ("30mb", "30MB")]
        {
            let size: DbSize = text.parse().unwrap();
            assert_eq!(size.to_string(), shown);
            assert_eq!(shown.parse::<DbSize>().unwrap(), size);
        }
    }

    #[test]
    fn bad_sizes_are_refused_in_one_readable_line() {
        for bad in ["10XB", "", "GB", "1.5GB", "-1GB", "10", "SM", "ten GB", "10GB5"] {
            let e = bad.parse::<DbSize>().unwrap_err();
            assert!(matches!(e, DbSizeError::NotASize(_)), "{bad}: {e:?}");
        }
        assert_eq!(
            "10XB".parse::<DbSize>().unwrap_err().to_string(),
            "'10XB' is not a DS2 size: write S, M, L or a size like 10GB or 500MB"
        );
        assert_eq!(
            "0GB".parse::<DbSize>().unwrap_err().to_string(),
            "'0GB' is not a DS2 size: the smallest is 1MB"
        );
        assert!(matches!("0mb".parse::<DbSize>(), Err(DbSizeError::Zero(_))));
        assert_eq!(counts("1073GB").0, 2_146_000_000);
        let e = "1074GB".parse::<DbSize>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "'1074GB' is too big for DS2: its 2148000000 customer ids would not fit an int4 (sizes up to 1073GB do)"
        );
        assert!(matches!("99999999999999GB".parse::<DbSize>(), Err(DbSizeError::TooBig { .. })));
        assert!(matches!("2000000MB".parse::<DbSize>(), Err(DbSizeError::TooBig { .. })));
        assert!(!e.to_string().contains('\n'));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// `--db-size` (DS2's `--db_size`): any text is a size whose rows fit, or a one-line error (issue 36).
        #[test]
        fn any_db_size_is_a_size_or_one_line(
            text in proptest::prop_oneof![
                proptest::prelude::any::<String>(),
                "[ ]?[0-9]{0,24}[ ]?(mb|MB|gb|Gb|tb|kb|s|M|l|€|)[ ]?",
            ]
        ) {
            match text.parse::<DbSize>() {
                Ok(size) => {
                    let _ = (size.customers(), size.orders_per_month(), size.products());
                    proptest::prop_assert_eq!(size.to_string().parse::<DbSize>().ok(), Some(size));
                }
                Err(e) => proptest::prop_assert!(!e.to_string().contains('\n'), "{}", e),
            }
        }
    }
}
