//! The rate limiter against Resilience4j's `AtomicRateLimiter`: its defaults, each as its
//! own test; the behaviours that surprise people, pinned; the script runner's format; and a
//! property test against an independent model written from the documented behaviour.

use proptest::prelude::*;
use serde_json::Value;

use resilience_sim::policy::rate_limiter::{RateLimiter, RateLimiterConfig};
use resilience_sim::scenario::scripts::rate_limiter::{
    run_rate_limiter_script, RateLimiterReport, RateLimiterScript, RateLimiterStep,
};
use resilience_sim::scenario::scripts::{self, rate_limiter::Permits};

const MS: u64 = 1_000_000;

fn run(json: &str) -> Vec<Value> {
    scripts::rate_limiter::run_text(json)
        .unwrap()
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn limiter(limit: u32, period_ms: u64, timeout_ms: u64) -> RateLimiter {
    RateLimiter::new(
        RateLimiterConfig {
            limit_for_period: limit,
            limit_refresh_period: period_ms * MS,
            timeout_duration: timeout_ms * MS,
            ..RateLimiterConfig::default()
        },
        0,
    )
    .unwrap()
}

// --- Resilience4j's defaults (RateLimiterConfig.Builder), one test each -------------------

#[test]
fn default_limit_for_period_is_50() {
    assert_eq!(RateLimiterConfig::default().limit_for_period, 50);
}

#[test]
fn default_limit_refresh_period_is_500_nanoseconds() {
    assert_eq!(RateLimiterConfig::default().limit_refresh_period, 500);
}

#[test]
fn default_timeout_duration_is_5_seconds() {
    assert_eq!(RateLimiterConfig::default().timeout_duration, 5_000 * MS);
}

#[test]
fn default_writable_stack_trace_is_enabled() {
    assert!(RateLimiterConfig::default().writable_stack_trace_enabled);
}

#[test]
fn an_empty_config_in_a_script_takes_every_default() {
    let script: RateLimiterScript = scripts::parse(r#"{"steps":[]}"#, "script").unwrap();
    assert_eq!(script.config, RateLimiterConfig::default());
    // 50 permissions at creation.
    let out = run(r#"{"steps":[{"advance_ms":0}]}"#);
    assert_eq!(out[0]["availablePermissions"], 50);
}

// --- The builder's rules ----------------------------------------------------------------

#[test]
fn the_builder_refuses_a_limit_of_0_and_a_period_under_1_ns() {
    let e = scripts::rate_limiter::run_text(r#"{"config":{"limitForPeriod":0},"steps":[]}"#)
        .unwrap_err();
    assert!(e.contains("limitForPeriod"), "{e}");
    let e =
        scripts::rate_limiter::run_text(r#"{"config":{"limitRefreshPeriod":"0ns"},"steps":[]}"#)
            .unwrap_err();
    assert!(e.contains("limitRefreshPeriod"), "{e}");
    // 1 ns is the shortest period the builder takes.
    assert!(scripts::rate_limiter::run_text(
        r#"{"config":{"limitRefreshPeriod":"1ns"},"steps":[]}"#
    )
    .is_ok());
}

#[test]
fn change_limit_to_0_is_refused_and_keeps_the_config() {
    let out = run(
        r#"{"config":{"limitForPeriod":3,"limitRefreshPeriod":"1s","timeoutDuration":0},
        "steps":[{"change_limit":0},{"advance_ms":1000}]}"#,
    );
    assert_eq!(out[0]["error"], "IllegalArgumentException");
    assert_eq!(out[1]["availablePermissions"], 3);
}

// --- What surprises people, pinned --------------------------------------------------------

#[test]
fn cycles_start_at_creation_not_at_the_first_call() {
    // 10 per second, created at 0, first called at 900 ms: 10 calls until 1,000 ms and 10
    // fresh ones after, 20 calls within 200 ms.
    let mut l = limiter(10, 1_000, 0);
    let granted_at_900 = (0..15)
        .filter(|_| l.acquire_permission(900, 1).permitted)
        .count();
    let granted_at_1000 = (0..15)
        .filter(|_| l.acquire_permission(1_000, 1).permitted)
        .count();
    assert_eq!((granted_at_900, granted_at_1000), (10, 10));
}

#[test]
fn unused_permissions_do_not_pile_up_past_one_period() {
    let mut l = limiter(5, 100, 0);
    // Ten idle periods later: still 5, not 50.
    assert_eq!(l.available_permissions(1_000), 5);
    let granted = (0..20)
        .filter(|_| l.acquire_permission(1_000, 1).permitted)
        .count();
    assert_eq!(granted, 5);
}

#[test]
fn a_waiting_caller_reserves_a_permission_of_the_next_cycle() {
    // 1 per second, timeout 2 s: the second caller at 0 ms waits 1,000 ms for cycle 1, the
    // third 2,000 ms for cycle 2; the fourth would need 3,000 ms and is refused.
    let mut l = limiter(1, 1_000, 2_000);
    let waits: Vec<(bool, u64)> = (0..4)
        .map(|_| {
            let a = l.acquire_permission(0, 1);
            (a.permitted, a.waited / MS)
        })
        .collect();
    assert_eq!(
        waits,
        vec![(true, 0), (true, 1_000), (true, 2_000), (false, 2_000)]
    );
    // Two reservations outstanding: -2 available, three callers parked.
    assert_eq!(l.available_permissions(0), -2);
    assert_eq!(l.number_of_waiting_threads(0), 3);
    // At 1,000 ms the first sleeper wakes; at 2,000 ms the other two (the refused one after
    // its whole timeout).
    assert_eq!(l.number_of_waiting_threads(1_000), 2);
    assert_eq!(l.number_of_waiting_threads(2_000), 0);
}

#[test]
fn a_refused_caller_still_waits_the_whole_timeout() {
    // 1 per 10 s, timeout 300 ms: the second caller cannot be served within 300 ms, and
    // Resilience4j parks it 300 ms before answering RequestNotPermitted.
    let out = run(
        r#"{"config":{"limitForPeriod":1,"limitRefreshPeriod":"10s","timeoutDuration":"300ms"},
        "steps":[{"acquire":{}},{"acquire":{}},{"advance_ms":299},{"advance_ms":1}]}"#,
    );
    assert_eq!(out[1]["permitted"], false);
    assert_eq!(out[1]["error"], "RequestNotPermitted");
    assert_eq!(out[1]["event"], "FAILED_ACQUIRE");
    assert_eq!(out[1]["waited_ms"], 300.0);
    assert_eq!(out[1]["numberOfWaitingThreads"], 1);
    assert_eq!(out[2]["numberOfWaitingThreads"], 1);
    assert_eq!(out[3]["numberOfWaitingThreads"], 0);
}

#[test]
fn a_refused_reservation_does_not_wait() {
    let out = run(
        r#"{"config":{"limitForPeriod":1,"limitRefreshPeriod":"10s","timeoutDuration":"300ms"},
        "steps":[{"reserve":{}},{"reserve":{}}]}"#,
    );
    assert_eq!(out[0]["waited_ms"], 0.0);
    assert_eq!(out[1]["permitted"], false);
    assert!(out[1].get("waited_ms").is_none());
    assert_eq!(out[1]["numberOfWaitingThreads"], 0);
}

#[test]
fn a_new_limit_applies_from_the_next_refresh() {
    let mut l = limiter(2, 1_000, 0);
    l.change_limit_for_period(5).unwrap();
    // This cycle still has its 2.
    assert_eq!(l.available_permissions(500), 2);
    assert_eq!(l.available_permissions(1_000), 5);
}

#[test]
fn drain_within_a_cycle_leaves_none() {
    let mut l = limiter(5, 1_000, 0);
    assert!(l.acquire_permission(100, 1).permitted);
    l.drain_permissions(200);
    assert_eq!(l.available_permissions(200), 0);
    assert_eq!(l.available_permissions(1_000), 5);
}

#[test]
fn drain_after_idle_cycles_subtracts_the_stale_count() {
    // 2 left in cycle 0; drained in cycle 3 the limiter refreshes to 5, then subtracts the
    // stale 2 (drainPermissions passes the permissions it held before the refresh): 3 left.
    let mut l = limiter(5, 1_000, 0);
    for _ in 0..3 {
        assert!(l.acquire_permission(0, 1).permitted);
    }
    l.drain_permissions(3_500);
    assert_eq!(l.available_permissions(3_500), 3);
}

#[test]
fn the_default_refresh_period_is_not_a_limit_in_practice() {
    // 50 per 500 ns is 100 million per second: 1,000 calls a millisecond apart all pass.
    let mut l = RateLimiter::new(RateLimiterConfig::default(), 0).unwrap();
    assert!((0..1_000).all(|t| l.acquire_permission(t, 1).permitted));
}

#[test]
fn sub_millisecond_waits_are_reported_in_fractions_of_a_millisecond() {
    // 1 per 250 us, timeout 1 ms: the second caller at 0 waits 0.25 ms.
    let out = run(
        r#"{"config":{"limitForPeriod":1,"limitRefreshPeriod":"250us","timeoutDuration":"1ms"},
        "steps":[{"acquire":{}},{"acquire":{}}]}"#,
    );
    assert_eq!(out[1]["waited_ms"], 0.25);
    assert_eq!(out[1]["nanosToWait"], 500_000);
}

// --- The runner's format ---------------------------------------------------------------------

#[test]
fn every_step_reports_its_index_clock_and_metrics() {
    let out = run(
        r#"{"config":{"limitForPeriod":2,"limitRefreshPeriod":"1s","timeoutDuration":"500ms"},
        "steps":[{"acquire":{}},{"acquire":{"permits":1}},{"advance_ms":600},{"acquire":{}},
                 {"acquire":{}},{"advance_ms":400},{"drain":{}},{"change_timeout_ms":0}]}"#,
    );
    assert_eq!(out.len(), 8);
    for (i, line) in out.iter().enumerate() {
        assert_eq!(line["step"], i);
        for key in [
            "t_ms",
            "availablePermissions",
            "numberOfWaitingThreads",
            "nanosToWait",
        ] {
            assert!(line.get(key).is_some(), "step {i} has no {key}");
        }
    }
    // At 600 ms both permissions of cycle 0 are gone: the next two callers reserve cycle 1's
    // two and sleep 400 ms each.
    assert_eq!(out[3]["waited_ms"], 400.0);
    assert_eq!(out[4]["waited_ms"], 400.0);
    assert_eq!(out[4]["availablePermissions"], -2);
    assert_eq!(out[4]["numberOfWaitingThreads"], 2);
    // At 1,000 ms cycle 1's refresh pays both reservations back: 0, and nobody waits.
    assert_eq!(out[5]["t_ms"], 1_000);
    assert_eq!(out[5]["availablePermissions"], 0);
    assert_eq!(out[5]["numberOfWaitingThreads"], 0);
    assert_eq!(out[6]["event"], "DRAINED");
}

#[test]
fn bad_scripts_are_refused_before_any_step_with_one_line() {
    for (bad, needle) in [
        (
            r#"{"steps":[{"acquire":{"permits":-1}}]}"#,
            "steps[0].acquire.permits",
        ),
        (
            r#"{"steps":[{"acquire":{"permits":3000000000}}]}"#,
            "steps[0].acquire.permits",
        ),
        // changeLimitForPeriod(int): Java cannot pass 2^32 - 1; 0 is its runtime refusal.
        (
            r#"{"steps":[{"change_limit":4294967295}]}"#,
            "steps[0].change_limit: must be at most 2147483647",
        ),
        (r#"{"steps":[{"wait":{}}]}"#, "steps[0]"),
        (r#"{"config":{"limit":3},"steps":[]}"#, "config"),
        (r#"{"steps":[{"advance_ms":1.5}]}"#, "steps[0].advance_ms"),
        (
            r#"{"steps":[{"advance_ms":999999999999},{"advance_ms":2}]}"#,
            "steps[1].advance_ms",
        ),
        ("\u{feff}{", "invalid rate limiter script"),
    ] {
        let e = scripts::rate_limiter::run_text(bad).unwrap_err();
        assert!(e.contains(needle), "{bad}: {e}");
        assert!(e.starts_with("invalid rate limiter script"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn a_bom_is_skipped_as_in_breaker_scripts() {
    assert!(scripts::rate_limiter::run_text("\u{feff}{\"steps\":[]}").is_ok());
}

// --- Against an independent model -------------------------------------------------------------

/// The limiter as its documentation describes it, written without the implementation's
/// formulas: permissions refresh to at most one period's worth at each cycle boundary
/// counted from creation; a caller short of permissions finds, cycle by cycle, the first
/// cycle whose refresh covers it; it reserves when that cycle starts within the timeout
/// and otherwise is refused after waiting the whole timeout. Numbers in i128: no wrapping
/// (the strategy keeps every figure far from Java's limits).
#[derive(Debug)]
struct Model {
    limit: i128,
    period: i128,
    timeout: i128,
    cycle: i128,
    permissions: i128,
    wake_ups: Vec<i128>,
}

impl Model {
    fn refresh(&mut self, t: i128) {
        let cycle = t / self.period;
        while self.cycle < cycle {
            self.cycle += 1;
            self.permissions = (self.permissions + self.limit).min(self.limit);
        }
    }

    fn wait_for(&self, t: i128, permits: i128) -> i128 {
        if self.permissions >= permits {
            return 0;
        }
        let mut k = 1;
        while self.permissions + k * self.limit < permits {
            k += 1;
        }
        (self.cycle + k) * self.period - t
    }

    fn acquire(&mut self, t: i128, permits: i128) -> (bool, i128) {
        self.refresh(t);
        let wait = self.wait_for(t, permits);
        if wait <= self.timeout {
            self.permissions -= permits;
        }
        if wait == 0 {
            (true, 0)
        } else if wait <= self.timeout {
            self.wake_ups.push(t + wait);
            (true, wait)
        } else {
            if self.timeout > 0 {
                self.wake_ups.push(t + self.timeout);
            }
            (false, self.timeout)
        }
    }

    fn reserve(&mut self, t: i128, permits: i128) -> Option<i128> {
        self.refresh(t);
        let wait = self.wait_for(t, permits);
        if wait <= self.timeout {
            self.permissions -= permits;
            Some(wait)
        } else {
            None
        }
    }

    fn drain(&mut self, t: i128) {
        let stale = self.permissions;
        self.refresh(t);
        // Take `stale` permissions with no timeout: only when they are there.
        if self.wait_for(t, stale) <= 0 {
            self.permissions -= stale;
        }
    }

    fn available(&self, t: i128) -> i128 {
        let mut copy = Model {
            wake_ups: Vec::new(),
            ..*self
        };
        copy.refresh(t);
        copy.permissions
    }

    fn waiting(&self, t: i128) -> usize {
        self.wake_ups.iter().filter(|&&w| w > t).count()
    }
}

fn step() -> impl Strategy<Value = RateLimiterStep> {
    prop_oneof![
        6 => (0u32..5).prop_map(|permits| RateLimiterStep::Acquire(Permits { permits })),
        2 => (0u32..5).prop_map(|permits| RateLimiterStep::Reserve(Permits { permits })),
        1 => Just(RateLimiterStep::Drain {}),
        1 => (1u32..6).prop_map(RateLimiterStep::ChangeLimit),
        1 => (0u64..300).prop_map(RateLimiterStep::ChangeTimeoutMs),
        5 => prop_oneof![0u64..50, 0u64..400, 0u64..3_000].prop_map(RateLimiterStep::AdvanceMs),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn the_limiter_agrees_with_the_independent_model(
        limit in 1u32..6,
        period_ms in 1u64..500,
        timeout_ms in prop_oneof![Just(0u64), 0u64..1_500],
        steps in proptest::collection::vec(step(), 1..60),
    ) {
        let script = RateLimiterScript {
            config: RateLimiterConfig {
                limit_for_period: limit,
                limit_refresh_period: period_ms * MS,
                timeout_duration: timeout_ms * MS,
                writable_stack_trace_enabled: true,
            },
            steps: steps.clone(),
        };
        let reports: Vec<RateLimiterReport> = run_rate_limiter_script(&script).unwrap();
        let mut model = Model {
            limit: limit as i128,
            period: (period_ms * MS) as i128,
            timeout: (timeout_ms * MS) as i128,
            cycle: 0,
            permissions: limit as i128,
            wake_ups: Vec::new(),
        };
        let mut t: i128 = 0;
        for (i, (step, report)) in steps.iter().zip(&reports).enumerate() {
            match step {
                RateLimiterStep::Acquire(Permits { permits }) => {
                    let (permitted, waited) = model.acquire(t, *permits as i128);
                    prop_assert_eq!(report.permitted, Some(permitted), "step {}", i);
                    prop_assert_eq!(report.waited_ms, Some(waited as f64 / 1e6), "step {}", i);
                }
                RateLimiterStep::Reserve(Permits { permits }) => {
                    let wait = model.reserve(t, *permits as i128);
                    prop_assert_eq!(report.permitted, Some(wait.is_some()), "step {}", i);
                    prop_assert_eq!(report.waited_ms, wait.map(|w| w as f64 / 1e6), "step {}", i);
                }
                RateLimiterStep::Drain {} => model.drain(t),
                RateLimiterStep::ChangeLimit(n) => model.limit = *n as i128,
                RateLimiterStep::ChangeTimeoutMs(ms) => model.timeout = (*ms * MS) as i128,
                RateLimiterStep::AdvanceMs(ms) => t += (*ms * MS) as i128,
            }
            prop_assert_eq!(report.t_ms as i128 * MS as i128, t, "step {}", i);
            prop_assert_eq!(
                report.available_permissions as i128,
                model.available(t),
                "step {}: {:?}", i, step
            );
            prop_assert_eq!(report.number_of_waiting_threads as usize, model.waiting(t), "step {}", i);
        }
    }
}

// --- Spring Boot and Java, in and out -------------------------------------------------------

mod spring {
    use resilience_sim::policy::rate_limiter::RateLimiterConfig;
    use resilience_sim::resilience4j::{self as r4j, Instance, PolicyConfig};

    fn limiter_of(text: &str) -> RateLimiterConfig {
        let instances = r4j::read(text).unwrap_or_else(|e| panic!("{e:#?}\n{text}"));
        match &instances[..] {
            [Instance {
                config: PolicyConfig::RateLimiter(c),
                ..
            }] => c.clone(),
            other => panic!("{other:#?}"),
        }
    }

    #[test]
    fn kebab_keys_are_read_with_nanosecond_durations() {
        let c = limiter_of(
            "resilience4j:\n  ratelimiter:\n    instances:\n      partnerApi:\n        limit-for-period: 100\n        limit-refresh-period: 250us\n        timeout-duration: 0\n",
        );
        assert_eq!(c.limit_for_period, 100);
        assert_eq!(c.limit_refresh_period, 250_000);
        assert_eq!(c.timeout_duration, 0);
    }

    #[test]
    fn configs_default_and_the_limiters_group_are_resilience4js() {
        // `limiters` is the properties class's other name for its instances.
        let c = limiter_of(
            "resilience4j.ratelimiter.configs.default.timeout-duration=100ms\nresilience4j.ratelimiter.limiters.door.limit-for-period=7\n",
        );
        assert_eq!(c.limit_for_period, 7);
        assert_eq!(c.timeout_duration, 100_000_000);
        // Not set anywhere: the 500 ns default.
        assert_eq!(c.limit_refresh_period, 500);
    }

    #[test]
    fn the_setters_rules_are_kept() {
        for (bad, key) in [
            ("limit-for-period: 0", "limit-for-period"),
            ("limit-refresh-period: 0ns", "limit-refresh-period"),
            ("timeout-duration: -1s", "timeout-duration"),
        ] {
            let text = format!("resilience4j.ratelimiter.instances.a:\n  {bad}\n");
            let e = r4j::read(&text).unwrap_err();
            assert!(e[0].contains(key), "{bad}: {e:?}");
        }
    }

    #[test]
    fn yaml_properties_and_java_round_trip_to_the_nanosecond() {
        let config = RateLimiterConfig {
            limit_for_period: 3,
            ..RateLimiterConfig::default()
        };
        let instances = vec![Instance::new(
            "door",
            PolicyConfig::RateLimiter(config.clone()),
        )];
        let yaml = r4j::to_yaml(&instances);
        assert!(yaml.contains("limit-refresh-period: 500ns"), "{yaml}");
        assert!(yaml.contains("timeout-duration: 5s"), "{yaml}");
        assert_eq!(limiter_of(&yaml), config);
        let properties = r4j::to_properties(&instances);
        assert!(properties.contains("resilience4j.ratelimiter.instances.door.limit-for-period=3"));
        assert_eq!(limiter_of(&properties), config);
        let java = r4j::to_java(&instances);
        assert!(java.contains("RateLimiterConfig.custom()"), "{java}");
        assert!(
            java.contains(".limitRefreshPeriod(Duration.ofNanos(500))"),
            "{java}"
        );
        assert!(
            java.contains(".timeoutDuration(Duration.ofSeconds(5))"),
            "{java}"
        );
        assert_eq!(limiter_of(&java), config);
    }
}

// --- Inside the breaker -------------------------------------------------------------------

#[test]
fn a_breaker_around_the_limiter_counts_its_refusals_unless_it_ignores_them() {
    use resilience_sim::scenario::breaker_script::{parse_breaker_script, run_breaker_script};
    let failed = |ignore: &str| {
        let json = format!(
            r#"{{"config":{{"ignoreExceptions":[{ignore}]}},
                "steps":[{{"error":{{"exception":"RequestNotPermitted"}}}}]}}"#
        );
        run_breaker_script(&parse_breaker_script(&json).unwrap()).unwrap()[0].failed
    };
    // Resilience4j records every exception by default, the limiter's refusal included.
    assert_eq!(failed(""), 1);
    assert_eq!(failed(r#""RequestNotPermitted""#), 0);
}

// --- The command line -----------------------------------------------------------------------

#[test]
fn the_cli_runs_a_script_with_a_fragments_rate_limiter() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("rl-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    let fragment = dir.join("application.yml");
    std::fs::write(&script, r#"{"steps":[{"acquire":{}},{"acquire":{}}]}"#).unwrap();
    std::fs::write(
        &fragment,
        "resilience4j.ratelimiter.instances.partnerApi:\n  limit-for-period: 1\n  limit-refresh-period: 10s\n  timeout-duration: 0\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
            .arg("ratelimiter")
            .arg(&script)
            .args(extra)
            .output()
            .unwrap()
    };
    // The script alone: Resilience4j's defaults, 50 permissions.
    let out = run(&[]);
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[1]["availablePermissions"], 48);
    // With the fragment's limiter: 1 per 10 s, no waiting.
    let out = run(&["--resilience4j", fragment.to_str().unwrap()]);
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[1]["permitted"], false);
    assert_eq!(lines[1]["error"], "RequestNotPermitted");
    let out = run(&[
        "--resilience4j",
        fragment.to_str().unwrap(),
        "--instance",
        "other",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no ratelimiter instance “other” (it has: partnerApi)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    std::fs::remove_dir_all(&dir).ok();
}
