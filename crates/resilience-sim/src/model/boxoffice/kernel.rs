//! The discrete-event kernel: a clock, a queue of timed events, a slab of live objects.
//!
//! Why a kernel and not a tick loop: the playground's interesting times are milliseconds
//! apart (a 10 ms bulkhead wait, a 20 ms catalog page) and minutes long (a five-minute
//! on-sale). A tick loop pays for every millisecond whether anything happens or not; an
//! event queue pays only for what happens, so the work of a run is proportional to its
//! events. Virtual time never reads a clock: the caller asks the simulation to advance to
//! an instant and it handles every event up to it, so a page can run a long scenario in
//! slices and a test can run it at once, with the same result.
//!
//! Determinism rests on two rules. Events at the same millisecond are handled in the order
//! they were scheduled (the queue orders by time, then by a sequence number), never by a
//! heap's whim. And every source of chance draws from its own seeded stream
//! (`model::stream_rng`), so one more draw in one component never shifts another's.
//!
//! Bounds: a run handles at most [`MAX_EVENTS`] events and holds at most [`MAX_LIVE`] live
//! objects of each kind, whatever a scenario file asks; past either the run stops early and
//! says so (`truncated`) instead of eating a browser tab's memory.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::Millis;

/// The most events one run handles: about three seconds of native work, and eight times
/// the busiest shipped scenario (flash-sale's `scale-out`, 3.6 million events). A file
/// whose retries multiply its requests stops here instead of running for a minute.
pub const MAX_EVENTS: u64 = 30_000_000;

/// The most live objects (requests, attempts, calls) of one kind at once. Files made to
/// reach this bound or the one above ran in at most 140 MB in all; every shipped scenario
/// runs in under 13 MB.
pub const MAX_LIVE: usize = 250_000;

struct Entry<E> {
    at: Millis,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed: the std heap is a max-heap and the earliest event must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// The clock and the event queue.
pub struct Kernel<E> {
    now: Millis,
    seq: u64,
    queue: BinaryHeap<Entry<E>>,
    handled: u64,
}

impl<E> Default for Kernel<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Kernel<E> {
    pub fn new() -> Self {
        Self {
            now: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            handled: 0,
        }
    }

    /// The current virtual instant.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// Schedules `event` at `at` (never in the past: an instant before now means now).
    pub fn schedule(&mut self, at: Millis, event: E) {
        self.seq += 1;
        self.queue.push(Entry {
            at: at.max(self.now),
            seq: self.seq,
            event,
        });
    }

    /// When the next event is due.
    pub fn next_due(&self) -> Option<Millis> {
        self.queue.peek().map(|e| e.at)
    }

    /// The next event due at or before `until`, moving the clock to it.
    pub fn pop_until(&mut self, until: Millis) -> Option<(Millis, E)> {
        if self.queue.peek()?.at > until {
            return None;
        }
        let entry = self.queue.pop()?;
        self.now = entry.at;
        self.handled += 1;
        Some((entry.at, entry.event))
    }

    /// Moves the clock forward to `to` (after every event up to it was handled).
    pub fn set_now(&mut self, to: Millis) {
        self.now = self.now.max(to);
    }

    /// Events handled so far.
    pub fn handled(&self) -> u64 {
        self.handled
    }

    /// Counts an event handled outside the queue (an arrival or a deadline read from a
    /// component's own ordered list).
    pub fn count_handled(&mut self) {
        self.handled += 1;
    }

    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// True once the run has used its event budget.
    pub fn exhausted(&self) -> bool {
        self.handled >= MAX_EVENTS
    }
}

/// A handle on a slab entry: index and generation, so a timer of an object that has since
/// gone (and whose slot was reused) is recognised as stale and ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    index: u32,
    generation: u32,
}

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Live objects of one kind, their slots reused: memory follows what is in flight, not
/// how long the run is.
pub struct Slab<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    len: usize,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Slab<T> {
    /// Stores `value`; `None` when [`MAX_LIVE`] objects are already live.
    pub fn insert(&mut self, value: T) -> Option<Key> {
        if self.len >= MAX_LIVE {
            return None;
        }
        self.len += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.value = Some(value);
            return Some(Key {
                index,
                generation: slot.generation,
            });
        }
        let index = self.slots.len() as u32;
        self.slots.push(Slot {
            generation: 0,
            value: Some(value),
        });
        Some(Key {
            index,
            generation: 0,
        })
    }

    pub fn get(&self, key: Key) -> Option<&T> {
        let slot = self.slots.get(key.index as usize)?;
        (slot.generation == key.generation)
            .then_some(slot.value.as_ref())
            .flatten()
    }

    pub fn get_mut(&mut self, key: Key) -> Option<&mut T> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        slot.value.as_mut()
    }

    pub fn remove(&mut self, key: Key) -> Option<T> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        let value = slot.value.take()?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(key.index);
        self.len -= 1;
        Some(value)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The live objects, in slot order (deterministic).
    pub fn iter(&self) -> impl Iterator<Item = (Key, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.value.as_ref().map(|v| {
                (
                    Key {
                        index: i as u32,
                        generation: s.generation,
                    },
                    v,
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_come_out_in_scheduling_order() {
        let mut k = Kernel::new();
        k.schedule(5, 'b');
        k.schedule(3, 'a');
        k.schedule(5, 'c');
        let order: Vec<char> = std::iter::from_fn(|| k.pop_until(10).map(|(_, e)| e)).collect();
        assert_eq!(order, ['a', 'b', 'c']);
        assert_eq!(k.now(), 5);
    }

    #[test]
    fn a_stale_key_finds_nothing() {
        let mut s = Slab::default();
        let a = s.insert(1).unwrap();
        s.remove(a);
        let b = s.insert(2).unwrap();
        assert!(s.get(a).is_none());
        assert_eq!(s.get(b), Some(&2));
    }
}
