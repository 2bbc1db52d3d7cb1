//! The breaker sandbox: configure from claims.

use super::*;
use crate::number::number_text;

/// What a dependency and its team can state, from which the settings follow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claims {
    /// 99.5 % of the dependency's calls answer within this (its SLO, or measured).
    pub p995_latency_ms: Millis,
    /// How long its incidents typically last, in seconds.
    pub typical_incident_s: u64,
    /// It reports answers as exceptions (a 404 for a missing item, a card decline).
    pub answers_are_errors: bool,
    /// Trial calls the team accepts to risk on a dependency that may still be down.
    pub probes: u32,
    /// Calls per second this caller sends it.
    pub calls_per_second: f64,
}

/// One setting derived from a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimedSetting {
    /// The config field's camelCase name.
    pub name: &'static str,
    /// The value, as a scenario file writes it (`800ms`, `TIME_BASED`, `250`).
    pub value: String,
    /// The claim it rests on, in one sentence.
    pub claim: String,
}

/// The margin over the p99.5 latency, in percent: a call is slow when it takes a quarter
/// longer than what the dependency promises for 99.5 % of its calls, not at the first
/// millisecond past it.
const SLOW_MARGIN_PERCENT: u64 = 25;
/// The slow-call rate that opens a claimed breaker: normally 1 call in 200 is slower than
/// the p99.5; half of them is a brownout, not bad luck.
const CLAIMED_SLOW_RATE: f32 = 50.0;

/// Seconds of traffic a claimed TIME_BASED window covers.
const CLAIMED_WINDOW_S: u32 = 10;
/// The fewest calls a claimed window judges on.
const CLAIMED_MIN_CALLS: u32 = 10;

impl Claims {
    /// The settings the claims give, each with its claim. The rules:
    /// - `slowCallDurationThreshold` = the p99.5 latency plus a 25 % margin: a call well
    ///   past what the dependency promises for 99.5 % of its calls is slow;
    ///   `slowCallRateThreshold` = 50 %: normally 0.5 % of calls are that slow, so half of
    ///   them is a brownout.
    /// - `waitDurationInOpenState` = the typical incident: probe again about when an
    ///   incident is usually over.
    /// - `ignoreExceptions` = the answer types (404, decline) when answers come as
    ///   exceptions, else none: an answer is not a fault.
    /// - `permittedNumberOfCallsInHalfOpenState` = the probes the team accepts to risk.
    /// - At least 10 calls in 10 s (1 call/s or more): a TIME_BASED window of 10 s, judged
    ///   once it holds 5 seconds' worth of calls (at least 10), so it still judges when
    ///   traffic halves. Below that: a COUNT_BASED window of the last 10 calls, judged from
    ///   10 calls on (a time window would rarely hold enough calls).
    ///
    /// A rate that is not a number above 0 is refused (`callsPerSecond`); values the
    /// breaker refuses (0 probes, a 0 ms latency) are refused by [`Self::apply_to`].
    pub fn settings(&self) -> Result<Vec<ClaimedSetting>, ConfigError> {
        let d = self.derive()?;
        let list = if d.ignore.is_empty() {
            "none".to_string()
        } else {
            d.ignore.join(",")
        };
        let window_claim = match d.window_type {
            SlidingWindowType::TimeBased => format!(
                "{} calls/s: {} s of traffic is about {} calls, enough for a time window",
                number_text(self.calls_per_second),
                CLAIMED_WINDOW_S,
                number_text((self.calls_per_second * 10.0).round())
            ),
            SlidingWindowType::CountBased => format!(
                "{} calls/s: fewer than {CLAIMED_MIN_CALLS} calls in {CLAIMED_WINDOW_S} s, so judge the last {CLAIMED_MIN_CALLS} calls whatever their age",
                number_text(self.calls_per_second)
            ),
        };
        let minimum_claim = match d.window_type {
            SlidingWindowType::TimeBased if d.minimum > CLAIMED_MIN_CALLS => format!(
                "judge once the window holds 5 s of traffic: {} calls at {} calls/s",
                d.minimum,
                number_text(self.calls_per_second)
            ),
            SlidingWindowType::TimeBased => format!(
                "5 s of traffic is at most {CLAIMED_MIN_CALLS} calls: judge from {CLAIMED_MIN_CALLS} calls, never fewer"
            ),
            SlidingWindowType::CountBased => "judge once the window is full".to_string(),
        };
        Ok(vec![
            ClaimedSetting {
                name: "slowCallDurationThreshold",
                value: format_duration(d.slow_ms),
                claim: format!(
                    "99.5 % of calls answer within {}: a call a quarter slower than that, over {}, is slow",
                    ms_text(self.p995_latency_ms),
                    ms_text(d.slow_ms)
                ),
            },
            ClaimedSetting {
                name: "slowCallRateThreshold",
                value: number_text(f64::from(CLAIMED_SLOW_RATE)),
                claim: "normally fewer than 1 call in 200 is that slow (1 in 200 is over the p99.5 itself): half of them is a brownout, not bad luck".to_string(),
            },
            ClaimedSetting {
                name: "waitDurationInOpenState",
                value: format_duration(d.wait_ms),
                claim: format!(
                    "incidents typically last {} s: probe again about when one is over",
                    self.typical_incident_s
                ),
            },
            ClaimedSetting {
                name: "ignoreExceptions",
                value: list,
                claim: if self.answers_are_errors {
                    "404s and declines arrive as exceptions but are answers, not faults".to_string()
                } else {
                    "answers arrive as answers: every exception is a fault".to_string()
                },
            },
            ClaimedSetting {
                name: "permittedNumberOfCallsInHalfOpenState",
                value: d.probes.to_string(),
                claim: format!(
                    "the team accepts to risk {} trial calls on a dependency that may still be down",
                    self.probes
                ),
            },
            ClaimedSetting {
                name: "slidingWindowType",
                value: d.window_type.name().to_string(),
                claim: window_claim.clone(),
            },
            ClaimedSetting {
                name: "slidingWindowSize",
                value: d.window_size.to_string(),
                claim: window_claim,
            },
            ClaimedSetting {
                name: "minimumNumberOfCalls",
                value: d.minimum.to_string(),
                claim: minimum_claim,
            },
        ])
    }

    /// `config` with the claimed settings (the others kept), validated by the engine.
    pub fn apply_to(
        &self,
        config: &CircuitBreakerConfig,
    ) -> Result<CircuitBreakerConfig, ConfigError> {
        let d = self.derive()?;
        let next = CircuitBreakerConfig {
            slow_call_duration_threshold: d.slow_ms,
            slow_call_rate_threshold: CLAIMED_SLOW_RATE,
            wait_duration_in_open_state: d.wait_ms,
            ignore_exceptions: d.ignore,
            permitted_number_of_calls_in_half_open_state: d.probes,
            sliding_window_type: d.window_type,
            sliding_window_size: d.window_size,
            minimum_number_of_calls: d.minimum,
            ..config.clone()
        };
        next.validate()?;
        Ok(next)
    }

    fn derive(&self) -> Result<Derived, ConfigError> {
        let cps = self.calls_per_second;
        if !(cps.is_finite() && cps > 0.0) {
            return Err(ConfigError::new(
                "callsPerSecond",
                "must be a number above 0 (calls per second)",
            ));
        }
        let per_window = cps * f64::from(CLAIMED_WINDOW_S);
        let (window_type, window_size, minimum) = if per_window >= f64::from(CLAIMED_MIN_CALLS) {
            // `as` saturates: an absurd rate gives u32::MAX, which validation accepts.
            let half = (per_window / 2.0).ceil() as u32;
            (
                SlidingWindowType::TimeBased,
                CLAIMED_WINDOW_S,
                half.max(CLAIMED_MIN_CALLS),
            )
        } else {
            (
                SlidingWindowType::CountBased,
                CLAIMED_MIN_CALLS,
                CLAIMED_MIN_CALLS,
            )
        };
        Ok(Derived {
            slow_ms: self
                .p995_latency_ms
                .saturating_mul(100 + SLOW_MARGIN_PERCENT)
                .div_ceil(100),
            wait_ms: self.typical_incident_s.saturating_mul(1_000),
            ignore: if self.answers_are_errors {
                ANSWER_EXCEPTIONS.iter().map(|e| e.to_string()).collect()
            } else {
                Vec::new()
            },
            probes: self.probes,
            window_type,
            window_size,
            minimum,
        })
    }
}

struct Derived {
    slow_ms: Millis,
    wait_ms: Millis,
    ignore: Vec<String>,
    probes: u32,
    window_type: SlidingWindowType,
    window_size: u32,
    minimum: u32,
}
