//! Resilience4j configuration out and in: every setting round-trips through YAML and
//! `.properties`; the key names and values are Resilience4j 2.4.0's Spring Boot binding
//! (`Common*ConfigurationProperties`) and ../shared/spec/01-tick-model.md's; bad input is
//! one line per problem with its line number, and nothing is applied.

use resilience_sim::resilience4j::labs::LabResilience4j;
use std::collections::BTreeMap;

use proptest::prelude::*;
use resilience_sim::model::tick::{Behaviour, Protection, TickConfig};
use resilience_sim::policy::bulkhead::{BulkheadConfig, ThreadPoolBulkheadConfig};
use resilience_sim::policy::circuit_breaker::{
    CircuitBreakerConfig, OpenWaitFunction, SlidingWindowType, State,
};
use resilience_sim::policy::retry::{IntervalFunction, RetryConfig};
use resilience_sim::policy::time_limiter::TimeLimiterConfig;
use resilience_sim::resilience4j::{
    self as r4j, apply_to_sandbox, apply_to_tick, import_tick, read, tick_instances, to_java,
    to_properties, to_yaml, Instance, Kind, PolicyConfig,
};
use resilience_sim::scenario::brownout_lab::BrownoutLab;
use resilience_sim::scenario::catalogue;
use resilience_sim::scenario::checkout_lab::CheckoutLab;
use resilience_sim::scenario::labs::{AmplificationLab, JitterLab};
use resilience_sim::scenario::pool_lab::PoolLab;
use resilience_sim::scenario::sandbox::{BreakerSandbox, SandboxSettings};

// ---------------------------------------------------------------------------------------
// Configs with every field away from Resilience4j's default
// ---------------------------------------------------------------------------------------

fn breaker(exponential: bool) -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        failure_rate_threshold: 42.5,
        slow_call_rate_threshold: 80.0,
        slow_call_duration_threshold: 2_500,
        sliding_window_type: SlidingWindowType::TimeBased,
        sliding_window_size: 30,
        minimum_number_of_calls: 12,
        permitted_number_of_calls_in_half_open_state: 7,
        wait_duration_in_open_state: 15_000,
        wait_interval_function_in_open_state: exponential.then_some(
            OpenWaitFunction::Exponential {
                initial: 15_000,
                multiplier: 2.5,
                max: Some(300_000),
            },
        ),
        automatic_transition_from_open_to_half_open_enabled: true,
        max_wait_duration_in_half_open_state: 4_000,
        transition_to_state_after_wait_duration: State::Closed,
        record_exceptions: vec![
            "IOException".into(),
            "HttpServerErrorException".into(),
            "feign.FeignException".into(),
        ],
        ignore_exceptions: vec![
            "CallNotPermittedException".into(),
            "NotFoundException".into(),
            "CardDeclinedException".into(),
        ],
        // Resilience4j 2.4+: `initial-state` (CommonCircuitBreakerConfigurationProperties).
        initial_state: State::HalfOpen,
        ..CircuitBreakerConfig::default()
    }
}

fn retry(function: Option<IntervalFunction>) -> RetryConfig {
    RetryConfig {
        max_attempts: 5,
        wait_duration: 250,
        interval_function: function,
        retry_exceptions: vec!["IOException".into(), "HttpServerErrorException".into()],
        ignore_exceptions: vec!["CardDeclinedException".into()],
        fail_after_max_attempts: true,
        // A fragment's retry follows Resilience4j's plain rule (no guard).
        retry_on_local_refusals: true,
    }
}

fn every_policy() -> Vec<Instance> {
    vec![
        Instance::new("exp-breaker", PolicyConfig::CircuitBreaker(breaker(true))),
        Instance::new(
            "fixed-breaker",
            PolicyConfig::CircuitBreaker(breaker(false)),
        ),
        Instance::new(
            "bulk",
            PolicyConfig::Bulkhead(BulkheadConfig {
                max_concurrent_calls: 7,
                max_wait_duration: 150,
            }),
        ),
        Instance::new(
            "pool",
            PolicyConfig::ThreadPoolBulkhead(ThreadPoolBulkheadConfig {
                core_thread_pool_size: 2,
                max_thread_pool_size: 6,
                queue_capacity: 9,
                keep_alive_duration: 2_000,
            }),
        ),
        Instance::new("plain", PolicyConfig::Retry(retry(None))),
        Instance::new(
            "exp",
            PolicyConfig::Retry(retry(Some(IntervalFunction::Exponential {
                initial_interval: 250,
                multiplier: 3.0,
                max_interval: Some(10_000),
            }))),
        ),
        Instance::new(
            "random",
            PolicyConfig::Retry(retry(Some(IntervalFunction::Randomized {
                interval: 250,
                randomization_factor: 0.25,
            }))),
        ),
        Instance::new(
            "both",
            PolicyConfig::Retry(retry(Some(IntervalFunction::ExponentialRandomized {
                initial_interval: 250,
                multiplier: 3.0,
                randomization_factor: 0.25,
                max_interval: Some(10_000),
            }))),
        ),
        Instance::new(
            "limit",
            PolicyConfig::TimeLimiter(TimeLimiterConfig {
                timeout_duration: 750,
                cancel_running_future: false,
            }),
        ),
    ]
}

/// A round trip only proves something if the values are not the defaults a reader that
/// lost them would give back.
#[test]
fn the_round_trip_configs_differ_from_resilience4j_defaults_in_every_field() {
    let d = CircuitBreakerConfig::default();
    let b = breaker(true);
    assert_ne!(b.failure_rate_threshold, d.failure_rate_threshold);
    assert_ne!(b.slow_call_rate_threshold, d.slow_call_rate_threshold);
    assert_ne!(
        b.slow_call_duration_threshold,
        d.slow_call_duration_threshold
    );
    assert_ne!(b.sliding_window_type, d.sliding_window_type);
    assert_ne!(b.sliding_window_size, d.sliding_window_size);
    assert_ne!(b.minimum_number_of_calls, d.minimum_number_of_calls);
    assert_ne!(
        b.permitted_number_of_calls_in_half_open_state,
        d.permitted_number_of_calls_in_half_open_state
    );
    assert_ne!(b.wait_duration_in_open_state, d.wait_duration_in_open_state);
    assert_ne!(
        b.wait_interval_function_in_open_state,
        d.wait_interval_function_in_open_state
    );
    assert_ne!(
        b.automatic_transition_from_open_to_half_open_enabled,
        d.automatic_transition_from_open_to_half_open_enabled
    );
    assert_ne!(
        b.max_wait_duration_in_half_open_state,
        d.max_wait_duration_in_half_open_state
    );
    assert_ne!(
        b.transition_to_state_after_wait_duration,
        d.transition_to_state_after_wait_duration
    );
    assert_ne!(b.record_exceptions, d.record_exceptions);
    assert_ne!(b.ignore_exceptions, d.ignore_exceptions);
    let (r, d) = (retry(None), RetryConfig::default());
    assert_ne!(r.max_attempts, d.max_attempts);
    assert_ne!(r.wait_duration, d.wait_duration);
    assert_ne!(r.retry_exceptions, d.retry_exceptions);
    assert_ne!(r.ignore_exceptions, d.ignore_exceptions);
    assert_ne!(r.fail_after_max_attempts, d.fail_after_max_attempts);
    assert_ne!(r.retry_on_local_refusals, d.retry_on_local_refusals);
    let d = ThreadPoolBulkheadConfig::default();
    let p = ThreadPoolBulkheadConfig {
        core_thread_pool_size: 2,
        max_thread_pool_size: 6,
        queue_capacity: 9,
        keep_alive_duration: 2_000,
    };
    assert!(
        p.core_thread_pool_size != d.core_thread_pool_size
            && p.max_thread_pool_size != d.max_thread_pool_size
            && p.queue_capacity != d.queue_capacity
            && p.keep_alive_duration != d.keep_alive_duration
    );
    assert_ne!(BulkheadConfig::default().max_concurrent_calls, 7);
    assert_ne!(BulkheadConfig::default().max_wait_duration, 150);
    assert_ne!(TimeLimiterConfig::default().timeout_duration, 750);
    assert!(TimeLimiterConfig::default().cancel_running_future);
}

fn by_name(instances: &[Instance]) -> BTreeMap<(Kind, String), PolicyConfig> {
    instances
        .iter()
        .map(|i| ((i.config.kind(), i.name.clone()), i.config.clone()))
        .collect()
}

#[test]
fn yaml_export_then_import_gives_back_every_setting() {
    let instances = every_policy();
    let yaml = to_yaml(&instances);
    let back = read(&yaml).unwrap_or_else(|e| panic!("{yaml}\n{e:#?}"));
    assert_eq!(by_name(&back), by_name(&instances));
}

#[test]
fn properties_export_then_import_gives_back_every_setting() {
    let instances = every_policy();
    let text = to_properties(&instances);
    assert!(r4j::is_properties(&text));
    let back = read(&text).unwrap_or_else(|e| panic!("{text}\n{e:#?}"));
    assert_eq!(by_name(&back), by_name(&instances));
}

#[test]
fn a_hand_written_properties_fragment_reads_like_its_yaml() {
    // Spring's relaxed binding: camelCase keys, `backends`, a comma-separated list, ISO-8601.
    let properties = "\
! written by hand
resilience4j.circuitbreaker.backends.orders.failureRateThreshold=42.5
resilience4j.circuitbreaker.backends.orders.slow-call-rate-threshold: 80
resilience4j.circuitbreaker.backends.orders.slow_call_duration_threshold=2500
resilience4j.circuitbreaker.backends.orders.sliding-window-type=time-based
resilience4j.circuitbreaker.backends.orders.sliding-window-size=30
resilience4j.circuitbreaker.backends.orders.minimum-number-of-calls=12
resilience4j.circuitbreaker.backends.orders.permitted-number-of-calls-in-half-open-state=7
resilience4j.circuitbreaker.backends.orders.wait-duration-in-open-state=PT15S
resilience4j.circuitbreaker.backends.orders.enable-exponential-backoff=true
resilience4j.circuitbreaker.backends.orders.exponential-backoff-multiplier=2.5
resilience4j.circuitbreaker.backends.orders.exponential-max-wait-duration-in-open-state=5m
resilience4j.circuitbreaker.backends.orders.automatic-transition-from-open-to-half-open-enabled=true
resilience4j.circuitbreaker.backends.orders.max-wait-duration-in-half-open-state=4s
resilience4j.circuitbreaker.backends.orders.transition-to-state-after-wait-duration=CLOSED
resilience4j.circuitbreaker.backends.orders.record-exceptions=java.io.IOException,org.springframework.web.client.HttpServerErrorException, feign.FeignException
resilience4j.circuitbreaker.backends.orders.ignore-exceptions[0]=io.github.resilience4j.circuitbreaker.CallNotPermittedException
resilience4j.circuitbreaker.backends.orders.ignore-exceptions[1]=org.springframework.web.client.HttpClientErrorException.NotFound
resilience4j.circuitbreaker.backends.orders.ignore-exceptions[2]=com.example.shop.CardDeclinedException
resilience4j.circuitbreaker.backends.orders.initialState=half_open
";
    let back = read(properties).unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].name, "orders");
    assert_eq!(back[0].config, PolicyConfig::CircuitBreaker(breaker(true)));
}

// ---------------------------------------------------------------------------------------
// Golden key names
// ---------------------------------------------------------------------------------------

#[test]
fn demo_5_exports_the_spec_breaker_under_spring_names() {
    let demo = catalogue::demo(5).unwrap();
    let yaml = to_yaml(&tick_instances(&demo.scenario().tick));
    assert!(
        yaml.starts_with(
            "resilience4j:\n  circuitbreaker:\n    instances:\n      recommendations:\n"
        ),
        "{yaml}"
    );
    let block: String = yaml
        .split("      recommendations:\n")
        .nth(1)
        .unwrap()
        .split("  timelimiter:")
        .next()
        .unwrap()
        .to_string();
    // ../shared/spec/01-tick-model.md: COUNT_BASED, 4, 4, 50 %, 3 ticks (= 3 s), 2 trials,
    // and the wait's end is a timer (Resilience4j's automatic transition).
    for line in [
        "        sliding-window-type: COUNT_BASED\n",
        "        failure-rate-threshold: 50\n",
        "        sliding-window-size: 4\n",
        "        minimum-number-of-calls: 4\n",
        "        wait-duration-in-open-state: 3s\n",
        "        permitted-number-of-calls-in-half-open-state: 2\n",
        "        automatic-transition-from-open-to-half-open-enabled: true\n",
    ] {
        assert!(block.contains(line), "{line:?} missing in\n{yaml}");
    }
    // Demo 5's protection is the breaker alone: no bulkhead in the fragment, and no
    // comment that speaks of one.
    assert!(!yaml.contains("  bulkhead:"));
    assert!(!yaml.to_lowercase().contains("bulkhead"), "{yaml}");
    // The 3-tick timeout.
    assert!(yaml.contains("  timelimiter:\n    instances:\n      recommendations:\n"));
    assert!(yaml.contains("        timeout-duration: 3s\n"));
}

#[test]
fn demo_7_exports_the_spec_bulkhead_for_both_dependencies() {
    let demo = catalogue::demo(7).unwrap();
    let yaml = to_yaml(&tick_instances(&demo.scenario().tick));
    // Spec: a semaphore bulkhead per dependency, maxConcurrentCalls 3, maxWaitDuration 0.
    for name in ["recommendations", "payment"] {
        let block = yaml
            .split("  bulkhead:\n    instances:\n")
            .nth(1)
            .unwrap()
            .split(&format!("      {name}:\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("{name} missing in\n{yaml}"));
        assert!(
            block.contains("        max-concurrent-calls: 3\n"),
            "{yaml}"
        );
        assert!(block.contains("        max-wait-duration: 0ms\n"), "{yaml}");
    }
    // The breaker wraps the bulkhead, and its comment says so.
    assert!(yaml.contains("The breaker wraps the bulkhead"), "{yaml}");
}

#[test]
fn java_uses_the_builders_of_resilience4j() {
    let java = to_java(&every_policy());
    for expected in [
        "import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;",
        "import io.github.resilience4j.core.IntervalFunction;",
        "import java.time.Duration;",
        "import java.io.IOException;",
        "import org.springframework.web.client.HttpClientErrorException;",
        "import com.example.shop.CardDeclinedException;",
        "CircuitBreakerConfig expBreaker = CircuitBreakerConfig.custom()",
        ".failureRateThreshold(42.5f)",
        ".slidingWindowType(SlidingWindowType.TIME_BASED)",
        ".waitIntervalFunctionInOpenState(IntervalFunction.ofExponentialBackoff(Duration.ofSeconds(15), 2.5, Duration.ofMinutes(5)))",
        ".waitDurationInOpenState(Duration.ofSeconds(15))",
        ".transitionToStateAfterWaitDuration(CircuitBreaker.State.CLOSED)",
        // CircuitBreakerConfig.Builder.initialState takes a CircuitBreaker.State.
        ".initialState(CircuitBreaker.State.HALF_OPEN)",
        ".recordExceptions(IOException.class, HttpServerErrorException.class, FeignException.class)",
        ".ignoreExceptions(CallNotPermittedException.class, HttpClientErrorException.NotFound.class, CardDeclinedException.class)",
        ".intervalFunction(IntervalFunction.ofExponentialRandomBackoff(Duration.ofMillis(250), 3.0, 0.25, Duration.ofSeconds(10)))",
        ".intervalFunction(IntervalFunction.ofRandomized(Duration.ofMillis(250), 0.25))",
        ".waitDuration(Duration.ofMillis(250))",
        "ThreadPoolBulkheadConfig pool = ThreadPoolBulkheadConfig.custom()",
        ".keepAliveDuration(Duration.ofSeconds(2))",
        "TimeLimiterConfig limit = TimeLimiterConfig.custom()",
        ".cancelRunningFuture(false)",
    ] {
        assert!(java.contains(expected), "{expected}\nmissing in\n{java}");
    }
    // One declaration per instance, each ended.
    assert_eq!(java.matches(".build();").count(), every_policy().len());
}

/// Two classes with one simple name cannot both be imported: Java names both in full, and
/// imports the rest.
#[test]
fn java_writes_classes_that_share_a_simple_name_in_full() {
    let config = CircuitBreakerConfig {
        record_exceptions: vec![
            "java.util.concurrent.TimeoutException".into(),
            "com.example.shop.TimeoutException".into(),
            "java.io.IOException".into(),
        ],
        ..CircuitBreakerConfig::default()
    };
    let java = to_java(&[Instance::new("shop", PolicyConfig::CircuitBreaker(config))]);
    assert!(
        java.contains(".recordExceptions(java.util.concurrent.TimeoutException.class, com.example.shop.TimeoutException.class, IOException.class)"),
        "{java}"
    );
    assert!(java.contains("import java.io.IOException;"), "{java}");
    assert!(
        !java.contains("import java.util.concurrent.TimeoutException;"),
        "{java}"
    );
    assert!(
        !java.contains("import com.example.shop.TimeoutException;"),
        "{java}"
    );
}

/// What the config dialog writes as Java it reads back: the same instances as its YAML.
#[test]
fn java_written_by_the_course_reads_back_as_the_same_instances() {
    let instances = every_policy();
    let from_java = r4j::read_fragment(&to_java(&instances), None).unwrap();
    let from_yaml = r4j::read_fragment(&to_yaml(&instances), None).unwrap();
    let configs = |f: &r4j::Fragment| -> Vec<(String, PolicyConfig)> {
        f.instances
            .iter()
            .map(|i| (i.name.clone(), i.config.clone()))
            .collect()
    };
    assert_eq!(configs(&from_java), configs(&from_yaml));
    assert_eq!(from_java.instances.len(), instances.len());
}

/// A `@Configuration` class as engineers write it: the builder assigned to a variable or
/// returned, imports for the exceptions, an inner class, a lambda the reader refuses.
#[test]
fn a_java_configuration_class_is_read_as_its_settings() {
    let java = r#"
package com.example.shop;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.io.IOException;
import java.time.Duration;
import org.springframework.web.client.HttpClientErrorException;

@Configuration
public class ResilienceConfig {
    @Bean
    public CircuitBreakerConfig recommendations() {
        CircuitBreakerConfig recommendations = CircuitBreakerConfig.custom()
            .failureRateThreshold(40.0f)
            .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.TIME_BASED)
            .slidingWindowSize(30)
            .waitDurationInOpenState(Duration.ofSeconds(20))
            .recordExceptions(IOException.class, java.util.concurrent.TimeoutException.class)
            .ignoreExceptions(HttpClientErrorException.NotFound.class)
            .build();
        return recommendations;
    }
}
"#;
    let fragment = r4j::read_fragment(java, None).unwrap();
    assert_eq!(fragment.instances.len(), 1);
    assert_eq!(fragment.instances[0].name, "recommendations");
    let PolicyConfig::CircuitBreaker(c) = &fragment.instances[0].config else {
        panic!("{fragment:?}");
    };
    assert_eq!(c.failure_rate_threshold, 40.0);
    assert_eq!(c.sliding_window_type, SlidingWindowType::TimeBased);
    assert_eq!(c.sliding_window_size, 30);
    assert_eq!(c.wait_duration_in_open_state, 20_000);
    // The exception names as the same settings in YAML give them.
    let yaml = r4j::read_fragment(
        "resilience4j.circuitbreaker.instances.recommendations:
  record-exceptions:
    - java.io.IOException
    - java.util.concurrent.TimeoutException
  ignore-exceptions:
    - org.springframework.web.client.HttpClientErrorException$NotFound
",
        None,
    )
    .unwrap();
    let PolicyConfig::CircuitBreaker(y) = &yaml.instances[0].config else {
        panic!("{yaml:?}");
    };
    assert_eq!(c.record_exceptions, y.record_exceptions);
    assert_eq!(c.ignore_exceptions, y.ignore_exceptions);
    assert_eq!(c.record_exceptions.len(), 2);

    let lambda = java.replace(
        ".slidingWindowSize(30)",
        ".slidingWindowSize(30)\n            .recordException(e -> e instanceof IOException)",
    );
    let problems = r4j::read_fragment(&lambda, None).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(
            "line 17: .recordException(e -> e instanceof IOException): the reader takes"
        ),
        "{problems:?}"
    );
}

/// Java reads on past a comment: a commented-out call between two calls, or a comment right
/// after `.custom()`, does not end the chain (javac skips it; the calls after it are set).
#[test]
fn java_comments_inside_a_builder_chain_are_skipped() {
    let chain = |between: &str| {
        [
            "CircuitBreakerConfig recommendations = CircuitBreakerConfig.custom()",
            between,
            "    .slidingWindowSize(10)\n    // .slidingWindowSize(20)\n    /* a note, */ /* two */\n",
            "    .minimumNumberOfCalls(1)\n    .build();\n",
        ]
        .concat()
    };
    for between in ["\n", " // ten calls\n", " /* ten\n calls */\n"] {
        let fragment = r4j::read_fragment(&chain(between), None).unwrap();
        assert_eq!(fragment.instances.len(), 1, "{between:?}");
        let PolicyConfig::CircuitBreaker(c) = &fragment.instances[0].config else {
            panic!("{fragment:?}");
        };
        assert_eq!(
            (c.sliding_window_size, c.minimum_number_of_calls),
            (10, 1),
            "{between:?}"
        );
    }
}

/// The thread-pool builder's setters throw for a size below 1 or a queue below 0, where
/// Spring Boot's properties skip the value and keep the default (`buildConfig` sets a size
/// only when it is positive): Java is refused, YAML keeps the default with a note.
#[test]
fn java_thread_pool_sizes_the_builder_refuses_are_refused() {
    let java = "ThreadPoolBulkheadConfig pool = ThreadPoolBulkheadConfig.custom()
    .coreThreadPoolSize(0)
    .maxThreadPoolSize(2)
    .queueCapacity(-1)
    .build();
";
    let problems = r4j::read_fragment(java, None).unwrap_err();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].starts_with(
            "line 2: .coreThreadPoolSize(0): the builder throws IllegalArgumentException"
        ),
        "{problems:?}"
    );
    assert!(
        problems[1]
            .starts_with("line 4: .queueCapacity(-1): the builder throws IllegalArgumentException"),
        "{problems:?}"
    );
    let yaml = r4j::read_fragment(
        "resilience4j.thread-pool-bulkhead.instances.pool:\n  core-thread-pool-size: 0\n  max-thread-pool-size: 4\n  queue-capacity: -1\n",
        None,
    )
    .unwrap();
    let PolicyConfig::ThreadPoolBulkhead(c) = &yaml.instances[0].config else {
        panic!("{yaml:?}");
    };
    // The defaults with the simulation's 4 processors: core 3 and a queue of 100.
    assert_eq!(
        (
            c.core_thread_pool_size,
            c.max_thread_pool_size,
            c.queue_capacity
        ),
        (3, 4, 100)
    );
    assert_eq!(yaml.instances[0].notes.len(), 2, "{yaml:?}");
}

#[test]
fn notes_become_comments() {
    let instances =
        vec![Instance::new("payment", PolicyConfig::Retry(RetryConfig::default())).note("A note.")];
    assert!(to_yaml(&instances).contains("      payment:\n        # A note.\n"));
    assert!(to_java(&instances).contains("// A note.\n"));
    assert!(to_properties(&instances).contains("# payment: A note.\n"));
}

/// `initial-state` and `transition-to-state-after-wait-duration` are keys of Resilience4j
/// 2.4.0 on (neither setter is in v2.3.0): a breaker that keeps their defaults (CLOSED,
/// OPEN) is written without them, so it binds on 2.0 to 2.3 too; one that changes them
/// says which version it needs.
#[test]
fn keys_of_resilience4j_2_4_are_written_only_when_they_change_something() {
    let plain = vec![Instance::new(
        "payment",
        PolicyConfig::CircuitBreaker(CircuitBreakerConfig::default()),
    )];
    for text in [to_yaml(&plain), to_properties(&plain), to_java(&plain)] {
        assert!(
            !text.contains("transition-to-state") && !text.contains("transitionToState"),
            "{text}"
        );
        assert!(
            !text.contains("initial-state") && !text.contains("initialState"),
            "{text}"
        );
        assert!(!text.contains("2.4.0"), "{text}");
    }
    let changed = vec![Instance::new(
        "payment",
        PolicyConfig::CircuitBreaker(CircuitBreakerConfig {
            transition_to_state_after_wait_duration: State::Closed,
            ..CircuitBreakerConfig::default()
        }),
    )];
    let yaml = to_yaml(&changed);
    assert!(
        yaml.contains("transition-to-state-after-wait-duration: CLOSED"),
        "{yaml}"
    );
    assert!(yaml.contains("Resilience4j 2.4.0"), "{yaml}");
}

/// Spring Boot's `setExponentialBackoffMultiplier` throws for 0 or less, though
/// `IntervalFunction.ofExponentialBackoff` (and the engine) take it: the export says so.
#[test]
fn a_breaker_multiplier_spring_refuses_carries_a_note() {
    let notes = breaker_instance_notes(0.0);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("exponential-backoff-multiplier of 0 or less")),
        "{notes:?}"
    );
    assert!(breaker_instance_notes(2.0).is_empty());
}

fn breaker_instance_notes(multiplier: f64) -> Vec<String> {
    Instance::new(
        "payment",
        PolicyConfig::CircuitBreaker(CircuitBreakerConfig {
            wait_interval_function_in_open_state: Some(OpenWaitFunction::Exponential {
                initial: 1_000,
                multiplier,
                max: None,
            }),
            ..CircuitBreakerConfig::default()
        }),
    )
    .notes
}

/// Spring keeps only letters, digits, `_` and a `-` not first of a map key it reads without
/// brackets: a name with any other character is written in brackets, and reads back whole.
#[test]
fn a_name_spring_would_change_is_written_in_brackets() {
    let instances: Vec<Instance> = ["payment api", "-lead", "shop.payment", "payment_v2-eu"]
        .into_iter()
        .map(|name| Instance::new(name, PolicyConfig::Retry(RetryConfig::default())))
        .collect();
    let yaml = to_yaml(&instances);
    for key in [
        "\"[payment api]\":",
        "\"[-lead]\":",
        "\"[shop.payment]\":",
        " payment_v2-eu:",
    ] {
        assert!(yaml.contains(key), "{key} in\n{yaml}");
    }
    let properties = to_properties(&instances);
    for key in [
        "instances.[payment\\ api].",
        "instances.[-lead].",
        "instances.payment_v2-eu.",
    ] {
        assert!(properties.contains(key), "{key} in\n{properties}");
    }
    for text in [yaml, properties] {
        let names: Vec<String> = read(&text).unwrap().into_iter().map(|i| i.name).collect();
        assert_eq!(
            names,
            ["payment api", "-lead", "shop.payment", "payment_v2-eu"]
        );
    }
}

#[test]
fn no_instances_is_an_empty_fragment() {
    assert!(to_yaml(&[]).ends_with("\nresilience4j:\n"));
    assert_eq!(read(&to_yaml(&[])), Ok(vec![]));
}

// ---------------------------------------------------------------------------------------
// Import: Resilience4j's rules
// ---------------------------------------------------------------------------------------

fn only(text: &str) -> PolicyConfig {
    let instances = read(text).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(instances.len(), 1, "{instances:#?}");
    instances[0].config.clone()
}

fn cb(text: &str) -> CircuitBreakerConfig {
    match only(text) {
        PolicyConfig::CircuitBreaker(c) => c,
        other => panic!("{other:?}"),
    }
}

fn rt(text: &str) -> RetryConfig {
    match only(text) {
        PolicyConfig::Retry(c) => c,
        other => panic!("{other:?}"),
    }
}

#[test]
fn configs_default_and_base_config_apply_as_in_resilience4j() {
    // Resilience4j's own test fragment (resilience4j-spring-boot3's application.yaml),
    // shortened: backendSharedA inherits configs.default and overrides the window.
    let text = "\
resilience4j.circuitbreaker:
  configs:
    default:
      slidingWindowSize: 100
      permittedNumberOfCallsInHalfOpenState: 10
      waitDurationInOpenState: 10s
      failureRateThreshold: 60
      eventConsumerBufferSize: 10
      registerHealthIndicator: true
  backends:
    backendSharedA:
      baseConfig: default
      slidingWindowSize: 6
";
    let c = cb(text);
    assert_eq!(c.sliding_window_size, 6);
    assert_eq!(c.failure_rate_threshold, 60.0);
    assert_eq!(c.wait_duration_in_open_state, 10_000);
    assert_eq!(c.permitted_number_of_calls_in_half_open_state, 10);
    // Spring wiring is read but has no effect: said in a note.
    let notes = &read(text).unwrap()[0].notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("register-health-indicator")),
        "{notes:?}"
    );

    // Without base-config an instance is still built on configs.default...
    let c = cb("resilience4j:\n  circuitbreaker:\n    configs:\n      default:\n        failure-rate-threshold: 60\n    instances:\n      a:\n        sliding-window-size: 6\n");
    assert_eq!((c.failure_rate_threshold, c.sliding_window_size), (60.0, 6));
    // ...and a breaker on the config of its own name before configs.default.
    let c = cb("resilience4j:\n  circuitbreaker:\n    configs:\n      default:\n        failure-rate-threshold: 60\n      a:\n        minimum-number-of-calls: 3\n    instances:\n      a:\n        sliding-window-size: 6\n");
    assert_eq!(
        c.failure_rate_threshold, 50.0,
        "configs.a, not configs.default"
    );
    assert_eq!(c.minimum_number_of_calls, 3);
    // A base-config names a configs entry; Resilience4j builds that entry on its defaults,
    // not on configs.default.
    let c = cb("resilience4j:\n  circuitbreaker:\n    configs:\n      default:\n        failure-rate-threshold: 60\n      shared:\n        sliding-window-size: 8\n    instances:\n      a:\n        base-config: shared\n");
    assert_eq!((c.failure_rate_threshold, c.sliding_window_size), (50.0, 8));
    // Bulkheads take configs.default too.
    let b = only("resilience4j:\n  bulkhead:\n    configs:\n      default:\n        max-wait-duration: 10\n        max-concurrent-calls: 2\n    instances:\n      backendA:\n        max-concurrent-calls: 1\n");
    assert_eq!(
        b,
        PolicyConfig::Bulkhead(BulkheadConfig {
            max_concurrent_calls: 1,
            max_wait_duration: 10
        })
    );
}

#[test]
fn a_retry_takes_its_bases_backoff_switches_but_not_its_factor() {
    // ConfigUtils.mergePropertiesIfAny (retry): enableExponentialBackoff,
    // enableRandomizedWait, exponentialBackoffMultiplier and exponentialMaxWaitDuration
    // come from the base when the instance has none; randomizedWaitFactor does not.
    let r = rt("resilience4j:\n  retry:\n    configs:\n      shared:\n        enable-exponential-backoff: true\n        exponential-backoff-multiplier: 2\n        enable-randomized-wait: true\n        randomized-wait-factor: 0.1\n    instances:\n      a:\n        base-config: shared\n        wait-duration: 100ms\n");
    assert_eq!(
        r.interval_function,
        Some(IntervalFunction::ExponentialRandomized {
            initial_interval: 100,
            multiplier: 2.0,
            randomization_factor: 0.5,
            max_interval: None
        })
    );
}

#[test]
fn wait_functions_are_built_as_resilience4j_builds_them() {
    // A backoff switch without a multiplier: IntervalFunction.DEFAULT_MULTIPLIER, 1.5.
    let c = cb("resilience4j.circuitbreaker.instances.a:\n  wait-duration-in-open-state: 10s\n  enable-exponential-backoff: true\n");
    assert_eq!(
        c.wait_interval_function_in_open_state,
        Some(OpenWaitFunction::Exponential {
            initial: 10_000,
            multiplier: 1.5,
            max: None
        })
    );
    // The cap is read only with a multiplier.
    let c = cb("resilience4j.circuitbreaker.instances.a:\n  wait-duration-in-open-state: 10s\n  enable-exponential-backoff: true\n  exponential-max-wait-duration-in-open-state: 1m\n");
    assert_eq!(
        c.wait_interval_function_in_open_state,
        Some(OpenWaitFunction::Exponential {
            initial: 10_000,
            multiplier: 1.5,
            max: None
        })
    );
    // A retry's randomized wait without a factor: DEFAULT_RANDOMIZATION_FACTOR, 0.5.
    let r = rt(
        "resilience4j.retry.instances.a:\n  wait-duration: 1s\n  enable-randomized-wait: true\n",
    );
    assert_eq!(
        r.interval_function,
        Some(IntervalFunction::Randomized {
            interval: 1_000,
            randomization_factor: 0.5
        })
    );
    // Switches without wait-duration build nothing (the default 500 ms stays), with a note.
    let instances = read(
        "resilience4j.retry.instances.a:\n  enable-exponential-backoff: true\n  max-attempts: 4\n",
    )
    .unwrap();
    let PolicyConfig::Retry(r) = &instances[0].config else {
        panic!()
    };
    assert_eq!(
        (r.interval_function, r.wait_duration, r.max_attempts),
        (None, 500, 4)
    );
    assert!(instances[0]
        .notes
        .iter()
        .any(|n| n.contains("enable-exponential-backoff")));
    // Both for a breaker: Resilience4j throws IllegalStateException.
    let errors = read("resilience4j.circuitbreaker.instances.a:\n  wait-duration-in-open-state: 10s\n  enable-exponential-backoff: true\n  enable-randomized-wait: true\n").unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].starts_with(
            "line 4: resilience4j.circuitbreaker.instances.a.enable-randomized-wait: "
        ),
        "{errors:?}"
    );
}

#[test]
fn durations_use_spring_boot_syntax() {
    for (text, ms) in [
        ("500ms", 500),
        ("10s", 10_000),
        ("1m", 60_000),
        ("PT10S", 10_000),
        ("2500", 2_500),
    ] {
        let c = cb(&format!(
            "resilience4j.circuitbreaker.instances.a.wait-duration-in-open-state: {text}\n"
        ));
        assert_eq!(c.wait_duration_in_open_state, ms, "{text}");
    }
}

#[test]
fn an_unknown_key_and_bad_values_are_one_line_each_and_nothing_is_returned() {
    let text = "\
resilience4j:
  circuitbreaker:
    instances:
      recommendations:
        failure-rate-treshold: 50
        sliding-window-size: -3
        wait-duration-in-open-state: soon
        minimum-number-of-calls: 4
";
    let errors = read(text).unwrap_err();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].starts_with("line 5: resilience4j.circuitbreaker.instances.recommendations.failure-rate-treshold: not a circuit breaker setting"), "{}", errors[0]);
    assert!(errors[0].contains("did you mean failure-rate-threshold?"));
    assert!(
        errors[1].starts_with(
            "line 6: resilience4j.circuitbreaker.instances.recommendations.sliding-window-size: "
        ),
        "{}",
        errors[1]
    );
    assert!(errors[2].starts_with("line 7: resilience4j.circuitbreaker.instances.recommendations.wait-duration-in-open-state: "), "{}", errors[2]);
    assert!(errors[2].contains("soon"));
    assert!(errors.iter().all(|e| !e.contains('\n')));
}

/// A base-config chain that comes back to itself is a circle (Spring would recurse until
/// its stack runs out); a long straight one is read up to 16 links and then refused as
/// long, not called a circle.
#[test]
fn a_base_config_circle_and_a_long_chain_are_told_apart() {
    let configs = |links: &[(&str, &str)]| {
        let mut yaml = "resilience4j:\n  circuitbreaker:\n    configs:\n".to_string();
        for (name, base) in links {
            yaml.push_str(&format!("      {name}:\n        base-config: {base}\n"));
        }
        yaml.push_str("      end:\n        sliding-window-size: 7\n");
        yaml.push_str("    instances:\n      x:\n        base-config: c0\n");
        yaml
    };
    let straight = |n: usize| {
        let links: Vec<(String, String)> = (0..n)
            .map(|i| {
                let base = if i + 1 == n {
                    "end".to_string()
                } else {
                    format!("c{}", i + 1)
                };
                (format!("c{i}"), base)
            })
            .collect();
        let links: Vec<(&str, &str)> = links
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        configs(&links)
    };
    // c0 -> ... -> c14 -> end: 16 configs under the instance, all read.
    let read_back = read(&straight(15)).unwrap();
    let PolicyConfig::CircuitBreaker(c) = &read_back[0].config else {
        panic!("{read_back:?}");
    };
    assert_eq!(c.sliding_window_size, 7);
    let long = read(&straight(40)).unwrap_err().join("\n");
    assert!(long.contains("longer than 16"), "{long}");
    assert!(!long.contains("circle"), "{long}");
    let circle = read(&configs(&[("c0", "c1"), ("c1", "c2"), ("c2", "c0")]))
        .unwrap_err()
        .join("\n");
    assert!(circle.contains("goes round in a circle"), "{circle}");
}

#[test]
fn what_spring_would_refuse_is_refused() {
    for (fragment, line, words) in [
        // The setters' ranges.
        ("resilience4j.circuitbreaker.instances.a.failure-rate-threshold: 0.5\n", 1, "between 1 and 100"),
        ("resilience4j.retry.instances.a.max-attempts: 0\n", 1, "at least 1"),
        ("resilience4j.retry.instances.a.randomized-wait-factor: 1\n", 1, "not including, 1"),
        ("resilience4j.bulkhead.instances.a.max-concurrent-calls: 0\n", 1, "at least 1"),
        ("resilience4j.timelimiter.instances.a.timeout-duration: -1s\n", 1, "negative"),
        ("resilience4j.circuitbreaker.instances.a.sliding-window-size: 3000000000\n", 1, "Java int"),
        // Class names need their package.
        ("resilience4j.retry.instances.a.retry-exceptions: IOException\n", 1, "java.io.IOException"),
        // The builder: max threads at least the core.
        ("resilience4j.thread-pool-bulkhead.instances.a:\n  core-thread-pool-size: 5\n  max-thread-pool-size: 2\n", 3, "coreThreadPoolSize"),
        // Spring builds each base alone first: a core size above the default maximum (the
        // processors, 4 here) fails there, although the instance raises the maximum.
        ("resilience4j.thread-pool-bulkhead:\n  configs:\n    default:\n      core-thread-pool-size: 8\n  instances:\n    a:\n      max-thread-pool-size: 16\n", 4, "coreThreadPoolSize"),
        ("resilience4j.thread-pool-bulkhead:\n  configs:\n    shared:\n      core-thread-pool-size: 6\n  instances:\n    a:\n      base-config: shared\n      max-thread-pool-size: 8\n", 4, "coreThreadPoolSize"),
        // ... and every `configs.NAME` at startup, even one no instance uses.
        ("resilience4j.thread-pool-bulkhead:\n  configs:\n    shared:\n      core-thread-pool-size: 6\n  instances:\n    a:\n      queue-capacity: 5\n", 4, "coreThreadPoolSize"),
        // A base that is not there.
        ("resilience4j.retry.instances.a.base-config: shared\n", 1, "no configs.shared"),
        // What the simulation has no model for.
        ("resilience4j.circuitbreaker.instances.a.record-failure-predicate: com.acme.P\n", 1, "your own code"),
        ("resilience4j.circuitbreaker.instances.a.enable-randomized-wait: true\nresilience4j.circuitbreaker.instances.a.wait-duration-in-open-state: 1s\n", 1, "randomized"),
        // Set twice.
        ("resilience4j.bulkhead.instances.a.max-concurrent-calls: 2\nresilience4j.bulkhead.instances.a.maxConcurrentCalls: 3\n", 2, "set twice"),
        // Only the breaker's, the retry's and the two bulkheads' properties have
        // `getBackends()`: Spring would ignore these blocks.
        ("resilience4j.timelimiter.backends.a.timeout-duration: 2s\n", 1, "has no backends"),
        ("resilience4j.ratelimiter.backends.a.limit-for-period: 5\n", 1, "has no backends"),
        // The engine's own limits: a retry names exceptions it knows.
        ("resilience4j.retry.instances.a.retry-exceptions: feign.FeignException\n", 1, "not an exception this simulation knows"),
    ] {
        let errors = read(fragment).unwrap_err();
        assert!(
            errors[0].starts_with(&format!("line {line}: resilience4j.")) && errors[0].contains(words),
            "{fragment:?}: {errors:?}"
        );
    }
}

#[test]
fn a_whole_application_yml_may_be_pasted() {
    let text = "spring:\n  application:\n    name: shop\nmanagement.endpoints.web.exposure.include: '*'\nresilience4j:\n  circuitbreaker:\n    circuit-breaker-aspect-order: 1\n    tags:\n      team: checkout\n    instances:\n      a:\n        failure-rate-threshold: 25\n";
    assert_eq!(cb(text).failure_rate_threshold, 25.0);
    // The metrics auto-configurations' switches are Spring Boot's, not a policy's.
    let metrics = "resilience4j:\n  circuitbreaker:\n    metrics:\n      enabled: false\n      legacy:\n        enabled: true\n    instances:\n      a:\n        failure-rate-threshold: 25\n  retry.metrics.enabled: false\n";
    assert_eq!(cb(metrics).failure_rate_threshold, 25.0);
    // The breaker's `backends` are its instances, as in Resilience4j.
    assert_eq!(
        cb("resilience4j.circuitbreaker.backends.a.failure-rate-threshold: 30\n")
            .failure_rate_threshold,
        30.0
    );
    let errors = read("spring:\n  application:\n    name: shop\n").unwrap_err();
    assert!(errors[0].contains("no resilience4j settings"));
}

// ---------------------------------------------------------------------------------------
// The demos
// ---------------------------------------------------------------------------------------

#[test]
fn every_tick_demo_round_trips_into_the_demo() {
    for demo in catalogue::DEMOS {
        let config = demo.scenario().tick;
        let instances = read(&to_yaml(&tick_instances(&config))).unwrap();
        let (breaker, bulkhead) = apply_to_tick(&config, &instances).unwrap();
        assert_eq!(breaker, config.circuit_breaker, "demo {}", demo.number);
        assert_eq!(bulkhead, config.bulkhead, "demo {}", demo.number);
    }
}

#[test]
fn a_tick_import_picks_recommendations_and_says_what_it_does_not_use() {
    let config = TickConfig::new(Behaviour::Slow, Protection::BreakerAndBulkhead);
    let text = "\
resilience4j:
  circuitbreaker.instances.recommendations.failure-rate-threshold: 75
  bulkhead.instances:
    recommendations.max-concurrent-calls: 2
    payment.max-concurrent-calls: 2
  retry.instances.recommendations.max-attempts: 3
  timelimiter.instances.recommendations.timeout-duration: 5s
";
    let instances = read(text).unwrap();
    let import = import_tick(&config, &instances).unwrap();
    assert_eq!(import.circuit_breaker.failure_rate_threshold, 75.0);
    // Resilience4j's defaults for what the fragment leaves out, not the demo's.
    assert_eq!(import.circuit_breaker.sliding_window_size, 100);
    assert_eq!(import.bulkhead.max_concurrent_calls, 2);
    assert_eq!(import.timeout_ticks, 5);
    assert!(
        import.notes.iter().any(|n| n.contains("no retry")),
        "{:?}",
        import.notes
    );
    // The page keeps the spec's 3-tick timeout.
    let errors = apply_to_tick(&config, &instances).unwrap_err();
    assert!(errors[0]
        .starts_with("resilience4j.timelimiter.instances.recommendations.timeout-duration: "));

    for (fragment, words) in [
        ("resilience4j.bulkhead.instances:\n  recommendations.max-concurrent-calls: 2\n  payment.max-concurrent-calls: 4\n", "same bulkhead"),
        ("resilience4j.circuitbreaker.instances:\n  a.sliding-window-size: 2\n  b.sliding-window-size: 3\n", "none named recommendations"),
        ("resilience4j.bulkhead.instances.recommendations.max-wait-duration: 10ms\n", "max-wait-duration: must be 0"),
        ("resilience4j.timelimiter.instances.recommendations.timeout-duration: 1500ms\n", "whole ticks"),
    ] {
        let errors = import_tick(&config, &read(fragment).unwrap()).unwrap_err();
        assert!(errors[0].contains(words), "{fragment}: {errors:?}");
    }
}

#[test]
fn the_sandbox_takes_a_fragments_breaker_and_replays() {
    let mut sandbox = BreakerSandbox::default();
    let instances = read("resilience4j.circuitbreaker.instances.dependency:\n  sliding-window-size: 5\n  minimum-number-of-calls: 5\n  failure-rate-threshold: 100\nresilience4j.retry.instances.x.max-attempts: 2\n").unwrap();
    let notes = apply_to_sandbox(&mut sandbox, &instances).unwrap();
    assert_eq!(sandbox.config().sliding_window_size, 5);
    assert_eq!(sandbox.config().failure_rate_threshold, 100.0);
    assert!(notes.iter().any(|n| n.contains("retry `x`")));
    // The sandbox's own bound, named by its key; the session is unchanged.
    let before = sandbox.config().clone();
    let errors = apply_to_sandbox(
        &mut sandbox,
        &read("resilience4j.circuitbreaker.instances.dependency.sliding-window-size: 5000\n")
            .unwrap(),
    )
    .unwrap_err();
    assert!(
        errors[0]
            .starts_with("resilience4j.circuitbreaker.instances.dependency.sliding-window-size: "),
        "{errors:?}"
    );
    assert_eq!(sandbox.config(), &before);
}

/// The labs' configs read back as they were exported (a retry comes back with
/// Resilience4j's plain rule, so the guard switch is left out of the comparison).
fn assert_lab_round_trips(instances: Vec<Instance>) {
    let normal = |instances: &[Instance]| {
        instances
            .iter()
            .map(|i| {
                let mut config = i.config.clone();
                if let PolicyConfig::Retry(r) = &mut config {
                    r.retry_on_local_refusals = true;
                }
                ((i.config.kind(), i.name.clone()), config)
            })
            .collect::<BTreeMap<_, _>>()
    };
    let yaml = to_yaml(&instances);
    let back = read(&yaml).unwrap_or_else(|e| panic!("{yaml}\n{e:#?}"));
    assert_eq!(normal(&back), normal(&instances), "{yaml}");
}

#[test]
fn every_lab_exports_a_fragment_that_reads_back() {
    assert_lab_round_trips(AmplificationLab::default().resilience4j());
    assert_lab_round_trips(JitterLab::default().resilience4j());
    assert_lab_round_trips(SandboxSettings::default().resilience4j());
    assert_lab_round_trips(PoolLab::default().resilience4j());
    assert_lab_round_trips(BrownoutLab::default().resilience4j());
    assert_lab_round_trips(CheckoutLab::default().resilience4j());
    let mut brownout = BrownoutLab::default();
    brownout.config.fixes = 4;
    assert_lab_round_trips(brownout.resilience4j());
}

#[test]
fn settings_with_no_policy_say_so_in_each_format() {
    // Demo 14's default system (the cascading failure, unprotected) has no Resilience4j
    // layer: a comment, not a bare `resilience4j:` key.
    let boxoffice = resilience_sim::scenario::boxoffice_lab::BoxOfficeLab::default();
    for instances in [boxoffice.resilience4j(), Vec::new()] {
        assert!(instances.is_empty());
        let yaml = to_yaml(&instances);
        for text in [&yaml, &to_properties(&instances)] {
            assert!(
                text.starts_with("# ") && text.contains("no Resilience4j policy"),
                "{text}"
            );
        }
        assert_eq!(read(&yaml), Ok(vec![]), "{yaml}");
        let java = to_java(&instances);
        assert!(
            java.starts_with("// ") && java.contains("no Resilience4j policy"),
            "{java}"
        );
    }
}

#[test]
fn a_labs_export_follows_its_current_config_and_notes_what_resilience4j_lacks() {
    let mut lab = AmplificationLab::default();
    lab.config.retries = 5;
    lab.config.backoff = resilience_sim::model::amplification::BackoffKind::Exponential;
    lab.config.jitter = resilience_sim::policy::retry::Jitter::Full;
    let instances = lab.resilience4j();
    let PolicyConfig::Retry(r) = &instances[0].config else {
        panic!()
    };
    assert_eq!(r.max_attempts, 6, "maxAttempts counts the first call");
    let notes = instances[0].notes.join(" ");
    assert!(
        notes.contains("full jitter") && notes.contains("retry budget"),
        "{notes}"
    );

    let mut pool = PoolLab::default();
    pool.config.bulkhead = resilience_sim::model::shared_pool::PoolBulkhead::Semaphore;
    pool.config.max_concurrent_calls = 5;
    let instances = pool.resilience4j();
    assert_eq!(instances.len(), 1);
    assert_eq!(
        instances[0].config,
        PolicyConfig::Bulkhead(BulkheadConfig {
            max_concurrent_calls: 5,
            max_wait_duration: 0
        })
    );

    // Checkout's bulkheads follow the bulkheads control, whatever the order.
    use resilience_sim::model::checkout::{Bulkheads, StackOrder};
    for (order, bulkheads, names) in [
        (
            StackOrder::Resilience4j,
            Bulkheads::Separate,
            &["payment", "shipping"][..],
        ),
        (
            StackOrder::Resilience4j,
            Bulkheads::Shared,
            &["checkout"][..],
        ),
        (
            StackOrder::BreakerOutsideRetry,
            Bulkheads::Separate,
            &["payment", "shipping"][..],
        ),
        (StackOrder::BreakerOutsideRetry, Bulkheads::None, &[][..]),
    ] {
        let mut checkout = CheckoutLab::default();
        checkout.config.order = order;
        checkout.config.bulkheads = bulkheads;
        let instances = checkout.resilience4j();
        let found: Vec<String> = instances
            .iter()
            .filter(|i| i.config.kind() == Kind::Bulkhead)
            .map(|i| i.name.clone())
            .collect();
        assert_eq!(found, names, "{order:?} {bulkheads:?}");
        // The order is not an instance's setting: a note says where it comes from.
        let noted = instances
            .iter()
            .any(|i| i.notes.iter().any(|n| n.contains("aspect-order")));
        assert_eq!(noted, order == StackOrder::BreakerOutsideRetry);
    }
}

// ---------------------------------------------------------------------------------------
// The readers never panic, and say what is wrong in one line per problem
// ---------------------------------------------------------------------------------------

fn check_bounded(text: &str) {
    let start = std::time::Instant::now();
    for result in [
        read(text).map(|_| ()),
        r4j::yaml::read(text).map(|_| ()),
        r4j::properties::read(text).map(|_| ()),
    ] {
        if let Err(errors) = result {
            assert!(!errors.is_empty());
            for e in &errors {
                assert!(
                    !e.is_empty() && !e.contains('\n') && !e.contains('\r'),
                    "{e:?}"
                );
            }
        }
    }
    assert!(start.elapsed().as_secs() < 2, "took {:?}", start.elapsed());
}

fn fragments() -> Vec<String> {
    let instances = every_policy();
    vec![
        to_yaml(&instances),
        to_properties(&instances),
        to_yaml(&tick_instances(
            &catalogue::demo(7).unwrap().scenario().tick,
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        check_bounded(&text);
    }

    #[test]
    fn yamlish_text_never_panics(text in "([ \\-:#\\[\\]{}'\"&*!|>,a-z0-9.\\n\\t\\\\=]){0,300}") {
        check_bounded(&text);
    }

    #[test]
    fn mutated_fragments_never_panic(
        which in 0usize..3,
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..5, "[ \\-:#\\[\\]'\"a-z0-9.\\n]{0,3}"), 1..8),
    ) {
        let mut text = fragments()[which].clone();
        for (at, op, insert) in edits {
            let mut cut = at.index(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            match op {
                0 => text.insert_str(cut, &insert),
                1 => { let end = (cut + 4).min(text.len()); if text.is_char_boundary(end) { text.replace_range(cut..end, ""); } }
                2 => text.insert(cut, ' '),
                3 => { let line = text[cut..].lines().next().unwrap_or("").to_string(); text.insert_str(cut, &format!("{line}\n")); }
                _ => text.insert_str(cut, "\n  - "),
            }
        }
        check_bounded(&text);
    }
}

#[test]
fn huge_and_deep_inputs_are_refused_quickly() {
    check_bounded(&"a".repeat(200_000));
    let deep: String = (0..5_000)
        .map(|i| format!("{}k:\n", " ".repeat(i % 200)))
        .collect();
    check_bounded(&deep);
    let deep_keys = format!("{}=1\n", vec!["a"; 5_000].join("."));
    check_bounded(&deep_keys);
    check_bounded(&"[".repeat(30_000));
}

#[test]
fn initial_state_is_read_as_spring_binds_an_enum() {
    for (text, state) in [
        ("FORCED_OPEN", State::ForcedOpen),
        ("half-open", State::HalfOpen),
        ("metrics_only", State::MetricsOnly),
        ("CLOSED", State::Closed),
    ] {
        let c = cb(&format!(
            "resilience4j.circuitbreaker.instances.a.initial-state={text}"
        ));
        assert_eq!(c.initial_state, state, "{text}");
    }
    let errors = read("resilience4j.circuitbreaker.instances.a.initial-state=AJAR").unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("initial-state"), "{errors:?}");
    // Written only when it is not CLOSED, Resilience4j's default.
    let closed = Instance::new(
        "a",
        PolicyConfig::CircuitBreaker(CircuitBreakerConfig::default()),
    );
    assert!(!to_yaml(&[closed]).contains("initial-state"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// The course's Java with random damage (characters cut, inserted, a line joined) is
    /// read or refused, one line per problem: never a panic, never a hang.
    #[test]
    fn damaged_java_is_read_or_refused_in_one_line_each(
        cut in 0usize..4_000,
        len in 0usize..40,
        insert in "[(),.;\\n a-zA-Z0-9\"=]{0,12}",
    ) {
        let java = to_java(&every_policy());
        let start = cut.min(java.len());
        let end = (start + len).min(java.len());
        if java.is_char_boundary(start) && java.is_char_boundary(end) {
            let damaged = format!("{}{}{}", &java[..start], insert, &java[end..]);
            if let Err(problems) = r4j::read_fragment(&damaged, None) {
                for problem in problems {
                    prop_assert!(!problem.contains('\n'), "{}", problem);
                }
            }
        }
    }
}
