//! `resilience-sim lab checkout`: the issue's JSON names, the flags, seeding, and bad
//! flags as a one-line error with exit code 2.

use serde_json::Value;

mod common;

use common::{cli, json, refused};

fn u(value: &Value) -> u64 {
    value.as_u64().expect("a whole number")
}

#[test]
fn checkout_prints_the_issues_figures() {
    for scenario in [
        "decline-storm",
        "quoter-stall",
        "connection-reset",
        "lost-response",
        "provider-timeouts",
        "game-day",
    ] {
        for (order, bulkheads) in [
            ("resilience4j", "separate"),
            ("resilience4j", "shared"),
            ("resilience4j", "none"),
            ("breaker-outside-retry", "separate"),
            ("breaker-outside-retry", "shared"),
            ("breaker-outside-retry", "none"),
        ] {
            for threads in ["platform", "virtual"] {
                let run = json(&[
                    "lab",
                    "checkout",
                    "--scenario",
                    scenario,
                    "--order",
                    order,
                    "--bulkheads",
                    bulkheads,
                    "--threads",
                    threads,
                ]);
                assert_eq!(run["order"], order);
                assert_eq!(run["bulkheads"], bulkheads);
                let payment = &run["payment"];
                for key in [
                    "attempts",
                    "provider_requests",
                    "retries",
                    "breaker_recorded_calls",
                    "not_permitted",
                    "no_thread",
                    "under_way_max",
                ] {
                    assert!(payment[key].is_u64(), "{scenario} {order}: payment.{key}");
                }
                // No bulkhead, no permits: null rather than a number that reads as one.
                let permits = &payment["bulkhead_available_min"];
                match bulkheads {
                    "none" => assert!(permits.is_null() && run["payment_permits"].is_null()),
                    _ => assert!(permits.is_u64(), "{scenario} {order} {bulkheads}"),
                }
                assert!(payment["breaker_state_end"].is_string());
                let saga: u64 = ["CAPTURED", "DECLINED", "UNCERTAIN", "NOT_SENT"]
                    .iter()
                    .map(|k| u(&payment["saga"][*k]))
                    .sum();
                assert_eq!(saga, u(&payment["calls"]), "{scenario} {order} {threads}");
                let shipping = &run["shipping"];
                for key in ["provider_requests", "under_way_max"] {
                    assert!(shipping[key].is_u64(), "{scenario} {order}: shipping.{key}");
                }
                assert_eq!(
                    shipping["bulkhead_available_min"].is_null(),
                    bulkheads == "none"
                );
                assert!(shipping["breaker_state_end"].is_string());
                let quotes: u64 = ["live", "estimate", "hidden"]
                    .iter()
                    .map(|k| u(&shipping["quotes"][*k]))
                    .sum();
                assert_eq!(quotes, u(&shipping["calls"]));
                assert!(run.get("calls").is_none(), "traces are the page's");
            }
        }
    }
    // Digital orders and the reconciliation, by the issue's names.
    for scenario in ["lost-response", "provider-timeouts"] {
        let run = json(&["lab", "checkout", "--scenario", scenario]);
        assert_eq!(run["quotes_from_digital"], 0);
        assert_eq!(
            run["digital_orders"], 400,
            "60 s, a digital order every 150 ms"
        );
        let reconciled = &run["payment"]["reconciled"];
        let uncertain = u(&run["payment"]["saga"]["UNCERTAIN"]);
        let (captured, not_captured) = (u(&reconciled["CAPTURED"]), u(&reconciled["NOT_CAPTURED"]));
        assert_eq!(captured + not_captured, uncertain);
        match scenario {
            "lost-response" => assert_eq!(not_captured, 0),
            _ => assert_eq!(captured, 0),
        }
    }
    // The decline storm, as the course says it.
    let storm = json(&["lab", "checkout", "--scenario", "decline-storm"]);
    assert_eq!(storm["payment"]["saga"]["DECLINED"], 100);
    assert_eq!(storm["payment"]["retries"], 0);
    assert_eq!(storm["payment"]["breaker_state_end"], "CLOSED");
}

/// The old `--order wrong` is the breaker outside the retry with one shared bulkhead.
#[test]
fn the_old_wrong_order_is_the_two_new_choices() {
    let old = cli(&[
        "lab",
        "checkout",
        "--scenario",
        "quoter-stall",
        "--order",
        "wrong",
    ]);
    assert!(old.status.success());
    let new = cli(&[
        "lab",
        "checkout",
        "--scenario",
        "quoter-stall",
        "--order",
        "breaker-outside-retry",
        "--bulkheads",
        "shared",
    ]);
    assert_eq!(old.stdout, new.stdout);
    let run = json(&["lab", "checkout", "--order", "wrong"]);
    assert_eq!(run["order"], "breaker-outside-retry");
    assert_eq!(run["bulkheads"], "shared");
    assert_eq!(run["payment_permits"], 20);
    assert_eq!(run["shipping_permits"], 20);
}

/// No bulkhead: on virtual threads a stalled quoter costs payment nothing, but the calls
/// to it pile up beyond its 10 connections; on platform threads, with the breaker outside
/// the retry, it takes the request threads and captures are given up, NOT_SENT.
#[test]
fn no_bulkhead_on_virtual_threads_moves_the_pile_up_to_the_quoter() {
    let args = |threads| {
        [
            "lab",
            "checkout",
            "--order",
            "breaker-outside-retry",
            "--bulkheads",
            "none",
            "--threads",
            threads,
            "--scenario",
            "quoter-stall",
        ]
    };
    let virtual_ = json(&args("virtual"));
    let payment = &virtual_["payment"];
    assert_eq!(payment["saga"]["CAPTURED"], 600);
    assert_eq!(payment["no_thread"], 0);
    assert!(payment["bulkhead_available_min"].is_null());
    assert!(u(&virtual_["shipping"]["under_way_max"]) > 10);
    let seconds = virtual_["seconds"].as_array().expect("seconds");
    assert_eq!(seconds.len(), 60);
    assert!(seconds.iter().all(|s| s["payment_permits_min"].is_null()));
    let platform = json(&args("platform"));
    let payment = &platform["payment"];
    let given_up = u(&payment["no_thread"]);
    assert!(given_up > 0);
    assert_eq!(u(&payment["saga"]["NOT_SENT"]), given_up);
    assert_eq!(u(&payment["saga"]["CAPTURED"]) + given_up, 600);
}

#[test]
fn the_same_seed_prints_the_same_run() {
    let args = ["lab", "checkout", "--scenario", "game-day", "--seed", "7"];
    let a = cli(&args);
    assert!(a.status.success());
    assert_eq!(a.stdout, cli(&args).stdout);
    let c = cli(&["lab", "checkout", "--scenario", "game-day", "--seed", "8"]);
    assert_ne!(a.stdout, c.stdout);
}

#[test]
fn bad_checkout_flags_exit_2_with_one_line() {
    let text = refused(&["lab", "checkout", "--scenario", "meteor"]);
    assert!(text.contains("scenario"), "{text}");
    let text = refused(&["lab", "checkout", "--order", "random"]);
    assert!(text.contains("order"), "{text}");
    let text = refused(&["lab", "checkout", "--bulkheads", "two"]);
    assert!(
        text.contains("bulkheads") && text.contains("separate, shared, none"),
        "{text}"
    );
    let text = refused(&["lab", "checkout", "--threads", "green"]);
    assert!(text.contains("threads"), "{text}");
    refused(&["lab", "checkout", "--seed", "-1"]);
    refused(&["lab", "checkout", "--frobnicate", "1"]);
}
