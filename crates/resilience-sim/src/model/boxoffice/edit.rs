//! The learner's own system: edits on a shipped scenario.
//!
//! Demo 14 lets a learner add and remove clients and dependencies, switch the door's
//! features and any layer of a stack on and off, connect endpoints to dependencies and
//! change the numbers. Each change is an [`Edit`], applied to the scenario file's document
//! and read back through the same reader and validator as a file the CLI runs, so an edited
//! system is never one the engine would refuse, and a refused edit leaves the system as it
//! was with the reason.
//!
//! What is kept of the edits is a JSON merge patch (RFC 7396, [`diff`]) against the
//! scenario with its variant: a link carries only what the learner changed (a few dozen
//! characters for "4 replicas and a breaker on payment"), and the same patch on the same
//! scenario gives the same system on the page and in the CLI.

use crate::number::number_text;
use serde_json::{json, Map, Value};

use super::topology::{
    merge_patch, read_document, Action, StackSpec, Topology, MAX_DURATION, MAX_EXPECTED_ARRIVALS,
    MAX_QUEUE, MAX_REPLICAS, MAX_SECONDS, MAX_THREADS,
};
use crate::ConfigError;

/// The most clients or dependencies an edited system has.
pub const MAX_COMPONENTS: usize = 8;
/// The most timeline entries the page adds up to (a file may hold up to 1,000).
pub const MAX_TIMELINE_EDITS: usize = 50;
/// The highest rate of one client population the validator accepts (a second).
const MAX_CLIENT_RPS: f64 = 50_000.0;

/// A layer of a dependency's stack that an edit switches on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Retry,
    CircuitBreaker,
    RateLimiter,
    TimeLimiter,
    Bulkhead,
    /// The HTTP client's read timeout (2 s when switched on).
    ReadTimeout,
    /// A fallback answer ("seats held, payment pending").
    Fallback,
    IdempotencyKeys,
}

impl Layer {
    pub const ALL: [Layer; 8] = [
        Layer::Retry,
        Layer::CircuitBreaker,
        Layer::RateLimiter,
        Layer::TimeLimiter,
        Layer::Bulkhead,
        Layer::ReadTimeout,
        Layer::Fallback,
        Layer::IdempotencyKeys,
    ];

    /// The stack's field (the scenario file's name).
    pub fn field(self) -> &'static str {
        match self {
            Layer::Retry => "retry",
            Layer::CircuitBreaker => "circuitBreaker",
            Layer::RateLimiter => "rateLimiter",
            Layer::TimeLimiter => "timeLimiter",
            Layer::Bulkhead => "bulkhead",
            Layer::ReadTimeout => "readTimeoutMs",
            Layer::Fallback => "fallback",
            Layer::IdempotencyKeys => "idempotencyKeys",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Layer::Retry => "Retry",
            Layer::CircuitBreaker => "CircuitBreaker",
            Layer::RateLimiter => "RateLimiter",
            Layer::TimeLimiter => "TimeLimiter",
            Layer::Bulkhead => "Bulkhead",
            Layer::ReadTimeout => "Read timeout (HTTP client)",
            Layer::Fallback => "Fallback",
            Layer::IdempotencyKeys => "Idempotency keys",
        }
    }

    /// What the layer is when switched on: Resilience4j's defaults for its own policies
    /// (an empty object reads as them), a stated value for the others.
    fn switched_on(self) -> Value {
        match self {
            Layer::ReadTimeout => json!(2_000),
            Layer::Fallback => json!("seats held, payment pending"),
            Layer::IdempotencyKeys => json!(true),
            _ => json!({}),
        }
    }

    /// Whether `stack` has the layer.
    pub fn is_in(self, stack: Option<&StackSpec>) -> bool {
        let Some(s) = stack else {
            return false;
        };
        match self {
            Layer::Retry => s.retry.is_some(),
            Layer::CircuitBreaker => s.circuit_breaker.is_some(),
            Layer::RateLimiter => s.rate_limiter.is_some(),
            Layer::TimeLimiter => s.time_limiter.is_some(),
            Layer::Bulkhead => s.bulkhead.is_some(),
            Layer::ReadTimeout => s.read_timeout_ms.is_some(),
            Layer::Fallback => s.fallback.is_some(),
            Layer::IdempotencyKeys => s.idempotency_keys,
        }
    }

    /// Whether `stack` (a stack's JSON) has the layer.
    pub fn is_on(self, stack: Option<&Value>) -> bool {
        match stack.and_then(|s| s.get(self.field())) {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(_) => true,
        }
    }
}

/// A feature of the door (or the waiting room behind it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoorFeature {
    /// A token bucket per API key: 10 a second, a burst of 20.
    TokenBucket,
    /// Load shedding by priority: at most the replicas' threads in flight.
    Shedding,
    /// An AIMD limit: from 100, between 10 and 1,000.
    Adaptive,
    /// A waiting room of 1,000, LIFO, dropping stale requests.
    WaitingRoom,
}

impl DoorFeature {
    pub const ALL: [DoorFeature; 4] = [
        DoorFeature::TokenBucket,
        DoorFeature::Shedding,
        DoorFeature::Adaptive,
        DoorFeature::WaitingRoom,
    ];

    pub fn label(self) -> &'static str {
        match self {
            DoorFeature::TokenBucket => "Rate limit per key (token bucket)",
            DoorFeature::Shedding => "Load shedding by priority",
            DoorFeature::Adaptive => "Adaptive concurrency limit",
            DoorFeature::WaitingRoom => "Waiting room",
        }
    }

    pub fn is_on(self, t: &Topology) -> bool {
        match self {
            DoorFeature::TokenBucket => t.door.token_bucket.is_some(),
            DoorFeature::Shedding => t.door.shedding.is_some(),
            DoorFeature::Adaptive => t.door.adaptive.is_some(),
            DoorFeature::WaitingRoom => t.waiting_room.is_some(),
        }
    }
}

/// One change the learner makes to the system (what the page's list view sends).
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A number of [`settings`], by its path, within that setting's `min..=max` (whole
    /// when its `step` is 1); a path [`settings`] does not list is refused. The replica
    /// count is `Set { path: "replicas.count", .. }`.
    Set { path: String, value: f64 },
    /// A new population `client-N` (the first free N from 2): `important` users calling
    /// the first endpoint, 10 new requests a second, giving up after 2 s. At most
    /// [`MAX_COMPONENTS`].
    AddClient,
    /// Removes the population and its name from the timeline's demand entries; the last
    /// one is refused (a system has users).
    RemoveClient(String),
    /// A new dependency `dependency-N` (the first free N from 2): 50 workers, a queue of
    /// 100, answering in 50 ms; called by nothing until connected. At most
    /// [`MAX_COMPONENTS`].
    AddDependency,
    /// Removes the dependency and every reference to it: the endpoints' calls, its stack,
    /// the timeline entries that change it, and probes that check it, which check the
    /// replica's own resources instead (a probe kept is the safer reading of "this replica
    /// is alive" than a probe gone).
    RemoveDependency(String),
    /// Whether `endpoint` calls `dependency` (a call added goes last).
    Connect {
        endpoint: String,
        dependency: String,
        on: bool,
    },
    /// Switches a layer of the dependency's stack (the stack is made if it has none). A
    /// Resilience4j policy switched on has Resilience4j 2.x's defaults (the engine's
    /// config types' `Default`: Retry 3 attempts 500 ms apart; CircuitBreaker opening at
    /// 50 % failures of the last 100 calls, open 60 s; RateLimiter 50 permits per 500 ns,
    /// waiting up to 5 s; TimeLimiter 1 s; Bulkhead 25 concurrent calls, no wait). The
    /// read timeout is 2,000 ms, the fallback answers "seats held, payment pending",
    /// idempotency keys are on.
    Layer {
        dependency: String,
        layer: Layer,
        on: bool,
    },
    /// Switches a feature of the door (see [`DoorFeature`] for what one switched on is).
    Door { feature: DoorFeature, on: bool },
    /// A new timeline entry at the scenario's trigger (else a third of the run): a
    /// dependency's fault names `dependency` (the first dependency when `None`), with a
    /// stated size: slow answers in 2,000 ms, failing or declining 50 % of calls; demand
    /// doubles; the replica count grows by one. Its numbers are then settings
    /// (`timeline.N.atS`, ...).
    AddTimelineEntry {
        action: Action,
        dependency: Option<String>,
    },
    /// Removes the timeline's entry number `N` (from 0).
    RemoveTimelineEntry(usize),
}

/// A number the learner can change, as the page's list view shows it: one number field.
///
/// `min` and `max` are what [`Topology::validate`] accepts for this number with the rest of
/// the system as it is (the adaptive limits bound each other; a client's rate is bounded by
/// the requests a run may simulate). Where the validator's bound is open (a breaker's
/// `failureRateThreshold` is above 0), `min` is the first value of the field's `step`.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// Where it sits in the scenario file (`replicas.count`): what [`Edit::Set`] names.
    pub path: String,
    /// The component it belongs to: `replicas`, `door`, `clients.NAME` or
    /// `dependencies.NAME` (a dependency's stack included).
    pub component: String,
    pub label: String,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub step: f64,
    /// `ms`, `/s`, `%` or empty (a count).
    pub unit: &'static str,
}

struct Settings {
    out: Vec<Setting>,
    component: String,
}

impl Settings {
    fn add(
        &mut self,
        path: String,
        label: &str,
        value: f64,
        bounds: (f64, f64),
        unit: &'static str,
    ) {
        self.out.push(Setting {
            path,
            component: self.component.clone(),
            label: label.to_string(),
            value,
            min: bounds.0,
            max: bounds.1,
            step: 1.0,
            unit,
        });
    }

    /// The step of the setting added last (whole numbers unless said).
    fn step(&mut self, step: f64) {
        if let Some(last) = self.out.last_mut() {
            last.step = step;
        }
    }

    fn component(&mut self, name: String) {
        self.component = name;
    }
}

/// The numbers the page's list view shows as number fields, component by component:
/// the replicas' count and threads; the door's features and the waiting room (those
/// switched on); each client's rate and deadline; each dependency's workers, queue and
/// service time, and the settings of its stack's layers (those switched on).
pub fn settings(t: &Topology) -> Vec<Setting> {
    let q = f64::from(MAX_QUEUE);
    let threads = f64::from(MAX_THREADS);
    let ms = MAX_DURATION as f64;
    let mut s = Settings {
        out: Vec::new(),
        component: "replicas".to_string(),
    };
    s.add(
        "replicas.count".into(),
        "Replicas",
        t.replicas.count.into(),
        (1.0, MAX_REPLICAS.into()),
        "",
    );
    s.add(
        "replicas.threads".into(),
        "Threads per replica",
        t.replicas.threads.into(),
        (1.0, threads),
        "",
    );
    s.component("door".into());
    if let Some(tb) = &t.door.token_bucket {
        s.add(
            "door.tokenBucket.ratePerSecond".into(),
            "Requests a second per key",
            tb.rate_per_second,
            (0.1, 1e6),
            "/s",
        );
        // The validator's bound is open (above 0): tenths of a request a second.
        s.step(0.1);
        s.add(
            "door.tokenBucket.burst".into(),
            "Burst per key",
            tb.burst.into(),
            (1.0, 1e6),
            "",
        );
    }
    if let Some(sh) = &t.door.shedding {
        s.add(
            "door.shedding.limit".into(),
            "Shedding: most in flight",
            sh.limit.into(),
            (1.0, q),
            "",
        );
    }
    if let Some(a) = &t.door.adaptive {
        let (lo, init, hi) = (
            f64::from(a.min_limit),
            f64::from(a.initial_limit),
            f64::from(a.max_limit),
        );
        // minLimit <= initialLimit <= maxLimit, each within 1..MAX_QUEUE.
        s.add(
            "door.adaptive.minLimit".into(),
            "Adaptive: lowest limit",
            lo,
            (1.0, init.min(hi).max(1.0)),
            "",
        );
        s.add(
            "door.adaptive.initialLimit".into(),
            "Adaptive: first limit",
            init,
            (lo, hi.max(lo)),
            "",
        );
        s.add(
            "door.adaptive.maxLimit".into(),
            "Adaptive: highest limit",
            hi,
            (init.max(lo).max(1.0), q),
            "",
        );
    }
    if let Some(w) = &t.waiting_room {
        s.add(
            "waitingRoom.capacity".into(),
            "Waiting room: places",
            w.capacity.into(),
            (1.0, q),
            "",
        );
    }
    // A client's rate is bounded twice: 50,000 a second, and the requests a run may
    // simulate (all rates x the timeline's highest demand x seconds), summed as the
    // validator sums them.
    let peak = t
        .timeline
        .iter()
        .filter(|e| e.action == Action::Demand)
        .filter_map(|e| e.factor)
        .fold(1.0_f64, f64::max);
    let fits = |name: &str, rps: f64| {
        let expected: f64 = t
            .clients
            .iter()
            .map(|(n, c)| if n == name { rps } else { c.rps }.max(0.0) * peak)
            .sum();
        expected * f64::from(t.seconds) <= MAX_EXPECTED_ARRIVALS
    };
    let total: f64 = t.clients.values().map(|c| c.rps.max(0.0)).sum();
    for (name, c) in &t.clients {
        s.component(format!("clients.{name}"));
        let room =
            MAX_EXPECTED_ARRIVALS / f64::from(t.seconds.max(1)) / peak - (total - c.rps.max(0.0));
        // Tenths (the field's step), the highest the validator takes.
        let mut tenths = (room * 10.0).floor().clamp(0.0, MAX_CLIENT_RPS * 10.0);
        while tenths > 0.0 && !fits(name, tenths / 10.0) {
            tenths -= 1.0;
        }
        let rps_max = (tenths / 10.0).max(c.rps.min(MAX_CLIENT_RPS));
        s.add(
            format!("clients.{name}.rps"),
            "New requests a second",
            c.rps,
            (0.0, rps_max),
            "/s",
        );
        s.step(0.1);
        s.add(
            format!("clients.{name}.deadlineMs"),
            "Gives up after",
            c.deadline_ms as f64,
            (1.0, ms),
            "ms",
        );
    }
    for (name, d) in &t.dependencies {
        s.component(format!("dependencies.{name}"));
        let p = |x: &str| format!("dependencies.{name}.{x}");
        s.add(
            p("workers"),
            "Workers",
            d.workers.into(),
            (1.0, threads),
            "",
        );
        s.add(p("queue"), "Queue", d.queue.into(), (0.0, q), "");
        s.add(
            p("serviceMs"),
            "Answers in",
            d.service_ms as f64,
            (1.0, ms),
            "ms",
        );
        let Some(stack) = t.replicas.stacks.get(name) else {
            continue;
        };
        let p = |x: &str| format!("replicas.stacks.{name}.{x}");
        if let Some(t) = stack.read_timeout_ms {
            s.add(
                p("readTimeoutMs"),
                "Read timeout",
                t as f64,
                (1.0, ms),
                "ms",
            );
        }
        if let Some(r) = &stack.retry {
            s.add(
                p("retry.maxAttempts"),
                "Retry: maxAttempts",
                r.max_attempts.into(),
                (1.0, 10.0),
                "",
            );
            // An interval function replaces the fixed wait: the number would do nothing.
            if r.interval_function.is_none() {
                s.add(
                    p("retry.waitDuration"),
                    "Retry: waitDuration",
                    r.wait_duration as f64,
                    (0.0, ms),
                    "ms",
                );
            }
        }
        if let Some(c) = &stack.circuit_breaker {
            s.add(
                p("circuitBreaker.failureRateThreshold"),
                "Breaker: failureRateThreshold",
                c.failure_rate_threshold.into(),
                (1.0, 100.0),
                "%",
            );
            s.add(
                p("circuitBreaker.slidingWindowSize"),
                "Breaker: slidingWindowSize",
                c.sliding_window_size.into(),
                (1.0, 10_000.0),
                "",
            );
            // A file gives either the fixed wait or an interval function, not both.
            if c.wait_interval_function_in_open_state.is_none() {
                s.add(
                    p("circuitBreaker.waitDurationInOpenState"),
                    "Breaker: waitDurationInOpenState",
                    c.wait_duration_in_open_state as f64,
                    (1.0, ms),
                    "ms",
                );
            }
        }
        if let Some(b) = &stack.bulkhead {
            s.add(
                p("bulkhead.maxConcurrentCalls"),
                "Bulkhead: maxConcurrentCalls",
                b.max_concurrent_calls.into(),
                (0.0, threads),
                "",
            );
        }
        if let Some(l) = &stack.time_limiter {
            s.add(
                p("timeLimiter.timeoutDuration"),
                "TimeLimiter: timeoutDuration",
                l.timeout_duration as f64,
                (1.0, ms),
                "ms",
            );
        }
    }
    timeline_settings(t, &mut s);
    s.out
}

/// Each timeline entry's time and its size, as the validator bounds them; the component is
/// `timeline.N`.
fn timeline_settings(t: &Topology, s: &mut Settings) {
    // Demand multiplies every client's rate: the highest factor the run can simulate.
    let total: f64 = t.clients.values().map(|c| c.rps.max(0.0)).sum();
    let arrivals = total * f64::from(t.seconds.max(1));
    let demand_max = if arrivals > 0.0 {
        ((MAX_EXPECTED_ARRIVALS / arrivals * 10.0).floor() / 10.0).min(100.0)
    } else {
        100.0
    };
    for (i, e) in t.timeline.iter().enumerate() {
        s.component(format!("timeline.{i}"));
        let p = |x: &str| format!("timeline.{i}.{x}");
        // The validator's bound: a run made shorter (`--seconds`) keeps its later entries.
        s.add(p("atS"), "At", e.at_s, (0.0, f64::from(MAX_SECONDS)), "s");
        if e.at_s.fract() != 0.0 {
            s.step(0.1);
        }
        let ms = MAX_DURATION as f64;
        match e.action {
            Action::Slow => {
                if let Some(l) = e.latency_ms {
                    s.add(p("latencyMs"), "Answers in", l as f64, (1.0, ms), "ms");
                }
                if let Some(x) = e.factor {
                    s.add(p("factor"), "Times slower", x, (0.01, 1000.0), "");
                    s.step(0.01);
                }
            }
            Action::Failing | Action::Declines => {
                if let Some(x) = e.percent {
                    s.add(p("percent"), "Share of calls", x, (0.0, 100.0), "%");
                    if x.fract() != 0.0 {
                        s.step(0.1);
                    }
                }
            }
            Action::Demand => {
                if let Some(x) = e.factor {
                    // The peak bounds the clients' rates: the factor is bounded by them.
                    s.add(
                        p("factor"),
                        "Demand factor",
                        x,
                        (0.0, demand_max.max(x.min(100.0))),
                        "",
                    );
                    s.step(0.1);
                }
            }
            Action::Scale => {
                if let Some(n) = e.replicas {
                    s.add(
                        p("replicas"),
                        "Replicas",
                        n.into(),
                        (0.0, MAX_REPLICAS.into()),
                        "",
                    );
                }
            }
            Action::Down | Action::Unreachable | Action::Healthy => {}
        }
    }
}

fn refuse(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(field, message)
}

fn object<'a>(v: &'a mut Value, key: &str) -> &'a mut Map<String, Value> {
    let slot = v
        .as_object_mut()
        .expect("a topology serializes as an object")
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut().expect("made an object")
}

/// The first `prefix-N` (N from 2) that `taken` does not hold.
fn fresh_name(prefix: &str, taken: &Map<String, Value>) -> String {
    (2..)
        .map(|n| format!("{prefix}-{n}"))
        .find(|n| !taken.contains_key(n))
        .expect("a free name")
}

impl Topology {
    /// Makes `edit` on this system, read and checked as a scenario file would be; a
    /// refused edit leaves the system as it was and says why.
    pub fn apply(&mut self, edit: &Edit) -> Result<(), ConfigError> {
        let mut doc =
            serde_json::to_value(&*self).map_err(|e| refuse("scenario", e.to_string()))?;
        *self = apply(&mut doc, edit)?;
        Ok(())
    }
}

/// Makes `edit` on a scenario document (as written: what it leaves out takes the format's
/// defaults) and returns the system it now describes; a refused edit leaves `doc` as it
/// was and says why. Working on the document, not on the read system, keeps the learner's
/// file and a link's patch as short as what they changed: a breaker switched on is `{}`
/// (Resilience4j's defaults), not every one of its settings.
pub fn apply(doc: &mut Value, edit: &Edit) -> Result<Topology, ConfigError> {
    let this = Topology::from_value(doc.clone())?;
    let mut v = doc.clone();
    {
        match edit {
            Edit::Set { path, value } => {
                let known = settings(&this)
                    .into_iter()
                    .find(|s| s.path == *path)
                    .ok_or_else(|| refuse(path.as_str(), "is not a setting of this system"))?;
                if !value.is_finite() || *value < known.min || *value > known.max {
                    return Err(refuse(
                        path.as_str(),
                        format!(
                            "must be between {} and {} (got {})",
                            known.min,
                            known.max,
                            number_text(*value)
                        ),
                    ));
                }
                if known.step == 1.0 && value.fract() != 0.0 {
                    return Err(refuse(
                        path.as_str(),
                        format!("must be a whole number (got {})", number_text(*value)),
                    ));
                }
                // Whole numbers stay whole in the file.
                let number = if value.fract() == 0.0 && value.abs() < 9e15 {
                    json!(*value as i64)
                } else {
                    json!(value)
                };
                super::scenarios::set_path(&mut v, path, number)?;
            }
            Edit::AddClient => {
                let endpoint = this
                    .replicas
                    .endpoints
                    .keys()
                    .next()
                    .cloned()
                    .unwrap_or_default();
                let clients = object(&mut v, "clients");
                if clients.len() >= MAX_COMPONENTS {
                    return Err(refuse("clients", "at most 8 client populations"));
                }
                let name = fresh_name("client", clients);
                clients.insert(
                    name,
                    json!({"class": "important", "endpoint": endpoint, "rps": 10, "deadlineMs": 2000}),
                );
            }
            Edit::RemoveClient(name) => {
                if !this.clients.contains_key(name) {
                    return Err(refuse("clients", format!("there is no client “{name}”")));
                }
                if this.clients.len() == 1 {
                    return Err(refuse(
                        "clients",
                        "a system needs at least one client population",
                    ));
                }
                object(&mut v, "clients").remove(name);
                let timeline = v.get_mut("timeline").and_then(Value::as_array_mut);
                for e in timeline.into_iter().flatten() {
                    if let Some(list) = e.get_mut("clients").and_then(Value::as_array_mut) {
                        list.retain(|c| c.as_str() != Some(name));
                    }
                }
            }
            Edit::AddDependency => {
                let deps = object(&mut v, "dependencies");
                if deps.len() >= MAX_COMPONENTS {
                    return Err(refuse("dependencies", "at most 8 dependencies"));
                }
                let name = fresh_name("dependency", deps);
                deps.insert(name, json!({"workers": 50, "queue": 100, "serviceMs": 50}));
            }
            Edit::RemoveDependency(name) => {
                if !this.dependencies.contains_key(name) {
                    return Err(refuse(
                        "dependencies",
                        format!("there is no dependency “{name}”"),
                    ));
                }
                object(&mut v, "dependencies").remove(name);
                let replicas = object(&mut v, "replicas");
                if let Some(stacks) = replicas.get_mut("stacks").and_then(Value::as_object_mut) {
                    stacks.remove(name);
                }
                if let Some(endpoints) =
                    replicas.get_mut("endpoints").and_then(Value::as_object_mut)
                {
                    for e in endpoints.values_mut() {
                        if let Some(calls) = e.get_mut("calls").and_then(Value::as_array_mut) {
                            calls.retain(|c| c.as_str() != Some(name));
                        }
                    }
                }
                if let Some(probes) = replicas.get_mut("probes").and_then(Value::as_object_mut) {
                    for p in probes.values_mut() {
                        if p.get("dependency").and_then(Value::as_str) == Some(name) {
                            p["check"] = json!("resources");
                            if let Some(p) = p.as_object_mut() {
                                p.remove("dependency");
                            }
                        }
                    }
                }
                if let Some(timeline) = v.get_mut("timeline").and_then(Value::as_array_mut) {
                    timeline.retain(|e| e.get("dependency").and_then(Value::as_str) != Some(name));
                }
            }
            Edit::Connect {
                endpoint,
                dependency,
                on,
            } => {
                if !this.dependencies.contains_key(dependency) {
                    return Err(refuse(
                        "dependencies",
                        format!("there is no dependency “{dependency}”"),
                    ));
                }
                let e = v
                    .get_mut("replicas")
                    .and_then(|r| r.get_mut("endpoints"))
                    .and_then(|e| e.get_mut(endpoint.as_str()))
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| {
                        refuse("endpoints", format!("there is no endpoint “{endpoint}”"))
                    })?;
                let list = e.entry("calls").or_insert_with(|| json!([]));
                if !list.is_array() {
                    *list = json!([]);
                }
                let list = list.as_array_mut().expect("made an array");
                list.retain(|c| c.as_str() != Some(dependency));
                if *on {
                    list.push(json!(dependency));
                }
            }
            Edit::Layer {
                dependency,
                layer,
                on,
            } => {
                if !this.dependencies.contains_key(dependency) {
                    return Err(refuse(
                        "dependencies",
                        format!("there is no dependency “{dependency}”"),
                    ));
                }
                let stacks = object(&mut v, "replicas")
                    .entry("stacks")
                    .or_insert_with(|| json!({}));
                let stack = object(stacks, dependency);
                if *on {
                    stack.insert(layer.field().to_string(), layer.switched_on());
                } else {
                    stack.remove(layer.field());
                }
            }
            Edit::AddTimelineEntry { action, dependency } => {
                let list = v
                    .as_object_mut()
                    .expect("a topology serializes as an object")
                    .entry("timeline")
                    .or_insert_with(|| json!([]));
                if !list.is_array() {
                    *list = json!([]);
                }
                let list = list.as_array_mut().expect("made an array");
                if list.len() >= MAX_TIMELINE_EDITS {
                    return Err(refuse("timeline", "at most 50 entries on the page"));
                }
                let at = this.trigger_s.unwrap_or(this.seconds / 3);
                let mut entry = json!({"atS": at, "do": action.name()});
                if action.changes_a_dependency() {
                    let name = match dependency {
                        Some(name) if this.dependencies.contains_key(name) => name.clone(),
                        Some(name) => {
                            return Err(refuse(
                                "timeline",
                                format!("there is no dependency “{name}”"),
                            ))
                        }
                        None => this.dependencies.keys().next().cloned().ok_or_else(|| {
                            refuse("timeline", "there is no dependency for a fault to change")
                        })?,
                    };
                    entry["dependency"] = json!(name);
                }
                match action {
                    Action::Slow => entry["latencyMs"] = json!(2_000),
                    Action::Failing | Action::Declines => entry["percent"] = json!(50),
                    Action::Demand => entry["factor"] = json!(2),
                    Action::Scale => {
                        entry["replicas"] = json!((this.replicas.count + 1).min(MAX_REPLICAS))
                    }
                    Action::Down | Action::Unreachable | Action::Healthy => {}
                }
                list.push(entry);
            }
            Edit::RemoveTimelineEntry(index) => {
                let list = v.get_mut("timeline").and_then(Value::as_array_mut);
                match list {
                    Some(list) if *index < list.len() => {
                        list.remove(*index);
                    }
                    _ => {
                        return Err(refuse(
                            "timeline",
                            format!("there is no entry {index} on the timeline"),
                        ))
                    }
                }
            }
            Edit::Door { feature, on } => {
                let threads = u64::from(this.replicas.threads) * u64::from(this.replicas.count);
                let (parent, key, value) = match feature {
                    DoorFeature::TokenBucket => (
                        "door",
                        "tokenBucket",
                        json!({"ratePerSecond": 10, "burst": 20}),
                    ),
                    DoorFeature::Shedding => (
                        "door",
                        "shedding",
                        json!({"limit": threads.clamp(1, u64::from(MAX_QUEUE))}),
                    ),
                    DoorFeature::Adaptive => (
                        "door",
                        "adaptive",
                        json!({"initialLimit": 100, "minLimit": 10, "maxLimit": 1000}),
                    ),
                    DoorFeature::WaitingRoom => (
                        "",
                        "waitingRoom",
                        json!({"capacity": 1000, "order": "lifo", "dropStale": true}),
                    ),
                };
                let target = if parent.is_empty() {
                    v.as_object_mut().expect("a topology is an object")
                } else {
                    object(&mut v, parent)
                };
                if *on {
                    target.insert(key.to_string(), value);
                } else {
                    target.remove(key);
                }
            }
        }
    }
    let out = Topology::from_value(v.clone())?;
    *doc = v;
    Ok(out)
}

/// A JSON merge patch (RFC 7396) that turns `base` into `target`: objects are compared key
/// by key, a key `target` lacks becomes `null`, anything else is replaced whole.
pub fn diff(base: &Value, target: &Value) -> Value {
    match (base, target) {
        (Value::Object(b), Value::Object(t)) => {
            let mut patch = Map::new();
            for (k, bv) in b {
                match t.get(k) {
                    None => {
                        patch.insert(k.clone(), Value::Null);
                    }
                    Some(tv) if tv != bv => {
                        patch.insert(k.clone(), diff(bv, tv));
                    }
                    Some(_) => {}
                }
            }
            for (k, tv) in t {
                if !b.contains_key(k) {
                    patch.insert(k.clone(), tv.clone());
                }
            }
            Value::Object(patch)
        }
        _ => target.clone(),
    }
}

/// `base` with `patch` applied (see [`merge_patch`]).
pub fn patched(base: &Value, patch: &Value) -> Value {
    let mut out = base.clone();
    merge_patch(&mut out, patch);
    out
}

/// The longest `edits` read from a link or the CLI's `--edits` (characters).
pub const MAX_EDITS_CHARS: usize = 2_000;

/// Reads a link's (or the CLI's `--edits`) patch: a JSON object of at most
/// [`MAX_EDITS_CHARS`] characters; a problem quotes at most a short prefix.
pub fn read_edits(text: &str) -> Result<Value, ConfigError> {
    if text.chars().count() > MAX_EDITS_CHARS {
        return Err(refuse(
            "edits",
            format!("are longer than a link carries ({MAX_EDITS_CHARS} characters): open the scenario file instead"),
        ));
    }
    // serde_json's reason is given: "not a JSON object" was wrong for a well-formed object
    // nested past serde_json's 128 levels, or one with a lone surrogate escape.
    let patch = read_document(text).map_err(|e| {
        let why = crate::error::one_line(&format!(
            "cannot be read as JSON: {} (got “{}”)",
            crate::error::serde_words(&e.to_string()),
            crate::error::excerpt(text)
        ));
        refuse("edits", why)
    })?;
    if !patch.is_object() {
        return Err(refuse("edits", "must be a JSON object"));
    }
    Ok(patch)
}

/// A scenario file's document with `variant` merged in, its `variants` dropped and the
/// `edits` patch (as a link writes it) applied: the edited system as a scenario file.
pub fn with_edits(text: &str, variant: Option<&str>, edits: &str) -> Result<String, ConfigError> {
    let patch = read_edits(edits)?;
    let text = crate::error::without_bom(text);
    let mut doc = read_document(text).map_err(|e| refuse("scenario", e.to_string()))?;
    if let Some(name) = variant {
        let v = doc
            .get("variants")
            .and_then(|v| v.get(name))
            .cloned()
            .ok_or_else(|| refuse("variant", format!("there is no variant “{name}”")))?;
        merge_patch(&mut doc, &v);
    }
    if let Some(o) = doc.as_object_mut() {
        o.remove("variants");
    }
    merge_patch(&mut doc, &patch);
    Topology::from_value(doc.clone())
        .map_err(|e| refuse("edits", format!("make a system the engine refuses: {e}")))?;
    Ok(doc.to_string())
}
