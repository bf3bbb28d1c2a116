//! How a transaction ended, as the engine code that ran it says it and the run machinery counts it:
//! [`Done`] when it did not fail, [`TxnError`] (its [`Fault`], sorted once by the engine) when it did.

use crate::error::Fault;

/// A transaction's failure, sorted once by the engine code that met it; results count failures by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnError {
    /// What to do about it.
    pub fault: Fault,
}

impl TxnError {
    /// The connection is gone: the user reconnects before its next transaction.
    pub const LOST: TxnError = TxnError { fault: Fault::ConnectionLost };
}

/// How a transaction ended when it did not fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Done {
    /// Rolled back as the workload expects (not an error).
    pub rolled_back: bool,
}

/// How many values an acknowledgement's key holds at most (the workload file's limit, which names it).
pub use oltpgen_datagen::defined::ACK_VALUES;

/// One commit the database acknowledged, kept to find the commits a failover lost
/// (`oltpgen_driver::lost_commits`): its key as the workload names it (TPC-C's `w_id, d_id, o_id,
/// c_id, lines`; DS2's `orderid, customerid, lines`; a script's acknowledged row), each value an
/// integer or, for text, its hash ([`Ack::value_of_text`]), the values the key does not use 0. The
/// workload's lookup (`oltpgen_driver::workload::AckLookup`) names the values and says an ack in its
/// own words. 48 bytes, inline: no allocation per ack; a run keeps them in [`Acks`], which keeps
/// TPC-C's and DS2's in 16 ([`Order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ack {
    /// Which of the workload's acknowledgements it is (a script run's: which script; else 0).
    pub kind: u8,
    /// The key's values, in the workload's order; 0 past its last.
    pub key: [i64; ACK_VALUES],
    /// The target it ran against, as an index into the workload's targets.
    pub target: u8,
    /// The study's run it was acknowledged in (from 1; `--runs` is at most 100), so that only the
    /// commits a restore has not taken away are compared; 0 before the study tags it (and in files of
    /// an older oltpgen, which did not).
    pub run: u8,
}

impl Ack {
    /// The acknowledgement of kind `kind` whose key is `values` (at most [`ACK_VALUES`]; the rest
    /// ignored), of no target or run yet.
    pub fn new(kind: u8, values: &[i64]) -> Ack {
        let mut key = [0; ACK_VALUES];
        key.iter_mut().zip(values).for_each(|(k, v)| *k = *v);
        Ack { kind, key, target: 0, run: 0 }
    }

    /// The value a key keeps for a column's text (as a database returns it, or a script's parameter
    /// is sent): the integer it spells, else a 64-bit hash of the text (FNV-1a), the same for the
    /// text acknowledged and the text read back; `None` (SQL NULL) and the empty text are 0.
    pub fn value_of_text(text: Option<&str>) -> i64 {
        let Some(text) = text.filter(|t| !t.is_empty()) else { return 0 };
        text.trim().parse().unwrap_or_else(|_| {
            let hash = text
                .bytes()
                .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
            hash as i64
        })
    }
}

/// An acknowledgement whose key is an order's, TPC-C's New-Order (`w_id` from 1, `d_id`, `o_id`,
/// `c_id`, line count) or DS2's purchase (`orderid`, `customerid`, line count; no warehouse: 0), in 16
/// bytes rather than an [`Ack`]'s 48: what the built-in workloads acknowledge, a million in 16 MB, in
/// memory ([`Acks`]) and in the acks file ([`Order::to_bytes`]) alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    w: u32,
    o: u32,
    c: u32,
    d: u8,
    lines: u8,
    target: u8,
    run: u8,
}

impl Order {
    /// `ack` as an order, when it is of kind 0 and its key fits one (values past the order's 0, each
    /// within its field): read back by [`Order::ack`] as the same acknowledgement.
    pub fn of(ack: &Ack) -> Option<Order> {
        let u32_of = |v: i64| u32::try_from(v).ok();
        let u8_of = |v: i64| u8::try_from(v).ok();
        let [k0, k1, k2, k3, k4] = ack.key;
        if ack.kind != 0 {
            return None;
        }
        let (target, run) = (ack.target, ack.run);
        // DS2's purchase: no warehouse or district (0), read back as its three values.
        if k3 == 0 && k4 == 0 {
            let (o, c, lines) = (u32_of(k0)?, u32_of(k1)?, u8_of(k2)?);
            return Some(Order { w: 0, o, c, d: 0, lines, target, run });
        }
        let (w, d, o, c, lines) =
            (u32_of(k0).filter(|&w| w > 0)?, u8_of(k1)?, u32_of(k2)?, u32_of(k3)?, u8_of(k4)?);
        Some(Order { w, o, c, d, lines, target, run })
    }

    /// The acknowledgement it keeps.
    pub fn ack(self) -> Ack {
        let Order { w, o, c, d, lines, target, run } = self;
        let (w, o, c, d, lines) = (i64::from(w), i64::from(o), i64::from(c), i64::from(d), i64::from(lines));
        // DS2's purchases have no warehouse (0); TPC-C's start at 1.
        let ack = if w == 0 { Ack::new(0, &[o, c, lines]) } else { Ack::new(0, &[w, d, o, c, lines]) };
        Ack { target, run, ..ack }
    }

    /// Its 16 bytes in the acks file: warehouse, order id and customer as little-endian `u32`,
    /// district, line count, target and the study's run as one byte each.
    pub fn to_bytes(self) -> [u8; 16] {
        let mut out = [0; 16];
        out[..4].copy_from_slice(&self.w.to_le_bytes());
        out[4..8].copy_from_slice(&self.o.to_le_bytes());
        out[8..12].copy_from_slice(&self.c.to_le_bytes());
        out[12..].copy_from_slice(&[self.d, self.lines, self.target, self.run]);
        out
    }

    /// The order whose bytes ([`Order::to_bytes`]) are `b`.
    pub fn from_bytes(b: &[u8; 16]) -> Order {
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Order { w: u32_at(0), o: u32_at(4), c: u32_at(8), d: b[12], lines: b[13], target: b[14], run: b[15] }
    }
}

/// A run's acknowledgements as memory keeps them until the comparison at its end: each in 16 bytes
/// when its key is an order's ([`Order`]: every one of TPC-C's and DS2's), else whole (48 bytes: a
/// script's, a workload file's). Orders first, then the others, each in the order pushed; the
/// comparison sorts them anyway.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Acks {
    orders: Vec<Order>,
    others: Vec<Ack>,
}

impl Acks {
    /// Keeps `ack`.
    pub fn push(&mut self, ack: Ack) {
        match Order::of(&ack) {
            Some(order) => self.orders.push(order),
            None => self.others.push(ack),
        }
    }

    /// Keeps a copy of `other`'s too (a share another collector still holds).
    pub fn extend(&mut self, other: &Acks) {
        self.orders.extend_from_slice(&other.orders);
        self.others.extend_from_slice(&other.others);
    }

    /// Keeps `other`'s too, moved.
    pub fn append(&mut self, mut other: Acks) {
        self.orders.append(&mut other.orders);
        self.others.append(&mut other.others);
    }

    /// How many it keeps.
    pub fn len(&self) -> usize {
        self.orders.len() + self.others.len()
    }

    /// Whether it keeps none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each acknowledgement, whole.
    pub fn iter(&self) -> impl Iterator<Item = Ack> + '_ {
        self.orders.iter().map(|o| o.ack()).chain(self.others.iter().copied())
    }

    /// Each acknowledgement's file form: its 16 bytes when every one is an order (the acks file's
    /// second format, which any oltpgen reads), else `None`.
    pub fn as_orders(&self) -> Option<&[Order]> {
        self.others.is_empty().then_some(self.orders.as_slice())
    }

    /// Tags every acknowledgement with the study's run `run`.
    pub fn set_run(&mut self, run: u8) {
        self.orders.iter_mut().for_each(|o| o.run = run);
        self.others.iter_mut().for_each(|a| a.run = run);
    }

    /// The memory it holds, in bytes (what its vectors reserved).
    pub fn heap_bytes(&self) -> usize {
        self.orders.capacity() * size_of::<Order>() + self.others.capacity() * size_of::<Ack>()
    }
}

impl FromIterator<Ack> for Acks {
    fn from_iter<I: IntoIterator<Item = Ack>>(iter: I) -> Self {
        let mut acks = Acks::default();
        iter.into_iter().for_each(|a| acks.push(a));
        acks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes per acknowledgement a run keeps in memory: TPC-C's and DS2's 16 (as before the generic
    /// key), a script's 48; each read back as it was kept.
    #[test]
    fn orders_are_kept_in_16_bytes_and_other_keys_whole() {
        let n = 1_000_000;
        let order = |i: i64| Ack::new(0, &[1 + i % 100, 1 + i % 10, 3_001 + i, 1 + i % 3_000, 5 + i % 11]);
        // Pushed one by one, as a run keeps them: now, and whole in a `Vec<Ack>` as before.
        let (mut tpcc, mut whole) = (Acks::default(), Vec::new());
        (0..n).for_each(|i| {
            tpcc.push(order(i));
            whole.push(order(i));
        });
        let per = tpcc.heap_bytes() as f64 / n as f64;
        let before = (whole.capacity() * size_of::<Ack>()) as f64 / n as f64;
        eprintln!("TPC-C's acknowledgements, {n}: {per:.1} bytes each kept as orders, {before:.1} whole");
        assert!(per < 17.0, "{per}");
        assert_eq!((size_of::<Order>(), size_of::<Ack>()), (16, 48));
        let kept = [
            Ack { target: 2, run: 3, ..Ack::new(0, &[3, 4, 3_001, 17, 9]) },
            Ack::new(0, &[20_001, 5, 3]),
            Ack::new(0, &[3, 1, 17, -40]),
            Ack::new(1, &[3, 1, 17, 40]),
            Ack::new(0, &[1, 2, 3, 4, 300]),
            Ack::new(0, &[0, 2, 3, 4, 5]),
            Ack::new(0, &[i64::from(u32::MAX) + 1, 2, 3]),
        ];
        let acks: Acks = kept.into_iter().collect();
        assert_eq!(acks.orders.len(), 2, "TPC-C's order and DS2's purchase; the others do not fit");
        let mut back: Vec<Ack> = acks.iter().collect();
        let mut want = kept.to_vec();
        back.sort();
        want.sort();
        assert_eq!(back, want);
        for order in &acks.orders {
            assert_eq!(Order::from_bytes(&order.to_bytes()), *order);
        }
    }
}
