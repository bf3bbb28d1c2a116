//! DVD Store 2's words between the workload and the engines: whose server functions serve a database
//! ([`Functions`]), how a purchase ended ([`Purchase`]), and what a database DS2's own installer built
//! holds ([`ReferenceDatabase`], which each engine recognises in its own catalog).

/// Whose server functions (on SQL Server: stored procedures) a database holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Functions {
    /// oltpgen's (an oltpgen load): `oltpgen_login` and `oltpgen_purchase` behind DS2's five.
    Oltpgen,
    /// The reference's own (`pgsqlds2_create_sp.sql`, a database DS2's installer built): `login`'s
    /// refcursors, `purchase`'s 25 parameters and amounts computed by the caller.
    Reference,
}

impl Functions {
    /// The name a result records.
    pub fn name(self) -> &'static str {
        match self {
            Functions::Oltpgen => "oltpgen",
            Functions::Reference => "ds2-reference",
        }
    }
}

/// The purchase's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purchase {
    /// The order was written.
    Ordered {
        /// Its id.
        orderid: i32,
    },
    /// An item's stock was short, so nothing was written: DS2 counts this as a rollback, and still as
    /// an order in its orders per minute.
    RolledBack,
}

/// What a database DS2's installer built holds, as oltpgen needs it to drive it (no load recorded its
/// id ranges, so they are read from its data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReferenceDatabase {
    /// The highest loaded customer id: logins draw `user1` to `user<customers>`.
    pub customers: i32,
    /// Products: purchases draw from 1 to this.
    pub products: i32,
    /// The highest order id now.
    pub orders: i32,
}
