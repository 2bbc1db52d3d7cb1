//! `resilience-sim lab pool`: the issue's JSON shape, the table's flags and the issue's
//! aliases reaching the model, `lab --help` listing the controls, and bad flags as a
//! one-line error with exit code 2.

use serde_json::Value;

mod common;

use common::{cli, json, refused};

fn seconds(run: &Value) -> &Vec<Value> {
    run["seconds"].as_array().expect("`seconds` is an array")
}

fn u(value: &Value) -> u64 {
    value.as_u64().expect("a whole number")
}

#[test]
fn pool_prints_one_row_per_second() {
    let run = json(&["lab", "pool"]);
    let rows = seconds(&run);
    assert_eq!(rows.len(), 60);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(u(&row["t_s"]), i as u64 + 1);
        for key in [
            "fast_ok",
            "fast_total",
            "drm_ok",
            "drm_total",
            "threads_fast",
            "threads_drm",
            "threads_free",
            "drm_rejected_by_bulkhead",
            "accept_queue",
        ] {
            assert!(row[key].is_u64(), "{key} in second {}", i + 1);
        }
        assert_eq!(
            u(&row["threads_fast"]) + u(&row["threads_drm"]) + u(&row["threads_free"]),
            24
        );
        assert_eq!(row["cells"].as_array().unwrap().len(), 24);
    }
    assert_eq!(run["bulkhead"], "none");
    assert_eq!(run["drm_threads_needed_slow"].as_f64(), Some(250.0));
    // No bulkhead: /fast is down 5 s after the vendor went slow.
    assert!(u(&rows[15]["fast_ok"]) * 10 < u(&rows[15]["fast_total"]));
}

#[test]
fn the_issues_aliases_are_the_tables_flags() {
    let by_table = json(&[
        "lab",
        "pool",
        "--bulkhead",
        "semaphore",
        "--maxConcurrentCalls",
        "8",
        "--seconds",
        "20",
    ]);
    let by_alias = json(&["lab", "pool", "--bulkhead", "8", "--seconds", "20"]);
    assert_eq!(by_table, by_alias);
    assert_eq!(by_alias["bulkhead"], "semaphore");
    for row in seconds(&by_alias).iter().take(19) {
        assert_eq!(
            row["fast_ok"], row["fast_total"],
            "the bulkhead keeps /fast"
        );
    }

    let kebab = json(&[
        "lab",
        "pool",
        "--bulkhead",
        "none",
        "--threads",
        "24",
        "--rps-fast",
        "40",
        "--rps-drm",
        "30",
        "--vendor-slow-at-s",
        "5",
        "--vendor-ms",
        "3s",
        "--seconds",
        "12",
        "--seed",
        "4",
    ]);
    let camel = json(&[
        "lab",
        "pool",
        "--rpsFast",
        "40",
        "--rpsDrm",
        "30",
        "--vendorSlowAtS",
        "5",
        "--vendorMs",
        "3000",
        "--seconds",
        "12",
        "--seed",
        "4",
    ]);
    assert_eq!(kebab, camel);
    let rows = seconds(&kebab);
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[0]["fast_total"], 40);
    assert_eq!(rows[0]["drm_total"], 30);
    assert_eq!(kebab["vendor_slow_at_s"], 5);

    // --bulkhead N with --bulkhead-kind thread-pool: a pool of N threads (core = max).
    let pool_alias = json(&[
        "lab",
        "pool",
        "--bulkhead-kind",
        "thread-pool",
        "--bulkhead",
        "6",
        "--queue-capacity",
        "0",
        "--seconds",
        "15",
    ]);
    let pool_table = json(&[
        "lab",
        "pool",
        "--bulkhead",
        "thread-pool",
        "--coreThreadPoolSize",
        "6",
        "--maxThreadPoolSize",
        "6",
        "--queueCapacity",
        "0",
        "--seconds",
        "15",
    ]);
    assert_eq!(pool_alias, pool_table);
    assert_eq!(pool_alias["drm_thread_cap"], 6);
    assert!(u(&pool_alias["peak_vendor_calls"]) <= 6);
}

#[test]
fn the_same_seed_prints_the_same_run() {
    let a = cli(&["lab", "pool", "--arrivals", "poisson", "--seed", "7"]);
    let b = cli(&["lab", "pool", "--arrivals", "poisson", "--seed", "7"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let c = cli(&["lab", "pool", "--arrivals", "poisson", "--seed", "8"]);
    assert_ne!(a.stdout, c.stdout);
}

#[test]
fn lab_help_lists_the_pool_controls() {
    let out = cli(&["lab", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Controls of `lab pool`"), "{text}");
    for flag in [
        "--bulkhead none",
        "--maxConcurrentCalls 8",
        "--vendorSlowAtS 10",
        "--vendorMs 5000",
        "--threads 24",
        "--rpsFast 50",
        "--rpsDrm 50",
        "--seconds 60",
        "--maxWaitDuration 0",
        "--coreThreadPoolSize 8",
        "--maxThreadPoolSize 8",
        "--queueCapacity 100",
        "--keepAliveDuration 20",
        "--acceptCount 100",
        "--clientTimeoutMs 1000",
        "--seed 1",
        "--bulkhead N",
        "--bulkhead-kind",
    ] {
        assert!(text.contains(flag), "{flag} in lab --help");
    }
}

#[test]
fn bad_pool_flags_exit_2_with_one_line() {
    let text = refused(&["lab", "pool", "--threads", "0"]);
    assert!(text.contains("--threads"), "{text}");
    let text = refused(&["lab", "pool", "--rps-fast", "5000"]);
    assert!(text.contains("rpsFast"), "{text}");
    let text = refused(&["lab", "pool", "--bulkhead", "bulky"]);
    assert!(text.contains("--bulkhead"), "{text}");
    let text = refused(&["lab", "pool", "--bulkhead-kind", "sponge"]);
    assert!(text.contains("--bulkhead-kind"), "{text}");
    let text = refused(&[
        "lab",
        "pool",
        "--bulkhead",
        "none",
        "--bulkhead-kind",
        "thread-pool",
    ]);
    assert!(text.contains("disagree"), "{text}");
    let text = refused(&["lab", "pool", "--bulkhead", "999"]);
    assert!(text.contains("maxConcurrentCalls"), "{text}");
    let text = refused(&["lab", "pool", "--seconds", "601"]);
    assert!(text.contains("seconds"), "{text}");
    let text = refused(&["lab", "pool", "--vendorMs", "forever"]);
    assert!(text.contains("vendorMs"), "{text}");
    refused(&["lab", "pool", "--frobnicate", "1"]);
    refused(&["lab", "pool", "--threads"]);
    refused(&["lab", "pool", "threads", "3"]);
}
