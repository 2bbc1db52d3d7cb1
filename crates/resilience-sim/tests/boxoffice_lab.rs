//! `resilience-sim lab boxoffice`: the claims of the spec's five scenarios
//! (`spec/04-boxoffice-playground.md`), each through the CLI, with the tolerances a seeded
//! run needs; conservation (every user ends once); seeding; refusals.
//!
//! Figures come from the spec (rates, thresholds, the seed's settings), never from a run's
//! own output.

use serde_json::Value;

mod common;

use common::{json, refused};

fn run(scenario: &str, variant: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "lab",
        "boxoffice",
        "--scenario",
        scenario,
        "--variant",
        variant,
    ];
    args.extend_from_slice(extra);
    let run = json(&args);
    assert_eq!(run["scenario"], scenario);
    assert_eq!(run["variant"], variant);
    assert_eq!(run["summary"]["truncated"], false, "{scenario} {variant}");
    run
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("a whole number, got {v}"))
}

/// The seconds `from..to` of a run.
fn seconds(run: &Value, from: u64, to: u64) -> Vec<&Value> {
    run["seconds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| (from..to).contains(&u(&s["t_s"])))
        .collect()
}

/// Users of the named client populations answered in time, over users offered, in
/// `from..to` (percent).
fn in_time(run: &Value, clients: &[&str], from: u64, to: u64) -> f64 {
    let (mut ok, mut offered) = (0, 0);
    for s in seconds(run, from, to) {
        for c in clients {
            ok += u(&s["clients"][c]["in_time"]);
            offered += u(&s["clients"][c]["offered"]);
        }
    }
    assert!(offered > 0, "{clients:?} offered nothing in {from}..{to}");
    100.0 * ok as f64 / offered as f64
}

fn sum(run: &Value, from: u64, to: u64, pick: impl Fn(&Value) -> u64) -> u64 {
    seconds(run, from, to).into_iter().map(pick).sum()
}

fn mean_goodput(run: &Value, from: u64, to: u64) -> f64 {
    sum(run, from, to, |s| u(&s["goodput"])) as f64 / (to - from) as f64
}

// ---- 1. cascading-failure ------------------------------------------------------------------

/// Payment at 4 s from 20 s: 100 purchases/s need 400 threads, the replica has 200.
#[test]
fn cascading_failure_unprotected_takes_holds_and_catalog_down_too() {
    let run = run("cascading-failure", "unprotected", &[]);
    // The pool is gone within about 2-3 s of the trigger.
    let busy_at_23 = u(&seconds(&run, 22, 23)[0]["replicas"][0]["threads_busy"]);
    assert_eq!(busy_at_23, 200);
    // Purchases hold nearly all of them, waiting on payment.
    let on_payment = u(&seconds(&run, 22, 23)[0]["replicas"][0]["threads_on_payment"]);
    assert!(on_payment >= 190, "{on_payment} threads on payment");
    // Before: fine. Within 5 s of the trigger, holds and catalog below 10 % in time.
    assert!(in_time(&run, &["holds", "catalog"], 0, 20) >= 99.0);
    for t in 25..60 {
        let pct = in_time(&run, &["holds", "catalog"], t, t + 1);
        assert!(
            pct < 10.0,
            "second {t}: holds and catalog {pct:.1} % in time"
        );
    }
}

/// The seed's bulkhead of 50 (max wait 10 ms): the damage stays with purchases.
#[test]
fn cascading_failure_bulkhead_keeps_holds_and_catalog_in_time() {
    let run = run("cascading-failure", "bulkhead", &[]);
    for s in seconds(&run, 0, 60) {
        let on_payment = u(&s["replicas"][0]["threads_on_payment"]);
        assert!(
            on_payment <= 50,
            "{on_payment} threads on payment at {}",
            s["t_s"]
        );
    }
    assert_eq!(u(&run["summary"]["max_threads_on_payment"]), 50);
    assert!(in_time(&run, &["holds", "catalog"], 20, 60) >= 99.0);
    // Purchases over the limit are refused within ~10 ms and fall back (plus their 5 ms
    // of local work and the scheduling of the thread).
    let purchases = &run["summary"]["clients"]["purchases"];
    assert!(u(&purchases["fallback"]) > 1_000);
    let slowest_fallback = u(&purchases["fallback_max_ms"]);
    assert!(
        slowest_fallback <= 30,
        "a fallback took {slowest_fallback} ms"
    );
}

/// A 2 s read timeout alone: 100 x 2 = 200 threads, still the whole pool.
#[test]
fn cascading_failure_read_timeout_alone_still_exhausts_the_pool() {
    let run = run("cascading-failure", "read-timeout", &[]);
    let full = seconds(&run, 22, 60)
        .iter()
        .filter(|s| u(&s["replicas"][0]["threads_busy"]) == 200)
        .count();
    assert!(full >= 30, "the pool was full in {full} of 38 seconds");
    // Purchases fail on the timeout; payment goes on working for callers that left.
    assert!(u(&run["summary"]["clients"]["purchases"]["failed"]) > 2_000);
    assert!(u(&run["summary"]["payment"]["wasted"]) > 1_000);
}

/// An unreachable host (no answer at all, not a refusal): each call waits out the
/// connect timeout (300 ms in the file) before it fails and falls back.
#[test]
fn an_unreachable_dependency_costs_each_call_its_connect_timeout() {
    let run = run(
        "cascading-failure",
        "bulkhead",
        &[
            "--timeline",
            r#"[{"atS": 20, "do": "unreachable", "dependency": "payment"}]"#,
        ],
    );
    let purchases = &run["summary"]["clients"]["purchases"];
    let slowest = u(&purchases["fallback_max_ms"]);
    assert!((300..=330).contains(&slowest), "{slowest} ms");
    // 100/s x 0.3 s = 30 threads waiting to connect: under the bulkhead's 50.
    let waiting = u(&seconds(&run, 30, 31)[0]["replicas"][0]["threads_on_payment"]);
    assert!((20..=45).contains(&waiting), "{waiting}");
    assert_eq!(seconds(&run, 30, 31)[0]["payment"]["state"], "unreachable");
}

/// Deadlines propagated: a request that waited in the replica's queue past its caller's
/// deadline is skipped instead of served for nobody, and a call's read timeout is cut to
/// what is left.
#[test]
fn propagated_deadlines_stop_work_nobody_waits_for() {
    let served_late = |r: &Value| {
        ["critical", "important"]
            .iter()
            .map(|c| u(&r["summary"]["classes"][c]["served_late"]))
            .sum::<u64>()
    };
    let plain = run("cascading-failure", "unprotected", &[]);
    let propagated = run(
        "cascading-failure",
        "unprotected",
        &["--replicas.propagateDeadlines", "true"],
    );
    assert!(served_late(&plain) > 5_000, "{}", served_late(&plain));
    assert!(served_late(&propagated) * 100 < served_late(&plain));
    // Purchases (6 s) now stop waiting for payment when their time is up.
    assert_eq!(u(&plain["summary"]["payment"]["wasted"]), 0);
    assert!(u(&propagated["summary"]["payment"]["wasted"]) > 1_000);
}

/// A TimeLimiter around a semaphore Bulkhead times the call, not the wait for a permit:
/// `TimeLimiterImpl.decorateCompletionStage` schedules its timeout after the supplier
/// returns, and the bulkhead's supplier takes its permit (waiting up to `maxWaitDuration`)
/// before it returns. Payment slow at 4 s, 20 purchases/s, 10 permits held 4 s each: 2.5
/// calls/s get a permit, each after waiting close to the 3 s `maxWaitDuration`, so about 7
/// s from start to answer. A timeout of 6 s is longer than any call and shorter than wait
/// plus call: it must change nothing.
#[test]
fn a_time_limiter_around_a_semaphore_bulkhead_does_not_time_the_wait_for_a_permit() {
    let with_time_limiter = |time_limiter: &str| {
        run(
            "cascading-failure",
            "bulkhead",
            &[
                "--clients.purchases",
                r#"{"class": "critical", "endpoint": "purchase", "rps": 20, "deadlineMs": 20000}"#,
                "--clients.holds.rps",
                "0",
                "--clients.catalog.rps",
                "0",
                "--replicas.stacks.payment.bulkhead",
                r#"{"maxConcurrentCalls": 10, "maxWaitDuration": "3s"}"#,
                "--replicas.stacks.payment.fallback",
                "null",
                "--replicas.stacks.payment.timeLimiter",
                time_limiter,
            ],
        )
    };
    let without = with_time_limiter("null");
    let timed = with_time_limiter(r#"{"timeoutDuration": "6s"}"#);
    // 10 permits / 4 s = 2.5 answers a second once the waits are full (30 s to 60 s).
    let answered = sum(&without, 30, 60, |s| {
        u(&s["clients"]["purchases"]["in_time"])
    });
    assert!((68..=82).contains(&answered), "{answered} answered in 30 s");
    // Those answers took longer than the 6 s timeout: the wait was not timed.
    assert!(u(&without["summary"]["clients"]["purchases"]["max_ms"]) > 6_500);
    assert_eq!(
        timed["summary"]["clients"]["purchases"],
        without["summary"]["clients"]["purchases"]
    );
    assert_eq!(timed["seconds"], without["seconds"]);
}

/// The Retry sees the TimeLimiter's `TimeoutException`, which is not an `IOException`:
/// `retryExceptions: [IOException]` does not retry it, `[TimeoutException]` does. Payment
/// slow at 4 s, a 1 s TimeLimiter: every attempt times out.
#[test]
fn a_time_limiter_timeout_is_retried_only_if_the_retry_names_timeout_exception() {
    let payment_calls_per_purchase = |retry_exceptions: &str| {
        let run = run(
            "cascading-failure",
            "unprotected",
            &[
                "--replicas.stacks.payment.retry",
                &format!(
                    r#"{{"maxAttempts": 3, "waitDuration": "100ms", "retryExceptions": ["{retry_exceptions}"]}}"#
                ),
                "--replicas.stacks.payment.timeLimiter",
                r#"{"timeoutDuration": "1s"}"#,
            ],
        );
        let calls = sum(&run, 30, 50, |s| u(&s["payment"]["offered"]));
        let purchases = sum(&run, 30, 50, |s| u(&s["clients"]["purchases"]["offered"]));
        calls as f64 / purchases as f64
    };
    assert_eq!(payment_calls_per_purchase("IOException"), 1.0);
    let retried = payment_calls_per_purchase("TimeoutException");
    assert!(retried > 1.5, "{retried} calls per purchase");
}

/// `RequestNotPermitted` from the stack's own RateLimiter is retried like any exception
/// (a Retry with no lists retries every exception but the breaker's and the bulkhead's
/// refusals). 50 permits a second for 100 purchases a second, healthy payment (200 ms):
/// 1,000 purchases in 20 s get a permit, and some of them only on their retry, 1 s later.
#[test]
fn a_rate_limiter_refusal_is_retried() {
    let run = run(
        "cascading-failure",
        "unprotected",
        &[
            "--seconds",
            "20",
            "--replicas.stacks.payment.rateLimiter",
            r#"{"limitForPeriod": 50, "limitRefreshPeriod": "1s", "timeoutDuration": 0}"#,
            "--replicas.stacks.payment.retry",
            r#"{"maxAttempts": 2, "waitDuration": "1s"}"#,
        ],
    );
    let purchases = &run["summary"]["clients"]["purchases"];
    assert_eq!(u(&purchases["in_time"]), 1_000);
    assert!(u(&purchases["max_ms"]) >= 1_200, "{purchases}");
}

/// A TimeLimiter stops waiting but keeps the connection open (it completes the caller's
/// future; nothing cancels the HTTP call), so a `dropStale` server cannot tell and serves
/// the call for nobody. Payment: 10 workers of 200 ms (50 calls/s) for 100 purchases/s,
/// so calls queue past the 1 s TimeLimiter; without propagated deadlines nothing is stale.
#[test]
fn a_time_limiter_timeout_leaves_the_call_queued_at_a_drop_stale_server() {
    let run = run(
        "cascading-failure",
        "unprotected",
        &[
            "--seconds",
            "20",
            "--dependencies.payment",
            r#"{"workers": 10, "queue": 1000, "serviceMs": 200, "dropStale": true}"#,
            "--replicas.stacks.payment.timeLimiter",
            r#"{"timeoutDuration": "1s"}"#,
        ],
    );
    let payment = &run["summary"]["payment"];
    assert_eq!(u(&payment["dropped_stale"]), 0, "{payment}");
    // 50 calls a second served, most of them for callers that stopped waiting.
    assert!(u(&payment["wasted"]) > 500, "{payment}");
}

// ---- 2. retry-storm -----------------------------------------------------------------------

fn purchases_in_time(run: &Value, from: u64, to: u64) -> f64 {
    in_time(run, &["purchases"], from, to)
}

/// Payment 3x slower from 20 s to 30 s, clients retrying 3 times at once: metastable.
#[test]
fn retry_storm_naive_retries_never_recover() {
    let run = run("retry-storm", "naive-retries", &[]);
    assert!(purchases_in_time(&run, 0, 20) >= 97.0);
    // Offered load to payment climbs towards 4x the 100/s of users.
    let offered = sum(&run, 35, 60, |s| u(&s["payment"]["offered"])) as f64 / 25.0;
    assert!(offered >= 350.0, "payment offered {offered:.0}/s");
    // Its queue keeps growing after the trigger ends.
    let queue = |t| u(&seconds(&run, t, t + 1)[0]["payment"]["queue"]);
    assert!(queue(60) > queue(40) && queue(119) > queue(60));
    // Goodput near zero for the rest of the run: more than 60 s after the trigger.
    for t in (31..120).step_by(5) {
        let pct = purchases_in_time(&run, t, t + 5);
        assert!(pct < 5.0, "{t}..{}: {pct:.1} % in time", t + 5);
    }
}

/// Backoff with jitter alone does not help while users keep arriving (open loop).
#[test]
fn retry_storm_backoff_and_jitter_alone_do_not_recover() {
    let run = run("retry-storm", "backoff-jitter", &[]);
    let pct = purchases_in_time(&run, 40, 120);
    assert!(pct < 5.0, "{pct:.1} % in time after the trigger");
}

/// Each of these alone recovers within about 10 s of the trigger's end (30 s).
#[test]
fn retry_storm_budget_breaker_and_dropping_stale_work_each_recover() {
    for variant in ["retry-budget", "breaker", "drop-stale"] {
        let run = run("retry-storm", variant, &[]);
        for t in (40..120).step_by(5) {
            let pct = purchases_in_time(&run, t, t + 5);
            assert!(pct >= 90.0, "{variant} {t}..{}: {pct:.1} % in time", t + 5);
        }
        assert!(
            u(&seconds(&run, 45, 46)[0]["payment"]["queue"]) == 0,
            "{variant}"
        );
    }
}

#[test]
fn retry_storm_drop_stale_skips_abandoned_calls_and_the_breaker_opens() {
    let stale = run("retry-storm", "drop-stale", &[]);
    assert!(u(&stale["summary"]["payment"]["dropped_stale"]) > 0);
    let breaker = run("retry-storm", "breaker", &[]);
    assert!(u(&breaker["summary"]["breaker_openings"]["order-1/payment"]) >= 1);
}

// ---- 3. rate-limiter ----------------------------------------------------------------------

/// 500 people + a bot at 300/s = 800/s against a seat map that serves 600/s.
#[test]
fn rate_limiter_without_a_limit_people_time_out() {
    let run = run("rate-limiter", "no-limit", &[]);
    for t in 12..60 {
        let pct = in_time(&run, &["people"], t, t + 1);
        assert!(pct < 50.0, "second {t}: people {pct:.1} % in time");
    }
}

/// A token bucket per key (10/s, burst 20): the bot gets 20 + 10/s, people stay in time.
#[test]
fn rate_limiter_token_bucket_holds_the_bot_to_its_rate() {
    let run = run("rate-limiter", "token-bucket", &[]);
    assert!(in_time(&run, &["people"], 0, 60) >= 99.0);
    let bot = &run["summary"]["classes"]["important"]["by_key"]["bot"];
    let admitted = u(&bot["admitted"]);
    // Burst 20, then 10 a second for 60 s (the refill of the last instants aside).
    assert!((615..=621).contains(&admitted), "bot admitted {admitted}");
    assert!(u(&bot["rate_limited"]) > 17_000);
    // Every second after the burst: about 10 admitted.
    for s in seconds(&run, 2, 60) {
        let n = u(&s["classes"]["important"]["by_key"]["bot"]["admitted"]);
        assert!((9..=11).contains(&n), "bot admitted {n} at {}", s["t_s"]);
    }
}

/// Our own RateLimiter (50/s) inside the breaker: RequestNotPermitted counts as a failure
/// and opens the breaker on a healthy provider, unless the breaker ignores it.
#[test]
fn rate_limiter_client_side_limiter_opens_our_breaker_unless_ignored() {
    let counted = run("rate-limiter", "client-limiter-counted", &[]);
    let ignored = run("rate-limiter", "client-limiter-ignored", &[]);
    for r in [&counted, &ignored] {
        // The provider never failed a call.
        assert_eq!(u(&r["summary"]["payment"]["refused"]), 0);
        assert_eq!(
            u(&r["summary"]["payment"]["served"]) + u(&r["summary"]["payment"]["wasted"]),
            u(&r["summary"]["payment"]["offered"])
        );
    }
    assert!(u(&counted["summary"]["breaker_openings"]["order-1/payment"]) >= 1);
    let open_seconds = seconds(&counted, 0, 60)
        .iter()
        .filter(|s| s["breakers"]["order-1/payment"] == "OPEN")
        .count();
    assert!(open_seconds >= 40, "open {open_seconds} of 60 s");
    assert_eq!(
        u(&ignored["summary"]["breaker_openings"]["order-1/payment"]),
        0
    );
    // Ignored: the limiter passes its 50 a second, the rest fall back.
    for s in seconds(&ignored, 1, 60) {
        let ok = u(&s["clients"]["purchases"]["in_time"]);
        assert!(
            (48..=52).contains(&ok),
            "{ok} purchases in time at {}",
            s["t_s"]
        );
    }
    let counted_ok = u(&counted["summary"]["clients"]["purchases"]["in_time"]);
    let ignored_ok = u(&ignored["summary"]["clients"]["purchases"]["in_time"]);
    assert!(counted_ok * 5 < ignored_ok, "{counted_ok} vs {ignored_ok}");
}

// ---- 4. payment-system --------------------------------------------------------------------

/// The seed's whole stack: slow at 40 s, down at 100 s, healthy at 180 s.
#[test]
fn payment_system_seed_stack_keeps_its_budgets() {
    let run = run("payment-system", "seed-stack", &[]);
    let purchases = &run["summary"]["clients"]["purchases"];
    // 2 attempts x 2 s + one backoff of 200 ms x (1 ± 0.5) + local work: at most ~4.3 s,
    // inside order's 5 s and the gateway's 6 s.
    let slowest = u(&purchases["max_ms"]);
    assert!(slowest <= 4_400, "a purchase waited {slowest} ms");
    // Purchase threads on payment never above the bulkhead's 50.
    for s in seconds(&run, 0, 240) {
        for r in s["replicas"].as_array().unwrap() {
            assert!(u(&r["threads_on_payment"]) <= 50);
        }
    }
    // Declines (5 %) all along never open the breaker: closed for the first 40 s.
    assert!(u(&run["summary"]["payment"]["declines"]) > 0);
    for s in seconds(&run, 0, 40) {
        for state in s["breakers"].as_object().unwrap().values() {
            assert_eq!(state, "CLOSED", "at {}", s["t_s"]);
        }
    }
    // Slow calls open it within a few seconds of 40 s.
    for state in seconds(&run, 45, 46)[0]["breakers"]
        .as_object()
        .unwrap()
        .values()
    {
        assert_eq!(state, "OPEN");
    }
    // Down from 100 s: only 3 trial calls per replica per 30 s reach the provider.
    for (from, to) in [(101, 131), (131, 161), (161, 180)] {
        let calls = sum(&run, from, to, |s| u(&s["payment"]["offered"]));
        assert!(
            calls <= 9,
            "{calls} calls reached a dead provider in {from}..{to}"
        );
    }
    // No purchase charged twice; holds and catalog never suffer.
    assert_eq!(u(&run["summary"]["payment"]["duplicate_charges"]), 0);
    assert!(in_time(&run, &["holds", "catalog"], 0, 240) >= 99.0);
    assert_eq!(run["summary"]["restarts"], serde_json::json!([0, 0, 0]));
    // After recovery purchases are served again.
    assert!(in_time(&run, &["purchases"], 220, 240) >= 95.0);
}

/// Without idempotency keys (and without the breaker that stops retries early) a retry
/// after a read timeout charges a second time; with them it never does.
#[test]
fn payment_system_idempotency_keys_prevent_double_charges() {
    let without = run("payment-system", "no-idempotency-keys", &[]);
    assert!(u(&without["summary"]["payment"]["duplicate_charges"]) > 0);
    let with = run(
        "payment-system",
        "seed-stack",
        &["--replicas.stacks.payment.circuitBreaker", "null"],
    );
    assert_eq!(u(&with["summary"]["payment"]["duplicate_charges"]), 0);
    assert!(u(&with["summary"]["payment"]["deduplicated"]) > 0);
}

/// Liveness checking payment restarts every replica while payment is unhealthy, and
/// holds and catalog go down with purchases.
#[test]
fn payment_system_liveness_on_payment_restarts_every_replica() {
    let run = run("payment-system", "liveness-on-payment", &[]);
    for r in run["summary"]["restarts"].as_array().unwrap() {
        assert!(u(r) >= 1);
    }
    let worst = (40..180)
        .map(|t| in_time(&run, &["holds", "catalog"], t, t + 1))
        .fold(100.0, f64::min);
    assert!(
        worst < 10.0,
        "holds and catalog at worst {worst:.1} % in time"
    );
    assert!(in_time(&run, &["holds", "catalog"], 40, 180) < 90.0);
}

// ---- 5. flash-sale ------------------------------------------------------------------------

/// 10x demand from 30 s to 330 s: four replicas of 50 threads, 100 ms a request.
#[test]
fn flash_sale_without_shedding_goodput_collapses() {
    let run = run("flash-sale", "no-shedding", &["--seconds", "120"]);
    let capacity = run["summary"]["capacity_rps"].as_f64().unwrap();
    assert_eq!(capacity, 2_000.0, "4 x 50 threads / 100 ms");
    for t in 60..120 {
        let g = mean_goodput(&run, t, t + 1);
        assert!(g < 0.2 * capacity, "goodput {g} at {t}");
    }
    assert!(in_time(&run, &["purchases"], 60, 120) < 5.0);
}

#[test]
fn flash_sale_priority_shedding_sheds_the_least_important_first() {
    let run = run("flash-sale", "priority-shedding", &["--seconds", "120"]);
    let capacity = run["summary"]["capacity_rps"].as_f64().unwrap();
    // Critical demand (400/s) is below capacity: purchases stay in time.
    assert!(in_time(&run, &["purchases"], 40, 120) >= 95.0);
    let shed = |class: &str| {
        let offered = sum(&run, 40, 120, |s| u(&s["classes"][class]["offered"]));
        sum(&run, 40, 120, |s| u(&s["classes"][class]["shed"])) as f64 / offered as f64
    };
    assert!(shed("sheddable") > shed("important") && shed("important") >= shed("critical"));
    assert!(shed("sheddable") > 0.5);
    let g = mean_goodput(&run, 40, 120);
    assert!(g >= 0.8 * capacity, "goodput {g:.0}/s of {capacity}");
}

#[test]
fn flash_sale_waiting_room_and_adaptive_limit_keep_goodput_without_a_tuned_limit() {
    for variant in ["waiting-room", "adaptive-limit"] {
        let run = run("flash-sale", variant, &["--seconds", "120"]);
        let capacity = run["summary"]["capacity_rps"].as_f64().unwrap();
        let g = mean_goodput(&run, 40, 120);
        assert!(
            g >= 0.8 * capacity,
            "{variant}: goodput {g:.0}/s of {capacity}"
        );
    }
    let adaptive = run("flash-sale", "adaptive-limit", &["--seconds", "120"]);
    assert!(in_time(&adaptive, &["purchases"], 40, 120) >= 95.0);
    // The limit found its own level: not the initial 50.
    let limit = u(&seconds(&adaptive, 100, 101)[0]["door"]["limit"]);
    assert!(limit > 100, "the limit stayed at {limit}");
    let room = run("flash-sale", "waiting-room", &["--seconds", "120"]);
    // The room drops stale requests, counted per second like the door's refusals: a
    // count falls back after a second with drops (a running total never falls).
    let dropped: Vec<u64> = seconds(&room, 0, 120)
        .iter()
        .map(|s| u(&s["queue"]["dropped_stale"]))
        .collect();
    assert!(dropped.iter().sum::<u64>() > 0, "{dropped:?}");
    assert!(dropped.windows(2).any(|w| w[1] < w[0]), "{dropped:?}");
}

/// Scaling out at 40 s: a JVM needs 45 s to start; without a startup probe, liveness
/// (3 x 10 s) kills it first and the new replicas never join.
#[test]
fn flash_sale_new_replicas_join_only_with_a_startup_probe() {
    let without = run("flash-sale", "no-startup-probe", &["--seconds", "200"]);
    let with = run("flash-sale", "scale-out", &["--seconds", "200"]);
    let restarts = |r: &Value| -> Vec<u64> {
        r["summary"]["restarts"]
            .as_array()
            .unwrap()
            .iter()
            .map(u)
            .collect()
    };
    assert_eq!(restarts(&without).len(), 8);
    assert!(restarts(&without)[4..].iter().all(|&n| n >= 2));
    assert!(restarts(&with).iter().all(|&n| n == 0));
    let ready = |r: &Value, t: u64| {
        seconds(r, t, t + 1)[0]["replicas"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["ready"] == true)
            .count()
    };
    // 40 s + 45 s of start-up + a probe period or two.
    assert_eq!(ready(&with, 110), 8);
    for t in 40..200 {
        assert_eq!(ready(&without, t), 4, "at {t}");
    }
    // Twice the replicas, twice the goodput (the adaptive limit follows them); without
    // the startup probe, none of it.
    let (g_with, g_without) = (
        mean_goodput(&with, 110, 200),
        mean_goodput(&without, 110, 200),
    );
    assert!(
        g_with >= 1.8 * g_without,
        "{g_with:.0} vs {g_without:.0} a second"
    );
}

// ---- every scenario -----------------------------------------------------------------------

const ALL: [(&str, &[&str]); 5] = [
    (
        "cascading-failure",
        &["unprotected", "read-timeout", "bulkhead"],
    ),
    (
        "retry-storm",
        &[
            "naive-retries",
            "backoff-jitter",
            "retry-budget",
            "breaker",
            "drop-stale",
        ],
    ),
    (
        "rate-limiter",
        &[
            "no-limit",
            "token-bucket",
            "client-limiter-counted",
            "client-limiter-ignored",
        ],
    ),
    ("payment-system", &["seed-stack", "liveness-on-payment"]),
    (
        "flash-sale",
        &[
            "no-shedding",
            "priority-shedding",
            "waiting-room",
            "adaptive-limit",
            "no-startup-probe",
        ],
    ),
];

/// Every user ends exactly once: offered = every outcome + those still waiting at the end,
/// per class and per client population; and the issue's field names are there.
#[test]
fn every_user_has_one_outcome() {
    for (scenario, variants) in ALL {
        for variant in variants {
            let run = run(scenario, variant, &["--seconds", "90"]);
            let summary = &run["summary"];
            let outcomes = |row: &Value| {
                [
                    "in_time",
                    "late",
                    "failed",
                    "fallback",
                    "rate_limited",
                    "shed",
                ]
                .iter()
                .map(|k| u(&row[k]))
                .sum::<u64>()
            };
            for (i, class) in ["critical", "important", "sheddable"].iter().enumerate() {
                let row = &summary["classes"][class];
                let unfinished = u(&summary["unfinished"][i]);
                assert_eq!(
                    u(&row["offered"]),
                    outcomes(row) + unfinished,
                    "{scenario} {variant} {class}"
                );
                for key in ["admitted", "p50_ms", "p99_ms"] {
                    assert!(row.get(key).is_some(), "{class}.{key}");
                }
            }
            let clients_offered: u64 = summary["clients"]
                .as_object()
                .unwrap()
                .values()
                .map(|c| u(&c["offered"]))
                .sum();
            let class_offered: u64 = ["critical", "important", "sheddable"]
                .iter()
                .map(|c| u(&summary["classes"][c]["offered"]))
                .sum();
            assert_eq!(clients_offered, class_offered);
            assert_eq!(run["seconds"].as_array().unwrap().len(), 90);
            let second = &run["seconds"][0];
            for key in ["limit", "rate_limited", "shed"] {
                assert!(second["door"].get(key).is_some(), "door.{key}");
            }
            for key in ["length", "oldest_ms", "dropped_stale"] {
                assert!(second["queue"].get(key).is_some(), "queue.{key}");
            }
            for key in [
                "offered",
                "in_flight",
                "queue",
                "served",
                "wasted",
                "charges",
                "duplicate_charges",
            ] {
                assert!(second["payment"].get(key).is_some(), "payment.{key}");
            }
            for key in ["state", "ready", "threads_busy", "threads_on_payment"] {
                assert!(second["replicas"][0].get(key).is_some(), "replicas.{key}");
            }
            assert!(second["breakers"].is_object());
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_run_and_another_seed_another() {
    let args = ["--seconds", "40"];
    let a = run("retry-storm", "naive-retries", &args);
    let b = run("retry-storm", "naive-retries", &args);
    assert_eq!(a, b);
    let c = run(
        "retry-storm",
        "naive-retries",
        &["--seconds", "40", "--seed", "7"],
    );
    assert_ne!(a["seconds"], c["seconds"]);
    assert_eq!(u(&c["seed"]), 7);
}

#[test]
fn a_learners_file_runs_the_same_way() {
    let dir = std::env::temp_dir().join(format!("boxoffice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mine.json");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/boxoffice/cascading-failure.json"
    ))
    .unwrap();
    std::fs::write(&path, &text).unwrap();
    let from_file = json(&[
        "lab",
        "boxoffice",
        "--file",
        path.to_str().unwrap(),
        "--variant",
        "bulkhead",
        "--scenario",
        "cascading-failure",
    ]);
    let shipped = run("cascading-failure", "bulkhead", &[]);
    assert_eq!(from_file, shipped);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_setting_on_the_command_line_changes_the_run() {
    let small = run(
        "cascading-failure",
        "bulkhead",
        &[
            "--replicas.stacks.payment.bulkhead.maxConcurrentCalls",
            "10",
        ],
    );
    assert_eq!(u(&small["summary"]["max_threads_on_payment"]), 10);
}

#[test]
fn bad_input_is_one_line() {
    let cases: [(&[&str], &str); 7] = [
        (&["lab", "boxoffice"], "--scenario NAME or --file"),
        (
            &["lab", "boxoffice", "--scenario", "nope"],
            "no scenario “nope”",
        ),
        (
            &[
                "lab",
                "boxoffice",
                "--scenario",
                "retry-storm",
                "--variant",
                "x",
            ],
            "no variant “x”",
        ),
        (
            &[
                "lab",
                "boxoffice",
                "--scenario",
                "retry-storm",
                "--seconds",
                "0",
            ],
            "--seconds",
        ),
        (
            &[
                "lab",
                "boxoffice",
                "--scenario",
                "retry-storm",
                "--seed",
                "-1",
            ],
            "--seed",
        ),
        (
            &[
                "lab",
                "boxoffice",
                "--scenario",
                "retry-storm",
                "--dependencies.payment.workers",
                "-3",
            ],
            "workers",
        ),
        (
            &["lab", "boxoffice", "--file", "/nonexistent/topology.json"],
            "cannot read",
        ),
    ];
    for (args, needle) in cases {
        let line = refused(args);
        assert!(line.contains(needle), "{args:?}: {line}");
    }
}
