//! Retry scripts (`resilience-sim retry FILE`): one Resilience4j `Retry`, driven call by
//! call, as `Retry.decorateCheckedSupplier` runs it (what Spring Boot's `@Retry` uses on a
//! method that does not return a `CompletionStage`).
//!
//! ```json
//! {
//!   "config": {"maxAttempts": 3, "waitDuration": "500ms",
//!              "retryExceptions": ["IOException"], "ignoreExceptions": ["FileNotFoundException"],
//!              "retryOnResultPredicate": ["PENDING"], "failAfterMaxAttempts": false},
//!   "seed": 0,
//!   "steps": [
//!     {"call": {"outcomes": ["ConnectException", "PENDING", "ok"]}},
//!     {"advance_ms": 1000},
//!     {"call": {"outcomes": ["FileNotFoundException"]}}
//!   ]
//! }
//! ```
//!
//! A `call` lists what its successive attempts do. **An outcome is thrown** when it is a
//! string naming an exception class: one the simulation knows ([`crate::exceptions`]: JDK,
//! Spring, Resilience4j), one the config's `exceptions` declares with its parent, simple or
//! fully qualified. A string that only *looks* like one but is neither known nor declared
//! refuses the script (its superclasses would decide whether it is retried): its simple
//! name ends in `Exception`, `Error` or `Throwable` (case-sensitive, as Java's names are),
//! or it has 10 characters or more and is a letter per ten from a known or declared name
//! (`FileNotFoundExeption`). **Anything else is returned**: any other string (`"ok"`,
//! `"PENDING"`, `"ERROR"`), a number, `true`/`false` or `null`. A returned value is retried when it equals an entry of
//! `retryOnResultPredicate` (numbers by value: `1` equals `1.0`); such an entry may not be an
//! exception name, since no returned value could ever equal it.
//!
//! The attempts run until one is not retried or `maxAttempts` (which counts the first call)
//! is reached; outcomes listed past the end of the call are not run (`attempts` says how
//! many ran), and a call whose listed outcomes run out while it would try again refuses the
//! script before its first step. The clock starts at 0 ms and only `advance_ms` moves it:
//! the waits between attempts are *reported* (`waits_ms`, drawn from the interval function
//! with the script's `seed` when it is randomized) but do not move the clock. Every step
//! reports the `Retry.Metrics` counters under Resilience4j's names; a call also its
//! `attempts`, `waits_ms`, final `outcome` and, when the caller gets an exception, `error`
//! (its simple name).
//!
//! What surprises people in `RetryImpl` (Resilience4j 2.x, `RetryImpl.ContextImpl`):
//! - **An exception that is not retried counts as "failed without retry", even after
//!   retries** (`onError`: ignored or not in `retryExceptions` goes straight to
//!   `failedWithoutRetryCounter`, whatever `numOfAttempts` is).
//! - **A retried failure that uses up `maxAttempts` counts as "failed with retry", even with
//!   `maxAttempts` 1**, where no retry ever happened (`throwOrSleepAfterException`, and
//!   `onComplete` for a result).
//! - **A result retried until the attempts run out is returned to the caller, no
//!   exception** (counted "failed with retry"), unless `failAfterMaxAttempts`, which throws
//!   `MaxRetriesExceededException` instead. When the attempts run out on an *exception*, the
//!   exception itself is thrown, whatever `failAfterMaxAttempts` says.
//! - **`numberOfTotalCalls` counts the last attempt of a result retried until exhaustion
//!   twice** (once in `onResult`, once in `onComplete`): 3 attempts of `"PENDING"` with
//!   `maxAttempts` 3 count 4.
//! - **With `failAfterMaxAttempts`, that call is counted once more, and failed twice**:
//!   `onComplete` throws `MaxRetriesExceededException` inside the decorator's `try`, whose
//!   `catch (Exception)` hands it to `onError` like any exception the supplier threw. That
//!   counts one more attempt (3 attempts of `"PENDING"` count 5) and, since
//!   `numOfAttempts` is already at `maxAttempts`, "failed with retry" a second time when the
//!   lists retry a `RuntimeException` (by default they retry everything), or "failed
//!   without retry" when they do not. Found by comparing with Resilience4j itself
//!   (`scripts/resilience4j/compare.mjs --policy retry`).
//! - **An `Error` (or any `Throwable` that is not an `Exception`) escapes the retry
//!   untouched**: the decorated supplier catches `Exception` only, so an
//!   `OutOfMemoryError` is neither retried nor counted (not even in `numberOfTotalCalls`),
//!   whatever the lists say.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{check_steps, json_lines, whole_ms, Clock};
use crate::exceptions::{
    edit_distance_within, simple_name, ByClass, DeclaredExceptions, Hierarchy, CLASSES, MAX_LISTED,
};
use crate::policy::retry::{IntervalFunction, RetryConfig};
use crate::{ConfigError, Millis};

/// A whole retry script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryScript {
    #[serde(default)]
    pub config: RetryScriptConfig,
    /// Seeds the draws of a randomized `intervalFunction` (default 0; `Pcg64Mcg`).
    #[serde(default)]
    pub seed: u64,
    pub steps: Vec<RetryStep>,
}

/// The retry's settings (`RetryConfig`, with Resilience4j's names and defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RetryScriptConfig {
    /// Attempts in all, the first call included (default 3; 1 to `i32::MAX`).
    pub max_attempts: u32,
    /// The fixed wait before each retry (default 500 ms; 0 allowed).
    #[serde(with = "crate::duration::serde_millis")]
    pub wait_duration: Millis,
    /// A growing or randomized wait ([`IntervalFunction`]); when set it replaces
    /// `waitDuration`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_function: Option<IntervalFunction>,
    /// Exceptions retried, with their subclasses; empty (default) means every exception.
    pub retry_exceptions: Vec<String>,
    /// Exceptions never retried, with their subclasses; they win over `retryExceptions`.
    pub ignore_exceptions: Vec<String>,
    /// Returned values that are retried (`retryOnResult(result -> list.contains(result))`);
    /// empty by default: no result is retried.
    pub retry_on_result_predicate: Vec<Value>,
    /// Throw `MaxRetriesExceededException` when the attempts run out on a retried result
    /// (default false: the last result is returned).
    pub fail_after_max_attempts: bool,
    /// The script's own exception classes: class name -> parent, as a breaker config's.
    pub exceptions: DeclaredExceptions,
}

impl Default for RetryScriptConfig {
    fn default() -> Self {
        // The engine's retry holds Resilience4j's defaults.
        let engine = RetryConfig::default();
        Self {
            max_attempts: engine.max_attempts,
            wait_duration: engine.wait_duration,
            interval_function: engine.interval_function,
            retry_exceptions: engine.retry_exceptions,
            ignore_exceptions: engine.ignore_exceptions,
            retry_on_result_predicate: Vec::new(),
            fail_after_max_attempts: engine.fail_after_max_attempts,
            exceptions: BTreeMap::new(),
        }
    }
}

/// One operation of a retry script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RetryStep {
    /// One logical call through the retry.
    Call(RetryCall),
    /// Moves the clock forward.
    #[serde(deserialize_with = "whole_ms")]
    AdvanceMs(Millis),
}

/// The outcomes of the successive attempts of one call: exception names (thrown) or
/// values (returned); see the module docs for the rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryCall {
    pub outcomes: Vec<Value>,
}

/// `Retry.Metrics`, with Resilience4j's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryScriptMetrics {
    pub number_of_successful_calls_without_retry_attempt: u64,
    pub number_of_successful_calls_with_retry_attempt: u64,
    pub number_of_failed_calls_without_retry_attempt: u64,
    pub number_of_failed_calls_with_retry_attempt: u64,
    /// `RetryImpl`'s `totalAttemptsCounter`: attempts, with its double count of the last
    /// attempt of a result retried until exhaustion (see the module docs).
    pub number_of_total_calls: u64,
}

/// The retry after one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryReport {
    pub step: usize,
    pub t_ms: Millis,
    #[serde(flatten)]
    pub metrics: RetryScriptMetrics,
    /// For a call: how many attempts ran, the first included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<usize>,
    /// For a call: the wait before each retry (one fewer than the attempts), in ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waits_ms: Option<Vec<Millis>>,
    /// For a call: the last attempt's outcome (the value returned, or the exception's
    /// simple name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Value>,
    /// For a call that ends in an exception: the simple name of what the caller gets
    /// (`MaxRetriesExceededException` when `failAfterMaxAttempts` and results ran out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What one attempt did.
#[derive(Debug, Clone, PartialEq)]
enum Attempt {
    /// It threw this class (the name as the script writes it).
    Thrown(String),
    /// It returned this value.
    Returned(Value),
}

impl Attempt {
    /// How the report shows it: the value, or the exception's simple name.
    fn shown(&self) -> Value {
        match self {
            Attempt::Thrown(name) => Value::String(simple_name(name).to_string()),
            Attempt::Returned(value) => value.clone(),
        }
    }
}

/// Whether a string looks like a Java exception class name: its simple name ends in
/// `Exception`, `Error` or `Throwable`.
fn looks_like_exception(name: &str) -> bool {
    let simple = simple_name(name);
    ["Exception", "Error", "Throwable"]
        .iter()
        .any(|suffix| simple.ends_with(suffix))
}

/// Reads outcomes by the module's rule against one config's declared classes. The names a
/// near miss is measured against are listed once, not again for every outcome.
struct OutcomeReader<'a> {
    hierarchy: Hierarchy<'a>,
    /// The simple names of the known and the declared classes, with their length in
    /// characters.
    names: Vec<(&'a str, usize)>,
}

impl<'a> OutcomeReader<'a> {
    fn new(declared: &'a DeclaredExceptions) -> Self {
        let names = CLASSES
            .iter()
            .map(|class| class.name)
            .chain(declared.keys().map(|name| simple_name(name)))
            .map(|name| (name, name.chars().count()))
            .collect();
        OutcomeReader {
            hierarchy: Hierarchy::with(declared),
            names,
        }
    }

    /// Whether a string is a near miss of a class name the script could mean: 10
    /// characters or more, and at most a letter per ten (case-sensitive) from a known or
    /// declared class's simple name (`FileNotFoundExeption`). Short strings are left alone
    /// (`"Errors"` is a plausible result), and so are case changes (`"ERROR"`).
    fn near_miss(&self, text: &str) -> bool {
        let length = text.chars().count();
        if !(10..=64).contains(&length) {
            return false;
        }
        let near = length / 10;
        self.names
            .iter()
            // The distance is at least the difference in length: most names are never
            // compared.
            .filter(|(_, chars)| chars.abs_diff(length) <= near)
            .any(|(name, _)| edit_distance_within(text, name, near).is_some())
    }

    /// Reads one outcome by the module's rule.
    fn read(&self, value: &Value) -> Result<Attempt, String> {
        match value {
            Value::String(text) => {
                if self.hierarchy.knows(text) {
                    Ok(Attempt::Thrown(text.trim().to_string()))
                } else if looks_like_exception(text) || self.near_miss(text.trim()) {
                    // The refusal's message only now: it searches for a name to suggest.
                    Err(refusal(self.hierarchy.check_thrown(text).err().unwrap_or_default()))
                } else {
                    Ok(Attempt::Returned(value.clone()))
                }
            }
            Value::Array(_) | Value::Object(_) => Err(
                "a list or an object is not an outcome: write an exception name (thrown) or a value returned (a string, a number, true, false or null)"
                    .to_string(),
            ),
            _ => Ok(Attempt::Returned(value.clone())),
        }
    }
}

/// A hierarchy refusal, worded for a retry script's config.
fn refusal(message: String) -> String {
    message.replace(
        "in the breaker's \"exceptions\"",
        "in the config's \"exceptions\"",
    )
}

/// Equality of two returned values; numbers by value (`1` equals `1.0`, as a browser's
/// `JSON.parse` reads them).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        _ => a == b,
    }
}

/// Resilience4j's exception rule on names (`RetryConfig.Builder.createExceptionPredicate`):
/// retried when `retryExceptions` is empty or holds the class or a superclass, and
/// `ignoreExceptions` holds neither (ignore wins). No other guard: unlike the engine's
/// [`crate::policy::retry::Retry`], a `CallNotPermittedException` or a
/// `BulkheadFullException` is retried like any exception the lists let through.
pub fn is_retried_exception(
    hierarchy: &Hierarchy<'_>,
    retry_exceptions: &[String],
    ignore_exceptions: &[String],
    thrown: &str,
) -> bool {
    let listed = retry_exceptions.is_empty() || hierarchy.any_assignable(retry_exceptions, thrown);
    listed && !hierarchy.any_assignable(ignore_exceptions, thrown)
}

/// What the retry loop does with a thrown exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Thrown {
    /// Not an `Exception` (an `Error`): it leaves the loop untouched.
    Escapes,
    NotRetried,
    Retried,
}

/// Which `Retry.Metrics` counter a call ended in (none for an escaping `Error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counter {
    SuccessfulWithout,
    SuccessfulWith,
    FailedWithout,
    FailedWith,
}

/// How one call ended.
#[derive(Debug, Clone, PartialEq)]
struct CallEnd {
    /// Attempts run (the index past the last outcome used).
    attempts: usize,
    waits: Vec<Millis>,
    error: Option<String>,
    counter: Option<Counter>,
    /// A second counter: the `MaxRetriesExceededException` that `onComplete` throws, which
    /// the decorator's own `catch (Exception)` hands to `onError`.
    rethrown: Option<Counter>,
    /// What the call adds to `numberOfTotalCalls`.
    total_calls: u64,
}

/// Where a call's listed outcomes ran out: it would make attempt `needed` (1-based).
struct RunsOut {
    needed: usize,
}

impl RetryScriptConfig {
    fn hierarchy(&self) -> Hierarchy<'_> {
        Hierarchy::with(&self.exceptions)
    }

    /// `RetryConfig.Builder`'s rules (`maxAttempts >= 1`, a valid interval function), the
    /// declared classes, every listed exception name known or declared (or a fully
    /// qualified class of the application, which nothing thrown can match unless declared),
    /// and `retryOnResultPredicate` entries that are values, not exception names.
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
                format!("must be at most {} (a Java int)", i32::MAX),
            ));
        }
        if let Some(function) = &self.interval_function {
            function.validate().map_err(|e| {
                let key = match (e.field.as_str(), function) {
                    (
                        "waitDuration",
                        IntervalFunction::Fixed { .. } | IntervalFunction::Randomized { .. },
                    ) => "interval",
                    ("waitDuration", _) => "initialInterval",
                    ("exponentialBackoffMultiplier", _) => "multiplier",
                    ("randomizedWaitFactor", _) => "randomizationFactor",
                    ("exponentialMaxWaitDuration", _) => "maxInterval",
                    (other, _) => other,
                };
                ConfigError::new(format!("intervalFunction.{key}"), e.message)
            })?;
        }
        let hierarchy = self.hierarchy();
        hierarchy
            .check_declarations()
            .map_err(|e| ConfigError::new("exceptions", e))?;
        for (field, names) in [
            ("retryExceptions", &self.retry_exceptions),
            ("ignoreExceptions", &self.ignore_exceptions),
        ] {
            hierarchy
                .check_list(names, true)
                .map_err(|(index, e)| match index {
                    Some(index) => ConfigError::new(format!("{field}[{index}]"), refusal(e)),
                    None => ConfigError::new(field, e),
                })?;
        }
        if self.retry_on_result_predicate.len() > MAX_LISTED {
            return Err(ConfigError::new(
                "retryOnResultPredicate",
                format!(
                    "lists {} values: at most {MAX_LISTED}",
                    self.retry_on_result_predicate.len()
                ),
            ));
        }
        let reader = OutcomeReader::new(&self.exceptions);
        for (index, value) in self.retry_on_result_predicate.iter().enumerate() {
            let field = format!("retryOnResultPredicate[{index}]");
            match reader.read(value).map_err(|e| ConfigError::new(&field, e))? {
                Attempt::Returned(_) => {}
                Attempt::Thrown(name) => {
                    return Err(ConfigError::new(
                        field,
                        format!(
                            "`{}` names an exception: an outcome written so is thrown, never returned, so no result could equal it (list exceptions in retryExceptions)",
                            crate::error::excerpt(&name)
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The wait before the retry that follows failed attempt `attempt` (1-based):
    /// `intervalBiFunction.apply(numOfAttempts, ...)`.
    fn wait_after(&self, attempt: u32, rng: &mut Pcg64Mcg) -> Millis {
        match &self.interval_function {
            Some(function) => function.interval(attempt, rng),
            None => self.wait_duration,
        }
    }

    fn is_retried_result(&self, value: &Value) -> bool {
        self.retry_on_result_predicate
            .iter()
            .any(|listed| same_value(listed, value))
    }

    /// What the retry loop does with an exception of class `name`, remembered by class.
    fn thrown(&self, classes: &mut ByClass<Thrown>, name: &str) -> Thrown {
        let hierarchy = self.hierarchy();
        classes.get_or(&hierarchy, name, || {
            if !hierarchy.is_assignable("Exception", name) {
                Thrown::Escapes
            } else if is_retried_exception(
                &hierarchy,
                &self.retry_exceptions,
                &self.ignore_exceptions,
                name,
            ) {
                Thrown::Retried
            } else {
                Thrown::NotRetried
            }
        })
    }

    /// One call, as `Retry.decorateCheckedSupplier` drives `RetryImpl.ContextImpl`:
    /// `numOfAttempts` counts the retried failures so far, and each attempt goes through
    /// `onError` (an `Exception`), or `onResult` then, when not retried, `onComplete`.
    fn run_call(
        &self,
        attempts: &[Attempt],
        classes: &mut ByClass<Thrown>,
        mut wait: impl FnMut(u32) -> Millis,
    ) -> Result<CallEnd, RunsOut> {
        let max = self.max_attempts;
        let mut retried: u32 = 0; // numOfAttempts
        let mut total_calls = 0;
        let mut waits = Vec::new();
        for (index, attempt) in attempts.iter().enumerate() {
            let end = |error: Option<String>, counter, total_calls, waits| CallEnd {
                attempts: index + 1,
                waits,
                error,
                counter,
                rethrown: None,
                total_calls,
            };
            match attempt {
                Attempt::Thrown(name) => {
                    let simple = simple_name(name).to_string();
                    let thrown = self.thrown(classes, name);
                    // `catch (Exception e)`: anything else leaves the loop untouched.
                    if thrown == Thrown::Escapes {
                        return Ok(end(Some(simple), None, total_calls, waits));
                    }
                    total_calls += 1;
                    if thrown == Thrown::NotRetried {
                        return Ok(end(
                            Some(simple),
                            Some(Counter::FailedWithout),
                            total_calls,
                            waits,
                        ));
                    }
                    retried += 1;
                    if retried >= max {
                        return Ok(end(
                            Some(simple),
                            Some(Counter::FailedWith),
                            total_calls,
                            waits,
                        ));
                    }
                    waits.push(wait(retried));
                }
                Attempt::Returned(value) => {
                    if self.is_retried_result(value) {
                        total_calls += 1;
                        retried += 1;
                        if retried < max {
                            waits.push(wait(retried));
                            continue;
                        }
                    }
                    // onComplete.
                    total_calls += 1;
                    if retried >= max && self.fail_after_max_attempts {
                        // onComplete throws inside the decorator's `try`, whose
                        // `catch (Exception)` gives it to onError like any exception: one
                        // more attempt counted, then "failed with retry" again when the lists
                        // retry it (numOfAttempts is past maxAttempts), else "failed without".
                        total_calls += 1;
                        let name = "MaxRetriesExceededException";
                        let rethrown = match self.thrown(classes, name) {
                            Thrown::Retried => Counter::FailedWith,
                            _ => Counter::FailedWithout,
                        };
                        let mut end = end(
                            Some(name.to_string()),
                            Some(Counter::FailedWith),
                            total_calls,
                            waits,
                        );
                        end.rethrown = Some(rethrown);
                        return Ok(end);
                    }
                    let counter = if retried == 0 {
                        Counter::SuccessfulWithout
                    } else if retried < max {
                        Counter::SuccessfulWith
                    } else {
                        Counter::FailedWith
                    };
                    return Ok(end(None, Some(counter), total_calls, waits));
                }
            }
        }
        Err(RunsOut {
            needed: attempts.len() + 1,
        })
    }
}

/// English ordinal: 1st, 2nd, 3rd, 4th, 11th...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

impl RetryScript {
    /// Checks the config (named `config.<field>`), the step count, every outcome (known or
    /// declared exception names; values), that no call runs out of outcomes, and the clock.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.prepare().map(|_| ())
    }

    /// [`Self::validate`], keeping each call's attempts.
    fn prepare(&self) -> Result<Vec<Vec<Attempt>>, ConfigError> {
        self.config
            .validate()
            .map_err(|e| ConfigError::new(format!("config.{}", e.field), e.message))?;
        check_steps(self.steps.len())?;
        let mut clock = Clock::default();
        let mut calls = Vec::new();
        let mut classes = ByClass::default();
        let reader = OutcomeReader::new(&self.config.exceptions);
        for (index, step) in self.steps.iter().enumerate() {
            match step {
                RetryStep::Call(RetryCall { outcomes }) => {
                    let attempts = outcomes
                        .iter()
                        .enumerate()
                        .map(|(k, value)| {
                            reader.read(value).map_err(|e| {
                                ConfigError::new(format!("steps[{index}].call.outcomes[{k}]"), e)
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    if let Err(RunsOut { needed }) =
                        self.config.run_call(&attempts, &mut classes, |_| 0)
                    {
                        let field = format!("steps[{index}].call.outcomes");
                        let message = match attempts.last() {
                            None => "is empty: the call needs at least 1 outcome, its first attempt's".to_string(),
                            Some(last) => format!(
                                "the call needs a {} outcome: attempt {} {}, which is retried (maxAttempts is {}), but only {} outcome{} listed",
                                ordinal(needed),
                                needed - 1,
                                match last {
                                    Attempt::Thrown(name) => format!("threw {}", crate::error::excerpt(simple_name(name))),
                                    Attempt::Returned(value) => format!("returned {}", crate::error::excerpt(&value.to_string())),
                                },
                                self.config.max_attempts,
                                needed - 1,
                                if needed == 2 { " is" } else { "s are" },
                            ),
                        };
                        return Err(ConfigError::new(field, message));
                    }
                    calls.push(attempts);
                }
                RetryStep::AdvanceMs(ms) => clock.advance(index, *ms)?,
            }
        }
        Ok(calls)
    }
}

/// Runs a script on a fresh retry (an invalid script is refused before any step).
pub fn run_retry_script(script: &RetryScript) -> Result<Vec<RetryReport>, ConfigError> {
    let calls = script.prepare()?;
    let config = &script.config;
    let mut rng = Pcg64Mcg::seed_from_u64(script.seed);
    let mut classes = ByClass::default();
    let mut metrics = RetryScriptMetrics::default();
    let mut now: Millis = 0;
    let mut calls = calls.into_iter();
    let reports = script
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            let mut report = RetryReport {
                step: index,
                t_ms: now,
                metrics,
                attempts: None,
                waits_ms: None,
                outcome: None,
                error: None,
            };
            match step {
                RetryStep::Call(_) => {
                    let attempts = calls.next().expect("one prepared call per call step");
                    let end = config
                        .run_call(&attempts, &mut classes, |n| config.wait_after(n, &mut rng))
                        .unwrap_or_else(|_| {
                            unreachable!("validation refuses a call that runs out")
                        });
                    for counter in end.counter.into_iter().chain(end.rethrown) {
                        match counter {
                            Counter::SuccessfulWithout => {
                                metrics.number_of_successful_calls_without_retry_attempt += 1
                            }
                            Counter::SuccessfulWith => {
                                metrics.number_of_successful_calls_with_retry_attempt += 1
                            }
                            Counter::FailedWithout => {
                                metrics.number_of_failed_calls_without_retry_attempt += 1
                            }
                            Counter::FailedWith => {
                                metrics.number_of_failed_calls_with_retry_attempt += 1
                            }
                        }
                    }
                    metrics.number_of_total_calls += end.total_calls;
                    report.metrics = metrics;
                    report.attempts = Some(end.attempts);
                    report.outcome = Some(attempts[end.attempts - 1].shown());
                    report.waits_ms = Some(end.waits);
                    report.error = end.error;
                }
                RetryStep::AdvanceMs(ms) => {
                    now += ms;
                    report.t_ms = now;
                }
            }
            report
        })
        .collect();
    Ok(reports)
}

/// Reads, checks and runs a script given as JSON text; one JSON line per step.
pub fn run_text(json: &str) -> Result<Vec<String>, String> {
    let script: RetryScript = super::parse(json, "retry script")?;
    let reports = run_retry_script(&script).map_err(|e| format!("invalid retry script: {e}"))?;
    json_lines(&reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }

    #[test]
    fn strings_are_thrown_or_returned_by_the_documented_rule() {
        let declared: DeclaredExceptions = [(
            "PaymentException".to_string(),
            "RuntimeException".to_string(),
        )]
        .into();
        let reader = OutcomeReader::new(&declared);
        let read = |v: Value| reader.read(&v);
        assert_eq!(
            read("IOException".into()),
            Ok(Attempt::Thrown("IOException".into()))
        );
        assert_eq!(
            read("java.io.IOException".into()),
            Ok(Attempt::Thrown("java.io.IOException".into()))
        );
        assert_eq!(
            read("RequestNotPermitted".into()),
            Ok(Attempt::Thrown("RequestNotPermitted".into()))
        );
        assert_eq!(
            read("PaymentException".into()),
            Ok(Attempt::Thrown("PaymentException".into()))
        );
        for value in [
            "ok",
            "PENDING",
            "ERROR",
            "Errors",
            "",
            "ioexception",
            "Connection reset",
        ] {
            assert_eq!(
                read(value.into()),
                Ok(Attempt::Returned(value.into())),
                "{value}"
            );
        }
        assert!(read("MyException".into()).unwrap_err().contains("config's"));
        assert!(read("FileNotFoundExeption".into())
            .unwrap_err()
            .contains("did you mean FileNotFoundException?"));
        assert!(read("IOExeption".into()).is_err());
        assert!(read("PaymentExeption".into()).is_err());
        assert!(read(serde_json::json!([1])).is_err());
        assert_eq!(read(Value::Null), Ok(Attempt::Returned(Value::Null)));
    }

    #[test]
    fn numbers_compare_by_value() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert!(same_value(&v("1"), &v("1.0")));
        assert!(same_value(&v("-2"), &v("-2.0")));
        assert!(!same_value(&v("1"), &v("\"1\"")));
        assert!(same_value(
            &v("18446744073709551615"),
            &v("18446744073709551615")
        ));
        assert!(!same_value(&v("9007199254740993"), &v("9007199254740992")));
    }
}
