//! Experiment 2, the metastability map: which (load, trigger) cells never recover.
//!
//! The server now has a capacity: `workers` serving a FIFO queue of at most `queue`
//! calls, `service` ms each (10 workers x 100 ms: 100 calls/s). The client population
//! sends `load x capacity` requests/s (open loop, Poisson) and gives each attempt
//! `timeout` (1 s); a call that times out stays in the queue and is served anyway, for
//! nobody (wasted work). After a `warmup`, the trigger slows the service down `slowdown`
//! times (3x) for `trigger_s` seconds; then the server is healthy again.
//!
//! A cell is **recovered** when, over the last `judge` (10 s) of the `observe` (60 s)
//! that follow the trigger, at least `recoveredShare` (90 %) of the requests that arrive
//! succeed; otherwise it is **still down**. The mechanism the map shows: during the
//! trigger the queue grows past `timeout x capacity` calls, so every call waits longer
//! than its client and every attempt times out; each timeout that is retried adds a call
//! to a queue that is serving stale calls. With `1 + retries` attempts per request the
//! load stays above capacity after the trigger when `load x amplification > 1`, and the
//! queue never drains: a metastable failure. A policy that stops retrying when most calls
//! fail keeps the amplification near 1 and lets the queue drain.

use serde::{Deserialize, Serialize};

use super::client::ClientPolicy;
use super::sim::{self, RunSpec, RunStats, Server};
use super::{cell_seed, check_list, prefixed, RetryPolicyKind, RetryPolicySettings};
use crate::error::{check_number, check_range};
use crate::{ConfigError, Millis};

/// The most loads, and the most trigger sizes, of one map.
pub const MAX_AXIS: usize = 12;
/// The most requests a whole map may make, every policy and cell together (the default
/// map makes about 2 million).
pub const MAX_REQUESTS_PER_MAP: f64 = 50_000_000.0;
/// The server's largest capacity (calls per second).
pub const MAX_CAPACITY_PER_SECOND: f64 = 1_000.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct MapConfig {
    /// Workers of the server (1 to 1,000; default 10).
    pub workers: u32,
    /// A call's service time when healthy (1 ms to 10 s; default 100 ms).
    #[serde(with = "crate::duration::serde_millis")]
    pub service: Millis,
    /// Calls that may wait for a worker (0 to 100,000; default 200: 2 s of work).
    pub queue: u32,
    /// The client's timeout per attempt (1 ms to 60 s; default 1 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub timeout: Millis,
    /// How much slower the service is during the trigger (1 to 20; default 3).
    pub slowdown: f64,
    /// Healthy time before the trigger (0 to 2 min; default 10 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub warmup: Millis,
    /// How long after the trigger the cell is judged (10 s to 5 min; default 60 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub observe: Millis,
    /// The window, at the end of `observe`, the verdict looks at (1 s to `observe`;
    /// default 10 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub judge: Millis,
    /// Recovered: at least this share of the window's requests succeeded (default 0.9).
    pub recovered_share: f64,
    /// Offered load as shares of the capacity (1 to 12 values within [0.01, 2]).
    pub loads: Vec<f64>,
    /// Trigger sizes in seconds (1 to 12 values within [0, 120]).
    pub triggers_s: Vec<f64>,
    pub policies: Vec<RetryPolicyKind>,
    pub settings: RetryPolicySettings,
    pub seed: u64,
}

impl Default for MapConfig {
    fn default() -> Self {
        Self {
            workers: 10,
            service: 100,
            queue: 200,
            timeout: 1_000,
            slowdown: 3.0,
            warmup: 10_000,
            observe: 60_000,
            judge: 10_000,
            recovered_share: 0.9,
            loads: vec![0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95],
            triggers_s: vec![1.0, 2.0, 5.0, 10.0, 20.0],
            policies: RetryPolicyKind::ALL.to_vec(),
            settings: RetryPolicySettings::default(),
            seed: 1,
        }
    }
}

impl MapConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("workers", self.workers.into(), 1, 1_000)?;
        check_range("service", self.service, 1, 10_000)?;
        let capacity = self.capacity_per_second();
        if capacity > MAX_CAPACITY_PER_SECOND {
            return Err(ConfigError::new(
                "workers",
                format!(
                    "workers / service must be at most {MAX_CAPACITY_PER_SECOND} calls/s (got {capacity:.0})"
                ),
            ));
        }
        check_range("queue", self.queue.into(), 0, 100_000)?;
        check_range("timeout", self.timeout, 1, 60_000)?;
        check_number("slowdown", self.slowdown, 1.0, 20.0)?;
        check_range("warmup", self.warmup, 0, 120_000)?;
        check_range("observe", self.observe, 10_000, 300_000)?;
        check_range("judge", self.judge, 1_000, self.observe)?;
        check_number("recoveredShare", self.recovered_share, 0.0, 1.0)?;
        check_list("loads", &self.loads, MAX_AXIS, 0.01, 2.0)?;
        check_list("triggersS", &self.triggers_s, MAX_AXIS, 0.0, 120.0)?;
        if self.policies.is_empty() {
            return Err(ConfigError::new(
                "policies",
                "must name at least one policy",
            ));
        }
        self.settings
            .validate()
            .map_err(|e| prefixed("settings", e))?;
        let seconds = |trigger_s: f64| (self.warmup + self.observe) as f64 / 1_000.0 + trigger_s;
        let per_policy: f64 = self
            .loads
            .iter()
            .flat_map(|load| {
                self.triggers_s
                    .iter()
                    .map(move |t| load * capacity * seconds(*t))
            })
            .sum();
        let total = per_policy * self.policies.len() as f64;
        if total > MAX_REQUESTS_PER_MAP {
            return Err(ConfigError::new(
                "loads",
                format!(
                    "the map would make {total:.0} requests, more than {MAX_REQUESTS_PER_MAP}: fewer cells, policies or a smaller server"
                ),
            ));
        }
        Ok(())
    }

    /// Calls per second the healthy server completes.
    pub fn capacity_per_second(&self) -> f64 {
        f64::from(self.workers) * 1_000.0 / self.service.max(1) as f64
    }
}

/// One cell for one policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapCell {
    pub load: f64,
    pub trigger_s: f64,
    pub recovered: bool,
    /// Share of the judged window's requests that succeeded.
    pub goodput: f64,
    /// Calls served after their client gave up, over the whole run.
    pub wasted: u64,
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapRow {
    pub policy: RetryPolicyKind,
    pub cells: Vec<MapCell>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapRun {
    pub rows: Vec<MapRow>,
}

impl MapRun {
    pub fn row(&self, policy: RetryPolicyKind) -> Option<&MapRow> {
        self.rows.iter().find(|r| r.policy == policy)
    }
}

impl MapRow {
    pub fn cell(&self, load: f64, trigger_s: f64) -> Option<&MapCell> {
        self.cells
            .iter()
            .find(|c| c.load == load && c.trigger_s == trigger_s)
    }
}

/// One cell with one policy (the page's "where do my settings fall").
pub fn cell(
    config: &MapConfig,
    policy: RetryPolicyKind,
    load: f64,
    trigger_s: f64,
) -> Result<MapCell, ConfigError> {
    let (spec, client) = cell_run(config, policy, load, trigger_s)?;
    Ok(cell_of(config, load, trigger_s, &sim::run(&spec, client)))
}

/// The run of one cell, not made yet (a page makes it in slices: [`sim::Sim`]).
pub fn cell_run(
    config: &MapConfig,
    policy: RetryPolicyKind,
    load: f64,
    trigger_s: f64,
) -> Result<(RunSpec, ClientPolicy), ConfigError> {
    let client = ClientPolicy::new(policy, &config.settings)?;
    let slow_from = config.warmup;
    let slow_until = slow_from + (trigger_s * 1_000.0).round() as Millis;
    let end = slow_until + config.observe;
    let spec = RunSpec {
        demand_per_second: load * config.capacity_per_second(),
        server: Server::Capacity {
            workers: config.workers,
            service: config.service,
            queue: config.queue,
            slowdown: config.slowdown,
            slow_from,
            slow_until,
        },
        timeout: Some(config.timeout),
        arrivals_until: end,
        measure_from: 0,
        measure_until: end,
        judge_from: end - config.judge,
        end,
        seed: cell_seed(config.seed, &[load, trigger_s]),
    };
    Ok((spec, client))
}

/// The cell a finished run of [`cell_run`] gives.
pub fn cell_of(config: &MapConfig, load: f64, trigger_s: f64, stats: &RunStats) -> MapCell {
    // Successes that end in the window over requests that arrive in it: a backlog served
    // in the window can take the ratio a little over 1, which no share of requests is.
    let goodput = (stats.window_successes as f64 / stats.window_arrivals.max(1) as f64).min(1.0);
    MapCell {
        load,
        trigger_s,
        recovered: !stats.truncated && goodput >= config.recovered_share,
        goodput,
        wasted: stats.wasted,
        truncated: stats.truncated,
    }
}

/// The whole map: every policy, every load, every trigger (loads outer, triggers inner).
pub fn run(config: &MapConfig) -> Result<MapRun, ConfigError> {
    config.validate()?;
    let mut rows = Vec::new();
    for &policy in &config.policies {
        let mut cells = Vec::new();
        for &load in &config.loads {
            for &trigger_s in &config.triggers_s {
                cells.push(cell(config, policy, load, trigger_s)?);
            }
        }
        rows.push(MapRow { policy, cells });
    }
    Ok(MapRun { rows })
}
