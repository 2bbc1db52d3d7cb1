//! The scenario file: a topology and its timeline, as data.
//!
//! A BoxOffice scenario is one JSON document (`"version": 1`). The components are its
//! top-level parts (`clients`, `door`, `waitingRoom`, `balancer`, `replicas`,
//! `dependencies`); the edges are names: a client names the endpoint it calls, an endpoint
//! names the dependencies it calls, a stack and a probe name their dependency. Policy
//! settings are the engine's Resilience4j configs, camelCase as in `application.yml`.
//! `variants` are named JSON merge patches (RFC 7396) of the same document: the CLI and
//! the page apply the one asked for before reading the topology, so a learner's own file
//! can carry variants too.
//!
//! Every field is checked ([`Topology::validate`]): unknown fields are refused by serde, and
//! each problem is one line naming the field, in [`ConfigError`]'s style. The bounds keep
//! any file's run short: at most [`MAX_EXPECTED_ARRIVALS`] requests a run, so a file cannot
//! ask for hours of work.

use crate::number::number_text;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{check_range, one_line};
use crate::policy::bulkhead::BulkheadConfig;
use crate::policy::circuit_breaker::CircuitBreakerConfig;
use crate::policy::rate_limiter::RateLimiterConfig;
use crate::policy::retry::{Backoff, RetryBudgetConfig, RetryConfig};
use crate::policy::time_limiter::TimeLimiterConfig;
use crate::{ConfigError, Millis};

/// The format's version; a file of another version is refused.
pub const VERSION: u32 = 1;
/// The largest scenario file read (the CLI's `--file`, an imported file), bytes.
pub const MAX_FILE_BYTES: usize = 256 * 1024;
/// The longest run, in seconds.
pub const MAX_SECONDS: u32 = 3_600;
/// The most requests a run may expect (rates x multipliers x seconds).
pub const MAX_EXPECTED_ARRIVALS: f64 = 6_000_000.0;
/// The most replicas at once (count and scale-outs).
pub const MAX_REPLICAS: u32 = 64;
/// The most request threads of one replica, workers of a dependency.
pub const MAX_THREADS: u32 = 20_000;
/// The longest queue of any component.
pub const MAX_QUEUE: u32 = 1_000_000;
/// The longest duration any setting may give (an hour).
pub const MAX_DURATION: Millis = 3_600_000;
/// The most keys one client population spreads over.
pub const MAX_KEYS: u32 = 100_000;

/// Request classes, most important first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    Critical,
    Important,
    Sheddable,
}

impl Class {
    pub const ALL: [Class; 3] = [Class::Critical, Class::Important, Class::Sheddable];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Critical => "critical",
            Class::Important => "important",
            Class::Sheddable => "sheddable",
        }
    }
}

/// The whole scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Topology {
    pub version: u32,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The run's length by default.
    pub seconds: u32,
    /// When the scenario's trigger fires, for the reports (seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_s: Option<u32>,
    /// When the trigger ends, if it does (seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_end_s: Option<u32>,
    pub clients: BTreeMap<String, ClientSpec>,
    #[serde(default)]
    pub door: DoorSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_room: Option<WaitingRoomSpec>,
    #[serde(default)]
    pub balancer: BalancerSpec,
    pub replicas: ReplicaSpec,
    #[serde(default)]
    pub dependencies: BTreeMap<String, DependencySpec>,
    #[serde(default)]
    pub timeline: Vec<TimelineEvent>,
    /// Named merge patches of this document.
    #[serde(default)]
    pub variants: BTreeMap<String, serde_json::Value>,
}

/// A client population: open-loop Poisson arrivals of one class to one endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientSpec {
    pub class: Class,
    pub endpoint: String,
    /// Arrivals per second (mean of a Poisson process).
    pub rps: f64,
    /// The user gives up after this long (ms).
    pub deadline_ms: Millis,
    /// The API key the population's requests carry (`bot`); `keys` > 1 spreads them over
    /// that many keys (`people-0`, `people-1`, ...), one token bucket each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default = "one")]
    pub keys: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<ClientRetry>,
}

fn one() -> u32 {
    1
}

/// A client's own retries (outside Resilience4j: a browser, a mobile app, a script).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientRetry {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    #[serde(default)]
    pub backoff: Backoff,
    /// The client stops waiting for one attempt after this long (ms); by default the
    /// attempt may take until the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_timeout_ms: Option<Millis>,
    /// Retries allowed per 100 first attempts (a client-side retry budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_percent: Option<f64>,
    /// Wait at least the server's `Retry-After` after a 429 or a 503.
    #[serde(default = "yes")]
    pub honour_retry_after: bool,
}

fn yes() -> bool {
    true
}

/// The door (apigw): rate limiting per key, load shedding by priority, an adaptive limit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DoorSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_bucket: Option<TokenBucketSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shedding: Option<SheddingSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenBucketSpec {
    /// Refill rate: the sustained limit per key.
    pub rate_per_second: f64,
    /// Bucket size: the burst.
    pub burst: u32,
    /// Keys not limited (e.g. an internal caller).
    #[serde(default)]
    pub exempt: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SheddingSpec {
    /// Requests in flight behind the door at most (the adaptive limit replaces it).
    pub limit: u32,
    /// The `Retry-After` a 503 carries (ms).
    #[serde(default = "default_retry_after")]
    pub retry_after_ms: Millis,
    /// Percent of the limit each class may fill: sheddable goes first, critical last.
    #[serde(default = "default_shares")]
    pub shares: BTreeMap<Class, f64>,
}

fn default_retry_after() -> Millis {
    1_000
}

fn default_shares() -> BTreeMap<Class, f64> {
    BTreeMap::from([
        (Class::Critical, 100.0),
        (Class::Important, 85.0),
        (Class::Sheddable, 60.0),
    ])
}

/// An AIMD concurrency limit driven by latency (Netflix concurrency-limits' AIMD).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdaptiveSpec {
    pub initial_limit: u32,
    pub min_limit: u32,
    pub max_limit: u32,
    /// An answer window slower than this (ms) counts as overload; by default twice the
    /// fastest window seen (the healthy baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_threshold_ms: Option<Millis>,
    /// The limit is multiplied by this on overload (at most once per `windowMs`).
    #[serde(default = "default_backoff_ratio")]
    pub backoff_ratio: f64,
    #[serde(default = "default_window")]
    pub window_ms: Millis,
}

fn default_backoff_ratio() -> f64 {
    0.9
}

fn default_window() -> Millis {
    250
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueOrder {
    Fifo,
    Lifo,
}

/// The waiting room: a bounded queue in front of the app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitingRoomSpec {
    pub capacity: u32,
    pub order: QueueOrder,
    /// Skip a request whose caller's deadline has passed (default on).
    #[serde(default = "yes")]
    pub drop_stale: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BalancerPolicy {
    #[default]
    RoundRobin,
    LeastOutstanding,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BalancerSpec {
    #[serde(default)]
    pub policy: BalancerPolicy,
}

/// The order replicas: identical copies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplicaSpec {
    pub count: u32,
    /// Request threads per replica (Tomcat's `maxThreads`).
    pub threads: u32,
    /// Requests waiting for a thread (Tomcat's `acceptCount`); more are refused.
    #[serde(default = "default_accept_queue")]
    pub accept_queue: u32,
    /// How long a new container takes to start (a JVM: tens of seconds).
    #[serde(default = "default_startup")]
    pub startup_ms: Millis,
    /// How long a killed container is gone before it starts again.
    #[serde(default = "default_restart")]
    pub restart_ms: Millis,
    /// Local work times vary by ± this percent.
    #[serde(default = "default_variance")]
    pub variance_percent: u32,
    pub endpoints: BTreeMap<String, EndpointSpec>,
    /// One Resilience4j stack per dependency, by the dependency's name.
    #[serde(default)]
    pub stacks: BTreeMap<String, StackSpec>,
    #[serde(default)]
    pub probes: ProbesSpec,
    /// Each hop gets what is left of the caller's deadline (a dequeued request already
    /// past it is skipped; a call's read timeout is cut to what is left).
    #[serde(default)]
    pub propagate_deadlines: bool,
}

fn default_accept_queue() -> u32 {
    100
}
fn default_startup() -> Millis {
    45_000
}
fn default_restart() -> Millis {
    5_000
}
fn default_variance() -> u32 {
    20
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EndpointSpec {
    pub local_work_ms: Millis,
    /// Dependencies called in turn after the local work.
    #[serde(default)]
    pub calls: Vec<String>,
}

/// One dependency's stack, in Resilience4j's order whatever the order written:
/// Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))), fallback outermost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StackSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetryConfig>,
    /// A retry budget around the Retry (Finagle's rule; not Resilience4j).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_budget: Option<RetryBudgetConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit_breaker: Option<CircuitBreakerConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limiter: Option<RateLimiterConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limiter: Option<TimeLimiterConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulkhead: Option<BulkheadConfig>,
    /// The HTTP client's connect timeout (ms): how long a connection to a host that does
    /// not answer takes to fail.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_ms: Millis,
    /// The HTTP client's read timeout (ms); none waits for ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_timeout_ms: Option<Millis>,
    /// The fallback's answer, if any ("seats held, payment pending").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// One idempotency key per request, sent with every attempt.
    #[serde(default)]
    pub idempotency_keys: bool,
}

fn default_connect_timeout() -> Millis {
    1_000
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbesSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup: Option<ProbeSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness: Option<ProbeSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness: Option<ProbeSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeCheck {
    /// The process answers (the app has started).
    Process,
    /// The replica's own resources: a free request thread.
    Resources,
    /// A dependency answers within the probe's timeout.
    Dependency,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeSpec {
    pub period_ms: Millis,
    pub failure_threshold: u32,
    pub check: ProbeCheck,
    /// The dependency checked (`check: "dependency"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependency: Option<String>,
    /// Kubernetes' `timeoutSeconds` (default 1 s).
    #[serde(default = "default_probe_timeout")]
    pub timeout_ms: Millis,
}

fn default_probe_timeout() -> Millis {
    1_000
}

/// A dependency: workers, a queue, a service time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DependencySpec {
    pub workers: u32,
    pub queue: u32,
    pub service_ms: Millis,
    #[serde(default = "default_variance")]
    pub variance_percent: u32,
    /// Skip a queued call whose caller has gone.
    #[serde(default)]
    pub drop_stale: bool,
    /// Card declines, in percent of answers (an answer, not a failure).
    #[serde(default)]
    pub decline_percent: f64,
}

/// What a timeline entry does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// A dependency answers after `latencyMs` (or `factor` x its service time).
    Slow,
    /// A dependency answers `percent` % of calls with a 5xx.
    Failing,
    /// A dependency refuses connections.
    Down,
    /// A dependency does not answer connections at all (each waits the connect timeout).
    Unreachable,
    /// A dependency declines `percent` % of calls.
    Declines,
    /// A dependency is healthy again.
    Healthy,
    /// Client arrival rates are multiplied by `factor` (all clients, or `clients`).
    Demand,
    /// The replica count becomes `replicas` (new ones start; extra ones stop).
    Scale,
}

impl Action {
    pub const ALL: [Action; 8] = [
        Action::Slow,
        Action::Failing,
        Action::Down,
        Action::Unreachable,
        Action::Declines,
        Action::Healthy,
        Action::Demand,
        Action::Scale,
    ];

    /// The scenario file's name (`"do": "slow"`).
    pub fn name(self) -> &'static str {
        match self {
            Action::Slow => "slow",
            Action::Failing => "failing",
            Action::Down => "down",
            Action::Unreachable => "unreachable",
            Action::Declines => "declines",
            Action::Healthy => "healthy",
            Action::Demand => "demand",
            Action::Scale => "scale",
        }
    }

    /// What the entry does, in a few words for the page.
    pub fn label(self) -> &'static str {
        match self {
            Action::Slow => "a dependency gets slow",
            Action::Failing => "a dependency fails calls",
            Action::Down => "a dependency refuses connections",
            Action::Unreachable => "a dependency stops answering",
            Action::Declines => "a dependency declines calls",
            Action::Healthy => "a dependency is healthy again",
            Action::Demand => "demand changes",
            Action::Scale => "the replica count changes",
        }
    }

    /// Whether the entry changes a dependency (and so names one).
    pub fn changes_a_dependency(self) -> bool {
        !matches!(self, Action::Demand | Action::Scale)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TimelineEvent {
    pub at_s: f64,
    #[serde(rename = "do")]
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependency: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factor: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
    #[serde(default)]
    pub clients: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<u32>,
}

fn err(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(field, message)
}

fn check_percent(field: &str, value: f64) -> Result<(), ConfigError> {
    if value.is_finite() && (0.0..=100.0).contains(&value) {
        Ok(())
    } else {
        Err(err(
            field,
            format!("must be between 0 and 100 (got {})", number_text(value)),
        ))
    }
}

fn check_ms(field: &str, value: Millis) -> Result<(), ConfigError> {
    check_range(field, value, 0, MAX_DURATION)
}

impl Topology {
    /// The most replicas a run of this system has side by side, running or stopped: its
    /// count, and those its scale-outs start. A replica stopped by a scale-in keeps its
    /// place, so a scale-out after it adds new ones (at most [`MAX_REPLICAS`] in all). A
    /// drawing of the system sized by this keeps its shape for the whole run.
    pub fn most_replicas(&self) -> u32 {
        let end = u64::from(self.seconds) * 1_000;
        let mut scales: Vec<(Millis, u32)> = self
            .timeline
            .iter()
            .filter(|e| e.action == Action::Scale)
            .map(|e| {
                (
                    (e.at_s * 1_000.0).round() as Millis,
                    e.replicas.unwrap_or(0),
                )
            })
            .filter(|&(at, _)| at < end)
            .collect();
        // In time order; at one instant, in the file's order, as the run takes them.
        scales.sort_by_key(|&(at, _)| at);
        let (mut live, mut all) = (self.replicas.count, self.replicas.count);
        for (_, want) in scales {
            if want > live {
                let started = (want - live).min(MAX_REPLICAS.saturating_sub(all));
                live += started;
                all += started;
            } else {
                live = want;
            }
        }
        all
    }

    /// Reads a scenario document, applying `variant` (a name of its `variants`) first.
    pub fn from_json(text: &str, variant: Option<&str>) -> Result<Self, ConfigError> {
        let text = crate::error::without_bom(text);
        let mut value = read_document(text)
            .map_err(|e| err("scenario", crate::error::serde_words(&e.to_string())))?;
        if let Some(name) = variant {
            let patch = value
                .get("variants")
                .and_then(|v| v.get(name))
                .cloned()
                .ok_or_else(|| {
                    let names = value
                        .get("variants")
                        .and_then(|v| v.as_object())
                        .map(|o| crate::error::some_names(o.keys().map(String::as_str)))
                        .unwrap_or_default();
                    err(
                        "variant",
                        format!(
                            "there is no variant “{}”: use {names}",
                            crate::error::excerpt(name)
                        ),
                    )
                })?;
            merge_patch(&mut value, &patch);
        }
        Self::from_value(value)
    }

    /// Reads a document already parsed (and patched).
    pub fn from_value(value: serde_json::Value) -> Result<Self, ConfigError> {
        let topology: Topology = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            err(
                // The path names an unknown key as the file wrote it.
                if path == "." {
                    "scenario".into()
                } else {
                    one_line(&crate::error::excerpt_path(&path))
                },
                // serde quotes a bad value whole: keep a short prefix, on one line.
                one_line(&crate::error::serde_words(&e.into_inner().to_string())),
            )
        })?;
        topology.validate()?;
        Ok(topology)
    }

    /// Every rule, first problem first.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.problems().into_iter().next().map_or(Ok(()), Err)
    }

    /// Every problem, one [`ConfigError`] each.
    pub fn problems(&self) -> Vec<ConfigError> {
        let mut out = Vec::new();
        macro_rules! push {
            ($r:expr) => {{
                let r: Result<(), ConfigError> = $r;
                if let Err(e) = r {
                    out.push(e);
                }
            }};
        }
        if self.version != VERSION {
            push!(Err(err(
                "version",
                format!("this engine reads version {VERSION} (got {})", self.version),
            )));
        }
        push!(check_range(
            "seconds",
            self.seconds.into(),
            1,
            MAX_SECONDS.into()
        ));
        if self.clients.is_empty() {
            push!(Err(err("clients", "needs at least one client population")));
        }
        let r = &self.replicas;
        let mut peak_multiplier = 1.0_f64;
        for e in &self.timeline {
            if e.action == Action::Demand {
                peak_multiplier = peak_multiplier.max(e.factor.unwrap_or(1.0));
            }
        }
        let mut expected = 0.0;
        for (name, c) in &self.clients {
            let f = |s: &str| format!("clients.{name}.{s}");
            if !(c.rps.is_finite() && (0.0..=50_000.0).contains(&c.rps)) {
                push!(Err(err(
                    f("rps"),
                    format!("must be between 0 and 50000 (got {})", number_text(c.rps))
                )));
            }
            expected += c.rps.max(0.0) * peak_multiplier;
            push!(check_range(
                &f("deadlineMs"),
                c.deadline_ms,
                1,
                MAX_DURATION
            ));
            push!(check_range(&f("keys"), c.keys.into(), 1, MAX_KEYS.into()));
            if !r.endpoints.contains_key(&c.endpoint) {
                push!(Err(err(
                    f("endpoint"),
                    format!("names no endpoint of the replicas (got “{}”)", c.endpoint),
                )));
            }
            if let Some(retry) = &c.retry {
                push!(check_range(
                    &f("retry.maxAttempts"),
                    retry.max_attempts.into(),
                    1,
                    10
                ));
                push!(retry
                    .backoff
                    .validate()
                    .map_err(|e| err(f(&format!("retry.backoff.{}", e.field)), e.message)));
                if retry.backoff.base > MAX_DURATION {
                    push!(Err(err(f("retry.backoff.base"), "must be at most 1h")));
                }
                if let Some(t) = retry.attempt_timeout_ms {
                    push!(check_range(
                        &f("retry.attemptTimeoutMs"),
                        t,
                        1,
                        MAX_DURATION
                    ));
                }
                if let Some(p) = retry.budget_percent {
                    push!(check_percent(&f("retry.budgetPercent"), p));
                }
            }
        }
        if expected * f64::from(self.seconds) > MAX_EXPECTED_ARRIVALS {
            push!(Err(err(
                "clients",
                format!(
                    "ask for about {:.0} requests in {} s (rates x demand x seconds); the most a run simulates is {MAX_EXPECTED_ARRIVALS:.0}",
                    expected * f64::from(self.seconds),
                    self.seconds
                ),
            )));
        }
        if let Some(tb) = &self.door.token_bucket {
            if !(tb.rate_per_second.is_finite()
                && tb.rate_per_second > 0.0
                && tb.rate_per_second <= 1e6)
            {
                push!(Err(err(
                    "door.tokenBucket.ratePerSecond",
                    "must be above 0 and at most 1000000"
                )));
            }
            push!(check_range(
                "door.tokenBucket.burst",
                tb.burst.into(),
                1,
                1_000_000
            ));
        }
        if let Some(s) = &self.door.shedding {
            push!(check_range(
                "door.shedding.limit",
                s.limit.into(),
                1,
                MAX_QUEUE.into()
            ));
            push!(check_ms("door.shedding.retryAfterMs", s.retry_after_ms));
            for (class, share) in &s.shares {
                push!(check_percent(
                    &format!("door.shedding.shares.{}", class.name()),
                    *share
                ));
            }
        }
        if let Some(a) = &self.door.adaptive {
            push!(check_range(
                "door.adaptive.minLimit",
                a.min_limit.into(),
                1,
                MAX_QUEUE.into()
            ));
            push!(check_range(
                "door.adaptive.maxLimit",
                a.max_limit.into(),
                a.min_limit.max(1).into(),
                MAX_QUEUE.into()
            ));
            push!(check_range(
                "door.adaptive.initialLimit",
                a.initial_limit.into(),
                a.min_limit.into(),
                a.max_limit.max(a.min_limit).into()
            ));
            if let Some(t) = a.latency_threshold_ms {
                push!(check_range(
                    "door.adaptive.latencyThresholdMs",
                    t,
                    1,
                    MAX_DURATION
                ));
            }
            push!(check_range(
                "door.adaptive.windowMs",
                a.window_ms,
                1,
                MAX_DURATION
            ));
            if !(a.backoff_ratio.is_finite() && a.backoff_ratio > 0.0 && a.backoff_ratio < 1.0) {
                push!(Err(err(
                    "door.adaptive.backoffRatio",
                    "must be above 0 and below 1"
                )));
            }
        }
        if let Some(w) = &self.waiting_room {
            push!(check_range(
                "waitingRoom.capacity",
                w.capacity.into(),
                1,
                MAX_QUEUE.into()
            ));
        }
        push!(check_range(
            "replicas.count",
            r.count.into(),
            1,
            MAX_REPLICAS.into()
        ));
        push!(check_range(
            "replicas.threads",
            r.threads.into(),
            1,
            MAX_THREADS.into()
        ));
        push!(check_range(
            "replicas.acceptQueue",
            r.accept_queue.into(),
            0,
            MAX_QUEUE.into()
        ));
        push!(check_ms("replicas.startupMs", r.startup_ms));
        push!(check_ms("replicas.restartMs", r.restart_ms));
        push!(check_range(
            "replicas.variancePercent",
            r.variance_percent.into(),
            0,
            90
        ));
        if r.endpoints.is_empty() {
            push!(Err(err(
                "replicas.endpoints",
                "needs at least one endpoint"
            )));
        }
        for (name, e) in &r.endpoints {
            push!(check_ms(
                &format!("replicas.endpoints.{name}.localWorkMs"),
                e.local_work_ms
            ));
            if e.calls.len() > 8 {
                push!(Err(err(
                    format!("replicas.endpoints.{name}.calls"),
                    "at most 8 calls"
                )));
            }
            for call in &e.calls {
                if !self.dependencies.contains_key(call) {
                    push!(Err(err(
                        format!("replicas.endpoints.{name}.calls"),
                        format!("names no dependency (got “{call}”)"),
                    )));
                }
            }
        }
        for (name, s) in &r.stacks {
            let f = |x: &str| format!("replicas.stacks.{name}.{x}");
            if !self.dependencies.contains_key(name) {
                push!(Err(err(
                    format!("replicas.stacks.{name}"),
                    "names no dependency"
                )));
            }
            macro_rules! sub {
                ($layer:expr, $r:expr) => {
                    push!(($r).map_err(|e: ConfigError| err(
                        f(&format!("{}.{}", $layer, e.field)),
                        e.message
                    )))
                };
            }
            if let Some(c) = &s.retry {
                sub!("retry", c.validate());
                if c.max_attempts > 10 {
                    sub!(
                        "retry",
                        Err(err("maxAttempts", "at most 10 in the playground"))
                    );
                }
                sub!("retry", check_ms("waitDuration", c.wait_duration));
            }
            if let Some(c) = &s.retry_budget {
                sub!("retryBudget", c.validate());
            }
            if let Some(c) = &s.circuit_breaker {
                sub!("circuitBreaker", c.validate());
                if c.sliding_window_size > 10_000 {
                    sub!(
                        "circuitBreaker",
                        Err(err("slidingWindowSize", "at most 10000 in the playground"))
                    );
                }
                sub!(
                    "circuitBreaker",
                    check_ms("waitDurationInOpenState", c.wait_duration_in_open_state)
                );
            }
            if let Some(c) = &s.rate_limiter {
                sub!("rateLimiter", c.validate());
                if c.timeout_duration > MAX_DURATION * 1_000_000 {
                    sub!("rateLimiter", Err(err("timeoutDuration", "at most 1h")));
                }
            }
            if let Some(c) = &s.time_limiter {
                sub!("timeLimiter", c.validate());
                sub!(
                    "timeLimiter",
                    check_range("timeoutDuration", c.timeout_duration, 1, MAX_DURATION)
                );
            }
            if let Some(c) = &s.bulkhead {
                sub!("bulkhead", c.validate());
                sub!(
                    "bulkhead",
                    check_range(
                        "maxConcurrentCalls",
                        c.max_concurrent_calls.into(),
                        0,
                        MAX_THREADS.into()
                    )
                );
                sub!("bulkhead", check_ms("maxWaitDuration", c.max_wait_duration));
            }
            push!(check_range(
                &f("connectTimeoutMs"),
                s.connect_timeout_ms,
                1,
                MAX_DURATION
            ));
            if let Some(t) = s.read_timeout_ms {
                push!(check_range(&f("readTimeoutMs"), t, 1, MAX_DURATION));
            }
        }
        for (kind, p) in [
            ("startup", &r.probes.startup),
            ("liveness", &r.probes.liveness),
            ("readiness", &r.probes.readiness),
        ] {
            let Some(p) = p else { continue };
            let f = |x: &str| format!("replicas.probes.{kind}.{x}");
            push!(check_range(&f("periodMs"), p.period_ms, 100, MAX_DURATION));
            push!(check_range(
                &f("failureThreshold"),
                p.failure_threshold.into(),
                1,
                1_000
            ));
            push!(check_range(&f("timeoutMs"), p.timeout_ms, 1, MAX_DURATION));
            match (p.check, &p.dependency) {
                (ProbeCheck::Dependency, None) => push!(Err(err(
                    f("dependency"),
                    "a dependency check names its dependency"
                ))),
                (ProbeCheck::Dependency, Some(d)) if !self.dependencies.contains_key(d) => {
                    push!(Err(err(
                        f("dependency"),
                        format!("names no dependency (got “{d}”)")
                    )))
                }
                (ProbeCheck::Process | ProbeCheck::Resources, Some(_)) => {
                    push!(Err(err(
                        f("dependency"),
                        "only a dependency check names a dependency"
                    )))
                }
                _ => {}
            }
        }
        for (name, d) in &self.dependencies {
            let f = |x: &str| format!("dependencies.{name}.{x}");
            push!(check_range(
                &f("workers"),
                d.workers.into(),
                1,
                MAX_THREADS.into()
            ));
            push!(check_range(
                &f("queue"),
                d.queue.into(),
                0,
                MAX_QUEUE.into()
            ));
            push!(check_range(&f("serviceMs"), d.service_ms, 1, MAX_DURATION));
            push!(check_range(
                &f("variancePercent"),
                d.variance_percent.into(),
                0,
                90
            ));
            push!(check_percent(&f("declinePercent"), d.decline_percent));
        }
        if self.timeline.len() > 1_000 {
            push!(Err(err("timeline", "at most 1000 entries")));
        }
        for (i, e) in self.timeline.iter().enumerate() {
            let f = |x: &str| format!("timeline[{i}].{x}");
            if !(e.at_s.is_finite() && (0.0..=f64::from(MAX_SECONDS)).contains(&e.at_s)) {
                push!(Err(err(
                    f("atS"),
                    format!("must be between 0 and {MAX_SECONDS}")
                )));
            }
            let needs_dependency = e.action.changes_a_dependency();
            match (&e.dependency, needs_dependency) {
                (None, true) => push!(Err(err(
                    f("dependency"),
                    "names the dependency this entry changes"
                ))),
                (Some(d), true) if !self.dependencies.contains_key(d) => {
                    push!(Err(err(
                        f("dependency"),
                        format!("names no dependency (got “{d}”)")
                    )))
                }
                (Some(_), false) => push!(Err(err(
                    f("dependency"),
                    "is only for a dependency's fault"
                ))),
                _ => {}
            }
            match e.action {
                Action::Slow => match (e.latency_ms, e.factor) {
                    (Some(l), None) => push!(check_range(&f("latencyMs"), l, 1, MAX_DURATION)),
                    (None, Some(x)) if x.is_finite() && (0.01..=1000.0).contains(&x) => {}
                    (None, Some(_)) => {
                        push!(Err(err(f("factor"), "must be between 0.01 and 1000")))
                    }
                    _ => push!(Err(err(
                        f("latencyMs"),
                        "slow takes latencyMs or factor (one of them)"
                    ))),
                },
                Action::Failing | Action::Declines => match e.percent {
                    Some(p) => push!(check_percent(&f("percent"), p)),
                    None => push!(Err(err(f("percent"), "is needed"))),
                },
                Action::Demand => {
                    match e.factor {
                        Some(x) if x.is_finite() && (0.0..=100.0).contains(&x) => {}
                        _ => push!(Err(err(
                            f("factor"),
                            "demand takes a factor between 0 and 100"
                        ))),
                    }
                    for c in &e.clients {
                        if !self.clients.contains_key(c) {
                            push!(Err(err(
                                f("clients"),
                                format!("names no client (got “{c}”)")
                            )));
                        }
                    }
                }
                Action::Scale => match e.replicas {
                    Some(n) => push!(check_range(
                        &f("replicas"),
                        n.into(),
                        0,
                        MAX_REPLICAS.into()
                    )),
                    None => push!(Err(err(f("replicas"), "scale takes replicas"))),
                },
                Action::Down | Action::Unreachable | Action::Healthy => {}
            }
        }
        out
    }
}

/// RFC 7396 JSON merge patch: objects merge key by key, `null` removes, anything else
/// replaces.
pub fn merge_patch(target: &mut serde_json::Value, patch: &serde_json::Value) {
    use serde_json::Value;
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(serde_json::Map::new());
            }
            if let Value::Object(t) = target {
                for (k, v) in p {
                    if v.is_null() {
                        t.remove(k);
                    } else {
                        merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// A JSON document as a [`serde_json::Value`], refusing a key written twice in one object.
/// `Value` alone keeps the last of the two; the typed reader refuses them ("duplicate
/// field"), and a file or a link's edits must not mean something else because they pass
/// through a document first (a variant, an edit, an import). Nesting is bounded by
/// serde_json's own limit (128 levels).
pub fn read_document(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    use serde::de::DeserializeSeed;
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = StrictDocument.deserialize(&mut reader)?;
    reader.end()?;
    Ok(value)
}

/// Builds a `Value` as serde_json does, but a repeated key is an error.
struct StrictDocument;

impl<'de> serde::de::DeserializeSeed<'de> for StrictDocument {
    type Value = serde_json::Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for StrictDocument {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictDocument)? {
            items.push(item);
        }
        Ok(items.into())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate field `{}`",
                    crate::error::excerpt(&key)
                )));
            }
            let value = map.next_value_seed(StrictDocument)?;
            object.insert(key, value);
        }
        Ok(object.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::boxoffice::scenarios;

    fn shipped() -> serde_json::Value {
        serde_json::from_str(scenarios::file("cascading-failure").unwrap()).unwrap()
    }

    fn problem(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v = shipped();
        edit(&mut v);
        Topology::from_value(v).unwrap_err().to_string()
    }

    /// A file's bad value is quoted by a short prefix, as every message quotes one.
    #[test]
    fn a_long_bad_value_is_quoted_short() {
        let long = "y".repeat(300);
        let text = problem(|v| v["balancer"]["policy"] = serde_json::json!(long));
        assert_eq!(
            text,
            format!(
                "balancer.policy: unknown variant `{}…`, expected `roundRobin` or `leastOutstanding`",
                "y".repeat(crate::error::EXCERPT_CHARS)
            )
        );
    }

    /// The drawing is sized before the run: as many replicas as the run ever has.
    #[test]
    fn most_replicas_is_what_the_run_has() {
        let most_in_run = |t: &Topology| {
            let run = crate::model::boxoffice::run(t.clone(), "test", "test", 1, None).unwrap();
            run.seconds.iter().map(|s| s.replicas.len()).max().unwrap() as u32
        };
        let scale = |at_s: f64, replicas: u32| TimelineEvent {
            at_s,
            action: Action::Scale,
            dependency: None,
            latency_ms: None,
            factor: None,
            percent: None,
            clients: Vec::new(),
            replicas: Some(replicas),
        };
        let mut t = Topology::from_value(shipped()).unwrap();
        t.seconds = 30;
        t.replicas.count = 2;
        assert_eq!(t.most_replicas(), 2);
        assert_eq!(most_in_run(&t), 2);
        // Down to one, then up to three: two new replicas beside the stopped one.
        t.timeline = vec![scale(12.0, 3), scale(5.0, 1), scale(40.0, 9)];
        assert_eq!(t.most_replicas(), 4);
        assert_eq!(most_in_run(&t), 4);
        // A scale-out after the run's end starts nothing.
        t.timeline.push(scale(30.0, 9));
        assert_eq!(t.most_replicas(), 4);
        assert_eq!(most_in_run(&t), 4);
        for name in scenarios::names() {
            let text = scenarios::file(name).unwrap();
            for v in scenarios::variants(text) {
                let t = Topology::from_json(text, Some(&v)).unwrap();
                let mut short = t.clone();
                short.seconds = short.seconds.min(60);
                assert_eq!(short.most_replicas(), most_in_run(&short), "{name} {v}");
            }
        }
    }

    #[test]
    fn every_shipped_scenario_and_variant_reads() {
        for name in scenarios::names() {
            let text = scenarios::file(name).unwrap();
            let variants = scenarios::variants(text);
            assert!(!variants.is_empty(), "{name}");
            for v in variants {
                Topology::from_json(text, Some(&v)).unwrap_or_else(|e| panic!("{name} {v}: {e}"));
            }
        }
    }

    #[test]
    fn a_problem_names_its_field() {
        let e = problem(|v| v["version"] = 2.into());
        assert!(e.contains("version") && e.contains("version 1"), "{e}");
        let e = problem(|v| v["clients"]["holds"]["colour"] = "red".into());
        assert!(e.contains("clients.holds") && e.contains("colour"), "{e}");
        let e = problem(|v| v["clients"]["holds"]["rps"] = (-1).into());
        assert!(e.contains("clients.holds.rps"), "{e}");
        let e = problem(|v| v["replicas"]["endpoints"]["hold"]["calls"] = vec!["nowhere"].into());
        assert!(e.contains("nowhere"), "{e}");
    }

    #[test]
    fn a_file_cannot_ask_for_an_unbounded_run() {
        let e = problem(|v| {
            v["clients"]["holds"]["rps"] = 50_000.into();
            v["seconds"] = 3_600.into();
        });
        assert!(e.contains("requests"), "{e}");
        // The same bound when the length comes from the caller.
        let mut v = shipped();
        v["clients"]["holds"]["rps"] = 50_000.into();
        let topology = Topology::from_value(v).unwrap();
        let long = crate::model::boxoffice::Sim::new(topology, "x", "", 1, Some(3_600));
        assert!(long.is_err());
    }
}
