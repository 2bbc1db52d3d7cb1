//! Clients: the people (and the bot) outside, sending requests whatever happens inside.
//!
//! Real users do not wait for the previous user's answer before arriving: arrivals are an
//! *open loop*. That is why overload is dangerous: a slow system does not slow its
//! arrivals down, it only makes them pile up. Each population here is a Poisson process
//! (exponential gaps, its own seeded stream) of one class (critical, important, sheddable),
//! calling one endpoint, with a deadline after which the user gives up. A population may
//! carry an API key (`bot`), or spread over many keys (500 people, one key each), which is
//! what the door's token buckets count.
//!
//! A client may retry: a number of attempts, a backoff with jitter (the engine's
//! [`Backoff`](crate::policy::retry::Backoff)), a retry budget (the engine's
//! [`RetryBudget`]) and whether it honours `Retry-After` after a 429 or a 503. Retries
//! never outlive the user's deadline.

use std::collections::VecDeque;

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

use super::kernel::Key;
use super::topology::{Class, ClientRetry, ClientSpec};
use crate::policy::retry::{RetryBudget, RetryBudgetConfig};
use crate::Millis;

/// One client population, with its arrival clock and its users' deadlines.
pub struct Population {
    pub name: String,
    pub class: Class,
    pub endpoint: usize,
    pub deadline_ms: Millis,
    /// Index into the report's keys (`by_key`), if the population carries a key.
    pub key_name: Option<usize>,
    /// The first of this population's door keys, and how many it spreads over.
    pub first_key: u32,
    pub keys: u32,
    pub retry: Option<ClientRetry>,
    pub budget: Option<RetryBudget>,
    base_rps: f64,
    multiplier: f64,
    /// The next arrival, in fractional ms (kept fractional so gaps do not round away).
    next_at: f64,
    arrivals: Pcg64Mcg,
    pub draws: Pcg64Mcg,
    /// Users still waiting, in deadline order (one deadline per population, arrivals in
    /// order): the kernel reads the front instead of queueing a timer per user.
    pub deadlines: VecDeque<(Millis, Key)>,
}

impl Population {
    pub fn new(
        name: &str,
        spec: &ClientSpec,
        endpoint: usize,
        key_name: Option<usize>,
        first_key: u32,
        arrivals: Pcg64Mcg,
        draws: Pcg64Mcg,
    ) -> Self {
        let budget = spec
            .retry
            .as_ref()
            .and_then(|r| r.budget_percent)
            .and_then(|p| RetryBudget::new(RetryBudgetConfig::percent_of_traffic(p)).ok());
        let mut p = Population {
            name: name.to_string(),
            class: spec.class,
            endpoint,
            deadline_ms: spec.deadline_ms,
            key_name,
            first_key,
            keys: spec.keys.max(1),
            retry: spec.retry.clone(),
            budget,
            base_rps: spec.rps,
            multiplier: 1.0,
            next_at: 0.0,
            arrivals,
            draws,
            deadlines: VecDeque::new(),
        };
        p.next_at = p.gap();
        p
    }

    fn rate(&self) -> f64 {
        self.base_rps * self.multiplier
    }

    /// An exponential gap in ms at the current rate (infinite when the rate is 0).
    fn gap(&mut self) -> f64 {
        let rate = self.rate();
        if rate <= 0.0 {
            return f64::INFINITY;
        }
        let u: f64 = self.arrivals.random_range(f64::EPSILON..1.0);
        -u.ln() * 1_000.0 / rate
    }

    /// When the next user arrives, if ever.
    pub fn next_arrival(&self) -> Option<Millis> {
        self.next_at
            .is_finite()
            .then(|| self.next_at.ceil().min(u64::MAX as f64) as Millis)
    }

    /// A user arrived: draw the next gap.
    pub fn arrived(&mut self) {
        self.next_at += self.gap();
    }

    /// Demand changes at `now`: Poisson arrivals are memoryless, so the next gap is drawn
    /// afresh at the new rate.
    pub fn set_multiplier(&mut self, now: Millis, multiplier: f64) {
        self.multiplier = multiplier;
        self.next_at = now as f64 + self.gap();
    }

    /// The door key of a new user.
    pub fn draw_key(&mut self) -> u32 {
        if self.keys <= 1 {
            self.first_key
        } else {
            self.first_key + self.draws.random_range(0..self.keys)
        }
    }

    pub fn current_rps(&self) -> f64 {
        self.rate()
    }
}

/// One user: a logical request, however many attempts it makes.
pub struct User {
    pub population: u16,
    pub class: Class,
    pub arrived: Millis,
    pub deadline: Millis,
    pub key: u32,
    /// A number for the idempotency key (stable across every attempt and retry).
    pub purchase: u64,
    /// Attempts sent so far.
    pub attempts: u32,
    /// The wait before the previous retry (decorrelated jitter reads it).
    pub previous_wait: Millis,
    /// The attempt the user is waiting for (its number), if any.
    pub waiting_for: Option<u32>,
}

/// What the user's attempt came back with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// A real answer (a purchase, a page, a decline).
    Ok,
    /// A fallback's answer ("seats held, payment pending").
    Fallback,
    /// An error answer (500, connection refused).
    Failed,
    /// 429 from the door's token bucket.
    RateLimited { retry_after: Millis },
    /// 503 from the door's load shedding, or from a full waiting room.
    Shed { retry_after: Millis },
}

/// How a user ended: exactly one per user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    InTime,
    Fallback,
    Failed,
    RateLimited,
    Shed,
    /// No answer by the deadline: the user gave up.
    Late,
}
