//! The waiting room: a bounded queue in front of the app.
//!
//! A queue turns a burst into a wait instead of a refusal, which is good while the wait is
//! shorter than the user's patience and harmful after: a request served after its user has
//! gone is work nobody wanted, done instead of work somebody still waits for. So this
//! queue is bounded, and it drops stale work: a request whose caller's deadline has passed
//! is skipped, not served. Under overload LIFO serves the newest first (they still have
//! time left); when full, LIFO pushes out the oldest and FIFO refuses the newcomer.
//! Requests leave the room only towards a replica with a free thread, so the app never
//! queues behind its own threads.
//!
//! Time here is whole milliseconds, and at thousands of arrivals a second several share
//! one. "Newest" cannot tell them apart, so LIFO draws among them from the room's own
//! seeded stream: otherwise the order the kernel happened to schedule them in would decide
//! who is served, and one client population would always lose.

use std::collections::VecDeque;

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

use super::kernel::Key;
use super::topology::{QueueOrder, WaitingRoomSpec};
use crate::Millis;

#[derive(Debug, Clone, Copy)]
pub struct Waiting {
    pub job: Key,
    pub deadline: Millis,
    pub since: Millis,
}

pub struct WaitingRoom {
    spec: WaitingRoomSpec,
    queue: VecDeque<Waiting>,
    ties: Pcg64Mcg,
    /// Requests dropped since the report last took the count (once a second).
    pub dropped_stale: u64,
}

impl WaitingRoom {
    pub fn new(spec: WaitingRoomSpec, ties: Pcg64Mcg) -> Self {
        Self {
            spec,
            queue: VecDeque::new(),
            ties,
            dropped_stale: 0,
        }
    }

    /// Enters `w`; returns the request that had to leave (the newcomer itself when FIFO is
    /// full, the oldest when LIFO is), which is answered 503.
    pub fn push(&mut self, w: Waiting) -> Option<Waiting> {
        if self.queue.len() < self.spec.capacity as usize {
            self.queue.push_back(w);
            return None;
        }
        match self.spec.order {
            QueueOrder::Fifo => Some(w),
            QueueOrder::Lifo => {
                let oldest = self.queue.pop_front();
                self.queue.push_back(w);
                oldest
            }
        }
    }

    /// The next request to serve at `now`; stale ones are moved to `stale`.
    pub fn pop(&mut self, now: Millis, stale: &mut Vec<Waiting>) -> Option<Waiting> {
        loop {
            let w = match self.spec.order {
                QueueOrder::Fifo => self.queue.pop_front(),
                QueueOrder::Lifo => {
                    self.draw_among_newest();
                    self.queue.pop_back()
                }
            }?;
            if self.spec.drop_stale && now >= w.deadline {
                self.dropped_stale += 1;
                stale.push(w);
                continue;
            }
            return Some(w);
        }
    }

    /// Puts one of the requests that arrived in the newest millisecond, drawn at random,
    /// at the back.
    fn draw_among_newest(&mut self) {
        let Some(newest) = self.queue.back().map(|w| w.since) else {
            return;
        };
        let same = self
            .queue
            .iter()
            .rev()
            .take_while(|w| w.since == newest)
            .count();
        if same > 1 {
            let last = self.queue.len() - 1;
            let pick = last - self.ties.random_range(0..same);
            self.queue.swap(pick, last);
        }
    }

    /// Drops stale requests from the old end (cheap housekeeping once a second).
    pub fn purge(&mut self, now: Millis, stale: &mut Vec<Waiting>) {
        if !self.spec.drop_stale {
            return;
        }
        while self.queue.front().is_some_and(|w| now >= w.deadline) {
            if let Some(w) = self.queue.pop_front() {
                self.dropped_stale += 1;
                stale.push(w);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn oldest_age(&self, now: Millis) -> Millis {
        self.queue
            .front()
            .map_or(0, |w| now.saturating_sub(w.since))
    }

    /// Everything still waiting (the run's end).
    pub fn drain(&mut self) -> impl Iterator<Item = Waiting> + '_ {
        self.queue.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::boxoffice::kernel::Slab;
    use crate::model::stream_rng;

    fn room(order: QueueOrder, capacity: u32) -> (WaitingRoom, Vec<Key>) {
        let mut slab = Slab::default();
        let keys = (0..8).map(|i| slab.insert(i).unwrap()).collect();
        let spec = WaitingRoomSpec {
            capacity,
            order,
            drop_stale: true,
        };
        (WaitingRoom::new(spec, stream_rng(1, 3)), keys)
    }

    fn w(job: Key, since: Millis, deadline: Millis) -> Waiting {
        Waiting {
            job,
            deadline,
            since,
        }
    }

    #[test]
    fn full_fifo_refuses_the_newcomer_and_full_lifo_pushes_out_the_oldest() {
        let (mut fifo, k) = room(QueueOrder::Fifo, 2);
        assert!(fifo.push(w(k[0], 0, 1_000)).is_none());
        assert!(fifo.push(w(k[1], 1, 1_000)).is_none());
        assert_eq!(fifo.push(w(k[2], 2, 1_000)).map(|x| x.job), Some(k[2]));
        let (mut lifo, k) = room(QueueOrder::Lifo, 2);
        lifo.push(w(k[0], 0, 1_000));
        lifo.push(w(k[1], 1, 1_000));
        assert_eq!(lifo.push(w(k[2], 2, 1_000)).map(|x| x.job), Some(k[0]));
        let mut stale = Vec::new();
        assert_eq!(lifo.pop(3, &mut stale).map(|x| x.job), Some(k[2]));
        assert_eq!(lifo.pop(3, &mut stale).map(|x| x.job), Some(k[1]));
    }

    #[test]
    fn a_request_whose_caller_has_gone_is_skipped_not_served() {
        let (mut fifo, k) = room(QueueOrder::Fifo, 10);
        fifo.push(w(k[0], 0, 100));
        fifo.push(w(k[1], 10, 5_000));
        let mut stale = Vec::new();
        assert_eq!(fifo.pop(200, &mut stale).map(|x| x.job), Some(k[1]));
        assert_eq!(stale.len(), 1);
        assert_eq!(fifo.dropped_stale, 1);
    }

    #[test]
    fn lifo_draws_among_requests_of_the_same_millisecond() {
        // Over many draws each of three same-instant requests is served first sometimes.
        let mut firsts = [0; 3];
        let (mut lifo, k) = room(QueueOrder::Lifo, 10);
        let mut stale = Vec::new();
        for _ in 0..300 {
            for (i, key) in k.iter().take(3).enumerate() {
                lifo.push(w(*key, 7, 1_000 + i as Millis));
            }
            let first = lifo.pop(8, &mut stale).unwrap();
            firsts[(first.deadline - 1_000) as usize] += 1;
            while lifo.pop(8, &mut stale).is_some() {}
        }
        assert!(firsts.iter().all(|&n| n > 50), "{firsts:?}");
    }
}
