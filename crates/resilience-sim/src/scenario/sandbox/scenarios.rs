//! The breaker sandbox: scenarios.

use super::*;

/// One learner action, as a scenario queues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxStep {
    /// A button's call.
    Send(SandboxCall),
    /// A call that takes the given time (a 2 s success).
    SendTimed(SandboxCall, Millis),
    Advance(Millis),
    Transition(State),
    /// The breaker's `reset()`.
    Reset,
    EmptyCache,
}

impl SandboxStep {
    /// The step in words, for "next step: ...".
    pub fn describe(&self) -> String {
        match *self {
            SandboxStep::Send(call) => format!("send: {}", call.label()),
            SandboxStep::SendTimed(call, ms) => {
                format!("send: {} taking {}", call.label(), ms_text(ms))
            }
            SandboxStep::Advance(ms) => format!("advance the clock by {}", ms_text(ms)),
            SandboxStep::Transition(to) => format!("transition to {to}"),
            SandboxStep::Reset => "reset the breaker".to_string(),
            SandboxStep::EmptyCache => "empty the fallback cache".to_string(),
        }
    }
}

/// The misconfigurations the course warns about, to replay step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum SandboxScenario {
    /// 404s counted as failures: a storm of "not found" answers opens the breaker.
    NotFoundStorm,
    /// The default 60 s slow-call threshold: 2 s calls never count as slow.
    SlowNeverTrips,
}

impl SandboxScenario {
    pub const ALL: [SandboxScenario; 2] = [
        SandboxScenario::NotFoundStorm,
        SandboxScenario::SlowNeverTrips,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SandboxScenario::NotFoundStorm => "notFoundStorm",
            SandboxScenario::SlowNeverTrips => "slowNeverTrips",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn label(self) -> &'static str {
        match self {
            SandboxScenario::NotFoundStorm => "The 404 storm",
            SandboxScenario::SlowNeverTrips => "Slow calls that never trip it",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            SandboxScenario::NotFoundStorm => {
                "With ignoreExceptions empty, a burst of 404s for missing items counts as failures and opens the breaker on a healthy dependency; ignore NotFoundException and it stays closed."
            }
            SandboxScenario::SlowNeverTrips => {
                "With slowCallDurationThreshold left at 60 s, calls that all take 2 s never count as slow and the breaker stays closed; set it to 1 s and it opens."
            }
        }
    }

    /// The setting that fixes the misconfiguration (a control's name and its value as
    /// typed), and the fix in words.
    pub fn fix(self) -> (&'static str, &'static str, &'static str) {
        match self {
            SandboxScenario::NotFoundStorm => (
                "ignoreExceptions",
                "NotFoundException",
                "ignore NotFoundException: a 404 is the dependency's answer, not its failure",
            ),
            SandboxScenario::SlowNeverTrips => (
                "slowCallDurationThreshold",
                "1s",
                "set slowCallDurationThreshold to 1 s, below the 2 s these calls take",
            ),
        }
    }

    /// Whether `config` still has the scenario's misconfiguration.
    pub fn misconfigured(self, config: &CircuitBreakerConfig) -> bool {
        match self {
            SandboxScenario::NotFoundStorm => config.ignore_exceptions.is_empty(),
            SandboxScenario::SlowNeverTrips => {
                config.slow_call_duration_threshold
                    == CircuitBreakerConfig::default().slow_call_duration_threshold
            }
        }
    }

    /// The sandbox's defaults with the scenario's misconfiguration.
    pub fn settings(self) -> SandboxSettings {
        let mut settings = SandboxSettings::default();
        match self {
            SandboxScenario::NotFoundStorm => settings.config.ignore_exceptions.clear(),
            SandboxScenario::SlowNeverTrips => {
                settings.config.slow_call_duration_threshold =
                    CircuitBreakerConfig::default().slow_call_duration_threshold;
            }
        }
        settings
    }

    /// NotFoundStorm: 3 successes 500 ms apart, then 8 404s 200 ms apart. SlowNeverTrips:
    /// 12 successes of 2 s each, one every 2 s.
    pub fn steps(self) -> Vec<SandboxStep> {
        match self {
            SandboxScenario::NotFoundStorm => {
                let successes = (0..3).flat_map(|_| {
                    [
                        SandboxStep::Send(SandboxCall::Success),
                        SandboxStep::Advance(500),
                    ]
                });
                let storm = (0..8).flat_map(|_| {
                    [
                        SandboxStep::Send(SandboxCall::Ignored),
                        SandboxStep::Advance(200),
                    ]
                });
                successes.chain(storm).collect()
            }
            SandboxScenario::SlowNeverTrips => (0..12)
                .flat_map(|_| {
                    [
                        SandboxStep::SendTimed(SandboxCall::Slow, 2_000),
                        SandboxStep::Advance(2_000),
                    ]
                })
                .collect(),
        }
    }
}
