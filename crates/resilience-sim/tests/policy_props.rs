//! Properties of the bulkheads, interval functions and retry, over random configurations
//! and random sequences of operations (10 000 cases each).

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use resilience_sim::policy::bulkhead::{
    Admission, BulkheadConfig, SemaphoreBulkhead, ThreadPoolAdmission, ThreadPoolBulkhead,
    ThreadPoolBulkheadConfig, WaiterId,
};
use resilience_sim::policy::retry::{
    Backoff, IntervalFunction, Jitter, Retry, RetryBudget, RetryBudgetConfig, RetryConfig,
    RetryDecision,
};
use resilience_sim::{Millis, Outcome};

#[derive(Debug, Clone)]
enum SemaphoreOp {
    Acquire,
    Release,
    Expire,
    Cancel(usize),
    Advance(Millis),
}

fn semaphore_op() -> impl Strategy<Value = SemaphoreOp> {
    prop_oneof![
        4 => Just(SemaphoreOp::Acquire),
        3 => Just(SemaphoreOp::Release),
        2 => Just(SemaphoreOp::Expire),
        1 => (0usize..8).prop_map(SemaphoreOp::Cancel),
        3 => (0u64..40).prop_map(SemaphoreOp::Advance),
    ]
}

/// A semaphore bulkhead written the plain way (every operation scans everyone waiting):
/// the reference the engine's, which retires expired waiters from the front, must match.
struct PlainSemaphore {
    max: u32,
    in_use: u32,
    next: u64,
    waiters: Vec<(u64, Millis)>,
    expired: Vec<u64>,
    rejected: u64,
}

impl PlainSemaphore {
    fn retire(&mut self, now: Millis) {
        let before = self.waiters.len();
        for &(id, deadline) in &self.waiters {
            if deadline <= now {
                self.expired.push(id);
            }
        }
        self.waiters.retain(|w| w.1 > now);
        self.rejected += (before - self.waiters.len()) as u64;
    }
    fn acquire(&mut self, now: Millis, wait: Millis) -> Admission {
        self.retire(now);
        if self.waiters.is_empty() && self.in_use < self.max {
            self.in_use += 1;
            return Admission::Permitted;
        }
        if wait == 0 {
            self.rejected += 1;
            return Admission::Rejected;
        }
        self.waiters.push((self.next, now + wait));
        self.next += 1;
        Admission::Waiting(WaiterId(self.next - 1))
    }
    fn release(&mut self, now: Millis) -> Vec<WaiterId> {
        self.retire(now);
        if self.in_use == 0 {
            return Vec::new();
        }
        if self.waiters.is_empty() {
            self.in_use -= 1;
            Vec::new()
        } else {
            vec![WaiterId(self.waiters.remove(0).0)]
        }
    }
}

#[derive(Debug, Clone)]
enum PoolOp {
    Submit,
    Complete,
    Advance(Millis),
}

fn pool_op() -> impl Strategy<Value = PoolOp> {
    prop_oneof![
        5 => Just(PoolOp::Submit),
        4 => Just(PoolOp::Complete),
        2 => (0u64..30).prop_map(PoolOp::Advance),
    ]
}

fn interval_function() -> impl Strategy<Value = IntervalFunction> {
    let interval = 1u64..20_000;
    let multiplier = 1.0f64..3.0;
    let factor = 0.0f64..=1.0;
    let max = proptest::option::of(1u64..100_000);
    prop_oneof![
        interval
            .clone()
            .prop_map(|interval| IntervalFunction::Fixed { interval }),
        (interval.clone(), multiplier.clone(), max.clone()).prop_map(|(i, m, max)| {
            IntervalFunction::Exponential {
                initial_interval: i,
                multiplier: m,
                max_interval: max,
            }
        }),
        (interval.clone(), factor.clone()).prop_map(|(i, r)| IntervalFunction::Randomized {
            interval: i,
            randomization_factor: r,
        }),
        (interval, multiplier, factor, max).prop_map(|(i, m, r, max)| {
            IntervalFunction::ExponentialRandomized {
                initial_interval: i,
                multiplier: m,
                randomization_factor: r,
                max_interval: max,
            }
        }),
    ]
}

const EXCEPTION_NAMES: [&str; 8] = [
    "ConnectException",
    "SocketTimeoutException",
    "IOException",
    "HttpServerErrorException",
    "BulkheadFullException",
    "CallNotPermittedException",
    "CardDeclinedException",
    "RuntimeException",
];

fn name_list() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(proptest::sample::select(&EXCEPTION_NAMES[..]), 0..3)
        .prop_map(|v| v.into_iter().map(String::from).collect())
}

fn outcome() -> impl Strategy<Value = Outcome> {
    proptest::sample::select(&Outcome::ALL[..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Callers with waits of their own (a script's), so deadlines out of arrival order: the
    /// engine's bulkhead grants, expires and cancels exactly as the plain one does.
    #[test]
    fn semaphore_with_waits_of_its_callers_matches_the_plain_one(
        max in 0u32..3,
        ops in proptest::collection::vec((semaphore_op(), 0u64..30), 1..120),
    ) {
        let mut b = SemaphoreBulkhead::new(BulkheadConfig {
            max_concurrent_calls: max,
            max_wait_duration: 0,
        })
        .unwrap();
        let mut plain = PlainSemaphore {
            max,
            in_use: 0,
            next: 0,
            waiters: Vec::new(),
            expired: Vec::new(),
            rejected: 0,
        };
        let mut now: Millis = 0;
        for (op, wait) in ops {
            match op {
                SemaphoreOp::Acquire => prop_assert_eq!(
                    b.try_acquire_waiting_at_most(now, wait),
                    plain.acquire(now, wait)
                ),
                SemaphoreOp::Release => prop_assert_eq!(b.release(now), plain.release(now)),
                SemaphoreOp::Expire => {
                    plain.retire(now);
                    let expired: Vec<WaiterId> =
                        plain.expired.drain(..).map(WaiterId).collect();
                    prop_assert_eq!(b.expire_waiters(now), expired);
                }
                SemaphoreOp::Cancel(k) => {
                    // Cancelling takes no time: a waiter whose wait ran out but that no
                    // operation has retired yet is still withdrawn.
                    if let Some(&(id, _)) = plain.waiters.get(k) {
                        prop_assert!(b.cancel(WaiterId(id)));
                        plain.waiters.remove(k);
                        prop_assert!(!b.cancel(WaiterId(id)));
                    }
                }
                SemaphoreOp::Advance(dt) => now += dt,
            }
            let earliest = plain.waiters.iter().filter(|w| w.1 > now).map(|w| w.1).min();
            let engine_earliest = b.next_deadline().filter(|d| *d > now);
            if b.waiting() == plain.waiters.iter().filter(|w| w.1 > now).count() {
                prop_assert_eq!(engine_earliest, earliest);
            }
            prop_assert_eq!(b.in_use(), plain.in_use);
        }
        let end = now + 100;
        plain.retire(end);
        let expired: Vec<WaiterId> = plain.expired.drain(..).map(WaiterId).collect();
        prop_assert_eq!(b.expire_waiters(end), expired);
        prop_assert_eq!(b.rejected_calls(), plain.rejected);
    }

    /// Permits stay within [0, max]; a permit is never free while someone waits; every
    /// waiter ends exactly once (permitted by a release, rejected by expiry, or cancelled).
    #[test]
    fn semaphore_permits_stay_in_bounds_and_every_waiter_ends_once(
        max in 0u32..5,
        wait in prop_oneof![Just(0u64), 1u64..60],
        ops in proptest::collection::vec(semaphore_op(), 1..60),
    ) {
        let mut b = SemaphoreBulkhead::new(BulkheadConfig {
            max_concurrent_calls: max,
            max_wait_duration: wait,
        }).unwrap();
        let mut now: Millis = 0;
        let mut holders: u32 = 0;
        let mut waiting: Vec<WaiterId> = Vec::new();
        let mut ended: HashSet<WaiterId> = HashSet::new();
        let mut issued: HashSet<WaiterId> = HashSet::new();
        let end = |id: WaiterId, waiting: &mut Vec<WaiterId>, ended: &mut HashSet<WaiterId>| {
            prop_assert!(ended.insert(id), "waiter {:?} ended twice", id);
            let index = waiting.iter().position(|w| *w == id);
            prop_assert!(index.is_some(), "waiter {:?} was not waiting", id);
            waiting.remove(index.unwrap());
            Ok(())
        };
        for op in ops {
            match op {
                SemaphoreOp::Acquire => match b.try_acquire(now) {
                    Admission::Permitted => holders += 1,
                    Admission::Waiting(id) => {
                        prop_assert!(wait > 0);
                        prop_assert!(issued.insert(id));
                        waiting.push(id);
                    }
                    Admission::Rejected => {}
                },
                SemaphoreOp::Release => {
                    let had = holders;
                    let granted = b.release(now);
                    prop_assert!(granted.len() <= 1);
                    if had == 0 {
                        prop_assert!(granted.is_empty());
                    } else if granted.is_empty() {
                        holders -= 1;
                    }
                    for id in granted {
                        end(id, &mut waiting, &mut ended)?;
                    }
                }
                SemaphoreOp::Expire => {
                    for id in b.expire_waiters(now) {
                        end(id, &mut waiting, &mut ended)?;
                    }
                }
                SemaphoreOp::Cancel(k) => {
                    if let Some(&id) = waiting.get(k) {
                        // False when its wait already ran out: expire_waiters reports it.
                        if b.cancel(id) {
                            end(id, &mut waiting, &mut ended)?;
                        }
                    }
                }
                SemaphoreOp::Advance(dt) => now += dt,
            }
            prop_assert!(b.in_use() <= b.max());
            prop_assert_eq!(b.in_use(), holders);
            prop_assert_eq!(b.available_permits(), max - holders);
            if b.waiting() > 0 {
                prop_assert_eq!(b.available_permits(), 0, "a free permit while waiting");
            }
            prop_assert!(b.waiting() <= waiting.len());
        }
        // Let every wait run out: each remaining waiter ends now, exactly once.
        for id in b.expire_waiters(now + wait + 1) {
            end(id, &mut waiting, &mut ended)?;
        }
        prop_assert!(waiting.is_empty(), "waiters never ended: {:?}", waiting);
        prop_assert_eq!(ended.len(), issued.len());
    }

    /// Counts never exceed the pool's capacity; every submitted task ends exactly once.
    #[test]
    fn thread_pool_counts_stay_within_capacity_and_every_task_ends_once(
        core in 1u32..4,
        extra in 0u32..3,
        queue in 0u32..4,
        keep_alive in 0u64..30,
        ops in proptest::collection::vec(pool_op(), 1..80),
    ) {
        let config = ThreadPoolBulkheadConfig {
            core_thread_pool_size: core,
            max_thread_pool_size: core + extra,
            queue_capacity: queue,
            keep_alive_duration: keep_alive,
        };
        let mut p = ThreadPoolBulkhead::new(config).unwrap();
        let mut now: Millis = 0;
        let (mut running, mut queued, mut finished, mut admitted) = (0u64, 0u64, 0u64, 0u64);
        for op in ops {
            match op {
                PoolOp::Submit => match p.submit(now) {
                    ThreadPoolAdmission::Running => { running += 1; admitted += 1; }
                    ThreadPoolAdmission::Queued => { queued += 1; admitted += 1; }
                    ThreadPoolAdmission::Rejected => {
                        // Rejected only when full: every thread busy at max, queue full.
                        prop_assert_eq!(u64::from(p.active_threads()) + u64::from(p.queue_depth()), p.capacity());
                    }
                },
                PoolOp::Complete => {
                    let was_running = running;
                    let started = p.complete(now);
                    if was_running > 0 {
                        finished += 1;
                        if started {
                            prop_assert!(queued > 0);
                            queued -= 1;
                        } else {
                            running -= 1;
                        }
                    } else {
                        prop_assert!(!started);
                    }
                }
                PoolOp::Advance(dt) => now += dt,
            }
            prop_assert_eq!(u64::from(p.active_threads()), running);
            prop_assert_eq!(u64::from(p.queue_depth()), queued);
            prop_assert!(p.active_threads() <= p.pool_size());
            prop_assert!(p.pool_size() <= core + extra);
            prop_assert!(p.queue_depth() <= queue);
            prop_assert!(running + queued <= p.capacity());
            if queued > 0 {
                prop_assert_eq!(p.active_threads(), p.pool_size(), "a task queued beside an idle thread");
            }
        }
        // Drain: every admitted task ends exactly once.
        while p.active_threads() > 0 {
            let started = p.complete(now);
            finished += 1;
            if started { queued -= 1; } else { running -= 1; }
        }
        prop_assert_eq!(queued, 0);
        prop_assert_eq!(running, 0);
        prop_assert_eq!(finished, admitted);
        prop_assert_eq!(p.completed_tasks(), admitted);
        prop_assert_eq!(p.admitted_tasks(), admitted);
    }

    /// Every interval lies within the bounds the rules give, computed here independently.
    #[test]
    fn intervals_stay_within_their_bounds(
        f in interval_function(),
        attempt in 1u32..40,
        seed in any::<u64>(),
    ) {
        prop_assert!(f.validate().is_ok());
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let value = f.interval(attempt, &mut rng);
        let cap = |v: u64, max: Option<u64>| max.map_or(v, |m| v.min(m));
        // The exponential centre, truncated at every step.
        let centre = |initial: u64, multiplier: f64| {
            let mut c = initial;
            for _ in 1..attempt {
                // Java's (long) cast saturates at Long.MAX_VALUE.
                c = (((c as f64) * multiplier) as u64).min(i64::MAX as u64);
            }
            c
        };
        let randomized = |c: u64, r: f64| {
            let c = c as f64;
            let low = ((c - r * c).floor() as u64).clamp(1, i64::MAX as u64);
            // Java's (long) saturates at Long.MAX_VALUE.
            let high = ((c + r * c).ceil() as u64).min(i64::MAX as u64);
            (low, high.max(low))
        };
        let (low, high) = match f {
            IntervalFunction::Fixed { interval } => (interval, interval),
            IntervalFunction::Exponential { initial_interval, multiplier, max_interval } => {
                let v = cap(centre(initial_interval, multiplier), max_interval);
                (v, v)
            }
            IntervalFunction::Randomized { interval, randomization_factor } => {
                randomized(interval, randomization_factor)
            }
            IntervalFunction::ExponentialRandomized { initial_interval, multiplier, randomization_factor, max_interval } => {
                let (l, h) = randomized(centre(initial_interval, multiplier), randomization_factor);
                (cap(l, max_interval), cap(h, max_interval))
            }
        };
        prop_assert!(value >= low && value <= high, "{} not in [{}, {}] for {:?}", value, low, high, f);
        prop_assert_eq!(f.bounds(attempt), (low, high));
    }

    /// Jittered waits stay within their mode's range.
    #[test]
    fn jittered_waits_stay_within_bounds(
        base in 1u64..5_000,
        multiplier in 1.0f64..3.0,
        cap_extra in proptest::option::of(0u64..100_000),
        jitter in proptest::sample::select(&Jitter::ALL[..]),
        attempt in 1u32..20,
        previous in 0u64..50_000,
        seed in any::<u64>(),
    ) {
        let backoff = Backoff { base, multiplier, cap: cap_extra.map(|c| base + c), jitter };
        prop_assert!(backoff.validate().is_ok());
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let wait = backoff.next_wait(attempt, previous, &mut rng);
        let full = backoff.backoff(attempt);
        let cap = backoff.cap.unwrap_or(u64::MAX);
        prop_assert!(full <= cap);
        match jitter {
            Jitter::None => prop_assert_eq!(wait, full),
            Jitter::Full => prop_assert!(wait <= full),
            Jitter::Equal => prop_assert!(wait >= full / 2 && wait <= full),
            Jitter::Decorrelated => {
                let upper = previous.max(base).saturating_mul(3).min(cap);
                prop_assert!(wait >= base.min(cap) && wait <= upper);
            }
        }
    }

    /// A retry never makes more than maxAttempts calls, never retries a decline, never
    /// retries a local refusal unless switched on, and every call is counted once.
    #[test]
    fn retry_respects_max_attempts_and_never_retries_forbidden_outcomes(
        max_attempts in 1u32..6,
        retry_exceptions in name_list(),
        ignore_exceptions in name_list(),
        retry_on_local_refusals in any::<bool>(),
        calls in proptest::collection::vec(proptest::collection::vec(outcome(), 1..10), 1..6),
        seed in any::<u64>(),
    ) {
        let mut retry = Retry::new(RetryConfig {
            max_attempts,
            retry_exceptions,
            ignore_exceptions,
            retry_on_local_refusals,
            ..RetryConfig::default()
        }).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut attempts_total = 0u64;
        for outcomes in &calls {
            let mut ctx = retry.start();
            let mut made = 0u32;
            let mut finished = false;
            for &outcome in outcomes {
                made += 1;
                attempts_total += 1;
                prop_assert!(made <= max_attempts);
                match retry.on_outcome(&mut ctx, outcome, &mut rng) {
                    RetryDecision::RetryAfter { attempt, wait } => {
                        prop_assert!(!outcome.is_success());
                        prop_assert!(outcome != Outcome::BusinessError);
                        prop_assert!(retry_on_local_refusals || !outcome.is_local_refusal());
                        prop_assert_eq!(attempt, made + 1);
                        prop_assert!(attempt <= max_attempts);
                        prop_assert_eq!(wait, 500);
                    }
                    RetryDecision::Done { attempts } => {
                        prop_assert!(outcome.is_success());
                        prop_assert_eq!(attempts, made);
                        finished = true;
                        break;
                    }
                    RetryDecision::GiveUp { attempts, last } => {
                        prop_assert_eq!(attempts, made);
                        prop_assert_eq!(last, outcome);
                        prop_assert!(!retry.is_retryable(outcome) || made == max_attempts);
                        finished = true;
                        break;
                    }
                }
            }
            if !finished {
                prop_assert!(retry.give_up(&mut ctx).is_some());
            }
            prop_assert!(ctx.is_finished());
        }
        let m = retry.metrics();
        prop_assert_eq!(
            m.successful_calls_without_retry + m.successful_calls_with_retry
                + m.failed_calls_without_retry + m.failed_calls_with_retry,
            calls.len() as u64
        );
        prop_assert_eq!(m.total_attempts, attempts_total);
    }

    /// Whenever a retry is paid for, the retries in the window are at most retryPercent of
    /// the requests in it plus the reserve.
    #[test]
    fn retry_budget_never_exceeds_its_share(
        percent in 1u32..50,
        min_per_second in 0u32..3,
        steps in proptest::collection::vec((0u64..300, 0u32..5, 0u32..8), 1..60),
    ) {
        let config = RetryBudgetConfig {
            ttl: 1_000,
            min_retries_per_second: min_per_second,
            retry_percent: f64::from(percent),
        };
        let mut budget = RetryBudget::new(config).unwrap();
        let mut now = 0u64;
        // slice (100 ms) -> (deposits, withdrawals)
        let mut per_slice: HashMap<u64, (u64, u64)> = HashMap::new();
        for (dt, deposits, retries) in steps {
            now += dt;
            let slice = per_slice.entry(now / 100).or_default();
            for _ in 0..deposits {
                budget.deposit(now);
                slice.0 += 1;
            }
            let mut withdrew = false;
            for _ in 0..retries {
                if budget.try_withdraw(now) {
                    slice.1 += 1;
                    withdrew = true;
                }
            }
            if !withdrew {
                // Finagle's guarantee holds when a retry is paid for; later, old deposits
                // leave the window before the retries they paid for.
                continue;
            }
            // The window at `now`: this slice and the nine before it.
            let current = now / 100;
            let (d, w) = per_slice
                .iter()
                .filter(|(&s, _)| s + 10 > current && s <= current)
                .fold((0u64, 0u64), |(d, w), (_, &(sd, sw))| (d + sd, w + sw));
            let withdrawal = (100_000 / percent) as u64;
            let allowed_units = d * 1_000 + u64::from(min_per_second) * withdrawal;
            prop_assert!(w * withdrawal <= allowed_units, "w {} d {} percent {}", w, d, percent);
        }
    }
}
