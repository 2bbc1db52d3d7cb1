//! `resilience-sim lab amplification|jitter`: the JSON shape of both labs, flags reaching
//! the model, and bad flags as a one-line error with exit code 2.

use std::process::{Command, Output};

use serde_json::Value;

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(args)
        .output()
        .expect("the CLI starts")
}

fn json(args: &[&str]) -> Value {
    let out = cli(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON object on one line");
    serde_json::from_str(&text).expect("stdout is JSON")
}

fn refused(args: &[&str]) -> String {
    let out = cli(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    let text = String::from_utf8(out.stderr).unwrap();
    assert_eq!(text.lines().count(), 1, "{args:?}: one line, got {text:?}");
    assert!(text.starts_with("resilience-sim: "), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    text
}

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
        "--duration-ms",
        "3s",
        "--demand",
        "500",
        "--headroom",
        "40",
        "--degradation-start-ms",
        "1000",
        "--degradation-ms",
        "500",
        "--degraded-capacity",
        "10",
        "--waste",
        "2",
        "--retries",
        "1",
        "--budget-percent",
        "20",
        "--budget-ttl-ms",
        "5000",
        "--budget-min-retries-per-second",
        "5",
        "--backoff",
        "exponential",
        "--backoff-base-ms",
        "200",
        "--backoff-multiplier",
        "1.5",
        "--backoff-cap-ms",
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
    assert!(
        run["waiting_at_end"].as_u64().unwrap() > 0,
        "no jitter leaves clients waiting"
    );
    assert!(run["all_served_at_ms"].is_null());
    assert!(run["total_calls"].is_u64());

    let full = json(&["lab", "jitter", "--mode", "full", "--seed", "5"]);
    assert_eq!(full["waiting_at_end"], 0);
    assert!(full["all_served_at_ms"].is_u64());
    assert!(full["total_calls"].as_u64() < run["total_calls"].as_u64());

    let small = json(&[
        "lab",
        "jitter",
        "--mode",
        "equal",
        "--base-ms",
        "500",
        "--multiplier",
        "3",
        "--cap-ms",
        "2s",
        "--clients",
        "40",
        "--capacity",
        "7",
        "--duration-ms",
        "2000",
        "--seed",
        "1",
    ]);
    let slots = array(&small, "slots");
    assert_eq!(slots.len(), 21);
    assert!(slots.iter().all(|s| s["served"].as_u64().unwrap() <= 7));
    let served: u64 = slots.iter().map(|s| s["served"].as_u64().unwrap()).sum();
    assert_eq!(served + small["waiting_at_end"].as_u64().unwrap(), 40);
    assert_eq!(small["jitter"], "equal");
}

#[test]
fn bad_lab_flags_exit_2_with_one_line() {
    let text = refused(&["lab", "jitter", "--mode", "fuzzy"]);
    assert!(text.contains("--mode"), "{text}");
    let text = refused(&["lab", "amplification", "--policy", "maybe"]);
    assert!(text.contains("--policy"), "{text}");
    refused(&["lab", "amplification", "--backoff", "sometimes"]);
    refused(&["lab", "amplification", "--demand", "-5"]);
    refused(&["lab", "amplification", "--demand", "lots"]);
    refused(&["lab", "amplification", "--duration-ms", "5 parsecs"]);
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
    let text = refused(&["lab", "amplification", "--duration-ms", "150"]);
    assert!(text.contains("durationMs"), "{text}");
    let text = refused(&["lab", "jitter", "--clients", "0"]);
    assert!(text.contains("clients"), "{text}");
    let text = refused(&["lab", "jitter", "--multiplier", "inf"]);
    assert!(text.contains("multiplier"), "{text}");
    let text = refused(&["lab", "jitter", "--base-ms", "99999999999999999999"]);
    assert!(text.contains("base-ms"), "{text}");
}
