//! Lab E (Demo 13), payment and shipping: the course's validation list as assertions
//! (../shared/spec/03-incident-labs.md, "Lab E", and issue 12), then conservation and
//! seeding.

use resilience_sim::model::checkout::{
    self, payment_fallback, Bulkheads, CallTrace, CheckoutConfig, CheckoutRun, CheckoutScenario,
    Dependency, SagaState, StackOrder, Threads, CONNECTIONS_PER_DEPENDENCY, PLATFORM_THREADS,
    SHOPPER_WAIT_MS, STALL_FROM_MS,
};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::policy::fallback::PaymentStatus;
use resilience_sim::scenario::checkout_lab::CheckoutLab;
use resilience_sim::scenario::lab_session::LabSession;
use resilience_sim::Outcome;

fn run_with(
    scenario: CheckoutScenario,
    order: StackOrder,
    bulkheads: Bulkheads,
    threads: Threads,
) -> CheckoutRun {
    checkout::run(&CheckoutConfig {
        scenario,
        order,
        bulkheads,
        threads,
        seed: 1,
    })
    .expect("a run")
}

/// The two stacks the lab had before the order and the bulkheads were separate choices:
/// Resilience4j's order with a bulkhead each, and the breaker outside the retry with one
/// shared bulkhead (the old `wrong`).
fn run(scenario: CheckoutScenario, order: StackOrder, threads: Threads) -> CheckoutRun {
    let bulkheads = match order {
        StackOrder::Resilience4j => Bulkheads::Separate,
        StackOrder::BreakerOutsideRetry => Bulkheads::Shared,
    };
    run_with(scenario, order, bulkheads, threads)
}

/// Every combination of the order and the bulkheads.
fn stacks() -> impl Iterator<Item = (StackOrder, Bulkheads)> {
    StackOrder::ALL
        .into_iter()
        .flat_map(|o| Bulkheads::ALL.into_iter().map(move |b| (o, b)))
}

fn r4j(scenario: CheckoutScenario) -> CheckoutRun {
    run(scenario, StackOrder::Resilience4j, Threads::Platform)
}

fn payments(run: &CheckoutRun) -> impl Iterator<Item = &CallTrace> {
    run.calls
        .iter()
        .filter(|c| c.dependency == Dependency::Payment)
}

fn provider_requests(call: &CallTrace) -> usize {
    call.attempts.iter().filter(|a| a.provider_request).count()
}

#[test]
fn a_decline_storm_of_100_calls_leaves_the_breaker_closed_and_makes_no_retry() {
    let run = r4j(CheckoutScenario::DeclineStorm);
    assert_eq!(run.payment.calls, 100);
    assert_eq!(run.payment.saga.declined, 100);
    assert_eq!(run.payment.retries, 0);
    assert_eq!(run.payment.provider_requests, 100);
    assert_eq!(run.payment.breaker_state_end, State::Closed);
    assert_eq!(
        run.payment.breaker_recorded_calls, 0,
        "declines are ignored"
    );
    assert!(run
        .seconds
        .iter()
        .all(|s| s.payment_breaker == State::Closed));
}

#[test]
fn a_read_timeout_on_a_capture_makes_exactly_one_provider_request_and_ends_uncertain() {
    for scenario in [
        CheckoutScenario::LostResponse,
        CheckoutScenario::ProviderTimeouts,
    ] {
        let run = r4j(scenario);
        let timed_out: Vec<&CallTrace> = payments(&run)
            .filter(|c| c.attempts.iter().any(|a| a.outcome == Outcome::ReadTimeout))
            .collect();
        assert!(timed_out.len() >= 10, "{scenario:?}");
        for call in timed_out {
            assert_eq!(
                provider_requests(call),
                1,
                "{scenario:?} call {}",
                call.index
            );
            assert_eq!(call.attempts.len(), 1);
            assert_eq!(call.saga, Some(SagaState::Uncertain));
        }
        assert_eq!(run.payment.retries, 0);
    }
}

/// Our side cannot tell a lost answer from a provider that timed out: the same attempts,
/// the same UNCERTAIN captures. The reconciliation by idempotency key can: the provider
/// captured every one in the first, none in the second.
#[test]
fn reconciliation_tells_a_lost_answer_from_a_provider_timeout() {
    let lost = r4j(CheckoutScenario::LostResponse);
    let timeouts = r4j(CheckoutScenario::ProviderTimeouts);
    assert_eq!(lost.payment.saga, timeouts.payment.saga);
    assert_eq!(
        lost.payment.provider_requests,
        timeouts.payment.provider_requests
    );
    let uncertain = lost.payment.saga.uncertain;
    assert!(uncertain >= 10);
    assert_eq!(
        (
            lost.payment.reconciled.captured,
            lost.payment.reconciled.not_captured
        ),
        (uncertain, 0)
    );
    assert_eq!(
        (
            timeouts.payment.reconciled.captured,
            timeouts.payment.reconciled.not_captured
        ),
        (0, uncertain)
    );
    assert_eq!(lost.payment.provider_captures, uncertain);
    assert_eq!(timeouts.payment.provider_captures, 0);
    assert!(payments(&lost)
        .filter(|c| c.saga == Some(SagaState::Uncertain))
        .all(|c| c.provider_captured));
    assert!(payments(&timeouts).all(|c| !c.provider_captured));
}

/// Digital goods need no shipping: every 4th order, and none of them asks the quoter.
#[test]
fn digital_orders_never_call_the_quoter() {
    for scenario in CheckoutScenario::ALL {
        for (order, bulkheads) in stacks() {
            let run = run_with(scenario, order, bulkheads, Threads::Platform);
            // Quotes every 50 ms, a digital order every 150 ms: a quarter of the orders.
            let ms = scenario.length_ms();
            assert_eq!(u64::from(run.digital_orders), ms / 150, "{scenario:?}");
            assert_eq!(u64::from(run.shipping.calls), ms / 50, "{scenario:?}");
            assert_eq!(
                run.quotes_from_digital, 0,
                "{scenario:?} {order:?} {bulkheads:?}"
            );
            assert_eq!(
                run.shipping.quotes.hidden, 0,
                "no quote hidden by a fallback"
            );
        }
    }
}

#[test]
fn a_connect_failure_makes_at_most_two_provider_requests() {
    for (order, bulkheads) in stacks() {
        let run = run_with(
            CheckoutScenario::ConnectionReset,
            order,
            bulkheads,
            Threads::Platform,
        );
        let mut most = 0;
        for call in payments(&run) {
            let requests = provider_requests(call);
            assert!(requests <= 2, "{order:?} call {}: {requests}", call.index);
            most = most.max(requests);
            assert_eq!(call.saga, Some(SagaState::NotSent));
        }
        // The first capture was retried once: the retry is there.
        assert_eq!(most, 2);
        assert_eq!(run.payment.provider_captures, 0);
    }
}

#[test]
fn ten_timeouts_within_the_window_open_the_breaker_and_the_next_call_is_not_sent() {
    let run = r4j(CheckoutScenario::ProviderTimeouts);
    // The breaker records an attempt when it ends: the 10th timeout opens it (a window of
    // 20, judged from 10 calls, 100 % failures).
    let mut ends: Vec<u64> = payments(&run)
        .filter(|c| c.saga == Some(SagaState::Uncertain))
        .map(|c| c.ended)
        .collect();
    ends.sort_unstable();
    let opened = ends[9];
    let next = payments(&run)
        .find(|c| c.arrived >= opened)
        .expect("a call after the breaker opened");
    assert!(!next.attempts[0].permitted, "call {}", next.index);
    assert_eq!(provider_requests(next), 0);
    assert_eq!(next.saga, Some(SagaState::NotSent));
    // Before it opened, calls went through.
    let before: Vec<&CallTrace> = payments(&run).filter(|c| c.arrived < opened).collect();
    assert!(before.len() >= 10);
    assert!(before.iter().all(|c| c.attempts[0].permitted));
}

#[test]
fn filling_the_shipping_bulkhead_leaves_payments_permits_untouched() {
    let run = r4j(CheckoutScenario::QuoterStall);
    // The stalled quotes take all 8 shipping permits until the shipping breaker opens.
    let full: Vec<_> = run
        .seconds
        .iter()
        .filter(|s| s.shipping_permits_min == Some(0))
        .collect();
    assert!(!full.is_empty());
    assert!(full.iter().all(|s| (11..=41).contains(&s.t_s)));
    // Payment's 20 permits: never more than the 4 captures in flight taken, full or not.
    assert!(run
        .seconds
        .iter()
        .all(|s| s.payment_permits_min >= Some(16)));
    assert_eq!(run.payment.saga.captured, 600);
    assert_eq!(run.payment.bulkhead_rejected, 0);
    // Quotes fall back to the agreed estimate (digital goods never asked for one).
    let quotes = run.shipping.quotes;
    assert!(quotes.estimate > 0);
    assert_eq!(
        quotes.live + quotes.estimate + quotes.hidden,
        run.shipping.calls
    );
}

#[test]
fn no_exception_through_the_payment_fallback_gives_captured() {
    for outcome in Outcome::ALL.into_iter().filter(|o| !o.is_success()) {
        let status = payment_fallback(outcome).status();
        assert_ne!(status, PaymentStatus::Captured, "{outcome:?}");
        let state = SagaState::of(status);
        assert!(
            matches!(state, SagaState::Uncertain | SagaState::NotSent),
            "{outcome:?}: {state:?}"
        );
    }
    // A read timeout may have captured: UNCERTAIN, never a plain error.
    assert_eq!(
        payment_fallback(Outcome::ReadTimeout).status(),
        PaymentStatus::Uncertain
    );
    // And in every run, CAPTURED comes only from the provider's own answer.
    for scenario in CheckoutScenario::ALL {
        for (order, bulkheads) in stacks() {
            let run = run_with(scenario, order, bulkheads, Threads::Platform);
            for call in payments(&run).filter(|c| c.saga == Some(SagaState::Captured)) {
                let last = call.attempts.last().unwrap();
                assert!(last.provider_request && last.outcome.is_success());
            }
        }
    }
}

#[test]
fn with_the_old_wrong_stack_the_breaker_records_what_resilience4j_s_order_does_not() {
    // A shared bulkhead: the stalled quoter's permits are payment's refusals, and payment's
    // breaker records them as failures of a provider that is healthy.
    let right = r4j(CheckoutScenario::QuoterStall);
    let wrong = run(
        CheckoutScenario::QuoterStall,
        StackOrder::BreakerOutsideRetry,
        Threads::Platform,
    );
    assert_eq!(right.payment.breaker_recorded_failures, 0);
    assert!(wrong.payment.breaker_recorded_failures > 0);
    assert!(wrong.payment.bulkhead_rejected > 0 && wrong.payment.not_permitted > 0);
    assert!(wrong.payment.saga.not_sent > 100);
    assert!(wrong
        .seconds
        .iter()
        .any(|s| s.payment_breaker == State::Open));
    // Retry inside the breaker: it records one outcome per call, after the retries, so
    // twice as many requests reach a refusing provider before it opens.
    let right = r4j(CheckoutScenario::ConnectionReset);
    let wrong = run(
        CheckoutScenario::ConnectionReset,
        StackOrder::BreakerOutsideRetry,
        Threads::Platform,
    );
    let first_refused = |run: &CheckoutRun| {
        payments(run)
            .take_while(|c| c.attempts[0].permitted)
            .map(provider_requests)
            .sum::<usize>()
    };
    // Resilience4j's order: 5 calls x 2 attempts fill the minimum of 10. The wrong order
    // needs 10 calls x 2 attempts (and the calls already under way when it opens).
    assert_eq!(first_refused(&right), 10);
    assert!(first_refused(&wrong) >= 20, "{}", first_refused(&wrong));
    // What a record is differs: an attempt in Resilience4j's order, a whole call in the
    // wrong one.
    assert!(right.payment.breaker_recorded_calls <= right.payment.provider_requests);
    assert!(wrong.payment.provider_requests >= 2 * wrong.payment.breaker_recorded_calls - 2);
}

#[test]
fn virtual_threads_make_connections_the_scarce_resource() {
    let platform = run(
        CheckoutScenario::QuoterStall,
        StackOrder::BreakerOutsideRetry,
        Threads::Platform,
    );
    let virtual_ = run(
        CheckoutScenario::QuoterStall,
        StackOrder::BreakerOutsideRetry,
        Threads::Virtual,
    );
    // With 10 connections for the quoter, stalled quotes hold at most 10 of the shared
    // permits (the others fail to connect within 200 ms and give theirs back): payment
    // loses far fewer captures, but the shared bulkhead still refuses some.
    assert!(virtual_.payment.saga.not_sent < platform.payment.saga.not_sent);
    assert!(virtual_.payment.bulkhead_rejected > 0);
}

#[test]
fn every_call_ends_once_and_the_same_seed_gives_the_same_run() {
    for scenario in CheckoutScenario::ALL {
        for (order, bulkheads) in stacks() {
            for threads in Threads::ALL {
                let run = run_with(scenario, order, bulkheads, threads);
                assert_eq!(run.payment.saga.total(), run.payment.calls);
                let q = run.shipping.quotes;
                assert_eq!(q.live + q.estimate + q.hidden, run.shipping.calls);
                assert!(run.calls.iter().all(|c| c.ended >= c.arrived));
                assert!(run.payment.bulkhead_available_min <= run.payment_permits);
                // Permits exactly when there is a bulkhead.
                let has_bulkhead = bulkheads != Bulkheads::None;
                assert_eq!(run.payment_permits.is_some(), has_bulkhead);
                assert_eq!(run.shipping.bulkhead_available_min.is_some(), has_bulkhead);
                assert!(run
                    .seconds
                    .iter()
                    .all(|s| s.shipping_permits_min.is_some() == has_bulkhead));
                // Only platform threads run out, and a call given up never got one.
                let given_up = run.payment.no_thread + run.shipping.no_thread;
                if threads == Threads::Virtual {
                    assert_eq!(given_up, 0);
                }
                let without_thread = run.calls.iter().filter(|c| c.attempts.is_empty());
                assert_eq!(without_thread.count() as u32, given_up);
                assert_eq!(
                    run.seconds.len() as u64,
                    scenario.length_ms() / 1_000,
                    "{scenario:?}"
                );
            }
        }
    }
    let config = CheckoutConfig {
        scenario: CheckoutScenario::GameDay,
        seed: 5,
        ..CheckoutConfig::default()
    };
    assert_eq!(checkout::run(&config), checkout::run(&config));
    let other = CheckoutConfig {
        seed: 6,
        ..config.clone()
    };
    assert_ne!(checkout::run(&config), checkout::run(&other));
}

/// The order alone: with a bulkhead each, the breaker outside the retry still gives a
/// refusing provider twice the requests before it opens, and a stalled quoter still costs
/// payment nothing.
#[test]
fn the_order_alone_changes_what_the_breaker_counts_not_what_the_quoter_takes() {
    let first_refused = |run: &CheckoutRun| {
        payments(run)
            .take_while(|c| c.attempts[0].permitted)
            .map(provider_requests)
            .sum::<usize>()
    };
    let outside = |scenario| {
        run_with(
            scenario,
            StackOrder::BreakerOutsideRetry,
            Bulkheads::Separate,
            Threads::Platform,
        )
    };
    // 10 calls x 2 attempts before the 10th recorded outcome, as with the shared bulkhead.
    assert!(first_refused(&outside(CheckoutScenario::ConnectionReset)) >= 20);
    let stall = outside(CheckoutScenario::QuoterStall);
    assert_eq!(stall.payment.saga.captured, 600);
    assert_eq!(stall.payment.breaker_recorded_failures, 0);
}

/// The bulkheads alone: in Resilience4j's order, one shared bulkhead still lets the
/// stalled quoter take payment's permits, and payment's breaker opens on a healthy
/// provider.
#[test]
fn the_shared_bulkhead_alone_starves_payment_in_either_order() {
    let shared = run_with(
        CheckoutScenario::QuoterStall,
        StackOrder::Resilience4j,
        Bulkheads::Shared,
        Threads::Platform,
    );
    assert!(shared.payment.bulkhead_rejected > 0);
    assert!(shared.payment.breaker_recorded_failures > 0);
    assert!(shared.payment.saga.not_sent > 100);
    assert!(shared
        .seconds
        .iter()
        .any(|s| s.payment_breaker == State::Open));
    assert_eq!(
        shared.payment.provider_captures,
        shared.payment.saga.captured
    );
}

/// No bulkhead, platform threads: the stalled quotes hold request threads (each for up to
/// 3 attempts of 2 s) while quotes keep arriving every 50 ms, so all 40 threads are taken
/// and captures wait in line for one. With the breaker outside the retry, the quoter's
/// breaker hears of the stall only when the first calls have used up their 3 attempts,
/// after 6 s and more: captures wait longer than the shopper's 1 s and are given up,
/// NOT_SENT although the provider is healthy. In Resilience4j's order the breaker records
/// every attempt and opens on the 10th timeout, 2.5 s into the stall, which frees the
/// threads before a capture has waited 1 s.
#[test]
fn without_a_bulkhead_a_stalled_quoter_takes_the_platform_threads_from_payment() {
    let length = CheckoutScenario::QuoterStall.length_ms();
    let captures = (length / 100) as u32;
    for order in StackOrder::ALL {
        let platform = run_with(
            CheckoutScenario::QuoterStall,
            order,
            Bulkheads::None,
            Threads::Platform,
        );
        assert!(
            platform
                .seconds
                .iter()
                .any(|s| s.threads_in_use == PLATFORM_THREADS),
            "{order:?}: the threads ran out"
        );
        let waited: Vec<&CallTrace> = payments(&platform)
            .filter(|c| c.started > c.arrived || c.attempts.is_empty())
            .collect();
        assert!(
            !waited.is_empty(),
            "{order:?}: captures waited for a thread"
        );
        // Only during the stall: the quoter takes the threads, not the provider.
        assert!(waited.iter().all(|c| c.arrived >= STALL_FROM_MS));
        // A capture given up never reached anything; every other one was captured.
        for c in payments(&platform).filter(|c| c.attempts.is_empty()) {
            assert_eq!(c.saga, Some(SagaState::NotSent));
            assert_eq!(c.ended - c.arrived, SHOPPER_WAIT_MS);
        }
        let p = &platform.payment;
        assert_eq!(p.saga.not_sent, p.no_thread, "{order:?}");
        assert_eq!(p.saga.captured + p.no_thread, captures);
        assert_eq!(p.breaker_recorded_failures, 0, "a healthy provider");
        match order {
            StackOrder::BreakerOutsideRetry => assert!(p.no_thread > 0),
            StackOrder::Resilience4j => {
                assert_eq!(p.no_thread, 0);
                // The 10th stalled quote arrived at 10.475 s and timed out 2 s later: the
                // shipping breaker was OPEN by the end of second 13.
                let opened = platform
                    .seconds
                    .iter()
                    .find(|s| s.shipping_breaker == State::Open)
                    .map(|s| s.t_s);
                assert_eq!(opened, Some(13));
            }
        }
    }
}

/// No bulkhead, virtual threads: payment keeps its threads and its own connections and
/// loses nothing; but nothing limits the calls to the stalled quoter under way: more of
/// them than its 10 connections, and more than with a bulkhead of 8.
#[test]
fn virtual_threads_remove_the_starvation_not_the_pile_up() {
    let length = CheckoutScenario::QuoterStall.length_ms();
    for order in StackOrder::ALL {
        let none = run_with(
            CheckoutScenario::QuoterStall,
            order,
            Bulkheads::None,
            Threads::Virtual,
        );
        let separate = run_with(
            CheckoutScenario::QuoterStall,
            order,
            Bulkheads::Separate,
            Threads::Virtual,
        );
        assert_eq!(u64::from(none.payment.saga.captured), length / 100);
        assert_eq!(none.payment.no_thread + none.shipping.no_thread, 0);
        assert!(payments(&none).all(|c| c.started == c.arrived));
        // Payment's calls under way are what the healthy provider needs, stall or not.
        assert_eq!(
            none.payment.under_way_max, separate.payment.under_way_max,
            "{order:?}"
        );
        let before = |run: &CheckoutRun| {
            run.seconds
                .iter()
                .filter(|s| u64::from(s.t_s) * 1_000 <= STALL_FROM_MS)
                .map(|s| s.shipping_under_way_max)
                .max()
                .unwrap_or(0)
        };
        // Healthy, a few quotes are under way; stalled, they pile up.
        assert!(before(&none) < CONNECTIONS_PER_DEPENDENCY);
        assert!(
            none.shipping.under_way_max > CONNECTIONS_PER_DEPENDENCY,
            "{order:?}: {}",
            none.shipping.under_way_max
        );
        assert!(none.shipping.under_way_max > separate.shipping.under_way_max);
        let peak = none
            .seconds
            .iter()
            .max_by_key(|s| s.shipping_under_way_max)
            .unwrap();
        assert!(u64::from(peak.t_s) * 1_000 > STALL_FROM_MS);
        assert_eq!(none.shipping.under_way_max, peak.shipping_under_way_max);
    }
}

/// An old link, `?demo=13&order=wrong` (and `--order wrong`), opens the stack it named:
/// the breaker outside the retry with one shared bulkhead; the link written back uses the
/// two new names.
#[test]
fn the_old_wrong_order_opens_as_the_breaker_outside_the_retry_with_a_shared_bulkhead() {
    for value in ["wrong", "WRONG", " wrong "] {
        let (session, problems) =
            LabSession::<CheckoutLab>::from_pairs([("scenario", "quoter-stall"), ("order", value)]);
        assert!(problems.is_empty(), "{problems:?}");
        let config = &session.config().config;
        assert_eq!(config.order, StackOrder::BreakerOutsideRetry);
        assert_eq!(config.bulkheads, Bulkheads::Shared);
        assert_eq!(
            session.to_pairs(),
            [
                ("scenario", "quoter-stall".to_string()),
                ("order", "breaker-outside-retry".to_string()),
                ("bulkheads", "shared".to_string()),
            ]
        );
        let run = session.run().as_ref().expect("a run");
        let expected = checkout::run(&CheckoutConfig {
            scenario: CheckoutScenario::QuoterStall,
            order: StackOrder::BreakerOutsideRetry,
            bulkheads: Bulkheads::Shared,
            ..CheckoutConfig::default()
        });
        assert_eq!(Ok(run), expected.as_ref());
    }
    // A later pair still says what it says.
    let (session, problems) =
        LabSession::<CheckoutLab>::from_pairs([("order", "wrong"), ("bulkheads", "none")]);
    assert!(problems.is_empty());
    assert_eq!(session.config().config.bulkheads, Bulkheads::None);
    // The new names read as themselves; a bad one is still named.
    let (session, _) = LabSession::<CheckoutLab>::from_pairs([("bulkheads", "none")]);
    assert_eq!(session.config().config.order, StackOrder::Resilience4j);
    let (_, problems) = LabSession::<CheckoutLab>::from_pairs([("bulkheads", "two")]);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].to_string().contains("bulkheads"),
        "{}",
        problems[0]
    );
}
