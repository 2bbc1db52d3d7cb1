//! TimeLimiter scripts (`resilience-sim timelimiter FILE`) against Resilience4j 2.x's
//! `TimeLimiterImpl.decorateFutureSupplier`: its defaults, each as its own test; cases from
//! Resilience4j's own tests (`TimeLimiterTest`, `TimeLimiterEventPublisherTest`) with the
//! outcomes they assert; the boundary and the surprises, pinned; the format's refusals; and a
//! property test against an independent model written from the documented behaviour.

use std::process::Command;

use proptest::prelude::*;
use serde_json::{json, Value};

use resilience_sim::scenario::scripts::time_limiter::{
    self, TimeLimiterScript, TimeLimiterScriptConfig,
};

fn run(script: Value) -> Vec<Value> {
    time_limiter::run_text(&script.to_string())
        .unwrap_or_else(|e| panic!("{e}"))
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The report of one call under `config`.
fn one_call(config: Value, call: Value) -> Value {
    let mut reports = run(json!({"config": config, "steps": [{"call": call}]}));
    reports.remove(0)
}

fn refusal(script: Value) -> String {
    let e = time_limiter::run_text(&script.to_string()).unwrap_err();
    assert!(e.starts_with("invalid time limiter script: "), "{e}");
    assert!(!e.contains('\n'), "{e}");
    e
}

// --- Resilience4j's defaults (TimeLimiterConfig), one test each ------------------------------

#[test]
fn default_timeout_duration_is_1_second() {
    assert_eq!(TimeLimiterScriptConfig::default().timeout_duration, 1_000);
    let r = one_call(json!({}), json!({"duration_ms": 1_001}));
    assert_eq!(r["timed_out"], true);
    assert_eq!(r["waited_ms"], 1_000);
    let r = one_call(json!({}), json!({"duration_ms": 999}));
    assert_eq!(r["timed_out"], false);
    assert_eq!(r["waited_ms"], 999);
}

#[test]
fn default_cancel_running_future_is_true() {
    assert!(TimeLimiterScriptConfig::default().cancel_running_future);
    let r = one_call(json!({}), json!({"duration_ms": 5_000}));
    assert_eq!(r["cancelled"], true);
}

#[test]
fn an_empty_config_takes_every_default() {
    let script: TimeLimiterScript = serde_json::from_str(r#"{"config": {}, "steps": []}"#).unwrap();
    assert_eq!(script.config, TimeLimiterScriptConfig::default());
    let script: TimeLimiterScript = serde_json::from_str(r#"{"steps": []}"#).unwrap();
    assert_eq!(script.config, TimeLimiterScriptConfig::default());
}

// --- The boundary -----------------------------------------------------------------------------

/// A call of exactly `timeoutDuration` answers in time. `TimeLimiterImpl` waits with
/// `future.get(timeout, MILLISECONDS)`; when the time is up, `FutureTask.awaitDone` returns
/// the future's state as it is at that moment (and `CompletableFuture.timedGet` re-reads its
/// result before giving up), so an answer there at the deadline is returned, and only a
/// call that is *still* running throws `TimeoutException`.
#[test]
fn a_call_of_exactly_the_timeout_answers_in_time() {
    let r = one_call(
        json!({"timeoutDuration": "1s"}),
        json!({"duration_ms": 1_000}),
    );
    assert_eq!(r["timed_out"], false);
    assert_eq!(r["event"], "SUCCESS");
    assert_eq!(r["waited_ms"], 1_000);
    assert!(r.get("error").is_none());
    // One millisecond more is too long.
    let r = one_call(
        json!({"timeoutDuration": "1s"}),
        json!({"duration_ms": 1_001}),
    );
    assert_eq!(r["event"], "TIMEOUT");
}

/// `timeoutDuration` 0 (`Duration.ZERO`, Resilience4j's own tests' `NEVER`): only a call
/// that is already done answers; any other times out at once.
#[test]
fn a_zero_timeout_only_lets_finished_calls_through() {
    let r = one_call(json!({"timeoutDuration": 0}), json!({"duration_ms": 0}));
    assert_eq!(r["event"], "SUCCESS");
    let r = one_call(json!({"timeoutDuration": 0}), json!({"duration_ms": 1}));
    assert_eq!(r["event"], "TIMEOUT");
    assert_eq!(r["waited_ms"], 0);
}

// --- Resilience4j's own tests -------------------------------------------------------------------

/// `TimeLimiterTest.shouldThrowTimeoutExceptionAndInvokeCancel`: 1 s timeout, a future that
/// does not answer in time: `TimeoutException`, and `cancel(true)` is called.
#[test]
fn a_timeout_throws_and_cancels_the_future() {
    let r = one_call(
        json!({"timeoutDuration": "1s"}),
        json!({"duration_ms": 3_000}),
    );
    assert_eq!(r["error"], "TimeoutException");
    assert_eq!(r["timed_out"], true);
    assert_eq!(r["cancelled"], true);
    assert_eq!(r["event"], "TIMEOUT");
}

/// `TimeLimiterTest.shouldThrowTimeoutExceptionAndNotInvokeCancel`: the same with
/// `cancelRunningFuture(false)`: `TimeoutException`, never `cancel(true)`.
#[test]
fn a_timeout_without_cancel_running_future_leaves_the_future() {
    let config = json!({"timeoutDuration": "1s", "cancelRunningFuture": false});
    let r = one_call(config, json!({"duration_ms": 3_000}));
    assert_eq!(r["error"], "TimeoutException");
    assert_eq!(r["cancelled"], false);
}

/// `TimeLimiterTest.shouldThrowTimeoutExceptionWithCompletionStage` (300 ms timeout, a task
/// of 500 ms: timeout) and `shouldReturnResultWithCompletionStage` (1 s, 500 ms: result).
#[test]
fn a_500_ms_task_under_300_ms_and_1_s_timeouts() {
    let r = one_call(
        json!({"timeoutDuration": "300ms"}),
        json!({"duration_ms": 500}),
    );
    assert_eq!(r["error"], "TimeoutException");
    assert_eq!(r["waited_ms"], 300);
    let r = one_call(
        json!({"timeoutDuration": "1s"}),
        json!({"duration_ms": 500}),
    );
    assert!(r.get("error").is_none());
    assert_eq!(r["waited_ms"], 500);
}

/// `TimeLimiterTest.unwrapExecutionException` and `TimeLimiterEventPublisherTest
/// .shouldConsumeOnErrorEvent`: a task that throws a `RuntimeException` in time gives the
/// caller that exception (unwrapped from the `ExecutionException`) and an `ERROR` event.
#[test]
fn an_exception_in_time_is_the_callers_and_an_error_event() {
    let r = one_call(
        json!({}),
        json!({"duration_ms": 10, "exception": "RuntimeException"}),
    );
    assert_eq!(r["error"], "RuntimeException");
    assert_eq!(r["event"], "ERROR");
    assert_eq!(r["timed_out"], false);
    assert_eq!(r["cancelled"], false);
    assert_eq!(r["waited_ms"], 10);
}

/// A call that would throw, but only after the timeout: the caller sees the timeout; the
/// call's own exception is never seen.
#[test]
fn a_slow_failure_is_a_timeout() {
    let r = one_call(
        json!({"timeoutDuration": "500ms"}),
        json!({"duration_ms": 800, "exception": "IOException"}),
    );
    assert_eq!(r["error"], "TimeoutException");
    assert_eq!(r["event"], "TIMEOUT");
}

// --- What surprises people ----------------------------------------------------------------------

/// `TimeLimiterImpl.onError` publishes `TIMEOUT` for any `TimeoutException`, including one
/// the call throws itself in time (and a subclass of it): it counts as a timeout although
/// the limiter never stopped waiting, and nothing is cancelled.
#[test]
fn a_timeout_exception_thrown_by_the_call_is_a_timeout_event() {
    let config =
        json!({"exceptions": {"GatewayTimeoutException": "java.util.concurrent.TimeoutException"}});
    for exception in ["TimeoutException", "GatewayTimeoutException"] {
        let r = one_call(
            config.clone(),
            json!({"duration_ms": 20, "exception": exception}),
        );
        assert_eq!(r["event"], "TIMEOUT", "{exception}");
        assert_eq!(r["error"], exception);
        assert_eq!(r["timed_out"], false);
        assert_eq!(r["cancelled"], false);
        assert_eq!(r["calls_timeout"], 1);
        assert_eq!(r["calls_failed"], 0);
    }
    // A SocketTimeoutException is no TimeoutException (it is an IOException): ERROR.
    let r = one_call(
        json!({}),
        json!({"duration_ms": 20, "exception": "SocketTimeoutException"}),
    );
    assert_eq!(r["event"], "ERROR");
}

// --- The clock and the counts -------------------------------------------------------------------

#[test]
fn counts_accumulate_and_the_clock_moves_only_with_advances() {
    let reports = run(json!({
        "config": {"timeoutDuration": "1s"},
        "steps": [
            {"call": {"duration_ms": 300}},
            {"call": {"duration_ms": 2_500}},
            {"advance_ms": 5_000},
            {"call": {"duration_ms": 40, "exception": "IOException"}},
            {"call": {}}
        ]
    }));
    let column = |key: &str| -> Vec<Value> { reports.iter().map(|r| r[key].clone()).collect() };
    assert_eq!(
        column("t_ms"),
        json!([0, 0, 5_000, 5_000, 5_000])
            .as_array()
            .unwrap()
            .clone()
    );
    assert_eq!(
        column("calls_successful"),
        json!([1, 1, 1, 1, 2]).as_array().unwrap().clone()
    );
    assert_eq!(
        column("calls_timeout"),
        json!([0, 1, 1, 1, 1]).as_array().unwrap().clone()
    );
    assert_eq!(
        column("calls_failed"),
        json!([0, 0, 0, 1, 1]).as_array().unwrap().clone()
    );
    // An advance reports nothing of a call; a call with no duration answers at once.
    assert!(reports[2].get("event").is_none());
    assert_eq!(reports[4]["waited_ms"], 0);
}

// --- Refusals -------------------------------------------------------------------------------------

#[test]
fn bad_scripts_are_refused_before_any_step() {
    for (script, mentions) in [
        (
            json!({"steps": [{"call": {"exception": "PaymentException"}}]}),
            "steps[0].call.exception: `PaymentException` is not an exception this simulation knows",
        ),
        (
            json!({"steps": [{"call": {"exception": "IOExeption"}}]}),
            "did you mean IOException?",
        ),
        (
            json!({"steps": [{"call": {"duration_ms": 1_000_000_000_001_u64}}]}),
            "steps[0].call.duration_ms: may be at most",
        ),
        (
            json!({"steps": [{"call": {"duration_ms": -1}}]}),
            "steps[0].call.duration_ms",
        ),
        (
            json!({"steps": [{"advance_ms": 999_999_999_999_u64}, {"advance_ms": 2}]}),
            "steps[1].advance_ms: takes the script's clock past",
        ),
        (
            json!({"config": {"timeoutDuration": "fast"}, "steps": []}),
            "config.timeoutDuration",
        ),
        (
            json!({"config": {"timeout": "1s"}, "steps": []}),
            "unknown field `timeout`",
        ),
        (
            json!({"config": {"exceptions": {"A": "B"}}, "steps": []}),
            "config.exceptions: the parent of `A`",
        ),
        (
            json!({"steps": [{"call": {"duration": 5}}]}),
            "steps[0].call.duration: unknown field",
        ),
        (json!({"steps": [{"sleep": 5}]}), "unknown variant `sleep`"),
    ] {
        let e = refusal(script.clone());
        assert!(e.contains(mentions), "{script}: {e}");
    }
    let e = refusal(json!({"steps": [{"call": {"exception": "PaymentException"}}]}));
    assert!(e.contains("the config's \"exceptions\""), "{e}");
    assert!(!e.contains("breaker"), "{e}");
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
    let examples = doc_examples("TimeLimiter scripts");
    assert_eq!(examples.len(), 1);
    for (script, lines) in examples {
        assert_eq!(time_limiter::run_text(&script).unwrap(), lines, "{script}");
    }
}

// --- The CLI --------------------------------------------------------------------------------------

#[test]
fn the_cli_prints_one_line_per_step() {
    let dir = std::env::temp_dir().join(format!("script-time-limiter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("timelimiter.json");
    let script = json!({"steps": [{"call": {"duration_ms": 1_500}}, {"advance_ms": 10}]});
    std::fs::write(&file, script.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(["timelimiter", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines, time_limiter::run_text(&script.to_string()).unwrap());
    assert_eq!(lines.len(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

// --- A property test against an independent model --------------------------------------------------

#[derive(Debug, Clone)]
enum Step {
    /// A call of this many ms, maybe throwing (an index into `THROWN`).
    Call(u64, Option<usize>),
    Advance(u64),
}

/// Exceptions a call may throw, and whether each is a `java.util.concurrent
/// .TimeoutException` (by Java's class hierarchy).
const THROWN: [(&str, bool); 4] = [
    ("IOException", false),
    ("IllegalStateException", false),
    ("TimeoutException", true),
    ("SocketTimeoutException", false),
];

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u64..3_000, prop::option::weighted(0.3, 0..THROWN.len())).prop_map(|(d, e)| Step::Call(d, e)),
        1 => (0u64..10_000).prop_map(Step::Advance),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The documented behaviour: the caller waits for at most `timeoutDuration`; a call
    /// that is not done by then is a `TimeoutException` (and is cancelled when
    /// `cancelRunningFuture`); otherwise the caller gets its result (`SUCCESS`) or its
    /// exception (`ERROR`, but `TIMEOUT` for a `TimeoutException`). The counts are those of
    /// the events so far; the clock is the sum of the advances.
    #[test]
    fn the_runner_matches_the_model(
        steps in prop::collection::vec(step(), 0..16),
        timeout in prop_oneof![Just(0u64), 0u64..2_500, Just(1_000)],
        cancel in any::<bool>(),
    ) {
        let json_steps: Vec<Value> = steps.iter().map(|s| match s {
            Step::Call(d, None) => json!({"call": {"duration_ms": d}}),
            Step::Call(d, Some(e)) => json!({"call": {"duration_ms": d, "exception": THROWN[*e].0}}),
            Step::Advance(ms) => json!({"advance_ms": ms}),
        }).collect();
        let config = json!({"timeoutDuration": format!("{timeout}ms"), "cancelRunningFuture": cancel});
        let reports = run(json!({"config": config, "steps": json_steps}));
        prop_assert_eq!(reports.len(), steps.len());

        let (mut clock, mut ok, mut failed, mut timeouts) = (0u64, 0u64, 0u64, 0u64);
        for (index, (s, r)) in steps.iter().zip(&reports).enumerate() {
            prop_assert_eq!(r["step"].as_u64(), Some(index as u64));
            match s {
                Step::Advance(ms) => {
                    clock += ms;
                    prop_assert!(r.get("event").is_none() && r.get("waited_ms").is_none());
                }
                Step::Call(duration, thrown) => {
                    let late = *duration > timeout;
                    let (event, error) = if late {
                        ("TIMEOUT", Some("TimeoutException"))
                    } else {
                        match thrown {
                            None => ("SUCCESS", None),
                            Some(e) => (if THROWN[*e].1 { "TIMEOUT" } else { "ERROR" }, Some(THROWN[*e].0)),
                        }
                    };
                    match event {
                        "SUCCESS" => ok += 1,
                        "ERROR" => failed += 1,
                        _ => timeouts += 1,
                    }
                    prop_assert_eq!(r["waited_ms"].as_u64(), Some(if late { timeout } else { *duration }));
                    prop_assert_eq!(r["timed_out"].as_bool(), Some(late));
                    prop_assert_eq!(r["cancelled"].as_bool(), Some(late && cancel));
                    prop_assert_eq!(r["event"].as_str(), Some(event));
                    prop_assert_eq!(r.get("error").and_then(|v| v.as_str()), error);
                }
            }
            prop_assert_eq!(r["t_ms"].as_u64(), Some(clock));
            prop_assert_eq!(r["calls_successful"].as_u64(), Some(ok));
            prop_assert_eq!(r["calls_failed"].as_u64(), Some(failed));
            prop_assert_eq!(r["calls_timeout"].as_u64(), Some(timeouts));
        }
    }
}
