//! The engine's circuit breaker and retry against Resilience4j's own, step by step.
//!
//! `tests/resilience4j/breaker-2.4.0.jsonl` holds random breaker scripts with what
//! Resilience4j 2.4.0's `CircuitBreakerStateMachine` did on each step: the state, the two
//! rates (as Java wrote the floats), the four counts, whether an acquire was permitted and
//! the exception an operation threw. `retry-2.4.0.jsonl` holds random retry scripts with
//! what its `Retry` did on each: the five `Retry.Metrics` counters and, for a call, the
//! attempts, the waits, the last outcome and the exception the caller got (or that it
//! refused the config). `ratelimiter-2.4.0.jsonl` holds random rate limiter scripts with
//! what its `AtomicRateLimiter` did on each: the three metrics, the answer, the wait, the
//! event and the error. They were recorded by running Resilience4j itself, compiled from its
//! sources (`scripts/resilience4j/compare.mjs`, which also compares thousands more scripts
//! than are kept here). Every expected figure below is Resilience4j's, none the engine's.

use resilience_sim::scenario::breaker_script::{parse_breaker_script, run_breaker_script};
use resilience_sim::scenario::scripts::parse;
use resilience_sim::scenario::scripts::rate_limiter;
use resilience_sim::scenario::scripts::retry::{run_retry_script, RetryScript};
use serde_json::Value;

const TRACES: &str = include_str!("resilience4j/breaker-2.4.0.jsonl");
const RETRY_TRACES: &str = include_str!("resilience4j/retry-2.4.0.jsonl");
const RATE_LIMITER_TRACES: &str = include_str!("resilience4j/ratelimiter-2.4.0.jsonl");

/// The engine words the errors a script reports; Resilience4j names the exception's class.
fn exception_class(error: &str) -> &str {
    if error.starts_with("illegal transition") {
        "IllegalStateTransitionException"
    } else if error.starts_with("ArithmeticException") {
        "ArithmeticException"
    } else {
        error
    }
}

fn rate(value: &Value) -> f32 {
    value
        .as_str()
        .and_then(|text| text.parse().ok())
        .unwrap_or_else(|| panic!("a rate as Java wrote it, got {value}"))
}

/// The traces of a file, after its header (which names the release they come from).
fn traces(file: &str) -> Vec<Value> {
    let mut lines = file.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header")).unwrap();
    assert!(header["recorded"].as_str().unwrap().contains("v2.4.0"));
    lines
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Where a step is, for a failing assertion: the script, the step and what it does.
fn step_at(n: usize, step: usize, trace: &Value) -> String {
    format!(
        "script {n}, step {step}: {}",
        trace["script"]["steps"][step]
    )
}

#[test]
fn the_breaker_does_what_resilience4j_2_4_0_does_on_every_step() {
    let mut scripts = 0;
    let mut steps = 0;
    for (n, trace) in traces(TRACES).iter().enumerate() {
        let script = parse_breaker_script(&trace["script"].to_string()).unwrap();
        let reports = run_breaker_script(&script).unwrap();
        let expected = trace["resilience4j"].as_array().unwrap();
        assert_eq!(reports.len(), expected.len(), "script {n}");
        for (report, row) in reports.iter().zip(expected) {
            let row = row.as_array().unwrap();
            let at = step_at(n, report.step, trace);
            assert_eq!(report.t_ms, row[0].as_u64().unwrap(), "t_ms, {at}");
            assert_eq!(
                report.state.as_str(),
                row[1].as_str().unwrap(),
                "state, {at}"
            );
            let rates = [
                ("failure rate", report.failure_rate, &row[2]),
                ("slow call rate", report.slow_call_rate, &row[3]),
            ];
            for (name, engine, java) in rates {
                assert_eq!(
                    engine.to_bits(),
                    rate(java).to_bits(),
                    "{name} {engine} against {java}, {at}"
                );
            }
            let counts = [
                u64::from(report.buffered),
                u64::from(report.failed),
                u64::from(report.slow),
                report.not_permitted,
            ];
            let java: Vec<u64> = row[4..8].iter().map(|v| v.as_u64().unwrap()).collect();
            assert_eq!(
                counts.as_slice(),
                java.as_slice(),
                "buffered, failed, slow, not permitted, {at}"
            );
            assert_eq!(report.permitted, row[8].as_bool(), "permitted, {at}");
            assert_eq!(
                report.error.as_deref().map(exception_class),
                row[9].as_str(),
                "error, {at}"
            );
            steps += 1;
        }
        scripts += 1;
    }
    // The file is what the test reads: a truncated one must not pass quietly.
    assert_eq!((scripts, steps), (100, 4_914));
}

/// Returned values compare by value, as the retry compares them (Java wrote 503.0 for a
/// double, 503 for a long).
fn same_value(engine: &Value, java: &Value) -> bool {
    match (engine.as_f64(), java.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => engine == java,
    }
}

#[test]
fn the_retry_does_what_resilience4j_2_4_0_does_on_every_step() {
    let (mut scripts, mut steps, mut refused) = (0, 0, 0);
    for (n, trace) in traces(RETRY_TRACES).iter().enumerate() {
        let run = parse::<RetryScript>(&trace["script"].to_string(), "retry script")
            .and_then(|script| run_retry_script(&script).map_err(|e| e.to_string()));
        scripts += 1;
        if trace["resilience4j"] == "refused" {
            assert!(run.is_err(), "script {n}: Resilience4j refuses its config");
            refused += 1;
            continue;
        }
        let reports = run.unwrap_or_else(|e| panic!("script {n}: {e}"));
        let expected = trace["resilience4j"].as_array().unwrap();
        assert_eq!(reports.len(), expected.len(), "script {n}");
        for (report, row) in reports.iter().zip(expected) {
            let row = row.as_array().unwrap();
            let at = step_at(n, report.step, trace);
            let m = &report.metrics;
            let counters = [
                report.t_ms,
                m.number_of_successful_calls_without_retry_attempt,
                m.number_of_successful_calls_with_retry_attempt,
                m.number_of_failed_calls_without_retry_attempt,
                m.number_of_failed_calls_with_retry_attempt,
                m.number_of_total_calls,
            ];
            let java: Vec<u64> = row[..6].iter().map(|v| v.as_u64().unwrap()).collect();
            assert_eq!(
                counters.as_slice(),
                java.as_slice(),
                "t_ms and counters, {at}"
            );
            if row.len() == 6 {
                assert_eq!(report.attempts, None, "{at}");
            } else {
                assert_eq!(
                    report.attempts,
                    row[6].as_u64().map(|a| a as usize),
                    "attempts, {at}"
                );
                let waits: Vec<u64> = row[7]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| w.as_u64().unwrap())
                    .collect();
                assert_eq!(
                    report.waits_ms.as_deref(),
                    Some(waits.as_slice()),
                    "waits, {at}"
                );
                let outcome = report.outcome.as_ref().unwrap();
                assert!(
                    same_value(outcome, &row[8]),
                    "outcome {outcome} against {}, {at}",
                    row[8]
                );
                assert_eq!(report.error.as_deref(), row[9].as_str(), "error, {at}");
            }
            steps += 1;
        }
    }
    // The file is what the test reads: a truncated one must not pass quietly.
    assert_eq!((scripts, refused, steps), (100, 9, 1_552 - 9));
}

#[test]
fn the_rate_limiter_does_what_resilience4j_2_4_0_does_on_every_step() {
    const FIELDS: [&str; 8] = [
        "t_ms",
        "availablePermissions",
        "numberOfWaitingThreads",
        "nanosToWait",
        "permitted",
        "waited_ms",
        "event",
        "error",
    ];
    let (mut scripts, mut steps) = (0, 0);
    for (n, trace) in traces(RATE_LIMITER_TRACES).iter().enumerate() {
        let lines = rate_limiter::run_text(&trace["script"].to_string())
            .unwrap_or_else(|e| panic!("script {n}: {e}"));
        let expected = trace["resilience4j"].as_array().unwrap();
        assert_eq!(lines.len(), expected.len(), "script {n}");
        for (step, (line, row)) in lines.iter().zip(expected).enumerate() {
            let engine: Value = serde_json::from_str(line).unwrap();
            let at = step_at(n, step, trace);
            for (field, java) in FIELDS.iter().zip(row.as_array().unwrap()) {
                let mine = engine.get(*field).unwrap_or(&Value::Null);
                assert!(
                    same_value(mine, java),
                    "{field}: {mine} against {java}, {at}"
                );
            }
            steps += 1;
        }
        scripts += 1;
    }
    assert_eq!((scripts, steps), (40, 1_416));
}
