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
        for order in ["resilience4j", "wrong"] {
            for threads in ["platform", "virtual"] {
                let run = json(&[
                    "lab",
                    "checkout",
                    "--scenario",
                    scenario,
                    "--order",
                    order,
                    "--threads",
                    threads,
                ]);
                let payment = &run["payment"];
                for key in [
                    "attempts",
                    "provider_requests",
                    "retries",
                    "breaker_recorded_calls",
                    "not_permitted",
                    "bulkhead_available_min",
                ] {
                    assert!(payment[key].is_u64(), "{scenario} {order}: payment.{key}");
                }
                assert!(payment["breaker_state_end"].is_string());
                let saga: u64 = ["CAPTURED", "DECLINED", "UNCERTAIN", "NOT_SENT"]
                    .iter()
                    .map(|k| u(&payment["saga"][*k]))
                    .sum();
                assert_eq!(saga, u(&payment["calls"]), "{scenario} {order} {threads}");
                let shipping = &run["shipping"];
                for key in ["provider_requests", "bulkhead_available_min"] {
                    assert!(shipping[key].is_u64(), "{scenario} {order}: shipping.{key}");
                }
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
    let text = refused(&["lab", "checkout", "--threads", "green"]);
    assert!(text.contains("threads"), "{text}");
    refused(&["lab", "checkout", "--seed", "-1"]);
    refused(&["lab", "checkout", "--frobnicate", "1"]);
}
