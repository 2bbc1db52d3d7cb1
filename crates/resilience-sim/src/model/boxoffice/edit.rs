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

use serde_json::{json, Map, Value};

use super::topology::{merge_patch, StackSpec, Topology, MAX_QUEUE, MAX_REPLICAS, MAX_THREADS};
use crate::ConfigError;

/// The most clients or dependencies an edited system has.
pub const MAX_COMPONENTS: usize = 8;

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

/// One change the learner makes to the system.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A number of [`settings`], by its path.
    Set {
        path: String,
        value: f64,
    },
    AddClient,
    RemoveClient(String),
    AddDependency,
    /// Removes the dependency and every reference to it: calls, its stack, probes that
    /// check it (they check the replica's own resources instead), timeline entries.
    RemoveDependency(String),
    /// Whether `endpoint` calls `dependency`.
    Connect {
        endpoint: String,
        dependency: String,
        on: bool,
    },
    Layer {
        dependency: String,
        layer: Layer,
        on: bool,
    },
    Door {
        feature: DoorFeature,
        on: bool,
    },
}

/// A number the learner can change, as the page's list view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// Where it sits in the scenario file (`replicas.count`).
    pub path: String,
    pub label: &'static str,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub step: f64,
}

fn setting(path: String, label: &'static str, value: f64, min: f64, max: f64) -> Setting {
    Setting {
        path,
        label,
        value,
        min,
        max,
        step: 1.0,
    }
}

/// The numbers of a component, by group: "replicas", "door", `clients.NAME`,
/// `dependencies.NAME` (its stack included).
pub fn settings(t: &Topology) -> Vec<(String, Vec<Setting>)> {
    let q = f64::from(MAX_QUEUE);
    let hour = 3_600_000.0;
    let mut out = vec![(
        "replicas".to_string(),
        vec![
            setting(
                "replicas.count".into(),
                "Replicas",
                t.replicas.count.into(),
                1.0,
                MAX_REPLICAS.into(),
            ),
            setting(
                "replicas.threads".into(),
                "Threads per replica",
                t.replicas.threads.into(),
                1.0,
                MAX_THREADS.into(),
            ),
        ],
    )];
    let mut door = Vec::new();
    if let Some(tb) = &t.door.token_bucket {
        door.push(setting(
            "door.tokenBucket.ratePerSecond".into(),
            "Requests a second per key",
            tb.rate_per_second,
            1.0,
            1e6,
        ));
        door.push(setting(
            "door.tokenBucket.burst".into(),
            "Burst per key",
            tb.burst.into(),
            1.0,
            1e6,
        ));
    }
    if let Some(s) = &t.door.shedding {
        door.push(setting(
            "door.shedding.limit".into(),
            "Shedding: most in flight",
            s.limit.into(),
            1.0,
            q,
        ));
    }
    if let Some(a) = &t.door.adaptive {
        door.push(setting(
            "door.adaptive.minLimit".into(),
            "Adaptive: lowest limit",
            a.min_limit.into(),
            1.0,
            q,
        ));
        door.push(setting(
            "door.adaptive.maxLimit".into(),
            "Adaptive: highest limit",
            a.max_limit.into(),
            1.0,
            q,
        ));
    }
    if let Some(w) = &t.waiting_room {
        door.push(setting(
            "waitingRoom.capacity".into(),
            "Waiting room: places",
            w.capacity.into(),
            1.0,
            q,
        ));
    }
    out.push(("door".to_string(), door));
    for (name, c) in &t.clients {
        out.push((
            format!("clients.{name}"),
            vec![
                setting(
                    format!("clients.{name}.rps"),
                    "New requests a second",
                    c.rps,
                    0.0,
                    50_000.0,
                ),
                setting(
                    format!("clients.{name}.deadlineMs"),
                    "Gives up after (ms)",
                    c.deadline_ms as f64,
                    1.0,
                    hour,
                ),
            ],
        ));
    }
    for (name, d) in &t.dependencies {
        let mut s = vec![
            setting(
                format!("dependencies.{name}.workers"),
                "Workers",
                d.workers.into(),
                1.0,
                MAX_THREADS.into(),
            ),
            setting(
                format!("dependencies.{name}.serviceMs"),
                "Answers in (ms)",
                d.service_ms as f64,
                0.0,
                hour,
            ),
        ];
        if let Some(stack) = t.replicas.stacks.get(name) {
            let p = |x: &str| format!("replicas.stacks.{name}.{x}");
            if let Some(ms) = stack.read_timeout_ms {
                s.push(setting(
                    p("readTimeoutMs"),
                    "Read timeout (ms)",
                    ms as f64,
                    1.0,
                    hour,
                ));
            }
            if let Some(r) = &stack.retry {
                s.push(setting(
                    p("retry.maxAttempts"),
                    "Retry: maxAttempts",
                    r.max_attempts.into(),
                    1.0,
                    10.0,
                ));
                s.push(setting(
                    p("retry.waitDuration"),
                    "Retry: waitDuration (ms)",
                    r.wait_duration as f64,
                    0.0,
                    hour,
                ));
            }
            if let Some(c) = &stack.circuit_breaker {
                s.push(setting(
                    p("circuitBreaker.failureRateThreshold"),
                    "Breaker: failureRateThreshold (%)",
                    c.failure_rate_threshold.into(),
                    1.0,
                    100.0,
                ));
                s.push(setting(
                    p("circuitBreaker.slidingWindowSize"),
                    "Breaker: slidingWindowSize",
                    c.sliding_window_size.into(),
                    1.0,
                    10_000.0,
                ));
                s.push(setting(
                    p("circuitBreaker.waitDurationInOpenState"),
                    "Breaker: waitDurationInOpenState (ms)",
                    c.wait_duration_in_open_state as f64,
                    1.0,
                    hour,
                ));
            }
            if let Some(b) = &stack.bulkhead {
                s.push(setting(
                    p("bulkhead.maxConcurrentCalls"),
                    "Bulkhead: maxConcurrentCalls",
                    b.max_concurrent_calls.into(),
                    0.0,
                    MAX_THREADS.into(),
                ));
            }
            if let Some(l) = &stack.time_limiter {
                s.push(setting(
                    p("timeLimiter.timeoutDuration"),
                    "TimeLimiter: timeoutDuration (ms)",
                    l.timeout_duration as f64,
                    1.0,
                    hour,
                ));
            }
        }
        out.push((format!("dependencies.{name}"), s));
    }
    out
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
    /// This system with `edit` made, read and checked as a scenario file would be; a
    /// refused edit says why.
    pub fn apply(&self, edit: &Edit) -> Result<Topology, ConfigError> {
        let mut doc = serde_json::to_value(self).map_err(|e| refuse("scenario", e.to_string()))?;
        apply(&mut doc, edit)
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
                    .flat_map(|(_, s)| s)
                    .find(|s| s.path == *path)
                    .ok_or_else(|| refuse(path.as_str(), "is not a setting of this system"))?;
                if !value.is_finite() || *value < known.min || *value > known.max {
                    return Err(refuse(
                        path.as_str(),
                        format!(
                            "must be between {} and {} (got {value})",
                            known.min, known.max
                        ),
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
