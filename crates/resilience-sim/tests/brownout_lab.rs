//! Lab C (Demo 12), the 09:00 pricing brownout: the course's claims, as the course says
//! them (../shared/spec/03-incident-labs.md, "Lab C", and issue 11), asserted on the model
//! with tolerances of our own; then conservation, bounds and seeding.

use resilience_sim::model::brownout::{
    self, mechanism_effects, BrownoutConfig, BrownoutRun, BrownoutSecond, Mechanism, MAX_WORK,
};
use resilience_sim::policy::circuit_breaker::State;

fn run(change: impl FnOnce(&mut BrownoutConfig)) -> BrownoutRun {
    let mut config = BrownoutConfig::default();
    change(&mut config);
    brownout::run(&config).expect("a valid config")
}

fn rows(run: &BrownoutRun, from: i32, to: i32) -> Vec<&BrownoutSecond> {
    run.seconds
        .iter()
        .filter(|s| s.t_s >= from && s.t_s <= to)
        .collect()
}

fn sum(rows: &[&BrownoutSecond], f: impl Fn(&BrownoutSecond) -> u32) -> f64 {
    rows.iter().map(|s| f64::from(f(s))).sum()
}

/// Cache hits among fallbacks over the rows.
fn hit_rate(rows: &[&BrownoutSecond]) -> f64 {
    sum(rows, |s| s.cache_hits) / sum(rows, |s| s.fallbacks).max(1.0)
}

/// Attempts offered to the stack per submission that reached it.
fn attempts_per_submission(rows: &[&BrownoutSecond]) -> f64 {
    sum(rows, |s| s.attempts) / sum(rows, |s| s.attempts - s.retries).max(1.0)
}

#[test]
fn the_run_spans_08_59_50_to_the_chosen_end_one_row_a_second() {
    let run = run(|_| {});
    let t: Vec<i32> = run.seconds.iter().map(|s| s.t_s).collect();
    assert_eq!(t, (-9..=120).collect::<Vec<_>>());
    let short = self::run(|c| c.seconds = 30);
    assert_eq!(short.seconds.last().map(|s| s.t_s), Some(30));
    // Exactly 250 submissions and 100 history requests arrive every second.
    for s in &run.seconds {
        assert_eq!(
            (s.submissions, s.history_total),
            (250, 100),
            "second {}",
            s.t_s
        );
    }
}

#[test]
fn littles_law_needs_20_calls_in_flight_before_nine_and_1000_while_pricing_is_slow() {
    let run = run(|_| {});
    // The fault lasts 60 s by default: 09:00:00 to 09:01:00.
    for s in &run.seconds {
        let expected = if s.t_s <= 0 || s.t_s > 60 { 20 } else { 1_000 };
        assert_eq!(s.concurrency_needed, expected, "second {}", s.t_s);
    }
}

#[test]
fn before_nine_every_user_gets_a_live_price_and_history_answers() {
    let run = run(|_| {});
    for s in rows(&run, -9, -1) {
        assert_eq!(s.users.live, s.submissions, "second {}", s.t_s);
        assert_eq!(s.history_ok, s.history_total);
        assert_eq!(s.breaker, State::Closed);
        assert_eq!((s.rejected, s.retries, s.fallbacks), (0, 0, 0));
    }
}

#[test]
fn after_nine_the_bulkhead_admits_about_5_calls_a_second_2_percent_of_demand() {
    for queue in [200, 20] {
        let run = run(|c| c.queue_capacity = queue);
        // Its 20 threads each take 4 s (±20 %) per call: 20 / 4 s = 5 calls a second.
        let after = rows(&run, 6, 60);
        let admitted = sum(&after, |s| s.admitted) / after.len() as f64;
        assert!(
            (4.5..=5.5).contains(&admitted),
            "queue {queue}: {admitted} calls/s"
        );
        // 2 % of the 250 submissions a second.
        assert!((admitted / 250.0 - 0.02).abs() < 0.003);
        // Never more than its 20 threads in flight.
        assert!(run.seconds.iter().all(|s| s.pricing_in_flight <= 20));
    }
}

#[test]
fn the_errors_only_breaker_never_opens() {
    for queue in [200, 20] {
        let run = run(|c| c.queue_capacity = queue);
        assert!(run.seconds.iter().all(|s| s.breaker == State::Closed));
        assert_eq!(run.breaker_first_open_s, None);
        // Slow answers are successes and the bulkhead's refusals are ignored.
        assert!(run
            .seconds
            .iter()
            .filter_map(|s| s.failure_rate)
            .all(|r| r == 0.0));
    }
}

#[test]
fn retries_multiply_the_attempts_on_the_breaker_by_about_3_to_4() {
    // With a queue of 20 the bulkhead refuses, and each refusal is tried 3 more times.
    let run = run(|c| c.queue_capacity = 20);
    let factor = attempts_per_submission(&rows(&run, 2, 60));
    assert!((3.0..=4.0).contains(&factor), "{factor}");
    // The spec-00 rule (never retry BulkheadFullException) brings it back to 1.
    let rule = self::run(|c| {
        c.queue_capacity = 20;
        c.retry_bulkhead_full = false;
    });
    let factor = attempts_per_submission(&rows(&rule, 2, 60));
    assert!(factor < 1.01, "{factor}");
}

#[test]
fn the_30_s_cache_hit_rate_collapses_within_about_30_s() {
    let run = run(|c| c.queue_capacity = 20);
    let early = hit_rate(&rows(&run, 2, 10));
    let late = hit_rate(&rows(&run, 35, 60));
    // Early, the cache still holds the prices of the last 30 s of healthy traffic.
    assert!(early > 0.7, "{early}");
    // Once those have aged out only the trickle of live calls (5 a second) refreshes it.
    assert!(late < 0.6 * early, "{early} then {late}");
    // With nothing live at all (the breaker open from fix 1 on), it empties completely.
    let open = self::run(|c| {
        c.queue_capacity = 20;
        c.fixes = 1;
    });
    assert!(hit_rate(&rows(&open, 35, 60)) < 0.01);
}

#[test]
fn with_the_large_queue_the_order_threads_run_out_and_history_fails_with_20_they_do_not() {
    let large = run(|c| c.queue_capacity = 200);
    // 20 running + 200 queued calls would need 220 of order's 200 threads.
    for s in rows(&large, 2, 60) {
        assert_eq!(s.order_threads, 200, "second {}", s.t_s);
        assert!(s.order_threads_on_pricing >= 190);
    }
    let after = rows(&large, 2, 60);
    let history = sum(&after, |s| s.history_ok) / sum(&after, |s| s.history_total);
    assert!(history < 0.05, "{history}");

    let small = run(|c| c.queue_capacity = 20);
    assert!(small.seconds.iter().all(|s| s.order_threads < 150));
    assert!(small
        .seconds
        .iter()
        .all(|s| s.history_ok == s.history_total && s.accept_queue == 0));
}

#[test]
fn the_300_ms_timeout_makes_the_breaker_open_within_seconds() {
    let run = run(|c| c.fixes = 1);
    let opened = run.breaker_first_open_s.expect("the breaker opens");
    // Within the 10 s TIME_BASED window: the healthy calls of 08:59:50-09:00 have to
    // leave it before timeouts are half of it.
    assert!(opened > 0.0 && opened <= 10.0, "{opened}");
    assert!(rows(&run, 11, 60)
        .iter()
        .all(|s| s.breaker != State::Closed));
}

#[test]
fn fix_1_protects_the_threads_and_pricing_but_fewer_users_get_an_answer() {
    let (none, one) = (run(|_| {}), run(|c| c.fixes = 1));
    let (before, after) = (none.headline(), one.headline());
    assert!(after.users.answered() < before.users.answered());
    assert!(after.peak_order_threads < before.peak_order_threads);
    // Once the breaker is open, pricing gets nothing from us until the open wait is over.
    assert!(rows(&one, 11, 60).iter().all(|s| s.admitted == 0));
    let trickle = sum(&rows(&none, 11, 60), |s| s.admitted) / 50.0;
    assert!((4.0..=6.0).contains(&trickle), "{trickle}");
    // With the default queue order's threads stay well under its 200.
    assert!(after.history_ok_percent > 99.0);
    assert!(after.peak_order_threads < 100);
    // With the large queue it saves most of order history (about half is served without
    // it), but the queued calls still take every one of order's threads; and there it
    // gives users more answers, not fewer: without it nothing gets through.
    let large = |fixes| {
        run(|c| {
            c.queue_capacity = 200;
            c.fixes = fixes;
        })
        .headline()
    };
    let (none, one) = (large(0), large(1));
    assert!(
        none.history_ok_percent < 60.0,
        "{}",
        none.history_ok_percent
    );
    assert!(one.history_ok_percent > 90.0, "{}", one.history_ok_percent);
    assert_eq!(one.peak_order_threads, 200);
    assert!(one.users.answered() > none.users.answered());
}

#[test]
fn the_read_timeout_frees_the_bulkhead_thread_and_pricing_works_on_for_nobody() {
    // Before the breaker opens, each of the 20 threads is free again after 300 ms, so
    // pricing receives about 20 / 0.3 s = 67 calls a second instead of 20 / 4 s = 5, and
    // works its 4 s on each after the client has closed the connection.
    let read = run(|c| c.fixes = 1);
    let early = rows(&read, 2, 7);
    let received = sum(&early, |s| s.admitted) / early.len() as f64;
    assert!((55.0..=70.0).contains(&received), "{received} calls/s");
    assert!(early.iter().all(|s| s.abandoned == 0));
    // About 67/s x 4 s of calls at once by 09:00:05.
    let wasted = rows(&read, 5, 5)[0].pricing_wasted;
    assert!((200..=280).contains(&wasted), "{wasted}");
    // A TimeLimiter frees the caller only: its timed-out calls keep their threads, so
    // pricing still gets about 5 calls a second and nothing is wasted behind a closed
    // connection; the calls are abandoned in the bulkhead instead.
    let limiter = run(|c| {
        c.fixes = 1;
        c.timeout_kind = resilience_sim::policy::time_limiter::TimeoutKind::StopWaiting;
    });
    // (Its 20 threads took their calls at 09:00 and are busy until about 09:00:04.)
    let early = rows(&limiter, 2, 7);
    let received = sum(&early, |s| s.admitted) / early.len() as f64;
    assert!(received <= 6.0, "{received} calls/s");
    assert!(limiter.seconds.iter().all(|s| s.pricing_wasted == 0));
    assert!(early.iter().any(|s| s.abandoned > 0));
    // Both are errors to the breaker: it opens within the 10 s window either way.
    for run in [&read, &limiter] {
        assert!(run
            .breaker_first_open_s
            .is_some_and(|t| t > 0.0 && t <= 10.0));
    }
}

#[test]
fn when_the_fault_ends_users_get_live_prices_again_once_the_breaker_lets_calls_through() {
    // As configured, nothing is open: pricing answers in 80 ms from 09:01:00 and users
    // get live prices again within a few seconds.
    let none = run(|_| {});
    let recovered = none.users_recovered_s().expect("recovers");
    assert!((61..=65).contains(&recovered), "{recovered}");
    // With fix 1 the breaker opened at about 8 s and waits 60 s before its trials: users
    // get live prices only after that, whatever pricing does from 09:01:00.
    let one = run(|c| c.fixes = 1);
    let opened = one.breaker_first_open_s.unwrap();
    let recovered = one.users_recovered_s().expect("recovers") as f64;
    assert!(
        recovered >= opened + 60.0 && recovered <= opened + 63.0,
        "opened {opened}, recovered {recovered}"
    );
    // A longer fault than the run: no recovery to report.
    assert_eq!(run(|c| c.fault_seconds = 200).users_recovered_s(), None);
}

#[test]
fn fix_2_counts_slow_calls_when_they_stay_under_the_timeout() {
    // At 4 s every attempt times out at 300 ms: slow and failed are the same calls.
    let one = run(|c| c.fixes = 1);
    let two = run(|c| c.fixes = 2);
    assert_eq!(one.breaker_first_open_s, two.breaker_first_open_s);
    // At 280 ms (224 to 336 ms) about a third of the calls time out, below the 50 %
    // failure rate, provided the bulkhead has threads for them all: 250/s x 0.28 s = 70
    // calls in flight, about 100 with the retries of the timed-out third and the calls
    // they leave running. (With 100 threads a queue forms, queued calls time out too, and
    // the breaker opens on errors alone.) Most calls are over the 250 ms slow-call
    // threshold: fix 2 opens the breaker.
    let one = run(|c| {
        c.fixes = 1;
        c.pricing_slow_ms = 280;
        c.bulkhead_threads = 150;
    });
    let two = run(|c| {
        c.fixes = 2;
        c.pricing_slow_ms = 280;
        c.bulkhead_threads = 150;
    });
    assert_eq!(one.breaker_first_open_s, None);
    assert!(two
        .breaker_first_open_s
        .is_some_and(|t| t > 0.0 && t < 20.0));
}

#[test]
fn the_retry_budget_brings_attempts_back_near_1_per_submission() {
    let run = run(|c| c.fixes = 3);
    let factor = attempts_per_submission(&rows(&run, 2, 60));
    assert!(factor < 1.2, "{factor}");
    assert!(run.seconds.iter().any(|s| s.budget_refused > 0));
}

#[test]
fn the_out_of_band_cache_serves_nearly_every_user() {
    let run = run(|c| c.fixes = 4);
    let fault = rows(&run, 1, 60);
    let share = sum(&fault, |s| s.users.cached) / sum(&fault, |s| s.submissions);
    assert!(share > 0.99, "{share}");
    let headline = run.headline();
    let answered = f64::from(headline.users.answered()) / f64::from(headline.users.total());
    assert!(answered > 0.99, "{answered}");
    assert!(headline.history_ok_percent > 99.0);
}

#[test]
fn the_ladder_is_the_runs_of_each_step() {
    let config = BrownoutConfig::default();
    let ladder = brownout::ladder(&config).unwrap();
    assert_eq!(ladder.len(), 5);
    for (fixes, headline) in ladder.iter().enumerate() {
        let alone = run(|c| c.fixes = fixes as u8).headline();
        assert_eq!(headline, &alone);
    }
}

#[test]
fn the_run_answers_which_mechanism_makes_the_outage_worse() {
    // The large queue holds order's threads until they run out.
    let effects = mechanism_effects(&run(|c| c.queue_capacity = 200));
    assert_eq!(effects.worse, Some(Mechanism::Bulkhead));
    assert!(effects.order_ran_out);
    assert_eq!(effects.breaker_first_open_s, None);
    assert!((4.5..=5.5).contains(&effects.pricing_calls_per_second));
    assert_eq!(effects.concurrency_needed, 1_000);
    // With the default queue of 20 the bulkhead protects order; the retries multiply the
    // work: the course's answer.
    let effects = mechanism_effects(&run(|_| {}));
    assert_eq!(effects.worse, Some(Mechanism::Retry));
    assert!(!effects.order_ran_out);
    assert!(effects.attempts_per_submission >= 3.0);
    assert!(effects.hit_rate_last.unwrap() < effects.hit_rate_first.unwrap());
    // After the whole ladder, neither.
    assert_eq!(mechanism_effects(&run(|c| c.fixes = 4)).worse, None);
}

#[test]
fn every_submission_ends_in_exactly_one_user_outcome_and_nothing_exceeds_its_pool() {
    for (fixes, queue) in [(0, 200), (0, 20), (1, 200), (3, 20), (4, 0)] {
        let run = run(|c| {
            c.fixes = fixes;
            c.queue_capacity = queue;
        });
        for s in &run.seconds {
            let at = format!("fixes {fixes}, queue {queue}, second {}", s.t_s);
            assert_eq!(s.users.total(), s.submissions, "{at}");
            assert!(s.history_ok <= s.history_total, "{at}");
            assert!(s.order_threads <= 200, "{at}");
            assert!(
                s.order_threads_on_pricing + s.order_threads_in_retry_wait <= s.order_threads,
                "{at}"
            );
            assert!(s.accept_queue <= 100, "{at}");
            assert!(s.pricing_in_flight <= 20 && s.queued <= queue, "{at}");
            assert!(s.abandoned <= s.pricing_in_flight + s.queued, "{at}");
            // Wasted work only behind a read timeout; abandoned calls only behind a
            // time limiter.
            assert!(s.pricing_wasted == 0 || s.abandoned == 0, "{at}");
            assert!(
                s.retries <= s.attempts && s.cache_hits <= s.fallbacks,
                "{at}"
            );
            assert!(
                s.rejected + s.not_permitted <= s.attempts,
                "{at}: refusals are attempts"
            );
        }
        let submissions: u32 = run.seconds.iter().map(|s| s.submissions).sum();
        assert_eq!(submissions, 250 * 130);
    }
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let a = run(|c| c.seed = 7);
    let b = run(|c| c.seed = 7);
    assert_eq!(a, b);
    let c = run(|c| c.seed = 8);
    assert_ne!(a, c);
}

#[test]
fn bad_settings_are_refused_with_their_name_and_the_work_is_bounded() {
    let refused = |change: fn(&mut BrownoutConfig)| {
        let mut config = BrownoutConfig::default();
        change(&mut config);
        brownout::run(&config).expect_err("refused").to_string()
    };
    assert!(refused(|c| c.fixes = 5).contains("fixes"));
    assert!(refused(|c| c.order_threads = 0).contains("orderThreads"));
    assert!(refused(|c| c.zipf_exponent = f64::NAN).contains("zipfExponent"));
    assert!(refused(|c| c.randomization_factor = 2.0).contains("randomizationFactor"));
    assert!(refused(|c| c.failure_rate_threshold = 0.0).contains("failureRateThreshold"));
    // The largest rates, attempts and length at once would be millions of calls: refused
    // with the reason, before any work.
    let message = refused(|c| {
        c.submissions_per_second = 1_000;
        c.history_per_second = 1_000;
        c.max_attempts = 10;
        c.seconds = 600;
    });
    assert!(message.contains(&MAX_WORK.to_string()), "{message}");
    // The most a valid config may ask still runs.
    let mut big = BrownoutConfig {
        submissions_per_second: 1_000,
        max_attempts: 4,
        history_per_second: 0,
        seconds: 400,
        ..BrownoutConfig::default()
    };
    assert!(big.most_calls() <= MAX_WORK);
    big.fixes = 1;
    assert!(brownout::run(&big).is_ok());
}

#[test]
fn with_the_long_queue_the_faults_backlog_never_drains() {
    // 20 threads at 80 ms serve 250 calls a second, exactly the 250 that arrive (Little's
    // law: 20 in flight): the calls queued during the fault stay queued, each new call
    // waits behind them, and its user gives up.
    let long = run(|c| c.queue_capacity = 200);
    assert_eq!(long.users_recovered_s(), None);
    for s in rows(&long, 70, 120) {
        assert!(s.queued >= 150, "second {}: {} queued", s.t_s, s.queued);
        assert!(s.users.gave_up >= 240, "second {}", s.t_s);
    }
    // Five threads more drain it within seconds of the fault's end.
    let wider = run(|c| {
        c.queue_capacity = 200;
        c.bulkhead_threads = 25;
    });
    let recovered = wider.users_recovered_s().expect("recovers");
    assert!((61..=75).contains(&recovered), "{recovered}");
}
