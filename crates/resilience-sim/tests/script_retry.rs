//! Retry scripts (`resilience-sim retry FILE`) against Resilience4j 2.x's `RetryImpl`: its
//! defaults, each as its own test; cases from Resilience4j's documentation and its own tests
//! (`SupplierRetryTest`, `RetryMetricsTest`), with the numbers they assert; the behaviours
//! that surprise people, pinned; the script format's refusals; and a property test against
//! an independent model written from Resilience4j's documented behaviour.

use std::process::Command;

use proptest::prelude::*;
use serde_json::{json, Value};

use resilience_sim::scenario::scripts::retry::{self, RetryScript, RetryScriptConfig};

fn run(script: Value) -> Vec<Value> {
    retry::run_text(&script.to_string())
        .unwrap_or_else(|e| panic!("{e}"))
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The one report of a script with a single call.
fn one_call(config: Value, outcomes: Value) -> Value {
    let mut reports = run(json!({"config": config, "steps": [{"call": {"outcomes": outcomes}}]}));
    assert_eq!(reports.len(), 1);
    reports.remove(0)
}

fn refusal(script: Value) -> String {
    let e = retry::run_text(&script.to_string()).unwrap_err();
    assert!(e.starts_with("invalid retry script: "), "{e}");
    assert!(!e.contains('\n'), "{e}");
    e
}

/// The four `Retry.Metrics` counters, in the interface's order: successful without retry,
/// successful with retry, failed without retry, failed with retry.
fn counters(report: &Value) -> [u64; 4] {
    [
        "numberOfSuccessfulCallsWithoutRetryAttempt",
        "numberOfSuccessfulCallsWithRetryAttempt",
        "numberOfFailedCallsWithoutRetryAttempt",
        "numberOfFailedCallsWithRetryAttempt",
    ]
    .map(|key| {
        report[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key} in {report}"))
    })
}

fn total_calls(report: &Value) -> u64 {
    report["numberOfTotalCalls"].as_u64().unwrap()
}

// --- Resilience4j's defaults (RetryConfig), one test each ---------------------------------

#[test]
fn default_max_attempts_is_3() {
    assert_eq!(RetryScriptConfig::default().max_attempts, 3);
    // An exception that keeps coming back is tried 3 times in all, then thrown.
    let r = one_call(
        json!({}),
        json!(["IOException", "IOException", "IOException", "ok"]),
    );
    assert_eq!(r["attempts"], 3);
    assert_eq!(r["error"], "IOException");
}

#[test]
fn default_wait_duration_is_500_ms() {
    assert_eq!(RetryScriptConfig::default().wait_duration, 500);
    let r = one_call(json!({}), json!(["IOException", "IOException", "ok"]));
    assert_eq!(r["waits_ms"], json!([500, 500]));
}

#[test]
fn default_fail_after_max_attempts_is_false() {
    assert!(!RetryScriptConfig::default().fail_after_max_attempts);
    // Results retried until the attempts run out: the last one is returned, no exception.
    let r = one_call(
        json!({"retryOnResultPredicate": ["PENDING"]}),
        json!(["PENDING", "PENDING", "PENDING"]),
    );
    assert_eq!(r["outcome"], "PENDING");
    assert!(r.get("error").is_none(), "{r}");
}

#[test]
fn default_retry_exceptions_is_empty_and_retries_every_exception() {
    assert!(RetryScriptConfig::default().retry_exceptions.is_empty());
    // Resilience4j's plain rule: even a refusal of our own breaker is retried (the engine's
    // policy refuses to; the script reproduces Resilience4j).
    for thrown in [
        "CallNotPermittedException",
        "BulkheadFullException",
        "IllegalStateException",
        "BusinessException",
    ] {
        let r = one_call(json!({}), json!([thrown, "ok"]));
        assert_eq!(r["attempts"], 2, "{thrown}");
        assert_eq!(counters(&r), [0, 1, 0, 0], "{thrown}");
    }
}

#[test]
fn default_ignore_exceptions_is_empty() {
    assert!(RetryScriptConfig::default().ignore_exceptions.is_empty());
}

#[test]
fn default_retry_on_result_predicate_retries_no_result() {
    assert!(RetryScriptConfig::default()
        .retry_on_result_predicate
        .is_empty());
    let r = one_call(json!({}), json!(["PENDING", "ok"]));
    assert_eq!(r["attempts"], 1);
    assert_eq!(r["outcome"], "PENDING");
}

#[test]
fn default_interval_function_is_none_and_the_seed_is_0() {
    assert_eq!(RetryScriptConfig::default().interval_function, None);
    let script: RetryScript = serde_json::from_str(r#"{"steps": []}"#).unwrap();
    assert_eq!(script.seed, 0);
    assert_eq!(script.config, RetryScriptConfig::default());
}

#[test]
fn an_empty_config_takes_every_default() {
    let script: RetryScript = serde_json::from_str(r#"{"config": {}, "steps": []}"#).unwrap();
    assert_eq!(script.config, RetryScriptConfig::default());
}

// --- maxAttempts counts the first call ---------------------------------------------------

/// Resilience4j's documentation: "maxAttempts: the maximum number of attempts (including
/// the initial call as the first attempt)". So maxAttempts 1 means no retry at all, and 2
/// means one retry.
#[test]
fn max_attempts_counts_the_first_call() {
    let r = one_call(json!({"maxAttempts": 1}), json!(["IOException", "ok"]));
    assert_eq!(r["attempts"], 1);
    assert_eq!(r["waits_ms"], json!([]));
    assert_eq!(r["error"], "IOException");
    let r = one_call(
        json!({"maxAttempts": 2}),
        json!(["IOException", "IOException", "ok"]),
    );
    assert_eq!(r["attempts"], 2);
    assert_eq!(r["waits_ms"], json!([500]));
    assert_eq!(r["error"], "IOException");
}

// --- Resilience4j's own tests and documentation ------------------------------------------

/// `SupplierRetryTest.testDecorateSupplier`: defaults, one failure then "Hello world": 2
/// calls, slept `DEFAULT_WAIT_DURATION` once.
#[test]
fn one_failure_then_success_with_defaults() {
    // HelloWorldException (Resilience4j's test class) is an unchecked exception.
    let config = json!({"exceptions": {"HelloWorldException": "RuntimeException"}});
    let r = one_call(config, json!(["HelloWorldException", "Hello world"]));
    assert_eq!(r["attempts"], 2);
    assert_eq!(r["waits_ms"], json!([500]));
    assert_eq!(r["outcome"], "Hello world");
    assert!(r.get("error").is_none());
    assert_eq!(counters(&r), [0, 1, 0, 0]);
}

/// `SupplierRetryTest.testDecorateSupplierAndInvokeTwice`: two such calls, 4 calls in all,
/// slept twice the default wait, and `numberOfSuccessfulCallsWithRetryAttempt` is 2.
#[test]
fn two_calls_each_retried_once() {
    let step = json!({"call": {"outcomes": ["HelloWorldException", "Hello world"]}});
    let reports = run(json!({
        "config": {"exceptions": {"HelloWorldException": "RuntimeException"}},
        "steps": [step, step]
    }));
    let attempts: u64 = reports
        .iter()
        .map(|r| r["attempts"].as_u64().unwrap())
        .sum();
    let slept: u64 = reports
        .iter()
        .flat_map(|r| r["waits_ms"].as_array().unwrap().clone())
        .map(|w| w.as_u64().unwrap())
        .sum();
    assert_eq!(attempts, 4);
    assert_eq!(slept, 1_000);
    assert_eq!(counters(&reports[1]), [0, 2, 0, 0]);
}

/// `SupplierRetryTest.shouldReturnAfterThreeAttempts` and `shouldReturnAfterOneAttempt`.
#[test]
fn always_failing_calls_throw_after_max_attempts() {
    let r = one_call(json!({}), json!(vec!["IOException"; 3]));
    assert_eq!(r["attempts"], 3);
    assert_eq!(r["waits_ms"], json!([500, 500]));
    assert_eq!(r["error"], "IOException");
    assert_eq!(counters(&r), [0, 0, 0, 1]);

    let r = one_call(json!({"maxAttempts": 1}), json!(["IOException"]));
    assert_eq!(r["attempts"], 1);
    assert_eq!(r["waits_ms"], json!([]));
}

/// `SupplierRetryTest.shouldRetryWithResult` / `shouldNotRetryWithResult`: a result the
/// predicate matches is retried up to maxAttempts (2) and then returned as it is.
#[test]
fn results_are_retried_by_the_predicate() {
    let config = json!({"maxAttempts": 2, "retryOnResultPredicate": ["Hello world"]});
    let r = one_call(config.clone(), json!(["Hello world", "Hello world"]));
    assert_eq!(r["attempts"], 2);
    assert_eq!(r["outcome"], "Hello world");
    assert!(r.get("error").is_none());

    let config = json!({"maxAttempts": 2, "retryOnResultPredicate": ["tryAgain"]});
    let r = one_call(config, json!(["Hello world"]));
    assert_eq!(r["attempts"], 1);
    assert_eq!(r["waits_ms"], json!([]));
}

/// `RetryMetricsTest`: `numberOfTotalCalls` is 1 for a success, 3 for two failures then a
/// success (maxAttempts 5), and 5 for five failures with failAfterMaxAttempts, where the
/// caller gets the exception itself, not `MaxRetriesExceededException`.
#[test]
fn total_calls_as_resilience4j_counts_them() {
    let r = one_call(json!({"maxAttempts": 5}), json!(["Success"]));
    assert_eq!(total_calls(&r), 1);

    let config = json!({"maxAttempts": 5, "retryExceptions": ["Exception"]});
    let r = one_call(config, json!(["IOException", "IOException", "Success"]));
    assert_eq!(total_calls(&r), 3);

    let config =
        json!({"maxAttempts": 5, "retryExceptions": ["Exception"], "failAfterMaxAttempts": true});
    let r = one_call(config, json!(vec!["IOException"; 5]));
    assert_eq!(total_calls(&r), 5);
    assert_eq!(r["error"], "IOException");
}

/// The documentation's example: `retryExceptions(IOException.class, TimeoutException.class)`
/// and `ignoreExceptions(BusinessException.class, OtherBusinessException.class)`. A subclass
/// of a listed class matches; ignore wins over retry; an unlisted exception is not retried.
#[test]
fn retry_and_ignore_lists_match_subclasses_and_ignore_wins() {
    let config = json!({
        "retryExceptions": ["IOException", "TimeoutException"],
        "ignoreExceptions": ["BusinessException", "OtherBusinessException", "FileNotFoundException"],
        "exceptions": {"OtherBusinessException": "RuntimeException"}
    });
    for (thrown, retried) in [
        ("ConnectException", true), // extends SocketException extends IOException
        ("SocketTimeoutException", true), // extends InterruptedIOException extends IOException
        ("TimeoutException", true), // listed
        ("FileNotFoundException", false), // an IOException, but ignored: ignore wins
        ("BusinessException", false), // ignored
        ("OtherBusinessException", false), // ignored (declared)
        ("IllegalStateException", false), // in neither list: not retried
    ] {
        let r = one_call(config.clone(), json!([thrown, "ok"]));
        if retried {
            assert_eq!(r["attempts"], 2, "{thrown}");
            assert_eq!(counters(&r), [0, 1, 0, 0], "{thrown}");
        } else {
            assert_eq!(r["attempts"], 1, "{thrown}");
            assert_eq!(r["error"], thrown, "{thrown}");
            assert_eq!(counters(&r), [0, 0, 1, 0], "{thrown}");
        }
    }
}

#[test]
fn fully_qualified_names_work_and_the_error_is_the_simple_name() {
    let config = json!({"retryExceptions": ["java.io.IOException"]});
    let r = one_call(
        config,
        json!([
            "java.net.ConnectException",
            "java.net.ConnectException",
            "java.net.ConnectException"
        ]),
    );
    assert_eq!(r["attempts"], 3);
    assert_eq!(r["error"], "ConnectException");
    assert_eq!(r["outcome"], "ConnectException");
}

// --- What surprises people -----------------------------------------------------------------

/// `RetryImpl.ContextImpl.onError`: an exception that is not retried goes to
/// `failedWithoutRetryCounter`, however many retries came before it.
#[test]
fn a_non_retried_exception_after_retries_counts_as_failed_without_retry() {
    let config = json!({"retryExceptions": ["IOException"]});
    let r = one_call(config, json!(["IOException", "IllegalStateException"]));
    assert_eq!(r["attempts"], 2);
    assert_eq!(r["waits_ms"], json!([500]));
    assert_eq!(r["error"], "IllegalStateException");
    assert_eq!(counters(&r), [0, 0, 1, 0]);
}

/// `throwOrSleepAfterException`: the retried failure that reaches maxAttempts counts as
/// "failed with retry", even when maxAttempts is 1 and nothing was retried.
#[test]
fn max_attempts_1_counts_a_retryable_failure_as_failed_with_retry() {
    let r = one_call(json!({"maxAttempts": 1}), json!(["IOException"]));
    assert_eq!(counters(&r), [0, 0, 0, 1]);
    let r = one_call(
        json!({"maxAttempts": 1, "retryOnResultPredicate": ["PENDING"]}),
        json!(["PENDING"]),
    );
    assert_eq!(counters(&r), [0, 0, 0, 1]);
    assert_eq!(r["outcome"], "PENDING");
}

/// `onComplete` after results ran out: "failed with retry"; the caller gets the last result.
/// `numberOfTotalCalls` counts the last attempt twice (`onResult` and `onComplete` both
/// increment it): 3 attempts, 4.
///
/// With failAfterMaxAttempts, `onComplete` throws `MaxRetriesExceededException` inside
/// `decorateCheckedSupplier`'s `try`, whose `catch (Exception)` passes it to `onError`: one
/// more in `numberOfTotalCalls` (5), and a second "failed" count: with retry when the lists
/// retry it (by default every exception is retried; `numOfAttempts` is past maxAttempts),
/// without retry when they do not (only IOException retried). Resilience4j 2.4.0 gives these
/// counts (`scripts/resilience4j/compare.mjs --policy retry`).
#[test]
fn results_retried_until_exhaustion() {
    let r = one_call(
        json!({"retryOnResultPredicate": ["PENDING"]}),
        json!(["PENDING", "PENDING", "PENDING"]),
    );
    assert_eq!(r["attempts"], 3);
    assert_eq!(r["waits_ms"], json!([500, 500]));
    assert_eq!(r["outcome"], "PENDING");
    assert_eq!(counters(&r), [0, 0, 0, 1]);
    assert_eq!(total_calls(&r), 4);
    assert!(r.get("error").is_none());

    let pending = json!(["PENDING", "PENDING", "PENDING"]);
    let failing = json!({"retryOnResultPredicate": ["PENDING"], "failAfterMaxAttempts": true});
    let r = one_call(failing, pending.clone());
    assert_eq!(r["error"], "MaxRetriesExceededException");
    assert_eq!(r["outcome"], "PENDING");
    assert_eq!(counters(&r), [0, 0, 0, 2]);
    assert_eq!(total_calls(&r), 5);

    let io_only = json!({"retryOnResultPredicate": ["PENDING"], "failAfterMaxAttempts": true,
                         "retryExceptions": ["IOException"]});
    let r = one_call(io_only, pending);
    assert_eq!(r["error"], "MaxRetriesExceededException");
    assert_eq!(counters(&r), [0, 0, 1, 1]);
    assert_eq!(total_calls(&r), 5);
}

/// With failAfterMaxAttempts, attempts that run out on an *exception* still throw that
/// exception (`throwOrSleepAfterException` throws it before any `onComplete`).
#[test]
fn fail_after_max_attempts_only_concerns_results() {
    let config = json!({"retryOnResultPredicate": ["PENDING"], "failAfterMaxAttempts": true});
    let r = one_call(config, json!(["PENDING", "PENDING", "IOException"]));
    assert_eq!(r["error"], "IOException");
    assert_eq!(counters(&r), [0, 0, 0, 1]);
    assert_eq!(total_calls(&r), 3);
}

/// `Retry.decorateCheckedSupplier` catches `Exception`: an `Error` (or a `Throwable` that is
/// no `Exception`) leaves the retry at once, retried by no list and counted nowhere.
#[test]
fn errors_escape_the_retry_uncounted() {
    let config = json!({
        "retryExceptions": ["Throwable"],
        "exceptions": {"CustomError": "Error", "RawThrowable": "Throwable"}
    });
    for thrown in [
        "OutOfMemoryError",
        "AssertionError",
        "CustomError",
        "RawThrowable",
        "Throwable",
    ] {
        let r = one_call(config.clone(), json!(["IOException", thrown, "ok"]));
        assert_eq!(r["attempts"], 2, "{thrown}");
        assert_eq!(r["waits_ms"], json!([500]), "{thrown}");
        assert_eq!(r["error"], thrown, "{thrown}");
        assert_eq!(counters(&r), [0, 0, 0, 0], "{thrown}");
        // Only the IOException reached the context.
        assert_eq!(total_calls(&r), 1, "{thrown}");
    }
}

#[test]
fn a_success_after_retried_exceptions_and_results_counts_with_retry() {
    let config = json!({"maxAttempts": 4, "retryOnResultPredicate": ["PENDING", 503]});
    let r = one_call(config, json!(["ConnectException", 503, "PENDING", "ok"]));
    assert_eq!(r["attempts"], 4);
    assert_eq!(r["waits_ms"], json!([500, 500, 500]));
    assert_eq!(r["outcome"], "ok");
    assert!(r.get("error").is_none());
    assert_eq!(counters(&r), [0, 1, 0, 0]);
    assert_eq!(total_calls(&r), 4);
}

// --- Waits and the clock ----------------------------------------------------------------------

/// `IntervalFunction.ofExponentialBackoff(1s, 2)`: 1 s, 2 s, 4 s before retries 1, 2, 3.
#[test]
fn exponential_backoff_waits() {
    let config = json!({
        "maxAttempts": 4,
        "intervalFunction": {"type": "exponential", "initialInterval": "1s", "multiplier": 2.0}
    });
    let r = one_call(config, json!(vec!["IOException"; 4]));
    assert_eq!(r["waits_ms"], json!([1_000, 2_000, 4_000]));
}

/// `IntervalFunction.ofRandomized(500ms, 0.5)`: each wait in [250, 750]; the same seed
/// gives the same waits.
#[test]
fn randomized_waits_follow_the_seed() {
    let script = |seed: u64| {
        json!({
            "config": {"maxAttempts": 20, "intervalFunction": {"type": "randomized"}},
            "seed": seed,
            "steps": [{"call": {"outcomes": vec!["IOException"; 20]}}]
        })
    };
    let waits = |seed| run(script(seed))[0]["waits_ms"].clone();
    let first = waits(7);
    assert_eq!(first, waits(7));
    assert_ne!(first, waits(8));
    for w in first.as_array().unwrap() {
        let w = w.as_u64().unwrap();
        assert!((250..=750).contains(&w), "{w}");
    }
}

#[test]
fn the_clock_moves_only_with_advances() {
    let reports = run(json!({
        "steps": [
            {"call": {"outcomes": ["IOException", "IOException", "ok"]}},
            {"advance_ms": 1_500},
            {"call": {"outcomes": ["ok"]}},
            {"advance_ms": 2500}
        ]
    }));
    let t: Vec<u64> = reports
        .iter()
        .map(|r| r["t_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(&t[..3], [0, 1_500, 1_500]);
    // An advance reports the metrics and nothing of a call.
    assert_eq!(counters(&reports[1]), [0, 1, 0, 0]);
    assert!(reports[1].get("attempts").is_none());
    assert_eq!(counters(&reports[2]), [1, 1, 0, 0]);
}

// --- Outcomes: thrown or returned ---------------------------------------------------------------

#[test]
fn values_that_are_not_exception_names_are_returned() {
    let config = json!({"retryOnResultPredicate": [503, true, null, "RETRY"], "maxAttempts": 6});
    let r = one_call(config, json!([503, 503.0, true, null, "RETRY", "OK"]));
    assert_eq!(r["attempts"], 6);
    let config = json!({"retryOnResultPredicate": [503]});
    for value in [
        json!("503"),
        json!(false),
        json!(0),
        json!("ERROR"),
        json!("ioexception"),
    ] {
        let r = one_call(config.clone(), json!([value.clone()]));
        assert_eq!(r["attempts"], 1, "{value}");
        assert_eq!(r["outcome"], value);
        assert!(r.get("error").is_none(), "{value}");
    }
}

#[test]
fn outcomes_listed_after_the_call_ends_are_not_run() {
    let r = one_call(json!({}), json!(["ok", "IOException", "IOException"]));
    assert_eq!(r["attempts"], 1);
    assert_eq!(total_calls(&r), 1);
}

// --- Refusals -----------------------------------------------------------------------------------

#[test]
fn a_call_that_runs_out_of_outcomes_is_refused_with_its_step_and_count() {
    let e = refusal(json!({
        "config": {"maxAttempts": 5},
        "steps": [{"advance_ms": 1}, {"call": {"outcomes": ["ok"]}},
                  {"call": {"outcomes": ["IOException", "IOException", "IOException"]}}]
    }));
    assert!(e.contains("steps[2].call.outcomes: "), "{e}");
    assert!(e.contains("needs a 4th outcome"), "{e}");
    assert!(e.contains("only 3 outcomes are listed"), "{e}");

    let e = refusal(json!({"steps": [{"call": {"outcomes": []}}]}));
    assert!(e.contains("steps[0].call.outcomes: is empty"), "{e}");

    let e = refusal(json!({
        "config": {"retryOnResultPredicate": ["PENDING"]},
        "steps": [{"call": {"outcomes": ["PENDING"]}}]
    }));
    assert!(e.contains("needs a 2nd outcome"), "{e}");
    assert!(e.contains("only 1 outcome is listed"), "{e}");
}

#[test]
fn unknown_exception_names_are_refused() {
    let e =
        refusal(json!({"steps": [{"call": {"outcomes": ["IOException", "PaymentException"]}}]}));
    assert!(e.contains("steps[0].call.outcomes[1]: "), "{e}");
    assert!(
        e.contains("`PaymentException` is not an exception this simulation knows"),
        "{e}"
    );
    assert!(e.contains("the config's \"exceptions\""), "{e}");
    assert!(!e.contains("breaker"), "{e}");

    let e = refusal(json!({"steps": [{"call": {"outcomes": ["FileNotFoundExeption"]}}]}));
    assert!(e.contains("did you mean FileNotFoundException?"), "{e}");

    let e = refusal(json!({"config": {"retryExceptions": ["IOExeption"]}, "steps": []}));
    assert!(e.contains("config.retryExceptions[0]: "), "{e}");

    // Declared, it is thrown and its parent decides.
    let r = one_call(
        json!({"retryExceptions": ["RuntimeException"], "exceptions": {"PaymentException": "RuntimeException"}}),
        json!(["PaymentException", "ok"]),
    );
    assert_eq!(r["attempts"], 2);
}

#[test]
fn bad_scripts_are_refused_before_any_step() {
    for (script, mentions) in [
        (
            json!({"config": {"maxAttempts": 0}, "steps": []}),
            "config.maxAttempts: must be greater than or equal to 1",
        ),
        (
            json!({"config": {"maxAttempts": 2_147_483_648_u64}, "steps": []}),
            "config.maxAttempts: must be at most 2147483647",
        ),
        (
            json!({"config": {"retryOnResultPredicate": ["IOException"]}, "steps": []}),
            "config.retryOnResultPredicate[0]: `IOException` names an exception",
        ),
        (
            json!({"config": {"retryOnResultPredicate": [[1]]}, "steps": []}),
            "config.retryOnResultPredicate[0]: a list or an object",
        ),
        (
            json!({"config": {"intervalFunction": {"type": "exponential", "multiplier": 0}}, "steps": []}),
            "config.intervalFunction.multiplier",
        ),
        (
            json!({"config": {"intervalFunction": {"type": "fixed", "interval": 0}}, "steps": []}),
            "config.intervalFunction.interval",
        ),
        (
            json!({"config": {"exceptions": {"IOException": "Exception"}}, "steps": []}),
            "config.exceptions: ",
        ),
        (
            json!({"config": {"waitDurationInOpenState": 5}, "steps": []}),
            "config.waitDurationInOpenState: unknown field `waitDurationInOpenState`",
        ),
        (
            json!({"steps": [{"call": {"outcomes": ["ok"], "duration_ms": 3}}]}),
            "steps[0].call.duration_ms: unknown field",
        ),
        (
            json!({"steps": [{"call": {"outcomes": [{"status": 503}]}}]}),
            "steps[0].call.outcomes[0]: a list or an object",
        ),
        (
            json!({"steps": [{"advance_ms": 1.5}]}),
            "steps[0].advance_ms",
        ),
        (
            json!({"steps": [{"advance_ms": 1_000_000_000_001_u64}]}),
            "steps[0].advance_ms: takes the script's clock past",
        ),
        (
            json!({"steps": [{"jump": {}}]}),
            "steps[0]: unknown variant `jump`",
        ),
        (json!({"seed": -1, "steps": []}), "seed"),
    ] {
        let e = refusal(script.clone());
        assert!(e.contains(mentions), "{script}: {e}");
    }
}

/// The examples of a section of docs/scripts.md: each ```json block (a script) with the
/// plain ``` block after it (its output lines).
fn doc_examples(section: &str) -> Vec<(String, Vec<String>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scripts.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let heading = format!("\n## {section}\n");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("no {heading:?}"))
        + 1;
    let body = &doc[start..];
    let body = &body[..body[3..].find("\n## ").map_or(body.len(), |i| i + 3)];
    let mut blocks = Vec::new();
    let mut lines = body.lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let text: Vec<String> = lines
                .by_ref()
                .take_while(|l| *l != "```")
                .map(String::from)
                .collect();
            blocks.push((lang.to_string(), text));
        }
    }
    blocks
        .windows(2)
        .filter(|pair| pair[0].0 == "json" && pair[1].0.is_empty())
        .map(|pair| (pair[0].1.join("\n"), pair[1].1.clone()))
        .collect()
}

/// docs/scripts.md shows what the CLI prints for its examples.
#[test]
fn the_documented_examples_print_what_the_docs_say() {
    let examples = doc_examples("Retry scripts");
    assert_eq!(examples.len(), 2);
    for (script, lines) in examples {
        assert_eq!(retry::run_text(&script).unwrap(), lines, "{script}");
    }
}

// --- The CLI ------------------------------------------------------------------------------------

#[test]
fn the_cli_prints_one_line_per_step() {
    let dir = std::env::temp_dir().join(format!("script-retry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("retry.json");
    let script =
        json!({"steps": [{"call": {"outcomes": ["IOException", "ok"]}}, {"advance_ms": 10}]});
    std::fs::write(&file, script.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(["retry", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines, retry::run_text(&script.to_string()).unwrap());
    assert_eq!(lines.len(), 2);

    std::fs::write(&file, r#"{"steps": [{"call": {"outcomes": []}}]}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(["retry", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("invalid retry script: steps[0].call.outcomes"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

// --- A property test against an independent model ------------------------------------------------

/// What a generated outcome is, by Java's class hierarchy and the model's fixed lists:
/// `retryExceptions` is `["IOException"]` or empty, `ignoreExceptions` is
/// `["FileNotFoundException"]`, `retryOnResultPredicate` is `["PENDING", 503]`.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// An IOException subclass that is not ignored.
    Io(&'static str),
    /// FileNotFoundException: an IOException, but ignored.
    Ignored,
    /// A RuntimeException outside IOException: retried only when retryExceptions is empty.
    Runtime(&'static str),
    /// A java.lang.Error: never caught by the retry.
    Error(&'static str),
    /// A returned value the predicate lists.
    RetriedValue(&'static str),
    /// A returned value the predicate does not list.
    Value(&'static str),
}

impl Kind {
    fn json(self) -> Value {
        match self {
            Kind::Io(name) | Kind::Runtime(name) | Kind::Error(name) => json!(name),
            Kind::Ignored => json!("FileNotFoundException"),
            Kind::RetriedValue(v) | Kind::Value(v) => serde_json::from_str(v).unwrap(),
        }
    }
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        3 => prop_oneof![Just("IOException"), Just("ConnectException"), Just("SocketTimeoutException")].prop_map(Kind::Io),
        1 => Just(Kind::Ignored),
        1 => prop_oneof![Just("IllegalStateException"), Just("CallNotPermittedException")].prop_map(Kind::Runtime),
        1 => prop_oneof![Just("OutOfMemoryError"), Just("AssertionError")].prop_map(Kind::Error),
        2 => prop_oneof![Just("\"PENDING\""), Just("503"), Just("503.0")].prop_map(Kind::RetriedValue),
        2 => prop_oneof![Just("\"ok\""), Just("200"), Just("true"), Just("null")].prop_map(Kind::Value),
    ]
}

#[derive(Debug, Clone)]
enum Step {
    Call(Vec<Kind>),
    Advance(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        // Most calls end on a value not retried, so most scripts run to their end; the
        // others may run out of outcomes (and refuse the script).
        4 => (prop::collection::vec(kind(), 0..8), prop::bool::weighted(0.85)).prop_map(
            |(mut kinds, settled)| {
                if settled {
                    kinds.push(Kind::Value("\"ok\""));
                }
                Step::Call(kinds)
            }
        ),
        1 => (0u64..5_000).prop_map(Step::Advance),
    ]
}

/// Resilience4j's documented behaviour, formulated on the attempt that ends the call:
/// attempts run until one is *final* (an Error, an exception not retried, a value not
/// retried, or the maxAttempts-th attempt), each retry after `waitDuration`. The caller then
/// gets what that attempt did, except a retried value on the last attempt, which is
/// `MaxRetriesExceededException` with failAfterMaxAttempts (counted a second time, as
/// `onError` counts that exception: see `results_retried_until_exhaustion`). The call counts as successful
/// when it returns a value not retried (with retry when it was not the first attempt), as
/// failed without retry when an exception is not retried, as failed with retry when the
/// attempts ran out, and not at all when an Error escapes. `numberOfTotalCalls` adds every
/// attempt the retry saw (not an escaping Error), plus one for results run out.
#[derive(Debug, Default, Clone, PartialEq)]
struct Expected {
    attempts: u64,
    waits: Vec<u64>,
    error: Option<String>,
    counters: [u64; 4],
    total: u64,
}

fn model_call(
    outcomes: &[Kind],
    max_attempts: usize,
    retry_all: bool,
    fail_after: bool,
    wait: u64,
) -> Option<Expected> {
    let retried = |k: &Kind| match k {
        Kind::Io(_) | Kind::RetriedValue(_) => true,
        Kind::Runtime(_) => retry_all,
        Kind::Ignored | Kind::Error(_) | Kind::Value(_) => false,
    };
    // The first attempt that is final; None when the listed outcomes run out first.
    let last = (0..outcomes.len().min(max_attempts))
        .find(|&i| !retried(&outcomes[i]) || i + 1 == max_attempts)?;
    let attempts = last + 1;
    let final_kind = outcomes[last];
    let mut e = Expected {
        attempts: attempts as u64,
        waits: vec![wait; last],
        total: attempts as u64,
        ..Expected::default()
    };
    let name = |k: Kind| k.json().as_str().unwrap().to_string();
    match final_kind {
        Kind::Error(n) => {
            e.error = Some(n.to_string());
            e.total -= 1;
        }
        Kind::Value(_) => e.counters[if attempts == 1 { 0 } else { 1 }] = 1,
        Kind::RetriedValue(_) => {
            // Only reached on the last attempt: the attempts ran out.
            e.counters[3] = 1;
            e.total += 1;
            if fail_after {
                // onComplete's MaxRetriesExceededException (a RuntimeException) goes through
                // the decorator's catch to onError: one more attempt, and failed again, with
                // retry when RuntimeExceptions are retried, else without.
                e.error = Some("MaxRetriesExceededException".into());
                e.total += 1;
                e.counters[if retry_all { 3 } else { 2 }] += 1;
            }
        }
        k if retried(&k) => {
            e.counters[3] = 1;
            e.error = Some(name(k));
        }
        k => {
            e.counters[2] = 1;
            e.error = Some(name(k));
        }
    }
    Some(e)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_runner_matches_the_model(
        steps in prop::collection::vec(step(), 0..12),
        max_attempts in 1usize..6,
        retry_all in any::<bool>(),
        fail_after in any::<bool>(),
        wait in 0u64..2_000,
    ) {
        let config = json!({
            "maxAttempts": max_attempts,
            "waitDuration": wait,
            "retryExceptions": if retry_all { json!([]) } else { json!(["IOException"]) },
            "ignoreExceptions": ["FileNotFoundException"],
            "retryOnResultPredicate": ["PENDING", 503],
            "failAfterMaxAttempts": fail_after,
        });
        let json_steps: Vec<Value> = steps.iter().map(|s| match s {
            Step::Call(kinds) => json!({"call": {"outcomes": kinds.iter().map(|k| k.json()).collect::<Vec<_>>()}}),
            Step::Advance(ms) => json!({"advance_ms": ms}),
        }).collect();
        let script = json!({"config": config, "steps": json_steps});

        // The model, step by step; a call that runs out of outcomes refuses the script.
        let mut expected = Vec::new();
        let mut refused_at = None;
        for (index, s) in steps.iter().enumerate() {
            match s {
                Step::Call(kinds) => match model_call(kinds, max_attempts, retry_all, fail_after, wait) {
                    Some(e) => expected.push(Some(e)),
                    None => { refused_at = Some(index); break; }
                },
                Step::Advance(_) => expected.push(None),
            }
        }
        let result = retry::run_text(&script.to_string());
        if let Some(index) = refused_at {
            let e = result.unwrap_err();
            let prefix = format!("invalid retry script: steps[{index}].call.outcomes: ");
            prop_assert!(e.starts_with(&prefix), "{}", e);
            return Ok(());
        }
        let reports: Vec<Value> = result.unwrap().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        prop_assert_eq!(reports.len(), steps.len());
        let (mut clock, mut counts, mut total) = (0u64, [0u64; 4], 0u64);
        for (index, (s, r)) in steps.iter().zip(&reports).enumerate() {
            prop_assert_eq!(r["step"].as_u64(), Some(index as u64));
            if let Step::Advance(ms) = s { clock += ms; }
            prop_assert_eq!(r["t_ms"].as_u64(), Some(clock));
            if let Some(e) = &expected[index] {
                for (c, add) in counts.iter_mut().zip(e.counters) { *c += add; }
                total += e.total;
                prop_assert_eq!(r["attempts"].as_u64(), Some(e.attempts), "{}", r);
                prop_assert_eq!(&r["waits_ms"], &json!(e.waits), "{}", r);
                prop_assert_eq!(r.get("error").and_then(|v| v.as_str()).map(String::from), e.error.clone(), "{}", r);
                if let Step::Call(kinds) = s {
                    prop_assert_eq!(&r["outcome"], &kinds[e.attempts as usize - 1].json());
                }
            } else {
                prop_assert!(r.get("attempts").is_none());
            }
            prop_assert_eq!(counters(r), counts, "{}", r);
            prop_assert_eq!(total_calls(r), total, "{}", r);
        }
    }
}
