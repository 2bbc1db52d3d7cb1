//! Lab D (Demo 11) as a [`LabModel`]: the shared-pool model's config, its controls as
//! data, its run (../shared/spec/03-incident-labs.md, "Lab D"). Each control's name is the
//! config field's serde name, so `?demo=11&bulkhead=semaphore`, `--bulkhead semaphore` and
//! `{"bulkhead": "semaphore"}` are one spelling.

use super::lab_session::{
    choice, number, Control, ControlKind, ControlValue, LabModel, Section, Unit,
};
use crate::error::ConfigError;
use crate::model::shared_pool::{
    self, Arrivals, PoolBulkhead, SharedPoolConfig, SharedPoolRun, MAX_CLIENT_TIMEOUT_MS,
    MAX_QUEUE, MAX_RPS, MAX_SECONDS, MAX_THREADS, MAX_WORK_MS, MIN_CLIENT_TIMEOUT_MS,
};

/// Lab D (Demo 11): one pool of request threads shared by `/fast` and `/drm`, and a
/// bulkhead on `/drm`'s vendor call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PoolLab {
    pub config: SharedPoolConfig,
}

const BULKHEAD_OPTIONS: [(&str, &str); 3] = [
    (PoolBulkhead::None.name(), PoolBulkhead::None.label()),
    (
        PoolBulkhead::Semaphore.name(),
        PoolBulkhead::Semaphore.label(),
    ),
    (
        PoolBulkhead::ThreadPool.name(),
        PoolBulkhead::ThreadPool.label(),
    ),
];

const ARRIVAL_OPTIONS: [(&str, &str); 2] = [
    (Arrivals::Even.name(), Arrivals::Even.label()),
    (Arrivals::Poisson.name(), Arrivals::Poisson.label()),
];

const fn count(max: u32, unit: &'static str) -> ControlKind {
    ControlKind::Number {
        min: 0.0,
        max: max as f64,
        step: 1.0,
        unit: Unit::Plain(unit),
    }
}

const fn count_from_1(max: u32, unit: &'static str) -> ControlKind {
    ControlKind::Number {
        min: 1.0,
        max: max as f64,
        step: 1.0,
        unit: Unit::Plain(unit),
    }
}

const fn millis(min: u64, max: u64, step: f64) -> ControlKind {
    ControlKind::Number {
        min: min as f64,
        max: max as f64,
        step,
        unit: Unit::Millis,
    }
}

type P = PoolLab;

const POOL_CONTROLS: [Control<P>; 19] = [
    Control {
        name: "bulkhead",
        label: "Bulkhead on the vendor call",
        help: "What limits the request threads /drm can hold: nothing, a semaphore, or a thread pool with a queue.",
        kind: ControlKind::Choice {
            options: &BULKHEAD_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.bulkhead.name()),
        set: |l, v| l.config.bulkhead = PoolBulkhead::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "maxConcurrentCalls",
        label: "Semaphore: maxConcurrentCalls",
        help: "Vendor calls allowed at once by the semaphore bulkhead (0 refuses every call).",
        kind: count(MAX_THREADS, "calls"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.max_concurrent_calls)),
        set: |l, v| l.config.max_concurrent_calls = number(v) as u32,
    },
    Control {
        name: "vendorSlowAtS",
        label: "Vendor slow from",
        help: "When the vendor starts answering slowly (never, if at or after the end of the run).",
        kind: count(MAX_SECONDS, "s"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.vendor_slow_at_s)),
        set: |l, v| l.config.vendor_slow_at_s = number(v) as u32,
    },
    Control {
        name: "vendorMs",
        label: "Slow vendor answers in",
        help: "The vendor's answer time once it is slow (each call within ±20 %).",
        kind: millis(10, MAX_WORK_MS, 10.0),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.vendor_ms as f64),
        set: |l, v| l.config.vendor_ms = number(v) as u64,
    },
    Control {
        name: "threads",
        label: "Request threads",
        help: "The pool shared by /fast and /drm; a request holds a thread until it answers.",
        kind: count_from_1(MAX_THREADS, "threads"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.threads)),
        set: |l, v| l.config.threads = number(v) as u32,
    },
    Control {
        name: "rpsFast",
        label: "/fast traffic",
        help: "Requests per second to /fast (local work only).",
        kind: count(MAX_RPS, "requests/s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.rps_fast)),
        set: |l, v| l.config.rps_fast = number(v) as u32,
    },
    Control {
        name: "rpsDrm",
        label: "/drm traffic",
        help: "Requests per second to /drm (calls the vendor).",
        kind: count(MAX_RPS, "requests/s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.rps_drm)),
        set: |l, v| l.config.rps_drm = number(v) as u32,
    },
    Control {
        name: "seconds",
        label: "Length of the run",
        help: "Simulated seconds shown on the charts.",
        kind: count_from_1(MAX_SECONDS, "s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.seconds)),
        set: |l, v| l.config.seconds = number(v) as u32,
    },
    Control {
        name: "maxWaitDuration",
        label: "Semaphore: maxWaitDuration",
        help: "How long a /drm call may wait for a permit, holding its request thread (0: refuse at once).",
        kind: millis(0, MAX_WORK_MS, 10.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.max_wait_duration as f64),
        set: |l, v| l.config.max_wait_duration = number(v) as u64,
    },
    Control {
        name: "coreThreadPoolSize",
        label: "Thread pool: coreThreadPoolSize",
        help: "Vendor threads the thread-pool bulkhead starts before it queues (raises the max if needed).",
        kind: count_from_1(MAX_THREADS, "threads"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.core_thread_pool_size)),
        set: |l, v| {
            l.config.core_thread_pool_size = number(v) as u32;
            l.config.max_thread_pool_size = l
                .config
                .max_thread_pool_size
                .max(l.config.core_thread_pool_size);
        },
    },
    Control {
        name: "maxThreadPoolSize",
        label: "Thread pool: maxThreadPoolSize",
        help: "Vendor threads the bulkhead may grow to once its queue is full (lowers the core if needed).",
        kind: count_from_1(MAX_THREADS, "threads"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.max_thread_pool_size)),
        set: |l, v| {
            l.config.max_thread_pool_size = number(v) as u32;
            l.config.core_thread_pool_size = l
                .config
                .core_thread_pool_size
                .min(l.config.max_thread_pool_size);
        },
    },
    Control {
        name: "queueCapacity",
        label: "Thread pool: queueCapacity",
        help: "Vendor calls that may wait for a vendor thread; each waits on a request thread.",
        kind: count(MAX_QUEUE, "calls"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.queue_capacity)),
        set: |l, v| l.config.queue_capacity = number(v) as u32,
    },
    Control {
        name: "keepAliveDuration",
        label: "Thread pool: keepAliveDuration",
        help: "Idle time after which a vendor thread above the core size ends.",
        kind: millis(0, MAX_WORK_MS, 1.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.keep_alive_duration as f64),
        set: |l, v| l.config.keep_alive_duration = number(v) as u64,
    },
    Control {
        name: "acceptCount",
        label: "Accept queue",
        help: "Requests that may wait for a free request thread; beyond, connections are refused.",
        kind: count(MAX_QUEUE, "requests"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.accept_count)),
        set: |l, v| l.config.accept_count = number(v) as u32,
    },
    Control {
        name: "clientTimeoutMs",
        label: "Client gives up after",
        help: "How long a client waits for its answer, from the moment it sends the request.",
        kind: millis(MIN_CLIENT_TIMEOUT_MS, MAX_CLIENT_TIMEOUT_MS, 100.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.client_timeout_ms as f64),
        set: |l, v| l.config.client_timeout_ms = number(v) as u64,
    },
    Control {
        name: "fastMs",
        label: "/fast work",
        help: "The local work of a /fast request (each within ±20 %).",
        kind: millis(1, MAX_WORK_MS, 1.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.fast_ms as f64),
        set: |l, v| l.config.fast_ms = number(v) as u64,
    },
    Control {
        name: "vendorNormalMs",
        label: "Healthy vendor answers in",
        help: "The vendor's answer time before it is slow (each call within ±20 %).",
        kind: millis(10, MAX_WORK_MS, 10.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.vendor_normal_ms as f64),
        set: |l, v| l.config.vendor_normal_ms = number(v) as u64,
    },
    Control {
        name: "arrivals",
        label: "Arrivals",
        help: "Evenly spread requests, or a Poisson process with its bursts.",
        kind: ControlKind::Choice {
            options: &ARRIVAL_OPTIONS,
        },
        section: Section::More,
        get: |l| ControlValue::Choice(l.config.arrivals.name()),
        set: |l, v| l.config.arrivals = Arrivals::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "seed",
        label: "Seed",
        help: "Seed of the arrivals and work times: the same seed gives the same run.",
        kind: ControlKind::Whole {
            min: 0,
            max: super::lab_session::MAX_SEED,
        },
        section: Section::More,
        get: |l| ControlValue::Number(l.config.seed as f64),
        set: |l, v| l.config.seed = number(v) as u64,
    },
];

impl LabModel for PoolLab {
    type Run = SharedPoolRun;
    const NAME: &'static str = "pool";

    fn controls() -> &'static [Control<Self>] {
        &POOL_CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()
    }

    fn run(&self) -> Result<Self::Run, ConfigError> {
        shared_pool::run(&self.config)
    }
}
