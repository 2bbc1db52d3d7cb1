//! `resilience-sim lab retry-policies`: Demo 15's two experiments as JSON in the spec's
//! shapes, the spec's figures read back through it, the seed, each policy's settings as
//! flags named by their path (`--grpc.maxTokens 20`, read through Demo 15's control
//! table), and bad flags as one line with exit code 2. Tolerances as in
//! `retry_policies.rs`: about 20,000 requests per point, so 0.03 on an amplification that
//! chance sets, 0.01 where a brake's arithmetic sets it.

use resilience_sim::scenario::lab_session::{Control, LabModel};
use resilience_sim::scenario::retry_policies_lab::RetryPoliciesLab;
use serde_json::Value;

mod common;

use common::{cli, json, refused, sample_values, stdout};

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
    // The page's seed field and every other lab stop at nine digits.
    assert!(with(&["--seed", "1000000000"]).contains("from 0 to 999999999"));
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

/// The amplification at `f` of the only policy of a sweep run with `extra` flags.
fn one_point(policy: &str, f: f64, extra: &[&str]) -> Value {
    let rate = f.to_string();
    let args = [
        &[
            "lab",
            "retry-policies",
            "--policies",
            policy,
            "--failure-rates",
            &rate,
        ][..],
        extra,
    ]
    .concat();
    let run = json(&args);
    let points = run["policies"][policy].as_array().unwrap();
    assert_eq!(points.len(), 1, "{run}");
    points[0].clone()
}

fn amplification_with(policy: &str, f: f64, extra: &[&str]) -> f64 {
    one_point(policy, f, extra)["amplification"]
        .as_f64()
        .unwrap()
}

/// The settings flags: the controls of Demo 15's table named by a path, as the page's link
/// names them (the lab's own test list, independent of the binary's).
fn settings_controls() -> Vec<&'static Control<RetryPoliciesLab>> {
    RetryPoliciesLab::controls()
        .iter()
        .filter(|c| c.name.contains('.') && !c.name.starts_with("show."))
        .collect()
}

/// Each policy's settings change its figures as the spec's rules say.
#[test]
fn settings_flags_change_the_figures_as_the_rules_say() {
    // Resilience4j: maxAttempts 2 is 1 + f attempts per request, 2 at f = 1; the wait
    // changes when retries go, not how many.
    for wait in ["1s", "1500ms", "250"] {
        let p = one_point(
            "resilience4j",
            1.0,
            &[
                "--resilience4j.maxAttempts",
                "2",
                "--resilience4j.waitDuration",
                wait,
            ],
        );
        assert_eq!(p["amplification"], 2.0, "{wait}: {p}");
        assert_eq!(p["success"], 0.0, "{wait}: {p}");
    }
    // `--name=value` reads the same.
    assert_eq!(
        amplification_with("resilience4j", 1.0, &["--resilience4j.maxAttempts=2"]),
        2.0
    );
    // The budget's plateau at f = 1 is 1 + retryPercent: 1.5 for 50 %.
    close(
        amplification_with("retry-budget", 1.0, &["--retryBudget.retryPercent", "50"]),
        1.5,
        0.01,
        "budget 50 %",
    );
    // Finagle's: retryPercent + 10/s over 1,000/s, 1.11 for 10 %.
    close(
        amplification_with("finagle", 1.0, &["--finagle.retryPercent", "10"]),
        1.11,
        0.01,
        "finagle 10 %",
    );
    // gRPC retries while tokenRatio (1 - f) > f on average. Below 9.1 % (the default
    // ratio 0.1) the default's 5 tokens of margin still run dry now and then (1.6 % of
    // requests refused at 8 %); a margin of 500 never does: every retry is made.
    let default = one_point("grpc", 0.08, &[]);
    let roomy = one_point("grpc", 0.08, &["--grpc.maxTokens", "1000"]);
    close(
        roomy["amplification"].as_f64().unwrap(),
        1.0 + 0.08 + 0.0064 + 0.000512,
        0.01,
        "grpc 1000 tokens at 8 %",
    );
    assert!(roomy["success"].as_f64().unwrap() > 0.999, "{roomy}");
    assert!(default["success"].as_f64().unwrap() < 0.995, "{default}");
    // Above it, no margin keeps retries going: the count only falls.
    close(
        amplification_with("grpc", 0.12, &["--grpc.maxTokens", "1000"]),
        1.0,
        0.002,
        "grpc 1000 tokens at 12 %",
    );
    // With tokenRatio 1 the rule holds up to 50 %: at 30 % retries go on, as Resilience4j's
    // 1 + f + f^2 + f^3 (the default stops them).
    close(
        amplification_with(
            "grpc",
            0.3,
            &["--grpc.maxTokens", "1000", "--grpc.tokenRatio", "1"],
        ),
        1.0 + 0.3 + 0.09 + 0.027,
        0.03,
        "grpc ratio 1 at 30 %",
    );
    close(
        amplification_with("grpc", 0.3, &[]),
        1.0,
        0.002,
        "grpc at 30 %",
    );
}

/// The lead's example reads as a whole, a setting of another policy leaves a policy's
/// figures as they were, and the map runs with the settings too.
#[test]
fn settings_flags_reach_only_their_policies_and_the_map() {
    let args = [
        "lab",
        "retry-policies",
        "--policies",
        "aws-standard",
        "--failure-rates",
        "0.5",
    ];
    let others = [
        "--grpc.maxTokens",
        "20",
        "--resilience4j.maxAttempts",
        "3",
        "--finagle.retryPercent",
        "10",
        "--resilience4j.waitDuration",
        "1s",
    ];
    assert_eq!(stdout(&args), stdout(&[&args[..], &others[..]].concat()));
    // One attempt per request: 90 % load drains after a 20 s slowdown (4 attempts do not).
    let map = |extra: &[&str]| {
        let base = [
            "lab",
            "retry-policies",
            "--experiment",
            "map",
            "--policies",
            "resilience4j",
            "--loads",
            "0.9",
            "--triggers",
            "20",
        ];
        json(&[&base[..], extra].concat())["policies"]["resilience4j"][0]["recovered"].clone()
    };
    assert_eq!(map(&[]), false);
    assert_eq!(map(&["--resilience4j.maxAttempts", "1"]), true);
}

#[test]
fn bad_settings_are_one_line_errors_naming_the_flag() {
    let base = ["lab", "retry-policies", "--policies", "grpc"];
    let with = |extra: &[&str]| refused(&[&base[..], extra].concat());
    let text = with(&["--grpc.maxAttempts", "9"]);
    assert!(
        text.contains("--grpc.maxAttempts: must be between 2 attempts and 5 attempts (got 9)"),
        "{text}"
    );
    let text = with(&["--grpc.maxTokens", "abc"]);
    assert!(
        text.contains("--grpc.maxTokens: must be a number (got “abc”)"),
        "{text}"
    );
    let text = with(&["--resilience4j.waitDuration", "11s"]);
    assert!(
        text.contains("--resilience4j.waitDuration: must be between 0 ms and 10 s"),
        "{text}"
    );
    let text = with(&["--resilience4j.waitDuration", "1.5x"]);
    assert!(text.contains("--resilience4j.waitDuration: "), "{text}");
    let text = with(&["--retryBudget.retryPercent", "0"]);
    assert!(
        text.contains("--retryBudget.retryPercent: must be between 1"),
        "{text}"
    );
    // A setting's name misspelt: the policy's settings; a page control: not a flag.
    let text = with(&["--grpc.maxToken", "20"]);
    assert!(
        text.contains("--grpc.maxToken: not a setting of grpc"),
        "{text}"
    );
    assert!(text.contains("--grpc.maxTokens"), "{text}");
    let text = with(&["--retry-budget.retryPercent", "20"]);
    assert!(text.contains("--retryBudget.retryPercent"), "{text}");
    assert!(with(&["--show.grpc", "false"]).contains("--show.grpc is a control of the page only"));
    assert!(with(&["--yourLoad", "50"]).contains("of the page only"));
    // Any other flag: the list of the lab's own flags and where the settings are listed.
    let text = with(&["--maxTokens", "20"]);
    assert!(text.contains("--maxTokens: not a control"), "{text}");
    assert!(
        text.contains("--grpc.maxTokens") && text.contains("--help"),
        "{text}"
    );
    assert!(with(&["--grpc.maxTokens"]).contains("--grpc.maxTokens needs a value"));
}

/// Every setting's flag takes both ends of its range and a middle step (one cheap map cell
/// with the policy that reads it): a run, or a refusal of one line naming the flag (a
/// range end off the control's step grid), never a panic.
#[test]
fn every_setting_is_a_flag_and_no_value_of_its_range_panics() {
    let controls = settings_controls();
    assert!(controls.len() >= 20, "the seven policies' settings");
    for control in controls {
        let prefix = control.name.split('.').next().unwrap();
        let policy = NAMES
            .into_iter()
            .find(|n| n.replace('-', "").eq_ignore_ascii_case(prefix))
            .unwrap_or_else(|| panic!("{prefix}"));
        for value in sample_values(control) {
            let flag = format!("--{}", control.name);
            let args = [
                "lab",
                "retry-policies",
                "--experiment",
                "map",
                "--policies",
                policy,
                "--loads",
                "0.2",
                "--triggers",
                "0",
                &flag,
                &value,
            ];
            let out = cli(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{flag} {value}: {stderr}");
            if !out.status.success() {
                assert_eq!(out.status.code(), Some(2), "{flag} {value}");
                assert_eq!(stderr.lines().count(), 1, "{flag} {value}: {stderr}");
                assert!(
                    stderr.contains(&format!("{flag}: ")),
                    "{flag} {value}: {stderr}"
                );
            }
        }
    }
}

#[test]
fn help_lists_every_setting_with_its_default() {
    let text = stdout(&["lab", "--help"]);
    let defaults = RetryPoliciesLab::default();
    for control in settings_controls() {
        let line = format!("\n  --{} {}  ", control.name, control.text(&defaults));
        assert!(text.contains(&line), "{line:?}");
    }
    for line in [
        "--grpc.maxTokens 10  ",
        "--resilience4j.maxAttempts 4  ",
        "--resilience4j.waitDuration 500  ",
        "--finagle.retryPercent 20  ",
    ] {
        assert!(text.contains(line), "{line}");
    }
    assert!(!text.contains("--show.grpc"));
}
