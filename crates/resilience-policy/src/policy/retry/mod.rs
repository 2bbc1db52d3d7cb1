//! Retry: try a failed call again, a bounded number of times, after a wait.
//!
//! Many failures are transient: a connection reset during a failover, a server that was
//! briefly overloaded, a packet lost on the way. Trying again a moment later often
//! succeeds, and the user never notices. That is what a retry is for: hiding *transient*
//! faults of a healthy dependency.
//!
//! Retries are also the most dangerous policy in the box, because every retry is extra
//! load, sent precisely when the dependency is struggling. `maxAttempts` 3 can triple the
//! traffic of a sick service; three layers that each retry three times turn one click into
//! 27 calls; and the extra load can hold a dependency down after the original cause is
//! gone (a metastable failure, Lab A). Retrying is only right for failures that a second
//! try can fix, so this module is strict about *what* it retries:
//!
//! - **Resilience4j's rule**: an exception is retried when it matches `retryExceptions`
//!   (an empty list means "every exception") and does not match `ignoreExceptions`;
//!   ignore wins when both match. Names match the class or any superclass, as Java's
//!   `isAssignableFrom` does (`IOException` covers `ConnectException` and
//!   `SocketTimeoutException`), and fully qualified names are accepted.
//! - **The spec's guard, on top**: a call refused locally (`CallNotPermittedException`
//!   from an open breaker, `BulkheadFullException`, no free thread) never reached the
//!   dependency, and retrying it only hammers our own protection; a business answer (a card
//!   decline, `CardDeclinedException`) will be the same answer next time. Neither is ever
//!   retried. In Resilience4j itself this takes an explicit `ignoreExceptions` entry: its
//!   default retries every exception, refusals included. Lab C reproduces exactly that
//!   misconfiguration by switching [`RetryConfig::retry_on_local_refusals`] on, which
//!   hands local refusals back to Resilience4j's plain rule; the business-error guard has
//!   no switch.
//!
//! `maxAttempts` counts the first call: the default 3 means one call and at most two
//! retries. After attempt `k` fails and `k < maxAttempts`, the caller waits
//! `interval(k)` ([`IntervalFunction`], or the fixed `waitDuration`) and tries again;
//! after the last attempt the last error goes back to the caller.
//!
//! The policy is sans-IO: [`Retry::start`] opens a [`RetryContext`] for one logical call;
//! the driver runs an attempt, reports how it ended with
//! [`Retry::on_outcome`] (or [`RetryContext::on_outcome`], which does not touch the
//! metrics), and reads back a [`RetryDecision`]: done, retry after a wait, or give up. The
//! driver does the waiting on its own clock.

pub mod aws_standard;
pub mod budget;
pub mod grpc;
pub mod interval;
pub mod token_bucket;

use std::sync::OnceLock;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::exceptions::{ancestry, Hierarchy};
use crate::{ConfigError, Millis, Outcome};

pub use budget::{RetryBudget, RetryBudgetConfig};
pub use interval::{Backoff, IntervalFunction, Jitter};

/// Settings of a retry (Resilience4j `RetryConfig`, with its Spring Boot property names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RetryConfig {
    /// Attempts in all, the first call included (default 3; at least 1).
    pub max_attempts: u32,
    /// The fixed wait between attempts when no `interval_function` is set (default 500 ms;
    /// 0 is allowed and means "retry at once").
    #[serde(with = "crate::duration::serde_millis")]
    pub wait_duration: Millis,
    /// A growing or randomized wait; when set it replaces `wait_duration` (in Resilience4j
    /// `intervalFunction` and `waitDuration` are two ways to set the same thing, and the
    /// last one set wins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_function: Option<IntervalFunction>,
    /// Exception names that are retried; empty means every exception (default).
    pub retry_exceptions: Vec<String>,
    /// Exception names that are never retried; they win over `retry_exceptions`.
    pub ignore_exceptions: Vec<String>,
    /// Resilience4j throws `MaxRetriesExceededException` when the attempts run out on a
    /// *result* its `retryOnResult` predicate rejected. This engine retries on exceptions
    /// only, so the flag is kept for fidelity and has no effect on decisions.
    pub fail_after_max_attempts: bool,
    /// Off (default): the guard refuses to retry local refusals (`CallNotPermittedException`,
    /// `BulkheadFullException`, no free thread). On: they follow Resilience4j's plain rule
    /// like any other exception, which with an empty `ignoreExceptions` means they are
    /// retried (the misconfigured stack of Lab C). Not a Resilience4j setting.
    pub retry_on_local_refusals: bool,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            wait_duration: 500,
            interval_function: None,
            retry_exceptions: Vec::new(),
            ignore_exceptions: Vec::new(),
            fail_after_max_attempts: false,
            retry_on_local_refusals: false,
        }
    }
}

impl RetryConfig {
    /// The builder's rules: `maxAttempts >= 1`, a valid interval function, and exception
    /// names of the shared table ([`crate::exceptions`]; Spring would fail to load an
    /// unknown class, and a class no outcome descends from could never match).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_attempts < 1 {
            return Err(ConfigError::new(
                "maxAttempts",
                "must be greater than or equal to 1",
            ));
        }
        if self.max_attempts > i32::MAX as u32 {
            return Err(ConfigError::new(
                "maxAttempts",
                format!("must be at most {}", i32::MAX),
            ));
        }
        if let Some(function) = &self.interval_function {
            function.validate()?;
        }
        for (field, names) in [
            ("retryExceptions", &self.retry_exceptions),
            ("ignoreExceptions", &self.ignore_exceptions),
        ] {
            // The retry sees only the outcomes' exceptions: a class outside the table
            // could never match, so it is refused even when fully qualified.
            Hierarchy::table()
                .check_list(names, false)
                .map_err(|(_, message)| ConfigError::new(field, message))?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Exception classes
// ---------------------------------------------------------------------------------------

/// The exceptions the outcomes throw and their superclasses. The lists may name any class
/// of the shared table ([`crate::exceptions::CLASSES`]: `IOException` and `Exception` as
/// well as `FileNotFoundException`, which no outcome throws); these are the ones that can
/// match.
pub const KNOWN_EXCEPTIONS: [&str; 17] = [
    "ConnectException",
    "SocketException",
    "SocketTimeoutException",
    "InterruptedIOException",
    "IOException",
    "HttpServerErrorException",
    "HttpStatusCodeException",
    "RestClientResponseException",
    "RestClientException",
    "NestedRuntimeException",
    "CardDeclinedException",
    "BulkheadFullException",
    "CallNotPermittedException",
    "RejectedExecutionException",
    "RuntimeException",
    "Exception",
    "Throwable",
];

/// The exception an outcome throws and its superclasses, most specific first, from the
/// shared table ([`crate::exceptions::CLASSES`]: the JDK and Spring `RestTemplate`
/// hierarchies; `CardDeclinedException` is the simulation's unchecked business exception,
/// `extends RuntimeException`). Empty for answers.
pub fn exception_hierarchy(outcome: Outcome) -> &'static [&'static str] {
    static CHAINS: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    let chains = CHAINS.get_or_init(|| {
        Outcome::ALL
            .iter()
            .map(|o| o.exception_name().map(ancestry).unwrap_or_default())
            .collect()
    });
    &chains[outcome_index(outcome)]
}

/// Whether `outcome`'s exception is one of `names` or a subclass of one (names simple or
/// fully qualified, matched through the shared table).
pub fn exception_matches(outcome: Outcome, names: &[String]) -> bool {
    match outcome.exception_name() {
        Some(thrown) => Hierarchy::table().any_assignable(names, thrown),
        None => false,
    }
}

/// Why an outcome was not retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NotRetriedReason {
    /// It matches `ignoreExceptions`.
    Ignored,
    /// `retryExceptions` is not empty and it matches none of them.
    NotInRetryExceptions,
    /// The guard: a local refusal never reached the dependency.
    LocalRefusal,
    /// The guard: a business answer will not change on a second try.
    BusinessError,
}

impl NotRetriedReason {
    pub fn describe(self) -> &'static str {
        match self {
            NotRetriedReason::Ignored => "listed in ignoreExceptions",
            NotRetriedReason::NotInRetryExceptions => "not listed in retryExceptions",
            NotRetriedReason::LocalRefusal => {
                "refused locally (open breaker, full bulkhead): the call never left, so trying again only hits our own protection"
            }
            NotRetriedReason::BusinessError => {
                "a business answer (a decline): the dependency is healthy and will answer the same again"
            }
        }
    }
}

/// How the retry classifies one attempt's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RetryClass {
    /// An answer: the call is done.
    Success,
    /// A failure worth another attempt (if attempts remain).
    Retryable,
    /// A failure returned at once.
    NotRetried(NotRetriedReason),
}

// ---------------------------------------------------------------------------------------
// The policy and its per-call context
// ---------------------------------------------------------------------------------------

/// What the driver does next after reporting an attempt's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RetryDecision {
    /// The last attempt answered; `attempts` calls were made in all.
    Done { attempts: u32 },
    /// Wait `wait` ms, then make attempt number `attempt` (2 for the first retry).
    RetryAfter { wait: Millis, attempt: u32 },
    /// Stop: the caller gets `last`, the outcome of the last of `attempts` calls (either it
    /// was not retryable, or the attempts ran out, or the driver gave up).
    GiveUp { attempts: u32, last: Outcome },
}

impl RetryDecision {
    pub fn is_final(&self) -> bool {
        !matches!(self, RetryDecision::RetryAfter { .. })
    }
}

/// Resilience4j's retry metrics, counted per logical call (not per attempt), with its
/// exact rules (`RetryImpl`):
/// - a success on the first attempt is *successful without retry*, a later one *successful
///   with retry*;
/// - a failure that is not retryable is *failed without retry*, even if it came after
///   retries (Resilience4j counts it there too);
/// - a retryable failure on the last attempt is *failed with retry*, even with
///   `maxAttempts` 1;
/// - a call the driver abandons ([`Retry::give_up`], e.g. the retry budget said no) is
///   *failed with retry* if it made more than one attempt, else *failed without retry*
///   (Resilience4j has no such path).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryMetrics {
    pub successful_calls_without_retry: u64,
    pub successful_calls_with_retry: u64,
    pub failed_calls_without_retry: u64,
    pub failed_calls_with_retry: u64,
    /// Attempts reported, every call and retry included.
    pub total_attempts: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallResult {
    SuccessFirstAttempt,
    SuccessAfterRetry,
    FailureNotRetried,
    FailureAfterRetry,
}

/// What a context needs from the config, precomputed and small enough to copy per call.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Plan {
    max_attempts: u32,
    wait_duration: Millis,
    interval_function: Option<IntervalFunction>,
    /// The class of each outcome, indexed like `Outcome::ALL`.
    classes: [RetryClass; Outcome::ALL.len()],
}

fn outcome_index(outcome: Outcome) -> usize {
    Outcome::ALL
        .iter()
        .position(|o| *o == outcome)
        .expect("Outcome::ALL lists every outcome")
}

/// A retry policy: the validated config, and the metrics of the calls it finished.
///
/// Metrics are fed through [`Retry::on_outcome`] / [`Retry::give_up`], which wrap the
/// context's own methods and record the call when it ends. A driver that does not want
/// metrics may call [`RetryContext::on_outcome`] directly.
#[derive(Debug, Clone)]
pub struct Retry {
    config: RetryConfig,
    plan: Plan,
    metrics: RetryMetrics,
}

impl Retry {
    pub fn new(config: RetryConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut classes = [RetryClass::Success; Outcome::ALL.len()];
        for outcome in Outcome::ALL {
            classes[outcome_index(outcome)] = classify(&config, outcome);
        }
        let plan = Plan {
            max_attempts: config.max_attempts,
            wait_duration: config.wait_duration,
            interval_function: config.interval_function,
            classes,
        };
        Ok(Self {
            config,
            plan,
            metrics: RetryMetrics::default(),
        })
    }

    pub fn config(&self) -> &RetryConfig {
        &self.config
    }

    /// How this retry treats `outcome`.
    pub fn classify(&self, outcome: Outcome) -> RetryClass {
        self.plan.classes[outcome_index(outcome)]
    }

    /// Whether a failure with this outcome would be retried (attempts permitting).
    pub fn is_retryable(&self, outcome: Outcome) -> bool {
        self.classify(outcome) == RetryClass::Retryable
    }

    /// The wait after attempt `attempt` failed: the interval function, or `waitDuration`.
    pub fn wait_after<R: Rng + ?Sized>(&self, attempt: u32, rng: &mut R) -> Millis {
        self.plan.wait_after(attempt, rng)
    }

    /// Opens the context of one logical call.
    pub fn start(&self) -> RetryContext {
        RetryContext {
            plan: self.plan,
            attempts: 0,
            last: None,
            finished: None,
            result: None,
        }
    }

    /// Reports an attempt's outcome and records the call in the metrics when it ends.
    pub fn on_outcome<R: Rng + ?Sized>(
        &mut self,
        ctx: &mut RetryContext,
        outcome: Outcome,
        rng: &mut R,
    ) -> RetryDecision {
        let was_finished = ctx.finished.is_some();
        let decision = ctx.on_outcome(outcome, rng);
        if !was_finished {
            self.metrics.total_attempts += 1;
            self.record(ctx);
        }
        decision
    }

    /// Abandons a call that the policy would retry (e.g. the retry budget refused) and
    /// records it; see [`RetryContext::give_up`].
    pub fn give_up(&mut self, ctx: &mut RetryContext) -> Option<RetryDecision> {
        let was_finished = ctx.finished.is_some();
        let decision = ctx.give_up();
        if !was_finished {
            self.record(ctx);
        }
        decision
    }

    fn record(&mut self, ctx: &RetryContext) {
        match ctx.result {
            Some(CallResult::SuccessFirstAttempt) => {
                self.metrics.successful_calls_without_retry += 1
            }
            Some(CallResult::SuccessAfterRetry) => self.metrics.successful_calls_with_retry += 1,
            Some(CallResult::FailureNotRetried) => self.metrics.failed_calls_without_retry += 1,
            Some(CallResult::FailureAfterRetry) => self.metrics.failed_calls_with_retry += 1,
            None => {}
        }
    }

    pub fn metrics(&self) -> RetryMetrics {
        self.metrics
    }
}

/// Resilience4j's exception rule plus the spec's guard.
fn classify(config: &RetryConfig, outcome: Outcome) -> RetryClass {
    if outcome.is_success() {
        return RetryClass::Success;
    }
    // The guard comes first: these are never retried, whatever the lists say.
    if outcome == Outcome::BusinessError {
        return RetryClass::NotRetried(NotRetriedReason::BusinessError);
    }
    if outcome.is_local_refusal() && !config.retry_on_local_refusals {
        return RetryClass::NotRetried(NotRetriedReason::LocalRefusal);
    }
    // Resilience4j: retryExceptions (empty = all) AND NOT ignoreExceptions.
    if exception_matches(outcome, &config.ignore_exceptions) {
        return RetryClass::NotRetried(NotRetriedReason::Ignored);
    }
    if !config.retry_exceptions.is_empty() && !exception_matches(outcome, &config.retry_exceptions)
    {
        return RetryClass::NotRetried(NotRetriedReason::NotInRetryExceptions);
    }
    RetryClass::Retryable
}

impl Plan {
    fn wait_after<R: Rng + ?Sized>(&self, attempt: u32, rng: &mut R) -> Millis {
        match &self.interval_function {
            Some(function) => function.interval(attempt, rng),
            None => self.wait_duration,
        }
    }
}

/// The state of one logical call under a retry: how many attempts it made and whether it
/// is over. Once a final decision is given, further reports are ignored and return it again.
#[derive(Debug, Clone)]
pub struct RetryContext {
    plan: Plan,
    attempts: u32,
    last: Option<Outcome>,
    finished: Option<RetryDecision>,
    result: Option<CallResult>,
}

impl RetryContext {
    /// Reports how the current attempt ended, and decides (without touching any metrics).
    pub fn on_outcome<R: Rng + ?Sized>(&mut self, outcome: Outcome, rng: &mut R) -> RetryDecision {
        if let Some(decision) = self.finished {
            return decision;
        }
        self.attempts += 1;
        self.last = Some(outcome);
        let attempts = self.attempts;
        let (decision, result) = match self.plan.classes[outcome_index(outcome)] {
            RetryClass::Success => {
                let result = if attempts == 1 {
                    CallResult::SuccessFirstAttempt
                } else {
                    CallResult::SuccessAfterRetry
                };
                (RetryDecision::Done { attempts }, Some(result))
            }
            RetryClass::NotRetried(_) => (
                RetryDecision::GiveUp {
                    attempts,
                    last: outcome,
                },
                Some(CallResult::FailureNotRetried),
            ),
            RetryClass::Retryable if attempts >= self.plan.max_attempts => (
                RetryDecision::GiveUp {
                    attempts,
                    last: outcome,
                },
                Some(CallResult::FailureAfterRetry),
            ),
            RetryClass::Retryable => (
                RetryDecision::RetryAfter {
                    wait: self.plan.wait_after(attempts, rng),
                    attempt: attempts + 1,
                },
                None,
            ),
        };
        if decision.is_final() {
            self.finished = Some(decision);
            self.result = result;
        }
        decision
    }

    /// Stops retrying after a `RetryAfter` (the driver decided not to make the retry, e.g.
    /// the retry budget refused or the caller's deadline passed). Returns the final
    /// `GiveUp` with the last outcome, or `None` if no attempt was reported yet. On a
    /// finished call it returns the final decision unchanged.
    pub fn give_up(&mut self) -> Option<RetryDecision> {
        if let Some(decision) = self.finished {
            return Some(decision);
        }
        let last = self.last?;
        let decision = RetryDecision::GiveUp {
            attempts: self.attempts,
            last,
        };
        self.finished = Some(decision);
        self.result = Some(if self.attempts > 1 {
            CallResult::FailureAfterRetry
        } else {
            CallResult::FailureNotRetried
        });
        Some(decision)
    }

    /// Attempts reported so far, the first call included.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The outcome of the latest attempt.
    pub fn last_outcome(&self) -> Option<Outcome> {
        self.last
    }

    /// The final decision, once the call is over.
    pub fn final_decision(&self) -> Option<RetryDecision> {
        self.finished
    }

    pub fn is_finished(&self) -> bool {
        self.finished.is_some()
    }
}

/// Calls that reach the provider for one user action when `layers` services in a chain
/// each make up to `attempts_per_layer` attempts: attempts^layers (3 layers of 3 attempts
/// turn one click into 27 calls). Saturates instead of overflowing.
pub fn calls_on_provider(layers: u32, attempts_per_layer: u32) -> u64 {
    u64::from(attempts_per_layer).saturating_pow(layers)
}
