//! The thread-pool bulkhead script runner (`resilience-sim thread-pool-bulkhead FILE`)
//! against Resilience4j's `FixedThreadPoolBulkhead`: each default its own test; cases from
//! the JDK's `ThreadPoolExecutor` rules; and a property test against an independent model
//! (a list of workers, each busy with a task or idle since an instant, and a FIFO queue).

use std::collections::VecDeque;

use proptest::prelude::*;
use serde_json::{json, Value};

use resilience_sim::scenario::scripts::bulkhead::{
    self, run_thread_pool_bulkhead_script, ThreadPoolBulkheadScript,
    ThreadPoolBulkheadScriptConfig, ThreadPoolBulkheadStep,
};
use resilience_sim::Millis;

fn run(json: &str) -> Vec<Value> {
    bulkhead::run_thread_pool_text(json)
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The named fields of a report, as a JSON array.
fn pick(report: &Value, keys: &[&str]) -> Value {
    Value::Array(keys.iter().map(|k| report[*k].clone()).collect())
}

// --- Defaults (ThreadPoolBulkheadConfig), one test each ------------------------------------------

#[test]
fn default_queue_capacity_is_100() {
    assert_eq!(
        ThreadPoolBulkheadScriptConfig::default().queue_capacity,
        100
    );
    let out = run(r#"{"steps":[{"advance_ms":0}]}"#);
    assert_eq!(out[0]["queueCapacity"], 100);
    assert_eq!(out[0]["remainingQueueCapacity"], 100);
}

#[test]
fn default_keep_alive_duration_is_20_ms() {
    assert_eq!(
        ThreadPoolBulkheadScriptConfig::default().keep_alive_duration,
        20
    );
    // A thread above the core size ends 20 ms after it went idle.
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":2,"queueCapacity":0},
        "steps":[{"submit":{}},{"submit":{}},{"complete":{}},{"advance_ms":19},{"advance_ms":1}]}"#,
    );
    assert_eq!(out[3]["threadPoolSize"], 2);
    assert_eq!(out[4]["threadPoolSize"], 1);
}

#[test]
fn default_max_thread_pool_size_is_the_assumed_4_processors() {
    // Resilience4j: Runtime.availableProcessors(); a script takes 4.
    assert_eq!(
        ThreadPoolBulkheadScriptConfig::default().max_thread_pool_size,
        4
    );
    let out = run(r#"{"steps":[{"advance_ms":0}]}"#);
    assert_eq!(out[0]["maximumThreadPoolSize"], 4);
}

#[test]
fn default_core_thread_pool_size_is_the_processors_less_one() {
    // Resilience4j: availableProcessors() - 1 (at least 1): 3 for 4 processors.
    assert_eq!(
        ThreadPoolBulkheadScriptConfig::default().core_thread_pool_size,
        3
    );
    let out = run(r#"{"steps":[{"advance_ms":0}]}"#);
    assert_eq!(out[0]["coreThreadPoolSize"], 3);
}

#[test]
fn default_writable_stack_trace_is_enabled() {
    assert!(ThreadPoolBulkheadScriptConfig::default().writable_stack_trace_enabled);
}

#[test]
fn a_core_size_above_the_default_max_alone_is_refused_as_the_builder_does() {
    // build(): maxThreadPoolSize (4) must be >= coreThreadPoolSize.
    let e = bulkhead::run_thread_pool_text(r#"{"config":{"coreThreadPoolSize":5},"steps":[]}"#)
        .unwrap_err();
    assert!(e.contains("config.maxThreadPoolSize"), "{e}");
}

// --- Hand-written cases (the JDK's ThreadPoolExecutor) -------------------------------------------

#[test]
fn core_threads_then_the_queue_then_threads_up_to_the_max_then_refusal() {
    // Core 1, max 2, queue 1. Task 1 runs on the core thread, task 2 is queued (not a new
    // thread), task 3 finds the queue full and gets the second thread, task 4 is refused.
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":2,"queueCapacity":1},
        "steps":[{"submit":{}},{"submit":{}},{"submit":{}},{"submit":{}}]}"#,
    );
    let keys = [
        "permitted",
        "queued",
        "threadPoolSize",
        "queueDepth",
        "activeThreadCount",
    ];
    assert_eq!(pick(&out[0], &keys), json!([true, false, 1, 0, 1]));
    assert_eq!(pick(&out[1], &keys), json!([true, true, 1, 1, 1]));
    assert_eq!(pick(&out[2], &keys), json!([true, false, 2, 1, 2]));
    assert_eq!(out[3]["permitted"], false);
    assert_eq!(out[3]["error"], "BulkheadFullException");
    assert_eq!(out[3]["activeThreadCount"], 2);
    assert_eq!(out[3]["availableThreadCount"], 0);
    assert_eq!(out[3]["queueDepth"], 1);
    assert_eq!(out[3]["remainingQueueCapacity"], 0);
}

#[test]
fn below_the_core_size_a_task_starts_a_new_thread_even_with_one_idle() {
    let out = run(r#"{"config":{"coreThreadPoolSize":2,"maxThreadPoolSize":2},
        "steps":[{"submit":{}},{"complete":{}},{"submit":{}}]}"#);
    assert_eq!(
        pick(&out[1], &["threadPoolSize", "activeThreadCount"]),
        json!([1, 0])
    );
    assert_eq!(
        pick(&out[2], &["threadPoolSize", "activeThreadCount"]),
        json!([2, 1])
    );
}

#[test]
fn at_the_core_size_an_idle_thread_takes_the_task_through_the_queue() {
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":3,"queueCapacity":5},
        "steps":[{"submit":{}},{"complete":{}},{"submit":{}}]}"#,
    );
    assert_eq!(out[2]["queued"], false);
    assert_eq!(
        pick(&out[2], &["threadPoolSize", "queueDepth"]),
        json!([1, 0])
    );
}

#[test]
fn a_finished_task_hands_its_thread_to_the_oldest_queued_one() {
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":1,"queueCapacity":2},
        "steps":[{"submit":{}},{"submit":{}},{"submit":{}},{"complete":{}},{"complete":{}},{"complete":{}}]}"#,
    );
    assert_eq!(pick(&out[3], &["completed", "started"]), json!([0, 1]));
    assert_eq!(
        pick(&out[3], &["queueDepth", "activeThreadCount"]),
        json!([1, 1])
    );
    assert_eq!(pick(&out[4], &["completed", "started"]), json!([1, 2]));
    assert_eq!(out[5]["completed"], 2);
    assert!(out[5].get("started").is_none());
    assert_eq!(
        pick(&out[5], &["activeThreadCount", "threadPoolSize"]),
        json!([0, 1])
    );
}

#[test]
fn threads_above_the_core_end_after_the_keep_alive_and_the_core_stays() {
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":3,"queueCapacity":0,"keepAliveDuration":"20ms"},
        "steps":[{"submit":{}},{"submit":{}},{"submit":{}},{"complete":{}},{"complete":{}},
                 {"complete":{}},{"advance_ms":19},{"advance_ms":1},{"advance_ms":1000}]}"#,
    );
    assert_eq!(out[6]["threadPoolSize"], 3);
    // All three idle since 0: two end at 20 ms; the pool never shrinks below the core size.
    assert_eq!(out[7]["threadPoolSize"], 1);
    assert_eq!(out[8]["threadPoolSize"], 1);
}

#[test]
fn with_a_keep_alive_of_0_an_extra_thread_ends_as_soon_as_it_is_idle() {
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":2,"queueCapacity":0,"keepAliveDuration":0},
        "steps":[{"submit":{}},{"submit":{}},{"complete":{}}]}"#,
    );
    assert_eq!(out[1]["threadPoolSize"], 2);
    assert_eq!(out[2]["threadPoolSize"], 1);
}

#[test]
fn a_hand_off_queue_gives_a_task_to_the_most_recently_idle_thread() {
    // Capacity 0: a SynchronousQueue, whose waiting threads are a stack. T1 idle since 0, T2
    // since 10; at 15 the task goes to T2, so T1 (idle since 0) ends at 20.
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":3,"queueCapacity":0,"keepAliveDuration":20},
        "steps":[{"submit":{}},{"submit":{}},{"submit":{}},{"complete":{}},{"advance_ms":10},
                 {"complete":{}},{"advance_ms":5},{"submit":{}},{"advance_ms":5}]}"#,
    );
    assert_eq!(out[7]["queued"], false);
    assert_eq!(out[7]["threadPoolSize"], 3);
    assert_eq!(out[8]["threadPoolSize"], 2);
    assert_eq!(out[8]["remainingQueueCapacity"], 0);
}

#[test]
fn a_bounded_queue_gives_a_task_to_the_longest_idle_thread() {
    // Capacity 1: an ArrayBlockingQueue wakes its longest-waiting taker. Tasks 0 (core
    // thread), 1 (queued), 2 and 3 (two threads above the core). Task 0 ends: its thread
    // takes task 1. Task 2 ends at 0 ms, task 3 at 10 ms; at 15 ms a new task goes to task
    // 2's thread (idle since 0), so task 3's thread (idle since 10) ends at 30 ms, not 20.
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":3,"queueCapacity":1,"keepAliveDuration":20},
        "steps":[{"submit":{}},{"submit":{}},{"submit":{}},{"submit":{}},{"complete":{}},
                 {"complete":{}},{"advance_ms":10},{"complete":{}},{"advance_ms":5},
                 {"submit":{}},{"advance_ms":5},{"advance_ms":10}]}"#,
    );
    assert_eq!(pick(&out[4], &["completed", "started"]), json!([0, 1]));
    assert_eq!(out[5]["completed"], 2);
    assert_eq!(out[7]["completed"], 3);
    assert_eq!(
        pick(&out[9], &["queued", "threadPoolSize", "queueDepth"]),
        json!([false, 3, 0])
    );
    assert_eq!(out[10]["threadPoolSize"], 3);
    assert_eq!(out[11]["threadPoolSize"], 2);
}

#[test]
fn a_thread_idle_for_exactly_the_keep_alive_is_gone_for_a_task_at_that_instant() {
    // Core 1, max 2, queue 0: the extra thread idle since 0 ends at 20; the core thread is
    // busy, so a task at 20 ms starts a new thread.
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":2,"queueCapacity":0,"keepAliveDuration":20},
        "steps":[{"submit":{}},{"submit":{}},{"complete":{}},{"submit":{}},{"complete":{}},
                 {"advance_ms":20},{"submit":{}}]}"#,
    );
    // Step 3 reused the idle thread (task 0's); step 4 ends task 1 (the extra thread idle).
    assert_eq!(out[3]["threadPoolSize"], 2);
    assert_eq!(out[4]["completed"], 1);
    assert_eq!(out[5]["threadPoolSize"], 1);
    assert_eq!(
        pick(&out[6], &["permitted", "threadPoolSize"]),
        json!([true, 2])
    );
}

#[test]
fn available_thread_count_is_the_maximum_less_the_active_threads() {
    // FixedThreadPoolBulkhead: getMaximumThreadPoolSize() - getActiveThreadCount(), counting
    // threads that are not even started.
    let out = run(
        r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":4,"queueCapacity":10},
        "steps":[{"submit":{}},{"submit":{}}]}"#,
    );
    assert_eq!(
        pick(
            &out[1],
            &[
                "threadPoolSize",
                "activeThreadCount",
                "availableThreadCount",
                "queueDepth"
            ]
        ),
        json!([1, 1, 3, 1])
    );
}

#[test]
fn completing_with_nothing_running_is_said_and_changes_nothing() {
    let out = run(r#"{"steps":[{"complete":{}}]}"#);
    assert!(out[0]["error"]
        .as_str()
        .unwrap()
        .contains("no task is running"));
    assert!(out[0].get("completed").is_none());
    assert_eq!(out[0]["threadPoolSize"], 0);
}

#[test]
fn bad_thread_pool_scripts_are_refused_with_one_line() {
    for (bad, needle) in [
        (
            r#"{"config":{"coreThreadPoolSize":3,"maxThreadPoolSize":2},"steps":[]}"#,
            "config.maxThreadPoolSize",
        ),
        (
            r#"{"config":{"coreThreadPoolSize":0},"steps":[]}"#,
            "config.coreThreadPoolSize",
        ),
        (
            r#"{"config":{"coreThreadPoolSize":1,"maxThreadPoolSize":0},"steps":[]}"#,
            "config.maxThreadPoolSize",
        ),
        (
            r#"{"config":{"queueCapacity":-1},"steps":[]}"#,
            "config.queueCapacity",
        ),
        (
            r#"{"config":{"queueCapacity":2147483648},"steps":[]}"#,
            "config.queueCapacity",
        ),
        (
            r#"{"config":{"keepAliveDuration":1000000000001},"steps":[]}"#,
            "config.keepAliveDuration",
        ),
        (r#"{"steps":[{"acquire":{}}]}"#, "steps[0]"),
        (r#"{"steps":[{"submit":{"n":2}}]}"#, "steps[0].submit"),
        (
            r#"{"steps":[{"advance_ms":999999999999},{"advance_ms":2}]}"#,
            "steps[1].advance_ms",
        ),
    ] {
        let e = bulkhead::run_thread_pool_text(bad).unwrap_err();
        assert!(e.starts_with("invalid thread-pool bulkhead script"), "{e}");
        assert!(e.contains(needle), "{bad}: {e}");
        assert!(!e.contains('\n'));
    }
}

// --- Against an independent model --------------------------------------------------------------

fn pool_step() -> impl Strategy<Value = ThreadPoolBulkheadStep> {
    prop_oneof![
        4 => Just(ThreadPoolBulkheadStep::Submit {}),
        3 => Just(ThreadPoolBulkheadStep::Complete {}),
        2 => (0u64..40).prop_map(ThreadPoolBulkheadStep::AdvanceMs),
    ]
}

/// A worker of the model: busy with a task (its submit step), or idle since an instant
/// (with a sequence number: the order in which workers went idle).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Worker {
    Busy(usize),
    Idle(Millis, u64),
}

impl Worker {
    fn idle(self) -> Option<(Millis, u64)> {
        match self {
            Worker::Idle(since, order) => Some((since, order)),
            Worker::Busy(_) => None,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

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
        prop_assert_eq!(reports.len(), steps.len());
        let mut workers: Vec<Worker> = Vec::new();
        let mut idle_order = 0u64;
        let mut queue: VecDeque<usize> = VecDeque::new();
        // Running tasks in the order they started.
        let mut started_order: VecDeque<usize> = VecDeque::new();
        let mut now = 0;
        // Idle workers while the pool is above the core size end after the keep-alive,
        // the longest idle first, until the pool is back at the core size.
        let retire = |workers: &mut Vec<Worker>, now: Millis| loop {
            if workers.len() as u32 <= core {
                break;
            }
            let oldest = workers
                .iter()
                .enumerate()
                .filter_map(|(k, w)| w.idle().map(|idle| (idle, k)))
                .min();
            match oldest {
                Some(((since, _), k)) if since + keep_alive <= now => {
                    workers.remove(k);
                }
                _ => break,
            }
        };
        for (i, (step, report)) in steps.iter().zip(&reports).enumerate() {
            retire(&mut workers, now);
            let (mut permitted, mut queued, mut completed, mut started) = (None, None, None, None);
            match step {
                ThreadPoolBulkheadStep::Submit {} => {
                    // An idle worker takes the task: the longest idle one from an
                    // ArrayBlockingQueue, the most recently idle from a SynchronousQueue
                    // (capacity 0, a stack of waiting threads).
                    let idle = workers
                        .iter()
                        .enumerate()
                        .filter_map(|(k, w)| w.idle().map(|idle| (idle, k)));
                    let taker = if capacity == 0 { idle.max() } else { idle.min() };
                    if (workers.len() as u32) < core {
                        workers.push(Worker::Busy(i));
                        started_order.push_back(i);
                        (permitted, queued) = (Some(true), Some(false));
                    } else if let Some((_, k)) = taker {
                        workers[k] = Worker::Busy(i);
                        started_order.push_back(i);
                        (permitted, queued) = (Some(true), Some(false));
                    } else if (queue.len() as u32) < capacity {
                        queue.push_back(i);
                        (permitted, queued) = (Some(true), Some(true));
                    } else if (workers.len() as u32) < max {
                        workers.push(Worker::Busy(i));
                        started_order.push_back(i);
                        (permitted, queued) = (Some(true), Some(false));
                    } else {
                        permitted = Some(false);
                    }
                }
                ThreadPoolBulkheadStep::Complete {} => {
                    if let Some(task) = started_order.pop_front() {
                        completed = Some(task);
                        let k = workers.iter().position(|w| *w == Worker::Busy(task)).unwrap();
                        match queue.pop_front() {
                            Some(next) => {
                                workers[k] = Worker::Busy(next);
                                started_order.push_back(next);
                                started = Some(next);
                            }
                            None => {
                                workers[k] = Worker::Idle(now, idle_order);
                                idle_order += 1;
                            }
                        }
                    }
                }
                ThreadPoolBulkheadStep::AdvanceMs(ms) => now += ms,
            }
            retire(&mut workers, now);
            let active = workers.iter().filter(|w| w.idle().is_none()).count() as u32;
            prop_assert_eq!(report.step, i);
            prop_assert_eq!(report.t_ms, now, "step {}", i);
            prop_assert_eq!(report.permitted, permitted, "step {}", i);
            prop_assert_eq!(report.queued, queued, "step {}", i);
            prop_assert_eq!(report.completed, completed, "step {}", i);
            prop_assert_eq!(report.started, started, "step {}", i);
            prop_assert_eq!(
                report.error.as_deref() == Some("BulkheadFullException"),
                permitted == Some(false),
                "step {}", i
            );
            prop_assert_eq!(report.core_thread_pool_size, core);
            prop_assert_eq!(report.maximum_thread_pool_size, max);
            prop_assert_eq!(report.queue_capacity, capacity);
            prop_assert_eq!(report.thread_pool_size, workers.len() as u32, "step {}", i);
            prop_assert_eq!(report.active_thread_count, active, "step {}", i);
            prop_assert_eq!(report.available_thread_count, max - active, "step {}", i);
            prop_assert_eq!(report.queue_depth, queue.len() as u32, "step {}", i);
            prop_assert_eq!(
                report.remaining_queue_capacity,
                capacity - queue.len() as u32,
                "step {}", i
            );
        }
    }
}
