//! Rules of spec 00 (Bulkheads, Retry and backoff, Time limiter, Decorator order), checked
//! with numbers derived from the rules, plus cases modelled on Resilience4j's own tests
//! (SemaphoreBulkheadTest, IntervalFunctionTest, RetryImplTest).

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use resilience_sim::policy::bulkhead::{
    Admission, BulkheadConfig, SemaphoreBulkhead, ThreadPoolAdmission, ThreadPoolBulkhead,
    ThreadPoolBulkheadConfig, WaiterId,
};
use resilience_sim::policy::decorators::{Decorator, DecoratorOrder};
use resilience_sim::policy::fallback::{
    FallbackCache, FallbackValue, PaymentFallback, PaymentStatus, ShippingFallback,
};
use resilience_sim::policy::retry::{
    Backoff, IntervalFunction, Jitter, NotRetriedReason, Retry, RetryBudget, RetryBudgetConfig,
    RetryClass, RetryConfig, RetryDecision, RetryMetrics,
};
use resilience_sim::policy::time_limiter::{TimeLimit, TimeLimiterConfig, Timeout, TimeoutKind};
use resilience_sim::{Millis, Outcome};

fn rng(seed: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed)
}

fn semaphore(max: u32, wait: Millis) -> SemaphoreBulkhead {
    SemaphoreBulkhead::new(BulkheadConfig {
        max_concurrent_calls: max,
        max_wait_duration: wait,
    })
    .unwrap()
}

fn pool(core: u32, max: u32, queue: u32, keep_alive: Millis) -> ThreadPoolBulkhead {
    ThreadPoolBulkhead::new(ThreadPoolBulkheadConfig {
        core_thread_pool_size: core,
        max_thread_pool_size: max,
        queue_capacity: queue,
        keep_alive_duration: keep_alive,
    })
    .unwrap()
}

fn retry(config: RetryConfig) -> Retry {
    Retry::new(config).unwrap()
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

// =======================================================================================
// Semaphore bulkhead
// =======================================================================================

#[test]
fn semaphore_defaults_are_resilience4j_defaults() {
    let config = BulkheadConfig::default();
    assert_eq!(config.max_concurrent_calls, 25);
    assert_eq!(config.max_wait_duration, 0);
    assert!(config.validate().is_ok());
    let bulkhead = SemaphoreBulkhead::new(config).unwrap();
    assert_eq!(bulkhead.max(), 25);
    assert_eq!(bulkhead.available_permits(), 25);
}

/// SemaphoreBulkheadTest.shouldHandleBasicBulkheadOperations: max 2, no wait.
#[test]
fn semaphore_basic_operations_like_resilience4j_test() {
    let mut b = semaphore(2, 0);
    assert_eq!(b.try_acquire(0), Admission::Permitted);
    assert_eq!(b.try_acquire(0), Admission::Permitted);
    assert_eq!(b.available_permits(), 0);
    assert_eq!(b.try_acquire(0), Admission::Rejected);
    assert!(b.release(1).is_empty());
    assert_eq!(b.available_permits(), 1);
    assert!(b.release(2).is_empty());
    assert_eq!(b.available_permits(), 2);
    assert_eq!(b.try_acquire(3), Admission::Permitted);
    assert_eq!(b.permitted_calls(), 3);
    assert_eq!(b.rejected_calls(), 1);
    assert_eq!(b.finished_calls(), 2);
}

/// SemaphoreBulkheadTest.testZeroMaxConcurrentCalls.
#[test]
fn semaphore_zero_max_concurrent_calls_rejects_everything() {
    let mut b = semaphore(0, 0);
    for t in 0..10 {
        assert_eq!(b.try_acquire(t), Admission::Rejected);
    }
    assert_eq!(b.in_use(), 0);

    // With a wait, the call waits it out and is then rejected: no permit can ever free up.
    let mut b = semaphore(0, 50);
    let Admission::Waiting(id) = b.try_acquire(0) else {
        panic!("expected to wait")
    };
    assert!(b.release(10).is_empty());
    assert_eq!(b.expire_waiters(49), Vec::<WaiterId>::new());
    assert_eq!(b.expire_waiters(50), vec![id]);
    assert_eq!(b.permitted_calls(), 0);
}

/// SemaphoreBulkheadTest.testEntryTimeout: max 1, wait 10 ms, permit held: rejected.
#[test]
fn semaphore_entry_times_out_after_max_wait_duration() {
    let mut b = semaphore(1, 10);
    assert_eq!(b.try_acquire(0), Admission::Permitted);
    let Admission::Waiting(id) = b.try_acquire(0) else {
        panic!("expected to wait")
    };
    assert_eq!(b.waiting(), 1);
    assert_eq!(b.next_deadline(), Some(10));
    // Still waiting strictly before the deadline, rejected at it.
    assert!(b.expire_waiters(9).is_empty());
    assert_eq!(b.expire_waiters(10), vec![id]);
    assert_eq!(b.waiting(), 0);
    assert_eq!(b.rejected_calls(), 1);
}

#[test]
fn semaphore_waiters_are_served_first_come_first_served() {
    let mut b = semaphore(1, 1_000);
    assert_eq!(b.try_acquire(0), Admission::Permitted);
    let Admission::Waiting(first) = b.try_acquire(5) else {
        panic!()
    };
    let Admission::Waiting(second) = b.try_acquire(10) else {
        panic!()
    };
    let Admission::Waiting(third) = b.try_acquire(15) else {
        panic!()
    };
    // A newcomer never overtakes a waiter: it queues behind.
    assert_eq!(b.release(20), vec![first]);
    assert_eq!(b.in_use(), 1, "the permit passed straight to the waiter");
    assert_eq!(b.release(30), vec![second]);
    assert_eq!(b.release(40), vec![third]);
    assert!(b.release(50).is_empty());
    assert_eq!(b.in_use(), 0);
    assert_eq!(b.available_permits(), 1);
}

#[test]
fn semaphore_permit_freed_at_a_deadline_goes_to_the_next_live_waiter() {
    let mut b = semaphore(1, 100);
    assert_eq!(b.try_acquire(0), Admission::Permitted);
    let Admission::Waiting(early) = b.try_acquire(0) else {
        panic!()
    };
    let Admission::Waiting(late) = b.try_acquire(50) else {
        panic!()
    };
    // At 100 the early waiter's wait is over; the permit goes to the late one.
    assert_eq!(b.release(100), vec![late]);
    assert_eq!(b.expire_waiters(100), vec![early]);
    // Nobody waiting any more: the next release frees the permit.
    assert!(b.release(120).is_empty());
    assert_eq!(b.available_permits(), 1);
}

#[test]
fn semaphore_release_without_permit_never_exceeds_max() {
    let mut b = semaphore(3, 0);
    assert!(b.release(0).is_empty());
    assert_eq!(b.available_permits(), 3);
    assert_eq!(b.in_use(), 0);
    assert_eq!(b.finished_calls(), 0);
}

#[test]
fn semaphore_cancelled_waiter_leaves_the_queue() {
    let mut b = semaphore(1, 1_000);
    assert_eq!(b.try_acquire(0), Admission::Permitted);
    let Admission::Waiting(a) = b.try_acquire(1) else {
        panic!()
    };
    let Admission::Waiting(c) = b.try_acquire(2) else {
        panic!()
    };
    assert!(b.cancel(a));
    assert!(!b.cancel(a));
    assert_eq!(b.release(3), vec![c]);
}

#[test]
fn semaphore_config_serde_uses_resilience4j_names_and_durations() {
    let config: BulkheadConfig =
        serde_json::from_str(r#"{"maxConcurrentCalls": 8, "maxWaitDuration": "800ms"}"#).unwrap();
    assert_eq!(config.max_concurrent_calls, 8);
    assert_eq!(config.max_wait_duration, 800);
    let defaulted: BulkheadConfig = serde_json::from_str("{}").unwrap();
    assert_eq!(defaulted, BulkheadConfig::default());
    assert!(serde_json::from_str::<BulkheadConfig>(r#"{"maxConcurrent": 8}"#).is_err());
    let json = serde_json::to_value(&config).unwrap();
    assert_eq!(json["maxWaitDuration"], "800ms");
}

// =======================================================================================
// Thread-pool bulkhead
// =======================================================================================

#[test]
fn thread_pool_defaults_follow_resilience4j_with_four_processors() {
    let config = ThreadPoolBulkheadConfig::default();
    // core = processors - 1, max = processors, queue 100, keep-alive 20 ms.
    assert_eq!(config.core_thread_pool_size, 3);
    assert_eq!(config.max_thread_pool_size, 4);
    assert_eq!(config.queue_capacity, 100);
    assert_eq!(config.keep_alive_duration, 20);
    assert!(config.validate().is_ok());
    assert_eq!(config.capacity(), 104);
}

#[test]
fn thread_pool_admits_in_the_jdk_order_core_then_queue_then_max_then_reject() {
    let mut p = pool(2, 4, 2, 60_000);
    use ThreadPoolAdmission::*;
    let admissions: Vec<_> = (0..7).map(|_| p.submit(0)).collect();
    assert_eq!(
        admissions,
        vec![Running, Running, Queued, Queued, Running, Running, Rejected]
    );
    assert_eq!(p.capacity(), 6);
    assert_eq!(p.pool_size(), 4);
    assert_eq!(p.active_threads(), 4);
    assert_eq!(p.queue_depth(), 2);
    assert_eq!(p.remaining_queue_capacity(), 0);
    assert_eq!(p.rejected_tasks(), 1);
    assert_eq!(p.admitted_tasks(), 6);
}

#[test]
fn thread_pool_finished_task_hands_its_thread_to_the_queue() {
    let mut p = pool(1, 1, 2, 0);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Running);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Queued);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Queued);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Rejected);
    assert!(p.complete(10), "a queued task starts");
    assert_eq!(p.queue_depth(), 1);
    assert!(p.complete(20));
    assert_eq!(p.queue_depth(), 0);
    assert!(!p.complete(30), "nothing queued: the thread goes idle");
    assert_eq!(p.active_threads(), 0);
    assert_eq!(p.pool_size(), 1, "a core thread stays");
    assert!(!p.complete(40), "nothing running: no-op");
    assert_eq!(p.completed_tasks(), 3);
    // The idle core thread takes the next task at once.
    assert_eq!(p.submit(50), ThreadPoolAdmission::Running);
    assert_eq!(p.pool_size(), 1);
}

#[test]
fn thread_pool_starts_a_new_core_thread_even_when_one_is_idle() {
    let mut p = pool(2, 2, 5, 0);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Running);
    assert!(!p.complete(1));
    assert_eq!(p.idle_threads(), 1);
    assert_eq!(p.submit(2), ThreadPoolAdmission::Running);
    assert_eq!(p.pool_size(), 2, "below core size the JDK adds a worker");
    assert_eq!(p.idle_threads(), 1);
}

#[test]
fn thread_pool_threads_above_core_end_after_keep_alive() {
    let mut p = pool(1, 3, 1, 20);
    for _ in 0..4 {
        assert_ne!(p.submit(0), ThreadPoolAdmission::Rejected);
    }
    assert_eq!(p.pool_size(), 3);
    assert!(p.complete(100)); // the queued task starts
    assert!(!p.complete(100));
    assert!(!p.complete(110));
    assert_eq!(p.idle_threads(), 2);
    p.expire_idle_threads(119);
    assert_eq!(p.pool_size(), 3);
    p.expire_idle_threads(120); // the thread idle since 100 ends
    assert_eq!(p.pool_size(), 2);
    p.expire_idle_threads(1_000); // the thread idle since 110 ends too
    assert_eq!(p.pool_size(), 1, "down to the core size: the busy thread");
    assert_eq!(p.active_threads(), 1);
    assert!(!p.complete(1_000));
    p.expire_idle_threads(5_000);
    assert_eq!(p.pool_size(), 1, "core threads stay");
    assert_eq!(p.idle_threads(), 1);
}

#[test]
fn thread_pool_with_zero_queue_hands_off_or_grows() {
    // queueCapacity 0 is a SynchronousQueue: no waiting place at all.
    let mut p = pool(1, 2, 0, 1_000);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Running);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Running);
    assert_eq!(p.submit(0), ThreadPoolAdmission::Rejected);
    assert!(!p.complete(5));
    assert_eq!(
        p.submit(6),
        ThreadPoolAdmission::Running,
        "hand-off to the idle thread"
    );
    assert_eq!(p.pool_size(), 2);
}

#[test]
fn thread_pool_validation_follows_the_builder() {
    let base = ThreadPoolBulkheadConfig {
        core_thread_pool_size: 2,
        max_thread_pool_size: 4,
        queue_capacity: 0,
        keep_alive_duration: 0,
    };
    assert!(base.validate().is_ok());
    let err = ThreadPoolBulkheadConfig {
        core_thread_pool_size: 0,
        ..base.clone()
    }
    .validate()
    .unwrap_err();
    assert_eq!(err.field, "coreThreadPoolSize");
    let err = ThreadPoolBulkheadConfig {
        max_thread_pool_size: 0,
        core_thread_pool_size: 1,
        ..base.clone()
    }
    .validate()
    .unwrap_err();
    assert_eq!(err.field, "maxThreadPoolSize");
    let err = ThreadPoolBulkheadConfig {
        core_thread_pool_size: 5,
        ..base.clone()
    }
    .validate()
    .unwrap_err();
    assert_eq!(err.field, "maxThreadPoolSize");
    assert!(ThreadPoolBulkhead::new(ThreadPoolBulkheadConfig {
        core_thread_pool_size: 5,
        ..base
    })
    .is_err());
}

/// Lab C's pricing bulkhead: 20 threads, queue 200: capacity 220, and the 221st waits nowhere.
#[test]
fn thread_pool_lab_c_capacity() {
    let mut p = pool(20, 20, 200, 20);
    let mut running = 0;
    let mut queued = 0;
    let mut rejected = 0;
    for _ in 0..250 {
        match p.submit(0) {
            ThreadPoolAdmission::Running => running += 1,
            ThreadPoolAdmission::Queued => queued += 1,
            ThreadPoolAdmission::Rejected => rejected += 1,
        }
    }
    assert_eq!((running, queued, rejected), (20, 200, 30));
}

// =======================================================================================
// Interval functions
// =======================================================================================

#[test]
fn default_interval_function_is_a_fixed_500_ms() {
    let f = IntervalFunction::default();
    let mut r = rng(1);
    for attempt in 1..10 {
        assert_eq!(f.interval(attempt, &mut r), 500);
    }
}

#[test]
fn exponential_truncates_at_each_step() {
    let f = IntervalFunction::Exponential {
        initial_interval: 500,
        multiplier: 1.5,
        max_interval: None,
    };
    let mut r = rng(1);
    // 500; 750; 1125; 1125 x 1.5 = 1687.5 -> 1687; 1687 x 1.5 = 2530.5 -> 2530;
    // 2530 x 1.5 = 3795.
    let waits: Vec<Millis> = (1..=6).map(|k| f.interval(k, &mut r)).collect();
    assert_eq!(waits, vec![500, 750, 1125, 1687, 2530, 3795]);
}

/// IntervalFunctionTest.generatesExponentialIntervals.
#[test]
fn exponential_intervals_grow_strictly() {
    let f = IntervalFunction::Exponential {
        initial_interval: 100,
        multiplier: 1.5,
        max_interval: None,
    };
    let mut r = rng(1);
    let mut previous = f.interval(1, &mut r);
    for attempt in 2..50 {
        let value = f.interval(attempt, &mut r);
        assert!(value > previous, "attempt {attempt}: {value} <= {previous}");
        previous = value;
    }
}

/// IntervalFunctionTest.generatesCappedExponentialIntervals: 100 x 2, cap 100 000.
#[test]
fn capped_exponential_stops_at_the_cap() {
    let f = IntervalFunction::Exponential {
        initial_interval: 100,
        multiplier: 2.0,
        max_interval: Some(100_000),
    };
    let mut r = rng(1);
    // 100 x 2^(k-1): attempt 10 = 51 200, attempt 11 = 102 400 -> capped.
    assert_eq!(f.interval(10, &mut r), 51_200);
    assert_eq!(f.interval(11, &mut r), 100_000);
    assert_eq!(f.interval(12, &mut r), 100_000);
    assert_eq!(f.interval(13, &mut r), 100_000);
    assert_eq!(f.interval(1_000, &mut r), 100_000);
}

/// IntervalFunctionTest.generatesRandomizedIntervals: 100 ms, factor 0.5 -> [50, 150].
#[test]
fn randomized_intervals_stay_within_the_factor() {
    let f = IntervalFunction::Randomized {
        interval: 100,
        randomization_factor: 0.5,
    };
    assert_eq!(f.bounds(1), (50, 150));
    let mut r = rng(7);
    let draws: Vec<Millis> = (0..5_000).map(|k| f.interval(k % 50 + 1, &mut r)).collect();
    assert!(draws.iter().all(|&d| (50..=150).contains(&d)));
    // Uniform: both ends are reached and the mean is near the centre (+0.5 for truncation).
    assert!(draws.contains(&50) && draws.contains(&150));
    let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
    assert!((mean - 100.0).abs() < 2.0, "mean {mean}");
}

#[test]
fn randomized_interval_is_at_least_one_ms() {
    let f = IntervalFunction::Randomized {
        interval: 1,
        randomization_factor: 1.0,
    };
    let mut r = rng(3);
    for _ in 0..1_000 {
        let v = f.interval(1, &mut r);
        assert!((1..=2).contains(&v), "{v}");
    }
}

/// IntervalFunctionTest.generatesExponentialRandomIntervals (100, x1.5, factor 0.5).
#[test]
fn exponential_randomized_stays_around_the_exponential_value() {
    let f = IntervalFunction::ExponentialRandomized {
        initial_interval: 100,
        multiplier: 1.5,
        randomization_factor: 0.5,
        max_interval: None,
    };
    let mut r = rng(11);
    let mut expected: u64 = 100;
    for attempt in 1..50 {
        let v = f.interval(attempt, &mut r);
        let low = (expected as f64 * 0.5) as u64 - 1;
        let high = (expected as f64 * 1.5) as u64 + 1;
        assert!(
            v >= low && v <= high,
            "attempt {attempt}: {v} not in [{low}, {high}]"
        );
        expected = (expected as f64 * 1.5) as u64;
    }
}

/// IntervalFunctionTest.generatesCappedExponentialRandomIntervals: randomize, then cap.
#[test]
fn exponential_randomized_randomizes_then_caps() {
    let f = IntervalFunction::ExponentialRandomized {
        initial_interval: 100,
        multiplier: 1.5,
        randomization_factor: 0.5,
        max_interval: Some(1_000),
    };
    let mut r = rng(5);
    // Attempt 6: 100, 150, 225, 337, 505 -> 757; randomized in [378, 1136] then capped.
    let mut saw_cap = false;
    let mut saw_below = false;
    for _ in 0..2_000 {
        let v = f.interval(6, &mut r);
        assert!((378..=1_000).contains(&v), "{v}");
        saw_cap |= v == 1_000;
        saw_below |= v < 1_000;
    }
    assert!(saw_cap && saw_below);
    // Far out, everything is capped (randomize first, so even the low end is over the cap).
    for _ in 0..100 {
        assert_eq!(f.interval(30, &mut r), 1_000);
    }
}

#[test]
fn interval_attempt_zero_reads_as_one() {
    let f = IntervalFunction::Exponential {
        initial_interval: 500,
        multiplier: 2.0,
        max_interval: None,
    };
    let mut r = rng(1);
    assert_eq!(f.interval(0, &mut r), f.interval(1, &mut r));
}

/// IntervalFunctionTest: shouldRejectNonPositiveDuration / OutOfBoundsRandomizationFactor,
/// shouldPassPositiveRandomizationFactor / PositiveMultiplier.
#[test]
fn interval_validation_follows_resilience4j() {
    let err = IntervalFunction::Fixed { interval: 0 }
        .validate()
        .unwrap_err();
    assert_eq!(err.field, "waitDuration");
    assert!(IntervalFunction::Fixed { interval: 1 }.validate().is_ok());

    let capped = |max| IntervalFunction::Exponential {
        initial_interval: 100,
        multiplier: 1.0,
        max_interval: Some(max),
    };
    assert_eq!(
        capped(0).validate().unwrap_err().field,
        "exponentialMaxWaitDuration"
    );
    assert!(capped(100).validate().is_ok());

    let randomized = |factor| IntervalFunction::Randomized {
        interval: 100,
        randomization_factor: factor,
    };
    for bad in [-0.0001, 1.0001, f64::NAN] {
        assert_eq!(
            randomized(bad).validate().unwrap_err().field,
            "randomizedWaitFactor"
        );
    }
    for good in [0.0, 0.1, 0.25, 0.5, 0.75, 1.0] {
        assert!(randomized(good).validate().is_ok(), "{good}");
    }

    let exponential = |multiplier| IntervalFunction::ExponentialRandomized {
        initial_interval: 100,
        multiplier,
        randomization_factor: 0.5,
        max_interval: None,
    };
    assert!(exponential(1.0001).validate().is_ok());
    for bad in [0.0, -1.5, f64::INFINITY, f64::NAN] {
        assert_eq!(
            exponential(bad).validate().unwrap_err().field,
            "exponentialBackoffMultiplier"
        );
    }
}

#[test]
fn interval_function_serde_is_tagged_with_durations() {
    let f: IntervalFunction = serde_json::from_str(
        r#"{"type": "exponential", "initialInterval": "500ms", "multiplier": 1.5, "maxInterval": "5s"}"#,
    )
    .unwrap();
    assert_eq!(
        f,
        IntervalFunction::Exponential {
            initial_interval: 500,
            multiplier: 1.5,
            max_interval: Some(5_000),
        }
    );
    let f: IntervalFunction =
        serde_json::from_str(r#"{"type": "exponentialRandomized", "initialInterval": 200}"#)
            .unwrap();
    assert_eq!(
        f,
        IntervalFunction::ExponentialRandomized {
            initial_interval: 200,
            multiplier: 1.5,
            randomization_factor: 0.5,
            max_interval: None,
        }
    );
    assert!(serde_json::from_str::<IntervalFunction>(
        r#"{"type": "fixed", "interval": 10, "jitter": true}"#
    )
    .is_err());
    let back: IntervalFunction = serde_json::from_value(serde_json::to_value(f).unwrap()).unwrap();
    assert_eq!(back, f);
}

// =======================================================================================
// Jitter
// =======================================================================================

fn backoff(jitter: Jitter, cap: Option<Millis>) -> Backoff {
    Backoff {
        base: 1_000,
        multiplier: 2.0,
        cap,
        jitter,
    }
}

#[test]
fn backoff_without_jitter_doubles_until_the_cap() {
    let b = backoff(Jitter::None, Some(10_000));
    let mut r = rng(1);
    let waits: Vec<Millis> = (1..=6).map(|k| b.next_wait(k, 0, &mut r)).collect();
    assert_eq!(waits, vec![1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
}

#[test]
fn full_jitter_is_uniform_between_zero_and_the_backoff() {
    let b = backoff(Jitter::Full, None);
    let mut r = rng(2);
    let draws: Vec<Millis> = (0..5_000).map(|_| b.next_wait(3, 0, &mut r)).collect();
    assert!(draws.iter().all(|&d| d <= 4_000));
    let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
    assert!((mean - 2_000.0).abs() < 80.0, "mean {mean}");
}

#[test]
fn equal_jitter_keeps_half_the_backoff() {
    let b = backoff(Jitter::Equal, None);
    let mut r = rng(3);
    let draws: Vec<Millis> = (0..5_000).map(|_| b.next_wait(3, 0, &mut r)).collect();
    assert!(draws.iter().all(|&d| (2_000..=4_000).contains(&d)));
    let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
    assert!((mean - 3_000.0).abs() < 50.0, "mean {mean}");
}

#[test]
fn decorrelated_jitter_grows_from_the_previous_wait_and_is_capped() {
    let b = backoff(Jitter::Decorrelated, Some(5_000));
    let mut r = rng(4);
    // First retry: the previous wait counts as the base: [1000, 3000].
    for _ in 0..1_000 {
        let w = b.next_wait(1, 0, &mut r);
        assert!((1_000..=3_000).contains(&w), "{w}");
    }
    // After a 1 200 ms wait: [1000, 3600]; after 4 000: [1000, 12000] capped at 5000.
    for _ in 0..1_000 {
        let w = b.next_wait(2, 1_200, &mut r);
        assert!((1_000..=3_600).contains(&w), "{w}");
        let w = b.next_wait(3, 4_000, &mut r);
        assert!((1_000..=5_000).contains(&w), "{w}");
    }
    assert_eq!(b.bounds(3, 4_000), (1_000, 5_000));
}

#[test]
fn jitter_is_reproducible_from_the_seed() {
    let b = backoff(Jitter::Full, None);
    let run = |seed| {
        let mut r = rng(seed);
        (1..=10)
            .map(|k| b.next_wait(k, 0, &mut r))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42), run(43));
}

#[test]
fn backoff_validation_and_serde() {
    assert!(Backoff::default().validate().is_ok());
    assert_eq!(
        Backoff {
            base: 0,
            ..Backoff::default()
        }
        .validate()
        .unwrap_err()
        .field,
        "base"
    );
    assert_eq!(
        Backoff {
            multiplier: 0.5,
            ..Backoff::default()
        }
        .validate()
        .unwrap_err()
        .field,
        "multiplier"
    );
    assert_eq!(
        Backoff {
            cap: Some(10),
            ..Backoff::default()
        }
        .validate()
        .unwrap_err()
        .field,
        "cap"
    );
    let b: Backoff =
        serde_json::from_str(r#"{"base": "1s", "multiplier": 2, "jitter": "decorrelated"}"#)
            .unwrap();
    assert_eq!(b, backoff(Jitter::Decorrelated, None));
}

// =======================================================================================
// Retry
// =======================================================================================

#[test]
fn retry_defaults_are_resilience4j_defaults() {
    let c = RetryConfig::default();
    assert_eq!(c.max_attempts, 3);
    assert_eq!(c.wait_duration, 500);
    assert!(c.interval_function.is_none());
    assert!(c.retry_exceptions.is_empty() && c.ignore_exceptions.is_empty());
    assert!(!c.fail_after_max_attempts);
    assert!(!c.retry_on_local_refusals);
    assert!(c.validate().is_ok());
}

/// RetryImplTest.shouldReturnAfterThreeAttempts: maxAttempts 3 means 3 calls.
#[test]
fn max_attempts_counts_the_first_call() {
    let mut retry = retry(RetryConfig::default());
    let mut r = rng(1);
    let mut ctx = retry.start();
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r),
        RetryDecision::RetryAfter {
            wait: 500,
            attempt: 2
        }
    );
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r),
        RetryDecision::RetryAfter {
            wait: 500,
            attempt: 3
        }
    );
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::ConnectFailure, &mut r),
        RetryDecision::GiveUp {
            attempts: 3,
            last: Outcome::ConnectFailure
        }
    );
    assert_eq!(ctx.attempts(), 3);
    let m = retry.metrics();
    assert_eq!(m.failed_calls_with_retry, 1);
    assert_eq!(m.total_attempts, 3);
}

/// RetryImplTest.shouldNotRetry / shouldRetryOnce (success after a retry).
#[test]
fn success_ends_the_call_and_counts_like_resilience4j() {
    let mut retry = retry(RetryConfig::default());
    let mut r = rng(1);

    let mut first = retry.start();
    assert_eq!(
        retry.on_outcome(&mut first, Outcome::Success, &mut r),
        RetryDecision::Done { attempts: 1 }
    );
    let mut second = retry.start();
    retry.on_outcome(&mut second, Outcome::ReadTimeout, &mut r);
    assert_eq!(
        retry.on_outcome(&mut second, Outcome::SlowSuccess, &mut r),
        RetryDecision::Done { attempts: 2 }
    );
    assert_eq!(
        retry.metrics(),
        RetryMetrics {
            successful_calls_without_retry: 1,
            successful_calls_with_retry: 1,
            failed_calls_without_retry: 0,
            failed_calls_with_retry: 0,
            total_attempts: 3,
        }
    );
}

#[test]
fn max_attempts_one_never_retries_but_counts_as_failed_with_retry() {
    // Resilience4j's RetryImpl: a retryable failure with numOfAttempts >= maxAttempts
    // increments failedAfterRetryCounter, even when no retry was made.
    let mut retry = retry(RetryConfig {
        max_attempts: 1,
        ..RetryConfig::default()
    });
    let mut ctx = retry.start();
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut rng(1)),
        RetryDecision::GiveUp {
            attempts: 1,
            last: Outcome::Http5xx
        }
    );
    assert_eq!(retry.metrics().failed_calls_with_retry, 1);
}

#[test]
fn waits_follow_the_interval_function_of_the_failed_attempt() {
    let mut retry = retry(RetryConfig {
        max_attempts: 5,
        interval_function: Some(IntervalFunction::Exponential {
            initial_interval: 500,
            multiplier: 1.5,
            max_interval: None,
        }),
        ..RetryConfig::default()
    });
    let mut r = rng(1);
    let mut ctx = retry.start();
    let mut waits = Vec::new();
    loop {
        match retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r) {
            RetryDecision::RetryAfter { wait, .. } => waits.push(wait),
            RetryDecision::GiveUp { attempts, .. } => {
                assert_eq!(attempts, 5);
                break;
            }
            RetryDecision::Done { .. } => unreachable!(),
        }
    }
    // interval(1..=4): the wait after attempt k failed.
    assert_eq!(waits, vec![500, 750, 1125, 1687]);
}

#[test]
fn zero_wait_duration_retries_at_once() {
    let retry = retry(RetryConfig {
        wait_duration: 0,
        ..RetryConfig::default()
    });
    let mut ctx = retry.start();
    assert_eq!(
        ctx.on_outcome(Outcome::Http5xx, &mut rng(1)),
        RetryDecision::RetryAfter {
            wait: 0,
            attempt: 2
        }
    );
}

#[test]
fn a_decline_is_never_retried_even_when_listed() {
    let retry = retry(RetryConfig {
        retry_exceptions: names(&["CardDeclinedException", "RuntimeException"]),
        retry_on_local_refusals: true,
        ..RetryConfig::default()
    });
    assert_eq!(
        retry.classify(Outcome::BusinessError),
        RetryClass::NotRetried(NotRetriedReason::BusinessError)
    );
    let mut ctx = retry.start();
    assert_eq!(
        ctx.on_outcome(Outcome::BusinessError, &mut rng(1)),
        RetryDecision::GiveUp {
            attempts: 1,
            last: Outcome::BusinessError
        }
    );
}

#[test]
fn local_refusals_are_never_retried_by_default() {
    let retry = retry(RetryConfig::default());
    for refusal in [
        Outcome::CallNotPermitted,
        Outcome::BulkheadFull,
        Outcome::NoFreeThread,
    ] {
        assert_eq!(
            retry.classify(refusal),
            RetryClass::NotRetried(NotRetriedReason::LocalRefusal),
            "{refusal:?}"
        );
        let mut ctx = retry.start();
        assert_eq!(
            ctx.on_outcome(refusal, &mut rng(1)),
            RetryDecision::GiveUp {
                attempts: 1,
                last: refusal
            }
        );
    }
}

#[test]
fn lab_c_switch_retries_local_refusals_like_plain_resilience4j() {
    let mut misconfigured = retry(RetryConfig {
        retry_on_local_refusals: true,
        ..RetryConfig::default()
    });
    let mut r = rng(1);
    let mut ctx = misconfigured.start();
    assert!(matches!(
        misconfigured.on_outcome(&mut ctx, Outcome::BulkheadFull, &mut r),
        RetryDecision::RetryAfter { attempt: 2, .. }
    ));
    assert!(matches!(
        misconfigured.on_outcome(&mut ctx, Outcome::CallNotPermitted, &mut r),
        RetryDecision::RetryAfter { attempt: 3, .. }
    ));
    assert_eq!(
        misconfigured.on_outcome(&mut ctx, Outcome::BulkheadFull, &mut r),
        RetryDecision::GiveUp {
            attempts: 3,
            last: Outcome::BulkheadFull
        }
    );
    // With the switch on, Resilience4j's own ignoreExceptions still applies.
    let fixed = retry(RetryConfig {
        retry_on_local_refusals: true,
        ignore_exceptions: names(&["BulkheadFullException"]),
        ..RetryConfig::default()
    });
    assert_eq!(
        fixed.classify(Outcome::BulkheadFull),
        RetryClass::NotRetried(NotRetriedReason::Ignored)
    );
    assert!(fixed.is_retryable(Outcome::CallNotPermitted));
}

#[test]
fn an_open_breaker_ends_the_remaining_attempts() {
    // Each attempt is a call for the breaker; once it opens, the next attempt is refused
    // locally and the guard stops there.
    let retry = retry(RetryConfig::default());
    let mut r = rng(1);
    let mut ctx = retry.start();
    assert!(matches!(
        ctx.on_outcome(Outcome::Http5xx, &mut r),
        RetryDecision::RetryAfter { .. }
    ));
    assert_eq!(
        ctx.on_outcome(Outcome::CallNotPermitted, &mut r),
        RetryDecision::GiveUp {
            attempts: 2,
            last: Outcome::CallNotPermitted
        }
    );
}

#[test]
fn ignore_wins_over_retry_and_superclasses_match() {
    let retry = retry(RetryConfig {
        retry_exceptions: names(&["java.io.IOException"]),
        ignore_exceptions: names(&["SocketTimeoutException"]),
        ..RetryConfig::default()
    });
    // ConnectException extends SocketException extends IOException: retried.
    assert!(retry.is_retryable(Outcome::ConnectFailure));
    // SocketTimeoutException is an IOException too, but ignored: ignore wins.
    assert_eq!(
        retry.classify(Outcome::ReadTimeout),
        RetryClass::NotRetried(NotRetriedReason::Ignored)
    );
    // HttpServerErrorException is not an IOException.
    assert_eq!(
        retry.classify(Outcome::Http5xx),
        RetryClass::NotRetried(NotRetriedReason::NotInRetryExceptions)
    );
    assert_eq!(retry.classify(Outcome::Success), RetryClass::Success);
}

#[test]
fn empty_retry_exceptions_retry_everything_not_ignored() {
    let retry = retry(RetryConfig {
        ignore_exceptions: names(&["RestClientException"]),
        ..RetryConfig::default()
    });
    assert!(retry.is_retryable(Outcome::ConnectFailure));
    assert!(retry.is_retryable(Outcome::ReadTimeout));
    assert!(
        !retry.is_retryable(Outcome::Http5xx),
        "HttpServerErrorException is a RestClientException"
    );
}

/// Resilience4j counts a non-retryable failure as "failed without retry" even after retries.
#[test]
fn non_retryable_failure_after_retries_counts_as_failed_without_retry() {
    let mut retry = retry(RetryConfig::default());
    let mut r = rng(1);
    let mut ctx = retry.start();
    retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r);
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::BusinessError, &mut r),
        RetryDecision::GiveUp {
            attempts: 2,
            last: Outcome::BusinessError
        }
    );
    assert_eq!(retry.metrics().failed_calls_without_retry, 1);
    assert_eq!(retry.metrics().failed_calls_with_retry, 0);
}

/// Lab E: a connect failure may be retried once; a read timeout on a capture never.
#[test]
fn lab_e_payment_retry_rules() {
    let mut retry = retry(RetryConfig {
        max_attempts: 2,
        retry_exceptions: names(&["ConnectException"]),
        ignore_exceptions: names(&["SocketTimeoutException", "CardDeclinedException"]),
        ..RetryConfig::default()
    });
    let mut r = rng(1);
    let mut ctx = retry.start();
    assert!(matches!(
        retry.on_outcome(&mut ctx, Outcome::ConnectFailure, &mut r),
        RetryDecision::RetryAfter { attempt: 2, .. }
    ));
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::ConnectFailure, &mut r),
        RetryDecision::GiveUp {
            attempts: 2,
            last: Outcome::ConnectFailure
        }
    );
    let mut ctx = retry.start();
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::ReadTimeout, &mut r),
        RetryDecision::GiveUp {
            attempts: 1,
            last: Outcome::ReadTimeout
        }
    );
    let mut ctx = retry.start();
    assert_eq!(
        retry.on_outcome(&mut ctx, Outcome::BusinessError, &mut r),
        RetryDecision::GiveUp {
            attempts: 1,
            last: Outcome::BusinessError
        }
    );
}

#[test]
fn a_finished_call_ignores_further_reports() {
    let mut retry = retry(RetryConfig::default());
    let mut r = rng(1);
    let mut ctx = retry.start();
    let done = retry.on_outcome(&mut ctx, Outcome::Success, &mut r);
    assert_eq!(retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r), done);
    assert_eq!(ctx.attempts(), 1);
    assert_eq!(retry.metrics().total_attempts, 1);
    assert_eq!(retry.metrics().successful_calls_without_retry, 1);
}

#[test]
fn giving_up_after_a_refused_retry_budget() {
    let mut retry = retry(RetryConfig::default());
    let mut r = rng(1);
    let mut ctx = retry.start();
    assert!(retry.give_up(&mut ctx).is_none(), "no attempt yet");
    retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r);
    assert_eq!(
        retry.give_up(&mut ctx),
        Some(RetryDecision::GiveUp {
            attempts: 1,
            last: Outcome::Http5xx
        })
    );
    assert_eq!(retry.metrics().failed_calls_without_retry, 1);
    // Second call: abandoned after a retry.
    let mut ctx = retry.start();
    retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r);
    retry.on_outcome(&mut ctx, Outcome::Http5xx, &mut r);
    retry.give_up(&mut ctx);
    assert_eq!(retry.metrics().failed_calls_with_retry, 1);
}

#[test]
fn retry_validation_follows_the_builder() {
    let err = RetryConfig {
        max_attempts: 0,
        ..RetryConfig::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(err.field, "maxAttempts");
    let err = RetryConfig {
        retry_exceptions: names(&["ConectException"]),
        ..RetryConfig::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(err.field, "retryExceptions");
    let err = RetryConfig {
        interval_function: Some(IntervalFunction::Fixed { interval: 0 }),
        ..RetryConfig::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(err.field, "waitDuration");
    assert!(Retry::new(RetryConfig {
        max_attempts: 0,
        ..RetryConfig::default()
    })
    .is_err());
}

#[test]
fn retry_config_serde_uses_resilience4j_names() {
    let c: RetryConfig = serde_json::from_str(
        r#"{
            "maxAttempts": 4,
            "waitDuration": "1s",
            "intervalFunction": {"type": "randomized", "interval": "1s", "randomizationFactor": 0.5},
            "retryExceptions": ["java.net.ConnectException"],
            "ignoreExceptions": ["CardDeclinedException"],
            "retryOnLocalRefusals": true
        }"#,
    )
    .unwrap();
    assert_eq!(c.max_attempts, 4);
    assert_eq!(c.wait_duration, 1_000);
    assert!(c.retry_on_local_refusals);
    assert!(c.validate().is_ok());
    assert!(serde_json::from_str::<RetryConfig>(r#"{"maxRetries": 3}"#).is_err());
}

/// The small widget: layers that each retry multiply.
#[test]
fn retries_at_three_layers_multiply_to_27_calls() {
    fn calls_at(depth: u32, layers: u32, attempts: u32) -> u32 {
        // Each layer calls the one below up to `attempts` times; the provider always fails.
        let retry = Retry::new(RetryConfig {
            max_attempts: attempts,
            wait_duration: 0,
            ..RetryConfig::default()
        })
        .unwrap();
        let mut ctx = retry.start();
        let mut total = 0;
        loop {
            total += if depth + 1 == layers {
                1
            } else {
                calls_at(depth + 1, layers, attempts)
            };
            if ctx.on_outcome(Outcome::Http5xx, &mut rng(1)).is_final() {
                return total;
            }
        }
    }
    assert_eq!(calls_at(0, 3, 3), 27);
    assert_eq!(calls_at(0, 1, 3), 3);
}

// =======================================================================================
// Retry budget
// =======================================================================================

#[test]
fn budget_of_ten_percent_allows_one_retry_per_ten_requests() {
    let mut budget = RetryBudget::new(RetryBudgetConfig::percent_of_traffic(10.0)).unwrap();
    for _ in 0..100 {
        budget.deposit(0);
    }
    assert_eq!(budget.balance(0), 10);
    for k in 0..10 {
        assert!(budget.try_withdraw(0), "retry {k}");
    }
    assert!(!budget.try_withdraw(0));
    assert_eq!(budget.withdrawals(), 10);
    assert_eq!(budget.refusals(), 1);
}

#[test]
fn budget_reserve_allows_min_retries_per_second_over_the_ttl() {
    // Finagle's default: 10 retries/s over 10 s = 100 retries with no traffic at all.
    let mut budget = RetryBudget::new(RetryBudgetConfig::default()).unwrap();
    assert_eq!(budget.balance(0), 100);
    let allowed = (0..200).filter(|_| budget.try_withdraw(0)).count();
    assert_eq!(allowed, 100);
}

#[test]
fn budget_deposits_expire_after_the_ttl() {
    let mut budget = RetryBudget::new(RetryBudgetConfig::percent_of_traffic(10.0)).unwrap();
    for _ in 0..100 {
        budget.deposit(0);
    }
    // Ten slices of 1 s: a deposit at 0 counts until 10 s.
    assert_eq!(budget.balance(9_999), 10);
    assert_eq!(budget.balance(10_000), 0);
    assert!(!budget.try_withdraw(10_000));
}

#[test]
fn budget_withdrawals_expire_too() {
    let mut budget = RetryBudget::new(RetryBudgetConfig::percent_of_traffic(10.0)).unwrap();
    for _ in 0..10 {
        budget.deposit(0);
    }
    assert!(budget.try_withdraw(0));
    assert!(!budget.try_withdraw(0));
    // Later traffic earns its own budget, unburdened by the old withdrawal.
    for _ in 0..10 {
        budget.deposit(20_000);
    }
    assert!(budget.try_withdraw(20_000));
}

#[test]
fn empty_budget_never_allows_a_retry() {
    let mut budget = RetryBudget::new(RetryBudgetConfig {
        min_retries_per_second: 0,
        retry_percent: 0.0,
        ..RetryBudgetConfig::default()
    })
    .unwrap();
    for _ in 0..1_000 {
        budget.deposit(0);
    }
    assert!(!budget.try_withdraw(0));
    assert_eq!(budget.balance(0), 0);
}

/// Lab A: 1 000 requests/s all failing, each wanting 3 retries; the budget caps the
/// offered load at 1.1 x normal.
#[test]
fn budget_caps_amplification_at_ten_percent() {
    let mut budget = RetryBudget::new(RetryBudgetConfig::percent_of_traffic(10.0)).unwrap();
    let mut calls = 0u64;
    let mut requests = 0u64;
    for step in 0..600u64 {
        let now = step * 100; // 100 ms steps for 60 s
        for _ in 0..100 {
            budget.deposit(now);
            requests += 1;
            calls += 1;
            for _ in 0..3 {
                if budget.try_withdraw(now) {
                    calls += 1;
                } else {
                    break;
                }
            }
        }
    }
    let amplification = calls as f64 / requests as f64;
    assert!(amplification <= 1.1 + 1e-9, "{amplification}");
    assert!(amplification > 1.09, "{amplification}");
}

#[test]
fn budget_validation() {
    let bad_ttl = RetryBudgetConfig {
        ttl: 500,
        ..RetryBudgetConfig::default()
    };
    assert_eq!(bad_ttl.validate().unwrap_err().field, "ttl");
    let bad_percent = RetryBudgetConfig {
        retry_percent: -1.0,
        ..RetryBudgetConfig::default()
    };
    assert_eq!(bad_percent.validate().unwrap_err().field, "retryPercent");
    let c: RetryBudgetConfig =
        serde_json::from_str(r#"{"ttl": "10s", "minRetriesPerSecond": 0, "retryPercent": 10}"#)
            .unwrap();
    assert_eq!(c, RetryBudgetConfig::percent_of_traffic(10.0));
}

// =======================================================================================
// Time limiter
// =======================================================================================

#[test]
fn time_limiter_defaults() {
    let c = TimeLimiterConfig::default();
    assert_eq!(c.timeout_duration, 1_000);
    assert!(c.cancel_running_future);
    assert!(c.validate().is_ok());
}

#[test]
fn time_limiter_times_out_calls_strictly_longer_than_the_timeout() {
    let c = TimeLimiterConfig::default();
    assert_eq!(c.outcome(80), TimeLimit::Completed);
    assert_eq!(c.outcome(1_000), TimeLimit::Completed);
    assert_eq!(c.outcome(1_001), TimeLimit::TimedOut { at: 1_000 });
    assert_eq!(c.outcome(4_000), TimeLimit::TimedOut { at: 1_000 });
    assert_eq!(c.deadline(9_000), 10_000);
}

#[test]
fn a_time_limiter_stops_waiting_but_a_read_timeout_frees_the_resource() {
    let limiter = TimeLimiterConfig {
        timeout_duration: 300,
        cancel_running_future: true,
    };
    assert_eq!(limiter.kind(), TimeoutKind::StopWaiting);
    assert!(!limiter.releases_resource());
    let stop = limiter.as_timeout();
    let read = Timeout::read_timeout(300);
    // Lab C: pricing answers in 4 s. Both callers get their answer (a timeout) at 300 ms...
    assert_eq!(stop.outcome(4_000), TimeLimit::TimedOut { at: 300 });
    assert_eq!(read.outcome(4_000), TimeLimit::TimedOut { at: 300 });
    // ...but only the read timeout gives the thread back then.
    assert_eq!(stop.resource_freed_at(1_000, 4_000), 5_000);
    assert_eq!(read.resource_freed_at(1_000, 4_000), 1_300);
    assert_eq!(read.resource_freed_at(1_000, 80), 1_080);
    assert_eq!(Timeout::stop_waiting(300), stop);
}

#[test]
fn time_limiter_serde() {
    let c: TimeLimiterConfig =
        serde_json::from_str(r#"{"timeoutDuration": "300ms", "cancelRunningFuture": false}"#)
            .unwrap();
    assert_eq!(c.timeout_duration, 300);
    assert!(!c.cancel_running_future);
    assert!(serde_json::from_str::<TimeLimiterConfig>(r#"{"timeout": 300}"#).is_err());
    let t: Timeout = serde_json::from_str(r#"{"duration": "1s", "kind": "readTimeout"}"#).unwrap();
    assert_eq!(t, Timeout::read_timeout(1_000));
}

// =======================================================================================
// Fallback
// =======================================================================================

#[test]
fn fallback_cache_serves_only_fresh_values() {
    let mut cache = FallbackCache::new(30_000);
    cache.put(1_000, "sku-1", 1999u32);
    assert_eq!(cache.get(1_000, &"sku-1"), Some(&1999));
    // Fresh while now < stored + ttl.
    assert_eq!(cache.get(30_999, &"sku-1"), Some(&1999));
    assert_eq!(cache.get(31_000, &"sku-1"), None);
    assert_eq!(cache.get(31_000, &"sku-2"), None);
    assert_eq!(cache.hits(), 2);
    assert_eq!(cache.misses(), 2);
    assert_eq!(cache.stale_misses(), 1);
    assert_eq!(cache.hit_rate(), Some(0.5));
}

#[test]
fn fallback_cache_refresh_restarts_the_ttl() {
    let mut cache = FallbackCache::new(1_000);
    cache.put(0, 7u8, "old");
    cache.put(900, 7u8, "new");
    assert_eq!(cache.peek(1_500, &7), Some(&"new"));
    assert_eq!(cache.stored_at(&7), Some(900));
    assert_eq!(cache.hits() + cache.misses(), 0, "peek does not count");
    assert_eq!(cache.fresh_len(1_900), 0);
    cache.purge_expired(1_900);
    assert!(cache.is_empty());
    assert_eq!(cache.hit_rate(), None);
}

#[test]
fn payment_never_falls_back_to_captured() {
    for fallback in [
        PaymentFallback::Uncertain,
        PaymentFallback::TypedError("PaymentUnavailable".into()),
    ] {
        assert_ne!(fallback.status(), PaymentStatus::Captured);
        let value = FallbackValue::from(fallback.clone());
        assert!(!value.describe().to_lowercase().contains("captured"));
    }
    assert_eq!(
        PaymentFallback::Uncertain.status(),
        PaymentStatus::Uncertain
    );
}

#[test]
fn fallback_values_are_described_in_plain_words() {
    assert!(FallbackValue::CachedList.describe().contains("cache"));
    assert!(FallbackValue::Uncertain.describe().contains("uncertain"));
    assert!(FallbackValue::Estimate.describe().contains("estimate"));
    assert!(FallbackValue::TypedError("QuoteUnavailable".into())
        .describe()
        .contains("QuoteUnavailable"));
    assert_eq!(
        FallbackValue::from(ShippingFallback::AgreedEstimate),
        FallbackValue::Estimate
    );
    assert!(ShippingFallback::HideQuote.describe().contains("hid"));
}

// =======================================================================================
// Decorator order
// =======================================================================================

#[test]
fn default_order_is_resilience4j_default() {
    let order = DecoratorOrder::default();
    assert_eq!(
        order.as_slice(),
        &[
            Decorator::Retry,
            Decorator::CircuitBreaker,
            Decorator::RateLimiter,
            Decorator::TimeLimiter,
            Decorator::Bulkhead
        ]
    );
    assert_eq!(
        order.to_string(),
        "Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call)))))"
    );
    assert!(order.is_outside(Decorator::Retry, Decorator::CircuitBreaker));
    assert!(order.is_outside(Decorator::TimeLimiter, Decorator::Bulkhead));
    assert!(!order.is_outside(Decorator::Bulkhead, Decorator::Retry));
    assert!(order.breaker_sees_each_attempt());
    assert_eq!(order.position(Decorator::Retry), Some(0));
    assert_eq!(order.position(Decorator::Bulkhead), Some(4));
}

#[test]
fn each_decorator_at_most_once() {
    let err = DecoratorOrder::new(vec![
        Decorator::Retry,
        Decorator::Bulkhead,
        Decorator::Retry,
    ])
    .unwrap_err();
    assert_eq!(err.field, "decoratorOrder");
    let lab_e = DecoratorOrder::new(vec![
        Decorator::Retry,
        Decorator::CircuitBreaker,
        Decorator::Bulkhead,
    ])
    .unwrap();
    assert_eq!(lab_e.to_string(), "Retry(CircuitBreaker(Bulkhead(call)))");
    assert_eq!(lab_e.position(Decorator::RateLimiter), None);
    assert!(!lab_e.is_outside(Decorator::RateLimiter, Decorator::Bulkhead));
    let wrong = DecoratorOrder::new(vec![Decorator::CircuitBreaker, Decorator::Retry]).unwrap();
    assert!(!wrong.breaker_sees_each_attempt());
    assert_eq!(DecoratorOrder::new(vec![]).unwrap().to_string(), "call");
}

#[test]
fn decorator_order_serde_is_a_list_of_names() {
    let order: DecoratorOrder =
        serde_json::from_str(r#"["Retry", "circuitBreaker", "Bulkhead"]"#).unwrap();
    assert_eq!(order.to_string(), "Retry(CircuitBreaker(Bulkhead(call)))");
    assert_eq!(
        serde_json::to_string(&order).unwrap(),
        r#"["Retry","CircuitBreaker","Bulkhead"]"#
    );
    assert!(serde_json::from_str::<DecoratorOrder>(r#"["Retry", "Retry"]"#).is_err());
    assert!(serde_json::from_str::<DecoratorOrder>(r#"["Cache"]"#).is_err());
}
