//! The breaker sandbox: settings and controls.

use super::*;

/// The sandbox's settings: the breaker's config and the fallback's two settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxSettings {
    pub config: CircuitBreakerConfig,
    /// How long a cached answer may be served ("logical TTL"): fresh at ages from 0 up to,
    /// not including, the TTL, as [`FallbackCache`] counts. Default 30 s.
    pub cache_ttl_ms: Millis,
    /// Whether a degraded default answers when the cache cannot. Default on.
    pub degraded_default: bool,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            config: sandbox_defaults(),
            cache_ttl_ms: 30_000,
            degraded_default: true,
        }
    }
}

impl SandboxSettings {
    /// The engine's validation, then the sandbox's bounds.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()?;
        for (name, value) in [
            ("slidingWindowSize", self.config.sliding_window_size),
            (
                "permittedNumberOfCallsInHalfOpenState",
                self.config.permitted_number_of_calls_in_half_open_state,
            ),
        ] {
            if value > SANDBOX_MAX_WINDOW {
                return Err(ConfigError::new(
                    name,
                    format!("must be at most {SANDBOX_MAX_WINDOW} in the sandbox (got {value})"),
                ));
            }
        }
        if self.cache_ttl_ms > MAX_CLOCK_MS {
            return Err(ConfigError::new(
                "cacheTtl",
                format!("must be at most {MAX_CLOCK_MS} ms"),
            ));
        }
        Ok(())
    }
}

/// What a config means before any call, for the page's summary (the [`LabModel`] run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SettingsSummary {
    /// Outcomes the CLOSED window needs before its rates count (COUNT_BASED: clamped to
    /// the window).
    pub minimum_calls: u32,
    /// Failures among those first `minimum_calls` outcomes that open the breaker (the
    /// fewest whose percentage reaches `failureRateThreshold`).
    pub failures_to_trip: u32,
    /// Slow calls among them that open it.
    pub slow_calls_to_trip: u32,
    /// Trial outcomes HALF_OPEN waits for before deciding.
    pub half_open_decision_calls: u32,
}

/// The fewest `k` of `n` whose percentage (Resilience4j's `f32`) reaches `threshold`
/// (at most 100, so `k = n` always does): the exact ratio's estimate, corrected by the few
/// steps the `f32` rounding can be off, so even a minimum of billions costs nothing.
fn fewest_reaching(threshold: f32, n: u32) -> u32 {
    let estimate = (f64::from(threshold) * f64::from(n) / 100.0)
        .ceil()
        .max(0.0);
    let mut k = (estimate as u64).min(u64::from(n)) as u32;
    while k > 0 && window::percent(k - 1, n) >= threshold {
        k -= 1;
    }
    while k < n && window::percent(k, n) < threshold {
        k += 1;
    }
    k
}

/// The name of the option that keeps an imported exception list as it is.
pub const CUSTOM_LIST: &str = "custom";

const WINDOW_TYPE_OPTIONS: [(&str, &str); 2] = [
    (
        SlidingWindowType::CountBased.name(),
        "COUNT_BASED: the last N calls",
    ),
    (
        SlidingWindowType::TimeBased.name(),
        "TIME_BASED: the last N seconds",
    ),
];

const END_OF_HALF_OPEN_OPTIONS: [(&str, &str); 2] = [("OPEN", "OPEN"), ("CLOSED", "CLOSED")];

const IGNORE_OPTIONS: [(&str, &str); 4] = [
    ("none", "none: every exception counts"),
    ("NotFoundException", "NotFoundException: 404s are answers"),
    (
        "NotFoundException,CardDeclinedException",
        "404s and card declines are answers",
    ),
    (CUSTOM_LIST, "the imported list"),
];

const RECORD_OPTIONS: [(&str, &str); 3] = [
    ("all", "all: every exception is a failure"),
    (
        "IOException,TimeoutException",
        "IOException, TimeoutException: only technical failures",
    ),
    (CUSTOM_LIST, "the imported list"),
];

/// The option naming `list` (the first option names the empty list: "none" / "all"),
/// else [`CUSTOM_LIST`].
fn list_option(options: &'static [(&'static str, &'static str)], list: &[String]) -> ControlValue {
    let joined = list.join(",");
    let name = options
        .iter()
        .enumerate()
        .find(|(i, o)| {
            o.0 != CUSTOM_LIST
                && (if *i == 0 {
                    list.is_empty()
                } else {
                    o.0 == joined
                })
        })
        .map_or(CUSTOM_LIST, |(_, o)| o.0);
    ControlValue::Choice(name)
}

/// The list an option names (the first option is the empty list); `None` keeps the list.
fn option_list(
    options: &'static [(&'static str, &'static str)],
    value: ControlValue,
) -> Option<Vec<String>> {
    let name = choice(value);
    if name == CUSTOM_LIST {
        return None;
    }
    if options.first().is_some_and(|o| o.0 == name) {
        return Some(Vec::new());
    }
    Some(name.split(',').map(str::to_string).collect())
}

/// An `f32` setting as the number it was typed as (50 and 33.3, not 33.29999923706055).
/// A threshold as the slider shows it: the f32 widened without its binary noise (57.1,
/// not 57.09999847), with no float formatting in the wasm.
fn f32_number(v: f32) -> ControlValue {
    ControlValue::Number((f64::from(v) * 1e4).round() / 1e4)
}

fn millis_value(ms: Millis) -> ControlValue {
    ControlValue::Number(ms as f64)
}

type S = SandboxSettings;

pub(super) const SANDBOX_CONTROLS: [Control<S>; 15] = [
    Control {
        name: "slidingWindowType",
        label: "Window type",
        help: "Measure the last N calls, or the calls of the last N seconds.",
        kind: ControlKind::Choice {
            options: &WINDOW_TYPE_OPTIONS,
        },
        section: Section::Main,
        get: |s| ControlValue::Choice(s.config.sliding_window_type.name()),
        set: |s, v| {
            if let Some(t) = SlidingWindowType::from_name(choice(v)) {
                s.config.sliding_window_type = t;
            }
        },
    },
    Control {
        name: "slidingWindowSize",
        label: "Window size",
        help: "Calls (COUNT_BASED) or seconds (TIME_BASED) the window holds.",
        kind: slider(1.0, 100.0, 1.0, ""),
        section: Section::Main,
        get: |s| ControlValue::Number(f64::from(s.config.sliding_window_size)),
        set: |s, v| s.config.sliding_window_size = number(v) as u32,
    },
    Control {
        name: "minimumNumberOfCalls",
        label: "Minimum number of calls",
        help: "Outcomes the window must hold before a rate is computed.",
        kind: slider(1.0, 100.0, 1.0, "calls"),
        section: Section::Main,
        get: |s| ControlValue::Number(f64::from(s.config.minimum_number_of_calls)),
        set: |s, v| s.config.minimum_number_of_calls = number(v) as u32,
    },
    Control {
        name: "failureRateThreshold",
        label: "Failure rate threshold",
        help: "The breaker opens when the failure rate reaches this.",
        kind: slider(1.0, 100.0, 1.0, "%"),
        section: Section::Main,
        get: |s| f32_number(s.config.failure_rate_threshold),
        set: |s, v| s.config.failure_rate_threshold = number(v) as f32,
    },
    Control {
        name: "slowCallRateThreshold",
        label: "Slow-call rate threshold",
        help: "The breaker opens when the share of slow calls reaches this.",
        kind: slider(1.0, 100.0, 1.0, "%"),
        section: Section::Main,
        get: |s| f32_number(s.config.slow_call_rate_threshold),
        set: |s, v| s.config.slow_call_rate_threshold = number(v) as f32,
    },
    Control {
        name: "slowCallDurationThreshold",
        label: "Slow-call duration threshold",
        help: "A call that takes strictly longer than this is slow.",
        kind: millis(100.0, 120_000.0, 100.0),
        section: Section::Main,
        get: |s| millis_value(s.config.slow_call_duration_threshold),
        set: |s, v| s.config.slow_call_duration_threshold = number(v) as Millis,
    },
    Control {
        name: "waitDurationInOpenState",
        label: "Wait in OPEN",
        help: "How long OPEN refuses calls before a trial may go through.",
        kind: millis(500.0, 120_000.0, 500.0),
        section: Section::Main,
        get: |s| millis_value(s.config.wait_duration_in_open_state),
        set: |s, v| s.config.wait_duration_in_open_state = number(v) as Millis,
    },
    Control {
        name: "permittedNumberOfCallsInHalfOpenState",
        label: "Trial calls in HALF_OPEN",
        help: "Calls let through to test the dependency after the wait.",
        kind: slider(1.0, 20.0, 1.0, "calls"),
        section: Section::Main,
        get: |s| {
            ControlValue::Number(f64::from(
                s.config.permitted_number_of_calls_in_half_open_state,
            ))
        },
        set: |s, v| s.config.permitted_number_of_calls_in_half_open_state = number(v) as u32,
    },
    Control {
        name: "ignoreExceptions",
        label: "Ignored exceptions",
        help: "Exceptions that count as neither success nor failure (answers, not faults).",
        kind: ControlKind::Choice {
            options: &IGNORE_OPTIONS,
        },
        section: Section::Main,
        get: |s| list_option(&IGNORE_OPTIONS, &s.config.ignore_exceptions),
        set: |s, v| {
            if let Some(list) = option_list(&IGNORE_OPTIONS, v) {
                s.config.ignore_exceptions = list;
            }
        },
    },
    Control {
        name: "recordExceptions",
        label: "Recorded exceptions",
        help: "Exceptions that count as failures; any other exception counts as a success.",
        kind: ControlKind::Choice {
            options: &RECORD_OPTIONS,
        },
        section: Section::More,
        get: |s| list_option(&RECORD_OPTIONS, &s.config.record_exceptions),
        set: |s, v| {
            if let Some(list) = option_list(&RECORD_OPTIONS, v) {
                s.config.record_exceptions = list;
            }
        },
    },
    Control {
        name: "automaticTransitionFromOpenToHalfOpenEnabled",
        label: "Automatic OPEN -> HALF_OPEN",
        help: "A timer moves OPEN to HALF_OPEN at the end of the wait, without waiting for a call.",
        kind: ControlKind::Toggle,
        section: Section::More,
        get: |s| ControlValue::Toggle(s.config.automatic_transition_from_open_to_half_open_enabled),
        set: |s, v| {
            s.config.automatic_transition_from_open_to_half_open_enabled =
                v == ControlValue::Toggle(true)
        },
    },
    Control {
        name: "maxWaitDurationInHalfOpenState",
        label: "Longest stay in HALF_OPEN (0: none)",
        help: "After this long in HALF_OPEN, a timer ends it, whatever the trials.",
        kind: millis(0.0, 120_000.0, 1000.0),
        section: Section::More,
        get: |s| millis_value(s.config.max_wait_duration_in_half_open_state),
        set: |s, v| s.config.max_wait_duration_in_half_open_state = number(v) as Millis,
    },
    Control {
        name: "transitionToStateAfterWaitDuration",
        label: "State after the longest stay",
        help: "Where HALF_OPEN goes when its longest stay runs out.",
        kind: ControlKind::Choice {
            options: &END_OF_HALF_OPEN_OPTIONS,
        },
        section: Section::More,
        get: |s| ControlValue::Choice(s.config.transition_to_state_after_wait_duration.as_str()),
        set: |s, v| {
            s.config.transition_to_state_after_wait_duration = if choice(v) == "CLOSED" {
                State::Closed
            } else {
                State::Open
            }
        },
    },
    Control {
        name: "cacheTtl",
        label: "Cache TTL",
        help: "How long a cached answer may still be served by the fallback.",
        kind: millis(0.0, 300_000.0, 1000.0),
        section: Section::Page,
        get: |s| millis_value(s.cache_ttl_ms),
        set: |s, v| s.cache_ttl_ms = number(v) as Millis,
    },
    Control {
        name: "degradedDefault",
        label: "Degraded default",
        help: "When the cache cannot answer, answer with an agreed default instead of an error.",
        kind: ControlKind::Toggle,
        section: Section::Page,
        get: |s| ControlValue::Toggle(s.degraded_default),
        set: |s, v| s.degraded_default = v == ControlValue::Toggle(true),
    },
];

impl LabModel for SandboxSettings {
    /// What the settings mean before any call (the sandbox's calls are its session's).
    type Run = SettingsSummary;
    const NAME: &'static str = "sandbox";

    fn controls() -> &'static [Control<Self>] {
        &SANDBOX_CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        SandboxSettings::validate(self)
    }

    fn run(&self) -> Result<SettingsSummary, ConfigError> {
        SandboxSettings::validate(self)?;
        let c = &self.config;
        let minimum_calls = c.effective_minimum_number_of_calls();
        Ok(SettingsSummary {
            minimum_calls,
            failures_to_trip: fewest_reaching(c.failure_rate_threshold, minimum_calls),
            slow_calls_to_trip: fewest_reaching(c.slow_call_rate_threshold, minimum_calls),
            half_open_decision_calls: c.half_open_decision_calls(),
        })
    }
}
