//! Demo 15 (spec 05): the figures each retry policy must show, written from the spec's
//! formulas, not from the engine's output.
//!
//! How close is close: every sweep point measures about 20,000 requests (20 s at 1,000
//! requests/s after the warm-up). The attempts of one request have a variance of at most
//! about 1.5 (3 retries at f = 50 %), so the standard error of an amplification is about
//! sqrt(1.5 / 20,000) = 0.009, and of a success share at most sqrt(0.25 / 20,000) =
//! 0.0035. Where a figure is random, the tolerance is 0.03 (over 3 standard errors) and
//! 0.015 for a share. Where a brake binds, the figure is set by its arithmetic, not by
//! chance, and the tolerance is tighter (0.01). Where the spec's figure is itself an
//! approximation (AWS's quota, gRPC near its onset), the comment says which bound the
//! test checks.

use resilience_sim::model::retry_policies::{
    map, sweep, MapConfig, RetryPolicyKind, SweepConfig, SweepPoint,
};
use RetryPolicyKind::*;

const RATES: [f64; 5] = [0.0, 0.01, 0.1, 0.5, 1.0];

fn curve(policy: RetryPolicyKind) -> Vec<SweepPoint> {
    let config = SweepConfig {
        failure_rates: RATES.to_vec(),
        policies: vec![policy],
        ..SweepConfig::default()
    };
    let run = sweep::run(&config).unwrap();
    let points = run.curves[0].points.clone();
    assert!(points.iter().all(|p| !p.truncated));
    points
}

fn at(points: &[SweepPoint], f: f64) -> &SweepPoint {
    points.iter().find(|p| p.failure_rate == f).unwrap()
}

fn close(actual: f64, expected: f64, tolerance: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: {actual:.4}, expected {expected:.4} ± {tolerance}"
    );
}

/// 3 retries, no brake: 1 + f + f^2 + f^3 attempts, and a request fails only when all
/// four attempts fail (f^4).
fn three_retries(f: f64) -> f64 {
    1.0 + f + f * f + f * f * f
}

#[test]
fn none_makes_one_attempt_at_every_failure_rate() {
    let points = curve(None);
    for p in &points {
        assert_eq!(p.amplification, 1.0, "exactly one attempt per request");
        close(p.success, 1.0 - p.failure_rate, 0.015, "success = 1 - f");
        assert_eq!(p.refused, 0.0);
    }
}

#[test]
fn resilience4j_follows_one_plus_f_plus_f2_plus_f3() {
    let points = curve(Resilience4j);
    for f in RATES {
        let p = at(&points, f);
        close(p.amplification, three_retries(f), 0.03, &format!("f = {f}"));
        close(
            p.success,
            1.0 - f.powi(4),
            0.015,
            &format!("success at {f}"),
        );
        assert_eq!(
            p.refused, 0.0,
            "giving up after 4 attempts is not a refusal"
        );
    }
    assert_eq!(
        at(&points, 1.0).amplification,
        4.0,
        "4 attempts, every one failing"
    );
    assert_eq!(at(&points, 0.0).amplification, 1.0);
}

#[test]
fn the_course_budget_follows_3_retries_then_stays_near_1_1() {
    let points = curve(RetryBudget);
    // Below ~9 % the 3 retries want f + f^2 + f^3 < 0.1 retries per request: no brake.
    close(
        at(&points, 0.01).amplification,
        three_retries(0.01),
        0.03,
        "1 %",
    );
    // From 10 % on, retries are at most 10 % of the requests in any 10 s window: 1.1.
    // (3 retries would make 1.111 at 10 %, so the cap binds there already.)
    for f in [0.1, 0.5, 1.0] {
        close(at(&points, f).amplification, 1.1, 0.01, &format!("f = {f}"));
        assert!(at(&points, f).amplification <= 1.105, "the cap is a cap");
    }
    assert_eq!(at(&points, 1.0).success, 0.0);
}

#[test]
fn the_token_bucket_falls_to_one_as_successes_run_out() {
    let points = curve(TokenBucket);
    close(
        at(&points, 0.01).amplification,
        three_retries(0.01),
        0.03,
        "1 %",
    );
    // Binding: retries = 0.1 x successful attempts = 0.1 (1 - f)(1 + r), so
    // r = 0.1 (1 - f) / (1 - 0.1 (1 - f)): 0.0989 at 10 %, 0.0526 at 50 %, 0 at 100 %.
    let r = |f: f64| 0.1 * (1.0 - f) / (1.0 - 0.1 * (1.0 - f));
    close(at(&points, 0.1).amplification, 1.0 + r(0.1), 0.01, "10 %");
    close(at(&points, 0.5).amplification, 1.0 + r(0.5), 0.01, "50 %");
    // Nothing succeeds, nothing is earned: the 10 starting tokens went in the warm-up.
    assert_eq!(at(&points, 1.0).amplification, 1.0);
    // The lesson: at 50 % the bucket retries less than the budget counted on requests.
    let budget = curve(RetryBudget);
    assert!(at(&points, 0.5).amplification < at(&budget, 0.5).amplification - 0.03);
}

#[test]
fn finagle_defaults_settle_near_1_2() {
    let points = curve(Finagle);
    // 20 % of requests plus 10 retries/s over 1,000 requests/s: 0.21 retries per request,
    // more than 3 retries want below ~17.5 % (f + f^2 + f^3 = 0.21).
    close(
        at(&points, 0.01).amplification,
        three_retries(0.01),
        0.03,
        "1 %",
    );
    close(
        at(&points, 0.1).amplification,
        three_retries(0.1),
        0.03,
        "10 %",
    );
    for f in [0.5, 1.0] {
        close(
            at(&points, f).amplification,
            1.21,
            0.01,
            &format!("f = {f}"),
        );
    }
}

#[test]
fn grpc_stops_retrying_past_about_9_percent() {
    let points = curve(Grpc);
    // At 1 % the count gains 0.1 x 0.99 - 0.01 per attempt and stays at its ceiling.
    close(
        at(&points, 0.01).amplification,
        three_retries(0.01),
        0.03,
        "1 %",
    );
    // Past 0.1 (1 - f) = f (f = 9.1 %) the count drains; at 10 % it drifts down by only
    // 0.01 per attempt and wanders around the threshold, so a few retries still pass:
    // well under the 1.111 of 3 retries, at least 1.
    let ten = at(&points, 0.1).amplification;
    assert!((1.0..1.05).contains(&ten), "10 %: {ten}");
    // At 50 % the count loses 0.45 per attempt: it sits at 0, below the threshold of 5.
    close(at(&points, 0.5).amplification, 1.0, 0.002, "50 %");
    assert_eq!(at(&points, 1.0).amplification, 1.0);
}

#[test]
fn aws_standard_spends_its_quota_and_falls_to_one() {
    let points = curve(AwsStandard);
    // 3 attempts: 1 + f + f^2 while the quota holds (it gains 1 - f - 14 f^2 (1 + f) per
    // request, positive below ~21.5 %: the SDKs' rules since 2026, a retry costs 14).
    close(at(&points, 0.01).amplification, 1.0101, 0.03, "1 %");
    close(at(&points, 0.1).amplification, 1.11, 0.03, "10 %");
    close(
        at(&points, 0.1).success,
        1.0 - 0.001,
        0.015,
        "10 %: 1 - f^3",
    );
    // An empty quota retries what first-attempt successes pay for: a success earns 1, a
    // failed retry costs 14 net, so r = (1 - f) / (14 f): 0.071 at 50 % (0.2 under the
    // rules before 2026, 5 a retry). Approximate (the refund of a success after a retry
    // depends on which retry), hence ± 0.03.
    close(at(&points, 0.5).amplification, 1.0714, 0.03, "50 %");
    // Nothing succeeds, nothing comes back: the 500 tokens went in the warm-up.
    assert_eq!(at(&points, 1.0).amplification, 1.0);
}

#[test]
fn adaptive_throttling_drops_requests_past_half_failures() {
    let points = curve(AdaptiveThrottling);
    // K = 2: while at least half the requests are accepted, requests - 2 accepts < 0.
    for f in [0.0, 0.01, 0.1] {
        assert_eq!(at(&points, f).amplification, 1.0, "f = {f}");
        close(at(&points, f).success, 1.0 - f, 0.015, "success = 1 - f");
    }
    // Nothing accepted: p = requests / (requests + 1), within 1 % of dropping it all.
    let dead = at(&points, 1.0);
    assert!(dead.amplification < 0.01, "{}", dead.amplification);
    assert!(dead.refused > 0.99);
}

/// `(policy, below, above)`: failure rates just under and just over the analytic onset.
const ONSETS: [(RetryPolicyKind, f64, f64); 6] = [
    // f + f^2 + f^3 = 0.1 at f = 9.1 %.
    (RetryBudget, 0.07, 0.12),
    // f + f^2 + f^3 = 0.1 (1 - f) / (0.9 + 0.1 f) at f = 9.1 %.
    (TokenBucket, 0.07, 0.12),
    // f + f^2 + f^3 = 0.21 at f = 17.5 %.
    (Finagle, 0.14, 0.22),
    // 0.1 (1 - f) = f at 9.1 %; below, the count's excursions of 5 tokens get rarer
    // the stronger its upward drift: none at 2 % (drift + 0.078 per attempt).
    (Grpc, 0.02, 0.12),
    // 1 - f = 14 f^2 (1 + f) at 21.5 % (32 % under the rules before 2026).
    (AwsStandard, 0.18, 0.25),
    // 1 - 1/K = 50 %.
    (AdaptiveThrottling, 0.4, 0.6),
];

#[test]
fn each_brake_starts_refusing_where_its_formula_says() {
    for (policy, below, above) in ONSETS {
        let config = SweepConfig {
            failure_rates: vec![below, above],
            policies: vec![policy],
            ..SweepConfig::default()
        };
        let curve = &sweep::run(&config).unwrap().curves[0];
        let (low, high) = (&curve.points[0], &curve.points[1]);
        assert!(
            low.refused < sweep::ONSET_SHARE,
            "{}: refuses {} at {below}",
            policy.name(),
            low.refused
        );
        assert!(
            high.refused > 0.01,
            "{}: refuses only {} at {above}",
            policy.name(),
            high.refused
        );
        assert_eq!(curve.refusal_onset, Some(above), "{}", policy.name());
    }
}

#[test]
fn none_and_resilience4j_never_refuse() {
    let config = SweepConfig {
        failure_rates: vec![0.5, 1.0],
        policies: vec![None, Resilience4j],
        ..SweepConfig::default()
    };
    for curve in sweep::run(&config).unwrap().curves {
        assert_eq!(curve.refusal_onset, Option::None, "{}", curve.policy.name());
    }
}

#[test]
fn the_same_seed_gives_the_same_figures() {
    let config = SweepConfig {
        failure_rates: vec![0.3],
        policies: vec![AwsStandard, Grpc],
        measure: 2_000,
        warmup: 2_000,
        ..SweepConfig::default()
    };
    let a = sweep::run(&config).unwrap();
    assert_eq!(a, sweep::run(&config).unwrap());
    let other = sweep::run(&SweepConfig {
        seed: 2,
        ..config.clone()
    })
    .unwrap();
    assert_ne!(a, other, "another seed, other draws");
    // A cell's figures do not depend on the grid around it, nor on the other policies.
    let alone = sweep::run(&SweepConfig {
        failure_rates: vec![0.0, 0.3],
        policies: vec![Grpc],
        ..config
    })
    .unwrap();
    assert_eq!(alone.curves[0].points[1], a.curves[1].points[0]);
}

#[test]
fn settings_out_of_range_are_one_line_errors() {
    let bad = |config: SweepConfig| sweep::run(&config).unwrap_err().to_string();
    let text = bad(SweepConfig {
        failure_rates: vec![0.1, 1.5],
        ..SweepConfig::default()
    });
    assert_eq!(
        text,
        "failureRates: every value must be between 0 and 1 (got 1.5)"
    );
    assert!(bad(SweepConfig {
        failure_rates: vec![f64::NAN],
        ..SweepConfig::default()
    })
    .contains("failureRates"));
    assert!(bad(SweepConfig {
        failure_rates: vec![0.5; 102],
        ..SweepConfig::default()
    })
    .contains("1 to 101"));
    assert!(bad(SweepConfig {
        measure: 600_000,
        demand_per_second: 10_000,
        ..SweepConfig::default()
    })
    .contains("at most 1000000 requests"));
    let mut config = SweepConfig::default();
    config.settings.grpc.max_attempts = 9;
    assert!(bad(config).starts_with("settings.grpc.maxAttempts: must be between 2 and 5"));
    let mut config = SweepConfig::default();
    config.settings.token_bucket.retry_cost = -1.0;
    assert!(bad(config).starts_with("settings.tokenBucket.retryCost"));
    // A huge value is quoted as a person writes it, not by the digits of its binary value.
    let mut config = SweepConfig::default();
    config.settings.token_bucket.capacity = 1e300;
    assert_eq!(
        bad(config),
        "settings.tokenBucket.capacity: must be between 0.001 and 1000000 (got 1e300)"
    );
    let mut config = SweepConfig::default();
    config.settings.adaptive_throttling.k = f64::NAN;
    assert_eq!(
        bad(config),
        "settings.adaptiveThrottling.k: must be between 1 and 100 (got NaN)"
    );
    let config = MapConfig {
        triggers_s: vec![1.0; 13],
        ..MapConfig::default()
    };
    assert!(map::run(&config)
        .unwrap_err()
        .to_string()
        .contains("1 to 12"));
    let config = MapConfig {
        workers: 1_000,
        service: 1,
        ..MapConfig::default()
    };
    assert!(map::run(&config)
        .unwrap_err()
        .to_string()
        .starts_with("workers:"));
    // Every axis within its bounds, but the whole too much work.
    let text = bad(SweepConfig {
        failure_rates: vec![0.5; 101],
        demand_per_second: 10_000,
        warmup: 0,
        measure: 100_000,
        ..SweepConfig::default()
    });
    assert!(
        text.starts_with("failureRates: the sweep would make"),
        "{text}"
    );
    let config = MapConfig {
        workers: 100,
        loads: vec![2.0; 12],
        triggers_s: vec![120.0; 12],
        observe: 300_000,
        ..MapConfig::default()
    };
    let text = map::run(&config).unwrap_err().to_string();
    assert!(text.starts_with("loads: the map would make"), "{text}");
}

// ---------------------------------------------------------------------------------------
// The metastability map. The server: 10 workers x 100 ms = 100 calls/s, a queue of 200
// (2 s of work), a client timeout of 1 s, a 3x slowdown. Once the queue holds more than
// 1 s of work every call times out; with `a` attempts per request when all fail, the load
// after the trigger stays above capacity when `load x a > 1`, and the queue never drains.
// ---------------------------------------------------------------------------------------

fn cell(policy: RetryPolicyKind, load: f64, trigger_s: f64) -> map::MapCell {
    let cell = map::cell(&MapConfig::default(), policy, load, trigger_s).unwrap();
    assert!(!cell.truncated);
    cell
}

#[test]
fn without_retries_every_cell_recovers() {
    // Load 0.9: the queue's 200 calls drain at 100 - 90 = 10/s, in 20 s, well within 60 s.
    for (load, trigger) in [(0.5, 20.0), (0.9, 20.0), (0.9, 1.0)] {
        assert!(cell(None, load, trigger).recovered, "{load} {trigger}");
    }
}

#[test]
fn three_retries_never_recover_once_the_queue_overflows() {
    // 4 x 0.5 = 2 > 1: down after a trigger long enough to fill the queue past 1 s of
    // work ((50 - 33)/s for 10 s fills it).
    for (load, trigger) in [(0.5, 10.0), (0.9, 5.0), (0.9, 20.0)] {
        let c = cell(Resilience4j, load, trigger);
        assert!(!c.recovered, "{load} {trigger}: goodput {}", c.goodput);
        assert!(c.goodput < 0.1, "still down means nothing gets through");
        assert!(c.wasted > 0, "the server works for clients that left");
    }
    // Too short a trigger: (50 - 33)/s for 1 s queues 17 calls, 0.2 s of work.
    assert!(cell(Resilience4j, 0.5, 1.0).recovered);
    // Too low a load: the slowed server (33 calls/s) still keeps up with 20/s.
    assert!(cell(Resilience4j, 0.2, 20.0).recovered);
}

#[test]
fn the_budgets_shrink_the_region() {
    // retry budget: 1.1 x 0.8 = 0.88; Finagle: 1.2 x 0.7 + 10/s over 100/s = 0.94.
    assert!(cell(RetryBudget, 0.8, 20.0).recovered);
    assert!(cell(Finagle, 0.7, 20.0).recovered);
    // Finagle at 0.95: 1.2 x 0.95 + 0.1 = 1.24, far above capacity: still down.
    assert!(!cell(Finagle, 0.95, 20.0).recovered);
    // Brakes that stop retrying when nearly everything fails: ~1 attempt per request,
    // 0.9 < 1. Adaptive throttling sends even less.
    for policy in [TokenBucket, Grpc, AwsStandard, AdaptiveThrottling] {
        let c = cell(policy, 0.9, 20.0);
        assert!(c.recovered, "{}: goodput {}", policy.name(), c.goodput);
    }
}

#[test]
fn the_map_is_seeded_and_bounded() {
    let config = MapConfig {
        loads: vec![0.6],
        triggers_s: vec![5.0],
        policies: vec![Resilience4j, Grpc],
        ..MapConfig::default()
    };
    let a = map::run(&config).unwrap();
    assert_eq!(a, map::run(&config).unwrap());
    assert_eq!(a.rows.len(), 2);
    assert_eq!(a.rows[0].cells.len(), 1);
    let bad = MapConfig {
        loads: vec![0.5, f64::INFINITY],
        ..MapConfig::default()
    };
    assert!(map::run(&bad)
        .unwrap_err()
        .to_string()
        .starts_with("loads:"));
}
