//! An order replica: request threads, local work, one Resilience4j stack per dependency.
//!
//! A request holds one of the replica's threads from the moment it starts until it
//! answers, whatever it waits on. That is the whole story of a cascading failure: a slow
//! dependency does not fail the calls to it, it holds the threads making them, and the
//! endpoints that never call it find no thread either. Requests that find no free thread
//! wait in the accept queue (Tomcat's connections and `acceptCount`), and past it they are
//! refused.
//!
//! Each dependency gets one stack, built from the engine's policies (never re-implemented)
//! and applied in Resilience4j's order, outermost first:
//! Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))), any layer optional,
//! the fallback on the outermost layer. The HTTP client's connect and read timeouts sit
//! inside the call: a read timeout gives the connection (and the bulkhead permit) back; a
//! TimeLimiter only stops waiting, and the permit stays held until the call really ends.
//! So each retry attempt is a separate call for the breaker, an open breaker fails the
//! remaining attempts fast, and a `RequestNotPermitted` from our own limiter is an
//! exception the breaker sees (and records, unless it is in `ignoreExceptions`).
//!
//! A replica has a life: it starts (its JVM needs `startupMs` before it answers), runs,
//! and may be killed by its liveness probe, when it is gone for `restartMs` and then starts
//! again with fresh stacks (a new JVM has a CLOSED breaker and empty bulkheads).

use std::collections::{HashMap, VecDeque};

use super::kernel::Key;
use super::probes::Probes;
use super::topology::{ReplicaSpec, StackSpec};
use crate::policy::bulkhead::{Admission, SemaphoreBulkhead, WaiterId};
use crate::policy::circuit_breaker::{CircuitBreaker, State};
use crate::policy::rate_limiter::RateLimiter;
use crate::policy::retry::{Retry, RetryBudget};
use crate::{ConfigError, Millis};

/// Where a replica is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The container runs; `up` once the app answers.
    Running,
    /// Killed: gone until it starts again.
    Restarting,
    /// Scaled in.
    Stopped,
}

/// The stack in front of one dependency.
pub struct Stack {
    pub spec: StackSpec,
    pub retry: Option<Retry>,
    pub budget: Option<RetryBudget>,
    pub breaker: Option<CircuitBreaker>,
    pub limiter: Option<RateLimiter>,
    pub bulkhead: Option<SemaphoreBulkhead>,
    /// Jobs waiting for a bulkhead permit, by waiter.
    pub waiters: HashMap<WaiterId, Key>,
    /// Breaker openings so far.
    pub opened: u32,
    last_state: State,
}

/// How the stack's entry (breaker, limiter, bulkhead) answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Go on to the call.
    Call,
    /// The limiter reserved a permission: go on after this many ms.
    LimiterWait(Millis),
    /// Waiting for a bulkhead permit.
    BulkheadWait(WaiterId),
    /// CallNotPermittedException (an open breaker).
    NotPermitted,
    /// RequestNotPermitted (our own rate limiter).
    RequestNotPermitted,
    /// BulkheadFullException.
    BulkheadFull,
}

impl Stack {
    pub fn new(spec: &StackSpec, now: Millis) -> Result<Self, ConfigError> {
        let mut breaker = spec
            .circuit_breaker
            .clone()
            .map(CircuitBreaker::new)
            .transpose()?;
        if let Some(b) = &mut breaker {
            // Events are not read here: recording them would grow without bound.
            b.set_event_recording(false);
            b.advance_to(now);
        }
        Ok(Stack {
            retry: spec.retry.clone().map(Retry::new).transpose()?,
            budget: spec
                .retry_budget
                .clone()
                .map(RetryBudget::new)
                .transpose()?,
            breaker,
            limiter: spec
                .rate_limiter
                .clone()
                .map(|c| RateLimiter::new(c, now))
                .transpose()?,
            bulkhead: spec
                .bulkhead
                .clone()
                .map(SemaphoreBulkhead::new)
                .transpose()?,
            waiters: HashMap::new(),
            opened: 0,
            last_state: State::Closed,
            spec: spec.clone(),
        })
    }

    /// The breaker and the limiter, outermost first (the TimeLimiter is armed by the
    /// caller, then [`Self::enter_bulkhead`]).
    pub fn enter(&mut self, now: Millis) -> Entry {
        if let Some(b) = &mut self.breaker {
            let permitted = b.try_acquire_permission(now);
            self.note_state();
            if !permitted {
                return Entry::NotPermitted;
            }
        }
        if let Some(l) = &mut self.limiter {
            match l.reserve_permission(now, 1) {
                None => return Entry::RequestNotPermitted,
                Some(0) => {}
                Some(nanos) => return Entry::LimiterWait(nanos.div_ceil(1_000_000)),
            }
        }
        Entry::Call
    }

    /// The bulkhead, innermost.
    pub fn enter_bulkhead(&mut self, now: Millis, job: Key) -> Entry {
        let Some(b) = &mut self.bulkhead else {
            return Entry::Call;
        };
        match b.try_acquire(now) {
            Admission::Permitted => Entry::Call,
            Admission::Rejected => Entry::BulkheadFull,
            Admission::Waiting(id) => {
                self.waiters.insert(id, job);
                Entry::BulkheadWait(id)
            }
        }
    }

    /// A call gave its permit back: the job that gets it next, if one waits.
    pub fn release(&mut self, now: Millis) -> Vec<Key> {
        let Some(b) = &mut self.bulkhead else {
            return Vec::new();
        };
        b.release(now)
            .into_iter()
            .filter_map(|id| self.waiters.remove(&id))
            .collect()
    }

    /// Waiters whose `maxWaitDuration` ran out.
    pub fn expired(&mut self, now: Millis) -> Vec<Key> {
        let Some(b) = &mut self.bulkhead else {
            return Vec::new();
        };
        b.expire_waiters(now)
            .into_iter()
            .filter_map(|id| self.waiters.remove(&id))
            .collect()
    }

    pub fn next_bulkhead_deadline(&self) -> Option<Millis> {
        self.bulkhead.as_ref().and_then(|b| b.next_deadline())
    }

    /// Reports an outcome to the breaker: `None` for a success, or the exception's name.
    pub fn record(&mut self, now: Millis, duration: Millis, exception: Option<&str>) {
        if let Some(b) = &mut self.breaker {
            match exception {
                None => b.on_success(now, duration),
                Some(name) => b.on_error(now, duration, name),
            }
            self.note_state();
        }
    }

    fn note_state(&mut self) {
        if let Some(b) = &self.breaker {
            let state = b.state();
            if state == State::Open && self.last_state != State::Open {
                self.opened += 1;
            }
            self.last_state = state;
        }
    }

    pub fn breaker_state(&mut self, now: Millis) -> Option<State> {
        let b = self.breaker.as_mut()?;
        b.advance_to(now);
        Some(b.state())
    }
}

/// One replica.
pub struct Replica {
    pub phase: Phase,
    /// Bumped at each kill: timers of an earlier container are stale.
    pub incarnation: u32,
    /// The app answers (its start-up time has passed).
    pub up: bool,
    pub ready: bool,
    pub threads: u32,
    pub busy: u32,
    pub accept: VecDeque<Key>,
    pub accept_capacity: usize,
    /// Requests on this replica (threads and accept queue).
    pub outstanding: u32,
    pub stacks: Vec<Option<Stack>>,
    /// Threads now waiting on each dependency's call.
    pub on_dependency: Vec<u32>,
    pub probes: Probes,
    pub restarts: u32,
    pub peak_busy: u32,
    pub peak_on_dependency: Vec<u32>,
    pub ever_ready: bool,
}

impl Replica {
    pub fn new(
        spec: &ReplicaSpec,
        stacks: &[Option<StackSpec>],
        now: Millis,
        running: bool,
    ) -> Result<Self, ConfigError> {
        let probes = Probes::new([
            spec.probes.startup.clone(),
            spec.probes.liveness.clone(),
            spec.probes.readiness.clone(),
        ]);
        let mut r = Replica {
            phase: Phase::Running,
            incarnation: 0,
            up: running,
            ready: running,
            threads: spec.threads,
            busy: 0,
            accept: VecDeque::new(),
            accept_capacity: spec.accept_queue as usize,
            outstanding: 0,
            stacks: Vec::new(),
            on_dependency: vec![0; stacks.len()],
            probes,
            restarts: 0,
            peak_busy: 0,
            peak_on_dependency: vec![0; stacks.len()],
            ever_ready: running,
        };
        if running {
            r.probes.started = true;
        }
        r.rebuild_stacks(stacks, now)?;
        Ok(r)
    }

    /// A new JVM: fresh policies.
    pub fn rebuild_stacks(
        &mut self,
        stacks: &[Option<StackSpec>],
        now: Millis,
    ) -> Result<(), ConfigError> {
        self.stacks = stacks
            .iter()
            .map(|s| s.as_ref().map(|s| Stack::new(s, now)).transpose())
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    pub fn free_thread(&self) -> bool {
        self.phase == Phase::Running && self.up && self.busy < self.threads
    }

    /// The state's name for the report.
    pub fn state_name(&self) -> &'static str {
        match self.phase {
            Phase::Restarting => "restarting",
            Phase::Stopped => "stopped",
            Phase::Running if !self.up || !self.probes.started => "starting",
            Phase::Running if self.ready => "ready",
            Phase::Running => "not_ready",
        }
    }
}
