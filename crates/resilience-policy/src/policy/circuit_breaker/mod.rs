//! # Circuit breaker
//!
//! ## Why it exists
//!
//! A dependency that has stopped answering is more dangerous than one that says no. Every
//! call sent to it holds a thread, a connection and the caller's patience until a timeout
//! gives up, and the callers keep sending more. A circuit breaker watches the outcomes of
//! recent calls and, once enough of them fail (or are slow), stops sending calls for a while:
//! it *opens*, and every call fails at once, locally and cheaply, with
//! `CallNotPermittedException`. The dependency gets room to recover, the caller keeps its
//! threads, and a fallback can answer instead. After a wait the breaker lets a few *trial*
//! calls through (*half-open*); their outcomes decide whether it closes again or opens for
//! another wait.
//!
//! This module is Resilience4j 2.x's `CircuitBreakerStateMachine` as a deterministic,
//! single-threaded state machine driven by virtual time: every operation takes `now` (in
//! milliseconds) and the breaker never reads a clock. The rules below were checked against
//! Resilience4j's own source and tests; the places where the engine differs on purpose are
//! listed at the end.
//!
//! ## The window and the rates
//!
//! In CLOSED the breaker records each outcome in a sliding window ([`window`]):
//! COUNT_BASED keeps the last `slidingWindowSize` outcomes; TIME_BASED keeps
//! `slidingWindowSize` one-second buckets aligned to whole seconds, stamps each outcome with
//! the second in which it *completes*, and drops a whole second at once when it gets too old.
//!
//! An outcome is classified when it is reported:
//! - `on_success`: a success; slow when its duration is strictly greater than
//!   `slowCallDurationThreshold`.
//! - `on_error`: an exception in `ignoreExceptions` is ignored (checked first, it wins): it
//!   is neither a success nor a failure and gives its permit back (which matters in
//!   HALF_OPEN). Otherwise an exception in `recordExceptions` (an empty list records all) is
//!   a failure, and any other exception counts as a success. A slow failure counts both as
//!   a failure and as a slow call.
//!
//! "In the list" means what Java's `isAssignableFrom` means: the class or one of its
//! subclasses, so `IOException` covers `FileNotFoundException` and `ConnectException`. The
//! hierarchy is [`crate::exceptions`]: the JDK, Spring and Resilience4j classes people
//! type, plus the classes a config declares with their parent (`exceptions`). A name in
//! neither is refused by [`CircuitBreakerConfig::validate`] (and by the breaker scripts for
//! a thrown one) rather than guessed.
//!
//! The failure rate and the slow-call rate are percentages of the outcomes in the window,
//! computed in `f32` like Resilience4j. They are *not computable* (reported as -1) until
//! the window holds `minimumNumberOfCalls` outcomes; for COUNT_BASED that minimum is
//! clamped to the window size, for TIME_BASED it is not (a TIME_BASED breaker whose
//! minimum is never reached in its window never opens).
//!
//! ## The states
//!
//! - **CLOSED** lets every call through. After *each* recorded outcome (never on a timer)
//!   it compares the rates with their thresholds; the comparison is inclusive (a rate equal
//!   to its threshold trips) and either rate is enough. When one trips, the breaker reports
//!   `FailureRateExceeded` / `SlowCallRateExceeded` and moves to OPEN.
//! - **OPEN** refuses calls (each refusal is counted in `not_permitted` and reported as
//!   `NotPermitted`). It keeps the window that tripped it, so the rate that opened it can
//!   still be read; answers of calls sent before the trip are still recorded there but never
//!   cause a transition. The wait is `waitDurationInOpenState`, or
//!   `waitIntervalFunctionInOpenState(attempt)` where `attempt` is 1 on the first opening,
//!   grows by one with each HALF_OPEN -> OPEN and drops back to 0 when the breaker closes.
//!   Without `automaticTransitionFromOpenToHalfOpenEnabled`, the first permission request
//!   *strictly after* `opened_at + wait` moves the breaker to HALF_OPEN and becomes its
//!   first trial; with it, a timer moves it at `opened_at + wait` exactly.
//! - **HALF_OPEN** hands out `permittedNumberOfCallsInHalfOpenState` permits. A finished
//!   trial does not give its permit back (an ignored exception or `release_permission`
//!   does). Its outcomes go into a fresh COUNT_BASED window of that many cells; after
//!   `min(minimumNumberOfCalls, permitted)` outcomes it decides: both rates strictly below
//!   their thresholds -> CLOSED, otherwise -> OPEN. With a positive
//!   `maxWaitDurationInHalfOpenState` a timer ends HALF_OPEN after that long, moving to
//!   `transitionToStateAfterWaitDuration` (OPEN by default, or CLOSED).
//! - Entering CLOSED or HALF_OPEN starts a fresh window (and a fresh `not_permitted`).
//!
//! A breaker starts CLOSED unless `initialState` (Resilience4j 2.4+) says otherwise. It
//! then starts in that state at 0 ms without publishing a transition, as
//! `CircuitBreakerStateMachine`'s constructor does: OPEN at attempt 1 with a fresh
//! CLOSED-size window (its wait runs from 0 ms), HALF_OPEN at attempt 1 with its permits
//! (so a failed trial opens for `waitIntervalFunctionInOpenState(2)`), FORCED_OPEN at
//! attempt 1 (a manual move to OPEN then waits for attempt 2), DISABLED and METRICS_ONLY
//! at 0. Manual transitions from there follow the table below; `reset()` goes to CLOSED,
//! not back to the initial state.
//!
//! Three more states are only reached by hand ([`CircuitBreaker::transition_to`]):
//! **DISABLED** lets everything through and records nothing; **FORCED_OPEN** refuses
//! everything and never goes half-open; **METRICS_ONLY** lets everything through, records
//! like CLOSED and reports each kind of threshold crossing once (again only after it is
//! entered anew), but never changes state by itself.
//!
//! Manual transitions follow Resilience4j's table ([`State::can_transition_to`]): every
//! state may go to itself, CLOSED may not go to HALF_OPEN, METRICS_ONLY may go only to
//! CLOSED, FORCED_OPEN and DISABLED. A transition to the *same* state is legal and is not
//! reported, but it still replaces the state: CLOSED -> CLOSED empties the window,
//! OPEN -> OPEN counts another attempt and restarts the wait, HALF_OPEN -> HALF_OPEN hands
//! out a new set of permits. [`CircuitBreaker::reset`] goes to CLOSED from anywhere, with a
//! fresh window, and reports `Reset`.
//!
//! Events follow Resilience4j's publishing rule: state transitions and resets are always
//! reported, other events are not reported while the breaker is DISABLED or FORCED_OPEN.
//!
//! ## A late answer in an OPEN entered from DISABLED or FORCED_OPEN
//!
//! Every OPEN inherits the metrics of the state it replaces (`new OpenState(attempts + 1,
//! currentState.getMetrics())`), so that answers of calls sent before the trip still land
//! in the window that tripped. DISABLED and FORCED_OPEN measure nothing: their metrics are
//! a COUNT_BASED window of size 0 (`CircuitBreakerMetrics.forDisabled` / `forForcedOpen`).
//! Move such a breaker to OPEN by hand and OPEN inherits that zero-size window; OPEN ->
//! OPEN keeps it too. Nothing goes wrong until an outcome is reported there (a call
//! permitted before the move, answering late): `OpenState.onSuccess` / `onError` record it
//! in the window, and `FixedSizeSlidingWindowMetrics.record` first adds it to its running
//! total, then moves its head to `(headIndex + 1) % windowSize`, a remainder by 0, and
//! throws `ArithmeticException: / by zero` out of `onSuccess` / `onError`, to the caller
//! of the decorated call, after the `Success` / `Error` event was published.
//!
//! The engine does the same: the outcome is counted in the window's totals (so the
//! metrics show it, with rates computable from the first outcome since the inherited
//! minimum is `min(minimumNumberOfCalls, 0)`), the event is published, the breaker stays
//! OPEN, and [`CircuitBreaker::try_on_success`] / [`CircuitBreaker::try_on_error`] return
//! [`BreakerError::DivisionByZero`]; a breaker script reports it on that step. The window
//! lists no cell for those outcomes: Resilience4j's has none to keep them in. The next
//! HALF_OPEN or CLOSED starts a proper window again.
//!
//! ## `reset()` leaves the timers armed
//!
//! Every transition first runs the state's `preTransitionHook`, which cancels its timer (the
//! automatic OPEN -> HALF_OPEN, the `maxWaitDurationInHalfOpenState` one). `reset()` does
//! not: it swaps in a fresh CLOSED state directly. The replaced state's timer still fires
//! at its instant, and its state object, which still believes it is current, asks the
//! breaker for its transition from whatever state it is in by then: an OPEN timer for
//! HALF_OPEN, a HALF_OPEN timer for `transitionToStateAfterWaitDuration`. From CLOSED,
//! HALF_OPEN is illegal (the exception is thrown on the scheduler's thread and lost), but
//! OPEN is not: reset a HALF_OPEN breaker with `maxWaitDurationInHalfOpenState` and it
//! opens again by itself when that wait runs out, with one attempt counted. The engine
//! does the same ([`CircuitBreaker::left_armed_timers`] lists them); the traces recorded
//! from Resilience4j 2.4.0 (`tests/resilience4j_traces.rs`) include such runs.
//!
//! ## Where the engine differs from Resilience4j
//!
//! - Exceptions are names, not classes: the hierarchy is a table plus declared classes (see
//!   [`crate::exceptions`]); `onError`'s unwrapping of a `CompletionException` /
//!   `ExecutionException` to its cause has no counterpart (a name has no cause).
//! - No `recordResult`, `transitionOnResult`, randomized wait functions or LOCK_FREE
//!   windows; windows are capped at [`config::MAX_WINDOW_SIZE`].

pub mod config;
pub mod window;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use config::{CircuitBreakerConfig, OpenWaitFunction, SlidingWindowType};
pub use window::{Bucket, SlidingWindow, Snapshot, WindowCell, WindowKind};

use crate::exceptions::ByClass;
use crate::{ConfigError, Millis};
use config::WaitMemo;

/// The breaker's states, named as in Resilience4j.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    Closed,
    Open,
    HalfOpen,
    Disabled,
    ForcedOpen,
    MetricsOnly,
}

impl State {
    pub const ALL: [State; 6] = [
        State::Closed,
        State::Open,
        State::HalfOpen,
        State::Disabled,
        State::ForcedOpen,
        State::MetricsOnly,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            State::Closed => "CLOSED",
            State::Open => "OPEN",
            State::HalfOpen => "HALF_OPEN",
            State::Disabled => "DISABLED",
            State::ForcedOpen => "FORCED_OPEN",
            State::MetricsOnly => "METRICS_ONLY",
        }
    }

    /// Resilience4j's `StateTransition` table: is `self -> to` a legal transition?
    pub fn can_transition_to(self, to: State) -> bool {
        match self {
            State::Closed => to != State::HalfOpen,
            State::MetricsOnly => matches!(
                to,
                State::MetricsOnly | State::Closed | State::ForcedOpen | State::Disabled
            ),
            State::Open | State::HalfOpen | State::ForcedOpen | State::Disabled => true,
        }
    }

    /// Resilience4j's `allowPublish`: DISABLED and FORCED_OPEN publish only state
    /// transitions and resets.
    pub fn allows_publish(self) -> bool {
        !matches!(self, State::Disabled | State::ForcedOpen)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A manual transition that Resilience4j's table forbids (`IllegalStateTransitionException`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IllegalStateTransition {
    pub from: State,
    pub to: State,
}

impl fmt::Display for IllegalStateTransition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal transition {} -> {}", self.from, self.to)
    }
}

impl std::error::Error for IllegalStateTransition {}

/// What the breaker reports, in order (Resilience4j's `CircuitBreakerEvent`s).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CircuitBreakerEvent {
    StateTransition {
        at: Millis,
        from: State,
        to: State,
    },
    Success {
        at: Millis,
        duration: Millis,
    },
    Error {
        at: Millis,
        duration: Millis,
        exception: Arc<str>,
    },
    IgnoredError {
        at: Millis,
        duration: Millis,
        exception: Arc<str>,
    },
    NotPermitted {
        at: Millis,
    },
    FailureRateExceeded {
        at: Millis,
        rate: f32,
    },
    SlowCallRateExceeded {
        at: Millis,
        rate: f32,
    },
    Reset {
        at: Millis,
    },
}

impl CircuitBreakerEvent {
    /// Resilience4j's `CircuitBreakerEvent.Type` name: `SUCCESS`, `ERROR`,
    /// `IGNORED_ERROR`, `NOT_PERMITTED`, `STATE_TRANSITION`, `FAILURE_RATE_EXCEEDED`,
    /// `SLOW_CALL_RATE_EXCEEDED`, `RESET`.
    pub fn name(&self) -> &'static str {
        match self {
            CircuitBreakerEvent::StateTransition { .. } => "STATE_TRANSITION",
            CircuitBreakerEvent::Success { .. } => "SUCCESS",
            CircuitBreakerEvent::Error { .. } => "ERROR",
            CircuitBreakerEvent::IgnoredError { .. } => "IGNORED_ERROR",
            CircuitBreakerEvent::NotPermitted { .. } => "NOT_PERMITTED",
            CircuitBreakerEvent::FailureRateExceeded { .. } => "FAILURE_RATE_EXCEEDED",
            CircuitBreakerEvent::SlowCallRateExceeded { .. } => "SLOW_CALL_RATE_EXCEEDED",
            CircuitBreakerEvent::Reset { .. } => "RESET",
        }
    }

    /// When it happened (virtual milliseconds).
    pub fn at(&self) -> Millis {
        match *self {
            CircuitBreakerEvent::StateTransition { at, .. }
            | CircuitBreakerEvent::Success { at, .. }
            | CircuitBreakerEvent::Error { at, .. }
            | CircuitBreakerEvent::IgnoredError { at, .. }
            | CircuitBreakerEvent::NotPermitted { at }
            | CircuitBreakerEvent::FailureRateExceeded { at, .. }
            | CircuitBreakerEvent::SlowCallRateExceeded { at, .. }
            | CircuitBreakerEvent::Reset { at } => at,
        }
    }
}

/// The breaker's metrics (Resilience4j's `CircuitBreaker.Metrics`) for the current window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Metrics {
    /// Percent, or -1 while the window holds fewer than the minimum number of calls.
    pub failure_rate: f32,
    /// Percent, or -1 while not computable.
    pub slow_call_rate: f32,
    /// Outcomes in the window.
    pub buffered: u32,
    /// Failures in the window (slow or not).
    pub failed: u32,
    /// Slow calls in the window (successful or not).
    pub slow: u32,
    /// Slow failures in the window.
    pub slow_failed: u32,
    /// Calls refused since the current metrics began (they begin anew on entering CLOSED,
    /// HALF_OPEN, METRICS_ONLY, DISABLED or FORCED_OPEN; OPEN keeps counting on the metrics
    /// it inherited).
    pub not_permitted: u64,
    /// Successes in the window (slow or not).
    pub successful: u32,
}

/// For a number of calls: the fewest failures and the fewest slow calls that reach their
/// thresholds (`calls + 1` when none can).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TripCounts {
    calls: u32,
    failed: u32,
    slow: u32,
}

impl TripCounts {
    const NONE: TripCounts = TripCounts {
        calls: 0,
        failed: 0,
        slow: 0,
    };

    fn for_calls(config: &CircuitBreakerConfig, calls: u32) -> Self {
        TripCounts {
            calls,
            failed: fewest_reaching(config.failure_rate_threshold, calls),
            slow: fewest_reaching(config.slow_call_rate_threshold, calls),
        }
    }
}

/// The smallest `k` in `0..=n` whose percentage of `n` (as Resilience4j computes it, in
/// `f32`) is at least `threshold`, or `n + 1`. The percentage never decreases as `k` grows,
/// so a close estimate corrected by a step or two is exact.
fn fewest_reaching(threshold: f32, n: u32) -> u32 {
    let estimate = (f64::from(threshold) * f64::from(n) / 100.0).ceil();
    let mut k = (estimate.max(0.0) as u64).min(u64::from(n) + 1) as u32;
    while k > 0 && window::percent(k - 1, n) >= threshold {
        k -= 1;
    }
    while k <= n && window::percent(k, n) < threshold {
        k += 1;
    }
    k
}

/// `percent(part, whole) >= threshold`, with Resilience4j's `f32` rounding, but without a
/// division unless the two are within a hair of each other: the `f32` percentage is within
/// a relative 3e-7 of the exact ratio, so a ratio clearly on one side decides alone.
#[inline]
fn reaches(part: u32, whole: u32, threshold: f32) -> bool {
    let lhs = f64::from(part) * 100.0;
    let rhs = f64::from(threshold) * f64::from(whole);
    if lhs > rhs * (1.0 + 1e-6) {
        true
    } else if lhs < rhs * (1.0 - 1e-6) {
        false
    } else {
        window::percent(part, whole) >= threshold
    }
}

enum Verdict {
    BelowMinimum,
    Below,
    Exceeded { failure: bool, slow: bool },
}

/// A Resilience4j circuit breaker driven by virtual time.
#[derive(Debug, Clone)]
pub struct CircuitBreaker {
    config: CircuitBreakerConfig,
    state: State,
    window: SlidingWindow,
    /// Outcomes the current window needs before its rates count.
    minimum_calls: u32,
    not_permitted: u64,
    attempts: u32,
    /// The latest time seen.
    now: Millis,
    entered_at: Millis,
    /// OPEN: the end of the wait (`retryAfterWaitDuration`), signed and wide: a negative
    /// multiplier makes a negative wait, and `at + wait` may pass `Millis::MAX`.
    open_until: i128,
    /// HALF_OPEN: permits left to hand out.
    permits_left: u32,
    /// HALF_OPEN: when `maxWaitDurationInHalfOpenState` runs out, if set.
    half_open_deadline: Option<Millis>,
    /// METRICS_ONLY: each kind of crossing is reported once.
    failure_rate_reported: bool,
    slow_call_rate_reported: bool,
    events: Vec<CircuitBreakerEvent>,
    record_events: bool,
    wait_memo: WaitMemo,
    /// When the next timer fires, the state's own or one a reset left armed; `None` when
    /// none is armed (not a sentinel time: a clock may reach `Millis::MAX`, and a timer
    /// there must not fire).
    timer_due: Option<Millis>,
    /// Timers of states that `reset()` replaced: Resilience4j's reset skips the hook that
    /// cancels them (see the module documentation), so each still fires at its instant.
    left_armed: BinaryHeap<Reverse<LeftArmedTimer>>,
    /// How many timers `reset()` has left armed: their order at one instant.
    left_armed_count: u64,
    trip_counts: TripCounts,
    /// Each exception name seen so far, classified. The lists never
    /// change during a breaker's life, and matching a name through the class hierarchy on
    /// every `onError` is its costliest part when a stack fails thousands of times a
    /// second (Demo 12's retry storm). The names are shared with the events that carry
    /// them, so a published error allocates nothing.
    classified: Vec<(Arc<str>, Classification)>,
    /// Past those names, classifications by class.
    by_class: ByClass<Classification>,
}

/// A timer of a state that `reset()` replaced: when it fires and the transition it asks for.
/// Ordered by instant, then by when it was armed (the scheduler's queue order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LeftArmedTimer {
    due: Millis,
    order: u64,
    to: State,
}

impl Ord for LeftArmedTimer {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.due, self.order).cmp(&(other.due, other.order))
    }
}

impl PartialOrd for LeftArmedTimer {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// How a reported exception counts: `ignoreExceptions` is checked first; a recorded one
/// (any, when `recordExceptions` is empty) is a failure; any other counts as a success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classification {
    Ignored,
    Failure,
    Success,
}

/// Exception names a breaker remembers the classification of (the rest are classified
/// each time: memory stays bounded whatever a script throws).
const CLASSIFIED_NAMES: usize = 16;

impl CircuitBreaker {
    /// A breaker at time 0 in `config.initial_state` (CLOSED by default), after validating
    /// `config`.
    pub fn new(config: CircuitBreakerConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let initial_state = config.initial_state;
        let window = SlidingWindow::new(closed_window_kind(&config), 0);
        Ok(CircuitBreaker {
            minimum_calls: config.effective_minimum_number_of_calls(),
            config,
            state: State::Closed,
            window,
            not_permitted: 0,
            attempts: 0,
            now: 0,
            entered_at: 0,
            open_until: 0,
            permits_left: 0,
            half_open_deadline: None,
            failure_rate_reported: false,
            slow_call_rate_reported: false,
            events: Vec::new(),
            record_events: true,
            wait_memo: WaitMemo::default(),
            timer_due: None,
            left_armed: BinaryHeap::new(),
            left_armed_count: 0,
            trip_counts: TripCounts::NONE,
            classified: Vec::new(),
            by_class: ByClass::default(),
        }
        .started_in(initial_state))
    }

    /// The breaker as Resilience4j's constructor builds it for `initialState`
    /// (`getCircuitBreakerStateObjectFromState`): no transition is published; OPEN,
    /// HALF_OPEN and FORCED_OPEN start at attempt 1 (`new OpenState(1, forClosed(config))`,
    /// `new HalfOpenState(1)`, `new ForcedOpenState(1)`), so a first HALF_OPEN -> OPEN waits
    /// `waitIntervalFunctionInOpenState(2)`; OPEN starts its wait (and its timer) at 0 ms
    /// with a fresh CLOSED-size window.
    fn started_in(mut self, initial: State) -> Self {
        if initial == State::Closed {
            return self;
        }
        let recording = self.record_events;
        self.record_events = false;
        if initial == State::HalfOpen {
            self.attempts = 1;
        }
        self.enter(initial, 0);
        self.record_events = recording;
        self
    }

    /// How `exception` counts, as `onError` counts it: a model that narrates an outcome
    /// asks here, so its words agree with the window (and share the breaker's memory of
    /// names: a link may list hundreds).
    #[inline(always)]
    pub fn classify(&mut self, exception: &str) -> Classification {
        if self.config.ignore_exceptions.is_empty() && self.config.record_exceptions.is_empty() {
            // Nothing ignored, everything recorded: no name to match.
            return Classification::Failure;
        }
        self.classify_by_name(exception)
    }

    #[inline(never)]
    fn classify_by_name(&mut self, exception: &str) -> Classification {
        if let Some(&(_, classification)) = self
            .classified
            .iter()
            .find(|(name, _)| &**name == exception)
        {
            return classification;
        }
        let config = &self.config;
        let classification = self.by_class.get_or(&config.hierarchy(), exception, || {
            if config.is_ignored(exception) {
                Classification::Ignored
            } else if config.is_recorded(exception) {
                Classification::Failure
            } else {
                Classification::Success
            }
        });
        if self.classified.len() < CLASSIFIED_NAMES {
            self.classified.push((exception.into(), classification));
        }
        classification
    }

    /// `exception` as an event carries it: the remembered name when there is one (the
    /// classification, already made, is remembered with a new name while there is room).
    fn event_name(&mut self, exception: &str, classification: Classification) -> Arc<str> {
        if let Some((name, _)) = self
            .classified
            .iter()
            .find(|(name, _)| &**name == exception)
        {
            return Arc::clone(name);
        }
        let name: Arc<str> = exception.into();
        if self.classified.len() < CLASSIFIED_NAMES {
            self.classified.push((Arc::clone(&name), classification));
        }
        name
    }

    pub fn config(&self) -> &CircuitBreakerConfig {
        &self.config
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// The latest virtual time the breaker has seen.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// When the current state was entered.
    pub fn entered_at(&self) -> Millis {
        self.entered_at
    }

    /// Turns event collection on (the default) or off. Off, nothing is pushed to the event
    /// list: use it for benchmarks and models that only read state and metrics.
    pub fn set_event_recording(&mut self, on: bool) {
        self.record_events = on;
    }

    pub fn is_recording_events(&self) -> bool {
        self.record_events
    }

    /// Runs the timers up to `now`: the automatic OPEN -> HALF_OPEN (when enabled, at
    /// `opened_at + wait`) and `maxWaitDurationInHalfOpenState`, in time order, each event
    /// stamped with the instant its timer fired. Every operation taking `now` calls this
    /// first. Time never goes backwards: an earlier `now` is ignored.
    #[inline(always)]
    pub fn advance_to(&mut self, now: Millis) {
        if now < self.now {
            return;
        }
        if self.timer_due.is_some_and(|due| now >= due) {
            self.fire_timers(now);
        }
        self.now = now;
        self.window.roll_to(now);
    }

    /// [`Self::advance_to`] with a bound on the work: at most `timers_left` timer instants
    /// fire (the count goes down as they do). When more would fire before `now` (waits of a
    /// millisecond over an advance of years), the clock stops after the last one that fired
    /// and `Err` gives that instant.
    pub fn advance_to_bounded(&mut self, now: Millis, timers_left: &mut u32) -> Result<(), Millis> {
        while let Some(due) = self.timer_due.filter(|&due| due <= now) {
            if *timers_left == 0 {
                return Err(self.now);
            }
            self.advance_to(due);
            *timers_left -= 1;
        }
        self.advance_to(now);
        Ok(())
    }

    /// [`Self::advance_to`] for models that only read the state at their own instants (the
    /// tick model's one-second ticks). An idle breaker with both timers armed (the
    /// automatic OPEN -> HALF_OPEN, then `maxWaitDurationInHalfOpenState` back to OPEN, no
    /// call between) cycles for as long as nobody calls: 1 ms waits make 1,000 transitions
    /// a second. Once the wait has stopped changing, every cycle is the same, so whole
    /// cycles but the last are jumped over in constant time and returned as a count; the
    /// last one fires as usual. State, attempts, timers and the window end exactly where
    /// firing every timer would leave them; only the skipped cycles' transitions are not
    /// published one by one.
    pub fn advance_to_skipping_idle_cycles(&mut self, now: Millis) -> u64 {
        let mut skipped = 0;
        while let Some(due) = self.timer_due.filter(|&due| due <= now) {
            self.advance_to(due);
            if let Some(period) = self.idle_cycle_period() {
                let whole = (now - due) / period;
                if whole >= 2 {
                    let jump = whole - 1;
                    let at = due + jump * period;
                    let wait = self.open_until - i128::from(self.entered_at);
                    self.attempts = self
                        .attempts
                        .saturating_add(u32::try_from(jump).unwrap_or(u32::MAX));
                    self.entered_at = at;
                    self.now = at;
                    self.open_until = i128::from(at) + wait;
                    self.timer_due = self.earliest_timer();
                    skipped += jump;
                }
            }
        }
        self.advance_to(now);
        skipped
    }

    /// The length of one idle OPEN -> HALF_OPEN -> OPEN cycle when the breaker has just
    /// entered OPEN and every later cycle will be the same length.
    fn idle_cycle_period(&self) -> Option<Millis> {
        let config = &self.config;
        if self.state != State::Open
            || !self.left_armed.is_empty()
            || self.entered_at != self.now
            || !config.automatic_transition_from_open_to_half_open_enabled
            || config.transition_to_state_after_wait_duration != State::Open
            || config.max_wait_duration_in_half_open_state == 0
        {
            return None;
        }
        let wait = config.settled_wait_in_open_state(self.attempts, &self.wait_memo)?;
        if wait < 1 || i128::from(wait) != self.open_until - i128::from(self.entered_at) {
            return None;
        }
        u64::try_from(wait)
            .ok()?
            .checked_add(config.max_wait_duration_in_half_open_state)
    }

    #[cold]
    fn fire_timers(&mut self, now: Millis) {
        while let Some(at) = self.timer_due.filter(|&due| due <= now) {
            self.now = at;
            // A timer a reset left armed was scheduled before the current state's own, so
            // at one instant it fires first, as the scheduler's queue orders them.
            let left_armed = self
                .left_armed
                .peek()
                .filter(|t| t.0.due == at)
                .map(|t| t.0);
            if let Some(timer) = left_armed {
                self.left_armed.pop();
                self.fire_left_armed(timer);
            } else {
                match self.state {
                    State::Open => self.enter(State::HalfOpen, at),
                    State::HalfOpen => {
                        let to = self.config.transition_to_state_after_wait_duration;
                        self.enter(to, at);
                    }
                    _ => {
                        self.timer_due = self.left_armed_due().filter(|&due| due > at);
                        continue;
                    }
                }
            }
            // The clock ends at `Millis::MAX`: every wait from there saturates to the same
            // instant, and a timer that re-arms where it fired would fire for ever.
            if at == Millis::MAX && self.timer_due == Some(at) && self.left_armed_due() != Some(at)
            {
                self.timer_due = None;
                break;
            }
        }
    }

    /// A timer of a state `reset()` replaced fires: its state object still believes it is
    /// current (`isOpen`, `isHalfOpen`), so it asks the breaker for its transition, from
    /// whatever state the breaker is in now. An illegal one throws
    /// `IllegalStateTransitionException` on the scheduler's thread, where nobody reads it;
    /// a legal one happens, a same-state one silently (OPEN -> OPEN counts an attempt).
    fn fire_left_armed(&mut self, timer: LeftArmedTimer) {
        if self.state.can_transition_to(timer.to) {
            self.enter(timer.to, timer.due);
        } else {
            self.timer_due = self.earliest_timer();
        }
    }

    fn left_armed_due(&self) -> Option<Millis> {
        self.left_armed.peek().map(|t| t.0.due)
    }

    /// The earliest armed timer, the state's own or one a reset left.
    fn earliest_timer(&self) -> Option<Millis> {
        match (self.next_timer(), self.left_armed_due()) {
            (Some(own), Some(left)) => Some(own.min(left)),
            (own, left) => own.or(left),
        }
    }

    /// Timers that `reset()` left armed, in no particular order: each instant and the
    /// transition its state object will ask for then.
    pub fn left_armed_timers(&self) -> impl Iterator<Item = (Millis, State)> + '_ {
        self.left_armed.iter().map(|t| (t.0.due, t.0.to))
    }

    /// The first timer `reset()` left armed whose transition `from` allows: when it fires
    /// and the state it moves the breaker to (from `from`, it will act).
    pub fn next_left_armed_timer(&self, from: State) -> Option<(Millis, State)> {
        self.left_armed
            .iter()
            .map(|t| t.0)
            .filter(|t| from.can_transition_to(t.to))
            .min()
            .map(|t| (t.due, t.to))
    }

    /// The next instant at which the current state's own timer will change the state, if
    /// any (not counting the timers a reset left armed: [`Self::left_armed_timers`]).
    pub fn next_timer(&self) -> Option<Millis> {
        match self.state {
            State::Open
                if self
                    .config
                    .automatic_transition_from_open_to_half_open_enabled =>
            {
                Some(clamp_millis(self.open_until))
            }
            State::HalfOpen => self.half_open_deadline,
            _ => None,
        }
    }

    /// `tryAcquirePermission`: may a call be sent now? CLOSED, DISABLED and METRICS_ONLY
    /// always say yes; FORCED_OPEN always no; OPEN no until the wait is over, then the
    /// first request strictly after it moves the breaker to HALF_OPEN and is its first
    /// trial; HALF_OPEN while permits are left. A refusal counts in `not_permitted` and
    /// reports `NotPermitted`.
    #[inline]
    pub fn try_acquire_permission(&mut self, now: Millis) -> bool {
        self.advance_to(now);
        match self.state {
            State::Closed | State::Disabled | State::MetricsOnly => true,
            State::HalfOpen => self.acquire_trial(),
            State::Open => {
                if i128::from(self.now) > self.open_until {
                    self.enter(State::HalfOpen, self.now);
                    self.acquire_trial()
                } else {
                    self.refuse();
                    false
                }
            }
            State::ForcedOpen => {
                self.refuse();
                false
            }
        }
    }

    fn acquire_trial(&mut self) -> bool {
        if self.permits_left > 0 {
            self.permits_left -= 1;
            true
        } else {
            self.refuse();
            false
        }
    }

    fn refuse(&mut self) {
        self.not_permitted += 1;
        if self.publishing(false) {
            self.events
                .push(CircuitBreakerEvent::NotPermitted { at: self.now });
        }
    }

    /// `releasePermission`: a permitted call that was never made gives its permit back.
    /// Only HALF_OPEN counts permits; as in Resilience4j the count is not capped, so a
    /// release without a matching acquire adds a permit.
    pub fn release_permission(&mut self) {
        if self.state == State::HalfOpen {
            self.permits_left = self.permits_left.saturating_add(1);
        }
    }

    /// `onSuccess`: a call answered after `duration` ms, completing at `now`. See
    /// [`Self::try_on_success`] for the one case where Resilience4j throws.
    #[inline]
    pub fn on_success(&mut self, now: Millis, duration: Millis) {
        let _ = self.try_on_success(now, duration);
    }

    /// `onSuccess`, with what Resilience4j throws from it: `ArithmeticException: / by zero`
    /// in OPEN entered by hand from DISABLED or FORCED_OPEN (see the module documentation).
    /// The outcome is published and counted even then.
    #[inline]
    pub fn try_on_success(&mut self, now: Millis, duration: Millis) -> Result<(), BreakerError> {
        self.advance_to(now);
        if self.publishing(false) {
            self.publish_outcome(duration, None);
        }
        self.record(WindowCell::new(
            false,
            duration > self.config.slow_call_duration_threshold,
        ))
    }

    /// `onError`: a call failed with `exception` after `duration` ms, completing at `now`.
    /// Ignored exceptions (checked first) give the permit back; recorded ones (all, when
    /// `recordExceptions` is empty) are failures; any other counts as a success. See
    /// [`Self::try_on_error`] for the one case where Resilience4j throws.
    #[inline]
    pub fn on_error(&mut self, now: Millis, duration: Millis, exception: &str) {
        let _ = self.try_on_error(now, duration, exception);
    }

    /// `onError`, with what Resilience4j throws from it (as [`Self::try_on_success`]).
    #[inline]
    pub fn try_on_error(
        &mut self,
        now: Millis,
        duration: Millis,
        exception: &str,
    ) -> Result<(), BreakerError> {
        self.advance_to(now);
        let classification = self.classify(exception);
        if classification == Classification::Ignored {
            self.release_permission();
            if self.publishing(false) {
                self.publish_ignored(duration, exception);
            }
            return Ok(());
        }
        let failure = classification == Classification::Failure;
        if self.publishing(false) {
            self.publish_outcome(duration, failure.then_some(exception));
        }
        self.record(WindowCell::new(
            failure,
            duration > self.config.slow_call_duration_threshold,
        ))
    }

    /// Records a classified outcome in the current state's window and applies the state's
    /// rule.
    #[inline(always)]
    fn record(&mut self, cell: WindowCell) -> Result<(), BreakerError> {
        if self.state == State::Closed {
            // The hot path, a full COUNT_BASED window in CLOSED below both thresholds,
            // compares counts and passes nothing through memory; the rest is out of line.
            let snapshot = self.window.record(self.now, cell);
            let below_by_counts = snapshot.calls == self.trip_counts.calls
                && snapshot.calls >= self.minimum_calls
                && snapshot.calls > 0
                && snapshot.failed < self.trip_counts.failed
                && snapshot.slow < self.trip_counts.slow;
            if !below_by_counts {
                self.apply_closed_rule();
            }
            Ok(())
        } else {
            self.record_elsewhere(cell)
        }
    }

    /// CLOSED's rule: open when a rate reaches its threshold.
    #[inline(never)]
    fn apply_closed_rule(&mut self) {
        let snapshot = self.window.snapshot();
        if let Verdict::Exceeded { failure, slow } = self.verdict(snapshot) {
            self.report_crossing(snapshot, failure, slow);
            self.enter(State::Open, self.now);
        }
    }

    fn record_elsewhere(&mut self, cell: WindowCell) -> Result<(), BreakerError> {
        match self.state {
            State::Closed => return self.record(cell),
            State::Open => {
                self.window.record(self.now, cell);
                if self.window.kind() == WindowKind::Empty {
                    // The zero-size window of DISABLED / FORCED_OPEN: Resilience4j's
                    // `FixedSizeSlidingWindowMetrics.record` adds the outcome to its total,
                    // then moves its head `(headIndex + 1) % 0` and throws.
                    return Err(BreakerError::DivisionByZero);
                }
            }
            State::HalfOpen => {
                let snapshot = self.window.record(self.now, cell);
                match self.verdict(snapshot) {
                    Verdict::BelowMinimum => {}
                    Verdict::Below => self.enter(State::Closed, self.now),
                    Verdict::Exceeded { .. } => self.enter(State::Open, self.now),
                }
            }
            State::MetricsOnly => {
                let snapshot = self.window.record(self.now, cell);
                if let Verdict::Exceeded { failure, slow } = self.verdict(snapshot) {
                    let failure = failure && !self.failure_rate_reported;
                    let slow = slow && !self.slow_call_rate_reported;
                    self.failure_rate_reported |= failure;
                    self.slow_call_rate_reported |= slow;
                    self.report_crossing(snapshot, failure, slow);
                }
            }
            State::Disabled | State::ForcedOpen => {}
        }
        Ok(())
    }

    /// Compares the rates with their thresholds (inclusive), as Resilience4j compares its
    /// `f32` percentages. A full COUNT_BASED window always holds the same number of calls,
    /// so for it the comparison is done on counts: the fewest failures (slow calls) whose
    /// percentage reaches the threshold is computed once and cached.
    #[inline(always)]
    fn verdict(&mut self, snapshot: Snapshot) -> Verdict {
        if snapshot.calls == 0 || snapshot.calls < self.minimum_calls {
            return Verdict::BelowMinimum;
        }
        let (failure, slow) = if snapshot.calls == self.trip_counts.calls {
            (
                snapshot.failed >= self.trip_counts.failed,
                snapshot.slow >= self.trip_counts.slow,
            )
        } else {
            self.rates_reached(snapshot)
        };
        if failure || slow {
            Verdict::Exceeded { failure, slow }
        } else {
            Verdict::Below
        }
    }

    /// [`Self::verdict`] off the hot path: whether each rate reaches its threshold, for a
    /// window that is not full (or has just become full).
    #[inline(never)]
    fn rates_reached(&mut self, snapshot: Snapshot) -> (bool, bool) {
        if self.window.capacity() == Some(snapshot.calls) {
            // A full COUNT_BASED window: the number of calls stays put from now on.
            self.cache_trip_counts(snapshot.calls);
            (
                snapshot.failed >= self.trip_counts.failed,
                snapshot.slow >= self.trip_counts.slow,
            )
        } else {
            (
                reaches(
                    snapshot.failed,
                    snapshot.calls,
                    self.config.failure_rate_threshold,
                ),
                reaches(
                    snapshot.slow,
                    snapshot.calls,
                    self.config.slow_call_rate_threshold,
                ),
            )
        }
    }

    #[cold]
    fn cache_trip_counts(&mut self, calls: u32) {
        self.trip_counts = TripCounts::for_calls(&self.config, calls);
    }

    fn report_crossing(&mut self, snapshot: Snapshot, failure: bool, slow: bool) {
        if !self.publishing(false) {
            return;
        }
        if failure {
            self.events.push(CircuitBreakerEvent::FailureRateExceeded {
                at: self.now,
                rate: snapshot.failure_rate(),
            });
        }
        if slow {
            self.events.push(CircuitBreakerEvent::SlowCallRateExceeded {
                at: self.now,
                rate: snapshot.slow_call_rate(),
            });
        }
    }

    /// Keeps the event of a recorded outcome: `Error` with the exception of a failure,
    /// else `Success`. Out of line, and built here rather than by the caller, so the calls
    /// that keep no event need no stack frame (in wasm an event passed by value lives in
    /// memory, and its frame costs every call).
    #[inline(never)]
    fn publish_outcome(&mut self, duration: Millis, failure: Option<&str>) {
        let at = self.now;
        let event = match failure {
            Some(exception) => CircuitBreakerEvent::Error {
                at,
                duration,
                exception: self.event_name(exception, Classification::Failure),
            },
            None => CircuitBreakerEvent::Success { at, duration },
        };
        self.events.push(event);
    }

    #[inline(never)]
    fn publish_ignored(&mut self, duration: Millis, exception: &str) {
        let exception = self.event_name(exception, Classification::Ignored);
        self.events.push(CircuitBreakerEvent::IgnoredError {
            at: self.now,
            duration,
            exception,
        });
    }

    /// Would an event be kept now? State transitions and resets (`forced`) always are;
    /// others not while DISABLED or FORCED_OPEN.
    #[inline]
    fn publishing(&self, forced: bool) -> bool {
        self.record_events && (forced || self.state.allows_publish())
    }

    /// Manual transition (`transitionToXxxState`), checked against Resilience4j's table.
    /// A same-state transition is legal, unreported, and still replaces the state (see the
    /// module documentation).
    pub fn transition_to(&mut self, to: State, now: Millis) -> Result<(), IllegalStateTransition> {
        self.advance_to(now);
        if !self.state.can_transition_to(to) {
            return Err(IllegalStateTransition {
                from: self.state,
                to,
            });
        }
        self.enter(to, self.now);
        Ok(())
    }

    /// `reset()`: back to CLOSED with a fresh window and attempt 0, from any state; reports
    /// the transition (unless already CLOSED) and `Reset`. The state it leaves keeps its
    /// timer armed, as in Resilience4j (see the module documentation).
    pub fn reset(&mut self, now: Millis) {
        self.advance_to(now);
        let to = match self.state {
            State::Open => Some(State::HalfOpen),
            State::HalfOpen => Some(self.config.transition_to_state_after_wait_duration),
            _ => None,
        };
        if let Some((due, to)) = self.next_timer().zip(to) {
            let order = self.left_armed_count;
            self.left_armed_count += 1;
            self.left_armed
                .push(Reverse(LeftArmedTimer { due, order, to }));
        }
        self.enter(State::Closed, self.now);
        if self.publishing(true) {
            self.events
                .push(CircuitBreakerEvent::Reset { at: self.now });
        }
    }

    /// Replaces the current state by a new one of state `to`, as Resilience4j's state
    /// objects do, and reports the transition unless it is to the same state.
    fn enter(&mut self, to: State, at: Millis) {
        let from = self.state;
        let mut zero_wait = false;
        match to {
            State::Closed | State::MetricsOnly => {
                self.window.reset(closed_window_kind(&self.config), at);
                self.minimum_calls = self.config.effective_minimum_number_of_calls();
                self.attempts = 0;
                self.not_permitted = 0;
                self.failure_rate_reported = false;
                self.slow_call_rate_reported = false;
            }
            State::Open => {
                // The OPEN state inherits the metrics (window and not-permitted count) of
                // the state it replaces.
                self.attempts = self.attempts.saturating_add(1);
                let wait = self
                    .config
                    .wait_in_open_state_memo(self.attempts, &mut self.wait_memo);
                self.open_until = i128::from(at) + i128::from(wait);
                zero_wait = wait <= 0;
            }
            State::HalfOpen => {
                let permitted = self.config.permitted_number_of_calls_in_half_open_state;
                self.window.reset(WindowKind::CountBased(permitted), at);
                self.minimum_calls = self.config.half_open_decision_calls();
                self.not_permitted = 0;
                self.permits_left = permitted;
                let max_wait = self.config.max_wait_duration_in_half_open_state;
                self.half_open_deadline = (max_wait >= 1).then(|| at.saturating_add(max_wait));
            }
            State::Disabled => {
                self.window.reset(WindowKind::Empty, at);
                self.minimum_calls = 0;
                self.attempts = 0;
                self.not_permitted = 0;
            }
            State::ForcedOpen => {
                self.window.reset(WindowKind::Empty, at);
                self.minimum_calls = 0;
                self.attempts = self.attempts.saturating_add(1);
                self.not_permitted = 0;
            }
        }
        self.state = to;
        self.entered_at = at;
        self.timer_due = self.earliest_timer();
        if from != to && self.publishing(true) {
            self.events
                .push(CircuitBreakerEvent::StateTransition { at, from, to });
        }
        // A wait of 0 ms (an interval function can shrink to it; a negative one, which a
        // negative multiplier gives, is scheduled as 0) with the automatic transition:
        // Resilience4j's OpenState constructor still schedules the move,
        // `schedule(toHalfOpenState, 0, MILLISECONDS)`, which runs on the scheduler thread,
        // not inline: `transitionToOpenState()` returns in OPEN having published X -> OPEN,
        // and the task moves on to HALF_OPEN moments later. In virtual time that is this
        // same instant: HALF_OPEN now, X -> OPEN reported first (not at all for
        // OPEN -> OPEN, an internal transition), then OPEN -> HALF_OPEN.
        if to == State::Open
            && zero_wait
            && self
                .config
                .automatic_transition_from_open_to_half_open_enabled
        {
            self.enter(State::HalfOpen, at);
        }
    }

    /// The metrics of the current window, as of the latest time seen.
    pub fn metrics(&self) -> Metrics {
        let s = self.window.snapshot();
        let computable = s.calls > 0 && s.calls >= self.minimum_calls;
        Metrics {
            failure_rate: if computable { s.failure_rate() } else { -1.0 },
            slow_call_rate: if computable { s.slow_call_rate() } else { -1.0 },
            buffered: s.calls,
            failed: s.failed,
            slow: s.slow,
            slow_failed: s.slow_failed,
            not_permitted: self.not_permitted,
            successful: s.successful(),
        }
    }

    /// The raw totals of the current window.
    pub fn snapshot(&self) -> Snapshot {
        self.window.snapshot()
    }

    /// The outcomes in the current window, oldest first (for TIME_BASED, grouped per
    /// second; see [`SlidingWindow::cells`]).
    pub fn window_cells(&self) -> Vec<WindowCell> {
        self.window.cells()
    }

    /// TIME_BASED: the window's seconds, oldest first. Empty otherwise.
    pub fn window_buckets(&self) -> Vec<Bucket> {
        self.window.buckets()
    }

    /// The shape of the current window (COUNT_BASED in HALF_OPEN, empty when DISABLED or
    /// FORCED_OPEN).
    pub fn window_kind(&self) -> WindowKind {
        self.window.kind()
    }

    /// Outcomes the current window needs before its rates are computable.
    pub fn minimum_number_of_calls(&self) -> u32 {
        self.minimum_calls
    }

    /// When OPEN: the end of the wait (`opened_at + wait`), within `0..=Millis::MAX` (a
    /// negative wait ends before 0 ms: any request is then after it).
    pub fn open_until(&self) -> Option<Millis> {
        (self.state == State::Open).then_some(clamp_millis(self.open_until))
    }

    /// Milliseconds left before OPEN may become HALF_OPEN (None unless OPEN). At 0 an
    /// automatic transition fires; without one, the next request after this instant is the
    /// first trial.
    pub fn open_wait_remaining(&self, now: Millis) -> Option<Millis> {
        self.open_until()
            .map(|until| until.saturating_sub(now.max(self.now)))
    }

    /// When HALF_OPEN: when `maxWaitDurationInHalfOpenState` runs out, if set.
    pub fn half_open_deadline(&self) -> Option<Millis> {
        if self.state == State::HalfOpen {
            self.half_open_deadline
        } else {
            None
        }
    }

    /// HALF_OPEN trial permits handed out so far (and not given back) / permitted
    /// (None unless HALF_OPEN).
    pub fn half_open_trials(&self) -> Option<(u32, u32)> {
        (self.state == State::HalfOpen).then(|| {
            let permitted = self.config.permitted_number_of_calls_in_half_open_state;
            (permitted.saturating_sub(self.permits_left), permitted)
        })
    }

    /// HALF_OPEN: permits left to hand out (None unless HALF_OPEN). Can exceed the
    /// permitted number after releases without acquires, as in Resilience4j.
    pub fn half_open_permits_left(&self) -> Option<u32> {
        (self.state == State::HalfOpen).then_some(self.permits_left)
    }

    /// The attempt counter of the growing wait: 1 on the first opening, +1 for each
    /// HALF_OPEN -> OPEN (and each manual move to OPEN or FORCED_OPEN), 0 in CLOSED,
    /// METRICS_ONLY and DISABLED.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Events since the last drain, oldest first.
    pub fn drain_events(&mut self) -> Vec<CircuitBreakerEvent> {
        std::mem::take(&mut self.events)
    }

    /// [`Self::drain_events`] into `buffer` (emptied first), which the breaker takes in
    /// exchange: a model that drains after every call reuses two buffers instead of
    /// allocating a new one each time.
    pub fn drain_events_into(&mut self, buffer: &mut Vec<CircuitBreakerEvent>) {
        buffer.clear();
        std::mem::swap(&mut self.events, buffer);
    }

    /// Events not yet drained.
    pub fn pending_events(&self) -> &[CircuitBreakerEvent] {
        &self.events
    }
}

/// An OPEN wait's end as a time: below 0 reads as 0, past the clock's end as its end.
fn clamp_millis(t: i128) -> Millis {
    t.clamp(0, i128::from(Millis::MAX)) as Millis
}

/// What Resilience4j's breaker itself throws from `onSuccess` / `onError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerError {
    /// `ArithmeticException: / by zero`: an outcome reported in OPEN entered by hand from
    /// DISABLED or FORCED_OPEN, whose zero-size window OPEN kept. The outcome was counted
    /// first; the breaker stays OPEN.
    DivisionByZero,
}

impl fmt::Display for BreakerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BreakerError::DivisionByZero => f.write_str(
                "ArithmeticException: / by zero (Resilience4j throws it here: this OPEN was entered from DISABLED or FORCED_OPEN and kept their zero-size window; the outcome was counted, then moving the window divided by its size 0)",
            ),
        }
    }
}

impl std::error::Error for BreakerError {}

fn closed_window_kind(config: &CircuitBreakerConfig) -> WindowKind {
    match config.sliding_window_type {
        SlidingWindowType::CountBased => WindowKind::CountBased(config.sliding_window_size),
        SlidingWindowType::TimeBased => WindowKind::TimeBased(config.sliding_window_size),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker(edit: impl FnOnce(&mut CircuitBreakerConfig)) -> CircuitBreaker {
        let mut config = CircuitBreakerConfig {
            sliding_window_size: 4,
            minimum_number_of_calls: 4,
            permitted_number_of_calls_in_half_open_state: 2,
            wait_duration_in_open_state: 1_000,
            ..CircuitBreakerConfig::default()
        };
        edit(&mut config);
        CircuitBreaker::new(config).unwrap()
    }

    #[test]
    fn legal_transition_table() {
        let legal = |f: State, t: State| f.can_transition_to(t);
        for s in State::ALL {
            assert!(legal(s, s), "{s} -> {s}");
            assert!(legal(s, State::MetricsOnly) || s == State::MetricsOnly);
        }
        assert!(!legal(State::Closed, State::HalfOpen));
        assert!(!legal(State::MetricsOnly, State::Open));
        assert!(!legal(State::MetricsOnly, State::HalfOpen));
        assert!(legal(State::ForcedOpen, State::HalfOpen));
        assert!(legal(State::Disabled, State::Open));
    }

    /// The count-based shortcuts agree with Resilience4j's `f32` comparison everywhere.
    #[test]
    fn threshold_shortcuts_match_the_f32_comparison() {
        let thresholds = [
            0.1f32, 1.0, 10.0, 12.5, 20.0, 25.0, 33.0, 33.333_332, 33.333_336, 40.0, 50.0, 60.0,
            66.666_66, 66.666_67, 70.0, 75.0, 80.0, 90.0, 99.0, 99.99, 100.0,
        ];
        for &threshold in &thresholds {
            for n in 1..=400u32 {
                let fewest = fewest_reaching(threshold, n);
                for k in 0..=n {
                    let exact = window::percent(k, n) >= threshold;
                    assert_eq!(reaches(k, n, threshold), exact, "{k}/{n} vs {threshold}");
                    assert_eq!(k >= fewest, exact, "{k}/{n} vs {threshold}");
                }
            }
            for n in [1_000_000u32, 16_777_217, 3_000_000_000] {
                for k in [0, 1, n / 3, n / 2, n - 1, n] {
                    let exact = window::percent(k, n) >= threshold;
                    assert_eq!(reaches(k, n, threshold), exact, "{k}/{n} vs {threshold}");
                }
            }
        }
    }

    #[test]
    fn four_failures_open_then_two_trials_close() {
        let mut cb = breaker(|_| {});
        for t in 0..4 {
            assert!(cb.try_acquire_permission(t));
            cb.on_error(t, 10, "IOException");
        }
        assert_eq!(cb.state(), State::Open);
        assert_eq!(cb.metrics().failure_rate, 100.0);
        assert!(!cb.try_acquire_permission(1_003)); // opened at 3, wait ends at 1003
        assert!(cb.try_acquire_permission(1_004));
        assert_eq!(cb.state(), State::HalfOpen);
        cb.on_success(1_010, 5);
        assert!(cb.try_acquire_permission(1_010));
        assert!(!cb.try_acquire_permission(1_010));
        cb.on_success(1_020, 5);
        assert_eq!(cb.state(), State::Closed);
        assert_eq!(cb.attempts(), 0);
    }
}
