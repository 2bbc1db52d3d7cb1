//! The small event-driven world both experiments run in: one client population, one
//! server, on the BoxOffice [`Kernel`].
//!
//! - **Clients**: open-loop Poisson arrivals at `demand_per_second` (a request arrives
//!   whatever happened to the previous ones), each run through the [`ClientPolicy`]. An
//!   attempt ends with an answer, an error, or, when the client has a timeout, a timeout;
//!   a timed-out call is *not* withdrawn from the server.
//! - **Server**, one of two:
//!   - [`Server::Spare`]: spare capacity, every attempt answered after `latency`, failing
//!     with probability `failure_rate`, independently (the failure sweep);
//!   - [`Server::Capacity`]: `workers` serve a FIFO queue of at most `queue` calls, each
//!     for `service` ms (times `slowdown` for a call that starts during the trigger); a
//!     call that finds the queue full is rejected at once (an error). A worker serves a
//!     call whose client has given up all the same: **wasted work**, the engine of a
//!     metastable failure (the metastability map).
//!
//! Bounds: a run handles at most [`MAX_RUN_EVENTS`] events and stops at `end` of virtual
//! time; past the event cap it stops early and says so (`truncated`).

use std::collections::VecDeque;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::client::{AttemptEnd, Call, ClientPolicy, Next};
use crate::model::boxoffice::kernel::{Kernel, Key, Slab};
use crate::Millis;

/// The most events one run handles.
pub const MAX_RUN_EVENTS: u64 = 20_000_000;

/// The server the clients call.
#[derive(Debug, Clone, PartialEq)]
pub enum Server {
    /// Spare capacity: every attempt is answered after `latency` and fails with
    /// probability `failure_rate`.
    Spare { latency: Millis, failure_rate: f64 },
    /// Workers and a bounded FIFO queue; calls started within `[slow_from, slow_until)`
    /// take `slowdown` times `service`.
    Capacity {
        workers: u32,
        service: Millis,
        queue: u32,
        slowdown: f64,
        slow_from: Millis,
        slow_until: Millis,
    },
}

/// One run's setup.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    pub demand_per_second: f64,
    pub server: Server,
    /// The client's timeout per attempt, if any.
    pub timeout: Option<Millis>,
    /// No request arrives from this instant on.
    pub arrivals_until: Millis,
    /// Requests arriving within `[measure_from, measure_until)` are measured to their end.
    pub measure_from: Millis,
    pub measure_until: Millis,
    /// Arrivals and successes within `[judge_from, end)` are counted (the recovery window).
    pub judge_from: Millis,
    /// The run stops here whatever is in flight.
    pub end: Millis,
    pub seed: u64,
}

/// What a run counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Measured requests, their attempts sent to the server, and how many succeeded.
    pub requests: u64,
    pub attempts: u64,
    pub succeeded: u64,
    /// Measured requests whose wanted retry the shared brake refused.
    pub refused: u64,
    /// Measured requests dropped locally (adaptive throttling).
    pub rejected_locally: u64,
    /// Requests arriving, and requests succeeding, within the recovery window.
    pub window_arrivals: u64,
    pub window_successes: u64,
    /// Calls the server completed after their client had stopped waiting.
    pub wasted: u64,
    pub events: u64,
    /// The run hit [`MAX_RUN_EVENTS`] and stopped early.
    pub truncated: bool,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    Arrival,
    Answer { req: Key, attempt: u32, ok: bool },
    Timeout { req: Key, attempt: u32 },
    Retry { req: Key },
    Served { req: Key, attempt: u32 },
}

struct Request {
    call: Call,
    /// The number of the attempt in flight (1 for the first).
    attempt: u32,
    waiting: bool,
    measured: bool,
}

/// One run under way: [`Sim::advance`] handles its events a slice at a time, so a page
/// can make a run between frames; [`run`] makes it at once.
pub struct Sim {
    spec: RunSpec,
    policy: ClientPolicy,
    kernel: Kernel<Ev>,
    requests: Slab<Request>,
    busy: u32,
    queue: VecDeque<(Key, u32)>,
    arrivals: Pcg64Mcg,
    failures: Pcg64Mcg,
    decisions: Pcg64Mcg,
    stats: RunStats,
    /// The next arrival's instant, in fractional ms (the gaps add up without rounding).
    next_arrival: f64,
    rate_per_ms: f64,
    done: bool,
}

/// Runs `spec` with `policy` (a fresh one: its brake starts full).
pub fn run(spec: &RunSpec, policy: ClientPolicy) -> RunStats {
    let mut sim = Sim::new(spec.clone(), policy);
    while !sim.advance(u64::MAX) {}
    sim.finish()
}

impl Sim {
    /// A run of `spec` with `policy`, before its first event.
    pub fn new(spec: RunSpec, policy: ClientPolicy) -> Self {
        let stream =
            |n: u64| Pcg64Mcg::seed_from_u64(spec.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut sim = Sim {
            policy,
            kernel: Kernel::new(),
            requests: Slab::default(),
            busy: 0,
            queue: VecDeque::new(),
            arrivals: stream(1),
            failures: stream(2),
            decisions: stream(3),
            stats: RunStats::default(),
            next_arrival: 0.0,
            rate_per_ms: spec.demand_per_second / 1_000.0,
            spec,
            done: false,
        };
        if sim.rate_per_ms > 0.0 {
            sim.next_arrival = sim.gap();
            if (sim.next_arrival as Millis) < sim.spec.arrivals_until {
                sim.kernel.schedule(sim.next_arrival as Millis, Ev::Arrival);
            }
        }
        sim
    }

    /// Handles at most `events` more events; whether the run is over.
    pub fn advance(&mut self, events: u64) -> bool {
        let mut left = events;
        while !self.done && left > 0 {
            left -= 1;
            let Some((now, event)) = self.kernel.pop_until(self.spec.end.saturating_sub(1)) else {
                self.done = true;
                break;
            };
            if self.kernel.handled() >= MAX_RUN_EVENTS {
                self.stats.truncated = true;
                self.done = true;
                break;
            }
            self.handle(now, event);
        }
        self.done
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.kernel.handled()
    }

    /// What the run counted (so far, if it is not over).
    pub fn finish(mut self) -> RunStats {
        self.stats.events = self.kernel.handled();
        self.stats
    }

    fn handle(&mut self, now: Millis, event: Ev) {
        match event {
            Ev::Arrival => {
                self.arrive(now);
                self.next_arrival += self.gap();
                if (self.next_arrival as Millis) < self.spec.arrivals_until {
                    self.kernel
                        .schedule(self.next_arrival as Millis, Ev::Arrival);
                }
            }
            Ev::Answer { req, attempt, ok } => {
                let end = if ok {
                    AttemptEnd::Success
                } else {
                    AttemptEnd::Error
                };
                self.attempt_ended(now, req, attempt, end);
            }
            Ev::Timeout { req, attempt } => {
                self.attempt_ended(now, req, attempt, AttemptEnd::Timeout)
            }
            Ev::Retry { req } => self.send(now, req),
            Ev::Served { req, attempt } => {
                self.busy -= 1;
                let waiting = self
                    .requests
                    .get(req)
                    .is_some_and(|r| r.waiting && r.attempt == attempt);
                if waiting {
                    self.attempt_ended(now, req, attempt, AttemptEnd::Success);
                } else {
                    self.stats.wasted += 1;
                }
                if let Some((next, attempt)) = self.queue.pop_front() {
                    self.start_service(now, next, attempt);
                }
            }
        }
    }

    /// The gap to the next Poisson arrival, in ms.
    fn gap(&mut self) -> f64 {
        let u: f64 = self.arrivals.random();
        -(1.0 - u).ln() / self.rate_per_ms
    }

    fn arrive(&mut self, now: Millis) {
        let measured = (self.spec.measure_from..self.spec.measure_until).contains(&now);
        if now >= self.spec.judge_from {
            self.stats.window_arrivals += 1;
        }
        if measured {
            self.stats.requests += 1;
        }
        let Some(call) = self.policy.start(now, &mut self.decisions) else {
            if measured {
                self.stats.rejected_locally += 1;
            }
            return;
        };
        let request = Request {
            call,
            attempt: 0,
            waiting: false,
            measured,
        };
        // A full slab (2 million requests in flight) drops the request: bounded memory.
        if let Some(key) = self.requests.insert(request) {
            self.send(now, key);
        }
    }

    /// Sends the next attempt of `req`.
    fn send(&mut self, now: Millis, req: Key) {
        let Some(request) = self.requests.get_mut(req) else {
            return;
        };
        request.attempt += 1;
        request.waiting = true;
        let attempt = request.attempt;
        if request.measured {
            self.stats.attempts += 1;
        }
        if let Some(timeout) = self.spec.timeout {
            self.kernel
                .schedule(now + timeout, Ev::Timeout { req, attempt });
        }
        match self.spec.server {
            Server::Spare {
                latency,
                failure_rate,
            } => {
                let ok = self.failures.random::<f64>() >= failure_rate;
                self.kernel
                    .schedule(now + latency, Ev::Answer { req, attempt, ok });
            }
            Server::Capacity { workers, queue, .. } => {
                if self.busy < workers {
                    self.start_service(now, req, attempt);
                } else if self.queue.len() < queue as usize {
                    self.queue.push_back((req, attempt));
                } else {
                    self.kernel.schedule(
                        now,
                        Ev::Answer {
                            req,
                            attempt,
                            ok: false,
                        },
                    );
                }
            }
        }
    }

    fn start_service(&mut self, now: Millis, req: Key, attempt: u32) {
        let Server::Capacity {
            service,
            slowdown,
            slow_from,
            slow_until,
            ..
        } = self.spec.server
        else {
            return;
        };
        let took = if (slow_from..slow_until).contains(&now) {
            (service as f64 * slowdown).round() as Millis
        } else {
            service
        };
        self.busy += 1;
        self.kernel
            .schedule(now + took.max(1), Ev::Served { req, attempt });
    }

    fn attempt_ended(&mut self, now: Millis, req: Key, attempt: u32, end: AttemptEnd) {
        let Some(request) = self.requests.get_mut(req) else {
            return;
        };
        if !request.waiting || request.attempt != attempt {
            return; // a late answer or a stale timeout
        }
        request.waiting = false;
        let next = self
            .policy
            .on_attempt(&mut request.call, now, end, &mut self.decisions);
        let measured = request.measured;
        match next {
            Next::RetryAfter(wait) => self.kernel.schedule(now + wait, Ev::Retry { req }),
            Next::Done => {
                if measured {
                    self.stats.succeeded += 1;
                }
                if now >= self.spec.judge_from {
                    self.stats.window_successes += 1;
                }
                self.requests.remove(req);
            }
            Next::Stop { refused } => {
                if measured && refused {
                    self.stats.refused += 1;
                }
                self.requests.remove(req);
            }
        }
    }
}
