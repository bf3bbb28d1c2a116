//! Where a user gets its connection: its own (the default), or a shared pool when `--connections` is
//! below `--users`. Each shard keeps its share of every target's pool as plain data on its own thread:
//! the slots free, the sessions idle in them, and the users waiting in line for one, first come first
//! served. A waiting user is a number in that line, whatever the line's length. Waiting happens after
//! the transaction's intended start, so the wait is part of its response time.

use std::collections::VecDeque;

/// A fixed number of sessions shared by a shard's users of one target; sessions are opened on first
/// need and reopened after a connection is lost.
pub struct Pool<S> {
    /// Sessions open and not lent.
    idle: Vec<S>,
    /// Slots not lent (some with an idle session, the others not connected yet, or any more).
    free: u32,
    /// Users waiting for a slot (their places in the shard), first come first served.
    line: VecDeque<u32>,
}

/// What a user waiting for a connection was lent: a slot, with its session when the slot's connection
/// is open (`None` when the user must connect first).
pub type Slot<S> = Option<S>;

impl<S> Pool<S> {
    /// A pool of `size` slots.
    pub fn new(size: u32) -> Self {
        Pool { idle: Vec::new(), free: size, line: VecDeque::new() }
    }

    /// Lends user `user` a free slot, or, when every slot is lent, puts it at the end of the line
    /// (`None`): it gets a slot from [`give_back`](Self::give_back) when its turn comes.
    pub fn lend(&mut self, user: u32) -> Option<Slot<S>> {
        if self.free == 0 {
            self.line.push_back(user);
            return None;
        }
        self.free -= 1;
        Some(self.idle.pop())
    }

    /// Takes back a lent slot with what it holds (its session, unless the connection was lost), and
    /// lends it at once to the first user in line, if any: that user and its slot.
    pub fn give_back(&mut self, slot: Slot<S>) -> Option<(u32, Slot<S>)> {
        if let Some(user) = self.line.pop_front() {
            return Some((user, slot));
        }
        self.idle.extend(slot);
        self.free += 1;
        None
    }

    /// Sends every waiting user away (the run is stopping: a user in line has no transaction in flight).
    pub fn close_line(&mut self) {
        self.line = VecDeque::new();
    }

    /// Sends away the waiting users from place `first` on (a step with fewer users stops them); those
    /// before it keep their turn.
    pub fn leave_from(&mut self, first: u32) {
        self.line.retain(|&user| user < first);
    }
}

/// Where a shard's users get connections, by their places in the shard.
pub enum Connections<S> {
    /// Each user opens and keeps its own: its place's session, when open.
    Own(Vec<Option<S>>),
    /// Users borrow from their target's pool (one per target) for each transaction.
    Shared(Vec<Pool<S>>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_reused_slots_bounded_and_the_line_served_in_order() {
        let mut pool = Pool::<u32>::new(2);
        let a = pool.lend(0).expect("a free slot");
        assert!(a.is_none(), "opened on first need");
        assert_eq!(pool.lend(1), Some(None));
        assert_eq!(pool.lend(2), None, "two slots, two lent: user 2 waits");
        assert_eq!(pool.lend(3), None, "and user 3 behind it");
        assert_eq!(
            pool.give_back(Some(7)),
            Some((2, Some(7))),
            "the first in line gets the slot, session and all"
        );
        assert_eq!(pool.give_back(None), Some((3, None)), "a lost connection's slot, to reconnect");
        assert_eq!(pool.give_back(Some(7)), None, "nobody waits: the session idles");
        assert_eq!(pool.lend(4), Some(Some(7)), "and is lent again");
        assert_eq!(pool.lend(5), None, "user 3 and 4 hold both slots");
        pool.close_line();
        assert_eq!(pool.give_back(None), None, "a closed line: nobody gets user 3's slot");
        assert_eq!(pool.lend(6), Some(None), "it is free again, not connected");
    }

    #[test]
    fn users_stopped_by_a_smaller_step_leave_the_line_and_the_others_keep_their_turn() {
        let mut pool = Pool::<u32>::new(1);
        assert_eq!((pool.lend(0), pool.lend(3), pool.lend(1)), (Some(None), None, None));
        pool.leave_from(2);
        assert_eq!(pool.give_back(Some(7)), Some((1, Some(7))), "user 1 keeps its place in line");
        assert_eq!(pool.give_back(Some(7)), None, "user 3 left it");
    }
}
