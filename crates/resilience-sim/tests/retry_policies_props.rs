//! Demo 15 on any input: random settings of every policy and of both experiments either
//! run (with invariants that hold for every policy) or give a one-line error; nothing
//! panics. The brakes' own invariants: a refused retry is never made, and a bucket never
//! holds more than its cap.

use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use resilience_sim::model::retry_policies::{
    map, sweep, MapConfig, RetryPolicyKind, RetryPolicySettings, SweepConfig,
};
use resilience_sim::policy::retry::aws_standard::{
    AwsRequest, AwsStandardConfig, AwsStandardRetry,
};
use resilience_sim::policy::retry::grpc::{GrpcRetry, GrpcRetryConfig};
use resilience_sim::policy::retry::token_bucket::{TokenBucket, TokenBucketConfig};

/// A number that is sometimes absurd (negative, huge, not a number).
fn wild(normal: std::ops::Range<f64>) -> impl Strategy<Value = f64> {
    prop_oneof![
        30 => normal,
        1 => Just(f64::NAN),
        1 => Just(-1.0),
        1 => Just(1e12),
    ]
}

fn settings() -> impl Strategy<Value = RetryPolicySettings> {
    (
        // Mostly valid, so that most cases run; now and then out of range.
        (0u32..6, 0u64..3_000),
        (wild(0.0..200.0), 0u32..50),
        (wild(1.0..50.0), wild(0.0..1.0), wild(0.5..1.0)),
        (2u32..7, wild(1.0..20.0), wild(0.01..2.0), 0u64..2_000),
        (1u32..12, 0u32..1_000, 1u32..20),
        (wild(1.0..5.0), 5_000u64..200_000),
    )
        .prop_map(|(r4j, budget, bucket, grpc, aws, adaptive)| {
            let mut s = RetryPolicySettings::default();
            s.resilience4j.max_attempts = r4j.0;
            s.resilience4j.wait_duration = r4j.1;
            s.retry_budget.retry_percent = budget.0;
            s.finagle.min_retries_per_second = budget.1;
            s.token_bucket.capacity = bucket.0;
            s.token_bucket.success_reward = bucket.1;
            s.token_bucket.retry_cost = bucket.2;
            s.grpc.max_attempts = grpc.0;
            s.grpc.max_tokens = grpc.1;
            s.grpc.token_ratio = grpc.2;
            s.grpc.initial_backoff = grpc.3;
            s.aws_standard.max_attempts = aws.0;
            s.aws_standard.initial_retry_tokens = aws.1;
            s.aws_standard.retry_cost = aws.2;
            s.adaptive_throttling.k = adaptive.0;
            s.adaptive_throttling.window = adaptive.1;
            s
        })
}

fn policy() -> impl Strategy<Value = RetryPolicyKind> {
    (0usize..8).prop_map(|i| RetryPolicyKind::ALL[i])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_sweep_runs_or_says_why(
        settings in settings(),
        policy in policy(),
        f in wild(0.0..1.0),
        demand in 0u32..400,
        seed in any::<u64>(),
    ) {
        let config = SweepConfig {
            demand_per_second: demand,
            warmup: 1_000,
            measure: 1_000,
            failure_rates: vec![f],
            policies: vec![policy],
            settings,
            seed,
            ..SweepConfig::default()
        };
        match sweep::run(&config) {
            Ok(run) => {
                let p = &run.curves[0].points[0];
                prop_assert!(!p.truncated);
                prop_assert!((0.0..=1.0).contains(&p.success));
                prop_assert!((0.0..=1.0).contains(&p.refused));
                // No policy makes more attempts than its per-request limit (at most 12).
                prop_assert!(p.amplification <= 12.0);
                prop_assert!(p.success <= p.amplification + 1e-12, "a success needs an attempt");
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(!text.contains('\n') && text.len() < 400, "{}", text);
            }
        }
    }

    #[test]
    fn a_map_cell_runs_or_says_why(
        settings in settings(),
        policy in policy(),
        load in wild(0.0..1.5),
        trigger in wild(0.0..10.0),
        queue in 0u32..300,
        timeout in 0u64..3_000,
        seed in any::<u64>(),
    ) {
        let config = MapConfig {
            queue,
            timeout,
            warmup: 1_000,
            observe: 10_000,
            judge: 2_000,
            loads: vec![load],
            triggers_s: vec![trigger],
            policies: vec![policy],
            settings,
            seed,
            ..MapConfig::default()
        };
        match map::run(&config) {
            Ok(run) => {
                let cell = &run.rows[0].cells[0];
                prop_assert!(!cell.truncated);
                prop_assert!(cell.goodput >= 0.0);
                prop_assert_eq!(cell.recovered, cell.goodput >= 0.9);
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n')),
        }
    }

    #[test]
    fn brakes_keep_their_books(
        ops in proptest::collection::vec(0u8..3, 0..400),
        capacity in 0.5f64..20.0,
        seed in any::<u64>(),
    ) {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut bucket = TokenBucket::new(TokenBucketConfig {
            capacity,
            success_reward: capacity.min(0.1),
            retry_cost: capacity.min(1.0),
        })
        .unwrap();
        let mut grpc = GrpcRetry::new(GrpcRetryConfig::default()).unwrap();
        let mut aws = AwsStandardRetry::new(AwsStandardConfig::default()).unwrap();
        for op in ops {
            match op {
                0 => {
                    bucket.on_success();
                    grpc.on_success();
                    aws.on_success(&AwsRequest::default());
                }
                1 => {
                    let before = bucket.tokens();
                    if bucket.try_retry() {
                        prop_assert!(before >= capacity.min(1.0) - 0.0005);
                    } else {
                        prop_assert_eq!(bucket.tokens(), before, "a refusal takes nothing");
                    }
                    grpc.on_failure();
                    let tokens = grpc.tokens();
                    if grpc.retry_after(1, &mut rng).is_some() {
                        prop_assert!(tokens > 5.0);
                    }
                }
                _ => {
                    let before = aws.available();
                    // A retry after an error takes 14 tokens (the SDKs' rules since 2026).
                    match aws.retry_after(&mut AwsRequest::default(), 1, false, &mut rng) {
                        Some(_) => prop_assert_eq!(aws.available() + 14, before),
                        None => prop_assert!(before < 14),
                    }
                }
            }
            // Settings are kept to the nearest thousandth of a token.
            prop_assert!(bucket.tokens() <= capacity + 0.0005);
            prop_assert!((0.0..=10.0).contains(&grpc.tokens()));
            prop_assert!(aws.available() <= 500);
        }
    }
}

#[test]
fn settings_read_from_json_with_defaults() {
    let config: SweepConfig =
        serde_json::from_str(r#"{"failureRates": [0.1], "policies": ["grpc", "aws-standard"], "settings": {"grpc": {"maxTokens": 20}}}"#)
            .unwrap();
    assert_eq!(config.settings.grpc.max_tokens, 20.0);
    assert_eq!(config.settings.grpc.token_ratio, 0.1);
    assert_eq!(config.demand_per_second, 1_000);
    let unknown = serde_json::from_str::<MapConfig>(r#"{"lods": [0.5]}"#);
    assert!(unknown.is_err(), "a misspelt field is refused, not ignored");
}
