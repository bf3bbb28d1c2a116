//! The run's transaction mix and pacing: which transaction a terminal runs next ([`Deck`]), and how
//! long it waits before and after it ([`Pacing`]).
//!
//! The figures come from the static table [`MIX`] (5.2.3, 5.2.5.4, 5.2.5.7): they are set by the spec,
//! not knobs. A run may turn keying and think times off for a saturation run, and says so in its report.
//!
//! ```
//! use oltpgen_datagen::Rng;
//! use oltpgen_datagen::tpcc::mix::{Deck, Pacing, TxnKind};
//! let mut rng = Rng::new(1);
//! let mut deck = Deck::new();
//! let new_orders = (0..100).filter(|_| deck.next(&mut rng) == TxnKind::NewOrder).count();
//! assert_eq!(new_orders, 45);
//! assert_eq!(Pacing::off().think(TxnKind::Payment, &mut rng).as_secs(), 0);
//! ```

use std::fmt;
use std::time::Duration;

use crate::Rng;

/// The five TPC-C transactions, in the order of the spec's clauses 2.4 to 2.8.
///
/// Closed so that per-transaction figures live in fixed arrays indexed by [`TxnKind::index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum TxnKind {
    /// 2.4: enter an order of 5 to 15 lines (1% roll back).
    NewOrder,
    /// 2.5: a customer pays; updates warehouse, district and customer balances.
    Payment,
    /// 2.6: read a customer's last order (read-only).
    OrderStatus,
    /// 2.7: deliver the oldest undelivered order of each of a warehouse's ten districts.
    Delivery,
    /// 2.8: count recently sold items low in stock (read-only).
    StockLevel,
}

impl TxnKind {
    /// Every kind, in [`TxnKind::index`] order: for loops over per-transaction figures.
    pub const ALL: [TxnKind; 5] =
        [TxnKind::NewOrder, TxnKind::Payment, TxnKind::OrderStatus, TxnKind::Delivery, TxnKind::StockLevel];

    /// The name used in result files and reports (`"new_order"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            TxnKind::NewOrder => "new_order",
            TxnKind::Payment => "payment",
            TxnKind::OrderStatus => "order_status",
            TxnKind::Delivery => "delivery",
            TxnKind::StockLevel => "stock_level",
        }
    }

    /// The position in [`TxnKind::ALL`] and [`MIX`] (0..5), to index per-transaction arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// This transaction's row of [`MIX`].
    pub const fn spec(self) -> &'static TxnSpec {
        &MIX[self.index()]
    }
}

impl fmt::Display for TxnKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One transaction's fixed figures in the mix: its share of the deck and its timing rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnSpec {
    /// The transaction this row describes.
    pub kind: TxnKind,
    /// Cards of this kind in every deck of [`DECK_SIZE`] (5.2.3: the minimum mix, dealt exactly).
    pub cards: u8,
    /// 5.2.5.7: the fixed time a terminal spends keying the input before the transaction.
    pub keying: Duration,
    /// 5.2.5.7: the mean of the think time after the transaction (negative exponential, 5.2.5.4).
    pub think_mean: Duration,
    /// 5.2.5.7: the limit on the 90th-percentile response time.
    pub p90_limit: Duration,
}

/// Cards in a deck: the mix is exact over every this many transactions.
pub const DECK_SIZE: usize = 100;

/// The mix and its timings, set by the spec, not knobs (5.2.3, 5.2.5.4, 5.2.5.7). Indexed by
/// [`TxnKind::index`].
pub static MIX: [TxnSpec; 5] = [
    TxnSpec {
        kind: TxnKind::NewOrder,
        cards: 45,
        keying: Duration::from_secs(18),
        think_mean: Duration::from_secs(12),
        p90_limit: Duration::from_secs(5),
    },
    TxnSpec {
        kind: TxnKind::Payment,
        cards: 43,
        keying: Duration::from_secs(3),
        think_mean: Duration::from_secs(12),
        p90_limit: Duration::from_secs(5),
    },
    TxnSpec {
        kind: TxnKind::OrderStatus,
        cards: 4,
        keying: Duration::from_secs(2),
        think_mean: Duration::from_secs(10),
        p90_limit: Duration::from_secs(5),
    },
    TxnSpec {
        kind: TxnKind::Delivery,
        cards: 4,
        keying: Duration::from_secs(2),
        think_mean: Duration::from_secs(5),
        // The limit on the queued part; the deferred completion has 80 s (2.7.2.2).
        p90_limit: Duration::from_secs(5),
    },
    TxnSpec {
        kind: TxnKind::StockLevel,
        cards: 4,
        keying: Duration::from_secs(2),
        think_mean: Duration::from_secs(5),
        p90_limit: Duration::from_secs(20),
    },
];

/// 5.2.5.4: think times are truncated at this many times their mean.
pub const THINK_TRUNCATION: f64 = 10.0;

/// One terminal's shuffled deck of [`DECK_SIZE`] cards in the counts of [`MIX`], so that the mix is
/// exact over every 100 transactions rather than only in expectation (CockroachDB's approach).
///
/// 101 bytes: every one of 14,000 users owns one.
#[derive(Clone, Debug)]
pub struct Deck {
    cards: [TxnKind; DECK_SIZE],
    /// The next card to deal; [`DECK_SIZE`] means the deck must be shuffled first.
    next: u8,
}

impl Deck {
    /// A deck in the counts of [`MIX`]; it is shuffled, with the caller's generator, before the first
    /// deal and whenever it runs out.
    pub fn new() -> Self {
        let mut cards = [TxnKind::NewOrder; DECK_SIZE];
        let mut at = 0;
        for spec in &MIX {
            let end = at + usize::from(spec.cards);
            cards[at..end].fill(spec.kind);
            at = end;
        }
        debug_assert_eq!(at, DECK_SIZE, "the mix's cards must fill the deck");
        Deck { cards, next: DECK_SIZE as u8 }
    }

    /// Deals the next card, reshuffling the whole deck when every card has been dealt.
    #[inline]
    pub fn next(&mut self, rng: &mut Rng) -> TxnKind {
        if usize::from(self.next) == DECK_SIZE {
            rng.shuffle(&mut self.cards);
            self.next = 0;
        }
        let card = self.cards[usize::from(self.next)];
        self.next += 1;
        card
    }
}

impl Default for Deck {
    fn default() -> Self {
        Deck::new()
    }
}

/// How keying times are applied (`--keying-time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyingTime {
    /// The spec's fixed keying time per transaction (5.2.5.7).
    Spec,
    /// No keying time (`--keying-time 0`): for saturation runs, not compliant.
    Off,
    /// The same fixed keying time for every transaction, in place of the spec's.
    Fixed(Duration),
}

/// How think times are drawn (`--think-time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkTime {
    /// Negative exponential with the spec's mean per transaction, truncated at 10× (5.2.5.4, 5.2.5.7).
    Spec,
    /// No think time (`--think-time 0`): for saturation runs, not compliant.
    Off,
    /// Negative exponential, truncated at 10× the mean, with this mean for every transaction in place
    /// of the spec's. A zero mean is the same as [`ThinkTime::Off`].
    Mean(Duration),
}

impl fmt::Display for KeyingTime {
    /// `spec`, `off` or the fixed time (`1.5s`), for the report's note of what was used.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyingTime::Spec => f.write_str("spec"),
            KeyingTime::Off => f.write_str("off"),
            KeyingTime::Fixed(d) => write!(f, "{d:?}"),
        }
    }
}

impl fmt::Display for ThinkTime {
    /// `spec`, `off` or `mean 5s`, for the report's note of what was used.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThinkTime::Spec => f.write_str("spec"),
            ThinkTime::Off => f.write_str("off"),
            ThinkTime::Mean(d) => write!(f, "mean {d:?}"),
        }
    }
}

/// A terminal's keying and think times: the waits before and after each transaction (5.2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    /// The keying-time rule in force.
    pub keying: KeyingTime,
    /// The think-time rule in force.
    pub think: ThinkTime,
}

impl Pacing {
    /// The spec's keying and think times: a compliant run, about one transaction per 21 s per terminal.
    pub const fn spec() -> Self {
        Pacing { keying: KeyingTime::Spec, think: ThinkTime::Spec }
    }

    /// No keying and no think time: every terminal runs flat out (a saturation run).
    pub const fn off() -> Self {
        Pacing { keying: KeyingTime::Off, think: ThinkTime::Off }
    }

    /// The keying time before `kind` (fixed, no randomness: 5.2.5.7).
    #[inline]
    pub fn keying(&self, kind: TxnKind) -> Duration {
        match self.keying {
            KeyingTime::Spec => kind.spec().keying,
            KeyingTime::Off => Duration::ZERO,
            KeyingTime::Fixed(d) => d,
        }
    }

    /// The mean think time after `kind` under this pacing (zero when off).
    #[inline]
    pub fn think_mean(&self, kind: TxnKind) -> Duration {
        match self.think {
            ThinkTime::Spec => kind.spec().think_mean,
            ThinkTime::Off => Duration::ZERO,
            ThinkTime::Mean(d) => d,
        }
    }

    /// A think time after `kind`: 5.2.5.4's `-ln(r) × mean` with `r` uniform in (0, 1], truncated at
    /// [`THINK_TRUNCATION`] × mean. Zero, without drawing, when think time is off.
    #[inline]
    pub fn think(&self, kind: TxnKind, rng: &mut Rng) -> Duration {
        let mean = self.think_mean(kind);
        if mean.is_zero() {
            return Duration::ZERO;
        }
        // 1 - [0, 1) is (0, 1]: ln never sees 0.
        let r = 1.0 - rng.unit_f64();
        mean.mul_f64((-r.ln()).min(THINK_TRUNCATION))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_names_and_table_agree() {
        for (i, kind) in TxnKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i);
            assert_eq!(MIX[i].kind, kind);
            assert_eq!(kind.spec().kind, kind);
        }
        let names: Vec<&str> = TxnKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names, ["new_order", "payment", "order_status", "delivery", "stock_level"]);
        assert_eq!(TxnKind::StockLevel.to_string(), "stock_level");
        let cards: usize = MIX.iter().map(|s| usize::from(s.cards)).sum();
        assert_eq!(cards, DECK_SIZE);
    }

    #[test]
    fn the_table_holds_the_spec_figures() {
        let secs = |f: fn(&TxnSpec) -> Duration| -> Vec<u64> { MIX.iter().map(|s| f(s).as_secs()).collect() };
        assert_eq!(MIX.iter().map(|s| s.cards).collect::<Vec<_>>(), [45, 43, 4, 4, 4]);
        assert_eq!(secs(|s| s.keying), [18, 3, 2, 2, 2]);
        assert_eq!(secs(|s| s.think_mean), [12, 12, 10, 5, 5]);
        assert_eq!(secs(|s| s.p90_limit), [5, 5, 5, 5, 20]);
    }

    #[test]
    fn every_hundred_cards_hold_the_exact_mix() {
        let mut rng = Rng::new(11);
        let mut deck = Deck::new();
        let mut first = Vec::new();
        for round in 0..50 {
            let mut counts = [0u32; 5];
            let mut dealt = Vec::with_capacity(DECK_SIZE);
            for _ in 0..DECK_SIZE {
                let kind = deck.next(&mut rng);
                counts[kind.index()] += 1;
                dealt.push(kind);
            }
            assert_eq!(counts, [45, 43, 4, 4, 4], "round {round}");
            if round == 0 {
                first = dealt;
            } else {
                assert_ne!(dealt, first, "each deck is reshuffled");
            }
        }
        assert!(size_of::<Deck>() <= 104, "{}", size_of::<Deck>());
    }

    #[test]
    fn decks_of_different_users_differ() {
        let deal = |seed| {
            let mut rng = Rng::derive(seed, &[1]);
            let mut deck = Deck::new();
            (0..DECK_SIZE).map(|_| deck.next(&mut rng)).collect::<Vec<_>>()
        };
        assert_ne!(deal(1), deal(2));
        assert_eq!(deal(3), deal(3));
    }

    #[test]
    fn keying_follows_the_rule() {
        assert_eq!(Pacing::spec().keying(TxnKind::NewOrder), Duration::from_secs(18));
        assert_eq!(Pacing::spec().keying(TxnKind::StockLevel), Duration::from_secs(2));
        assert_eq!(Pacing::off().keying(TxnKind::NewOrder), Duration::ZERO);
        let fixed = Pacing { keying: KeyingTime::Fixed(Duration::from_millis(500)), think: ThinkTime::Spec };
        assert_eq!(fixed.keying(TxnKind::Payment), Duration::from_millis(500));
    }

    /// The sample mean (in seconds) and maximum of `n` think times.
    fn draw(pacing: &Pacing, kind: TxnKind, n: u32) -> (f64, Duration) {
        let mut rng = Rng::new(u64::from(n));
        let mut sum = 0.0;
        let mut max = Duration::ZERO;
        for _ in 0..n {
            let t = pacing.think(kind, &mut rng);
            sum += t.as_secs_f64();
            max = max.max(t);
        }
        (sum / f64::from(n), max)
    }

    #[test]
    fn think_time_has_the_spec_mean_and_is_truncated() {
        for kind in TxnKind::ALL {
            let mean = kind.spec().think_mean;
            let (sample, max) = draw(&Pacing::spec(), kind, 200_000);
            let ratio = sample / mean.as_secs_f64();
            // The truncated mean is (1 - e^-10) × mean; the sample's standard error is 0.22%.
            assert!((0.98..1.02).contains(&ratio), "{kind}: {sample} s");
            assert!(max <= mean * 10, "{kind}: {max:?}");
            assert!(max > mean * 5, "{kind}: the tail is drawn: {max:?}");
        }
    }

    #[test]
    fn think_time_mean_override_and_off() {
        let pacing = Pacing { keying: KeyingTime::Off, think: ThinkTime::Mean(Duration::from_millis(100)) };
        let (sample, max) = draw(&pacing, TxnKind::Delivery, 100_000);
        assert!((0.098..0.102).contains(&sample), "{sample}");
        assert!(max <= Duration::from_secs(1));
        for pacing in
            [Pacing::off(), Pacing { keying: KeyingTime::Spec, think: ThinkTime::Mean(Duration::ZERO) }]
        {
            assert_eq!(draw(&pacing, TxnKind::NewOrder, 1_000), (0.0, Duration::ZERO));
        }
    }

    #[test]
    fn pacing_describes_itself() {
        assert_eq!(KeyingTime::Spec.to_string(), "spec");
        assert_eq!(ThinkTime::Off.to_string(), "off");
        assert_eq!(ThinkTime::Mean(Duration::from_millis(1500)).to_string(), "mean 1.5s");
        assert_eq!(KeyingTime::Fixed(Duration::from_secs(1)).to_string(), "1s");
    }
}
