//! Lab E (Demo 13), payment and shipping: the course's validation list as assertions
//! (../shared/spec/03-incident-labs.md, "Lab E", and issue 12), then conservation and
//! seeding.

use resilience_sim::model::checkout::{
    self, payment_fallback, CallTrace, CheckoutConfig, CheckoutRun, CheckoutScenario, Dependency,
    SagaState, StackOrder, Threads,
};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::policy::fallback::PaymentStatus;
use resilience_sim::Outcome;

fn run(scenario: CheckoutScenario, order: StackOrder, threads: Threads) -> CheckoutRun {
    checkout::run(&CheckoutConfig {
        scenario,
        order,
        threads,
        seed: 1,
    })
    .expect("a run")
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
        for order in StackOrder::ALL {
            let run = run(scenario, order, Threads::Platform);
            // Quotes every 50 ms, a digital order every 150 ms: a quarter of the orders.
            let ms = scenario.length_ms();
            assert_eq!(u64::from(run.digital_orders), ms / 150, "{scenario:?}");
            assert_eq!(u64::from(run.shipping.calls), ms / 50, "{scenario:?}");
            assert_eq!(run.quotes_from_digital, 0, "{scenario:?} {order:?}");
            assert_eq!(
                run.shipping.quotes.hidden, 0,
                "no quote hidden by a fallback"
            );
        }
    }
}

#[test]
fn a_connect_failure_makes_at_most_two_provider_requests() {
    for order in StackOrder::ALL {
        let run = run(CheckoutScenario::ConnectionReset, order, Threads::Platform);
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
        .filter(|s| s.shipping_permits_min == 0)
        .collect();
    assert!(!full.is_empty());
    assert!(full.iter().all(|s| (11..=41).contains(&s.t_s)));
    // Payment's 20 permits: never more than the 4 captures in flight taken, full or not.
    assert!(run.seconds.iter().all(|s| s.payment_permits_min >= 16));
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
        for order in StackOrder::ALL {
            let run = run(scenario, order, Threads::Platform);
            for call in payments(&run).filter(|c| c.saga == Some(SagaState::Captured)) {
                let last = call.attempts.last().unwrap();
                assert!(last.provider_request && last.outcome.is_success());
            }
        }
    }
}

#[test]
fn with_the_wrong_order_the_breaker_records_what_resilience4j_s_order_does_not() {
    // A shared bulkhead: the stalled quoter's permits are payment's refusals, and payment's
    // breaker records them as failures of a provider that is healthy.
    let right = r4j(CheckoutScenario::QuoterStall);
    let wrong = run(
        CheckoutScenario::QuoterStall,
        StackOrder::Wrong,
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
        StackOrder::Wrong,
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
        StackOrder::Wrong,
        Threads::Platform,
    );
    let virtual_ = run(
        CheckoutScenario::QuoterStall,
        StackOrder::Wrong,
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
        for order in StackOrder::ALL {
            for threads in Threads::ALL {
                let run = run(scenario, order, threads);
                assert_eq!(run.payment.saga.total(), run.payment.calls);
                let q = run.shipping.quotes;
                assert_eq!(q.live + q.estimate + q.hidden, run.shipping.calls);
                assert!(run.calls.iter().all(|c| c.ended >= c.arrived));
                assert!(run.payment.bulkhead_available_min <= run.payment_permits);
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
