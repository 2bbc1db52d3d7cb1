//! The semaphore bulkhead script runner (`resilience-sim bulkhead FILE`) against
//! Resilience4j's `SemaphoreBulkhead`: each default its own test; cases from the
//! documentation and from `java.util.concurrent.Semaphore`'s rules; and a property test
//! against an independent model of Java's fair semaphore (a signed permit count and a FIFO
//! list of parked callers with their deadlines).

use std::collections::VecDeque;
use std::io::Write;
use std::process::{Command, Stdio};

use proptest::prelude::*;
use serde_json::{json, Value};

use resilience_sim::scenario::scripts::bulkhead::{
    self, run_bulkhead_script, BulkheadScript, BulkheadScriptConfig, BulkheadStep, WaitEnd,
};
use resilience_sim::Millis;

fn run(json: &str) -> Vec<Value> {
    bulkhead::run_text(json)
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ends(report: &Value, key: &str) -> Vec<(u64, u64)> {
    report
        .get(key)
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e["step"].as_u64().unwrap(),
                        e["waited_ms"].as_u64().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

// --- Defaults (BulkheadConfig), one test each -------------------------------------------------

#[test]
fn default_max_concurrent_calls_is_25() {
    assert_eq!(BulkheadScriptConfig::default().max_concurrent_calls, 25);
    let out = run(r#"{"steps":[{"advance_ms":0}]}"#);
    assert_eq!(out[0]["maxAllowedConcurrentCalls"], 25);
    assert_eq!(out[0]["availableConcurrentCalls"], 25);
}

#[test]
fn default_max_wait_duration_is_0() {
    assert_eq!(BulkheadScriptConfig::default().max_wait_duration, 0);
    // With no wait, the 26th concurrent call is refused at once instead of parked.
    let steps = vec![json!({"acquire": {}}); 26];
    let out = run(&json!({ "steps": steps }).to_string());
    assert_eq!(out[24]["permitted"], true);
    assert_eq!(out[25]["permitted"], false);
    assert_eq!(out[25]["error"], "BulkheadFullException");
    assert_eq!(out[25]["waitingCalls"], 0);
}

#[test]
fn default_fair_call_handling_is_enabled() {
    assert!(BulkheadScriptConfig::default().fair_call_handling_strategy_enabled);
}

#[test]
fn default_writable_stack_trace_is_enabled() {
    assert!(BulkheadScriptConfig::default().writable_stack_trace_enabled);
}

#[test]
fn the_flags_are_accepted_and_change_nothing_a_script_sees() {
    let steps = r#"[{"acquire":{}},{"acquire":{}},{"acquire":{}},{"release":{}},{"advance_ms":60},{"acquire":{}}]"#;
    let plain = run(&format!(
        r#"{{"config":{{"maxConcurrentCalls":1,"maxWaitDuration":50}},"steps":{steps}}}"#
    ));
    let flagged = run(&format!(
        r#"{{"config":{{"maxConcurrentCalls":1,"maxWaitDuration":50,"fairCallHandlingStrategyEnabled":false,"writableStackTraceEnabled":false}},"steps":{steps}}}"#
    ));
    assert_eq!(plain, flagged);
}

// --- Hand-written cases ------------------------------------------------------------------------

#[test]
fn with_no_wait_the_call_over_the_limit_is_refused_at_once() {
    let out = run(r#"{"config":{"maxConcurrentCalls":2},
        "steps":[{"acquire":{}},{"acquire":{}},{"acquire":{}},{"release":{}},{"acquire":{}}]}"#);
    assert_eq!(out[1]["availableConcurrentCalls"], 0);
    assert_eq!(out[2]["permitted"], false);
    assert_eq!(out[2]["error"], "BulkheadFullException");
    assert_eq!(out[3]["availableConcurrentCalls"], 1);
    assert_eq!(out[4]["permitted"], true);
    assert_eq!(out[4]["availableConcurrentCalls"], 0);
}

#[test]
fn a_waiter_gets_the_freed_permit_or_is_refused_when_its_wait_runs_out() {
    // maxWaitDuration 100 ms: the third caller waits; freed at 40 ms, the permit is its.
    // The fifth (parked at 40 ms) is refused 100 ms after it came, not a moment before.
    let out = run(
        r#"{"config":{"maxConcurrentCalls":2,"maxWaitDuration":"100ms"},
        "steps":[{"acquire":{}},{"acquire":{}},{"acquire":{}},{"advance_ms":40},
                 {"acquire":{}},{"release":{}},{"advance_ms":99},{"advance_ms":1}]}"#,
    );
    assert_eq!(out[2]["waiting"], true);
    assert!(out[2].get("permitted").is_none());
    assert_eq!(out[4]["waitingCalls"], 2);
    assert_eq!(ends(&out[5], "granted"), [(2, 40)]);
    assert_eq!(out[5]["availableConcurrentCalls"], 0);
    assert_eq!(out[5]["waitingCalls"], 1);
    assert!(out[6].get("expired").is_none());
    assert_eq!(ends(&out[7], "expired"), [(4, 100)]);
    assert_eq!(out[7]["t_ms"], 140);
    assert_eq!(out[7]["waitingCalls"], 0);
}

#[test]
fn parked_callers_get_freed_permits_first_come_first_served() {
    let out = run(
        r#"{"config":{"maxConcurrentCalls":1,"maxWaitDuration":"1s"},
        "steps":[{"acquire":{}},{"acquire":{}},{"advance_ms":5},{"acquire":{}},{"advance_ms":5},
                 {"acquire":{}},{"release":{}},{"release":{}},{"release":{}},{"release":{}}]}"#,
    );
    assert_eq!(out[5]["waitingCalls"], 3);
    assert_eq!(ends(&out[6], "granted"), [(1, 10)]);
    assert_eq!(ends(&out[7], "granted"), [(3, 5)]);
    assert_eq!(ends(&out[8], "granted"), [(5, 0)]);
    assert_eq!(out[8]["availableConcurrentCalls"], 0);
    assert!(out[9].get("granted").is_none());
    assert_eq!(out[9]["availableConcurrentCalls"], 1);
}

#[test]
fn a_fair_semaphore_refuses_a_newcomer_with_no_wait_while_others_wait() {
    let out = run(
        r#"{"config":{"maxConcurrentCalls":1,"maxWaitDuration":"1s"},
        "steps":[{"acquire":{}},{"acquire":{}},{"release":{}},{"acquire":{"max_wait_ms":0}}]}"#,
    );
    // The release went to the waiter, so nothing is free for the newcomer.
    assert_eq!(ends(&out[2], "granted"), [(1, 0)]);
    assert_eq!(out[3]["permitted"], false);
    assert_eq!(out[3]["error"], "BulkheadFullException");
}

#[test]
fn a_wait_that_ends_at_the_instant_of_a_release_is_refused_and_the_permit_goes_on() {
    // Two parked callers with deadlines 30 and 50; a release at exactly 30 ms goes to the
    // second: the first was refused at its deadline.
    let out = run(r#"{"config":{"maxConcurrentCalls":1},
        "steps":[{"acquire":{}},{"acquire":{"max_wait_ms":30}},{"acquire":{"max_wait_ms":50}},
                 {"advance_ms":30},{"release":{}}]}"#);
    assert_eq!(ends(&out[3], "expired"), [(1, 30)]);
    assert_eq!(ends(&out[4], "granted"), [(2, 30)]);
    assert_eq!(out[4]["waitingCalls"], 0);
}

#[test]
fn a_per_call_wait_is_a_config_change_around_the_call() {
    // Resilience4j has no per-call wait; `max_wait_ms` N is changeConfig(same limit, wait N)
    // before the call and back after it. Both scripts leave the same caller parked, and it
    // keeps its 30 ms after the config goes back.
    let per_call = run(r#"{"config":{"maxConcurrentCalls":1},
        "steps":[{"acquire":{}},{"acquire":{"max_wait_ms":30}},{"advance_ms":29},{"advance_ms":1}]}"#);
    let changed = run(r#"{"config":{"maxConcurrentCalls":1},
        "steps":[{"acquire":{}},{"change_config":{"maxConcurrentCalls":1,"maxWaitDuration":30}},
                 {"acquire":{}},{"change_config":{"maxConcurrentCalls":1}},
                 {"advance_ms":29},{"advance_ms":1}]}"#);
    assert_eq!(per_call[1]["waiting"], true);
    assert_eq!(changed[2]["waiting"], true);
    assert_eq!(changed[3]["waitingCalls"], 1);
    assert_eq!(per_call[2]["waitingCalls"], 1);
    assert_eq!(changed[4]["waitingCalls"], 1);
    assert_eq!(ends(&per_call[3], "expired"), [(1, 30)]);
    assert_eq!(ends(&changed[5], "expired"), [(2, 30)]);
}

#[test]
fn releasing_more_than_was_acquired_raises_the_count_as_javas_semaphore_does() {
    let out = run(r#"{"config":{"maxConcurrentCalls":1},
        "steps":[{"release":{}},{"acquire":{}},{"acquire":{}},{"acquire":{}}]}"#);
    assert_eq!(out[0]["availableConcurrentCalls"], 2);
    assert_eq!(out[0]["maxAllowedConcurrentCalls"], 1);
    assert_eq!(out[2]["permitted"], true);
    assert_eq!(out[3]["permitted"], false);
}

#[test]
fn with_max_concurrent_calls_0_every_call_waits_or_is_refused_until_a_release() {
    // Semaphore(0): nothing is free; a release nobody acquired still adds a permit, which
    // goes to the parked caller.
    let out = run(r#"{"config":{"maxConcurrentCalls":0,"maxWaitDuration":100},
        "steps":[{"acquire":{"max_wait_ms":0}},{"acquire":{}},{"release":{}},{"release":{}}]}"#);
    assert_eq!(out[0]["error"], "BulkheadFullException");
    assert_eq!(out[1]["waiting"], true);
    assert_eq!(ends(&out[2], "granted"), [(1, 0)]);
    assert_eq!(out[2]["availableConcurrentCalls"], 0);
    assert_eq!(out[3]["availableConcurrentCalls"], 1);
}

#[test]
fn the_permit_count_stops_at_integer_max_value() {
    // Semaphore.release past Integer.MAX_VALUE throws Error("Maximum permit count exceeded")
    // and leaves the count as it was.
    let out = run(r#"{"config":{"maxConcurrentCalls":2147483647},
        "steps":[{"acquire":{}},{"release":{}},{"release":{}},{"acquire":{}}]}"#);
    assert_eq!(out[1]["availableConcurrentCalls"], 2147483647);
    assert!(out[1].get("error").is_none());
    assert_eq!(out[2]["error"], "Error: Maximum permit count exceeded");
    assert_eq!(out[2]["availableConcurrentCalls"], 2147483647);
    assert_eq!(out[3]["availableConcurrentCalls"], 2147483646);
}

#[test]
fn raising_the_limit_hands_the_new_permits_to_the_parked_callers_first() {
    // changeConfig 1 -> 4: semaphore.release(3): two parked callers get one each, the third
    // permit is free.
    let out = run(
        r#"{"config":{"maxConcurrentCalls":1,"maxWaitDuration":"1s"},
        "steps":[{"acquire":{}},{"acquire":{}},{"advance_ms":10},{"acquire":{}},
                 {"change_config":{"maxConcurrentCalls":4,"maxWaitDuration":"1s"}}]}"#,
    );
    assert_eq!(ends(&out[4], "granted"), [(1, 10), (3, 0)]);
    assert_eq!(out[4]["availableConcurrentCalls"], 1);
    assert_eq!(out[4]["maxAllowedConcurrentCalls"], 4);
    assert_eq!(out[4]["waitingCalls"], 0);
}

#[test]
fn lowering_the_limit_takes_the_difference_from_the_free_permits() {
    let out = run(r#"{"config":{"maxConcurrentCalls":5},
        "steps":[{"acquire":{}},{"change_config":{"maxConcurrentCalls":2}},{"acquire":{}},
                 {"acquire":{}},{"release":{}},{"release":{}}]}"#);
    // 4 free, lowered by 3: 1 free.
    assert_eq!(out[1]["availableConcurrentCalls"], 1);
    assert_eq!(out[1]["maxAllowedConcurrentCalls"], 2);
    assert_eq!(out[2]["permitted"], true);
    assert_eq!(out[3]["permitted"], false);
    assert_eq!(out[5]["availableConcurrentCalls"], 2);
}

#[test]
fn a_changed_config_takes_the_defaults_for_what_it_leaves_out() {
    // changeConfig(BulkheadConfig.custom().maxConcurrentCalls(1).build()): the wait of
    // 100 ms goes back to the default 0, so the next caller over the limit is refused.
    let out = run(r#"{"config":{"maxConcurrentCalls":1,"maxWaitDuration":100},
        "steps":[{"acquire":{}},{"change_config":{"maxConcurrentCalls":1}},{"acquire":{}}]}"#);
    assert_eq!(out[2]["permitted"], false);
    assert!(out[2].get("waiting").is_none());
}

#[test]
fn a_raise_past_integer_max_value_throws_and_keeps_the_old_config() {
    let out = run(r#"{"config":{"maxConcurrentCalls":10},
        "steps":[{"release":{}},{"change_config":{"maxConcurrentCalls":2147483647}}]}"#);
    // 11 free + 2147483637 would pass Integer.MAX_VALUE.
    assert_eq!(out[1]["error"], "Error: Maximum permit count exceeded");
    assert_eq!(out[1]["maxAllowedConcurrentCalls"], 10);
    assert_eq!(out[1]["availableConcurrentCalls"], 11);
}

#[test]
fn lowering_the_limit_below_what_is_in_use_would_block_and_refuses_the_script() {
    let e = bulkhead::run_text(
        r#"{"config":{"maxConcurrentCalls":2},
            "steps":[{"acquire":{}},{"acquire":{}},{"change_config":{"maxConcurrentCalls":1}}]}"#,
    )
    .unwrap_err();
    assert!(
        e.starts_with("invalid bulkhead script: steps[2].change_config.maxConcurrentCalls: "),
        "{e}"
    );
    assert!(e.contains("acquireUninterruptibly(1)"), "{e}");
    assert!(!e.contains('\n'));
}

#[test]
fn bad_bulkhead_scripts_are_refused_with_one_line() {
    for (bad, needle) in [
        (
            r#"{"steps":[{"acquire":{"max_wait_ms":-1}}]}"#,
            "steps[0].acquire.max_wait_ms",
        ),
        (
            r#"{"steps":[{"acquire":{"max_wait_ms":1000000000001}}]}"#,
            "steps[0].acquire.max_wait_ms",
        ),
        (r#"{"steps":[{"submit":{}}]}"#, "steps[0]"),
        (
            r#"{"config":{"maxConcurrentCalls":3000000000},"steps":[]}"#,
            "maxConcurrentCalls",
        ),
        (
            r#"{"config":{"maxConcurrentCalls":-1},"steps":[]}"#,
            "config.maxConcurrentCalls",
        ),
        (
            r#"{"config":{"maxWaitDuration":"soon"},"steps":[]}"#,
            "config.maxWaitDuration",
        ),
        (
            r#"{"config":{"maxWaitDuration":1000000000001},"steps":[]}"#,
            "config.maxWaitDuration",
        ),
        (r#"{"config":{"maxConcurrent":3},"steps":[]}"#, "config"),
        (
            r#"{"steps":[{"change_config":{"maxConcurrentCalls":2147483648}}]}"#,
            "steps[0].change_config",
        ),
        (
            r#"{"steps":[{"change_config":{"limit":2}}]}"#,
            "steps[0].change_config",
        ),
        (
            r#"{"steps":[{"advance_ms":999999999999},{"advance_ms":2}]}"#,
            "steps[1].advance_ms",
        ),
        (r#"{"steps":[{"release":{}}],"extra":1}"#, "extra"),
    ] {
        let e = bulkhead::run_text(bad).unwrap_err();
        assert!(e.starts_with("invalid bulkhead script"), "{e}");
        assert!(e.contains(needle), "{bad}: {e}");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn the_cli_prints_one_line_per_step_or_one_line_and_exit_code_2() {
    let cli = |script: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
            .args(["bulkhead", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let ok = cli(r#"{"config":{"maxConcurrentCalls":1},"steps":[{"acquire":{}},{"acquire":{}}]}"#);
    assert!(ok.status.success());
    let lines: Vec<Value> = String::from_utf8(ok.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["error"], "BulkheadFullException");
    let blocked = cli(
        r#"{"config":{"maxConcurrentCalls":1},"steps":[{"acquire":{}},{"change_config":{"maxConcurrentCalls":0}}]}"#,
    );
    assert_eq!(blocked.status.code(), Some(2));
    assert!(blocked.stdout.is_empty());
    let err = String::from_utf8(blocked.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("steps[1].change_config.maxConcurrentCalls"),
        "{err}"
    );
}

// --- Against an independent model --------------------------------------------------------------

/// Java's fair `Semaphore` under `tryAcquire(wait)`, `release(n)` and Resilience4j's
/// `changeConfig`: a permit count that every release raises and a FIFO of parked callers.
struct JavaSemaphore {
    permits: i64,
    max: i64,
    wait: Millis,
    /// (acquire step, since, deadline)
    queue: VecDeque<(usize, Millis, Millis)>,
}

/// What one step should report.
#[derive(Debug, Default, PartialEq)]
struct Expected {
    t_ms: Millis,
    available: i64,
    max: i64,
    waiting_calls: usize,
    permitted: Option<bool>,
    waiting: bool,
    granted: Vec<WaitEnd>,
    expired: Vec<WaitEnd>,
}

impl JavaSemaphore {
    fn expire(&mut self, now: Millis, into: &mut Vec<WaitEnd>) {
        self.queue.retain(|&(step, since, deadline)| {
            let keep = deadline > now;
            if !keep {
                into.push(WaitEnd {
                    step,
                    waited_ms: deadline - since,
                });
            }
            keep
        });
    }

    /// `release(n)`: the count rises by n, then parked callers take permits, oldest first.
    fn release(&mut self, n: i64, now: Millis, into: &mut Vec<WaitEnd>) {
        self.permits += n;
        while self.permits > 0 {
            let Some((step, since, _)) = self.queue.pop_front() else {
                break;
            };
            self.permits -= 1;
            into.push(WaitEnd {
                step,
                waited_ms: now - since,
            });
        }
    }
}

/// Plays `steps` on the model: every step's report, or the index of the first
/// `change_config` whose lowering would block (the runner refuses such a script).
fn play(max: u32, wait: Millis, steps: &[BulkheadStep]) -> Result<Vec<Expected>, usize> {
    let mut sem = JavaSemaphore {
        permits: max.into(),
        max: max.into(),
        wait,
        queue: VecDeque::new(),
    };
    let mut now = 0;
    let mut out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let mut e = Expected::default();
        sem.expire(now, &mut e.expired);
        match step {
            BulkheadStep::Acquire { max_wait_ms } => {
                let w = max_wait_ms.unwrap_or(sem.wait);
                if sem.queue.is_empty() && sem.permits > 0 {
                    sem.permits -= 1;
                    e.permitted = Some(true);
                } else if w == 0 {
                    e.permitted = Some(false);
                } else {
                    sem.queue.push_back((i, now, now + w));
                    e.waiting = true;
                }
            }
            BulkheadStep::Release {} => sem.release(1, now, &mut e.granted),
            BulkheadStep::AdvanceMs(ms) => now += ms,
            BulkheadStep::ChangeConfig(c) => {
                let delta = i64::from(c.max_concurrent_calls) - sem.max;
                if delta > 0 {
                    sem.release(delta, now, &mut e.granted);
                } else if delta < 0 {
                    // acquireUninterruptibly(-delta): at once only with that many free.
                    if sem.permits < -delta || !sem.queue.is_empty() {
                        return Err(i);
                    }
                    sem.permits += delta;
                }
                sem.max = c.max_concurrent_calls.into();
                sem.wait = c.max_wait_duration;
            }
        }
        sem.expire(now, &mut e.expired);
        e.t_ms = now;
        e.available = sem.permits;
        e.max = sem.max;
        e.waiting_calls = sem.queue.len();
        out.push(e);
    }
    Ok(out)
}

fn bulkhead_step() -> impl Strategy<Value = BulkheadStep> {
    prop_oneof![
        4 => Just(BulkheadStep::Acquire { max_wait_ms: None }),
        1 => (0u64..60).prop_map(|w| BulkheadStep::Acquire { max_wait_ms: Some(w) }),
        3 => Just(BulkheadStep::Release {}),
        3 => (0u64..50).prop_map(BulkheadStep::AdvanceMs),
        1 => (0u32..6, prop_oneof![Just(0u64), 1u64..80]).prop_map(|(max, wait)| {
            BulkheadStep::ChangeConfig(BulkheadScriptConfig {
                max_concurrent_calls: max,
                max_wait_duration: wait,
                ..BulkheadScriptConfig::default()
            })
        }),
    ]
}

fn check(reports: &[bulkhead::BulkheadReport], expected: &[Expected]) -> Result<(), TestCaseError> {
    prop_assert_eq!(reports.len(), expected.len());
    for (i, (r, e)) in reports.iter().zip(expected).enumerate() {
        prop_assert_eq!(r.step, i);
        prop_assert_eq!(r.t_ms, e.t_ms, "step {}", i);
        prop_assert_eq!(
            i64::from(r.available_concurrent_calls),
            e.available,
            "step {}",
            i
        );
        prop_assert_eq!(
            i64::from(r.max_allowed_concurrent_calls),
            e.max,
            "step {}",
            i
        );
        prop_assert_eq!(r.waiting_calls as usize, e.waiting_calls, "step {}", i);
        prop_assert_eq!(r.permitted, e.permitted, "step {}", i);
        prop_assert_eq!(r.waiting, e.waiting, "step {}", i);
        prop_assert_eq!(&r.granted, &e.granted, "step {}", i);
        prop_assert_eq!(&r.expired, &e.expired, "step {}", i);
        let refused = e.permitted == Some(false);
        prop_assert_eq!(
            r.error.as_deref(),
            refused.then_some("BulkheadFullException"),
            "step {}",
            i
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn the_semaphore_runner_agrees_with_javas_fair_semaphore(
        max in 0u32..5,
        wait in prop_oneof![Just(0u64), 1u64..80],
        steps in proptest::collection::vec(bulkhead_step(), 1..60),
    ) {
        let script = |steps: &[BulkheadStep]| BulkheadScript {
            config: BulkheadScriptConfig {
                max_concurrent_calls: max,
                max_wait_duration: wait,
                ..BulkheadScriptConfig::default()
            },
            steps: steps.to_vec(),
        };
        match play(max, wait, &steps) {
            Ok(expected) => check(&run_bulkhead_script(&script(&steps)).unwrap(), &expected)?,
            Err(blocked) => {
                // The whole script is refused, naming the step; the steps before it play
                // as the model says.
                let e = run_bulkhead_script(&script(&steps)).unwrap_err();
                prop_assert_eq!(
                    e.field,
                    format!("steps[{blocked}].change_config.maxConcurrentCalls")
                );
                let expected = play(max, wait, &steps[..blocked]).unwrap();
                check(&run_bulkhead_script(&script(&steps[..blocked])).unwrap(), &expected)?;
            }
        }
    }
}
