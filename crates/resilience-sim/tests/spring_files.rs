//! Whole Spring Boot files as engineers paste them (issue 22 §5): the parts the simulation
//! does not model are skipped and listed, never a reason to refuse the file.

use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
use resilience_sim::resilience4j::{read_fragment, Fragment, PolicyConfig};

fn breaker(fragment: &Fragment, name: &str) -> CircuitBreakerConfig {
    fragment
        .instances
        .iter()
        .find_map(|i| match &i.config {
            PolicyConfig::CircuitBreaker(c) if i.name == name => Some(c.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no circuitbreaker {name}: {fragment:#?}"))
}

/// The shape of a typical tutorial's file: actuator settings, every policy, a rate limiter.
const EVERY_POLICY: &str = "\
management:
  health:
    circuitbreakers:
      enabled: true
resilience4j:
  circuitbreaker:
    instances:
      productService:
        register-health-indicator: true
        event-consumer-buffer-size: 10
        failure-rate-threshold: 80
        minimum-number-of-calls: 5
        wait-duration-in-open-state: 20s
        sliding-window-size: 10
  retry:
    instances:
      productService:
        max-attempts: 3
        wait-duration: 10s
  ratelimiter:
    instances:
      productService:
        limit-for-period: 5
        limit-refresh-period: 1s
  bulkhead:
    instances:
      productService:
        max-concurrent-calls: 2
";

#[test]
fn a_rate_limiter_is_read_and_actuator_settings_are_listed_not_refused() {
    let fragment = read_fragment(EVERY_POLICY, None).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(
        fragment.instances.len(),
        4,
        "breaker, retry, rate limiter, bulkhead"
    );
    let cb = breaker(&fragment, "productService");
    assert_eq!(cb.failure_rate_threshold, 80.0);
    assert_eq!(cb.minimum_number_of_calls, 5);
    assert_eq!(cb.wait_duration_in_open_state, 20_000);
    let limiter = fragment
        .instances
        .iter()
        .find_map(|i| match &i.config {
            PolicyConfig::RateLimiter(c) => Some(c.clone()),
            _ => None,
        })
        .expect("the rate limiter");
    assert_eq!(limiter.limit_for_period, 5);
    assert_eq!(
        limiter.limit_refresh_period, 1_000_000_000,
        "1s in nanoseconds"
    );
    // Not in the file: Resilience4j's default timeout, 5 s.
    assert_eq!(limiter.timeout_duration, 5_000_000_000);
    assert_eq!(
        fragment.not_read,
        ["not Resilience4j settings, not read: management"]
    );
}

/// Placeholders, `configs.default`, `base-config` and a profile's document.
const PROFILES: &str = "\
resilience4j.circuitbreaker:
  configs:
    default:
      registerHealthIndicator: true
      slidingWindowSize: ${CB_WINDOW:20}
      minimumNumberOfCalls: ${CB_MIN:${FALLBACK_MIN:7}}
      waitDurationInOpenState: ${CB_WAIT:5}s
  instances:
    backendA:
      baseConfig: default
      failureRateThreshold: 60
---
spring.config.activate.on-profile: prod
resilience4j.circuitbreaker:
  instances:
    backendA:
      failureRateThreshold: 40
";

#[test]
fn placeholders_read_their_default_and_the_default_profile_is_read() {
    let fragment = read_fragment(PROFILES, None).unwrap_or_else(|e| panic!("{e:#?}"));
    let cb = breaker(&fragment, "backendA");
    assert_eq!(cb.sliding_window_size, 20);
    assert_eq!(cb.minimum_number_of_calls, 7);
    assert_eq!(cb.wait_duration_in_open_state, 5_000);
    assert_eq!(cb.failure_rate_threshold, 60.0);
    assert_eq!(
        fragment.not_read,
        ["document 2 (line 13): its profile condition `prod` does not hold (no profile chosen: Spring's `default` profile is the active one)"]
    );
}

#[test]
fn a_chosen_profile_s_document_overrides_the_default_one() {
    let fragment = read_fragment(PROFILES, Some("prod")).unwrap_or_else(|e| panic!("{e:#?}"));
    let cb = breaker(&fragment, "backendA");
    assert_eq!(cb.failure_rate_threshold, 40.0);
    assert_eq!(
        cb.sliding_window_size, 20,
        "the rest from the default document"
    );
    assert_eq!(
        fragment.not_read,
        ["not Resilience4j settings, not read: spring"]
    );
}

/// What the config dialog offers to choose from: each profile a document is for, once.
#[test]
fn the_profiles_a_file_has_are_listed_in_order_once() {
    assert_eq!(resilience_sim::resilience4j::profiles(PROFILES), ["prod"]);
    let text = "a.b: 1\n---\nspring:\n  profiles: test, ci\na.b: 2\n---\nspring.config.activate.on-profile: prod\n---\nspring.config.activate.on-profile: ci\n";
    assert_eq!(
        resilience_sim::resilience4j::profiles(text),
        ["test", "ci", "prod"]
    );
    // A properties file and a file of one document have none.
    assert!(resilience_sim::resilience4j::profiles("a.b=1\n").is_empty());
    assert!(resilience_sim::resilience4j::profiles("a:\n  b: 1\n").is_empty());
}

#[test]
fn a_problem_in_a_later_document_is_numbered_in_the_whole_file() {
    let text = "resilience4j.circuitbreaker.instances.a.sliding-window-size: 4\n---\nresilience4j.circuitbreaker.instances.a.failure-rate-threshold: 500\n";
    let errors = read_fragment(text, None).unwrap_err();
    assert!(
        errors[0].starts_with(
            "line 3: resilience4j.circuitbreaker.instances.a.failure-rate-threshold: "
        ),
        "{errors:?}"
    );
}

#[test]
fn a_placeholder_without_a_default_says_what_to_write() {
    let errors = read_fragment(
        "resilience4j.circuitbreaker.instances.a.sliding-window-size: ${WINDOW}\n",
        None,
    )
    .unwrap_err();
    assert_eq!(
        errors,
        ["line 1: resilience4j.circuitbreaker.instances.a.sliding-window-size: the placeholder `${WINDOW}` has no default, and the simulation has no environment to read it from: write the value, or `${WINDOW:value}`"]
    );
}

#[test]
fn a_byte_order_mark_is_skipped_in_yaml_and_properties() {
    for text in [
        "\u{feff}# saved by an editor\nresilience4j.circuitbreaker.instances.a.sliding-window-size: 4\n",
        "\u{feff}# saved by an editor\nresilience4j.circuitbreaker.instances.a.sliding-window-size=4\n",
    ] {
        let fragment = read_fragment(text, None).unwrap_or_else(|e| panic!("{text:?}: {e:#?}"));
        assert_eq!(breaker(&fragment, "a").sliding_window_size, 4);
    }
}

/// A file whose instances are named for its own services, with a shared `configs.default`.
const NAMED_FOR_ITS_SERVICES: &str = "\
resilience4j:
  circuitbreaker:
    configs:
      default:
        sliding-window-size: 100
        minimum-number-of-calls: 10
        permitted-number-of-calls-in-half-open-state: 5
        wait-duration-in-open-state: 30s
        failure-rate-threshold: 50
    instances:
      erpCircuitBreaker:
        base-config: default
        sliding-window-size: 50
        wait-duration-in-open-state: 60s
      paymentsCircuitBreaker:
        base-config: default
        sliding-window-size: 20
        failure-rate-threshold: 30
";

/// Two breakers and none named `recommendations`: the refusal names both, and either can
/// be chosen to play recommendations, with what it inherits from `configs.default`.
#[test]
fn the_learner_chooses_which_instance_plays_the_demo_s_role() {
    use resilience_sim::resilience4j::{apply_to_sandbox_as, apply_to_tick, apply_to_tick_as};
    use resilience_sim::scenario::catalogue;
    use resilience_sim::scenario::sandbox::BreakerSandbox;

    let fragment = read_fragment(NAMED_FOR_ITS_SERVICES, None).unwrap();
    let tick = catalogue::demo(5).unwrap().scenario().tick;
    let refused = apply_to_tick(&tick, &fragment.instances).unwrap_err();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].contains("2 instances (erpCircuitBreaker, paymentsCircuitBreaker) and none named recommendations"),
        "{refused:?}"
    );

    let (payments, _) =
        apply_to_tick_as(&tick, &fragment.instances, "paymentsCircuitBreaker").unwrap();
    assert_eq!(payments.sliding_window_size, 20);
    assert_eq!(payments.failure_rate_threshold, 30.0);
    // From configs.default, which the instance names as its base-config.
    assert_eq!(payments.minimum_number_of_calls, 10);
    assert_eq!(payments.permitted_number_of_calls_in_half_open_state, 5);
    assert_eq!(payments.wait_duration_in_open_state, 30_000);

    let (erp, _) = apply_to_tick_as(&tick, &fragment.instances, "erpCircuitBreaker").unwrap();
    assert_eq!(erp.sliding_window_size, 50);
    assert_eq!(erp.wait_duration_in_open_state, 60_000);
    assert_eq!(erp.failure_rate_threshold, 50.0);

    let mut sandbox = BreakerSandbox::default();
    let notes =
        apply_to_sandbox_as(&mut sandbox, &fragment.instances, "erpCircuitBreaker").unwrap();
    assert_eq!(sandbox.settings().config.sliding_window_size, 50);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`paymentsCircuitBreaker` is read and checked but not used")),
        "{notes:?}"
    );
    let missing = apply_to_tick_as(&tick, &fragment.instances, "inventory").unwrap_err();
    assert!(missing[0].contains("none named inventory"), "{missing:?}");
}

/// Which values came from the instance, which from a shared config, and which are
/// Resilience4j's defaults (issue 22 §5).
#[test]
fn the_fragment_says_where_each_instance_s_values_came_from() {
    let text = "\
resilience4j.circuitbreaker:
  configs:
    default:
      sliding-window-size: 20
      wait-duration-in-open-state: 5s
    strict:
      failure-rate-threshold: 25
  instances:
    backendA:
      base-config: strict
      minimum-number-of-calls: 5
      failure-rate-threshold: 30
    backendB:
      minimum-number-of-calls: 7
resilience4j.bulkhead.instances.backendA.max-concurrent-calls: 3
";
    let fragment = read_fragment(text, None).unwrap_or_else(|e| panic!("{e:#?}"));
    let sentence = |path: &str| {
        let i = fragment
            .instances
            .iter()
            .position(|i| i.path() == path)
            .unwrap_or_else(|| panic!("no {path}"));
        fragment.provenance_of(&fragment.instances[i]).unwrap()
    };
    // backendA's base-config is `strict`, which has no base: configs.default does not apply
    // (Resilience4j's `createCircuitBreakerConfig` builds on the named base alone), and the
    // instance's own failure rate overrides the base's.
    assert_eq!(
        sentence("resilience4j.circuitbreaker.instances.backendA"),
        "resilience4j.circuitbreaker.instances.backendA: failure-rate-threshold, minimum-number-of-calls set in the instance; every other value is Resilience4j's default."
    );
    // backendB has no base-config: configs.default is its base.
    assert_eq!(
        sentence("resilience4j.circuitbreaker.instances.backendB"),
        "resilience4j.circuitbreaker.instances.backendB: minimum-number-of-calls set in the instance; sliding-window-size, wait-duration-in-open-state from configs.default; every other value is Resilience4j's default."
    );
    assert_eq!(
        sentence("resilience4j.bulkhead.instances.backendA"),
        "resilience4j.bulkhead.instances.backendA: max-concurrent-calls set in the instance; every other value is Resilience4j's default."
    );
}

/// The 64 KB limit is on the whole file, not on each of its documents: a file of a
/// hundred thousand tiny documents is refused at once, and offers no profile.
#[test]
fn a_file_of_many_small_documents_is_refused_by_its_size() {
    let text = "spring.config.activate.on-profile: p\na.b: 1\n---\n".repeat(10_000);
    assert!(text.len() > 64 * 1024);
    let errors = read_fragment(&text, None).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("at most 65536 (64 KB)"), "{errors:?}");
    assert!(resilience_sim::resilience4j::profiles(&text).is_empty());
    // Under the limit, the same documents are read.
    let small = "spring.config.activate.on-profile: p\na.b: 1\n---\n".repeat(100);
    assert_eq!(resilience_sim::resilience4j::profiles(&small), ["p"]);
}

/// A document's `on-profile` is a profile expression, as Spring's `Profiles.of` reads it:
/// `!`, `&`, `|`, parentheses, commas between expressions. With no profile chosen, Spring's
/// `default` profile is the active one.
#[test]
fn on_profile_is_a_profile_expression_and_default_is_active_when_none_is_chosen() {
    let threshold = |value: u32| {
        format!("resilience4j.circuitbreaker.instances.a.failure-rate-threshold: {value}\n")
    };
    let text = [
        threshold(10),
        format!(
            "---\nspring.config.activate.on-profile: \"!prod\"\n{}",
            threshold(20)
        ),
        format!(
            "---\nspring.config.activate.on-profile: prod & eu\n{}",
            threshold(30)
        ),
        format!(
            "---\nspring.config.activate.on-profile: (prod | dev) & !eu\n{}",
            threshold(40)
        ),
        format!(
            "---\nspring.config.activate.on-profile: default\n{}",
            threshold(50)
        ),
    ]
    .concat();
    let read = |profile: Option<&str>| {
        let fragment = read_fragment(&text, profile).unwrap_or_else(|e| panic!("{e:#?}"));
        let skipped = fragment
            .not_read
            .iter()
            .filter(|n| n.starts_with("document "))
            .count();
        (breaker(&fragment, "a").failure_rate_threshold, skipped)
    };
    // No profile: `default` is active, so `!prod` and `default` hold; the last one wins.
    assert_eq!(read(None), (50.0, 2));
    // prod alone: not `!prod`, not `prod & eu`, `(prod | dev) & !eu` yes, not `default`.
    assert_eq!(read(Some("prod")), (40.0, 3));
    // eu alone: `!prod` holds, nothing after it.
    assert_eq!(read(Some("eu")), (20.0, 3));
    assert_eq!(
        resilience_sim::resilience4j::profiles(&text),
        ["prod", "eu", "dev"]
    );
    // A comma is "or".
    let either = format!(
        "a: 1\n---\nspring.config.activate.on-profile: qa, prod\n{}",
        threshold(60)
    );
    let fragment = read_fragment(&either, Some("prod")).unwrap();
    assert_eq!(breaker(&fragment, "a").failure_rate_threshold, 60.0);
}

#[test]
fn a_malformed_profile_expression_is_refused_on_its_line() {
    for (expression, words) in [
        ("prod & eu | dev", "need parentheses"),
        ("(prod", "not closed"),
        ("prod &", "ends too soon"),
        ("&prod", "an operator where a profile name was expected"),
        ("prod eu", "malformed"),
    ] {
        let text = format!(
            "a.b: 1\n---\nspring.config.activate.on-profile: \"{expression}\"\nresilience4j.retry.instances.a.max-attempts: 2\n"
        );
        let errors = read_fragment(&text, None).unwrap_err();
        assert!(
            errors[0].starts_with("line 3: spring.config.activate.on-profile: ")
                && errors[0].contains(words),
            "{expression}: {errors:?}"
        );
    }
    // Deep parentheses are refused, not recursed into without end.
    let deep = format!("{}prod{}", "(".repeat(5_000), ")".repeat(5_000));
    let text = format!("spring.config.activate.on-profile: {deep}\na.b: 1\n");
    assert!(read_fragment(&text, Some("prod")).unwrap_err()[0].contains("nested deeper than 32"));
    // A long run of `!` is read in a loop: an even number of them is no negation at all.
    for (nots, holds) in [(60_000, true), (60_001, false)] {
        let text = format!(
            "resilience4j.retry.instances.b.max-attempts: 3\n---\nspring.config.activate.on-profile: \"{}prod\"\nresilience4j.retry.instances.a.max-attempts: 2\n",
            "!".repeat(nots)
        );
        let read = read_fragment(&text, Some("prod")).unwrap();
        assert_eq!(
            read.instances.len(),
            1 + usize::from(holds),
            "{nots} times !"
        );
    }
}

/// Spring Boot splits a `.properties` file into documents at `#---` and `!---` lines.
#[test]
fn a_properties_file_has_documents_too() {
    let text = "\
resilience4j.circuitbreaker.instances.a.failure-rate-threshold=25
#---
spring.config.activate.on-profile=prod
resilience4j.circuitbreaker.instances.a.failure-rate-threshold=35
!---
resilience4j.circuitbreaker.instances.a.sliding-window-size=7
";
    let fragment = read_fragment(text, None).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(breaker(&fragment, "a").failure_rate_threshold, 25.0);
    assert_eq!(breaker(&fragment, "a").sliding_window_size, 7);
    assert_eq!(
        fragment.not_read,
        ["document 2 (line 3): its profile condition `prod` does not hold (no profile chosen: Spring's `default` profile is the active one)"]
    );
    let fragment = read_fragment(text, Some("prod")).unwrap();
    assert_eq!(breaker(&fragment, "a").failure_rate_threshold, 35.0);
    assert_eq!(resilience_sim::resilience4j::profiles(text), ["prod"]);
    // A problem in a later document is numbered in the whole file.
    let bad = "a.b=1\n#---\nresilience4j.circuitbreaker.instances.a.failure-rate-threshold=500\n";
    assert!(read_fragment(bad, None).unwrap_err()[0].starts_with("line 3: "));
}

/// Spring Boot's YAML loader (SnakeYAML) reads an unquoted `010` as the octal integer 8 and
/// binds that integer, as a count or as milliseconds; a `.properties` file's `010` is text,
/// which Spring's converters read as 10.
#[test]
fn a_yaml_integer_with_a_leading_zero_is_octal_as_spring_boot_reads_it() {
    let yaml = "resilience4j.circuitbreaker.instances.a:\n  minimum-number-of-calls: 010\n  wait-duration-in-open-state: 010\n  sliding-window-size: 0x10\n  permitted-number-of-calls-in-half-open-state: 1_000\n  slow-call-duration-threshold: \"010\"\n";
    let cb = breaker(
        &read_fragment(yaml, None).unwrap_or_else(|e| panic!("{e:#?}")),
        "a",
    );
    assert_eq!(cb.minimum_number_of_calls, 8);
    assert_eq!(cb.wait_duration_in_open_state, 8);
    assert_eq!(cb.sliding_window_size, 16);
    assert_eq!(cb.permitted_number_of_calls_in_half_open_state, 1000);
    assert_eq!(cb.slow_call_duration_threshold, 10, "quoted: text");
    let properties = "resilience4j.circuitbreaker.instances.a.minimum-number-of-calls=010\nresilience4j.circuitbreaker.instances.a.wait-duration-in-open-state=010\n";
    let cb = breaker(
        &read_fragment(properties, None).unwrap_or_else(|e| panic!("{e:#?}")),
        "a",
    );
    assert_eq!(cb.minimum_number_of_calls, 10);
    assert_eq!(cb.wait_duration_in_open_state, 10);
}

/// Text becomes a whole number as Spring's `NumberUtils.parseNumber` reads it: whitespace
/// anywhere taken out, `0x`, `0X` or `#` hexadecimal after an optional `-`, else decimal.
#[test]
fn a_whole_number_in_text_is_read_as_spring_reads_it() {
    let read = |value: &str| {
        let text = [
            "resilience4j.circuitbreaker.instances.a.sliding-window-size=",
            value,
            "\n",
        ]
        .concat();
        read_fragment(&text, None).map(|f| breaker(&f, "a").sliding_window_size)
    };
    for (value, expected) in [
        ("0x10", 16),
        ("0X10", 16),
        ("#10", 16),
        ("1 0", 10),
        ("+12", 12),
        ("010", 10),
    ] {
        assert_eq!(
            read(value).unwrap_or_else(|e| panic!("{value}: {e:?}")),
            expected,
            "{value}"
        );
    }
    // `+` before a hexadecimal prefix, a sign after it, and a Java int's overflow are refused.
    for value in ["+0x10", "0x-1", "0x80000000", "2147483648", "1e3", "0x"] {
        assert!(read(value).is_err(), "{value}");
    }
    let yaml = "resilience4j.circuitbreaker.instances.a.sliding-window-size: '0x10'\n";
    assert_eq!(
        breaker(&read_fragment(yaml, None).unwrap(), "a").sliding_window_size,
        16
    );
}
