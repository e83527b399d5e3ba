//! The event queue: a binary heap ordered by (time, sequence number).
//!
//! The sequence number is assigned at scheduling time, so events at the same time come
//! out in the order they were scheduled, whatever the heap's internal layout.
//!
//! Speed: an entry is the time (64 bits), a 32-bit sequence number and the event, compared
//! as one packed 96-bit key, so the heap moves 16 to 24 bytes per entry and one comparison
//! decides the order: as fast as a heap of one packed integer key (see `benches/engine.rs`).
//! When the 32-bit counter runs out (four billion events scheduled), the pending events
//! are renumbered in their order, which keeps every order exact.

use super::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event with the time it fires and its scheduling sequence number.
#[derive(Debug, Clone)]
pub struct Scheduled<E> {
    /// When the event fires.
    pub time: SimTime,
    /// Order of scheduling among the events pending with it; breaks ties between equal
    /// times.
    pub seq: u64,
    /// The event itself.
    pub event: E,
}

/// One heap entry: the packed key's parts and the event.
#[derive(Debug, Clone)]
struct Entry<E> {
    time: u64,
    seq: u32,
    event: E,
}

impl<E> Entry<E> {
    /// The order key: time, then sequence number, as one integer.
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time as u128) << 32) | self.seq as u128
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        other.key() < self.key()
    }
    #[inline(always)]
    fn le(&self, other: &Self) -> bool {
        other.key() <= self.key()
    }
    #[inline(always)]
    fn gt(&self, other: &Self) -> bool {
        other.key() > self.key()
    }
    #[inline(always)]
    fn ge(&self, other: &Self) -> bool {
        other.key() >= self.key()
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest event first.
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// A future-event list. Cancellation is lazy: handlers carry a generation counter and
/// ignore stale events, so nothing is ever searched for inside the heap.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u32,
    now: SimTime,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: SimTime::ZERO,
        }
    }

    /// An empty queue with room for `n` pending events.
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(n),
            next_seq: 0,
            now: SimTime::ZERO,
        }
    }

    /// The time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at `time`. A time in the past is moved to now: time never runs
    /// backwards.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let time = time.max(self.now);
        if self.next_seq == u32::MAX {
            self.renumber();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            time: time.0,
            seq,
            event,
        });
    }

    /// Gives the pending events the sequence numbers 0, 1, ... in their order, so the
    /// counter can go on (every relative order is kept).
    #[cold]
    fn renumber(&mut self) {
        let mut v = std::mem::take(&mut self.heap).into_sorted_vec();
        // Sorted ascending by `Ord`, which is reversed: the latest event first.
        v.reverse();
        let n = v.len() as u32;
        for (i, e) in v.iter_mut().enumerate() {
            e.seq = i as u32;
        }
        self.heap = BinaryHeap::from(v);
        self.next_seq = n;
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|s| SimTime(s.time))
    }

    /// Removes and returns the next event, advancing `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<Scheduled<E>> {
        let s = self.heap.pop()?;
        self.now = SimTime(s.time);
        Some(Scheduled {
            time: SimTime(s.time),
            seq: s.seq as u64,
            event: s.event,
        })
    }

    /// Pops the next event only if it fires at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<Scheduled<E>> {
        if self.peek_time()? <= limit {
            self.pop()
        } else {
            None
        }
    }

    /// Advances `now` without an event (used when a trace arrival comes first).
    pub fn advance_to(&mut self, t: SimTime) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), "b1");
        q.schedule(SimTime(5), "a");
        q.schedule(SimTime(10), "b2");
        q.schedule(SimTime(10), "b3");
        q.schedule(SimTime(7), "x");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!["a", "x", "b1", "b2", "b3"]);
    }

    #[test]
    fn order_survives_renumbering() {
        // Start near the end of the 32-bit counter, so renumbering happens mid-way; the
        // pop order must still be (time, scheduling order), as a sort says.
        let mut q = EventQueue::new();
        q.next_seq = u32::MAX - 5;
        let mut want = Vec::new();
        for i in 0..40u64 {
            let t = (i * 7) % 5;
            q.schedule(SimTime(t), i);
            want.push((t, i));
        }
        want.sort();
        let got: Vec<(u64, u64)> =
            std::iter::from_fn(|| q.pop().map(|s| (s.time.0, s.event))).collect();
        assert_eq!(got, want);
        assert!(q.next_seq < 100, "renumbered");
    }

    #[test]
    fn past_events_are_moved_to_now() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(100), 1);
        q.pop();
        q.schedule(SimTime(50), 2);
        let s = q.pop().unwrap();
        assert_eq!(s.time, SimTime(100));
    }
}
