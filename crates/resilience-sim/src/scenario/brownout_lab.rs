//! Lab C (Demo 12) as a [`LabModel`]: the brownout model's config, its controls as data,
//! its run (../shared/spec/03-incident-labs.md, "Lab C"). Each control's name is the
//! config field's serde name, so `?demo=12&fixes=1`, `--fixes 1` and `{"fixes": 1}` are one
//! spelling.

use super::lab_session::{
    millis, number, slider, Control, ControlKind, ControlValue, LabModel, Section,
};
use crate::error::ConfigError;
use crate::model::brownout::{
    self, BrownoutConfig, BrownoutRun, MAX_ACCEPT, MAX_ATTEMPTS, MAX_BULKHEAD_THREADS, MAX_MS,
    MAX_ORDER_THREADS, MAX_PRODUCTS, MAX_RPS, MAX_SECONDS,
};
use crate::policy::time_limiter::TimeoutKind;
use crate::Millis;

/// Lab C (Demo 12): the 09:00 pricing brownout and its fix ladder.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BrownoutLab {
    pub config: BrownoutConfig,
}

/// The fix ladder's steps as options: the name is the number of fixes.
const FIX_OPTIONS: [(&str, &str); 5] = [
    ("0", "0: the stack as configured"),
    ("1", "1: + a 300 ms timeout"),
    ("2", "2: + slow calls trip the breaker"),
    ("3", "3: + a retry budget"),
    ("4", "4: + a cache filled out of band"),
];

/// Fix 1's kinds of timeout, named as in the config's serde.
const TIMEOUT_KIND_OPTIONS: [(&str, &str); 2] = [
    ("readTimeout", "the HTTP client's read timeout"),
    ("stopWaiting", "a Resilience4j TimeLimiter"),
];

fn ms(v: Millis) -> ControlValue {
    ControlValue::Number(v as f64)
}

type B = BrownoutLab;

const BROWNOUT_CONTROLS: [Control<B>; 31] = [
    Control {
        name: "fixes",
        label: "Fixes applied",
        help: "The fix ladder, in the course's order; each step keeps the ones before it.",
        kind: ControlKind::Choice {
            options: &FIX_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(FIX_OPTIONS[usize::from(l.config.fixes.min(4))].0),
        set: |l, v| {
            l.config.fixes = FIX_OPTIONS
                .iter()
                .position(|o| ControlValue::Choice(o.0) == v)
                .unwrap_or(0) as u8
        },
    },
    Control {
        name: "queueCapacity",
        label: "Bulkhead queue (queueCapacity)",
        help: "Pricing calls that may wait for a bulkhead thread; each holds its order thread while it waits, unless a TimeLimiter has already given up on it.",
        kind: slider(0.0, 1_000.0, 10.0, "calls"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.queue_capacity)),
        set: |l, v| l.config.queue_capacity = number(v) as u32,
    },
    Control {
        name: "retryBulkheadFull",
        label: "Retry BulkheadFullException",
        help: "On, as the stack was configured: a refused call is tried again. Off: the rule never to retry the bulkhead's refusals.",
        kind: ControlKind::Toggle,
        section: Section::Main,
        get: |l| ControlValue::Toggle(l.config.retry_bulkhead_full),
        set: |l, v| l.config.retry_bulkhead_full = v == ControlValue::Toggle(true),
    },
    Control {
        name: "pricingSlowMs",
        label: "Pricing answers from 09:00 in",
        help: "Pricing's latency during the brownout (each call within ±20 %); it never fails.",
        kind: millis(10.0, MAX_MS as f64, 10.0),
        section: Section::Main,
        get: |l| ms(l.config.pricing_slow_ms),
        set: |l, v| l.config.pricing_slow_ms = number(v) as Millis,
    },
    Control {
        name: "faultSeconds",
        label: "Pricing stays slow for",
        help: "Seconds after 09:00 until pricing answers at its normal speed again; 60 is until 09:01:00.",
        kind: slider(1.0, MAX_SECONDS as f64, 1.0, "s"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.fault_seconds)),
        set: |l, v| l.config.fault_seconds = number(v) as u32,
    },
    Control {
        name: "seconds",
        label: "Run until (seconds after 09:00)",
        help: "The end of the run; 120 is 09:02:00.",
        kind: slider(1.0, MAX_SECONDS as f64, 1.0, "s"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.seconds)),
        set: |l, v| l.config.seconds = number(v) as u32,
    },
    Control {
        name: "bulkheadThreads",
        label: "Bulkhead threads",
        help: "The thread-pool bulkhead's threads for pricing calls (core = max).",
        kind: slider(1.0, MAX_BULKHEAD_THREADS as f64, 1.0, "threads"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.bulkhead_threads)),
        set: |l, v| l.config.bulkhead_threads = number(v) as u32,
    },
    Control {
        name: "submissionsPerSecond",
        label: "Order submissions",
        help: "Submissions per second; each prices one product.",
        kind: slider(0.0, MAX_RPS as f64, 10.0, "requests/s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.submissions_per_second)),
        set: |l, v| l.config.submissions_per_second = number(v) as u32,
    },
    Control {
        name: "historyPerSecond",
        label: "Order history",
        help: "Order-history requests per second; they never call pricing.",
        kind: slider(0.0, MAX_RPS as f64, 10.0, "requests/s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.history_per_second)),
        set: |l, v| l.config.history_per_second = number(v) as u32,
    },
    Control {
        name: "orderThreads",
        label: "Order request threads",
        help: "The order service's pool; a request holds a thread until it answers.",
        kind: slider(1.0, MAX_ORDER_THREADS as f64, 1.0, "threads"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.order_threads)),
        set: |l, v| l.config.order_threads = number(v) as u32,
    },
    Control {
        name: "acceptCount",
        label: "Accept queue",
        help: "Requests that may wait for an order thread; beyond, connections are refused.",
        kind: slider(0.0, MAX_ACCEPT as f64, 10.0, "requests"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.accept_count)),
        set: |l, v| l.config.accept_count = number(v) as u32,
    },
    Control {
        name: "userTimeoutMs",
        label: "The user gives up after",
        help: "From the moment the user sends the request; order keeps working after that.",
        kind: millis(100.0, MAX_MS as f64, 100.0),
        section: Section::More,
        get: |l| ms(l.config.user_timeout_ms),
        set: |l, v| l.config.user_timeout_ms = number(v) as Millis,
    },
    Control {
        name: "localWorkMs",
        label: "Order's own work",
        help: "The order service's work per request besides pricing (within ±20 %).",
        kind: millis(1.0, MAX_MS as f64, 1.0),
        section: Section::More,
        get: |l| ms(l.config.local_work_ms),
        set: |l, v| l.config.local_work_ms = number(v) as Millis,
    },
    Control {
        name: "pricingMs",
        label: "Pricing answers before 09:00 in",
        help: "Pricing's normal latency (each call within ±20 %).",
        kind: millis(1.0, MAX_MS as f64, 1.0),
        section: Section::More,
        get: |l| ms(l.config.pricing_ms),
        set: |l, v| l.config.pricing_ms = number(v) as Millis,
    },
    Control {
        name: "failureRateThreshold",
        label: "Breaker: failureRateThreshold",
        help: "Failure rate, in percent of the window's calls, at which the breaker opens.",
        kind: slider(1.0, 100.0, 1.0, "%"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.failure_rate_threshold)),
        set: |l, v| l.config.failure_rate_threshold = number(v) as f32,
    },
    Control {
        name: "slidingWindowSize",
        label: "Breaker: slidingWindowSize (TIME_BASED)",
        help: "The seconds of calls the breaker's rates are computed over.",
        kind: slider(1.0, 600.0, 1.0, "s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.sliding_window_size)),
        set: |l, v| l.config.sliding_window_size = number(v) as u32,
    },
    Control {
        name: "minimumNumberOfCalls",
        label: "Breaker: minimumNumberOfCalls",
        help: "Calls the window must hold before a rate counts.",
        kind: slider(1.0, 10_000.0, 1.0, "calls"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.minimum_number_of_calls)),
        set: |l, v| l.config.minimum_number_of_calls = number(v) as u32,
    },
    Control {
        name: "waitDurationInOpenState",
        label: "Breaker: waitDurationInOpenState",
        help: "How long the open breaker refuses calls before it lets trial calls through.",
        kind: millis(1_000.0, 600_000.0, 1_000.0),
        section: Section::More,
        get: |l| ms(l.config.wait_duration_in_open_state),
        set: |l, v| l.config.wait_duration_in_open_state = number(v) as Millis,
    },
    Control {
        name: "permittedNumberOfCallsInHalfOpenState",
        label: "Breaker: trial calls in HALF_OPEN",
        help: "Calls let through to decide between CLOSED and OPEN again.",
        kind: slider(1.0, 100.0, 1.0, "calls"),
        section: Section::More,
        get: |l| {
            ControlValue::Number(f64::from(
                l.config.permitted_number_of_calls_in_half_open_state,
            ))
        },
        set: |l, v| l.config.permitted_number_of_calls_in_half_open_state = number(v) as u32,
    },
    Control {
        name: "maxAttempts",
        label: "Retry: maxAttempts",
        help: "Attempts in all, the first included: 4 is 3 retries.",
        kind: slider(1.0, MAX_ATTEMPTS as f64, 1.0, "attempts"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.max_attempts)),
        set: |l, v| l.config.max_attempts = number(v) as u32,
    },
    Control {
        name: "retryWaitMs",
        label: "Retry: wait between attempts",
        help: "The randomized interval's centre; the order thread waits through it.",
        // Resilience4j's randomized interval is at least 1 ms.
        kind: millis(10.0, 5_000.0, 10.0),
        section: Section::More,
        get: |l| ms(l.config.retry_wait_ms),
        set: |l, v| l.config.retry_wait_ms = number(v) as Millis,
    },
    Control {
        name: "randomizationFactor",
        label: "Retry: randomizationFactor",
        help: "The jitter: each wait is drawn within ± this share of the interval.",
        kind: slider(0.0, 1.0, 0.05, ""),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.randomization_factor),
        set: |l, v| l.config.randomization_factor = number(v),
    },
    Control {
        name: "cacheTtlMs",
        label: "Cache: TTL of a live price",
        help: "How long a price put in the cache by a live call may be served.",
        kind: millis(0.0, 600_000.0, 1_000.0),
        section: Section::More,
        get: |l| ms(l.config.cache_ttl_ms),
        set: |l, v| l.config.cache_ttl_ms = number(v) as Millis,
    },
    Control {
        name: "products",
        label: "Cache: products in the catalogue",
        help: "How many different prices there are to cache.",
        kind: slider(1.0, MAX_PRODUCTS as f64, 1.0, "products"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.products)),
        set: |l, v| l.config.products = number(v) as u32,
    },
    Control {
        name: "zipfExponent",
        label: "Cache: popularity skew (Zipf exponent)",
        help: "0: every product equally asked; 1: the 2nd product half as often as the 1st, the 10th a tenth.",
        kind: slider(0.0, 3.0, 0.05, ""),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.zipf_exponent),
        set: |l, v| l.config.zipf_exponent = number(v),
    },
    Control {
        name: "timeoutMs",
        label: "Fix 1: timeout",
        help: "Fix 1's timeout for each pricing attempt. As a read timeout it starts when a bulkhead thread sends the call, so time in the bulkhead's queue comes on top; as a TimeLimiter it starts when order makes the attempt, queue included.",
        kind: millis(10.0, MAX_MS as f64, 10.0),
        section: Section::More,
        get: |l| ms(l.config.timeout_ms),
        set: |l, v| l.config.timeout_ms = number(v) as Millis,
    },
    Control {
        name: "timeoutKind",
        label: "Fix 1: kind of timeout",
        help: "The HTTP client's read timeout frees the bulkhead thread when it fires; a TimeLimiter frees only the caller, and the call keeps its thread until pricing answers.",
        kind: ControlKind::Choice {
            options: &TIMEOUT_KIND_OPTIONS,
        },
        section: Section::More,
        get: |l| {
            ControlValue::Choice(match l.config.timeout_kind {
                TimeoutKind::ReadTimeout => TIMEOUT_KIND_OPTIONS[0].0,
                TimeoutKind::StopWaiting => TIMEOUT_KIND_OPTIONS[1].0,
            })
        },
        set: |l, v| {
            l.config.timeout_kind = if v == ControlValue::Choice(TIMEOUT_KIND_OPTIONS[1].0) {
                TimeoutKind::StopWaiting
            } else {
                TimeoutKind::ReadTimeout
            }
        },
    },
    Control {
        name: "slowCallDurationThreshold",
        label: "Fix 2: slowCallDurationThreshold",
        help: "A call slower than this counts as slow once fix 2 is on.",
        kind: millis(10.0, MAX_MS as f64, 10.0),
        section: Section::More,
        get: |l| ms(l.config.slow_call_duration_threshold),
        set: |l, v| l.config.slow_call_duration_threshold = number(v) as Millis,
    },
    Control {
        name: "slowCallRateThreshold",
        label: "Fix 2: slowCallRateThreshold",
        help: "Slow-call rate, in percent, at which the breaker opens once fix 2 is on.",
        kind: slider(1.0, 100.0, 1.0, "%"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.slow_call_rate_threshold)),
        set: |l, v| l.config.slow_call_rate_threshold = number(v) as f32,
    },
    Control {
        name: "retryBudgetPercent",
        label: "Fix 3: retry budget",
        help: "Retries allowed per 100 requests once fix 3 is on.",
        kind: slider(0.0, 100.0, 1.0, "%"),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.retry_budget_percent),
        set: |l, v| l.config.retry_budget_percent = number(v),
    },
    Control {
        name: "seed",
        label: "Seed",
        help: "Seed of arrivals, products, latencies and retry waits: the same seed gives the same run.",
        kind: ControlKind::Whole {
            min: 0,
            max: super::lab_session::MAX_SEED,
        },
        section: Section::More,
        get: |l| ControlValue::Number(l.config.seed as f64),
        set: |l, v| l.config.seed = number(v) as u64,
    },
];

impl LabModel for BrownoutLab {
    type Run = BrownoutRun;
    const NAME: &'static str = "brownout";

    fn controls() -> &'static [Control<Self>] {
        &BROWNOUT_CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()
    }

    fn run(&self) -> Result<Self::Run, ConfigError> {
        brownout::run(&self.config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::lab_session::LabSession;

    #[test]
    fn every_control_reads_back_what_it_writes_and_the_defaults_are_the_spec() {
        let lab = BrownoutLab::default();
        lab.validate().unwrap();
        for c in BrownoutLab::controls() {
            let mut copy = lab.clone();
            (c.set)(&mut copy, (c.get)(&lab));
            assert_eq!(copy, lab, "{}", c.name);
            assert!(
                c.check((c.get)(&lab)).is_ok(),
                "{} default off its grid",
                c.name
            );
        }
        let (session, problems) = LabSession::<BrownoutLab>::from_pairs([
            ("fixes", "2"),
            ("queueCapacity", "20"),
            ("retryBulkheadFull", "false"),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        let config = &session.config().config;
        assert_eq!(
            (
                config.fixes,
                config.queue_capacity,
                config.retry_bulkhead_full
            ),
            (2, 20, false)
        );
        let (_, problems) = LabSession::<BrownoutLab>::from_pairs([("fixes", "5")]);
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn a_deferred_change_keeps_the_last_run_until_its_own_is_installed() {
        use crate::model::brownout::BrownoutSim;
        let mut session = LabSession::<BrownoutLab>::default();
        let before = session.run().clone().unwrap();
        session
            .set_deferred("queueCapacity", ControlValue::Number(200.0))
            .unwrap();
        assert!(session.is_pending());
        assert_eq!(session.config().config.queue_capacity, 200);
        assert_eq!(
            session.run().as_ref().unwrap(),
            &before,
            "the last run stays"
        );
        // A value the model refuses is refused at once, named, and changes nothing.
        let refused = session.set_deferred("queueCapacity", ControlValue::Number(-5.0));
        assert!(refused.unwrap_err().to_string().contains("queueCapacity"));
        assert_eq!(session.config().config.queue_capacity, 200);
        // The run made in slices for an older config is dropped; its own is installed.
        let old = BrownoutSim::new(&BrownoutConfig::default())
            .unwrap()
            .finish();
        assert!(!session.install_run(&BrownoutLab::default(), old));
        let config = session.config().clone();
        let mut sim = BrownoutSim::new(&config.config).unwrap();
        while !sim.advance(16_000) {}
        let run = sim.finish();
        assert!(session.install_run(&config, run.clone()));
        assert!(!session.is_pending());
        let at_once = LabSession::new(config);
        assert_eq!(session.run(), at_once.run());
        // A change made at once after a deferred one runs, and is not pending.
        session
            .set_deferred("queueCapacity", ControlValue::Number(30.0))
            .unwrap();
        session.set("seed", ControlValue::Number(2.0)).unwrap();
        assert!(!session.is_pending());
        assert_eq!(session.run().as_ref().unwrap().queue_capacity, 30);
    }
}
