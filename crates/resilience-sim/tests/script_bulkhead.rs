//! The bulkhead script runners against Resilience4j: the defaults, each its own test;
//! cases from the documentation and the JDK's `ThreadPoolExecutor` rules; and property tests
//! against independent models (a Java fair `Semaphore` as a count and a FIFO of waiters; a
//! `ThreadPoolExecutor` as a list of workers and a queue).

use std::collections::VecDeque;

use proptest::prelude::*;
use serde_json::Value;

use resilience_sim::scenario::scripts::bulkhead;
use resilience_sim::scenario::scripts::bulkhead::{
    run_bulkhead_script, run_thread_pool_bulkhead_script, BulkheadScript, BulkheadScriptConfig,
    BulkheadStep, ThreadPoolBulkheadScript, ThreadPoolBulkheadScriptConfig, ThreadPoolBulkheadStep,
    WaitEnd,
};
use resilience_sim::Millis;

fn run(json: &str) -> Vec<Value> {
    bulkhead::run_text(json)
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run_pool(json: &str) -> Vec<Value> {
    bulkhead::run_thread_pool_text(json)
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

// --- Defaults (BulkheadConfig, ThreadPoolBulkheadConfig), one test each ---------------------

#[test]
fn default_max_concurrent_calls_is_25() {
    assert_eq!(BulkheadScriptConfig::default().max_concurrent_calls, 25);
    assert_eq!(
        run(r#"{"steps":[{"advance_ms":0}]}"#)[0]["maxAllowedConcurrentCalls"],
        25
    );
}

#[test]
fn default_max_wait_duration_is_0() {
    assert_eq!(BulkheadScriptConfig::default().max_wait_duration, 0);
}

#[test]
fn default_fair_call_handling_is_enabled() {
    assert!(BulkheadScriptConfig::default().fair_call_handling_strategy_enabled);
}

#[test]
fn default_writable_stack_trace_is_enabled() {
    assert!(BulkheadScriptConfig::default().writable_stack_trace_enabled);
    assert!(ThreadPoolBulkheadScriptConfig::default().writable_stack_trace_enabled);
}

#[test]
fn default_queue_capacity_is_100() {
    assert_eq!(
        ThreadPoolBulkheadScriptConfig::default().queue_capacity,
        100
    );
}

#[test]
fn default_keep_alive_duration_is_20_ms() {
    assert_eq!(
        ThreadPoolBulkheadScriptConfig::default().keep_alive_duration,
        20
    );
}

#[test]
fn default_pool_sizes_follow_the_assumed_4_processors() {
    // Resilience4j: max = availableProcessors(), core = availableProcessors() - 1.
    let c = ThreadPoolBulkheadScriptConfig::default();
    assert_eq!((c.core_thread_pool_size, c.max_thread_pool_size), (3, 4));
}

// --- Semaphore bulkhead ----------------------------------------------------------------------

#[test]
fn with_no_wait_the_call_over_the_limit_is_refused_at_once() {
    let out = run(r#"{"config":{"maxConcurrentCalls":2},
        "steps":[{"acquire":{}},{"acquire":{}},{"acquire":{}},{"release":{}},{"acquire":{}}]}"#);
    assert_eq!(out[1]["availableConcurrentCalls"], 0);
    assert_eq!(out[2]["permitted"], false);
    assert_eq!(out[2]["error"], "BulkheadFullException");
    assert_eq!(out[3]["availableConcurrentCalls"], 1);
    assert_eq!(out[4]["permitted"], true);
}

#[test]
fn a_waiter_gets_the_freed_permit_or_is_refused_when_its_wait_runs_out() {
    // maxWaitDuration 100 ms: the third caller waits; freed at 40 ms, the permit is its.
    // The fourth waits too and is refused at 100 ms after it came, not a moment before.
    let out = run(
        r#"{"config":{"maxConcurrentCalls":2,"maxWaitDuration":"100ms"},
        "steps":[{"acquire":{}},{"acquire":{}},{"acquire":{}},{"advance_ms":40},
                 {"acquire":{}},{"release":{}},{"advance_ms":99},{"advance_ms":1}]}"#,
    );
    assert_eq!(out[2]["waiting"], true);
    assert_eq!(out[4]["waitingCalls"], 2);
    assert_eq!(out[5]["granted"][0]["step"], 2);
    assert_eq!(out[5]["granted"][0]["waited_ms"], 40);
    assert!(out[6].get("expired").is_none());
    assert_eq!(out[7]["expired"][0]["step"], 4);
    assert_eq!(out[7]["expired"][0]["waited_ms"], 100);
    assert_eq!(out[7]["waitingCalls"], 0);
}

#[test]
fn a_fair_semaphore_refuses_a_newcomer_with_no_wait_while_others_wait() {
    let out = run(
        r#"{"config":{"maxConcurrentCalls":1,"maxWaitDuration":"1s"},
        "steps":[{"acquire":{}},{"acquire":{}},{"release":{}},{"acquire":{"max_wait_ms":0}}]}"#,
    );
    // The release went to the waiter, so nothing is free for the newcomer.
    assert_eq!(out[2]["granted"][0]["step"], 1);
    assert_eq!(out[3]["permitted"], false);
}

#[test]
fn releasing_more_than_was_acquired_raises_the_count_as_javas_semaphore_does() {
    let out = run(r#"{"config":{"maxConcurrentCalls":1},
        "steps":[{"release":{}},{"acquire":{}},{"acquire":{}},{"acquire":{}}]}"#);
    assert_eq!(out[0]["availableConcurrentCalls"], 2);
    assert_eq!(out[2]["permitted"], true);
    assert_eq!(out[3]["permitted"], false);
}

#[test]
fn bad_bulkhead_scripts_are_refused_with_one_line() {
    for (bad, needle) in [
        (
            r#"{"steps":[{"acquire":{"max_wait_ms":-1}}]}"#,
            "steps[0].acquire.max_wait_ms",
        ),
        (r#"{"steps":[{"submit":{}}]}"#, "steps[0]"),
        (
            r#"{"config":{"maxConcurrentCalls":3000000000},"steps":[]}"#,
            "maxConcurrentCalls",
        ),
        (
            r#"{"steps":[{"advance_ms":999999999999},{"advance_ms":2}]}"#,
            "steps[1].advance_ms",
        ),
    ] {
        let e = bulkhead::run_text(bad).unwrap_err();
        assert!(e.starts_with("invalid bulkhead script"), "{e}");
        assert!(e.contains(needle), "{bad}: {e}");
        assert!(!e.contains('\n'));
    }
}

// --- Thread-pool bulkhead --------------------------------------------------------------------

#[test]
fn core_threads_then_the_queue_then_threads_up_to_the_max_then_refusal() {
    // The JDK's order: core 1, max 2, queue 1. Task 1 runs on the core thread, task 2 is
    // queued (not a new thread), task 3 finds the queue full and gets the second thread,
    // task 4 is refused.
    let out = run_pool(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":2,"queueCapacity":1},
        "steps":[{"submit":{}},{"submit":{}},{"submit":{}},{"submit":{}}]}"#,
    );
    assert_eq!(
        (out[0]["queued"].clone(), out[0]["threadPoolSize"].clone()),
        (false.into(), 1.into())
    );
    assert_eq!(
        (out[1]["queued"].clone(), out[1]["threadPoolSize"].clone()),
        (true.into(), 1.into())
    );
    assert_eq!(
        (out[2]["queued"].clone(), out[2]["threadPoolSize"].clone()),
        (false.into(), 2.into())
    );
    assert_eq!(out[3]["error"], "BulkheadFullException");
    assert_eq!(out[3]["activeThreadCount"], 2);
    assert_eq!(out[3]["availableThreadCount"], 0);
    assert_eq!(out[3]["queueDepth"], 1);
    assert_eq!(out[3]["remainingQueueCapacity"], 0);
}

#[test]
fn a_finished_task_hands_its_thread_to_the_oldest_queued_one() {
    let out = run_pool(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":1,"queueCapacity":2},
        "steps":[{"submit":{}},{"submit":{}},{"submit":{}},{"complete":{}},{"complete":{}}]}"#,
    );
    assert_eq!(
        (out[3]["completed"].clone(), out[3]["started"].clone()),
        (0.into(), 1.into())
    );
    assert_eq!(
        (out[4]["completed"].clone(), out[4]["started"].clone()),
        (1.into(), 2.into())
    );
}

#[test]
fn threads_above_the_core_end_after_the_keep_alive() {
    let out = run_pool(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":2,"queueCapacity":0,"keepAliveDuration":"20ms"},
        "steps":[{"submit":{}},{"submit":{}},{"complete":{}},{"complete":{}},{"advance_ms":19},{"advance_ms":1}]}"#,
    );
    assert_eq!(out[3]["threadPoolSize"], 2);
    assert_eq!(out[4]["threadPoolSize"], 2);
    // The core thread stays; the other ends 20 ms after it went idle.
    assert_eq!(out[5]["threadPoolSize"], 1);
}

#[test]
fn completing_with_nothing_running_is_said_and_changes_nothing() {
    let out = run_pool(r#"{"steps":[{"complete":{}}]}"#);
    assert!(out[0]["error"]
        .as_str()
        .unwrap()
        .contains("no task is running"));
    assert_eq!(out[0]["threadPoolSize"], 0);
}

#[test]
fn the_builder_refuses_a_max_below_the_core() {
    let e = bulkhead::run_thread_pool_text(
        r#"{"config":{"coreThreadPoolSize":3,"maxThreadPoolSize":2},"steps":[]}"#,
    )
    .unwrap_err();
    assert!(e.contains("config.maxThreadPoolSize"), "{e}");
}

// --- Against independent models -----------------------------------------------------------------

/// Java's fair `Semaphore` under `tryAcquire(wait)`: a count that every release raises, and
/// a FIFO of parked callers with their deadlines.
struct Semaphore {
    permits: i64,
    queue: VecDeque<(usize, Millis, Millis)>,
}

impl Semaphore {
    fn expire(&mut self, now: Millis) -> Vec<WaitEnd> {
        let mut out = Vec::new();
        self.queue.retain(|&(step, since, deadline)| {
            if deadline <= now {
                out.push(WaitEnd {
                    step,
                    waited_ms: deadline - since,
                });
                false
            } else {
                true
            }
        });
        out
    }
}

fn bulkhead_step() -> impl Strategy<Value = BulkheadStep> {
    prop_oneof![
        4 => Just(BulkheadStep::Acquire { max_wait_ms: None }),
        1 => (0u64..60).prop_map(|w| BulkheadStep::Acquire { max_wait_ms: Some(w) }),
        3 => Just(BulkheadStep::Release {}),
        3 => (0u64..50).prop_map(BulkheadStep::AdvanceMs),
    ]
}

fn pool_step() -> impl Strategy<Value = ThreadPoolBulkheadStep> {
    prop_oneof![
        4 => Just(ThreadPoolBulkheadStep::Submit {}),
        3 => Just(ThreadPoolBulkheadStep::Complete {}),
        2 => (0u64..40).prop_map(ThreadPoolBulkheadStep::AdvanceMs),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn the_semaphore_runner_agrees_with_javas_fair_semaphore(
        max in 0u32..5,
        wait in prop_oneof![Just(0u64), 1u64..80],
        steps in proptest::collection::vec(bulkhead_step(), 1..60),
    ) {
        let script = BulkheadScript {
            config: BulkheadScriptConfig {
                max_concurrent_calls: max,
                max_wait_duration: wait,
                ..BulkheadScriptConfig::default()
            },
            steps: steps.clone(),
        };
        let reports = run_bulkhead_script(&script).unwrap();
        let mut sem = Semaphore { permits: max as i64, queue: VecDeque::new() };
        let mut now = 0;
        for (i, (step, report)) in steps.iter().zip(&reports).enumerate() {
            let mut expired = sem.expire(now);
            let mut granted = Vec::new();
            let (mut permitted, mut waiting) = (None, false);
            match step {
                BulkheadStep::Acquire { max_wait_ms } => {
                    let w = max_wait_ms.unwrap_or(wait);
                    if sem.queue.is_empty() && sem.permits > 0 {
                        sem.permits -= 1;
                        permitted = Some(true);
                    } else if w == 0 {
                        permitted = Some(false);
                    } else {
                        sem.queue.push_back((i, now, now + w));
                        waiting = true;
                    }
                }
                BulkheadStep::Release {} => match sem.queue.pop_front() {
                    Some((step, since, _)) => granted.push(WaitEnd { step, waited_ms: now - since }),
                    None => sem.permits += 1,
                },
                BulkheadStep::AdvanceMs(ms) => now += ms,
            }
            expired.extend(sem.expire(now));
            prop_assert_eq!(report.t_ms, now);
            prop_assert_eq!(report.permitted, permitted, "step {}", i);
            prop_assert_eq!(report.waiting, waiting, "step {}", i);
            prop_assert_eq!(&report.granted, &granted, "step {}", i);
            prop_assert_eq!(&report.expired, &expired, "step {}", i);
            prop_assert_eq!(report.available_concurrent_calls as i64, sem.permits, "step {}", i);
            prop_assert_eq!(report.waiting_calls as usize, sem.queue.len(), "step {}", i);
            prop_assert_eq!(report.max_allowed_concurrent_calls, max);
        }
    }

    #[test]
    fn the_thread_pool_runner_agrees_with_a_thread_pool_executor(
        core in 1u32..4,
        extra in 0u32..3,
        capacity in 0u32..4,
        keep_alive in 0u64..30,
        steps in proptest::collection::vec(pool_step(), 1..60),
    ) {
        let max = core + extra;
        let script = ThreadPoolBulkheadScript {
            config: ThreadPoolBulkheadScriptConfig {
                core_thread_pool_size: core,
                max_thread_pool_size: max,
                queue_capacity: capacity,
                keep_alive_duration: keep_alive,
                ..ThreadPoolBulkheadScriptConfig::default()
            },
            steps: steps.clone(),
        };
        let reports = run_thread_pool_bulkhead_script(&script).unwrap();
        // Workers: Ok(task) when busy, else (the instant it went idle, the order it did).
        let mut workers: Vec<Result<usize, (Millis, u64)>> = Vec::new();
        let mut idle_order = 0u64;
        let mut queue: VecDeque<usize> = VecDeque::new();
        // Running tasks in the order they started.
        let mut started_order: VecDeque<usize> = VecDeque::new();
        let mut now = 0;
        let retire = |workers: &mut Vec<Result<usize, (Millis, u64)>>, now: Millis| {
            // Idle workers above the core size end after the keep-alive, oldest idle first.
            loop {
                if workers.len() as u32 <= core {
                    break;
                }
                let oldest = workers
                    .iter()
                    .enumerate()
                    .filter_map(|(k, w)| w.err().map(|idle| (idle, k)))
                    .min();
                match oldest {
                    Some(((since, _), k)) if since + keep_alive <= now => {
                        let _ended = workers.remove(k);
                    }
                    _ => break,
                }
            }
        };
        for (i, (step, report)) in steps.iter().zip(&reports).enumerate() {
            retire(&mut workers, now);
            let (mut permitted, mut queued, mut completed, mut started) = (None, None, None, None);
            match step {
                ThreadPoolBulkheadStep::Submit {} => {
                    if (workers.len() as u32) < core {
                        workers.push(Ok(i));
                        started_order.push_back(i);
                        (permitted, queued) = (Some(true), Some(false));
                    } else if let Some((_, k)) = {
                        // An idle worker takes the task: the longest idle one from an
                        // ArrayBlockingQueue, the most recently idle from a SynchronousQueue
                        // (capacity 0, a LIFO stack of waiting threads).
                        let idle = workers
                            .iter()
                            .enumerate()
                            .filter_map(|(k, w)| w.err().map(|idle| (idle, k)));
                        if capacity == 0 { idle.max() } else { idle.min() }
                    } {
                        workers[k] = Ok(i);
                        started_order.push_back(i);
                        (permitted, queued) = (Some(true), Some(false));
                    } else if (queue.len() as u32) < capacity {
                        queue.push_back(i);
                        (permitted, queued) = (Some(true), Some(true));
                    } else if (workers.len() as u32) < max {
                        workers.push(Ok(i));
                        started_order.push_back(i);
                        (permitted, queued) = (Some(true), Some(false));
                    } else {
                        permitted = Some(false);
                    }
                }
                ThreadPoolBulkheadStep::Complete {} => {
                    if let Some(task) = started_order.pop_front() {
                        completed = Some(task);
                        let k = workers.iter().position(|w| *w == Ok(task)).unwrap();
                        match queue.pop_front() {
                            Some(next) => {
                                workers[k] = Ok(next);
                                started_order.push_back(next);
                                started = Some(next);
                            }
                            None => {
                                workers[k] = Err((now, idle_order));
                                idle_order += 1;
                            }
                        }
                    }
                }
                ThreadPoolBulkheadStep::AdvanceMs(ms) => now += ms,
            }
            retire(&mut workers, now);
            let active = workers.iter().filter(|w| w.is_ok()).count() as u32;
            prop_assert_eq!(report.permitted, permitted, "step {}", i);
            prop_assert_eq!(report.queued, queued, "step {}", i);
            prop_assert_eq!(report.completed, completed, "step {}", i);
            prop_assert_eq!(report.started, started, "step {}", i);
            prop_assert_eq!(report.thread_pool_size, workers.len() as u32, "step {}", i);
            prop_assert_eq!(report.active_thread_count, active, "step {}", i);
            prop_assert_eq!(report.available_thread_count, max - active, "step {}", i);
            prop_assert_eq!(report.queue_depth, queue.len() as u32, "step {}", i);
            prop_assert_eq!(report.remaining_queue_capacity, capacity - queue.len() as u32, "step {}", i);
        }
    }
}
