//! `resilience-sim lab amplification|jitter`: the JSON shape of both labs, flags reaching
//! the model, and bad flags as a one-line error with exit code 2.

use serde_json::Value;

mod common;

use common::{cli, json, refused};

fn array<'a>(value: &'a Value, key: &str) -> &'a Vec<Value> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("`{key}` is an array"))
}

#[test]
fn amplification_prints_steps() {
    let run = json(&["lab", "amplification"]);
    let steps = array(&run, "steps");
    assert_eq!(steps.len(), 600, "60 s in 100 ms steps");
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step["t_ms"], (i * 100) as u64);
        for key in ["offered", "succeeded", "requests", "retries", "failed"] {
            assert!(step[key].is_u64(), "{key} in step {i}");
        }
        assert!(step["capacity"].is_number());
        assert!(step["overloaded"].is_boolean());
    }
    assert_eq!(run["policy"], "retries", "the default policy");
    assert!(run["totals"]["calls"].is_u64());
    assert!(run["recovered_at_ms"].is_null(), "3 retries: metastable");
}

#[test]
fn amplification_flags_reach_the_model() {
    let none = json(&["lab", "amplification", "--policy", "none"]);
    assert_eq!(none["recovered_at_ms"], none["degradation_end_ms"]);
    assert_eq!(none["totals"]["retries"], 0);

    let budget = json(&["lab", "amplification", "--policy", "budget"]);
    assert!(budget["recovered_at_ms"].is_u64());
    assert!(budget["totals"]["budget_refused"].as_u64().unwrap() > 0);

    let short = json(&[
        "lab",
        "amplification",
        "--durationMs",
        "3s",
        "--demandPerSecond",
        "500",
        "--headroomPercent",
        "40",
        "--degradationStartMs",
        "1000",
        "--degradationMs",
        "500",
        "--degradedCapacityPercent",
        "10",
        "--waste",
        "2",
        "--retries",
        "1",
        "--budgetPercent",
        "20",
        "--budgetTtlMs",
        "5000",
        "--budgetMinRetriesPerSecond",
        "5",
        "--backoff",
        "exponential",
        "--backoffBaseMs",
        "200",
        "--backoffMultiplier",
        "1.5",
        "--backoffCapMs",
        "1000",
        "--jitter",
        "decorrelated",
        "--seed",
        "9",
    ]);
    let steps = array(&short, "steps");
    assert_eq!(steps.len(), 30);
    assert_eq!(steps[0]["requests"], 500);
    assert_eq!(steps[0]["capacity"].as_f64(), Some(700.0));
    assert_eq!(steps[10]["capacity"].as_f64(), Some(70.0));
    assert_eq!(short["degradation_start_ms"], 1000);
    assert_eq!(short["degradation_end_ms"], 1500);
    // At most one retry per request.
    let t = &short["totals"];
    assert!(t["calls"].as_u64().unwrap() <= 2 * t["requests"].as_u64().unwrap());

    let a = cli(&[
        "lab",
        "amplification",
        "--backoff",
        "fixed",
        "--jitter",
        "full",
        "--seed",
        "3",
    ]);
    let b = cli(&[
        "lab",
        "amplification",
        "--backoff",
        "fixed",
        "--jitter",
        "full",
        "--seed",
        "3",
    ]);
    assert_eq!(a.stdout, b.stdout, "same seed, same output");
}

#[test]
fn jitter_prints_slots_and_totals() {
    let run = json(&["lab", "jitter"]);
    let slots = array(&run, "slots");
    assert_eq!(slots.len(), 151, "slots up to and including 15.0 s");
    for (i, slot) in slots.iter().enumerate() {
        assert_eq!(slot["t_ms"], (i * 100) as u64);
        for key in ["calls", "served", "waiting"] {
            assert!(slot[key].is_u64(), "{key} in slot {i}");
        }
        assert!(slot["served"].as_u64().unwrap() <= 150);
    }
    // The spec's figures: waves of 1,000, 850, 700, 550 and 400 calls at 0, 1, 3, 7 and
    // 15 s, 150 served in each, 250 still waiting after the slot at 15 s.
    assert_eq!(run["mode"], "none");
    let waves: Vec<(u64, u64)> = slots
        .iter()
        .filter(|s| s["calls"].as_u64().unwrap() > 0)
        .map(|s| (s["t_ms"].as_u64().unwrap(), s["calls"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        waves,
        vec![
            (0, 1_000),
            (1_000, 850),
            (3_000, 700),
            (7_000, 550),
            (15_000, 400)
        ]
    );
    assert_eq!(
        run["waiting_at_end"], 250,
        "no jitter leaves clients waiting"
    );
    assert!(run["all_served_at_ms"].is_null());
    assert_eq!(run["total_calls"], 3_500);

    // Full jitter: everyone served in about 1.5 s, with fewer calls.
    let full = json(&["lab", "jitter", "--mode", "full", "--seed", "5"]);
    assert_eq!(full["mode"], "full");
    assert_eq!(full["waiting_at_end"], 0);
    let served_at = full["all_served_at_ms"].as_u64().unwrap();
    assert!((1_000..=2_000).contains(&served_at), "{served_at} ms");
    assert!(full["total_calls"].as_u64() < run["total_calls"].as_u64());

    let small = json(&[
        "lab",
        "jitter",
        "--mode",
        "equal",
        "--baseMs",
        "500",
        "--multiplier",
        "3",
        "--capMs",
        "2s",
        "--clients",
        "40",
        "--capacityPerSlot",
        "7",
        "--durationMs",
        "2000",
        "--seed",
        "1",
    ]);
    let slots = array(&small, "slots");
    assert_eq!(slots.len(), 21);
    assert!(slots.iter().all(|s| s["served"].as_u64().unwrap() <= 7));
    let served: u64 = slots.iter().map(|s| s["served"].as_u64().unwrap()).sum();
    assert_eq!(served + small["waiting_at_end"].as_u64().unwrap(), 40);
    assert_eq!(small["mode"], "equal");
    assert!(small.get("jitter").is_none(), "the mode is named `mode`");
}

#[test]
fn bad_lab_flags_exit_2_with_one_line() {
    let text = refused(&["lab", "jitter", "--mode", "fuzzy"]);
    assert!(text.contains("--mode"), "{text}");
    let text = refused(&["lab", "amplification", "--policy", "maybe"]);
    assert!(text.contains("--policy"), "{text}");
    refused(&["lab", "amplification", "--backoff", "sometimes"]);
    refused(&["lab", "amplification", "--demandPerSecond", "-5"]);
    refused(&["lab", "amplification", "--demandPerSecond", "lots"]);
    refused(&["lab", "amplification", "--durationMs", "5 parsecs"]);
    refused(&["lab", "amplification", "--frobnicate"]);
    refused(&["lab", "jitter", "--clients", "1", "--clients"]);
    refused(&["lab", "teleport"]);
    refused(&["lab"]);
    // Values that parse but the model refuses name the setting.
    let text = refused(&["lab", "amplification", "--retries", "99"]);
    assert!(text.contains("retries"), "{text}");
    let text = refused(&["lab", "amplification", "--waste", "NaN"]);
    assert!(text.contains("waste"), "{text}");
    let text = refused(&["lab", "amplification", "--jitter", "full"]);
    assert!(text.contains("jitter"), "{text}");
    let text = refused(&["lab", "amplification", "--durationMs", "150"]);
    assert!(text.contains("durationMs"), "{text}");
    let text = refused(&["lab", "jitter", "--clients", "0"]);
    assert!(text.contains("clients"), "{text}");
    let text = refused(&["lab", "jitter", "--multiplier", "inf"]);
    assert!(text.contains("multiplier"), "{text}");
    let text = refused(&["lab", "jitter", "--baseMs", "99999999999999999999"]);
    assert!(text.contains("baseMs"), "{text}");
}
