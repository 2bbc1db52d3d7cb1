//! The CLI and Resilience4j fragments: `demo N --resilience4j` prints a demo's settings,
//! `run FILE --resilience4j FRAGMENT` and `breaker FILE --resilience4j FRAGMENT` replay
//! with a fragment's settings; a bad fragment is one line on stderr and exit code 2.

mod common;

use std::path::PathBuf;

use common::{json, refused, stdout as text};
use serde_json::Value;

fn file(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rsim-r4j-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn scenario_of_demo(n: &str) -> PathBuf {
    file(&format!("demo{n}.toml"), &text(&["demo", n, "--scenario"]))
}

#[test]
fn demo_prints_its_settings_as_yaml_properties_or_java() {
    let yaml = text(&["demo", "5", "--resilience4j"]);
    assert!(yaml
        .starts_with("resilience4j:\n  circuitbreaker:\n    instances:\n      recommendations:\n"));
    // ../shared/spec/01-tick-model.md's breaker.
    for line in [
        "        failure-rate-threshold: 50\n",
        "        sliding-window-size: 4\n",
        "        minimum-number-of-calls: 4\n",
        "        wait-duration-in-open-state: 3s\n",
        "        permitted-number-of-calls-in-half-open-state: 2\n",
    ] {
        assert!(yaml.contains(line), "{line:?} in\n{yaml}");
    }
    let java = text(&["demo", "5", "--resilience4j", "java"]);
    assert!(java.contains("CircuitBreakerConfig recommendations = CircuitBreakerConfig.custom()"));
    // Demo 11 (a lab): the spec's bulkhead of 8 on the vendor call.
    let properties = text(&["demo", "11", "--resilience4j", "properties"]);
    assert!(properties.contains("resilience4j.bulkhead.instances.vendor.max-concurrent-calls=8\n"));
    refused(&["demo", "5", "--resilience4j", "xml"]);
}

#[test]
fn run_replays_a_scenario_with_a_fragments_timeout() {
    // Demo 4 (slow, no protection) with a 1 s time limiter: a slow call ends one tick after
    // it was sent, so recommendations holds only the tick's 2 calls and payment never
    // lacks a thread (6 threads, 2 + 1 calls a tick).
    let scenario = scenario_of_demo("4");
    let fragment = file(
        "timeout.yml",
        "resilience4j:\n  timelimiter:\n    instances:\n      recommendations:\n        timeout-duration: 1s\n",
    );
    let trace = json(&[
        "run",
        scenario.to_str().unwrap(),
        "--resilience4j",
        fragment.to_str().unwrap(),
    ]);
    let threads: Vec<Value> = trace["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["threads"]["recommendations"].clone())
        .collect();
    assert_eq!(threads, vec![Value::from(2); 6]);
    assert_eq!(trace["ticks"][5]["payment_failures"], 0);
}

#[test]
fn run_replays_a_scenario_with_a_fragments_bulkhead() {
    // Demo 7 with bulkheads of 2: recommendations never holds more than 2 threads.
    let scenario = scenario_of_demo("7");
    let fragment = file(
        "bulkhead.properties",
        "resilience4j.bulkhead.instances.recommendations.max-concurrent-calls=2\nresilience4j.bulkhead.instances.payment.max-concurrent-calls=2\n",
    );
    let trace = json(&[
        "run",
        scenario.to_str().unwrap(),
        "--resilience4j",
        fragment.to_str().unwrap(),
    ]);
    let most = trace["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["threads"]["recommendations"].as_u64().unwrap())
        .max();
    assert_eq!(most, Some(2));
}

#[test]
fn a_bad_fragment_is_one_line_with_its_key_and_line() {
    let scenario = scenario_of_demo("5");
    let fragment = file(
        "bad.yml",
        "resilience4j:\n  circuitbreaker:\n    instances:\n      recommendations:\n        failure-rate-treshold: 50\n        sliding-window-size: -3\n",
    );
    let message = refused(&[
        "run",
        scenario.to_str().unwrap(),
        "--resilience4j",
        fragment.to_str().unwrap(),
    ]);
    assert!(
        message.contains(
            "line 5: resilience4j.circuitbreaker.instances.recommendations.failure-rate-treshold"
        ),
        "{message}"
    );
    assert!(message.contains("(and 1 more)"), "{message}");
}

#[test]
fn breaker_scripts_take_a_fragments_breaker() {
    // Two failures: with the script's window of 4 calls the breaker cannot judge yet; with
    // the fragment's minimum of 2, 2 failures of 2 (100 % >= 50 %) open it.
    let script = file(
        "script.json",
        r#"{"config": {"slidingWindowSize": 4, "minimumNumberOfCalls": 4},
            "steps": [{"error": {"exception": "IOException"}}, {"error": {"exception": "IOException"}}]}"#,
    );
    let last_state = |args: &[&str]| -> Value {
        let out = text(args);
        let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
        last["state"].clone()
    };
    assert_eq!(last_state(&["breaker", script.to_str().unwrap()]), "CLOSED");
    let fragment = file(
        "small.yml",
        "resilience4j.circuitbreaker.instances.dependency:\n  sliding-window-size: 2\n  minimum-number-of-calls: 2\n",
    );
    assert_eq!(
        last_state(&[
            "breaker",
            script.to_str().unwrap(),
            "--resilience4j",
            fragment.to_str().unwrap()
        ]),
        "OPEN"
    );
}

#[test]
fn run_takes_the_instance_that_plays_recommendations() {
    // Demo 7 (breaker and bulkhead) with two bulkheads of its own names: one of 1, one of 3.
    let scenario = scenario_of_demo("7");
    let fragment = file(
        "named.properties",
        "resilience4j.bulkhead.instances.inventory.max-concurrent-calls=1\nresilience4j.bulkhead.instances.catalog.max-concurrent-calls=3\n",
    );
    let args = |instance: Option<&str>| {
        let mut args = vec![
            "run".to_string(),
            scenario.to_str().unwrap().to_string(),
            "--resilience4j".to_string(),
            fragment.to_str().unwrap().to_string(),
        ];
        if let Some(name) = instance {
            args.extend(["--instance".to_string(), name.to_string()]);
        }
        args
    };
    let plain = args(None);
    let message = refused(&plain.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        message.contains("2 instances (inventory, catalog) and none named recommendations"),
        "{message}"
    );
    assert!(message.contains("--instance NAME"), "{message}");
    // The bulkhead of 1 plays recommendations: it never holds more than 1 thread.
    let chosen = args(Some("inventory"));
    let trace = json(&chosen.iter().map(String::as_str).collect::<Vec<_>>());
    let most = trace["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["threads"]["recommendations"].as_u64())
        .max();
    assert_eq!(most, Some(1));
}
