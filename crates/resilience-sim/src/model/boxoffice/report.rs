//! What a run reports: one row a second, and a summary.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One class's second (or run): every user ends once, in one of the outcome fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassRow {
    /// New users (logical requests).
    pub offered: u64,
    /// Attempts that reached the door (first tries and retries).
    pub attempts: u64,
    /// Attempts the door let in.
    pub admitted: u64,
    /// Users whose last answer was 429.
    pub rate_limited: u64,
    /// Users whose last answer was 503 (load shedding, a full waiting room).
    pub shed: u64,
    /// Users answered before their deadline (goodput).
    pub in_time: u64,
    /// Users who gave up: no answer by the deadline.
    pub late: u64,
    /// Users answered with an error.
    pub failed: u64,
    /// Users answered by a fallback.
    pub fallback: u64,
    /// Answers nobody waited for any more (the work was done anyway).
    pub served_late: u64,
    /// Latency of the answers users got (in time or fallback), ms.
    pub p50_ms: Option<u64>,
    pub p99_ms: Option<u64>,
    pub max_ms: Option<u64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub by_key: BTreeMap<String, KeyRow>,
}

/// One key's users (a client population that carries a key).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeyRow {
    pub offered: u64,
    pub attempts: u64,
    pub admitted: u64,
    pub rate_limited: u64,
    pub shed: u64,
    pub in_time: u64,
    pub late: u64,
    pub failed: u64,
    pub fallback: u64,
    /// Latency of the answers users got (in time or fallback), ms: per client population
    /// only (a key's rows leave them out); the summary has only the maxima.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub p50_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub p99_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_ms: Option<u64>,
    /// The slowest fallback answer, ms (how long a refused call kept its user).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fallback_max_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Classes {
    pub critical: ClassRow,
    pub important: ClassRow,
    pub sheddable: ClassRow,
}

impl Classes {
    pub fn get(&self, i: usize) -> &ClassRow {
        match i {
            0 => &self.critical,
            1 => &self.important,
            _ => &self.sheddable,
        }
    }
    pub fn get_mut(&mut self, i: usize) -> &mut ClassRow {
        match i {
            0 => &mut self.critical,
            1 => &mut self.important,
            _ => &mut self.sheddable,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeRow {
    pub startup: Option<bool>,
    pub liveness: Option<bool>,
    pub readiness: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicaRow {
    pub name: String,
    /// starting, ready, not_ready, restarting, stopped.
    pub state: String,
    pub ready: bool,
    /// The most threads busy at once in the second.
    pub threads_busy: u32,
    /// The most threads waiting on a payment call at once in the second.
    pub threads_on_payment: u32,
    pub accept_queue: usize,
    pub restarts: u32,
    /// Each probe's latest result since the container started (none: not asked yet).
    pub probes: ProbeRow,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DoorRow {
    pub limit: Option<u32>,
    pub in_flight: u32,
    pub rate_limited: u64,
    pub shed: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueRow {
    pub length: usize,
    pub oldest_ms: u64,
    pub dropped_stale: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DependencyRow {
    /// Calls that reached it (refused ones included).
    pub offered: u64,
    pub in_flight: u32,
    pub queue: usize,
    /// Calls answered to a caller still waiting.
    pub served: u64,
    /// Calls answered after their caller had gone.
    pub wasted: u64,
    pub dropped_stale: u64,
    /// Calls refused at once (down), turned away by a full queue, or never connected
    /// (unreachable).
    pub refused: u64,
    pub charges: u64,
    pub duplicate_charges: u64,
    /// Repeated charges an idempotency key prevented.
    pub deduplicated: u64,
    pub declines: u64,
    pub state: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Second {
    pub t_s: u32,
    pub classes: Classes,
    /// The same counts per client population (`purchases`, `holds`, `bots`).
    pub clients: BTreeMap<String, KeyRow>,
    /// Users answered in time this second, all classes.
    pub goodput: u64,
    pub replicas: Vec<ReplicaRow>,
    pub door: DoorRow,
    pub queue: QueueRow,
    /// The dependency named `payment` (or the first one).
    pub payment: DependencyRow,
    pub dependencies: BTreeMap<String, DependencyRow>,
    /// Each breaker's state at the end of the second: `order-1/payment`.
    pub breakers: BTreeMap<String, String>,
    /// Bulkhead permits in use at the second's end, by `replica/dependency`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bulkheads: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub classes: Classes,
    pub clients: BTreeMap<String, KeyRow>,
    /// Users still waiting when the run ended, per class.
    pub unfinished: [u64; 3],
    pub in_time_percent: BTreeMap<String, Option<f64>>,
    /// What the replicas can serve per second, from the configuration (threads / work).
    pub capacity_rps: f64,
    pub max_threads_busy: u32,
    pub max_threads_on_payment: u32,
    pub breaker_openings: BTreeMap<String, u32>,
    pub restarts: Vec<u32>,
    pub payment: DependencyRow,
    pub events: u64,
    pub truncated: bool,
    pub trigger_s: Option<u32>,
    pub trigger_end_s: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoxOfficeRun {
    pub scenario: String,
    pub variant: String,
    pub seed: u64,
    pub seconds: Vec<Second>,
    pub summary: Summary,
}
