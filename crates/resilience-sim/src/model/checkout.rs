//! # Lab E (Demo 13): payment and shipping, where what counts as a failure matters
//!
//! Checkout calls two dependencies: a payment provider (capture a card) and a shipping
//! quoter. Each has its own stack of the engine's policies. The lesson is in details that
//! production stacks get wrong:
//!
//! - **A decline is an answer, not a failure.** `CardDeclinedException` is in the payment
//!   breaker's and retry's `ignoreExceptions`: a coupon campaign that brings 100 legitimate
//!   declines leaves the breaker CLOSED and retries nothing.
//! - **A read timeout on a capture is never retried.** The provider may have captured; a
//!   second capture could charge twice (the idempotency key makes that safe on the
//!   provider's side, but only a reconciliation tells what happened). The saga records
//!   UNCERTAIN, keeps the seat, and reconciles by the idempotency key. A connect failure
//!   never reached the provider: it may be retried, once.
//! - **Refusals are inputs, not errors of the provider.** An open breaker
//!   (`CallNotPermittedException`) and a full bulkhead (`BulkheadFullException`) mean the
//!   capture was NOT_SENT: the order can be retried later or paid another way.
//! - **One shared bulkhead lets the quoter starve payment.** With separate bulkheads (payment
//!   20, shipping 8) a stalled quoter fills only its own 8 permits.
//! - **Virtual threads remove thread starvation, not the reason for a limit.** With no
//!   bulkhead, a stalled quoter's calls take the request threads on platform threads and
//!   captures wait for one until the shopper gives up; on virtual threads payment keeps its
//!   threads, but the calls to the stalled quoter pile up, nothing limiting how many are
//!   under way.
//! - **A fallback never says CAPTURED.** [`PaymentFallback`] has no such variant: the
//!   type system forbids it.
//!
//! ## The stacks
//!
//! - Payment: HTTP connect timeout 200 ms, read timeout 800 ms (inside the call: they free
//!   the connection); semaphore bulkhead 20 (with `separate` bulkheads), `maxWaitDuration`
//!   20 ms; breaker COUNT_BASED 20, `minimumNumberOfCalls` 10, failure rate 50 %, slow
//!   calls over 800 ms at 80 %, wait 30 s, 5 half-open trials, declines ignored; retry 2
//!   attempts on `ConnectException` only, a fixed 100 ms wait, declines ignored. Every
//!   attempt carries the call's idempotency key.
//! - Shipping: connect 200 ms, read 2 s; semaphore bulkhead 8 (with `separate` bulkheads),
//!   `maxWaitDuration` 20 ms; breaker with Resilience4j's rates (COUNT_BASED 20, minimum
//!   10, 50 %, wait 30 s); retry 3 attempts on `IOException` (a quote is safe to ask
//!   again) with exponential random backoff (100 ms, x2, ±50 %). Falls back to the agreed
//!   estimate. Digital goods (a quarter of the orders) need no shipping: they never call
//!   the quoter.
//!
//! ## Decorator order ([`StackOrder`]) and bulkheads ([`Bulkheads`])
//!
//! Two independent choices, so that each effect can be seen alone.
//!
//! - `resilience4j`: `Retry(CircuitBreaker(Bulkhead(call)))` per dependency: the breaker
//!   records every attempt, an open breaker fails the remaining attempts fast (and the
//!   retry does not retry `CallNotPermittedException`).
//! - `breaker-outside-retry`: `CircuitBreaker(Retry(Bulkhead(call)))`: the breaker is asked
//!   once per logical call and records one outcome, after its retries and their waits.
//!
//! - `separate`: a bulkhead per dependency, payment 20 and shipping 8.
//! - `shared`: one bulkhead of 20 shared by both dependencies: the permits a stalled quoter
//!   holds are permits payment lacks, so payment's breaker records `BulkheadFullException`s
//!   it owes to the quoter.
//! - `none`: no bulkhead at all: nothing limits the calls under way but the threads (or the
//!   connections).
//!
//! The link's old `order=wrong` (the breaker outside the retry with one shared bulkhead)
//! reads as `order=breaker-outside-retry&bulkheads=shared` ([`CheckoutLab`]'s legacy pairs).
//!
//! [`CheckoutLab`]: crate::scenario::checkout_lab::CheckoutLab
//!
//! ## Threads ([`Threads`])
//!
//! - `platform`: 40 request threads serve checkout; a call waits for one in line (first
//!   come, first served) and holds it until it ends, retries and waits included. The
//!   shopper gives up on a request still in line 1 s after it arrived ([`SHOPPER_WAIT_MS`]):
//!   the server never works on it (a capture is NOT_SENT, no free thread; the quote shown
//!   is the agreed estimate).
//! - `virtual`: threads are cheap and never run out; the scarce resource becomes the HTTP
//!   connection pool of each dependency (10 connections). An attempt that finds no free
//!   connection waits for one up to its connect timeout (200 ms) and then fails as a
//!   connect failure. The semaphore bulkhead, if there is one, still decides who may wait at
//!   all.
//!
//! ## Traffic and scenarios ([`CheckoutScenario`])
//!
//! Captures arrive every 100 ms and quotes every 50 ms, evenly; between them, an order of
//! digital goods every 150 ms asks for no quote. Times vary ±20 % (seeded).
//! Healthy, the provider captures in 300 ms and the quoter answers in 100 ms.
//!
//! - `decline-storm`: 100 captures over 10 s, every card declined (a business answer);
//! - `quoter-stall`: the quoter stops answering from 10 s to 40 s, payments go on (60 s);
//! - `connection-reset`: the provider refuses every connection (60 s);
//! - `lost-response`: the provider captures but its answer is lost: read timeouts (60 s);
//! - `provider-timeouts`: the provider stops answering within 800 ms and drops the capture
//!   (60 s). Our side sees what it sees in `lost-response`, read timeouts and UNCERTAIN;
//!   only the reconciliation by idempotency key tells them apart: CAPTURED there,
//!   NOT_CAPTURED here ([`Reconciliation`]);
//! - `game-day`: the quoter stall and, in the same minute, one declined card (60 s).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::vary;
use crate::error::ConfigError;
use crate::policy::bulkhead::{Admission, BulkheadConfig, SemaphoreBulkhead, WaiterId};
use crate::policy::circuit_breaker::{CircuitBreaker, CircuitBreakerConfig, Classification, State};
use crate::policy::fallback::{PaymentFallback, PaymentStatus, ShippingFallback};
use crate::policy::retry::{
    IntervalFunction, Retry, RetryConfig, RetryContext, RetryDecision, RetryMetrics,
};
use crate::{Millis, Outcome};

/// The most calls a run keeps a trace of, per dependency (the rest are counted only).
pub const MAX_TRACES: usize = 2_000;

/// The scenarios the learner predicts and runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckoutScenario {
    #[default]
    DeclineStorm,
    QuoterStall,
    ConnectionReset,
    LostResponse,
    ProviderTimeouts,
    GameDay,
}

impl CheckoutScenario {
    pub const ALL: [CheckoutScenario; 6] = [
        CheckoutScenario::DeclineStorm,
        CheckoutScenario::QuoterStall,
        CheckoutScenario::ConnectionReset,
        CheckoutScenario::LostResponse,
        CheckoutScenario::ProviderTimeouts,
        CheckoutScenario::GameDay,
    ];

    /// The name the link, the CLI and JSON use.
    pub const fn name(self) -> &'static str {
        match self {
            CheckoutScenario::DeclineStorm => "decline-storm",
            CheckoutScenario::QuoterStall => "quoter-stall",
            CheckoutScenario::ConnectionReset => "connection-reset",
            CheckoutScenario::LostResponse => "lost-response",
            CheckoutScenario::ProviderTimeouts => "provider-timeouts",
            CheckoutScenario::GameDay => "game-day",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// A short label for a select.
    pub const fn label(self) -> &'static str {
        match self {
            CheckoutScenario::DeclineStorm => "decline storm (100 declines)",
            CheckoutScenario::QuoterStall => "quoter stalls for 30 s",
            CheckoutScenario::ConnectionReset => "provider refuses connections",
            CheckoutScenario::LostResponse => "captured, answer lost",
            CheckoutScenario::ProviderTimeouts => "provider times out",
            CheckoutScenario::GameDay => "game day: stall + a decline",
        }
    }

    /// How long the scenario runs, in ms.
    pub const fn length_ms(self) -> Millis {
        match self {
            CheckoutScenario::DeclineStorm => 10_000,
            _ => 60_000,
        }
    }

    fn quoter_stalls(self, at: Millis) -> bool {
        matches!(
            self,
            CheckoutScenario::QuoterStall | CheckoutScenario::GameDay
        ) && (STALL_FROM_MS..STALL_UNTIL_MS).contains(&at)
    }
}

/// The quoter's stall in the stall scenarios.
pub const STALL_FROM_MS: Millis = 10_000;
pub const STALL_UNTIL_MS: Millis = 40_000;
/// The capture declined on game day (the 201st, at about 20 s).
pub const GAME_DAY_DECLINED_CAPTURE: u32 = 200;

/// How the policies wrap the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StackOrder {
    /// `Retry(CircuitBreaker(Bulkhead(call)))`: the breaker records every attempt.
    #[default]
    Resilience4j,
    /// `CircuitBreaker(Retry(Bulkhead(call)))`: the breaker is asked once per call and
    /// records one outcome, after the retries.
    BreakerOutsideRetry,
}

impl StackOrder {
    pub const ALL: [StackOrder; 2] = [StackOrder::Resilience4j, StackOrder::BreakerOutsideRetry];

    pub const fn name(self) -> &'static str {
        match self {
            StackOrder::Resilience4j => "resilience4j",
            StackOrder::BreakerOutsideRetry => "breaker-outside-retry",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    pub const fn label(self) -> &'static str {
        match self {
            StackOrder::Resilience4j => "Resilience4j's order",
            StackOrder::BreakerOutsideRetry => "breaker outside retry",
        }
    }
}

/// Which bulkheads limit the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bulkheads {
    /// A bulkhead per dependency: payment 20, shipping 8.
    #[default]
    Separate,
    /// One bulkhead of [`SHARED_BULKHEAD`] for both dependencies.
    Shared,
    /// No bulkhead at all.
    None,
}

impl Bulkheads {
    pub const ALL: [Bulkheads; 3] = [Bulkheads::Separate, Bulkheads::Shared, Bulkheads::None];

    pub const fn name(self) -> &'static str {
        match self {
            Bulkheads::Separate => "separate",
            Bulkheads::Shared => "shared",
            Bulkheads::None => "none",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    pub const fn label(self) -> &'static str {
        match self {
            Bulkheads::Separate => "separate (20 and 8)",
            Bulkheads::Shared => "shared (one of 20)",
            Bulkheads::None => "none",
        }
    }

    /// The permits of payment's and shipping's bulkheads (the same one when shared);
    /// `None` without a bulkhead.
    pub const fn permits(self) -> Option<(u32, u32)> {
        match self {
            Bulkheads::Separate => Some((PAYMENT_BULKHEAD, SHIPPING_BULKHEAD)),
            Bulkheads::Shared => Some((SHARED_BULKHEAD, SHARED_BULKHEAD)),
            Bulkheads::None => None,
        }
    }
}

/// What kind of threads serve checkout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Threads {
    /// A pool of 40 request threads that can run out.
    #[default]
    Platform,
    /// Unlimited threads; 10 HTTP connections per dependency.
    Virtual,
}

impl Threads {
    pub const ALL: [Threads; 2] = [Threads::Platform, Threads::Virtual];

    pub const fn name(self) -> &'static str {
        match self {
            Threads::Platform => "platform",
            Threads::Virtual => "virtual",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    pub const fn label(self) -> &'static str {
        match self {
            Threads::Platform => "platform (a pool of 40)",
            Threads::Virtual => "virtual (10 connections each)",
        }
    }
}

/// Request threads with [`Threads::Platform`].
pub const PLATFORM_THREADS: u32 = 40;
/// HTTP connections per dependency with [`Threads::Virtual`].
pub const CONNECTIONS_PER_DEPENDENCY: u32 = 10;
/// The bulkheads of [`Bulkheads::Separate`].
pub const PAYMENT_BULKHEAD: u32 = 20;
pub const SHIPPING_BULKHEAD: u32 = 8;
/// The one bulkhead of [`Bulkheads::Shared`].
pub const SHARED_BULKHEAD: u32 = 20;
/// How long a shopper waits for the server to take a request (platform threads): a
/// request still in line for a thread then is given up, the server never works on it.
pub const SHOPPER_WAIT_MS: Millis = 1_000;

/// Lab E's config: the scenario, the order, the bulkheads, the threads, the seed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CheckoutConfig {
    pub scenario: CheckoutScenario,
    pub order: StackOrder,
    pub bulkheads: Bulkheads,
    pub threads: Threads,
    pub seed: u64,
}

/// The two dependencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dependency {
    Payment,
    Shipping,
}

/// A capture's state in the order saga.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SagaState {
    /// The provider answered: captured.
    Captured,
    /// The provider answered: declined (a business answer).
    Declined,
    /// Nobody knows: reconcile by the idempotency key; the seat is kept.
    Uncertain,
    /// The capture never reached the provider (refused locally or no connection).
    NotSent,
}

impl SagaState {
    pub const ALL: [SagaState; 4] = [
        SagaState::Captured,
        SagaState::Declined,
        SagaState::Uncertain,
        SagaState::NotSent,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            SagaState::Captured => "CAPTURED",
            SagaState::Declined => "DECLINED",
            SagaState::Uncertain => "UNCERTAIN",
            SagaState::NotSent => "NOT_SENT",
        }
    }

    /// The saga state of a payment status (a fallback's `Failed` is NOT_SENT: the
    /// provider was not reached).
    pub fn of(status: PaymentStatus) -> Self {
        match status {
            PaymentStatus::Captured => SagaState::Captured,
            PaymentStatus::Declined => SagaState::Declined,
            PaymentStatus::Uncertain => SagaState::Uncertain,
            PaymentStatus::Failed => SagaState::NotSent,
        }
    }
}

/// The payment fallback for the outcome that ended a capture: UNCERTAIN when the provider
/// may have acted on it (a read timeout, a 5xx), else a typed error. Never CAPTURED.
pub fn payment_fallback(outcome: Outcome) -> PaymentFallback {
    match outcome {
        Outcome::ReadTimeout | Outcome::Http5xx => PaymentFallback::Uncertain,
        Outcome::CallNotPermitted => {
            PaymentFallback::TypedError("PaymentTemporarilyUnavailable".into())
        }
        Outcome::BulkheadFull | Outcome::NoFreeThread => {
            PaymentFallback::TypedError("PaymentBusy".into())
        }
        _ => PaymentFallback::TypedError("PaymentUnavailable".into()),
    }
}

/// The shipping fallback: the agreed estimate for physical goods (the workbook path), no
/// quote at all for digital goods.
pub fn shipping_fallback(digital: bool) -> ShippingFallback {
    if digital {
        ShippingFallback::HideQuote
    } else {
        ShippingFallback::AgreedEstimate
    }
}

/// How one attempt went through the layers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptTrace {
    /// When the attempt started (ms from the start of the run).
    pub at: Millis,
    /// The breaker's state when asked, and whether it let the call through. With the
    /// breaker outside the retry it is asked once per call, before the first attempt.
    pub breaker_state: State,
    pub permitted: bool,
    /// The bulkhead's available permits after this attempt asked; `None` if it never got
    /// there or there is no bulkhead; `rejected` when it said `BulkheadFullException`.
    pub permits_left: Option<u32>,
    pub rejected: bool,
    /// The provider's outcome and how long the attempt took; `None` when refused before.
    pub outcome: Outcome,
    pub duration: Millis,
    /// Whether a request reached the provider (a connection was attempted).
    pub provider_request: bool,
    /// The retry's decision after this attempt: `Some(wait)` to retry, else `None`.
    pub retry_after: Option<Millis>,
}

/// One logical call: its attempts, and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallTrace {
    pub dependency: Dependency,
    /// The call's number within its dependency (0-based); the idempotency key is
    /// `order-N` for capture N.
    pub index: u32,
    pub arrived: Millis,
    /// When it got a request thread (platform threads), if it did. A call that never got
    /// one has no attempts: the shopper gave up ([`SHOPPER_WAIT_MS`]).
    pub started: Millis,
    pub ended: Millis,
    pub attempts: Vec<AttemptTrace>,
    /// Payment: the saga state; shipping: `None`.
    pub saga: Option<SagaState>,
    /// Shipping: how the quote ended; payment: `None`.
    pub quote: Option<QuoteResult>,
    /// Why the retry stopped, in words.
    pub why: String,
    /// The provider captured (it may have, although the answer was lost).
    pub provider_captured: bool,
}

/// How a quote ended for the shopper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuoteResult {
    Live,
    Estimate,
    Hidden,
}

/// The payment side's figures (names fixed by the issue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentSummary {
    /// Logical captures.
    pub calls: u32,
    /// Attempts through the stack (a refused call is one attempt).
    pub attempts: u32,
    /// Requests that reached the provider (a connection was tried).
    pub provider_requests: u32,
    pub retries: u32,
    pub breaker_state_end: State,
    /// Outcomes the breaker recorded (successes and failures; ignored and refused calls
    /// are not recorded).
    pub breaker_recorded_calls: u32,
    pub breaker_recorded_failures: u32,
    pub not_permitted: u32,
    pub bulkhead_rejected: u32,
    /// The fewest permits the payment bulkhead (or the shared one) had left; `None` (null)
    /// without a bulkhead.
    pub bulkhead_available_min: Option<u32>,
    /// Captures the shopper gave up on while they waited for a request thread (platform
    /// threads): never sent, NOT_SENT.
    pub no_thread: u32,
    /// The most captures under way at once: arrived and not ended, whether waiting for a
    /// thread, a permit or a connection, between attempts or waiting for an answer.
    pub under_way_max: u32,
    /// Captures the provider made, answered or not.
    pub provider_captures: u32,
    pub saga: SagaTally,
    /// The UNCERTAIN captures, reconciled.
    pub reconciled: Reconciliation,
    pub retry_metrics: RetryMetrics,
}

/// What the reconciliation by idempotency key found for the UNCERTAIN captures: the
/// provider's own record, which our side could not see when the read timed out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reconciliation {
    #[serde(rename = "CAPTURED")]
    pub captured: u32,
    #[serde(rename = "NOT_CAPTURED")]
    pub not_captured: u32,
}

/// Saga states of every capture (names fixed by the issue).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SagaTally {
    #[serde(rename = "CAPTURED")]
    pub captured: u32,
    #[serde(rename = "DECLINED")]
    pub declined: u32,
    #[serde(rename = "UNCERTAIN")]
    pub uncertain: u32,
    #[serde(rename = "NOT_SENT")]
    pub not_sent: u32,
}

impl SagaTally {
    fn add(&mut self, state: SagaState) {
        match state {
            SagaState::Captured => self.captured += 1,
            SagaState::Declined => self.declined += 1,
            SagaState::Uncertain => self.uncertain += 1,
            SagaState::NotSent => self.not_sent += 1,
        }
    }

    pub fn total(&self) -> u32 {
        self.captured + self.declined + self.uncertain + self.not_sent
    }
}

/// Quotes by how they ended (names fixed by the issue).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuoteTally {
    pub live: u32,
    pub estimate: u32,
    pub hidden: u32,
}

/// The shipping side's figures (names fixed by the issue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShippingSummary {
    pub calls: u32,
    pub attempts: u32,
    pub provider_requests: u32,
    pub retries: u32,
    pub breaker_state_end: State,
    pub breaker_recorded_calls: u32,
    pub not_permitted: u32,
    pub bulkhead_rejected: u32,
    pub bulkhead_available_min: Option<u32>,
    /// Quotes the shopper gave up on while they waited for a request thread: the page
    /// shows the agreed estimate.
    pub no_thread: u32,
    /// The most quotes under way at once.
    pub under_way_max: u32,
    pub quotes: QuoteTally,
}

/// One second of the run: both breakers at its end; the fewest permits each bulkhead had
/// during it (`None` without a bulkhead) and the most calls of each dependency under way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckoutSecond {
    pub t_s: u32,
    pub payment_permits_min: Option<u32>,
    pub shipping_permits_min: Option<u32>,
    /// The most calls under way at once during the second (see
    /// [`PaymentSummary::under_way_max`]).
    pub payment_under_way_max: u32,
    pub shipping_under_way_max: u32,
    pub payment_breaker: State,
    pub shipping_breaker: State,
    /// Request threads in use at the second's end (platform), or calls in progress.
    pub threads_in_use: u32,
    pub captures: SagaTally,
}

/// A run of Lab E.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckoutRun {
    pub scenario: CheckoutScenario,
    pub order: StackOrder,
    pub bulkheads: Bulkheads,
    pub threads: Threads,
    pub payment: PaymentSummary,
    pub shipping: ShippingSummary,
    pub seconds: Vec<CheckoutSecond>,
    /// The permits of each bulkhead (payment, shipping; equal when shared; `None` without
    /// a bulkhead).
    pub payment_permits: Option<u32>,
    pub shipping_permits: Option<u32>,
    /// Orders of digital goods (one every 150 ms, a quarter of the orders): no shipping.
    pub digital_orders: u32,
    /// Quote requests those orders sent (attempts): 0, as digital goods need no shipping.
    pub quotes_from_digital: u32,
    /// Every call, in the order they arrived (at most [`MAX_TRACES`] per dependency).
    pub calls: Vec<CallTrace>,
}

// ---------------------------------------------------------------------------------------
// The stacks' configs
// ---------------------------------------------------------------------------------------

pub const PAYMENT_CONNECT_TIMEOUT_MS: Millis = 200;
pub const PAYMENT_READ_TIMEOUT_MS: Millis = 800;
pub const SHIPPING_READ_TIMEOUT_MS: Millis = 2_000;
const CAPTURE_MS: Millis = 300;
const QUOTE_MS: Millis = 100;
const REFUSED_CONNECTION_MS: Millis = 5;
const CAPTURE_EVERY_MS: Millis = 100;
const DIGITAL_EVERY_MS: Millis = 150;
const QUOTE_EVERY_MS: Millis = 50;

pub fn payment_breaker_config() -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        sliding_window_size: 20,
        minimum_number_of_calls: 10,
        failure_rate_threshold: 50.0,
        slow_call_duration_threshold: 800,
        slow_call_rate_threshold: 80.0,
        wait_duration_in_open_state: 30_000,
        permitted_number_of_calls_in_half_open_state: 5,
        ignore_exceptions: vec!["CardDeclinedException".into()],
        ..CircuitBreakerConfig::default()
    }
}

pub fn payment_retry_config() -> RetryConfig {
    RetryConfig {
        max_attempts: 2,
        wait_duration: 100,
        retry_exceptions: vec!["ConnectException".into()],
        ignore_exceptions: vec!["CardDeclinedException".into()],
        ..RetryConfig::default()
    }
}

pub fn shipping_breaker_config() -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        sliding_window_size: 20,
        minimum_number_of_calls: 10,
        wait_duration_in_open_state: 30_000,
        permitted_number_of_calls_in_half_open_state: 5,
        ..CircuitBreakerConfig::default()
    }
}

pub fn shipping_retry_config() -> RetryConfig {
    RetryConfig {
        max_attempts: 3,
        wait_duration: 100,
        interval_function: Some(IntervalFunction::ExponentialRandomized {
            initial_interval: 100,
            multiplier: 2.0,
            randomization_factor: 0.5,
            max_interval: None,
        }),
        retry_exceptions: vec!["IOException".into()],
        ..RetryConfig::default()
    }
}

pub fn bulkhead_config(permits: u32) -> BulkheadConfig {
    BulkheadConfig {
        max_concurrent_calls: permits,
        max_wait_duration: 20,
    }
}

// ---------------------------------------------------------------------------------------
// The simulation
// ---------------------------------------------------------------------------------------

/// Events, handled in (time, class, id) order.
const CALL_DONE: u8 = 0;
const WAIT_EXPIRED: u8 = 1;
const CONNECT_EXPIRED: u8 = 2;
const RETRY: u8 = 3;
const START: u8 = 4;
const ARRIVE: u8 = 5;
const GAVE_UP: u8 = 6;

#[derive(Debug)]
struct Stack {
    breaker: CircuitBreaker,
    retry: Retry,
    permits_min: u32,
    second_min: u32,
    recorded: u32,
    recorded_failures: u32,
    not_permitted: u32,
    rejected: u32,
    attempts: u32,
    provider_requests: u32,
    retries: u32,
}

impl Stack {
    fn new(breaker: CircuitBreakerConfig, retry: RetryConfig) -> Result<Self, ConfigError> {
        let mut breaker = CircuitBreaker::new(breaker)?;
        breaker.set_event_recording(false);
        Ok(Self {
            breaker,
            retry: Retry::new(retry)?,
            permits_min: u32::MAX,
            second_min: u32::MAX,
            recorded: 0,
            recorded_failures: 0,
            not_permitted: 0,
            rejected: 0,
            attempts: 0,
            provider_requests: 0,
            retries: 0,
        })
    }

    /// Records an attempt's (or, with the breaker outside the retry, a call's) outcome on
    /// the breaker.
    fn record(&mut self, now: Millis, duration: Millis, outcome: Outcome) {
        match outcome.exception_name() {
            None => {
                self.breaker.on_success(now, duration);
                self.recorded += 1;
            }
            Some(exception) => {
                self.breaker.on_error(now, duration, exception);
                match self.breaker.classify(exception) {
                    Classification::Ignored => {}
                    classification => {
                        self.recorded += 1;
                        self.recorded_failures +=
                            u32::from(classification == Classification::Failure);
                    }
                }
            }
        }
    }
}

#[derive(Debug)]
struct Call {
    trace: CallTrace,
    retry: RetryContext,
    /// The bulkhead waiter of the current attempt, if it waits for a permit.
    waiter: Option<WaiterId>,
    /// Holds a permit and (virtual threads) a connection.
    holds_permit: bool,
    holds_connection: bool,
    /// The breaker outside the retry permitted the call (asked once).
    breaker_permitted: bool,
    has_thread: bool,
    done: bool,
    digital: bool,
}

struct Sim {
    config: CheckoutConfig,
    stacks: [Stack; 2],
    /// One bulkhead per dependency, one shared (index 0), or none.
    bulkheads: Vec<SemaphoreBulkhead>,
    waiters: Vec<(WaiterId, u32)>,
    connections_free: [u32; 2],
    connection_waiters: [VecDeque<(u32, Millis)>; 2],
    threads_free: u32,
    thread_line: VecDeque<u32>,
    /// Calls of each dependency under way now, and the most during the second and the run.
    under_way: [u32; 2],
    under_way_second: [u32; 2],
    under_way_max: [u32; 2],
    no_thread: [u32; 2],
    calls: Vec<Call>,
    events: BinaryHeap<Reverse<(Millis, u8, u32)>>,
    rng: Pcg64Mcg,
    captures_made: u32,
    seconds: Vec<CheckoutSecond>,
    second_captures: SagaTally,
}

fn dep_index(dependency: Dependency) -> usize {
    match dependency {
        Dependency::Payment => 0,
        Dependency::Shipping => 1,
    }
}

impl Sim {
    fn new(config: &CheckoutConfig) -> Result<Self, ConfigError> {
        let bulkheads = match config.bulkheads {
            Bulkheads::Separate => vec![
                SemaphoreBulkhead::new(bulkhead_config(PAYMENT_BULKHEAD))?,
                SemaphoreBulkhead::new(bulkhead_config(SHIPPING_BULKHEAD))?,
            ],
            Bulkheads::Shared => vec![SemaphoreBulkhead::new(bulkhead_config(SHARED_BULKHEAD))?],
            Bulkheads::None => Vec::new(),
        };
        Ok(Self {
            config: config.clone(),
            stacks: [
                Stack::new(payment_breaker_config(), payment_retry_config())?,
                Stack::new(shipping_breaker_config(), shipping_retry_config())?,
            ],
            bulkheads,
            waiters: Vec::new(),
            connections_free: [CONNECTIONS_PER_DEPENDENCY; 2],
            connection_waiters: [VecDeque::new(), VecDeque::new()],
            threads_free: PLATFORM_THREADS,
            thread_line: VecDeque::new(),
            under_way: [0; 2],
            under_way_second: [0; 2],
            under_way_max: [0; 2],
            no_thread: [0; 2],
            calls: Vec::new(),
            events: BinaryHeap::new(),
            rng: Pcg64Mcg::seed_from_u64(config.seed ^ 0x0C4E_C0C7),
            captures_made: 0,
            seconds: Vec::new(),
            second_captures: SagaTally::default(),
        })
    }

    fn schedule(&mut self, at: Millis, class: u8, id: u32) {
        self.events.push(Reverse((at, class, id)));
    }

    /// The bulkhead a dependency's attempts ask, if there is one.
    fn bulkhead_of(&self, dependency: Dependency) -> Option<usize> {
        match self.config.bulkheads {
            Bulkheads::Separate => Some(dep_index(dependency)),
            Bulkheads::Shared => Some(0),
            Bulkheads::None => None,
        }
    }

    fn run(mut self) -> CheckoutRun {
        let length = self.config.scenario.length_ms();
        // Arrivals: captures every 100 ms, quotes for physical goods every 50 ms, and an
        // order of digital goods (which needs no quote) every 150 ms: a quarter of orders.
        // In time order; at equal times a capture first (a stable sort).
        let mut arrivals: Vec<(Millis, Dependency, bool)> = (0..length / CAPTURE_EVERY_MS)
            .map(|k| (k * CAPTURE_EVERY_MS, Dependency::Payment, false))
            .chain(
                (0..length / QUOTE_EVERY_MS)
                    .map(|k| (k * QUOTE_EVERY_MS + 25, Dependency::Shipping, false)),
            )
            .chain(
                (0..length / DIGITAL_EVERY_MS)
                    .map(|k| (k * DIGITAL_EVERY_MS + 75, Dependency::Shipping, true)),
            )
            .collect();
        arrivals.sort_by_key(|&(at, _, _)| at);
        let mut indices = [0u32; 2];
        for (at, dependency, digital) in arrivals {
            let index = indices[dep_index(dependency)];
            if !digital {
                indices[dep_index(dependency)] += 1;
            }
            let id = self.calls.len() as u32;
            self.calls.push(Call {
                trace: CallTrace {
                    dependency,
                    index,
                    arrived: at,
                    started: at,
                    ended: at,
                    attempts: Vec::new(),
                    saga: None,
                    quote: None,
                    why: String::new(),
                    provider_captured: false,
                },
                retry: self.stacks[dep_index(dependency)].retry.start(),
                waiter: None,
                holds_permit: false,
                holds_connection: false,
                breaker_permitted: false,
                has_thread: false,
                done: digital,
                digital,
            });
            // Digital goods need no shipping: the order never asks the quoter.
            if !digital {
                self.schedule(at, ARRIVE, id);
            }
        }
        let mut boundary = 1_000;
        while let Some(Reverse((at, class, id))) = self.events.pop() {
            while at >= boundary {
                self.close_second(boundary);
                boundary += 1_000;
            }
            match class {
                ARRIVE => self.arrive(at, id),
                START => self.start(at, id),
                RETRY => self.attempt(at, id),
                WAIT_EXPIRED => self.expire_waiters(at),
                CONNECT_EXPIRED => self.connect_expired(at, id),
                GAVE_UP => self.give_up(at, id),
                _ => self.call_done(at, id),
            }
        }
        while boundary <= length {
            self.close_second(boundary);
            boundary += 1_000;
        }
        self.finish_run()
    }

    fn close_second(&mut self, boundary: Millis) {
        let in_use = match self.config.threads {
            Threads::Platform => PLATFORM_THREADS - self.threads_free,
            Threads::Virtual => self
                .calls
                .iter()
                .filter(|c| c.has_thread && !c.done)
                .count() as u32,
        };
        let [payment, shipping] = &mut self.stacks;
        payment.breaker.advance_to(boundary);
        shipping.breaker.advance_to(boundary);
        // The fewest permits during the second, or those left at its end.
        let low = |stack: &Stack, b: Option<&SemaphoreBulkhead>| {
            b.map(|b| stack.second_min.min(b.available_permits()))
        };
        let payment_permits_min = low(payment, self.bulkheads.first());
        let shipping_permits_min = low(shipping, self.bulkheads.last());
        let under_way = self.under_way_second;
        self.under_way_second = self.under_way;
        self.seconds.push(CheckoutSecond {
            t_s: (boundary / 1_000) as u32,
            payment_permits_min,
            shipping_permits_min,
            payment_under_way_max: under_way[0],
            shipping_under_way_max: under_way[1],
            payment_breaker: payment.breaker.state(),
            shipping_breaker: shipping.breaker.state(),
            threads_in_use: in_use,
            captures: std::mem::take(&mut self.second_captures),
        });
        payment.second_min = u32::MAX;
        shipping.second_min = u32::MAX;
    }

    fn arrive(&mut self, now: Millis, id: u32) {
        let dep = dep_index(self.calls[id as usize].trace.dependency);
        self.under_way[dep] += 1;
        self.under_way_second[dep] = self.under_way_second[dep].max(self.under_way[dep]);
        self.under_way_max[dep] = self.under_way_max[dep].max(self.under_way[dep]);
        if self.config.threads == Threads::Platform {
            if self.threads_free == 0 {
                self.thread_line.push_back(id);
                self.schedule(now + SHOPPER_WAIT_MS, GAVE_UP, id);
                return;
            }
            self.threads_free -= 1;
        }
        self.start(now, id);
    }

    /// The shopper gives up on a request still waiting for a thread: the server never
    /// works on it.
    /// (A call without a thread that is not done is in line: a thread handed to it starts
    /// it at once, before this event of the same instant. It stays in the line, done: the
    /// next free thread passes it by.)
    fn give_up(&mut self, now: Millis, id: u32) {
        let call = &self.calls[id as usize];
        if call.has_thread || call.done {
            return;
        }
        let dep = dep_index(call.trace.dependency);
        self.no_thread[dep] += 1;
        self.end_call(
            now,
            id,
            Outcome::NoFreeThread,
            "the shopper gave up waiting for a thread",
        );
    }

    fn start(&mut self, now: Millis, id: u32) {
        let call = &mut self.calls[id as usize];
        call.has_thread = true;
        call.trace.started = now;
        let dep = dep_index(call.trace.dependency);
        if self.config.order == StackOrder::BreakerOutsideRetry {
            // The breaker outside the retry: asked once per logical call.
            let state = self.stacks[dep].breaker.state();
            if !self.stacks[dep].breaker.try_acquire_permission(now) {
                self.stacks[dep].not_permitted += 1;
                self.stacks[dep].attempts += 1;
                let call = &mut self.calls[id as usize];
                call.trace.attempts.push(AttemptTrace {
                    at: now,
                    breaker_state: state,
                    permitted: false,
                    permits_left: None,
                    rejected: false,
                    outcome: Outcome::CallNotPermitted,
                    duration: 0,
                    provider_request: false,
                    retry_after: None,
                });
                self.end_call(
                    now,
                    id,
                    Outcome::CallNotPermitted,
                    "the open breaker refused the call",
                );
                return;
            }
            self.calls[id as usize].breaker_permitted = true;
        }
        self.attempt(now, id);
    }

    /// One attempt: in Resilience4j's order the breaker, then the bulkhead; with the
    /// breaker outside the retry only the bulkhead (the breaker was asked once). Without a
    /// bulkhead, straight to the connection.
    fn attempt(&mut self, now: Millis, id: u32) {
        let dependency = self.calls[id as usize].trace.dependency;
        let dep = dep_index(dependency);
        let stack = &mut self.stacks[dep];
        stack.attempts += 1;
        if !self.calls[id as usize].trace.attempts.is_empty() {
            stack.retries += 1;
        }
        let state = stack.breaker.state();
        let mut trace = AttemptTrace {
            at: now,
            breaker_state: state,
            permitted: true,
            permits_left: None,
            rejected: false,
            outcome: Outcome::Success,
            duration: 0,
            provider_request: false,
            retry_after: None,
        };
        if self.config.order == StackOrder::Resilience4j {
            trace.permitted = stack.breaker.try_acquire_permission(now);
            trace.breaker_state = state;
            if !trace.permitted {
                stack.not_permitted += 1;
                trace.outcome = Outcome::CallNotPermitted;
                self.calls[id as usize].trace.attempts.push(trace);
                self.attempt_failed(now, id, Outcome::CallNotPermitted);
                return;
            }
        }
        let Some(b) = self.bulkhead_of(dependency) else {
            self.calls[id as usize].trace.attempts.push(trace);
            self.connect(now, id);
            return;
        };
        let admission = self.bulkheads[b].try_acquire(now);
        let left = self.bulkheads[b].available_permits();
        self.note_permits(b, left);
        trace.permits_left = Some(left);
        match admission {
            Admission::Permitted => {
                self.calls[id as usize].trace.attempts.push(trace);
                self.calls[id as usize].holds_permit = true;
                self.connect(now, id);
            }
            Admission::Waiting(waiter) => {
                self.calls[id as usize].trace.attempts.push(trace);
                self.calls[id as usize].waiter = Some(waiter);
                self.waiters.push((waiter, id));
                let wait = self.bulkheads[b].config().max_wait_duration;
                self.schedule(now + wait, WAIT_EXPIRED, 0);
            }
            Admission::Rejected => {
                trace.rejected = true;
                trace.outcome = Outcome::BulkheadFull;
                self.stacks[dep].rejected += 1;
                self.calls[id as usize].trace.attempts.push(trace);
                self.record_attempt(now, id, 0, Outcome::BulkheadFull);
                self.attempt_failed(now, id, Outcome::BulkheadFull);
            }
        }
    }

    fn note_permits(&mut self, bulkhead: usize, left: u32) {
        let deps: &[usize] = if self.config.bulkheads == Bulkheads::Shared {
            &[0, 1]
        } else {
            &[bulkhead]
        };
        for &d in deps {
            let s = &mut self.stacks[d];
            s.permits_min = s.permits_min.min(left);
            s.second_min = s.second_min.min(left);
        }
    }

    fn expire_waiters(&mut self, now: Millis) {
        for b in 0..self.bulkheads.len() {
            for waiter in self.bulkheads[b].expire_waiters(now) {
                if let Some(pos) = self.waiters.iter().position(|w| w.0 == waiter) {
                    let (_, id) = self.waiters.swap_remove(pos);
                    let dep = dep_index(self.calls[id as usize].trace.dependency);
                    self.stacks[dep].rejected += 1;
                    let call = &mut self.calls[id as usize];
                    call.waiter = None;
                    let mut waited = 0;
                    if let Some(last) = call.trace.attempts.last_mut() {
                        last.rejected = true;
                        last.outcome = Outcome::BulkheadFull;
                        last.duration = now - last.at;
                        waited = last.duration;
                    }
                    self.record_attempt(now, id, waited, Outcome::BulkheadFull);
                    self.attempt_failed(now, id, Outcome::BulkheadFull);
                }
            }
        }
    }

    /// A permit is held: take a connection (virtual threads) and send.
    fn connect(&mut self, now: Millis, id: u32) {
        let dep = dep_index(self.calls[id as usize].trace.dependency);
        if self.config.threads == Threads::Virtual {
            if self.connections_free[dep] == 0 {
                // Waits for a connection up to its connect timeout.
                self.connection_waiters[dep].push_back((id, now + PAYMENT_CONNECT_TIMEOUT_MS));
                self.schedule(now + PAYMENT_CONNECT_TIMEOUT_MS, CONNECT_EXPIRED, id);
                return;
            }
            self.connections_free[dep] -= 1;
            self.calls[id as usize].holds_connection = true;
        }
        self.send(now, id);
    }

    /// The request goes to the provider; its outcome is decided by the scenario.
    fn send(&mut self, now: Millis, id: u32) {
        let call = &self.calls[id as usize];
        let dependency = call.trace.dependency;
        let index = call.trace.index;
        let scenario = self.config.scenario;
        let (outcome, base) = match dependency {
            Dependency::Payment => match scenario {
                CheckoutScenario::DeclineStorm => (Outcome::BusinessError, CAPTURE_MS),
                CheckoutScenario::ConnectionReset => {
                    (Outcome::ConnectFailure, REFUSED_CONNECTION_MS)
                }
                CheckoutScenario::LostResponse | CheckoutScenario::ProviderTimeouts => {
                    (Outcome::ReadTimeout, PAYMENT_READ_TIMEOUT_MS)
                }
                CheckoutScenario::GameDay if index == GAME_DAY_DECLINED_CAPTURE => {
                    (Outcome::BusinessError, CAPTURE_MS)
                }
                _ => (Outcome::Success, CAPTURE_MS),
            },
            Dependency::Shipping => {
                if scenario.quoter_stalls(now) {
                    (Outcome::ReadTimeout, SHIPPING_READ_TIMEOUT_MS)
                } else {
                    (Outcome::Success, QUOTE_MS)
                }
            }
        };
        // A timeout is exact; an answer's time varies.
        let duration = if outcome == Outcome::ReadTimeout {
            base
        } else {
            vary(base, 20, &mut self.rng)
        };
        let dep = dep_index(dependency);
        self.stacks[dep].provider_requests += 1;
        // A lost answer: the provider captured all the same. A provider that times out
        // drops the capture.
        let captured = dependency == Dependency::Payment
            && (outcome == Outcome::Success || scenario == CheckoutScenario::LostResponse);
        if captured {
            self.captures_made += 1;
        }
        let call = &mut self.calls[id as usize];
        call.trace.provider_captured |= captured;
        if let Some(last) = call.trace.attempts.last_mut() {
            last.provider_request = true;
            last.outcome = outcome;
            last.duration = now + duration - last.at;
        }
        self.schedule(now + duration, CALL_DONE, id);
    }

    /// A connection wait that ran out, unless a connection came first: a connect
    /// failure, no request sent.
    fn connect_expired(&mut self, now: Millis, id: u32) {
        let dep = dep_index(self.calls[id as usize].trace.dependency);
        let Some(pos) = self.connection_waiters[dep]
            .iter()
            .position(|&(w, deadline)| w == id && deadline == now)
        else {
            return;
        };
        self.connection_waiters[dep].remove(pos);
        let mut waited = 0;
        if let Some(last) = self.calls[id as usize].trace.attempts.last_mut() {
            last.outcome = Outcome::ConnectFailure;
            last.duration = now - last.at;
            waited = last.duration;
        }
        self.release_permit(now, id);
        self.record_attempt(now, id, waited, Outcome::ConnectFailure);
        self.attempt_failed(now, id, Outcome::ConnectFailure);
    }

    /// Resilience4j's order: the breaker records each attempt. (Outside the retry, it
    /// records the call once, when it ends.)
    fn record_attempt(&mut self, now: Millis, id: u32, duration: Millis, outcome: Outcome) {
        if self.config.order == StackOrder::Resilience4j {
            let dep = dep_index(self.calls[id as usize].trace.dependency);
            self.stacks[dep].record(now, duration, outcome);
        }
    }

    fn call_done(&mut self, now: Millis, id: u32) {
        let dep = dep_index(self.calls[id as usize].trace.dependency);
        let Some(last) = self.calls[id as usize].trace.attempts.last().cloned() else {
            return;
        };
        self.release_connection(now, dep, id);
        self.release_permit(now, id);
        let outcome = last.outcome;
        self.record_attempt(now, id, last.duration, outcome);
        if outcome.is_success() {
            self.end_call(now, id, outcome, "answered");
        } else {
            self.attempt_failed(now, id, outcome);
        }
    }

    fn release_connection(&mut self, now: Millis, dep: usize, id: u32) {
        let call = &mut self.calls[id as usize];
        if !call.holds_connection {
            return;
        }
        call.holds_connection = false;
        // The next caller still within its wait takes it (one whose wait ends now is
        // left to its own expiry event).
        let waiting = &mut self.connection_waiters[dep];
        if let Some(pos) = waiting.iter().position(|&(_, deadline)| deadline > now) {
            if let Some((next, _)) = waiting.remove(pos) {
                self.calls[next as usize].holds_connection = true;
                self.send(now, next);
                return;
            }
        }
        self.connections_free[dep] += 1;
    }

    fn release_permit(&mut self, now: Millis, id: u32) {
        let call = &mut self.calls[id as usize];
        if !call.holds_permit {
            return;
        }
        call.holds_permit = false;
        let dependency = call.trace.dependency;
        let Some(b) = self.bulkhead_of(dependency) else {
            return;
        };
        for waiter in self.bulkheads[b].release(now) {
            if let Some(pos) = self.waiters.iter().position(|w| w.0 == waiter) {
                let (_, next) = self.waiters.swap_remove(pos);
                let call = &mut self.calls[next as usize];
                call.waiter = None;
                call.holds_permit = true;
                let left = self.bulkheads[b].available_permits();
                if let Some(last) = self.calls[next as usize].trace.attempts.last_mut() {
                    last.permits_left = Some(left);
                }
                self.connect(now, next);
            }
        }
    }

    /// An attempt failed: the retry decides.
    fn attempt_failed(&mut self, now: Millis, id: u32, outcome: Outcome) {
        let dep = dep_index(self.calls[id as usize].trace.dependency);
        let stack = &mut self.stacks[dep];
        let call = &mut self.calls[id as usize];
        let decision = stack
            .retry
            .on_outcome(&mut call.retry, outcome, &mut self.rng);
        match decision {
            RetryDecision::RetryAfter { wait, .. } => {
                if let Some(last) = call.trace.attempts.last_mut() {
                    last.retry_after = Some(wait);
                }
                self.schedule(now + wait, RETRY, id);
            }
            _ => {
                let why = match stack.retry.classify(outcome) {
                    crate::policy::retry::RetryClass::NotRetried(reason) => {
                        format!("not retried: {}", reason.describe())
                    }
                    _ => "the attempts ran out".to_string(),
                };
                self.end_call(now, id, outcome, &why);
            }
        }
    }

    fn end_call(&mut self, now: Millis, id: u32, outcome: Outcome, why: &str) {
        let call = &mut self.calls[id as usize];
        if call.done {
            return;
        }
        call.done = true;
        call.trace.ended = now;
        call.trace.why = why.to_string();
        let dependency = call.trace.dependency;
        let dep = dep_index(dependency);
        self.under_way[dep] -= 1;
        if self.config.order == StackOrder::BreakerOutsideRetry && call.breaker_permitted {
            // The breaker outside the retry records the call's final outcome.
            let duration = now - call.trace.started;
            self.stacks[dep].record(now, duration, outcome);
        }
        let call = &mut self.calls[id as usize];
        match dependency {
            Dependency::Payment => {
                let status = match outcome {
                    Outcome::Success | Outcome::SlowSuccess => PaymentStatus::Captured,
                    Outcome::BusinessError => PaymentStatus::Declined,
                    other => payment_fallback(other).status(),
                };
                let state = SagaState::of(status);
                call.trace.saga = Some(state);
                self.second_captures.add(state);
            }
            Dependency::Shipping => {
                call.trace.quote = Some(if outcome.is_success() {
                    QuoteResult::Live
                } else {
                    match shipping_fallback(call.digital) {
                        ShippingFallback::AgreedEstimate => QuoteResult::Estimate,
                        ShippingFallback::HideQuote => QuoteResult::Hidden,
                    }
                });
            }
        }
        if call.has_thread && self.config.threads == Threads::Platform {
            // The thread takes the next call in line that is still waiting (as an event: no
            // recursion).
            loop {
                match self.thread_line.pop_front() {
                    Some(next) if self.calls[next as usize].done => continue,
                    Some(next) => self.schedule(now, START, next),
                    None => self.threads_free += 1,
                }
                break;
            }
        }
    }

    fn finish_run(self) -> CheckoutRun {
        let mut saga = SagaTally::default();
        let mut reconciled = Reconciliation::default();
        let mut quotes = QuoteTally::default();
        let mut digital_orders = 0;
        let mut quotes_from_digital = 0;
        let mut counts = [0u32; 2];
        let mut traces = Vec::new();
        let mut kept = [0usize; 2];
        for call in self.calls {
            if call.digital {
                digital_orders += 1;
                quotes_from_digital += call.trace.attempts.len() as u32;
                continue;
            }
            let dep = dep_index(call.trace.dependency);
            counts[dep] += 1;
            if let Some(state) = call.trace.saga {
                saga.add(state);
            }
            if call.trace.saga == Some(SagaState::Uncertain) {
                if call.trace.provider_captured {
                    reconciled.captured += 1;
                } else {
                    reconciled.not_captured += 1;
                }
            }
            match call.trace.quote {
                Some(QuoteResult::Live) => quotes.live += 1,
                Some(QuoteResult::Estimate) => quotes.estimate += 1,
                Some(QuoteResult::Hidden) => quotes.hidden += 1,
                None => {}
            }
            if kept[dep] < MAX_TRACES {
                kept[dep] += 1;
                traces.push(call.trace);
            }
        }
        let [payment, shipping] = self.stacks;
        let permits = self.config.bulkheads.permits();
        let (p_max, s_max) = (permits.map(|p| p.0), permits.map(|p| p.1));
        let min = |s: &Stack, max: Option<u32>| max.map(|max| s.permits_min.min(max));
        CheckoutRun {
            scenario: self.config.scenario,
            order: self.config.order,
            bulkheads: self.config.bulkheads,
            threads: self.config.threads,
            payment: PaymentSummary {
                calls: counts[0],
                attempts: payment.attempts,
                provider_requests: payment.provider_requests,
                retries: payment.retries,
                breaker_state_end: payment.breaker.state(),
                breaker_recorded_calls: payment.recorded,
                breaker_recorded_failures: payment.recorded_failures,
                not_permitted: payment.not_permitted,
                bulkhead_rejected: payment.rejected,
                bulkhead_available_min: min(&payment, p_max),
                no_thread: self.no_thread[0],
                under_way_max: self.under_way_max[0],
                provider_captures: self.captures_made,
                saga,
                reconciled,
                retry_metrics: payment.retry.metrics(),
            },
            shipping: ShippingSummary {
                calls: counts[1],
                attempts: shipping.attempts,
                provider_requests: shipping.provider_requests,
                retries: shipping.retries,
                breaker_state_end: shipping.breaker.state(),
                breaker_recorded_calls: shipping.recorded,
                not_permitted: shipping.not_permitted,
                bulkhead_rejected: shipping.rejected,
                bulkhead_available_min: min(&shipping, s_max),
                no_thread: self.no_thread[1],
                under_way_max: self.under_way_max[1],
                quotes,
            },
            seconds: self.seconds,
            payment_permits: p_max,
            shipping_permits: s_max,
            digital_orders,
            quotes_from_digital,
            calls: traces,
        }
    }
}

/// Runs Lab E (never panics).
pub fn run(config: &CheckoutConfig) -> Result<CheckoutRun, ConfigError> {
    Ok(Sim::new(config)?.run())
}
