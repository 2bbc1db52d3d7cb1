//! # The tick model: one slow dependency and a shared thread pool
//!
//! `order-api` renders a page that needs two downstream services. `payment` must work and
//! has no fallback; `recommendations` is nice to have and falls back to a cached list. Every
//! downstream call holds one of the API's worker threads from the moment it is sent until
//! its answer arrives or it times out. Each tick, two calls to recommendations and then one
//! to payment arrive.
//!
//! The lesson the model exists to teach: a *slow* dependency is worse than a *down* one. A
//! down service answers fast and frees the thread; a slow one holds the thread for the whole
//! timeout, so a nice-to-have service starves a must-have one of threads (a cascading
//! failure). A bulkhead caps how many threads the slow service may hold; a circuit breaker
//! stops sending it calls once enough of them failed.
//!
//! Time is passed in by the caller one tick at a time ([`TickModel::step`]); a tick is one
//! second of virtual time for the policies, so `waitDurationInOpenState = "3s"` is three
//! ticks. Within tick `t` the order is exactly that of ../shared/spec/01-tick-model.md:
//! 1. calls due at `t` complete (answer or timeout), are recorded by the breaker, and free
//!    their thread and bulkhead permit;
//! 2. an OPEN breaker whose wait has elapsed becomes HALF_OPEN (the breaker's automatic
//!    transition, a timer at exactly the wait);
//! 3. the tick's arrivals are admitted in order, each asking the breaker, then the
//!    bulkhead, then the pool. The breaker wraps the bulkhead (Resilience4j's default
//!    order), so a BulkheadFullException and a call that found no thread are failures the
//!    breaker records; a CallNotPermittedException takes no thread and is not recorded.

use std::collections::VecDeque;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

pub use crate::run_facts::TransitionReason;
use crate::run_facts::{BreakerWatch, RunFacts};
use crate::window_log::WindowLog;
pub use crate::window_log::{TrialVerdict, WindowEntry};
use resilience_policy::error::{check_range, ConfigError};
use resilience_policy::outcome::Outcome;
use resilience_policy::policy::bulkhead::{Admission, BulkheadConfig, SemaphoreBulkhead};
use resilience_policy::policy::circuit_breaker::{
    CircuitBreaker, CircuitBreakerConfig, CircuitBreakerEvent, Classification, SlidingWindowType,
    State,
};
use resilience_policy::Millis;

/// The longest run of the tick model, so a typo cannot ask for a billion ticks.
pub const MAX_TICKS: u32 = 100_000;

/// One tick is one second of virtual time for the policies.
pub const TICK_MS: Millis = 1_000;

/// The two downstream services of `order-api`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dependency {
    Recommendations,
    Payment,
}

impl Dependency {
    pub fn name(self) -> &'static str {
        match self {
            Dependency::Recommendations => "recommendations",
            Dependency::Payment => "payment",
        }
    }
}

/// How `recommendations` behaves (the "dependency behaviour" select).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Behaviour {
    /// Answers within the tick it was sent; holds no thread into the next tick.
    Healthy,
    /// Never answers in time: holds its thread until the timeout, then fails.
    Slow,
    /// Answers with an error (HTTP 500) one tick after it was sent.
    Failing,
    /// Failing for calls sent before `healthy_from`, healthy from that tick on.
    Recovering { healthy_from: u32 },
    /// Intermittent errors: each call fails like `Failing` with probability
    /// `failure_percent` %, else answers like `Healthy`. The draw is the run's seed and the
    /// call's number, so a replay (a step back, a link) sees the same calls fail.
    Flaky { failure_percent: u32 },
}

/// The share of failing calls a flaky service starts with when the learner picks it.
pub const FLAKY_DEFAULT_PERCENT: u32 = 30;

impl Behaviour {
    /// What a recommendations call sent at tick `sent` does: (ticks until it ends, outcome).
    /// `call` and `seed` decide a flaky call's luck.
    fn call_plan(self, sent: u32, timeout_ticks: u32, call: u64, seed: u64) -> (u32, Outcome) {
        match self {
            Behaviour::Healthy => (0, Outcome::Success),
            Behaviour::Slow => (timeout_ticks, Outcome::ReadTimeout),
            Behaviour::Failing => (1, Outcome::Http5xx),
            Behaviour::Recovering { healthy_from } if sent >= healthy_from => (0, Outcome::Success),
            Behaviour::Recovering { .. } => (1, Outcome::Http5xx),
            Behaviour::Flaky { failure_percent }
                if flaky_call_fails(seed, call, failure_percent) =>
            {
                (1, Outcome::Http5xx)
            }
            Behaviour::Flaky { .. } => (0, Outcome::Success),
        }
    }

    /// A behaviour a scenario may hold: a flaky share is a percentage.
    pub fn validate(self) -> Result<(), ConfigError> {
        match self {
            Behaviour::Flaky { failure_percent } => {
                check_range("failurePercent", failure_percent.into(), 0, 100)
            }
            _ => Ok(()),
        }
    }

    /// The behaviour's kind, without the number a recovery or a flaky service carries:
    /// `healthy`, `slow`, `failing`, `recovering` or `flaky` (the select's values).
    pub const fn kind_name(self) -> &'static str {
        match self {
            Behaviour::Healthy => "healthy",
            Behaviour::Slow => "slow",
            Behaviour::Failing => "failing",
            Behaviour::Recovering { .. } => "recovering",
            Behaviour::Flaky { .. } => "flaky",
        }
    }

    /// The behaviour as a link writes it: the kind, and for a recovery the tick it is
    /// healthy from (`recovering-6`), for a flaky service the percentage of calls that fail
    /// (`flaky-30`). A scenario file spells those as serde does
    /// (`{ recovering = { healthyFrom = 6 } }`); the other names are serde's too.
    pub fn name(self) -> String {
        match self {
            Behaviour::Recovering { healthy_from } => format!("recovering-{healthy_from}"),
            Behaviour::Flaky { failure_percent } => format!("flaky-{failure_percent}"),
            other => other.kind_name().to_string(),
        }
    }

    /// The behaviour [`Self::name`] wrote, or `None`. The number is written in plain digits
    /// (no sign, no leading zero); a recovery's tick is at most [`MAX_TICKS`], the longest
    /// run, and a flaky percentage at most 100.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "healthy" => Some(Behaviour::Healthy),
            "slow" => Some(Behaviour::Slow),
            "failing" => Some(Behaviour::Failing),
            _ => {
                let (kind, digits) = name.split_once('-')?;
                let canonical = digits.bytes().all(|b| b.is_ascii_digit())
                    && !(digits.len() > 1 && digits.starts_with('0'));
                let n: u32 = digits.parse().ok().filter(|_| canonical)?;
                match kind {
                    "recovering" if n <= MAX_TICKS => {
                        Some(Behaviour::Recovering { healthy_from: n })
                    }
                    "flaky" if n <= 100 => Some(Behaviour::Flaky { failure_percent: n }),
                    _ => None,
                }
            }
        }
    }

    pub fn describe(self) -> String {
        match self {
            Behaviour::Healthy => "healthy".into(),
            Behaviour::Slow => "slow".into(),
            Behaviour::Failing => "failing".into(),
            Behaviour::Recovering { healthy_from } => {
                format!("recovering (healthy from t = {healthy_from})")
            }
            Behaviour::Flaky { failure_percent } => {
                format!("flaky ({failure_percent} % of calls fail at random)")
            }
        }
    }
}

/// Whether call number `call` of a flaky service fails, for a share of `failure_percent` %.
/// A draw of its own per call (a generator seeded from the run's seed and the call's
/// number), so the answer depends on nothing else: not on the protection (calls are
/// numbered in arrival order, refused or not), nor on the ticks replayed before.
fn flaky_call_fails(seed: u64, call: u64, failure_percent: u32) -> bool {
    // An odd multiplier is a bijection, so different calls of one seed get different seeds.
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ call.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    rng.random_range(0..100u32) < failure_percent
}

/// Which protections guard `recommendations` (the "protection" select).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protection {
    None,
    CircuitBreaker,
    Bulkhead,
    BreakerAndBulkhead,
}

impl Protection {
    pub const ALL: [Protection; 4] = [
        Protection::None,
        Protection::CircuitBreaker,
        Protection::Bulkhead,
        Protection::BreakerAndBulkhead,
    ];

    /// The protection's name in links and in scenario files (serde's spelling).
    pub const fn name(self) -> &'static str {
        match self {
            Protection::None => "none",
            Protection::CircuitBreaker => "circuit_breaker",
            Protection::Bulkhead => "bulkhead",
            Protection::BreakerAndBulkhead => "breaker_and_bulkhead",
        }
    }

    /// The protection named `name` exactly (as [`Self::name`] writes it), or `None`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn has_breaker(self) -> bool {
        matches!(
            self,
            Protection::CircuitBreaker | Protection::BreakerAndBulkhead
        )
    }

    pub fn has_bulkhead(self) -> bool {
        matches!(self, Protection::Bulkhead | Protection::BreakerAndBulkhead)
    }

    pub fn describe(self) -> &'static str {
        match self {
            Protection::None => "no protection",
            Protection::CircuitBreaker => "circuit breaker",
            Protection::Bulkhead => "bulkhead",
            Protection::BreakerAndBulkhead => "breaker + bulkhead",
        }
    }
}

/// The world's shape: pool size, arrivals per tick, timeout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct TickWorld {
    /// Worker threads of `order-api`.
    pub threads: u32,
    /// Calls to recommendations arriving each tick (before payment's).
    pub recommendations_per_tick: u32,
    /// Calls to payment arriving each tick.
    pub payment_per_tick: u32,
    /// Ticks after which a call that has not answered times out.
    pub timeout_ticks: u32,
}

impl Default for TickWorld {
    fn default() -> Self {
        Self {
            threads: 6,
            recommendations_per_tick: 2,
            payment_per_tick: 1,
            timeout_ticks: 3,
        }
    }
}

/// Upper bounds that keep a hand-edited scenario from asking for absurd work.
pub const MAX_THREADS: u32 = 64;
pub const MAX_ARRIVALS_PER_TICK: u32 = 32;
pub const MAX_TIMEOUT_TICKS: u32 = 20;

impl TickWorld {
    pub fn validate(&self) -> Result<(), ConfigError> {
        let in_range = |field: &str, value: u32, min: u32, max: u32| {
            check_range(field, value.into(), min.into(), max.into())
        };
        in_range("threads", self.threads, 1, MAX_THREADS)?;
        in_range(
            "recommendationsPerTick",
            self.recommendations_per_tick,
            0,
            MAX_ARRIVALS_PER_TICK,
        )?;
        in_range(
            "paymentPerTick",
            self.payment_per_tick,
            0,
            MAX_ARRIVALS_PER_TICK,
        )?;
        in_range("timeoutTicks", self.timeout_ticks, 1, MAX_TIMEOUT_TICKS)
    }
}

/// Everything a tick model run is made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TickConfig {
    #[serde(default)]
    pub world: TickWorld,
    pub behaviour: Behaviour,
    pub protection: Protection,
    /// The breaker guarding recommendations (used when the protection includes it).
    #[serde(default = "tick_breaker_config")]
    pub circuit_breaker: CircuitBreakerConfig,
    /// The semaphore bulkhead each dependency gets (used when the protection includes it).
    #[serde(default = "tick_bulkhead_config")]
    pub bulkhead: BulkheadConfig,
}

/// The breaker of the spec's table, scaled to ticks (one tick = one second).
pub fn tick_breaker_config() -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::CountBased,
        sliding_window_size: 4,
        minimum_number_of_calls: 4,
        failure_rate_threshold: 50.0,
        wait_duration_in_open_state: 3 * TICK_MS,
        permitted_number_of_calls_in_half_open_state: 2,
        // Step 2 of a tick is a timer at exactly the wait: Resilience4j's automatic transition.
        automatic_transition_from_open_to_half_open_enabled: true,
        ..CircuitBreakerConfig::default()
    }
}

/// The bulkhead of the spec: 3 concurrent calls, no waiting.
pub fn tick_bulkhead_config() -> BulkheadConfig {
    BulkheadConfig {
        max_concurrent_calls: 3,
        max_wait_duration: 0,
    }
}

impl TickConfig {
    pub fn new(behaviour: Behaviour, protection: Protection) -> Self {
        Self {
            world: TickWorld::default(),
            behaviour,
            protection,
            circuit_breaker: tick_breaker_config(),
            bulkhead: tick_bulkhead_config(),
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        self.world.validate()?;
        self.behaviour.validate()?;
        self.circuit_breaker.validate()?;
        self.bulkhead.validate()?;
        if self.bulkhead.max_wait_duration != 0 {
            // A waiting call would block a worker thread mid-tick; the model has no such state.
            return Err(ConfigError::new(
                "maxWaitDuration",
                "must be 0 in the tick model (a call over the cap is rejected at once)",
            ));
        }
        Ok(())
    }
}

/// Why a call was refused before it reached the dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// CallNotPermittedException: the breaker is OPEN (or HALF_OPEN with no trial left).
    CallNotPermitted,
    /// BulkheadFullException: the dependency already holds all its permits.
    BulkheadFull,
    /// No worker thread was free.
    NoFreeThread,
}

impl Refusal {
    pub fn outcome(self) -> Outcome {
        match self {
            Refusal::CallNotPermitted => Outcome::CallNotPermitted,
            Refusal::BulkheadFull => Outcome::BulkheadFull,
            Refusal::NoFreeThread => Outcome::NoFreeThread,
        }
    }
}

/// What happened during a tick, in order. The narration turns these into words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TickEvent {
    /// A call's answer or timeout arrived and its thread was freed.
    Completed {
        call: u64,
        dependency: Dependency,
        thread: u32,
        sent_at: u32,
        outcome: Outcome,
    },
    /// A call was sent on a worker thread; `due_at` is when it answers or times out.
    Sent {
        call: u64,
        dependency: Dependency,
        thread: u32,
        due_at: u32,
    },
    /// A healthy call that took a thread and answered within the tick.
    AnsweredAtOnce {
        call: u64,
        dependency: Dependency,
        thread: u32,
    },
    /// A call refused before it reached the dependency.
    Refused {
        call: u64,
        dependency: Dependency,
        reason: Refusal,
    },
    /// The breaker recorded an outcome of a recommendations call: a failure or not, and
    /// how the call ended (so a view can say why a failure is one).
    BreakerRecorded {
        call: u64,
        failure: bool,
        outcome: Outcome,
    },
    /// The breaker ignored the outcome of a recommendations call (its exception is in
    /// `ignoreExceptions`): not recorded at all.
    BreakerIgnored { call: u64, outcome: Outcome },
    /// The breaker changed state.
    BreakerTransition { from: State, to: State },
    /// With no call between, the breaker went OPEN -> HALF_OPEN -> OPEN `cycles` times
    /// more than the transitions reported beside this event (its waits are shorter than a
    /// tick): counted, not listed.
    BreakerCycled { cycles: u64 },
    /// Recommendations failed and the page showed the cached list instead.
    FallbackServed { call: u64 },
    /// A payment failed: the order could not be placed (no fallback).
    PaymentFailed { call: u64 },
    /// A scripted change or a learner's select took effect at this tick.
    SettingChanged {
        #[serde(rename = "what", serialize_with = "serialize_change")]
        change: SettingChange,
    },
}

/// A change of one of the tick model's selects. Typed rather than written out, so a tick's
/// events hold no memory to free (in JSON it is the sentence, as the narration says it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingChange {
    Behaviour(Behaviour),
    Protection(Protection),
}

impl SettingChange {
    /// The change in words: "protection is now ...".
    pub fn describe(self) -> String {
        match self {
            SettingChange::Behaviour(b) => format!("recommendations is now {}", b.describe()),
            SettingChange::Protection(p) => format!("protection is now {}", p.describe()),
        }
    }
}

fn serialize_change<S: serde::Serializer>(
    change: &SettingChange,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&change.describe())
}

/// A worker thread held by a call in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HeldThread {
    pub call: u64,
    pub dependency: Dependency,
    pub sent_at: u32,
    /// The tick at which the answer or timeout arrives.
    pub due_at: u32,
    outcome: Outcome,
    /// Whether the breaker gave this call a permission (so it records the outcome).
    guarded_by_breaker: bool,
    /// Whether this call holds a bulkhead permit to give back.
    holds_bulkhead_permit: bool,
}

impl HeldThread {
    /// How the call ends when it is due: an answer ([`Outcome::Success`]), an error
    /// ([`Outcome::Http5xx`]) or a timeout ([`Outcome::ReadTimeout`]). Decided when the call
    /// was sent, so a view says it rather than guessing it from the times.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }
}

/// Running totals since t = 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub payment_failures: u32,
    pub payment_successes: u32,
    pub fallbacks_served: u32,
    pub recommendations_answered: u32,
    pub refused_by_breaker: u32,
    pub refused_by_bulkhead: u32,
    pub refused_no_thread: u32,
}

/// A breaker state change, the tick it happened in, and why.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Transition {
    pub tick: u32,
    pub from: State,
    pub to: State,
    pub reason: TransitionReason,
}

/// How many breaker state changes the model remembers for the page's timeline.
pub const TRANSITIONS_KEPT: usize = 64;

/// The tick model: a pure state machine advanced one tick at a time.
#[derive(Debug, Clone)]
pub struct TickModel {
    config: TickConfig,
    /// The run's seed: what a flaky service's draws are made from.
    seed: u64,
    tick: u32,
    next_call: u64,
    threads: Vec<Option<HeldThread>>,
    breaker: CircuitBreaker,
    recommendations_bulkhead: SemaphoreBulkhead,
    payment_bulkhead: SemaphoreBulkhead,
    tally: Tally,
    /// The latest breaker state changes, oldest first, at most [`TRANSITIONS_KEPT`].
    transitions: VecDeque<Transition>,
    last_events: Vec<TickEvent>,
    /// Select changes made since the last tick, reported with the next one (once).
    pending_changes: Vec<TickEvent>,
    /// Why the breaker changes state, read from its events.
    watch: BreakerWatch,
    /// The outcomes in the breaker's window with how their calls ended.
    window_log: WindowLog,
    /// The facts of the run so far ([`TickModel::summary`]).
    facts: RunFacts,
    /// The breaker's events being read (empty between reads): kept to reuse its memory.
    breaker_events: Vec<CircuitBreakerEvent>,
}

impl TickModel {
    pub fn new(config: TickConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let breaker = CircuitBreaker::new(config.circuit_breaker.clone())?;
        let recommendations_bulkhead = SemaphoreBulkhead::new(config.bulkhead.clone())?;
        let payment_bulkhead = SemaphoreBulkhead::new(config.bulkhead.clone())?;
        Ok(Self {
            threads: vec![None; config.world.threads as usize],
            transitions: VecDeque::new(),
            config,
            seed: 0,
            tick: 0,
            next_call: 1,
            breaker,
            recommendations_bulkhead,
            payment_bulkhead,
            tally: Tally::default(),
            last_events: Vec::new(),
            pending_changes: Vec::new(),
            watch: BreakerWatch::default(),
            window_log: WindowLog::default(),
            facts: RunFacts::default(),
            breaker_events: Vec::new(),
        })
    }

    /// The same model with the run's seed (0 unless given): a scenario's `seed`.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// What the model noted so far, for [`crate::summary`].
    pub(crate) fn facts(&self) -> &RunFacts {
        &self.facts
    }

    pub fn config(&self) -> &TickConfig {
        &self.config
    }

    /// The last tick played (0 before the first).
    pub fn tick(&self) -> u32 {
        self.tick
    }

    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// The worker threads, each free (`None`) or held by a call in flight.
    pub fn threads(&self) -> &[Option<HeldThread>] {
        &self.threads
    }

    /// Threads held by `dependency` right now.
    pub fn threads_held_by(&self, dependency: Dependency) -> u32 {
        self.threads
            .iter()
            .flatten()
            .filter(|h| h.dependency == dependency)
            .count() as u32
    }

    /// The breaker guarding recommendations; `None` when the protection has none.
    pub fn breaker(&self) -> Option<&CircuitBreaker> {
        self.config
            .protection
            .has_breaker()
            .then_some(&self.breaker)
    }

    /// Bulkhead permits in use by `dependency`; `None` without a bulkhead.
    pub fn bulkhead_in_use(&self, dependency: Dependency) -> Option<u32> {
        self.config
            .protection
            .has_bulkhead()
            .then(|| match dependency {
                Dependency::Recommendations => self.recommendations_bulkhead.in_use(),
                Dependency::Payment => self.payment_bulkhead.in_use(),
            })
    }

    /// The latest breaker state changes, oldest first (a bounded history, so a run of a
    /// million ticks uses the memory of a run of ten).
    pub fn transitions(&self) -> impl Iterator<Item = &Transition> {
        self.transitions.iter()
    }

    /// The outcomes in the breaker's window, oldest first, each with how its call ended:
    /// why a failure is a failure (a timeout, an error, a BulkheadFullException, no free
    /// thread). Empty without a breaker.
    pub fn window_entries(&self) -> Vec<WindowEntry> {
        match self.breaker() {
            Some(breaker) => self.window_log.entries(breaker),
            None => Vec::new(),
        }
    }

    /// The HALF_OPEN windows that decided during the last tick, in order: the trial
    /// outcomes and the state they sent the breaker to (Demo 2's trials, gone from the
    /// window once the breaker closes).
    pub fn trial_verdicts(&self) -> &[TrialVerdict] {
        self.window_log.verdicts()
    }

    /// What happened during the last tick, in order.
    pub fn last_events(&self) -> &[TickEvent] {
        &self.last_events
    }

    /// The virtual time of tick `t` for the policies.
    pub fn now(t: u32) -> Millis {
        Millis::from(t) * TICK_MS
    }

    /// Changes the behaviour of recommendations from the next tick on.
    pub fn set_behaviour(&mut self, behaviour: Behaviour) {
        if self.config.behaviour != behaviour {
            self.config.behaviour = behaviour;
            self.pending_changes.push(TickEvent::SettingChanged {
                change: SettingChange::Behaviour(behaviour),
            });
        }
    }

    /// Changes the protection from the next tick on. Calls in flight keep the permits they
    /// hold and give them back when they end; a policy switched off stops guarding new calls.
    pub fn set_protection(&mut self, protection: Protection) {
        if self.config.protection != protection {
            self.config.protection = protection;
            self.pending_changes.push(TickEvent::SettingChanged {
                change: SettingChange::Protection(protection),
            });
        }
    }

    /// Plays one tick and returns its events.
    pub fn step(&mut self) -> &[TickEvent] {
        self.tick += 1;
        let t = self.tick;
        let now = Self::now(t);
        // Setting changes made since the last tick are reported with this tick, and only
        // with it: they leave the queue here.
        self.last_events.clear();
        self.last_events.append(&mut self.pending_changes);
        self.window_log.start_tick();

        // Timers between two ticks: an idle breaker with waits of a few ms cycles OPEN ->
        // HALF_OPEN -> OPEN hundreds of times a tick; whole cycles are counted, not fired.
        let cycles = self.breaker.advance_to_skipping_idle_cycles(now - 1);
        self.collect_breaker_transitions();
        if cycles > 0 {
            let transitions = u32::try_from(cycles.saturating_mul(2)).unwrap_or(u32::MAX);
            self.facts.transition_count = self.facts.transition_count.saturating_add(transitions);
            self.last_events.push(TickEvent::BreakerCycled { cycles });
        }
        self.complete_due_calls(t, now);
        // Step 2: the automatic OPEN -> HALF_OPEN timer.
        self.breaker.advance_to(now);
        self.collect_breaker_transitions();

        for _ in 0..self.config.world.recommendations_per_tick {
            self.admit(Dependency::Recommendations, t, now);
        }
        for _ in 0..self.config.world.payment_per_tick {
            self.admit(Dependency::Payment, t, now);
        }
        let protection = self.config.protection;
        self.facts.end_tick(
            t,
            (protection.has_breaker(), protection.has_bulkhead()),
            self.tally.payment_failures,
            self.threads_held_by(Dependency::Recommendations),
        );
        &self.last_events
    }

    fn complete_due_calls(&mut self, t: u32, now: Millis) {
        for index in 0..self.threads.len() {
            let Some(held) = self.threads[index] else {
                continue;
            };
            if held.due_at > t {
                continue;
            }
            self.threads[index] = None;
            self.last_events.push(TickEvent::Completed {
                call: held.call,
                dependency: held.dependency,
                thread: index as u32 + 1,
                sent_at: held.sent_at,
                outcome: held.outcome,
            });
            if held.dependency == Dependency::Recommendations && !held.outcome.is_success() {
                self.facts.service_failures += 1;
            }
            if held.holds_bulkhead_permit {
                self.bulkhead_mut(held.dependency).release(now);
            }
            let duration = Millis::from(t - held.sent_at) * TICK_MS;
            self.settle(
                held.call,
                held.dependency,
                held.outcome,
                held.guarded_by_breaker,
                now,
                duration,
            );
        }
    }

    /// Records a finished call: breaker, fallback, tallies.
    fn settle(
        &mut self,
        call: u64,
        dependency: Dependency,
        outcome: Outcome,
        guarded_by_breaker: bool,
        now: Millis,
        duration: Millis,
    ) {
        if guarded_by_breaker {
            match outcome.exception_name() {
                None => self.breaker.on_success(now, duration),
                Some(exception) => self.breaker.on_error(now, duration, exception),
            }
            // As the breaker classified it (recordExceptions, ignoreExceptions), not as the
            // call ended: the narration must agree with the window.
            let event = match outcome.exception_name().map(|e| self.breaker.classify(e)) {
                Some(Classification::Ignored) => TickEvent::BreakerIgnored { call, outcome },
                Some(classification) => TickEvent::BreakerRecorded {
                    call,
                    failure: classification == Classification::Failure,
                    outcome,
                },
                None => TickEvent::BreakerRecorded {
                    call,
                    failure: false,
                    outcome,
                },
            };
            self.last_events.push(event);
            self.collect_breaker_events(Some(outcome));
        }
        match (dependency, outcome.is_success()) {
            (Dependency::Recommendations, true) => self.tally.recommendations_answered += 1,
            (Dependency::Recommendations, false) => {
                self.tally.fallbacks_served += 1;
                self.last_events.push(TickEvent::FallbackServed { call });
            }
            (Dependency::Payment, true) => self.tally.payment_successes += 1,
            (Dependency::Payment, false) => {
                self.tally.payment_failures += 1;
                self.last_events.push(TickEvent::PaymentFailed { call });
            }
        }
    }

    fn admit(&mut self, dependency: Dependency, t: u32, now: Millis) {
        let call = self.next_call;
        self.next_call += 1;
        let protection = self.config.protection;
        let guarded_by_breaker =
            dependency == Dependency::Recommendations && protection.has_breaker();

        if guarded_by_breaker {
            let permitted = self.breaker.try_acquire_permission(now);
            self.collect_breaker_transitions();
            if !permitted {
                // The breaker refused it itself, so it records nothing.
                self.refuse(call, dependency, Refusal::CallNotPermitted, false, now);
                return;
            }
        }
        let mut holds_bulkhead_permit = false;
        if protection.has_bulkhead() {
            match self.bulkhead_mut(dependency).try_acquire(now) {
                Admission::Permitted => holds_bulkhead_permit = true,
                // maxWaitDuration is 0 in this model (validated), so nobody waits.
                Admission::Waiting(_) | Admission::Rejected => {
                    self.refuse(
                        call,
                        dependency,
                        Refusal::BulkheadFull,
                        guarded_by_breaker,
                        now,
                    );
                    return;
                }
            }
        }
        let Some(index) = self.threads.iter().position(Option::is_none) else {
            if holds_bulkhead_permit {
                self.bulkhead_mut(dependency).release(now);
            }
            self.refuse(
                call,
                dependency,
                Refusal::NoFreeThread,
                guarded_by_breaker,
                now,
            );
            return;
        };
        let thread = index as u32 + 1;
        let (ticks, outcome) = match dependency {
            Dependency::Recommendations => {
                self.config
                    .behaviour
                    .call_plan(t, self.config.world.timeout_ticks, call, self.seed)
            }
            // Payment is healthy in every demo: it answers one tick after it was sent.
            Dependency::Payment => (1, Outcome::Success),
        };
        if ticks == 0 {
            // Answers within the tick: the thread is used and freed at once.
            if holds_bulkhead_permit {
                self.bulkhead_mut(dependency).release(now);
            }
            self.last_events.push(TickEvent::AnsweredAtOnce {
                call,
                dependency,
                thread,
            });
            self.settle(call, dependency, outcome, guarded_by_breaker, now, 0);
            return;
        }
        self.threads[index] = Some(HeldThread {
            call,
            dependency,
            sent_at: t,
            due_at: t + ticks,
            outcome,
            guarded_by_breaker,
            holds_bulkhead_permit,
        });
        self.last_events.push(TickEvent::Sent {
            call,
            dependency,
            thread,
            due_at: t + ticks,
        });
    }

    /// A call refused before it reached the dependency: counted, reported, then settled
    /// like any failed call (fallback or failed payment; recorded by the breaker when the
    /// refusal happened inside it).
    fn refuse(
        &mut self,
        call: u64,
        dependency: Dependency,
        reason: Refusal,
        recorded_by_breaker: bool,
        now: Millis,
    ) {
        match reason {
            Refusal::CallNotPermitted => self.tally.refused_by_breaker += 1,
            Refusal::BulkheadFull => self.tally.refused_by_bulkhead += 1,
            Refusal::NoFreeThread => self.tally.refused_no_thread += 1,
        }
        if (dependency, reason) == (Dependency::Payment, Refusal::NoFreeThread) {
            self.facts.payments_without_thread += 1;
        }
        self.last_events.push(TickEvent::Refused {
            call,
            dependency,
            reason,
        });
        self.settle(
            call,
            dependency,
            reason.outcome(),
            recorded_by_breaker,
            now,
            0,
        );
    }

    fn bulkhead_mut(&mut self, dependency: Dependency) -> &mut SemaphoreBulkhead {
        match dependency {
            Dependency::Recommendations => &mut self.recommendations_bulkhead,
            Dependency::Payment => &mut self.payment_bulkhead,
        }
    }

    fn collect_breaker_transitions(&mut self) {
        self.collect_breaker_events(None);
    }

    /// Reads the breaker's events in order; `recorded` is the outcome of the call just
    /// reported to it, if any.
    fn collect_breaker_events(&mut self, recorded: Option<Outcome>) {
        if self.breaker.pending_events().is_empty() {
            // Most permissions in CLOSED: nothing happened.
            return;
        }
        self.breaker.drain_events_into(&mut self.breaker_events);
        for event in &self.breaker_events {
            self.window_log.observe(event, recorded, &self.breaker);
            let seen = self
                .watch
                .observe(event, self.tick, &self.config.circuit_breaker);
            if let Some((from, to, reason)) = seen {
                self.last_events
                    .push(TickEvent::BreakerTransition { from, to });
                if self.transitions.len() == TRANSITIONS_KEPT {
                    self.transitions.pop_front();
                }
                self.transitions.push_back(Transition {
                    tick: self.tick,
                    from,
                    to,
                    reason,
                });
                self.facts.transition_count += 1;
            }
        }
        self.breaker_events.clear();
    }
}

impl TickEvent {
    /// The event in plain words, for the page's narration and the CLI's trace.
    pub fn narrate(&self) -> String {
        match self {
            TickEvent::Completed { dependency, thread, sent_at, outcome, .. } => match outcome {
                Outcome::ReadTimeout => format!(
                    "The {} call sent at t = {sent_at} timed out; thread {thread} is free again.",
                    dependency.name()
                ),
                o if o.is_success() => format!(
                    "The {} call sent at t = {sent_at} answered; thread {thread} is free again.",
                    dependency.name()
                ),
                o => format!(
                    "The {} call sent at t = {sent_at} failed ({}); thread {thread} is free again.",
                    dependency.name(),
                    o.describe()
                ),
            },
            TickEvent::Sent { dependency, thread, due_at, .. } => format!(
                "A {} call took thread {thread}; it ends at t = {due_at}.",
                dependency.name()
            ),
            TickEvent::AnsweredAtOnce { dependency, thread, .. } => format!(
                "A {} call took thread {thread} and answered within the tick.",
                dependency.name()
            ),
            TickEvent::Refused { dependency, reason, .. } => match reason {
                Refusal::CallNotPermitted => format!(
                    "A {} call was refused by the breaker (CallNotPermittedException): no thread, no wait.",
                    dependency.name()
                ),
                Refusal::BulkheadFull => format!(
                    "A {} call was refused by the bulkhead (BulkheadFullException): it holds all its permits.",
                    dependency.name()
                ),
                Refusal::NoFreeThread => format!(
                    "A {} call found no free worker thread and failed at once.",
                    dependency.name()
                ),
            },
            TickEvent::BreakerRecorded { failure: true, .. } => {
                "The breaker recorded a failure.".to_string()
            }
            TickEvent::BreakerRecorded {
                failure: false,
                outcome,
                ..
            } => match outcome.exception_name() {
                Some(e) => format!(
                    "The breaker recorded a success: {e} is not in its recordExceptions."
                ),
                None => "The breaker recorded a success.".to_string(),
            },
            TickEvent::BreakerIgnored { outcome, .. } => format!(
                "The breaker ignored it: {} is in its ignoreExceptions.",
                outcome.exception_name().unwrap_or("the exception")
            ),
            TickEvent::BreakerTransition { from, to } => {
                format!("The breaker moved from {} to {}.", from.as_str(), to.as_str())
            }
            TickEvent::BreakerCycled { cycles } => format!(
                "With no call to try, the breaker also went OPEN → HALF_OPEN → OPEN {cycles} more {} since the last tick: its waits are shorter than a tick.",
                if *cycles == 1 { "time" } else { "times" }
            ),
            TickEvent::FallbackServed { .. } => {
                "The page showed the cached recommendations instead.".to_string()
            }
            TickEvent::PaymentFailed { .. } => {
                "The payment failed: this order could not be placed.".to_string()
            }
            TickEvent::SettingChanged { change } => format!("Change: {}.", change.describe()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A setting change is typed in the model, but its JSON (the CLI's trace) is the
    /// sentence the narration says, as it was when the event held the sentence itself.
    #[test]
    fn a_setting_change_is_written_as_its_sentence() {
        let mut model = TickModel::new(TickConfig::new(Behaviour::Slow, Protection::None)).unwrap();
        model.set_protection(Protection::Bulkhead);
        model.set_behaviour(Behaviour::Failing);
        let events = model.step().to_vec();
        let json: Vec<String> = events
            .iter()
            .filter(|e| matches!(e, TickEvent::SettingChanged { .. }))
            .map(|e| serde_json::to_string(e).unwrap())
            .collect();
        assert_eq!(
            json,
            [
                r#"{"kind":"setting_changed","what":"protection is now bulkhead"}"#,
                r#"{"kind":"setting_changed","what":"recommendations is now failing"}"#,
            ]
        );
        assert_eq!(events[0].narrate(), "Change: protection is now bulkhead.");
    }

    #[test]
    fn protection_names_round_trip_and_are_serdes() {
        for p in Protection::ALL {
            assert_eq!(Protection::from_name(p.name()), Some(p));
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                format!("\"{}\"", p.name())
            );
        }
        for unknown in ["", "None", "breaker", "circuit-breaker", "bulkhead "] {
            assert_eq!(Protection::from_name(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn behaviour_names_round_trip() {
        let all = [
            Behaviour::Healthy,
            Behaviour::Slow,
            Behaviour::Failing,
            Behaviour::Recovering { healthy_from: 0 },
            Behaviour::Recovering { healthy_from: 6 },
            Behaviour::Recovering {
                healthy_from: MAX_TICKS,
            },
            Behaviour::Flaky { failure_percent: 0 },
            Behaviour::Flaky {
                failure_percent: 100,
            },
        ];
        for b in all {
            assert_eq!(Behaviour::from_name(&b.name()), Some(b), "{}", b.name());
            assert!(b.name().starts_with(b.kind_name()));
        }
        assert_eq!(
            Behaviour::Recovering { healthy_from: 6 }.name(),
            "recovering-6"
        );
        // The simple kinds are serde's spelling too.
        for b in [Behaviour::Healthy, Behaviour::Slow, Behaviour::Failing] {
            assert_eq!(
                serde_json::to_string(&b).unwrap(),
                format!("\"{}\"", b.name())
            );
        }
        let too_late = format!("recovering-{}", MAX_TICKS + 1);
        for unknown in [
            "",
            "Healthy",
            "recovering",
            "recovering-",
            "recovering-x",
            "recovering--1",
            "recovering-+6",
            "recovering-06",
            "recovering-6 ",
            "recovering-99999999999",
            too_late.as_str(),
        ] {
            assert_eq!(Behaviour::from_name(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn a_failing_services_thread_ends_with_an_error() {
        let mut model =
            TickModel::new(TickConfig::new(Behaviour::Failing, Protection::None)).unwrap();
        model.step();
        let held: Vec<_> = model
            .threads()
            .iter()
            .flatten()
            .map(|h| (h.dependency, h.due_at - h.sent_at, h.outcome()))
            .collect();
        assert_eq!(
            held,
            vec![
                (Dependency::Recommendations, 1, Outcome::Http5xx),
                (Dependency::Recommendations, 1, Outcome::Http5xx),
                (Dependency::Payment, 1, Outcome::Success),
            ]
        );
    }
}
