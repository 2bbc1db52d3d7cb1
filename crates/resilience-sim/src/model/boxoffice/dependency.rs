//! A dependency (payment, the seat map service): workers, a queue, a service time, faults.
//!
//! A dependency is a server like ours: a few workers, a queue in front of them, a service
//! time per call (varied ± a percentage). Its faults are switched on a timeline: slow (a
//! latency, or a factor of its service time), failing (a share of 5xx answers), down
//! (connection refused at once), unreachable is not modelled (a host that never answers
//! would hold the caller for its connect timeout), declines (a share of card declines,
//! which are answers, not failures).
//!
//! Two things make dependencies dangerous to their callers, and both are here. A
//! dependency does not know its caller has gone: a call abandoned by a read timeout stays in
//! the queue and is served anyway (wasted work), which is how a retry storm keeps a
//! recovered dependency down. With `dropStale` the server reads the deadline the call
//! carries (a gRPC deadline, a header) and skips a queued call that can no longer be
//! answered in time. And a charge is a side effect: a retried payment call charges twice
//! unless the call carries an idempotency key; the provider counts charges per key, so a
//! duplicate is seen.

use std::collections::VecDeque;

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

use super::kernel::Key;
use super::topology::DependencySpec;
use crate::model::vary;
use crate::Millis;

/// The fault in force.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Health {
    Healthy,
    SlowLatency(Millis),
    SlowFactor(f64),
    Failing(f64),
    /// Connection refused: the host answers at once that nothing listens.
    Down,
    /// The host does not answer at all (a dropped route, a dead node): the caller's
    /// connect timeout decides how long each call waits.
    Unreachable,
}

/// How a call the dependency took on ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result {
    Ok,
    Declined,
    ServerError,
}

/// What happened to a call on arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Connection refused (down).
    Refused,
    /// No connection (unreachable): the caller waits out its connect timeout.
    NoConnection,
    /// The queue is full: 503 at once.
    QueueFull,
    /// A worker took it: it ends at this instant with this result.
    Started(Millis, Result),
    Queued,
}

#[derive(Debug, Clone, Copy)]
pub struct Queued {
    pub call: Key,
    /// The instant the caller stops waiting (its read timeout), if it told us.
    pub caller_deadline: Option<Millis>,
}

/// Counters of the current second.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    pub offered: u64,
    pub served: u64,
    pub wasted: u64,
    pub dropped_stale: u64,
    pub refused: u64,
    pub charges: u64,
    pub duplicate_charges: u64,
    pub deduplicated: u64,
    pub declines: u64,
    pub errors: u64,
}

pub struct Dependency {
    pub name: String,
    pub spec: DependencySpec,
    pub health: Health,
    pub decline_percent: f64,
    pub busy: u32,
    queue: VecDeque<Queued>,
    rng: Pcg64Mcg,
    /// Charged idempotency keys, one bit each.
    charged: Vec<u64>,
    pub tally: Tally,
    pub total: Tally,
}

impl Dependency {
    pub fn new(name: &str, spec: DependencySpec, rng: Pcg64Mcg) -> Self {
        Self {
            name: name.to_string(),
            decline_percent: spec.decline_percent,
            spec,
            health: Health::Healthy,
            busy: 0,
            queue: VecDeque::new(),
            rng,
            charged: Vec::new(),
            tally: Tally::default(),
            total: Tally::default(),
        }
    }

    /// The service time of a call started now, under the fault in force.
    fn service_time(&mut self) -> Millis {
        let nominal = match self.health {
            Health::SlowLatency(ms) => ms,
            Health::SlowFactor(f) => ((self.spec.service_ms as f64) * f).round().max(1.0) as Millis,
            _ => self.spec.service_ms,
        };
        vary(nominal, self.spec.variance_percent.into(), &mut self.rng)
    }

    fn start(&mut self, now: Millis) -> (Millis, Result) {
        self.busy += 1;
        let done = now + self.service_time();
        let draw: f64 = self.rng.random_range(0.0..100.0);
        let error_share = match self.health {
            Health::Failing(p) => p,
            _ => 0.0,
        };
        let result = if draw < error_share {
            Result::ServerError
        } else if draw < error_share + self.decline_percent {
            Result::Declined
        } else {
            Result::Ok
        };
        (done, result)
    }

    /// A call arrives at `now`.
    pub fn arrive(&mut self, now: Millis, call: Key, caller_deadline: Option<Millis>) -> Arrival {
        self.tally.offered += 1;
        match self.health {
            Health::Down => {
                self.tally.refused += 1;
                return Arrival::Refused;
            }
            Health::Unreachable => {
                self.tally.refused += 1;
                return Arrival::NoConnection;
            }
            _ => {}
        }
        if self.busy < self.spec.workers {
            let (done, result) = self.start(now);
            return Arrival::Started(done, result);
        }
        if self.queue.len() >= self.spec.queue as usize {
            self.tally.refused += 1;
            return Arrival::QueueFull;
        }
        self.queue.push_back(Queued {
            call,
            caller_deadline,
        });
        Arrival::Queued
    }

    /// A worker finished at `now`; the next queued call it takes, if any (skipping calls
    /// whose caller has gone, or cannot be answered in time, when `dropStale`). `gone`
    /// says whether a call's caller has already stopped waiting.
    pub fn finish(
        &mut self,
        now: Millis,
        mut gone: impl FnMut(Key) -> bool,
        dropped: &mut Vec<Key>,
    ) -> Option<(Key, Millis, Result)> {
        self.busy = self.busy.saturating_sub(1);
        while let Some(q) = self.queue.pop_front() {
            if self.spec.drop_stale {
                let too_late = q
                    .caller_deadline
                    .is_some_and(|d| now + self.spec.service_ms > d);
                if too_late || gone(q.call) {
                    self.tally.dropped_stale += 1;
                    dropped.push(q.call);
                    continue;
                }
            }
            let (done, result) = self.start(now);
            return Some((q.call, done, result));
        }
        None
    }

    /// A call ended with `result` for the idempotency key `key`: counts the charge.
    pub fn charge(&mut self, result: Result, key: u64, idempotent: bool) {
        match result {
            Result::Declined => self.tally.declines += 1,
            Result::ServerError => self.tally.errors += 1,
            Result::Ok => {
                let (word, bit) = ((key / 64) as usize, key % 64);
                if word >= self.charged.len() {
                    self.charged.resize(word + 1, 0);
                }
                let seen = self.charged[word] & (1 << bit) != 0;
                self.charged[word] |= 1 << bit;
                match (seen, idempotent) {
                    (true, true) => self.tally.deduplicated += 1,
                    (true, false) => {
                        self.tally.charges += 1;
                        self.tally.duplicate_charges += 1;
                    }
                    (false, _) => self.tally.charges += 1,
                }
            }
        }
    }

    /// Would a probe of this dependency pass at `now`, within `timeout`? A probe asks a
    /// health endpoint: down fails, a latency over the timeout fails, a failing share of
    /// half or more fails (a health endpoint skips the queue).
    pub fn probe_passes(&self, timeout: Millis) -> bool {
        let latency = match self.health {
            Health::Down | Health::Unreachable => return false,
            Health::Failing(p) if p >= 50.0 => return false,
            Health::SlowLatency(ms) => ms,
            Health::SlowFactor(f) => ((self.spec.service_ms as f64) * f) as Millis,
            _ => self.spec.service_ms,
        };
        latency <= timeout
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Closes the second: the tally goes into the totals.
    pub fn take_tally(&mut self) -> Tally {
        let t = std::mem::take(&mut self.tally);
        let s = &mut self.total;
        s.offered += t.offered;
        s.served += t.served;
        s.wasted += t.wasted;
        s.dropped_stale += t.dropped_stale;
        s.refused += t.refused;
        s.charges += t.charges;
        s.duplicate_charges += t.duplicate_charges;
        s.deduplicated += t.deduplicated;
        s.declines += t.declines;
        s.errors += t.errors;
        t
    }
}
