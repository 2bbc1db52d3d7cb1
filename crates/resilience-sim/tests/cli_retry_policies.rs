//! `resilience-sim lab retry-policies`: Demo 15's two experiments as JSON in the spec's
//! shapes, the spec's figures read back through it, the seed, and bad flags as one line
//! with exit code 2. Tolerances as in `retry_policies.rs`: about 20,000 requests per
//! point, so 0.03 on an amplification that chance sets, 0.01 where a brake's arithmetic
//! sets it.

use serde_json::Value;

mod common;

use common::{json, refused, stdout};

const NAMES: [&str; 8] = [
    "none",
    "resilience4j",
    "retry-budget",
    "token-bucket",
    "finagle",
    "grpc",
    "aws-standard",
    "adaptive-throttling",
];

fn policies(run: &Value) -> &serde_json::Map<String, Value> {
    let object = run.as_object().expect("an object");
    assert_eq!(object.len(), 1, "only `policies`: {run}");
    run["policies"]
        .as_object()
        .expect("`policies` is an object")
}

/// The amplification of `policy` at `f` in a sweep's JSON.
fn amplification(run: &Value, policy: &str, f: f64) -> f64 {
    run["policies"][policy]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["failure_rate"].as_f64() == Some(f))
        .unwrap_or_else(|| panic!("{policy} at {f}"))["amplification"]
        .as_f64()
        .unwrap()
}

fn close(actual: f64, expected: f64, tolerance: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: {actual}, expected {expected} ± {tolerance}"
    );
}

#[test]
fn the_sweep_prints_the_spec_figures() {
    let run = json(&[
        "lab",
        "retry-policies",
        "--experiment",
        "sweep",
        "--failure-rates",
        "0,0.01,0.1,0.5,1",
    ]);
    let curves = policies(&run);
    let mut names: Vec<&str> = curves.keys().map(String::as_str).collect();
    names.sort();
    let mut expected = NAMES.to_vec();
    expected.sort();
    assert_eq!(names, expected, "every policy by default");
    for (name, points) in curves {
        let points = points.as_array().unwrap();
        assert_eq!(points.len(), 5, "{name}");
        for p in points {
            let keys: Vec<&String> = p.as_object().unwrap().keys().collect();
            assert_eq!(keys.len(), 3, "{name}: {p}");
            for key in ["failure_rate", "amplification", "success"] {
                assert!(p[key].is_f64(), "{name}: {key} in {p}");
            }
            let success = p["success"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&success));
        }
    }
    for f in [0.0, 0.01, 0.1, 0.5, 1.0] {
        assert_eq!(amplification(&run, "none", f), 1.0);
        close(
            amplification(&run, "resilience4j", f),
            1.0 + f + f * f + f * f * f,
            0.03,
            &format!("resilience4j at {f}"),
        );
    }
    assert_eq!(amplification(&run, "resilience4j", 1.0), 4.0);
    // The course's budget: 3 retries at 1 %, then 10 % of the requests.
    close(
        amplification(&run, "retry-budget", 0.01),
        1.0101,
        0.03,
        "budget 1 %",
    );
    for f in [0.1, 0.5, 1.0] {
        close(amplification(&run, "retry-budget", f), 1.1, 0.01, "budget");
    }
    // Token bucket: 1 + 0.1 (1 - f) / (1 - 0.1 (1 - f)), so 1.053 at 50 %, 1.0 at 100 %.
    close(
        amplification(&run, "token-bucket", 0.5),
        1.0526,
        0.01,
        "bucket 50 %",
    );
    assert_eq!(amplification(&run, "token-bucket", 1.0), 1.0);
    // Finagle: 20 % + 10/s over 1,000/s.
    for f in [0.5, 1.0] {
        close(amplification(&run, "finagle", f), 1.21, 0.01, "finagle");
    }
    // gRPC: no retries once failures are well past 9 %.
    close(amplification(&run, "grpc", 0.5), 1.0, 0.002, "grpc 50 %");
    assert_eq!(amplification(&run, "grpc", 1.0), 1.0);
    // AWS: the quota spent, 1.0 at 100 %.
    assert_eq!(amplification(&run, "aws-standard", 1.0), 1.0);
    // Adaptive throttling drops what it would send to a backend that accepts nothing.
    assert!(amplification(&run, "adaptive-throttling", 1.0) < 0.01);
}

#[test]
fn the_sweep_takes_a_list_of_policies_and_a_seed() {
    let args = ["lab", "retry-policies", "--policies", "grpc,none"];
    let run = json(&args);
    let curves = policies(&run);
    assert_eq!(curves.len(), 2);
    let points = curves["grpc"].as_array().unwrap();
    assert_eq!(points.len(), 18, "the default grid, 0 to 100 %");
    assert_eq!(points[0]["failure_rate"], 0.0);
    assert_eq!(points[17]["failure_rate"], 1.0);
    // Seed 1 is the default; the same seed prints the same figures.
    let text = stdout(&args);
    assert_eq!(text, stdout(&[&args[..], &["--seed", "1"]].concat()));
    assert_ne!(text, stdout(&[&args[..], &["--seed", "2"]].concat()));
}

#[test]
fn the_map_prints_recovered_or_not_per_cell() {
    let run = json(&["lab", "retry-policies", "--experiment", "map"]);
    let rows = policies(&run);
    assert_eq!(rows.len(), 8);
    let down = |name: &str| -> Vec<(f64, f64)> {
        let cells = rows[name].as_array().unwrap();
        assert_eq!(cells.len(), 9 * 5, "{name}: 9 loads x 5 triggers");
        for c in cells {
            assert_eq!(c.as_object().unwrap().len(), 3, "{c}");
            assert!(c["load"].is_f64() && c["trigger_s"].is_f64(), "{c}");
        }
        cells
            .iter()
            .filter(|c| !c["recovered"].as_bool().expect("recovered is a boolean"))
            .map(|c| {
                (
                    c["load"].as_f64().unwrap(),
                    c["trigger_s"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    assert!(down("none").is_empty(), "no retries: every cell recovers");
    let naive = down("resilience4j");
    // 4 attempts per request: down at every load over 1/3 (the slowed server's share)
    // once the trigger lasts 5 s, a large region.
    for load in [0.5, 0.6, 0.7, 0.8, 0.9, 0.95] {
        for trigger in [5.0, 10.0, 20.0] {
            assert!(naive.contains(&(load, trigger)), "{load} {trigger}");
        }
    }
    assert!(naive.len() >= 18);
    // The budgets shrink it: only loads of 0.9 and more remain, where 1.1 x load or
    // 1.2 x load + 0.1 reaches the capacity.
    for name in ["retry-budget", "finagle"] {
        let region = down(name);
        assert!(region.len() < naive.len() / 2, "{name}: {region:?}");
        assert!(
            region.iter().all(|(load, _)| *load >= 0.8),
            "{name}: {region:?}"
        );
    }
    // Brakes that fall to ~1 attempt per request when everything fails keep load < 1.
    for name in [
        "token-bucket",
        "grpc",
        "aws-standard",
        "adaptive-throttling",
    ] {
        let region = down(name);
        assert!(
            region.iter().all(|(load, _)| *load >= 0.95),
            "{name}: {region:?}"
        );
    }
}

#[test]
fn the_map_takes_its_axes() {
    let run = json(&[
        "lab",
        "retry-policies",
        "--experiment",
        "map",
        "--policies",
        "resilience4j",
        "--loads",
        "0.2,0.9",
        "--triggers",
        "20",
    ]);
    let cells = run["policies"]["resilience4j"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[0]["load"], 0.2);
    assert_eq!(cells[0]["trigger_s"], 20.0);
    assert_eq!(cells[0]["recovered"], true, "33/s slowed still serve 20/s");
    assert_eq!(cells[1]["recovered"], false, "4 x 0.9 > 1");
}

#[test]
fn bad_flags_are_one_line_errors() {
    let base = ["lab", "retry-policies"];
    let with = |extra: &[&str]| refused(&[&base[..], extra].concat());
    assert!(with(&["--experiment", "chart"]).contains("--experiment: use sweep or map"));
    let long = "x".repeat(500);
    let text = with(&["--policies", &format!("none,{long}")]);
    assert!(text.contains("--policies: no policy"), "{text}");
    assert!(text.contains(&format!("“{}…”", "x".repeat(40))), "{text}");
    assert!(with(&["--seed", "-3"]).contains("--seed: expected a whole number"));
    assert!(with(&["--seed", "1.5"]).contains("“1.5”"));
    assert!(with(&["--rate", "3"]).contains("--rate: not a control"));
    assert!(with(&["--failure-rates", "0.1,2"]).contains("--failure-rates: every value"));
    assert!(with(&["--failure-rates", "0.1,,0.2"]).contains("--failure-rates: expected numbers"));
    assert!(with(&["--loads", "0.5"]).contains("belong to --experiment map"));
    assert!(with(&["--experiment", "map", "--failure-rates", "0.5"]).contains("belongs to"));
    assert!(with(&["--experiment", "map", "--loads", "0,0.5"]).contains("--loads:"));
    let triggers = vec!["1"; 13].join(",");
    assert!(with(&["--experiment", "map", "--triggers", &triggers]).contains("1 to 12"));
    assert!(with(&["--seed"]).contains("--seed needs a value"));
}

#[test]
fn help_names_every_policy() {
    let text = stdout(&["lab", "--help"]);
    assert!(text.contains("Controls of `lab retry-policies`"), "{text}");
    for name in NAMES {
        assert!(text.contains(&format!("    {name}: ")), "{name}");
    }
}
