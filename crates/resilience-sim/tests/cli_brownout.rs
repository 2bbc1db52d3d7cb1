//! `resilience-sim lab brownout`: the issue's JSON shape and field names, the flags (every
//! control, kebab-case, `--queue`), seeding, and bad flags as a one-line error with exit
//! code 2.

use resilience_sim::scenario::brownout_lab::BrownoutLab;
use resilience_sim::scenario::lab_session::LabModel;
use serde_json::Value;

mod common;

use common::{cli, json, refused, sample_values};

fn seconds(run: &Value) -> &Vec<Value> {
    run["seconds"].as_array().expect("`seconds` is an array")
}

fn u(value: &Value) -> u64 {
    value.as_u64().expect("a whole number")
}

#[test]
fn brownout_prints_the_issues_fields_one_row_a_second() {
    let run = json(&["lab", "brownout"]);
    let rows = seconds(&run);
    assert_eq!(rows.len(), 130, "08:59:50 to 09:02:00");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["t_s"].as_i64(), Some(i as i64 - 9));
        for key in [
            "admitted",
            "queued",
            "rejected",
            "retries",
            "attempts",
            "not_permitted",
            "fallbacks",
            "cache_hits",
            "order_threads",
            "history_ok",
            "history_total",
        ] {
            assert!(row[key].is_u64(), "{key} in row {i}");
        }
        assert!(matches!(
            row["breaker"].as_str(),
            Some("CLOSED" | "OPEN" | "HALF_OPEN")
        ));
        for key in ["failure_rate", "slow_call_rate"] {
            assert!(row[key].is_null() || row[key].is_f64(), "{key} in row {i}");
        }
        let users = &row["users"];
        let total: u64 = ["live", "cached", "error", "gave_up"]
            .iter()
            .map(|k| u(&users[*k]))
            .sum();
        assert_eq!(total, 250, "every submission of row {i} ends once");
    }
    // The stack as configured: the breaker never opens.
    assert!(run["breaker_first_open_s"].is_null());
    // 09:00:10: the bulkhead's 20 threads are busy for 4 s a call, its queue of 20 is
    // full, and every refusal is tried again: several attempts a submission.
    let row = &rows[19];
    assert_eq!(row["t_s"], 10);
    assert_eq!(row["pricing_slow"], true);
    assert!(u(&row["admitted"]) <= 10);
    assert!(u(&row["attempts"]) >= 3 * 250, "{}", row["attempts"]);
    // The long queue, one flag away: it holds order's threads until there are none.
    let long = json(&["lab", "brownout", "--queue", "200"]);
    assert_eq!(u(&seconds(&long)[19]["order_threads"]), 200);
    // Pricing answers at its normal speed from 09:01:00 (the default fault of 60 s).
    assert_eq!(rows[69]["t_s"], 60);
    assert_eq!(rows[69]["pricing_slow"], true);
    assert_eq!(rows[70]["pricing_slow"], false);
}

#[test]
fn fixes_queue_and_kebab_case_flags_reach_the_model() {
    let alias = json(&[
        "lab",
        "brownout",
        "--fixes",
        "1",
        "--queue",
        "20",
        "--retry-bulkhead-full",
        "false",
        "--seconds",
        "30",
        "--seed",
        "3",
    ]);
    let table = json(&[
        "lab",
        "brownout",
        "--fixes",
        "1",
        "--queueCapacity",
        "20",
        "--retryBulkheadFull",
        "false",
        "--seconds",
        "30",
        "--seed",
        "3",
    ]);
    assert_eq!(alias, table);
    let rows = seconds(&alias);
    assert_eq!(rows.len(), 40);
    assert!(rows.iter().all(|r| u(&r["queued"]) <= 20));
    // Fix 1's read timeout opens the breaker within the 10 s window.
    let opened = alias["breaker_first_open_s"].as_f64().expect("it opens");
    assert!(opened > 0.0 && opened <= 10.0, "{opened}");
    // Not retrying BulkheadFullException: until the breaker opens, the only retries are
    // those of timed-out attempts, though the bulkhead refuses hundreds a second.
    let before: Vec<&Value> = rows
        .iter()
        .filter(|r| (r["t_s"].as_i64().unwrap() as f64) < opened)
        .collect();
    let retries: u64 = before.iter().map(|r| u(&r["retries"])).sum();
    let timeouts: u64 = before.iter().map(|r| u(&r["timeouts"])).sum();
    let rejected: u64 = before.iter().map(|r| u(&r["rejected"])).sum();
    assert!(
        retries <= timeouts,
        "{retries} retries, {timeouts} timeouts"
    );
    assert!(rejected > 1_000, "{rejected}");
}

#[test]
fn the_same_seed_prints_the_same_run() {
    let a = cli(&["lab", "brownout", "--seed", "7", "--seconds", "20"]);
    let b = cli(&["lab", "brownout", "--seed", "7", "--seconds", "20"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let c = cli(&["lab", "brownout", "--seed", "8", "--seconds", "20"]);
    assert_ne!(a.stdout, c.stdout);
}

#[test]
fn every_control_is_a_flag_and_no_value_of_its_range_panics() {
    for control in BrownoutLab::controls() {
        for value in sample_values(control) {
            let flag = format!("--{}", control.name);
            let out = cli(&["lab", "brownout", &flag, &value, "--seconds", "5"]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{flag} {value}: {stderr}");
            if !out.status.success() {
                // A value in range may still be refused by the model (a bulkhead of 500
                // threads and more), with one line.
                assert_eq!(out.status.code(), Some(2), "{flag} {value}");
                assert_eq!(stderr.lines().count(), 1, "{flag} {value}: {stderr}");
            }
        }
    }
}

#[test]
fn lab_help_lists_the_brownout_controls() {
    let out = cli(&["lab", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Controls of `lab brownout`"), "{text}");
    for flag in [
        "--fixes 0",
        "--queueCapacity 20",
        "--faultSeconds 60",
        "--timeoutKind readTimeout",
        "--retryBulkheadFull true",
        "--pricingSlowMs 4000",
        "--seconds 120",
        "--bulkheadThreads 20",
        "--timeoutMs 300",
        "--retryBudgetPercent 10",
        "--seed 1",
        "--queue 20",
    ] {
        assert!(text.contains(flag), "{flag} in lab --help");
    }
}

#[test]
fn bad_brownout_flags_exit_2_with_one_line() {
    let text = refused(&["lab", "brownout", "--fixes", "5"]);
    assert!(text.contains("fixes"), "{text}");
    let text = refused(&["lab", "brownout", "--queue", "-1"]);
    assert!(text.contains("queueCapacity"), "{text}");
    let text = refused(&["lab", "brownout", "--retry-bulkhead-full", "maybe"]);
    assert!(text.contains("retryBulkheadFull"), "{text}");
    let text = refused(&["lab", "brownout", "--pricing-slow-ms", "forever"]);
    assert!(text.contains("pricingSlowMs"), "{text}");
    let text = refused(&[
        "lab",
        "brownout",
        "--submissions-per-second",
        "1000",
        "--history-per-second",
        "1000",
        "--max-attempts",
        "10",
        "--seconds",
        "600",
    ]);
    assert!(text.contains("limit"), "{text}");
    refused(&["lab", "brownout", "--frobnicate", "1"]);
    refused(&["lab", "brownout", "--fixes"]);
}
